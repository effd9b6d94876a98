/**
 * TradewindClient against the in-test protocol server (fake-server.ts): signature authentication,
 * backoff schedule, resume after a forced disconnect, dedupe, watchdog, fatal refusals, gaps,
 * filters and unsubscribe.
 */
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { fromPublic } from '@nats-io/nkeys';
import { freePort } from '@tradewind/dev';
import {
  CredentialsRefusedError,
  ReconnectFailedError,
  TradewindClient,
  TradewindOptionsError,
  type ClientEvent,
  type TradeMessage,
  type TradewindClientOptions,
  type WebSocketConstructor,
} from '../src/index.js';
import { FakeTradewindServer, testUser } from './fake-server.js';
import { PUMPFUN_BUY_V2 } from './real-messages.js';

const FAST = { initialDelayMs: 10, maxDelayMs: 40 };
const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const f of cleanups.splice(0).reverse()) await f();
});

async function startServer(): Promise<FakeTradewindServer> {
  const server = await FakeTradewindServer.start();
  cleanups.push(() => server.stop());
  return server;
}

function newClient(server: { url: string }, options: Partial<TradewindClientOptions> = {}, user = testUser()): TradewindClient {
  const client = new TradewindClient({ url: server.url, jwt: user.jwt, seed: user.seed, reconnect: FAST, watchdogMs: Infinity, ...options });
  cleanups.push(() => client.close());
  return client;
}

/** The next `n` items of an iterator; rejects after `timeoutMs`. */
async function take<T>(iterator: AsyncIterator<T>, n: number, timeoutMs = 5_000): Promise<T[]> {
  const out: T[] = [];
  const deadline = new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`timed out after ${out.length} of ${n}`)), timeoutMs));
  while (out.length < n) {
    const r = await Promise.race([iterator.next(), deadline]);
    if (r.done) throw new Error(`iterator ended after ${out.length} of ${n}`);
    out.push(r.value);
  }
  return out;
}

