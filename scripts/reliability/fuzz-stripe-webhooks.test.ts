import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Harness } from '../../services/billing/test/support.js';
import { runRandomBodies, runStripeWebhookFuzz, runUnknownTypes } from './fuzz/stripe-webhooks.js';
import { fuzzSeed } from './report.js';

const SEED = fuzzSeed(2024);

describe('Stripe webhook fuzz', () => {
  it('when every webhook class runs at test size, then each is tried with nothing lost, duplicated or crashed', async () => {
    const rows = await runStripeWebhookFuzz('test', SEED);
    expect(rows.map((r) => r.name)).toHaveLength(5);
    for (const row of rows) {
      expect(row.tried, row.name).toBeGreaterThan(0);
      expect({ name: row.name, lost: row.lost, duplicated: row.duplicated, crashed: row.crashed, notes: row.notes }).toMatchObject({
        lost: 0,
        duplicated: 0,
        crashed: 0,
      });
    }
  }, 60_000);
});

describe('Stripe webhook fuzz detectors (negative controls)', () => {
  let server: Server;
  let answer: { status: number; body: unknown } = { status: 500, body: { status: 500, code: 'internal' } };
  let fake: Harness;
  beforeAll(async () => {
    server = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        res.writeHead(answer.status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(answer.body));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    fake = { baseUrl: `http://127.0.0.1:${(server.address() as { port: number }).port}` } as Harness;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('when the endpoint answers 500, then every random body counts as crashed', async () => {
    answer = { status: 500, body: { status: 500, code: 'internal' } };
    const r = await runRandomBodies(fake, 5, SEED);
    expect(r.tried).toBe(5);
    expect(r.crashed).toBe(5);
  });

  it('when the endpoint applies unknown event types instead of answering unhandled, then each counts as crashed', async () => {
    answer = { status: 200, body: { received: true, outcome: 'applied' } };
    const r = await runUnknownTypes(fake, 5, SEED);
    expect(r.tried).toBeGreaterThan(0);
    expect(r.crashed).toBe(r.tried);
  });
});
