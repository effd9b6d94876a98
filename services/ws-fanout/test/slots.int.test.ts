/**
 * Slot status on the WebSocket (`"slots": true`, docs/websocket.md "Slot status") against a real operator-mode
 * nats-server 2.10 (one consumer reads a subject and `slots` merged), Redis and WebSocket clients: statuses come
 * after the trades of their slot, only for slots the subscription was sent a trade from, never `processed`; a
 * resume with `resume_after` loses none; a subscription without it sees none; bad requests are refused.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jetstream, type JetStreamClient } from '@nats-io/jetstream';
import { SLOTS_SUBJECT, isTradeMessage, type SlotStatusName } from '@tradewind/contracts';
import { createCustomer, startTestApp, startTestEnv, TestClient, type TestApp, type TestEnv } from './support.js';

let env: TestEnv;
let t: TestApp;
let js: JetStreamClient;

beforeAll(async () => {
  // The cluster tests' nats-server (2.10.x: scripts/test-env.ts sets it for every worker).
  env = await startTestEnv({ natsBin: process.env.NATS_CLUSTER_SERVER_BIN ?? 'nats-server' });
  js = jetstream(env.nc);
  t = await startTestApp(env, { WS_HEARTBEAT_INTERVAL_MS: 60_000 });
});

afterAll(async () => {
  await t?.app.stop();
  await env?.stop();
});

let slotBase = 5_000_000;
/** A fresh range of 100 slots for one test. */
const nextSlots = (): number => {
  slotBase += 100;
  return slotBase;
};
let n = 0;
const MINT_A = '5qDerhe7hTPFHjjRYoWbiWKGpwyBLPM85dzQnkd3pump';
const MINT_B = 'So11111111111111111111111111111111111111112';

/** Publishes a pump.fun trade of `slot` (mint `mint`) and returns its stream sequence. */
async function trade(slot: number, mint = MINT_A): Promise<number> {
  const i = ++n;
  const body = { source: 'pumpfun', type: 'trade', transaction_type: 'BUY', signature: `slotsig${i}`, slot, commitment: 'processed', mint, n: i };
  return (await js.publish('basic.pumpfun', JSON.stringify(body), { msgID: `slots-test-${i}-${Date.now()}` })).seq;
}

/** Publishes the slot message ingest would (@tradewind/contracts slots.ts) and returns its stream sequence. */
async function status(slot: number, s: SlotStatusName, trades: Record<string, number> = { 'basic.pumpfun': 1 }): Promise<number> {
  const body = { type: 'slot', slot, parent: slot - 1, status: s, trades, source: 'yellowstone', observed_at_ms: Date.now(), schema_version: 1 };
  return (await js.publish(SLOTS_SUBJECT, JSON.stringify(body), { msgID: `slot:${slot}:${s}:${Date.now()}` })).seq;
}

/** Messages until one matches `done` (inclusive). */
async function until(c: TestClient, done: (m: Record<string, unknown>) => boolean, timeoutMs = 5_000): Promise<Array<Record<string, unknown>>> {
  const out: Array<Record<string, unknown>> = [];
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const m = await c.next(Math.max(1, deadline - Date.now()));
    out.push(m);
    if (done(m)) return out;
  }
}