/** Resolves with the first event of `type` (matching `predicate`). */
function nextEvent<T extends ClientEvent['type']>(
  client: TradewindClient,
  type: T,
  predicate: (e: Extract<ClientEvent, { type: T }>) => boolean = () => true,
  timeoutMs = 5_000,
) {
  return new Promise<Extract<ClientEvent, { type: T }>>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no ${type} event`)), timeoutMs);
    const off = client.on(type, (e) => {
      if (!predicate(e)) return;
      clearTimeout(timer);
      off();
      resolve(e);
    });
  });
}

const seqs = (trades: TradeMessage[]) => trades.map((t) => t.seq);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('authentication', () => {
  it('when the server sends a challenge, then the client answers {jwt, sig} with an Ed25519 signature of the nonce by the user key, and never sends the seed', async () => {
    const server = await startServer();
    const user = testUser();
    const client = newClient(server, {}, user);
    const authenticated = await client.connect();
    expect(authenticated).toMatchObject({ type: 'authenticated', plan: 'starter', subjects: ['basic.pumpfun', 'basic.bonk'] });
    const [conn] = server.connections;
    const auth = conn!.received[0]!;
    expect(Object.keys(auth).sort()).toEqual(['jwt', 'sig']);
    expect(auth.jwt).toBe(user.jwt);
    expect(fromPublic(user.publicKey).verify(new TextEncoder().encode(conn!.nonce), Buffer.from(String(auth.sig), 'base64url'))).toBe(true);
    // The same signature for another nonce does not verify: the check above can fail.
    expect(fromPublic(user.publicKey).verify(new TextEncoder().encode(`${conn!.nonce}x`), Buffer.from(String(auth.sig), 'base64url'))).toBe(false);
    expect(conn!.receivedRaw.join('\n')).not.toContain(user.seed);
  });

  it('when the seed is not the JWT user’s, then the constructor refuses it before connecting', () => {
    const a = testUser();
    const b = testUser();
    expect(() => new TradewindClient({ url: 'ws://127.0.0.1:1', jwt: a.jwt, seed: b.seed })).toThrow(TradewindOptionsError);
    expect(() => new TradewindClient({ url: 'ws://127.0.0.1:1', jwt: a.jwt, seed: 'SUNOTASEED' })).toThrow(/malformed/);
    expect(() => new TradewindClient({ url: 'http://127.0.0.1:1', jwt: a.jwt, seed: a.seed })).toThrow(/ws:\/\/ or wss:\/\//);
    expect(() => new TradewindClient({ url: 'ws://127.0.0.1:1', jwt: a.jwt, seed: a.seed, watchdogMs: -1 })).toThrow(/watchdogMs/);
    expect(() => new TradewindClient({ url: 'ws://127.0.0.1:1', jwt: a.jwt, seed: a.seed, reconnect: { maxAttempts: 1.5 } })).toThrow(/maxAttempts/);
  });

  it('when a WebSocket constructor is injected, then the client uses it', async () => {
    const server = await startServer();
    const urls: string[] = [];
    const Recording = class extends WebSocket {
      constructor(url: string) {
        super(url);
        urls.push(url);
      }
    } as unknown as WebSocketConstructor;
    await newClient(server, { WebSocket: Recording }).connect();
    expect(urls).toEqual([server.url]);
  });
});

describe('fatal refusals and retried refusals', () => {
  it('when the server refuses the credentials with 4401, then the client stops: connect() and the iterator fail with the server’s code and no reconnect is attempted', async () => {
    const server = await startServer();
    server.behaviour.auth = { code: 'revoked', close: 4401 };
    const client = newClient(server);
    const trades = client.trades();
    const closed = nextEvent(client, 'closed');
    const error = await client.connect().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CredentialsRefusedError);
    expect(error).toMatchObject({ code: 'revoked', closeCode: 4401 });
    await expect(trades.next()).rejects.toBeInstanceOf(CredentialsRefusedError);
    expect((await closed).error).toBe(error);
    await sleep(200); // 20 × the first backoff delay
    expect(server.connections).toHaveLength(1);
  });

  it('when the server answers connection_limit (4429), then the client backs off and connects again', async () => {
    const server = await startServer();
    server.behaviour.auth = { code: 'connection_limit', close: 4429 };
    const client = newClient(server);
    const reconnecting = nextEvent(client, 'reconnecting');
    const ready = client.connect();
    expect(await reconnecting).toMatchObject({ attempt: 1, delayMs: FAST.initialDelayMs, closeCode: 4429 });
    server.behaviour.auth = 'accept';
    await ready;
    expect(server.connections.length).toBeGreaterThanOrEqual(2);
  });
});

describe('backoff', () => {
  it('when nothing listens, then the client retries after 1, 2, 4, 8, 16, 30, 30, 30, 30, 30 s and then its iterator ends with ReconnectFailedError', async () => {
    const port = await freePort();
    const user = testUser();
    const scheduled: number[] = [];
    // Every timer fires at once; the delays asked for are recorded (the watchdog is off, so they are all backoff delays).
    const timers = {
      setTimeout: (f: () => void, ms: number) => {
        scheduled.push(ms);
        return setTimeout(f, 0);
      },
      clearTimeout: (h: unknown) => clearTimeout(h as NodeJS.Timeout),
    };
    const client = new TradewindClient({ url: `ws://127.0.0.1:${port}`, jwt: user.jwt, seed: user.seed, timers, watchdogMs: Infinity });
    cleanups.push(() => client.close());
    const events: ClientEvent[] = [];
    client.on('connecting', (e) => events.push(e));
    client.on('reconnecting', (e) => events.push(e));
    const trades = client.trades();
    void client.connect();
    const error = await trades.next().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ReconnectFailedError);
    expect(error).toMatchObject({ attempts: 10, lastCloseCode: 1006 });
    expect(scheduled).toEqual([1000, 2000, 4000, 8000, 16000, 30000, 30000, 30000, 30000, 30000]);
    expect(events.filter((e) => e.type === 'connecting').map((e) => (e as { attempt: number }).attempt)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(events.filter((e) => e.type === 'reconnecting').map((e) => (e as { delayMs: number }).delayMs)).toEqual(scheduled);
  });

  it('when a session authenticates between failures, then the attempt count starts again at 1 s', async () => {
    const server = await startServer();
    const client = newClient(server, { reconnect: { ...FAST, maxAttempts: 2 } });
    const delays: number[] = [];
    client.on('reconnecting', (e) => delays.push(e.attempt));
    await client.connect();
    for (let i = 0; i < 3; i++) {
      const again = nextEvent(client, 'authenticated');
      server.dropAll(1001);
      await again;
    }
    expect(delays).toEqual([1, 1, 1]); // three drops of authenticated sessions: never "3 consecutive failures"
  });
});

