/**
 * The stream as bots use it, against a real operator-mode nats-server, Redis and WebSocket clients:
 * `seq` on every trade, resume after a forced disconnect with no gap and no duplicate (starter),
 * filters (every kind, changed live), heartbeats on a quiet stream, a dead peer freeing its slot,
 * and a slow consumer closed with 4413 while another client loses nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import bs58 from 'bs58';
import WebSocket from 'ws';
import { jetstream, jetstreamManager, type JetStreamClient } from '@nats-io/jetstream';
import { TRADES_STREAM, TRADE_MESSAGE_TYPE, isTradeMessage } from '@tradewind/contracts';
import { createCustomer, startTestApp, startTestEnv, TestClient, type TestApp, type TestEnv } from './support.js';

let env: TestEnv;
let t: TestApp;
let js: JetStreamClient;

beforeAll(async () => {
  env = await startTestEnv();
  js = jetstream(env.nc);
  t = await startTestApp(env, { WS_HEARTBEAT_INTERVAL_MS: 500 });
});

afterAll(async () => {
  await t?.app.stop();
  await env?.stop();
});

const key = () => bs58.encode(randomBytes(32));
let counter = 0;

/**
 * Publishes a trade into TRADES and returns its stream sequence. On basic.pumpfun it carries `"type": "trade"`,
 * as every pump.fun message ingest publishes does since schema version 2 (basic.pumpfun.schema.json).
 */
async function publish(fields: Record<string, unknown> = {}, subject = 'basic.pumpfun'): Promise<number> {
  const n = ++counter;
  const kind = subject === 'basic.pumpfun' ? { type: TRADE_MESSAGE_TYPE } : {};
  const body = { source: 'pumpfun', transaction_type: 'BUY', signature: `sig${n}`, slot: 1000 + n, schema_version: 2, n, ...kind, ...fields };
  return (await js.publish(subject, JSON.stringify(body), { msgID: `test-${n}-${Date.now()}` })).seq;
}

/** Trades (isTradeMessage: no `type`, or `"type": "trade"`) among the next messages until `count` trades arrived. */
async function trades(c: TestClient, count: number, timeoutMs = 5000): Promise<Array<Record<string, unknown>>> {
  const out: Array<Record<string, unknown>> = [];
  const deadline = Date.now() + timeoutMs;
  while (out.length < count) {
    const m = await c.next(Math.max(1, deadline - Date.now()));
    if (isTradeMessage(m)) out.push(m);
  }
  return out;
}

