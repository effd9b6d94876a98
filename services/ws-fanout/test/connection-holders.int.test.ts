/**
 * `holders` of a connection_limit refusal against a real operator-mode nats-server and Redis: the refused
 * login is told which of the customer's connections hold the plan's slots (connected_at, address,
 * User-Agent cut to its maximum, Origin), and the record goes with the slot when that connection ends.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { SLOT_HOLDER_TEXT_MAX_CHARS } from '../src/domain/connection-limiter.js';
import { createCustomer, startTestApp, startTestEnv, type TestApp, type TestEnv } from './support.js';

let env: TestEnv;
let app: TestApp;

beforeAll(async () => {
  env = await startTestEnv();
  app = await startTestApp(env);
});

afterAll(async () => {
  await app?.app.stop();
  await env?.stop();
});

/** A WebSocket client whose upgrade request carries `headers` (the `ws` package sends no User-Agent of its own). */
class HeaderClient {
  private readonly queue: string[] = [];
  readonly ws: WebSocket;
  readonly opened: Promise<void>;
  readonly closed: Promise<number>;

  constructor(headers: Record<string, string>) {
    this.ws = new WebSocket(app.url, { headers });
    this.opened = new Promise((resolve, reject) => {
      this.ws.once('open', () => resolve());
      this.ws.once('error', reject);
    });
    this.closed = new Promise((resolve) => this.ws.once('close', (code) => resolve(code)));
    this.ws.on('message', (data) => this.queue.push(data.toString()));
  }

  /** The next message, parsed; rejects after 3 s. */
  async next(): Promise<Record<string, unknown>> {
    await expect.poll(() => this.queue.length, { timeout: 3_000, interval: 10 }).toBeGreaterThan(0);
    return JSON.parse(this.queue.shift()!) as Record<string, unknown>;
  }

  send(value: unknown): void {
    this.ws.send(JSON.stringify(value));
  }

  close(): void {
    this.ws.close();
  }
}

/** Logs in with `creds`; @returns the client and the answer to the credentials. */
async function login(c: HeaderClient, creds: { jwt: string; seed: string }): Promise<Record<string, unknown>> {
  await c.opened;
  expect((await c.next()).type).toBe('challenge');
  c.send({ jwt: creds.jwt, nkey: creds.seed });
  return c.next();
}

describe('connection_limit holders', () => {
  it('when a starter customer logs in while its one slot is held, then the refusal names the holder (since when, address, User-Agent cut, Origin); once the holder leaves, none is left and the login succeeds', async () => {
    const customer = await createCustomer(env, 'starter');
    const creds = await customer.user();
    const longAgent = `TradingBot/1.0 ${'x'.repeat(SLOT_HOLDER_TEXT_MAX_CHARS * 2)}`;
    const before = Date.now();
    const holder = new HeaderClient({ 'User-Agent': longAgent, Origin: 'https://bot.example' });
    expect(await login(holder, creds)).toMatchObject({ type: 'authenticated' });
    const after = Date.now();

    // A second user key of the same customer account shares the account's slots.
    const refused = new HeaderClient({ 'User-Agent': 'Mozilla/5.0 second' });
    const answer = await login(refused, await customer.user());
    expect(answer).toMatchObject({ type: 'error', code: 'connection_limit' });
    expect(String(answer.message)).toMatch(/^connection limit reached: the starter plan allows 1 concurrent connection;/);
    const holders = answer.holders as Array<Record<string, unknown>>;
    expect(holders).toHaveLength(1);
    const [held] = holders;
    expect(held).toEqual({
      connected_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
      address: '127.0.0.1',
      user_agent: longAgent.slice(0, SLOT_HOLDER_TEXT_MAX_CHARS),
      origin: 'https://bot.example',
    });
    const connectedAt = Date.parse(String(held!.connected_at));
    expect(connectedAt).toBeGreaterThanOrEqual(before);
    expect(connectedAt).toBeLessThanOrEqual(after);
    expect(await refused.closed).toBe(4429);

    // Redis holds exactly one holder record for the one slot, and none once the holder is gone.
    const key = `tw:ws:conns:${customer.spec.accountPublicKey}`;
    expect(await env.redis.hLen(`${key}:holders`)).toBe(1);
    holder.close();
    await holder.closed;
    await expect.poll(() => env.redis.hLen(`${key}:holders`), { timeout: 3_000 }).toBe(0);
    expect(await env.redis.zCard(key)).toBe(0);

    const next = new HeaderClient({});
    expect(await login(next, creds)).toMatchObject({ type: 'authenticated' });
    const third = new HeaderClient({});
    const again = await login(third, creds);
    expect(again).toMatchObject({ type: 'error', code: 'connection_limit' });
    // A client that sends no User-Agent and no Origin is listed with nulls; the departed holder is not listed.
    expect(again.holders).toEqual([{ connected_at: expect.any(String), address: '127.0.0.1', user_agent: null, origin: null }]);
    next.close();
    await next.closed;
  });
});
