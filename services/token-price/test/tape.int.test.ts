/**
 * The live trade tape `GET /api/trades/tape` end to end: the real service (createApp) against a private
 * nats-server with JetStream (its own TRADES stream) and the shared Redis (a key prefix per test), read
 * by a plain Server-Sent Events client over HTTP. Trades are real mainnet messages of the bundled
 * recording, decoded by ingest's own decoder, published live or as replayed copies.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { createClient } from 'redis';
import { connect, headers, type NatsConnection } from '@nats-io/transport-node';
import { jetstream, jetstreamManager, type JetStreamClient, type JetStreamManager } from '@nats-io/jetstream';
import { Registry } from 'prom-client';
import { createLogger, ensureTradesStream } from '@tradewind/lib';
import { startNatsServer, type TestNatsServer } from '@tradewind/dev';
import { BUNDLED_RECORDING_DIR, loadRecording, replayCopy, subjectOf, type TradeMessage } from '@tradewind/ingest';
import { createApp } from '../src/app.js';
import { TokenPriceConfigSchema } from '../src/config.js';
import type { TapeEvent } from '../src/domain/tape.js';
import type { Redis } from '../src/store/redis-store.js';

type Message = TradeMessage & Record<string, unknown>;

let nats: TestNatsServer;
let nc: NatsConnection;
let js: JetStreamClient;
let jsm: JetStreamManager;
let redis: Redis;
let recorded: Message[];
const logger = createLogger({ service: 'token-price-test', level: (process.env.TAPE_TEST_LOG as 'info' | undefined) ?? 'silent' });
const running: Array<{ stop(): Promise<void> }> = [];
const tapes: Tape[] = [];

beforeAll(async () => {
  nats = await startNatsServer();
  nc = await connect({ servers: nats.url });
  js = jetstream(nc);
  jsm = await jetstreamManager(nc);
  await ensureTradesStream(jsm, { maxAgeMs: 86_400_000, duplicateWindowMs: 60_000, maxBytes: 64 * 1024 * 1024 });
  redis = createClient({ url: process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379' });
  await redis.connect();
  const { transactions } = await loadRecording(BUNDLED_RECORDING_DIR);
  recorded = transactions.flatMap((t) => t.trades) as Message[];
});

afterAll(async () => {
  await nc?.close();
  await redis?.quit();
  await nats?.stop();
});

afterEach(async () => {
  for (const t of tapes.splice(0)) t.close();
  for (const app of running.splice(0)) await app.stop();
});

async function publish(message: object): Promise<number> {
  const h = headers();
  h.set('Nats-Msg-Id', randomUUID());
  return (await js.publish(subjectOf(message as TradeMessage), JSON.stringify(message), { headers: h })).seq;
}

async function start(env: Record<string, string> = {}) {
  const registry = new Registry();
  // A consumer name prefix of its own, so the test sees this service's tape consumer only.
  const consumerPrefix = `tp${randomUUID().slice(0, 8)}`;
  const config = TokenPriceConfigSchema.parse({
    TOKEN_PRICE_CONSUMER: consumerPrefix,
    PORT: '0',
    GRPC_PORT: '0',
    HOST: '127.0.0.1',
    TOKEN_PRICE_REDIS_PREFIX: `test:token-price-tape:${randomUUID().slice(0, 8)}:`,
    TOKEN_PRICE_LEASE_MS: '900',
    TOKEN_PRICE_RETRY_DELAY_MS: '200',
    ...env,
  });
  const app = createApp(config, { logger, registry, redis, js, jsm, nc });
  const { httpPort } = await app.start();
  running.push(app);
  return {
    app,
    base: `http://127.0.0.1:${httpPort}`,
    /** This service's tape consumers on TRADES (TOKEN_PRICE_CONSUMER-tape-…). */
    async tapeConsumers(): Promise<string[]> {
      const names: string[] = [];
      for await (const c of jsm.consumers.list('TRADES')) if (c.name.startsWith(`${consumerPrefix}-tape-`)) names.push(c.name);
      return names;
    },
    async metric(name: string, labels: Record<string, string> = {}): Promise<number> {
      const m = (await registry.getMetricsAsJSON()).find((x) => x.name === name);
      const v = m?.values.find((x) => Object.entries(labels).every(([k, val]) => x.labels[k] === val));
      return Number(v?.value ?? 0);
    },
  };
}

/** An open tape as a plain SSE client sees it: every event with its arrival time (ms), and the comment lines. */
interface Tape {
  readonly status: number;
  readonly headers: Headers;
  readonly events: Array<{ at: number; event: TapeEvent }>;
  readonly comments: string[];
  /** Resolves when the server ended the stream. */
  readonly ended: Promise<void>;
  close(): void;
}

