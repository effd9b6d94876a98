/**
 * The HTTP fuzzer (scripts/reliability/fuzz/http.ts) at 'test' size inside `npm test`, and negative
 * controls proving its judge and raw client can fail.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { fuzzSeed } from './report.js';
import { judgeHttp, openApiRoutes, runHttpFuzz } from './fuzz/http.js';
import { rawRequest } from './fuzz/http-raw.js';

const SEED = fuzzSeed(20_261_126);

/** A stand-in server answering every request with `handler`. */
async function standIn(handler: Parameters<typeof createServer>[1]): Promise<{ port: number; server: Server }> {
  const server = createServer(handler);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return { port: (server.address() as AddressInfo).port, server };
}

describe('HTTP fuzzing', () => {
  it('when every input class runs against auth, credential-issuer and token-price at test size, then each is tried and nothing crashed', async () => {
    const rows = await runHttpFuzz('test', SEED);
    expect(rows.length).toBeGreaterThanOrEqual(7);
    for (const row of rows) {
      expect(row.tried, row.name).toBeGreaterThan(0);
      expect({ name: row.name, lost: row.lost, duplicated: row.duplicated, crashed: row.crashed, notes: row.notes }).toEqual({
        name: row.name,
        lost: 0,
        duplicated: 0,
        crashed: 0,
        notes: row.notes,
      });
    }
  }, 90_000);

  it('when the OpenAPI document is read, then every /api and /auth route but the Stripe webhook is fuzzed', () => {
    const paths = [...openApiRoutes('/auth/'), ...openApiRoutes('/api/')].map((r) => `${r.method} ${r.path}`);
    expect(paths).toContain('GET /auth/user');
    expect(paths).toContain('POST /api/nats');
    expect(paths.some((p) => p.includes('webhook'))).toBe(false);
  });

  it('when a server answers 500, hangs, or sends a 4xx in another shape, then the judge flags each', async () => {
    const ok = { status: 400, headers: {}, body: '{"status":400,"code":"invalid_argument","message":"x"}', timedOut: false };
    expect(judgeHttp(ok)).toBeUndefined();
    expect(judgeHttp({ ...ok, status: 500, body: '{"status":500,"code":"internal","message":"internal error"}' })).toMatch(/^500/);
    expect(judgeHttp({ ...ok, status: 0, body: '', timedOut: true })).toMatch(/hang/);
    expect(judgeHttp({ ...ok, body: '{"error":"Bad Request","message":"Client Error","statusCode":400}' })).toMatch(/not \{status, code, message\}/);
    expect(judgeHttp({ ...ok, status: 404, body: '{"status":400,"code":"invalid_argument","message":"x"}' })).toMatch(/not \{status, code, message\}/);
    expect(judgeHttp({ ...ok, status: 200, body: '{}' }, { expectStatus: 401 })).toMatch(/401 was expected/);

    const broken = await standIn((req, res) => {
      if (req.url === '/hang') return; // never answers
      res.writeHead(500, { 'content-type': 'application/json' }).end('{"status":500,"code":"internal","message":"boom"}');
    });
    try {
      expect(judgeHttp(await rawRequest(broken.port, 'GET /x HTTP/1.1\r\nHost: a'))).toMatch(/^500/);
      const hung = await rawRequest(broken.port, 'GET /hang HTTP/1.1\r\nHost: a', '', 300);
      expect(hung.timedOut).toBe(true);
      expect(judgeHttp(hung)).toMatch(/hang/);
    } finally {
      broken.server.closeAllConnections();
      await new Promise((r) => broken.server.close(r));
    }
  });
});