describe('resume', () => {
  it('when the connection drops mid-stream, then the client resubscribes with resume_after = the last seq and the iterator yields every trade once, in order', async () => {
    const server = await startServer();
    const client = newClient(server);
    client.subscribe('basic.pumpfun');
    const trades = client.trades();
    const subscribed = nextEvent(client, 'subscribed');
    await client.connect();
    await subscribed;
    for (let i = 0; i < 5; i++) server.publish('basic.pumpfun');
    expect(seqs(await take(trades, 5))).toEqual([1, 2, 3, 4, 5]);

    const resumed = nextEvent(client, 'resumed');
    server.dropAll('terminate'); // no close frame: as a crashed server or a cut network
    for (let i = 0; i < 3; i++) server.publishUnseen('basic.pumpfun'); // 6, 7, 8 while the client is away
    const request = await server.waitForRequest((m) => m.subject === 'basic.pumpfun' && 'resume_after' in m);
    expect(request).toEqual({ subject: 'basic.pumpfun', resume_after: 5 });
    expect(await resumed).toEqual({ type: 'resumed', subject: 'basic.pumpfun', afterSeq: 5, caughtUpSeq: 8 });
    server.publish('basic.pumpfun'); // 9, live
    expect(seqs(await take(trades, 4))).toEqual([6, 7, 8, 9]);
    expect(client.positions()).toEqual({ 'basic.pumpfun': 9 });
  });

  it('when two subjects were subscribed, then each is resumed from its own last seq and keeps its filter', async () => {
    const server = await startServer();
    const client = newClient(server);
    client.subscribe('basic.pumpfun');
    client.subscribe('basic.bonk', { filter: { types: ['CREATE'] } });
    const pumpfun = client.subscribe('basic.pumpfun').trades();
    const bonk = client.subscribe('basic.bonk').trades();
    await client.connect();
    await server.waitForRequest((m) => m.subject === 'basic.bonk');
    await sleep(50);
    server.publish('basic.pumpfun'); // 1
    server.publish('basic.bonk'); // 2
    server.publish('basic.pumpfun'); // 3
    expect(seqs(await take(pumpfun, 2))).toEqual([1, 3]);
    expect(seqs(await take(bonk, 1))).toEqual([2]);
    server.dropAll(1001);
    server.publishUnseen('basic.bonk'); // 4
    server.publishUnseen('basic.pumpfun'); // 5
    expect(await server.waitForRequest((m) => m.subject === 'basic.pumpfun' && 'resume_after' in m)).toEqual({ subject: 'basic.pumpfun', resume_after: 3 });
    expect(await server.waitForRequest((m) => m.subject === 'basic.bonk' && 'resume_after' in m)).toEqual({
      subject: 'basic.bonk',
      filter: { types: ['CREATE'] },
      resume_after: 2,
    });
    expect(seqs(await take(pumpfun, 1))).toEqual([5]);
    expect(seqs(await take(bonk, 1))).toEqual([4]);
  });

  it('when subscribe is given resumeAfter, then the first request resumes after it (a position saved by an earlier process)', async () => {
    const server = await startServer();
    for (let i = 0; i < 4; i++) server.publishUnseen('basic.pumpfun');
    const client = newClient(server);
    client.subscribe('basic.pumpfun', { resumeAfter: 2 });
    const trades = client.trades();
    void client.connect();
    expect(await server.waitForRequest((m) => m.subject === 'basic.pumpfun')).toEqual({ subject: 'basic.pumpfun', resume_after: 2 });
    expect(seqs(await take(trades, 2))).toEqual([3, 4]);
  });

  it('when a heartbeat says the connection passed later sequences of a quiet subject, then the next resume starts there', async () => {
    const server = await startServer();
    server.behaviour.heartbeatMs = 20;
    const client = newClient(server);
    client.subscribe('basic.bonk', { filter: { types: ['CREATE'] } });
    await client.connect();
    await nextEvent(client, 'subscribed');
    server.publishUnseen('basic.bonk'); // 1: as if filtered out on the server
    server.publishUnseen('basic.bonk'); // 2
    await nextEvent(client, 'heartbeat', (h) => h.seq === 2);
    server.dropAll(1001);
    expect(await server.waitForRequest((m) => m.subject === 'basic.bonk' && 'resume_after' in m)).toMatchObject({ resume_after: 2 });
  });
});

describe('dedupe', () => {
  it('when the server resends trades at or below the last seq (a resume overlap, a duplicate frame), then none reaches the user', async () => {
    const server = await startServer();
    server.behaviour.resumeOverlap = 3;
    const client = newClient(server);
    client.subscribe('basic.pumpfun');
    const trades = client.trades();
    await client.connect();
    await nextEvent(client, 'subscribed');
    for (let i = 0; i < 5; i++) server.publish('basic.pumpfun');
    expect(seqs(await take(trades, 5))).toEqual([1, 2, 3, 4, 5]);
    const [conn] = server.open;
    const stored = server.history[1]!;
    server.sendTrade(conn!, stored.seq, stored.body); // seq 2 again on the live link
    server.dropAll(1001);
    server.publishUnseen('basic.pumpfun'); // 6
    await nextEvent(client, 'resumed');
    server.publish('basic.pumpfun'); // 7
    expect(seqs(await take(trades, 2))).toEqual([6, 7]);
    expect(client.stats.duplicatesDropped).toBe(1 + 3);
    expect(client.stats.tradesDelivered).toBe(7);
  });
});

