/**
 * Pro replay over WebSocket against a real TRADES stream: the exact sequence range with no gap and
 * no duplicate across the history-to-live seam, refusals for plans without replay and bad starts,
 * replacement of live subscriptions, consumers stopped on unsubscribe/close/downgrade/stop, and
 * the slow-consumer policy.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jetstream, jetstreamManager, type JetStreamClient, type JetStreamManager } from '@nats-io/jetstream';
import { ensureTradesStream } from '@tradewind/lib';
import { TRADES_STREAM, isTradeMessage } from '@tradewind/contracts';
import { CATCH_UP_CONSUMER_PREFIX } from '../src/trades-replay.js';
import { reauthorize } from '@tradewind/credential-issuer';
import { createCustomer, startTestApp, startTestEnv, TestClient, type TestApp, type TestEnv } from './support.js';

let env: TestEnv;
let t: TestApp;
let js: JetStreamClient;
let jsm: JetStreamManager;
let counter = 0;

beforeAll(async () => {
  env = await startTestEnv();
  jsm = await jetstreamManager(env.nc);
  await ensureTradesStream(jsm);
  js = jetstream(env.nc);
  t = await startTestApp(env);
});

afterAll(async () => {
  await t?.app.stop();
  await env?.stop();
});

/** Publishes one trade with signature `sig-<i>` (and an id unique to this file run) to `subject`; returns its stream sequence. */
async function publishTrade(subject: string, i: number, padding = ''): Promise<number> {
  const body = JSON.stringify({ source: 'pumpfun', transaction_type: 'BUY', signature: `sig-${i}`, n: i, ...(padding ? { padding } : {}) });
  const ack = await js.publish(subject, body, { msgID: `sig-${i}:${subject}:${++counter}:${Date.now()}` });
  return ack.seq;
}

/** Catch-up (replay) consumers currently on the TRADES stream; the apps' live feeds have their own prefix. */
async function consumerCount(): Promise<number> {
  let n = 0;
  for await (const c of jsm.consumers.list(TRADES_STREAM)) if (c.name.startsWith(CATCH_UP_CONSUMER_PREFIX)) n++;
  return n;
}