describe('stream: seq, resume, filters, heartbeats, liveness', () => {
  it('when a trade is stored, then the WebSocket message carries its TRADES stream sequence as seq, first', async () => {
    const customer = await createCustomer(env, 'starter');
    const c = await TestClient.authed(t.url, await customer.user());
    c.send({ subject: 'basic.pumpfun' });
    expect(await c.next()).toMatchObject({ type: 'subscribed', subject: 'basic.pumpfun', filter: null });
    const seq = await publish({ probe: 'seq' });
    const raw = await c.nextRaw();
    expect(raw.startsWith(`{"seq":${seq},"source":"pumpfun"`)).toBe(true);
    expect(JSON.parse(raw)).toMatchObject({ seq, probe: 'seq' });
    c.close();
  });

  it('when a starter client is cut off mid-stream and resumes after its last seq, then it receives every missed trade once, in order, then live ones', async () => {
    const customer = await createCustomer(env, 'starter');
    const creds = await customer.user();
    const a = await TestClient.authed(t.url, creds);
    a.send({ subject: 'basic.pumpfun' });
    await a.next();
    const published: number[] = [];
    for (let i = 0; i < 20; i++) published.push(await publish());
    const first = await trades(a, 20);
    expect(first.map((m) => m.seq)).toEqual(published);
    const last = first.at(-1)!.seq as number;
    a.ws.terminate(); // forced disconnect: the server notices the TCP close
    await a.waitClosed();
    for (let i = 0; i < 30; i++) published.push(await publish());
    await publish({}, 'basic.bonk'); // another subject in between: never sent
    // The slot is freed when the server sees the close; retry until it has.
    let b: TestClient | undefined;
    for (let attempt = 0; attempt < 50 && !b; attempt++) {
      const c = new TestClient(t.url);
      await c.opened;
      await c.next();
      c.send({ jwt: creds.jwt, nkey: creds.seed });
      const answer = await c.next();
      if (answer.type === 'authenticated') b = c;
      else await new Promise((r) => setTimeout(r, 50));
    }
    expect(b).toBeDefined();
    b!.send({ subject: 'basic.pumpfun', resume_after: last });
    expect(await b!.next()).toEqual({ type: 'subscribed', subject: 'basic.pumpfun', resume_after: last, filter: null });
    const missed = await trades(b!, 30);
    const caughtUp = await b!.next();
    expect(caughtUp).toEqual({ type: 'replay_caught_up', subject: 'basic.pumpfun', seq: published.at(-1) });
    for (let i = 0; i < 10; i++) published.push(await publish());
    const live = await trades(b!, 10);
    expect([...first, ...missed, ...live].map((m) => m.seq)).toEqual(published);
    expect(await b!.drain(200)).toEqual([]);
    b!.close();
  });

  it('when resume_after is older than the window on starter, then resume_too_old names the oldest sequence held; beyond the stream is bad_resume', async () => {
    const app = await startTestApp(env, { WS_RESUME_WINDOW_MS: 300 });
    const customer = await createCustomer(env, 'starter');
    const c = await TestClient.authed(app.url, await customer.user());
    const old = await publish();
    await new Promise((r) => setTimeout(r, 600));
    await publish();
    const fresh = await publish();
    c.send({ subject: 'basic.pumpfun', resume_after: old - 1 });
    const refused = await c.next();
    expect(refused).toMatchObject({ type: 'error', code: 'resume_too_old', oldest_seq: fresh - 1 });
    expect(refused.message).toMatch(new RegExp(`oldest sequence still held for resume is ${fresh - 1}`));
    const lastSeq = (await (await jetstreamManager(env.nc)).streams.info(TRADES_STREAM)).state.last_seq;
    c.send({ subject: 'basic.pumpfun', resume_after: lastSeq + 5 });
    expect(await c.next()).toMatchObject({ type: 'error', code: 'bad_resume' });
    c.send({ subject: 'basic.pumpfun', resume_after: -1 });
    expect(await c.next()).toMatchObject({ type: 'error', code: 'bad_resume' });
    c.send({ subject: 'basic.pumpfun', resume_after: fresh - 1 });
    expect(await c.next()).toMatchObject({ type: 'subscribed', resume_after: fresh - 1 });
    expect((await trades(c, 1))[0]!.seq).toBe(fresh);
    c.close();
    await app.app.stop();
  });

  it('when filters are set by mint, account, type and min_sol, then only matching trades arrive, and a filter changed live applies from the next trade', async () => {
    const customer = await createCustomer(env, 'starter');
    const c = await TestClient.authed(t.url, await customer.user());
    const [mintA, mintB, trader, curve] = [key(), key(), key(), key()];
    c.send({ subject: 'basic.pumpfun', filter: { mints: [mintA] } });
    expect(await c.next()).toMatchObject({ type: 'subscribed', filter: { mints: [mintA] } });
    await publish({ mint: mintB, user: trader, bonding_curve: curve, sol_amount: '2000000000' });
    const s1 = await publish({ mint: mintA, user: key(), bonding_curve: key(), sol_amount: '1' });
    expect((await trades(c, 1))[0]!.seq).toBe(s1);

    c.send({ subject: 'basic.pumpfun', filter: { accounts: [trader] } });
    expect(await c.next()).toMatchObject({ type: 'subscribed', filter: { accounts: [trader] } });
    await publish({ mint: mintA, user: key(), bonding_curve: key(), sol_amount: '1' });
    const s2 = await publish({ mint: mintB, user: trader, bonding_curve: key(), sol_amount: '1' });
    const s3 = await publish({ mint: mintB, user: key(), bonding_curve: key(), creator: trader, sol_amount: '1' });
    expect((await trades(c, 2)).map((m) => m.seq)).toEqual([s2, s3]);

    c.send({ subject: 'basic.pumpfun', filter: { types: ['CREATE'] } });
    await c.next();
    await publish({ mint: mintA, transaction_type: 'BUY' });
    const s4 = await publish({ mint: key(), transaction_type: 'CREATE', user: trader });
    expect((await trades(c, 1))[0]!.seq).toBe(s4);

    c.send({ subject: 'basic.pumpfun', filter: { min_sol: 0.5 } });
    await c.next();
    await publish({ mint: mintA, sol_amount: '499999999' });
    const s5 = await publish({ mint: mintA, sol_amount: '500000000' });
    expect((await trades(c, 1))[0]!.seq).toBe(s5);

    c.send({ subject: 'basic.pumpfun', filter: null });
    expect(await c.next()).toMatchObject({ type: 'subscribed', filter: null });
    const s6 = await publish({ mint: mintB, sol_amount: '1' });
    expect((await trades(c, 1))[0]!.seq).toBe(s6);
    expect(await c.drain(100)).toEqual([]);
    c.close();
  });

  it('when a filter is malformed, then bad_filter says why and the connection stays subscribed as before', async () => {
    const customer = await createCustomer(env, 'starter');
    const c = await TestClient.authed(t.url, await customer.user());
    c.send({ subject: 'basic.pumpfun' });
    await c.next();
    for (const [filter, why] of [
      [{ mint: [key()] }, /mint/],
      [{ mints: ['not-a-key'] }, /not-a-key/],
      [{ mints: [] }, /omit/],
      [{ types: ['SWAP'] }, /SWAP/],
      [{ min_sol: -1 }, /min_sol/],
      ['all', /object/],
    ] as const) {
      c.send({ subject: 'basic.pumpfun', filter });
      const m = await c.next();
      expect(m).toMatchObject({ type: 'error', code: 'bad_filter' });
      expect(m.message).toMatch(why);
    }
    c.send({ subject: 'basic.pumpfun', filters: {} });
    expect(await c.next()).toMatchObject({ type: 'error', code: 'bad_request' });
    const seq = await publish();
    expect((await trades(c, 1))[0]!.seq).toBe(seq);
    c.close();
  });

  it('when no trade of its subjects flows, then a subscribed client gets heartbeats with the last seq and slot', async () => {
    const customer = await createCustomer(env, 'starter');
    const c = await TestClient.authed(t.url, await customer.user());
    c.send({ subject: 'basic.bonk' });
    await c.next();
    const seq = await publish({ slot: 424242 }, 'basic.bonk');
    expect((await trades(c, 1))[0]!.seq).toBe(seq);
    const started = Date.now();
    const beat = await c.next(3000);
    expect(beat).toEqual({ type: 'heartbeat', slot: 424242, seq, subjects: { 'basic.bonk': seq } });
    expect(Date.now() - started).toBeLessThan(1500);
    const again = await c.next(3000);
    expect(again.type).toBe('heartbeat');
    expect(await t.metric('tradewind_ws_fanout_heartbeats_total')).toBeGreaterThanOrEqual(2);
    c.close();
  });

  it('when a peer stops answering pings, then it is terminated after two missed pongs and its plan slot is free again', async () => {
    const app = await startTestApp(env, { WS_PING_INTERVAL_MS: 200 });
    const customer = await createCustomer(env, 'starter');
    const creds = await customer.user();
    const dead = new WebSocket(app.url, { autoPong: false });
    const closed = new Promise<number>((resolve) => dead.on('close', (code) => resolve(code)));
    await new Promise((r) => dead.once('message', r)); // challenge
    dead.send(JSON.stringify({ jwt: creds.jwt, nkey: creds.seed }));
    await new Promise((r) => dead.once('message', r)); // authenticated
    const started = Date.now();
    expect(await closed).toBe(1006);
    expect(Date.now() - started).toBeLessThan(2000);
    expect(await app.metric('tradewind_ws_fanout_dead_peer_disconnects_total')).toBe(1);
    const again = await TestClient.authed(app.url, creds); // would be connection_limit if the slot were held
    again.close();
    await app.app.stop();
  });

  it('when an address fails to log in more than WS_LOGIN_FAILURES_PER_MINUTE times, then further logins from it are refused unchecked with rate_limited 4429', async () => {
    const app = await startTestApp(env, { WS_LOGIN_FAILURES_PER_MINUTE: 3 });
    const customer = await createCustomer(env, 'starter');
    const good = await customer.user();
    const other = await customer.user();
    for (let i = 0; i < 3; i++) {
      const c = new TestClient(app.url);
      await c.opened;
      await c.next();
      c.send({ jwt: good.jwt, nkey: other.seed }); // a valid JWT with someone else's seed
      expect(await c.next()).toMatchObject({ type: 'error', code: 'nkey_mismatch' });
      expect((await c.waitClosed()).code).toBe(4401);
    }
    const c = new TestClient(app.url);
    await c.opened;
    await c.next();
    c.send({ jwt: good.jwt, nkey: good.seed }); // even the right credentials: the address is throttled
    const refused = await c.next();
    expect(refused).toMatchObject({ type: 'error', code: 'rate_limited' });
    expect(refused.message).toMatch(/too many failed logins/);
    expect((await c.waitClosed()).code).toBe(4429);
    expect(await app.metric('tradewind_ws_fanout_auth_total', { result: 'throttled' })).toBe(1);
    await app.app.stop();
  });

  it('when ws-fanout trusts X-Forwarded-For (behind the ingress), then failed logins are counted per client address, not per proxy', async () => {
    const app = await startTestApp(env, { WS_LOGIN_FAILURES_PER_MINUTE: 1, WS_TRUST_FORWARDED_FOR: true });
    const customer = await createCustomer(env, 'starter');
    const good = await customer.user();
    const other = await customer.user();
    /** One login through "the ingress", which appended `client` to X-Forwarded-For (after a forged entry). */
    const login = async (client: string, creds: { jwt: string; seed: string }) => {
      const ws = new WebSocket(app.url, { headers: { 'x-forwarded-for': `6.6.6.6, ${client}` } });
      const messages: Array<Record<string, unknown>> = [];
      const closed = new Promise<number>((resolve) => ws.on('close', (code) => resolve(code)));
      ws.on('message', (data) => {
        const m = JSON.parse(data.toString()) as Record<string, unknown>;
        messages.push(m);
        if (m.type === 'challenge') ws.send(JSON.stringify({ jwt: creds.jwt, nkey: creds.seed }));
        if (m.type === 'authenticated') ws.close();
      });
      await closed;
      return messages.find((m) => m.type !== 'challenge');
    };
    expect(await login('10.0.0.1', { jwt: good.jwt, seed: other.seed })).toMatchObject({ code: 'nkey_mismatch' });
    expect(await login('10.0.0.1', good)).toMatchObject({ code: 'rate_limited' });
    expect(await login('10.0.0.2', good)).toMatchObject({ type: 'authenticated' });
    await app.app.stop();
  });

  it('when a client stops reading, then it is closed with 4413 and its queue dropped, while a reading client receives every trade in order', async () => {
    const app = await startTestApp(env, { WS_MAX_BUFFERED_BYTES: 1024 * 1024, WS_SOCKET_HIGH_WATER_BYTES: 64 * 1024, WS_CLOSE_TIMEOUT_MS: 10_000 });
    const [slowCustomer, okCustomer] = [await createCustomer(env, 'starter'), await createCustomer(env, 'starter')];
    const slow = await TestClient.authed(app.url, await slowCustomer.user());
    const ok = await TestClient.authed(app.url, await okCustomer.user());
    slow.send({ subject: 'basic.pumpfun' });
    ok.send({ subject: 'basic.pumpfun' });
    await slow.next();
    await ok.next();
    slow.ws.pause();
    const padding = 'x'.repeat(2000);
    const published: number[] = [];
    // 10 MB: more than the loopback socket buffers of the paused client can absorb.
    const total = 5000;
    for (let i = 0; i < total; i += 100) {
      const acks = Array.from({ length: 100 }, (_, j) =>
        js.publish('basic.pumpfun', JSON.stringify({ source: 'pumpfun', schema_version: 2, type: TRADE_MESSAGE_TYPE, i: i + j, padding }), {
          msgID: `slow-${i + j}-${Date.now()}`,
        }),
      );
      for (const ack of acks) published.push((await ack).seq);
    }
    const got = await trades(ok, total, 20_000);
    expect(got.map((m) => m.seq)).toEqual(published);
    expect(await app.metric('tradewind_ws_fanout_slow_consumer_disconnects_total')).toBe(1);
    expect(app.app.clientCount()).toBeGreaterThanOrEqual(1);
    slow.ws.resume();
    const close = await slow.waitClosed(10_000);
    expect(close.code).toBe(4413);
    const received = [];
    while (slow.pending > 0) received.push(JSON.parse(await slow.nextRaw()) as Record<string, unknown>);
    const seqs = received.filter(isTradeMessage).map((m) => m.seq);
    // What it did get is an unbroken prefix of the stream: nothing skipped silently before the close.
    expect(seqs).toEqual(published.slice(0, seqs.length));
    expect(seqs.length).toBeLessThan(total);
    ok.close();
    await app.app.stop();
  });
});