describe('message format', () => {
  it('when a real schema_version 2 pump.fun trade ("type": "trade") arrives, then both iterators yield it, its seq is the resume position, and heartbeats are still events', async () => {
    const server = await startServer();
    server.behaviour.heartbeatMs = 20;
    const client = newClient(server);
    const pumpfun = client.subscribe('basic.pumpfun').trades();
    const all = client.trades();
    await client.connect();
    await nextEvent(client, 'subscribed');
    const heartbeat = nextEvent(client, 'heartbeat');
    const message = JSON.parse(PUMPFUN_BUY_V2) as Record<string, unknown>;
    const seq = server.publish('basic.pumpfun', message);
    const [fromSubject] = await take(pumpfun, 1);
    const [fromAll] = await take(all, 1);
    expect(fromSubject).toEqual({ seq, ...message });
    expect(fromAll).toBe(fromSubject);
    // Typed as the subject's message: the product spec §3 fields are there.
    expect([fromSubject!.type, fromSubject!.schema_version, fromSubject!.data.side, fromSubject!.data.txHash]).toEqual([
      'trade',
      2,
      'buy',
      fromSubject!.signature,
    ]);
    expect(client.positions()).toEqual({ 'basic.pumpfun': seq });
    expect(client.stats.tradesDelivered).toBe(1);
    await heartbeat;
  });
});

describe('watchdog', () => {
  it('when heartbeats arrive, then the link is kept; when nothing arrives for watchdogMs, then the client drops it, reconnects and resumes', async () => {
    const server = await startServer();
    server.behaviour.heartbeatMs = 50;
    const client = newClient(server, { watchdogMs: 300 });
    client.subscribe('basic.pumpfun');
    const trades = client.trades();
    await client.connect();
    await nextEvent(client, 'subscribed');
    server.publish('basic.pumpfun'); // 1
    expect(seqs(await take(trades, 1))).toEqual([1]);
    await sleep(900); // 3 × watchdogMs of heartbeats only
    expect(server.connections).toHaveLength(1);

    server.behaviour.silent = true; // the link stays open but says nothing
    const link = server.connections[0]!;
    const reconnecting = await nextEvent(client, 'reconnecting');
    const silentFor = Date.now() - link.lastSentAt;
    server.behaviour.silent = false;
    // Measured from the last frame the server sent (the client cannot have heard anything later), not from
    // when the test went silent: heartbeats come on a 20 ms tick, so the last one may be ~60 ms older than that.
    // 1 ms of slack for Date.now()'s millisecond rounding on both ends.
    expect(silentFor).toBeGreaterThanOrEqual(300 - 1);
    expect(reconnecting).toMatchObject({ closeCode: 4000, reason: expect.stringMatching(/^watchdog/) });
    server.publishUnseen('basic.pumpfun'); // 2
    expect(await server.waitForRequest((m) => m.resume_after === 1)).toEqual({ subject: 'basic.pumpfun', resume_after: 1 });
    expect(seqs(await take(trades, 1))).toEqual([2]);
  });
});

describe('gaps', () => {
  it('when the server answers resume_too_old, then a gap event names the subject, afterSeq and oldestSeq, and the subject is resubscribed live', async () => {
    const server = await startServer();
    for (let i = 0; i < 12; i++) server.publishUnseen('basic.pumpfun');
    server.behaviour.oldestResumable = 10;
    const client = newClient(server);
    const gap = nextEvent(client, 'gap');
    client.subscribe('basic.pumpfun', { resumeAfter: 2 });
    const trades = client.trades();
    void client.connect();
    expect(await gap).toEqual({ type: 'gap', subject: 'basic.pumpfun', afterSeq: 2, oldestSeq: 10, reason: 'resume_too_old' });
    const subscribed = nextEvent(client, 'subscribed');
    const live = await server.waitForRequest((m) => m.subject === 'basic.pumpfun' && !('resume_after' in m));
    expect(live).toEqual({ subject: 'basic.pumpfun' });
    await subscribed;
    server.publish('basic.pumpfun'); // 13
    expect(seqs(await take(trades, 1))).toEqual([13]);
  });
});