describe('replay', () => {
  it('when a pro client replays from the k-th trade while more are published, then it receives exactly k..last with no gap and no duplicate, then live trades', async () => {
    const subject = 'basic.pumpfun';
    const base = 1_000_000;
    const history = 2000;
    const k = 500;
    let seqK = 0;
    for (let i = 0; i < history; i++) {
      const seq = await publishTrade(subject, base + i);
      if (i === k) seqK = seq;
      if (i % 10 === 0) await publishTrade('basic.bonk', base + i); // another subject in between: filtered out
    }
    const customer = await createCustomer(env, 'pro');
    const c = await TestClient.authed(t.url, await customer.user());
    c.send({ subject, replay: { from: seqK } });
    // Published while the replay runs: they must arrive once each, in order, after the history.
    const during = 1000;
    for (let i = history; i < history + during; i++) await publishTrade(subject, base + i);

    const subscribed = await c.next();
    expect(subscribed).toMatchObject({ type: 'subscribed', subject, replay: { from: seqK, first_seq: seqK } });
    const received: number[] = [];
    const caughtUp: Array<Record<string, unknown>> = [];
    const lastBeforeLive = base + history + during - 1;
    while (received.at(-1) !== lastBeforeLive) {
      const m = await c.next(5000);
      if (m.type === 'replay_caught_up') caughtUp.push(m);
      else received.push(Number(m.n));
    }
    // Caught up exactly once (pending 0 is reached at most once before everything published has arrived).
    const live = 10;
    for (let i = history + during; i < history + during + live; i++) await publishTrade(subject, base + i);
    while (received.at(-1) !== base + history + during + live - 1) {
      const m = await c.next(5000);
      if (m.type === 'replay_caught_up') caughtUp.push(m);
      else received.push(Number(m.n));
    }
    const expected = Array.from({ length: history + during + live - k }, (_, j) => base + k + j);
    expect(received).toEqual(expected);
    expect(caughtUp).toHaveLength(1);
    expect(caughtUp[0]).toMatchObject({ type: 'replay_caught_up', subject });
    expect(typeof caughtUp[0]!.seq).toBe('number');
    expect(await c.drain(200)).toEqual([]);
    c.close();
    await c.waitClosed();
    await expect.poll(consumerCount).toBe(0);
  });

  it('when a pro client replays from a time, then the first trade is the first one stored at or after it, and replay_caught_up follows the history', async () => {
    const subject = 'basic.bonk';
    const base = 2_000_000;
    for (let i = 0; i < 5; i++) await publishTrade(subject, base + i);
    await new Promise((r) => setTimeout(r, 50));
    const from = new Date().toISOString();
    await new Promise((r) => setTimeout(r, 50));
    const firstSeq = await publishTrade(subject, base + 5);
    for (let i = 6; i < 10; i++) await publishTrade(subject, base + i);

    const c = await TestClient.authed(t.url, await (await createCustomer(env, 'pro')).user());
    c.send({ subject, replay: { from } });
    expect(await c.next()).toMatchObject({ type: 'subscribed', subject, replay: { from, first_seq: firstSeq } });
    const got: number[] = [];
    for (let i = 5; i < 10; i++) got.push(Number((await c.next()).n));
    expect(got).toEqual([5, 6, 7, 8, 9].map((i) => base + i));
    expect(await c.next()).toEqual({ type: 'replay_caught_up', subject, seq: firstSeq + 4 });
    c.close();
    await c.waitClosed();
  });

  it('when nothing is stored after the start, then subscribed has first_seq null, caught up at once, and live trades follow', async () => {
    const subject = 'premium.raydium';
    const c = await TestClient.authed(t.url, await (await createCustomer(env, 'pro')).user());
    const from = new Date().toISOString();
    c.send({ subject, replay: { from } });
    expect(await c.next()).toMatchObject({ type: 'subscribed', subject, replay: { from, first_seq: null } });
    expect(await c.next()).toEqual({ type: 'replay_caught_up', subject, seq: null });
    await publishTrade(subject, 3_000_000);
    expect(await c.next()).toMatchObject({ signature: 'sig-3000000' });
    c.close();
    await c.waitClosed();
  });

  it('when starter or plus clients ask for replay, then replay_not_in_plan naming Pro and the connection stays open', async () => {
    for (const plan of ['starter', 'plus'] as const) {
      const c = await TestClient.authed(t.url, await (await createCustomer(env, plan)).user());
      c.send({ subject: 'basic.pumpfun', replay: { from: 1 } });
      const refused = await c.next();
      expect(refused).toMatchObject({ type: 'error', code: 'replay_not_in_plan' });
      expect(String(refused.message)).toMatch(/^replay of history is included in the Pro plan; /);
      c.send({ subject: 'basic.pumpfun' });
      expect(await c.next()).toMatchObject({ type: 'subscribed', subject: 'basic.pumpfun' });
      expect(c.closed).toBeUndefined();
      c.close();
      await c.waitClosed();
    }
  });

  it('when a pro client sends a bad replay start, then bad_replay with a clear message and the connection stays open', async () => {
    const last = (await jsm.streams.info(TRADES_STREAM)).state.last_seq;
    const c = await TestClient.authed(t.url, await (await createCustomer(env, 'pro')).user());
    const cases: Array<[unknown, RegExp]> = [
      [{ from: 'yesterday' }, /not an ISO-8601 date-time/],
      [{ from: '2026-02-30T10:00:00Z' }, /not an ISO-8601 date-time/],
      [{ from: '2026-11-21T10:00:00' }, /with a time zone/],
      [{ from: new Date(Date.now() + 3_600_000).toISOString() }, /is in the future/],
      [{ from: 0 }, /positive integer/],
      [{ from: -5 }, /positive integer/],
      [{ from: 1.5 }, /positive integer/],
      [{ from: last + 1000 }, new RegExp(`in the future: the last TRADES sequence is ${last}`)],
      [{}, /replay must be \{"from"/],
      ['2026-11-21T10:00:00Z', /replay must be \{"from"/],
      [{ from: true }, /must be an ISO-8601 date-time string or a positive integer/],
    ];
    for (const [replay, message] of cases) {
      c.send({ subject: 'basic.pumpfun', replay });
      const refused = await c.next();
      expect(refused, JSON.stringify(replay)).toMatchObject({ type: 'error', code: 'bad_replay' });
      expect(String(refused.message)).toMatch(message);
    }
    expect(c.closed).toBeUndefined();
    await expect.poll(consumerCount).toBe(0);
    c.close();
    await c.waitClosed();
  });

  it('when a replay replaces a live subscription and a live subscription then replaces the replay, then each subject has one feed and unsubscribe stops the consumer', async () => {
    const subject = 'premium.pumpswap';
    const c = await TestClient.authed(t.url, await (await createCustomer(env, 'pro')).user());
    c.send({ subject });
    expect(await c.next()).toMatchObject({ type: 'subscribed', subject });
    const seq = await publishTrade(subject, 4_000_000);
    expect(await c.next()).toMatchObject({ n: 4_000_000 });

    c.send({ subject, replay: { from: seq } });
    expect(await c.next()).toMatchObject({ type: 'subscribed', subject, replay: { from: seq, first_seq: seq } });
    expect(await c.next()).toMatchObject({ n: 4_000_000 });
    expect(await c.next()).toEqual({ type: 'replay_caught_up', subject, seq });
    // Caught up: the replay consumer is deleted and the subscription joins the process's live feed of the subject.
    await expect.poll(consumerCount).toBe(0);
    await publishTrade(subject, 4_000_001);
    // Once: the earlier live subscription was replaced, not doubled.
    expect(await c.drain(300)).toEqual([expect.objectContaining({ n: 4_000_001 })]);

    c.send({ subject });
    expect(await c.next()).toMatchObject({ type: 'subscribed', subject });
    await expect.poll(consumerCount).toBe(0);
    await publishTrade(subject, 4_000_002);
    expect(await c.drain(300)).toEqual([expect.objectContaining({ n: 4_000_002 })]);

    c.send({ subject, replay: { from: seq } });
    expect(await c.next()).toMatchObject({ type: 'subscribed', replay: { first_seq: seq } });
    c.send({ unsubscribe: subject });
    const rest = await c.drain(300);
    expect(rest.at(-1)).toEqual({ type: 'unsubscribed', subject });
    await expect.poll(consumerCount).toBe(0);
    await publishTrade(subject, 4_000_003);
    expect(await c.drain(200)).toEqual([]);
    c.close();
    await c.waitClosed();
  });

  it('when a replaying pro customer is downgraded to plus, then the replay ends with unsubscribed naming Pro and the socket stays open', async () => {
    const subject = 'basic.pumpfun';
    const customer = await createCustomer(env, 'pro');
    const c = await TestClient.authed(t.url, await customer.user());
    const from = new Date().toISOString();
    c.send({ subject, replay: { from } });
    expect(await c.next()).toMatchObject({ type: 'subscribed', subject, replay: { from } });
    expect(await c.next()).toMatchObject({ type: 'replay_caught_up' });
    await expect.poll(consumerCount).toBe(1);

    await reauthorize(env.sysNc, env.nats.identities, { ...customer.spec, plan: 'plus' });
    const messages = await c.drain(500);
    expect(messages).toContainEqual({ type: 'plan_changed', plan: 'plus', subjects: ['basic.pumpfun', 'basic.bonk', 'premium.pumpswap', 'premium.raydium'] });
    const ended = messages.find((m) => m.type === 'unsubscribed');
    expect(ended).toMatchObject({ subject, reason: 'plan_changed' });
    expect(String(ended?.message)).toMatch(/replay of history is not in your Plus plan any more; it is included in the Pro plan/);
    await expect.poll(consumerCount).toBe(0);
    expect(c.closed).toBeUndefined();
    c.close();
    await c.waitClosed();
  });

  it('when a connection asks for more replays than WS_MAX_REPLAYS_PER_CONNECTION, then replay_limit and the running ones go on', async () => {
    const one = await startTestApp(env, { WS_MAX_REPLAYS_PER_CONNECTION: 1 });
    try {
      const c = await TestClient.authed(one.url, await (await createCustomer(env, 'pro')).user());
      const from = new Date().toISOString();
      c.send({ subject: 'basic.bonk', replay: { from } });
      expect(await c.next()).toMatchObject({ type: 'subscribed', subject: 'basic.bonk' });
      expect(await c.next()).toMatchObject({ type: 'replay_caught_up', subject: 'basic.bonk' });
      c.send({ subject: 'basic.pumpfun', replay: { from } });
      const refused = await c.next();
      expect(refused).toMatchObject({ type: 'error', code: 'replay_limit' });
      expect(String(refused.message)).toMatch(/a connection runs at most 1 replay at once/);
      // Replacing the running replay of the same subject is not a second one.
      c.send({ subject: 'basic.bonk', replay: { from } });
      expect(await c.next()).toMatchObject({ type: 'subscribed', subject: 'basic.bonk', replay: { from } });
      expect(await c.next()).toMatchObject({ type: 'replay_caught_up', subject: 'basic.bonk' });
      await publishTrade('basic.bonk', 7_000_000);
      expect(await c.drain(300)).toEqual([expect.objectContaining({ n: 7_000_000 })]);
      c.close();
      await c.waitClosed();
    } finally {
      await one.app.stop();
    }
  });

  it('when the app stops, then its replay consumers are deleted', async () => {
    const padding = 'x'.repeat(4000);
    const from = await publishTrade('basic.bonk', 8_000_000, padding);
    for (let i = 1; i < 600; i++) await publishTrade('basic.bonk', 8_000_000 + i, padding);
    const other = await startTestApp(env);
    const c = await TestClient.authed(other.url, await (await createCustomer(env, 'pro')).user());
    c.send({ subject: 'basic.bonk', replay: { from } });
    expect(await c.next()).toMatchObject({ type: 'subscribed', replay: { from } });
    c.ws.pause(); // the replay pauses at WS_REPLAY_PAUSE_BYTES with history left: its consumer stays
    await expect.poll(consumerCount).toBe(1);
    await other.app.stop();
    c.ws.resume();
    expect((await c.waitClosed()).code).toBe(1001);
    await expect.poll(consumerCount).toBe(0);
  });

  it('when a replaying client stops reading for a while, then the replay pauses instead of queueing and resumes without loss once it reads again', async () => {
    const subject = 'premium.pumpswap';
    const padding = 'y'.repeat(4000);
    const base = 6_000_000;
    const total = 3000;
    const firstSeq = await publishTrade(subject, base, padding);
    for (let i = 1; i < total; i++) await publishTrade(subject, base + i, padding);
    const small = await startTestApp(env, {
      WS_REPLAY_PAUSE_BYTES: 64 * 1024,
      WS_MAX_BUFFERED_BYTES: 256 * 1024,
      WS_REPLAY_STALL_MS: 10_000,
      WS_REPLAY_BATCH_MESSAGES: 32,
    });
    try {
      const c = await TestClient.authed(small.url, await (await createCustomer(env, 'pro')).user());
      c.ws.pause();
      c.send({ subject, replay: { from: firstSeq } });
      await new Promise((r) => setTimeout(r, 1500)); // far more than 256 KiB would be queued without the pause
      c.ws.resume();
      expect(await c.next()).toMatchObject({ type: 'subscribed', replay: { first_seq: firstSeq } });
      const got: number[] = [];
      while (got.length < total) {
        const m = await c.next(10_000);
        if (isTradeMessage(m)) got.push(Number(m.n));
      }
      expect(got).toEqual(Array.from({ length: total }, (_, i) => base + i));
      expect(c.closed).toBeUndefined();
      expect(await small.metric('tradewind_ws_fanout_slow_consumer_disconnects_total')).toBe(0);
      c.close();
      await c.waitClosed();
    } finally {
      await small.app.stop();
    }
  });

  it('when a replaying client stops reading, then the replay pauses at the bound and the slow-consumer policy disconnects it with 4413', async () => {
    const subject = 'premium.raydium';
    const padding = 'x'.repeat(4000);
    const base = 5_000_000;
    const total = 3000; // ~12 MB: more than the kernel's socket buffers on loopback
    const firstSeq = await publishTrade(subject, base, padding);
    for (let i = 1; i < total; i++) await publishTrade(subject, base + i, padding);
    const small = await startTestApp(env, {
      WS_REPLAY_PAUSE_BYTES: 64 * 1024,
      WS_MAX_BUFFERED_BYTES: 256 * 1024,
      WS_REPLAY_STALL_MS: 500,
      WS_REPLAY_BATCH_MESSAGES: 32,
    });
    try {
      const c = await TestClient.authed(small.url, await (await createCustomer(env, 'pro')).user());
      c.ws.pause(); // the client reads nothing more: the server's queue to it grows
      c.send({ subject, replay: { from: firstSeq } });
      await expect.poll(() => small.metric('tradewind_ws_fanout_slow_consumer_disconnects_total'), { timeout: 10_000 }).toBe(1);
      // Bounded: the server stopped reading history near the bound instead of queueing all of it.
      const sentBytes = await small.metric('tradewind_ws_fanout_sent_bytes_total');
      console.info(`slow replay client: ${sentBytes} of ${total * padding.length} history bytes sent before the disconnect`);
      expect(sentBytes).toBeLessThan((total * padding.length) / 2);
      await expect.poll(consumerCount).toBe(0);
      c.ws.resume();
      expect((await c.waitClosed(10_000)).code).toBe(4413);
    } finally {
      await small.app.stop();
    }
  });
});