describe('slot status on the WebSocket', () => {
  it('when a subscription asks for slot status, then each of its slots is followed by confirmed and finalized/dead after its trades, and filtered-out slots and processed never come', async () => {
    const slot = nextSlots();
    const customer = await createCustomer(env, 'starter');
    const c = await TestClient.authed(t.url, await customer.user());
    const plain = await TestClient.authed(t.url, await (await createCustomer(env, 'starter')).user());
    c.send({ subject: 'basic.pumpfun', slots: true, filter: { mints: [MINT_A] } });
    expect(await c.next()).toMatchObject({ type: 'subscribed', subject: 'basic.pumpfun', slots: true, filter: { mints: [MINT_A] } });
    plain.send({ subject: 'basic.pumpfun' });
    const subscribed = await plain.next();
    expect(subscribed).toMatchObject({ type: 'subscribed' });
    expect(subscribed).not.toHaveProperty('slots');

    const t1 = await trade(slot);
    const t2 = await trade(slot);
    await trade(slot + 1, MINT_B); // filtered out: slot + 1 has no trade for c
    const p1 = await status(slot, 'processed', { 'basic.pumpfun': 2 });
    const t3 = await trade(slot + 2);
    const c1 = await status(slot, 'confirmed', { 'basic.pumpfun': 2 });
    await status(slot + 1, 'confirmed');
    const c3 = await status(slot + 2, 'confirmed');
    const f1 = await status(slot, 'finalized', { 'basic.pumpfun': 2 });
    const d3 = await status(slot + 2, 'dead');
    await status(slot + 1, 'dead');
    const last = await trade(slot + 3);

    const got = await until(c, (m) => m.seq === last);
    expect(got.map((m) => [m.seq, isTradeMessage(m) ? 'trade' : `${m.type as string} ${m.slot as number}:${m.status as string}`])).toEqual([
      [t1, 'trade'],
      [t2, 'trade'],
      [t3, 'trade'],
      [c1, `slot ${slot}:confirmed`],
      [c3, `slot ${slot + 2}:confirmed`],
      [f1, `slot ${slot}:finalized`],
      [d3, `slot ${slot + 2}:dead`],
      [last, 'trade'],
    ]);
    expect(got.find((m) => m.seq === p1)).toBeUndefined();
    // The slot message as published, with the subscription's subject and seq first.
    expect(got[3]).toMatchObject({
      seq: c1,
      subject: 'basic.pumpfun',
      type: 'slot',
      slot,
      parent: slot - 1,
      status: 'confirmed',
      trades: { 'basic.pumpfun': 2 },
    });

    // Without "slots": trades only.
    const plainGot = await until(plain, (m) => m.seq === last);
    expect(plainGot.every(isTradeMessage)).toBe(true);
    c.close();
    plain.close();
  });

  it('when a client with slot status reconnects with resume_after its last seq, then it gets the statuses it missed, for its slots only', async () => {
    const slot = nextSlots();
    const customer = await createCustomer(env, 'starter');
    const creds = await customer.user();
    const a = await TestClient.authed(t.url, creds);
    a.send({ subject: 'basic.pumpfun', slots: true });
    await a.next();
    const t1 = await trade(slot);
    const c1 = await status(slot, 'confirmed');
    const first = await until(a, (m) => m.seq === c1);
    expect(first.map((m) => m.seq)).toEqual([t1, c1]);
    a.ws.terminate();
    await a.waitClosed();

    // Missed while away: slot's finalization, a slot with trades of another subject only, a new trade and its status.
    const f1 = await status(slot, 'finalized');
    await status(slot - 50, 'confirmed', { 'basic.bonk': 3 });
    const t2 = await trade(slot + 1);
    const c2 = await status(slot + 1, 'confirmed');

    let b: TestClient | undefined;
    const deadline = Date.now() + 10_000;
    while (!b) {
      b = await TestClient.authed(t.url, creds).catch(() => undefined);
      if (!b && Date.now() > deadline) throw new Error('could not reconnect');
      if (!b) await new Promise((r) => setTimeout(r, 200));
    }
    b.send({ subject: 'basic.pumpfun', slots: true, resume_after: c1 });
    expect(await b.next()).toMatchObject({ type: 'subscribed', resume_after: c1, slots: true });
    const resumed = await until(b, (m) => m.type === 'replay_caught_up');
    expect(resumed.filter((m) => m.type !== 'replay_caught_up').map((m) => m.seq)).toEqual([f1, t2, c2]);
    // Live again: the next status of its slot arrives.
    const f2 = await status(slot + 1, 'finalized');
    expect((await until(b, (m) => m.seq === f2)).at(-1)).toMatchObject({ type: 'slot', status: 'finalized', slot: slot + 1 });
    b.close();
  });

  it('when "slots" is not a boolean, or a subscription changes its slot status in place, then the request is refused and the subscription stays', async () => {
    const customer = await createCustomer(env, 'starter');
    const c = await TestClient.authed(t.url, await customer.user());
    c.send({ subject: 'basic.pumpfun', slots: 'yes' });
    expect(await c.next()).toMatchObject({ type: 'error', code: 'bad_request', subject: 'basic.pumpfun' });
    c.send({ subject: 'basic.pumpfun' });
    expect(await c.next()).toMatchObject({ type: 'subscribed' });
    c.send({ subject: 'basic.pumpfun', slots: true });
    const refused = await c.next();
    expect(refused).toMatchObject({ type: 'error', code: 'bad_request' });
    expect(String(refused.message)).toMatch(/already subscribed to basic\.pumpfun without slot status; .*unsubscribe/);
    const seq = await trade(nextSlots());
    expect((await until(c, (m) => m.seq === seq)).at(-1)).toMatchObject({ type: 'trade' });
    c.close();
  });
});