/** Opens the tape; `forwardedFor` is sent as X-Forwarded-For (what the ingress appends). A refused tape has `body`. */
async function openTape(base: string, forwardedFor?: string): Promise<Tape & { body?: unknown }> {
  const ac = new AbortController();
  const res = await fetch(`${base}/api/trades/tape`, { headers: forwardedFor ? { 'x-forwarded-for': forwardedFor } : {}, signal: ac.signal });
  const events: Tape['events'] = [];
  const comments: string[] = [];
  if (!res.headers.get('content-type')?.startsWith('text/event-stream')) {
    return { status: res.status, headers: res.headers, events, comments, ended: Promise.resolve(), close: () => ac.abort(), body: await res.json() };
  }
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  const ended = (async () => {
    let buffer = '';
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return;
        buffer += decoder.decode(value, { stream: true });
        for (let cut = buffer.indexOf('\n\n'); cut >= 0; cut = buffer.indexOf('\n\n')) {
          const frame = buffer.slice(0, cut);
          buffer = buffer.slice(cut + 2);
          for (const line of frame.split('\n')) {
            if (line.startsWith('data: ')) events.push({ at: performance.now(), event: JSON.parse(line.slice(6)) as TapeEvent });
            else if (line.startsWith(':')) comments.push(line.slice(1).trim());
          }
        }
      }
    } catch {
      // aborted by close()
    }
  })();
  const tape = { status: res.status, headers: res.headers, events, comments, ended, close: () => ac.abort() };
  tapes.push(tape);
  return tape;
}