describe('filters and unsubscribe', () => {
  it('when setFilter is called on a live subscription, then {"subject","filter"} is sent again; null clears it', async () => {
    const server = await startServer();
    const client = newClient(server);
    const sub = client.subscribe('basic.pumpfun', { filter: { types: ['BUY'] } });
    const subscribed = nextEvent(client, 'subscribed');
    await client.connect();
    expect(await server.waitForRequest((m) => m.subject === 'basic.pumpfun')).toEqual({ subject: 'basic.pumpfun', filter: { types: ['BUY'] } });
    await subscribed;
    const changed = nextEvent(client, 'subscribed');
    sub.setFilter({ types: ['SELL'], min_sol: 0.5 });
    expect(await changed).toMatchObject({ subject: 'basic.pumpfun', filter: { types: ['SELL'], min_sol: 0.5 }, resumeAfter: null });
    client.setFilter('basic.pumpfun', null);
    await server.waitForRequest((m) => m.subject === 'basic.pumpfun' && m.filter === null);
    expect(server.allReceived.slice(1)).toEqual([
      { subject: 'basic.pumpfun', filter: { types: ['BUY'] } },
      { subject: 'basic.pumpfun', filter: { types: ['SELL'], min_sol: 0.5 } },
      { subject: 'basic.pumpfun', filter: null },
    ]);
    expect(() => client.setFilter('basic.pumpfun', { min_sol: -1 })).toThrow(TradewindOptionsError);
    expect(() => client.setFilter('basic.bonk', null)).toThrow(/not subscribed/);
  });

  it('when unsubscribe is called, then {"unsubscribe"} is sent and the subscription’s iterator ends', async () => {
    const server = await startServer();
    const client = newClient(server);
    const sub = client.subscribe('basic.pumpfun');
    const iterator = sub.trades();
    await client.connect();
    await nextEvent(client, 'subscribed');
    expect(sub.unsubscribe()).toBe(true);
    expect(await iterator.next()).toEqual({ value: undefined, done: true });
    expect(await server.waitForRequest((m) => 'unsubscribe' in m)).toEqual({ unsubscribe: 'basic.pumpfun' });
    expect(client.unsubscribe('basic.pumpfun')).toBe(false);
  });

  it('when the server refuses a subject, then its iterator ends with SubscriptionError, it is not asked for again, and other subjects go on', async () => {
    const server = await startServer();
    server.behaviour.refuse['premium.raydium'] = 'subject_not_in_plan';
    const client = newClient(server);
    const premium = client.subscribe('premium.raydium').trades();
    const basic = client.subscribe('basic.pumpfun').trades();
    const error = nextEvent(client, 'error');
    await client.connect();
    expect(await error).toMatchObject({ code: 'subject_not_in_plan', subject: 'premium.raydium' });
    await expect(premium.next()).rejects.toEqual(
      expect.objectContaining({ name: 'SubscriptionError', code: 'subject_not_in_plan', subject: 'premium.raydium' }),
    );
    await nextEvent(client, 'subscribed', (e) => e.subject === 'basic.pumpfun');
    server.publish('basic.pumpfun');
    expect(seqs(await take(basic, 1))).toEqual([1]);
    server.dropAll(1001);
    await server.waitForRequest((m) => m.subject === 'basic.pumpfun' && 'resume_after' in m);
    await sleep(50);
    expect(server.allReceived.filter((m) => m.subject === 'premium.raydium')).toHaveLength(1);
  });
});

describe('iterators', () => {
  it('when close() is called, then every iterator ends normally and a closed event with error null is the last event', async () => {
    const server = await startServer();
    const client = newClient(server);
    const trades = client.trades();
    const events = client.events();
    await client.connect();
    client.close();
    expect(await trades.next()).toEqual({ value: undefined, done: true });
    const seen: ClientEvent[] = [];
    for await (const e of events) seen.push(e);
    expect(seen.at(-1)).toEqual({ type: 'closed', error: null });
    expect(() => client.subscribe('basic.pumpfun')).toThrow(/closed/);
  });

  it('when an iterator is not read and more than maxBufferedTrades queue up, then it ends with BufferOverflowError after the buffered ones', async () => {
    const server = await startServer();
    const client = newClient(server, { maxBufferedTrades: 3 });
    client.subscribe('basic.pumpfun');
    const trades = client.trades();
    await client.connect();
    await nextEvent(client, 'subscribed');
    for (let i = 0; i < 5; i++) server.publish('basic.pumpfun');
    await sleep(100);
    expect(seqs(await take(trades, 3))).toEqual([1, 2, 3]);
    await expect(trades.next()).rejects.toMatchObject({ code: 'buffer_overflow' });
  });
});