async function waitFor<T>(fn: () => T | Promise<T>, ok: (v: T) => boolean, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (ok(v)) return v;
    if (Date.now() > deadline) throw new Error(`condition not met in ${timeoutMs} ms; last value ${JSON.stringify(v)}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('GET /api/trades/tape', () => {
  it('when trades are published to TRADES, then a client receives each as one event with its fields, the symbol token-price knows, and the replay flag', async () => {
    const svc = await start();
    // A pump.fun CREATE names the token (MOODOG); the service's consumer stores it before the BUY is published.
    const create = recorded.find((m) => m.transaction_type === 'CREATE' && m.mint === '5dNYcCZXEGfGgbdUdq7MMR7KLsNJLLLgL83wLH8Fpump')!;
    const buy = recorded.find((m) => m.transaction_type === 'BUY' && m.mint === create.mint)!;
    const swap = recorded.find((m) => m.transaction_type === 'SWAP' && typeof m.sol_amount_ui === 'number')!;
    await publish(create);
    await svc.app.consumer.caughtUp(10_000);

    const tape = await openTape(svc.base);
    expect(tape.status).toBe(200);
    expect(tape.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    expect(tape.headers.get('cache-control')).toBe('no-store, no-transform');
    expect(tape.headers.get('x-accel-buffering')).toBe('no');
    // The reader starts with the first client: wait until it consumes, then publish.
    await waitFor(
      () => svc.tapeConsumers(),
      (c) => c.length === 1,
    );

    const liveSeq = await publish(buy);
    await waitFor(
      () => tape.events.length,
      (n) => n >= 1,
    );
    await sleep(300); // one pass apart: otherwise only the newer of the two would be sent
    const T0 = Date.now();
    const copy = replayCopy(swap, 'test', 3, T0).message as Message;
    const replaySeq = await publish(copy);
    await waitFor(
      () => tape.events.length,
      (n) => n >= 2,
    );

    const [live, replayed] = tape.events.map((e) => e.event);
    expect(live).toEqual({
      seq: liveSeq,
      subject: 'basic.pumpfun',
      transaction_type: 'BUY',
      side: 'buy',
      mint: create.mint,
      symbol: 'MOODOG',
      name: 'MOO DOG',
      sol_amount: buy.sol_amount_ui,
      signature: buy.signature,
      block_time_ms: buy.block_time_ms,
      replayed: false,
      recorded_at: null,
    });
    expect(replayed).toEqual({
      seq: replaySeq,
      subject: 'premium.raydium',
      transaction_type: 'SWAP',
      side: swap.side ?? null,
      mint: swap.mint,
      symbol: null,
      name: null,
      sol_amount: swap.sol_amount_ui,
      signature: swap.signature,
      block_time_ms: swap.block_time_ms,
      replayed: true,
      recorded_at: swap.block_time_ms,
    });
    // A message that is not a tape trade (a CREATE: no SOL amount) is never an event.
    await publish(create);
    await sleep(600);
    expect(tape.events.length).toBe(2);
    expect(await svc.metric('tradewind_token_price_tape_events_sent_total')).toBe(2);
    expect(await svc.metric('tradewind_token_price_tape_clients')).toBe(1);
  });

  it('when trades come faster than TAPE_MAX_EVENTS_PER_S, then each client gets at most that many in any second, the newest, and a new client the latest at once', async () => {
    const svc = await start({ TAPE_MAX_EVENTS_PER_S: '4' });
    const a = await openTape(svc.base);
    await waitFor(
      () => svc.tapeConsumers(),
      (c) => c.length === 1,
    );
    const trades = recorded.filter((m) => m.transaction_type === 'BUY' && m.source === 'pumpfun');
    // About 100 trades a second for 2.5 s.
    const published: number[] = [];
    const until = Date.now() + 2_500;
    for (let i = 0; Date.now() < until; i++) {
      published.push(await publish(trades[i % trades.length]!));
      if (i % 5 === 4) await sleep(50);
    }
    await sleep(600);
    expect(published.length).toBeGreaterThan(100);
    const got = a.events;
    // 2.5 s at 4 per second: about 10, never more than 4 in a second (a little slack for delivery jitter).
    expect(got.length).toBeGreaterThanOrEqual(6);
    expect(got.length).toBeLessThanOrEqual(13);
    for (let i = 4; i < got.length; i++) expect(got[i]!.at - got[i - 4]!.at, `events ${i - 4} to ${i} span a second`).toBeGreaterThan(950);
    // The last trade published is the last event: the newest wins, the rest were dropped.
    expect(got.at(-1)!.event.seq).toBe(published.at(-1));
    const seqs = got.map((e) => e.event.seq);
    expect(seqs).toEqual([...seqs].sort((x, y) => x - y));

    // A new client: the latest events (at most 4) at once, then nothing more within its first second.
    const b = await openTape(svc.base);
    await waitFor(
      () => b.events.length,
      (n) => n === 4,
    );
    expect(b.events.map((e) => e.event.seq)).toEqual(seqs.slice(-4));
    await publish(trades[0]!);
    await sleep(400);
    expect(b.events.length).toBe(4);
  });

  it('when more tapes open than TAPE_MAX_CONNECTIONS_PER_IP or TAPE_MAX_CONNECTIONS, then they get 429 with the error body and Retry-After; a closed one frees its slot', async () => {
    const svc = await start({ TAPE_MAX_CONNECTIONS_PER_IP: '2', TAPE_MAX_CONNECTIONS: '3', TAPE_RETRY_AFTER_S: '7', TAPE_READER_LINGER_MS: '0' });
    const first = await openTape(svc.base, '10.0.0.1');
    expect((await openTape(svc.base, '203.0.113.9, 10.0.0.1')).status).toBe(200);
    // The address is the entry the ingress appended (the last); what the client wrote before it does not count.
    const overAddress = await openTape(svc.base, '198.51.100.77, 10.0.0.1');
    expect(overAddress.status).toBe(429);
    expect(overAddress.headers.get('retry-after')).toBe('7');
    expect(overAddress.body).toEqual({
      status: 429,
      code: 'resource_exhausted',
      message: 'Too many live trade tapes open from your address. Close one or try again in 7 s.',
    });
    expect((await openTape(svc.base, '10.0.0.2')).status).toBe(200);
    const overTotal = await openTape(svc.base, '10.0.0.3');
    expect(overTotal.status).toBe(429);
    expect(overTotal.headers.get('retry-after')).toBe('7');
    expect(overTotal.body).toEqual({ status: 429, code: 'resource_exhausted', message: 'The live trade tape is at capacity. Try again in 7 s.' });
    expect(await svc.metric('tradewind_token_price_tape_clients_refused_total', { reason: 'address' })).toBe(1);
    expect(await svc.metric('tradewind_token_price_tape_clients_refused_total', { reason: 'connections' })).toBe(1);
    expect(await svc.metric('tradewind_token_price_tape_clients')).toBe(3);

    // A client that goes away is released: its address and the total may open another.
    first.close();
    await waitFor(
      () => svc.metric('tradewind_token_price_tape_clients'),
      (n) => n === 2,
    );
    expect((await openTape(svc.base, '10.0.0.1')).status).toBe(200);
    expect(await svc.metric('tradewind_token_price_tape_clients')).toBe(3);
  });

  it('when the last client leaves, then the reader of TRADES stops (after TAPE_READER_LINGER_MS), and the next client starts it again', async () => {
    const svc = await start({ TAPE_READER_LINGER_MS: '0' });
    expect(await svc.tapeConsumers()).toEqual([]);
    const tape = await openTape(svc.base);
    await waitFor(
      () => svc.tapeConsumers(),
      (c) => c.length === 1,
    );
    tape.close();
    await waitFor(
      () => svc.tapeConsumers(),
      (c) => c.length === 0,
    );
    expect(await svc.metric('tradewind_token_price_tape_clients')).toBe(0);
    const again = await openTape(svc.base);
    await waitFor(
      () => svc.tapeConsumers(),
      (c) => c.length === 1,
    );
    const seq = await publish(recorded.find((m) => m.transaction_type === 'SELL')!);
    await waitFor(
      () => again.events.map((e) => e.event.seq),
      (s) => s.includes(seq),
    );
  });

  it('when nothing trades, then a heartbeat comment arrives every TAPE_HEARTBEAT_MS; when the service stops, then the stream ends', async () => {
    const svc = await start({ TAPE_HEARTBEAT_MS: '1000' });
    const tape = await openTape(svc.base);
    await waitFor(
      () => tape.comments,
      (c) => c[0] === 'open',
    );
    await waitFor(
      () => tape.comments.filter((c) => c === 'heartbeat').length,
      (n) => n >= 2,
      5_000,
    );
    expect(tape.events).toEqual([]);
    await svc.app.stop();
    running.splice(0);
    await tape.ended;
  });
});
