/**
 * The pipelined publisher (src/publisher.ts OrderedPublisher) against a real nats-server of its own, through a
 * proxy that loses, stalls and resets the connection mid-window: TRADES must hold every trade once, in the
 * order they were enqueued, and a unit's onDone (ingest's live checkpoint) must never run before every trade up
 * to it is stored.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Registry } from 'prom-client';
import { jetstream, jetstreamManager, type JetStreamManager } from '@nats-io/jetstream';
import { TRADES_STREAM } from '@tradewind/contracts';
import { connectNats, createLogger, ensureTradesStream, type NatsConnection } from '@tradewind/lib';
import { startNatsServer, type TestNatsServer } from '@tradewind/dev';
import { BUNDLED_RECORDING_DIR } from '../src/config.js';
import { OrderedPublisher, publisherMetrics, type PublisherMetrics } from '../src/publisher.js';
import { loadRecording, type RecordedTransaction } from '../src/replay/recording.js';
import { replayCopy, type OutgoingTrade } from '../src/replay/replay-source.js';
import { startFaultProxy, type FaultProxy } from './support/fault-proxy.js';

const logger = createLogger({ service: 'ingest-test', level: 'silent' });
let server: TestNatsServer;
let observer: NatsConnection;
let jsm: JetStreamManager;
let transactions: RecordedTransaction[];
const closers: (() => Promise<unknown>)[] = [];

beforeAll(async () => {
  server = await startNatsServer();
  observer = await connectNats({ url: server.url, name: 'observer' });
  jsm = await jetstreamManager(observer);
  transactions = (await loadRecording(BUNDLED_RECORDING_DIR)).transactions.filter((t) => t.trades.length > 0);
});

afterEach(async () => {
  while (closers.length > 0) await closers.pop()!().catch(() => undefined);
});

afterAll(async () => {
  await observer?.close();
  await server?.stop();
});

async function freshTrades(): Promise<void> {
  await jsm.streams.delete(TRADES_STREAM).catch(() => undefined);
  await ensureTradesStream(jsm, { maxAgeMs: 3_600_000, duplicateWindowMs: 120_000, maxBytes: 512 * 1024 * 1024 });
}

/** `passes` passes of the recording as units (one per transaction), each trade with a unique Nats-Msg-Id of `run`. */
function units(run: string, passes: number): OutgoingTrade[][] {
  const out: OutgoingTrade[][] = [];
  for (let loop = 0; loop < passes; loop++) for (const t of transactions) out.push(t.trades.map((trade) => replayCopy(trade, run, loop, 0)));
  return out;
}

/** Every stored message's Nats-Msg-Id and store time (ms), in stream order. */
async function stored(): Promise<{ msgId: string; storedMs: number }[]> {
  const info = await jsm.streams.info(TRADES_STREAM);
  const out: { msgId: string; storedMs: number }[] = [];
  for (let seq = info.state.first_seq; seq <= info.state.last_seq && info.state.messages > 0; seq++) {
    const m = await jsm.streams.getMessage(TRADES_STREAM, { seq });
    out.push({ msgId: m!.header.get('Nats-Msg-Id'), storedMs: m!.time.getTime() });
  }
  return out;
}

async function publisherThrough(proxy: FaultProxy, options: { maxInFlight: number; ackTimeoutMs: number; leaderSignals?: boolean }) {
  const nc = await connectNats({ url: proxy.url, name: 'publisher' });
  const abort = new AbortController();
  closers.push(async () => {
    abort.abort();
    await nc.close();
  });
  const metrics = publisherMetrics(new Registry());
  const { leaderSignals, ...rest } = options;
  const publisher = new OrderedPublisher({
    js: jetstream(nc),
    nc,
    logger,
    metrics,
    maxBackoffMs: 200,
    signal: abort.signal,
    ...rest,
    ...(leaderSignals ? { leaderSignals: { nc, stream: TRADES_STREAM } } : {}),
  });
  return { publisher, metrics, nc };
}

async function until(cond: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await sleep(20);
  }
}

const total = async (c: { get(): Promise<{ values: { value: number }[] }> }) => (await c.get()).values.reduce((n, v) => n + v.value, 0);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * A publisher through a fresh fault proxy (ack timeout far beyond any wait: only a leader signal re-sends), with the first
 * half of two passes of the recording stored; returns what the leader-change tests need.
 */
async function halfStored(run: string) {
  const proxy = await startFaultProxy(server.port);
  closers.push(() => proxy.close());
  const { publisher, metrics, nc } = await publisherThrough(proxy, { maxInFlight: 256, ackTimeoutMs: 120_000, leaderSignals: true });
  await nc.flush();
  const all = units(run, 2);
  const half = Math.floor(all.length / 2);
  for (let i = 0; i < half; i++) expect(await publisher.enqueue(all[i]!)).toBe(true);
  expect(await publisher.drained()).toBe(true);
  /** nats-server's advisory when the stream elects a leader, in the stream's account; then the rest of the units, drained. */
  const electAndFinish = async (from: number) => {
    observer.publish(`$JS.EVENT.ADVISORY.STREAM.LEADER_ELECTED.${TRADES_STREAM}`, JSON.stringify({ stream: TRADES_STREAM, leader: 'n2' }));
    for (let i = from; i < all.length; i++) expect(await publisher.enqueue(all[i]!)).toBe(true);
    const drained = await Promise.race([publisher.drained(), sleep(20_000).then(() => 'still waiting' as const)]);
    expect(drained).toBe(true);
  };
  return { proxy, publisher, metrics, all, half, electAndFinish };
}

describe('OrderedPublisher', () => {
  it('when publishes in flight are lost and TRADES then announces a new leader, then the window is re-sent at once (not after the ack timeout), every trade stored once, in order', async () => {
    await freshTrades();
    // The ack timeout is far beyond the wait below: only the leader signal can bring the lost trades back in time.
    const { proxy, publisher, metrics, all, half, electAndFinish } = await halfStored('leader');
    // The leader dies with what it was sent: these publishes are lost.
    proxy.blackhole();
    for (let i = half; i < half + 5; i++) expect(await publisher.enqueue(all[i]!)).toBe(true);
    await sleep(200);
    proxy.heal();
    await electAndFinish(half + 5);
    expect((await stored()).map((g) => g.msgId)).toEqual(all.flat().map((t) => t.msgId));
    expect((await metrics.resends.get()).values.find((v) => v.labels.reason === 'leader')?.value).toBe(1);
  });

  it('when trades were stored but their acknowledgements lost, and the duplicate window no longer catches a re-send, then the re-send continues after them and nothing is stored twice', async () => {
    // A duplicate window of 100 ms stands for a stream leader whose dedupe map missed the stored copies (nats-server
    // 2.9.10 after a leader kill under load, npm run chaos): only the anchor's expectation can stop a second copy.
    await jsm.streams.delete(TRADES_STREAM).catch(() => undefined);
    await ensureTradesStream(jsm, { maxAgeMs: 3_600_000, duplicateWindowMs: 100, maxBytes: 512 * 1024 * 1024 });
    const { proxy, publisher, metrics, all, half, electAndFinish } = await halfStored('deaf');
    // Stored, acknowledgements lost.
    proxy.deafen();
    for (let i = half; i < half + 5; i++) expect(await publisher.enqueue(all[i]!)).toBe(true);
    const lostAcks = all.slice(half, half + 5).flat().length;
    await until(async () => (await jsm.streams.info(TRADES_STREAM)).state.messages === all.slice(0, half + 5).flat().length);
    await sleep(300); // past the duplicate window
    proxy.heal();
    await electAndFinish(half + 5);
    expect((await stored()).map((g) => g.msgId)).toEqual(all.flat().map((t) => t.msgId));
    expect(await total(metrics.published)).toBe(all.flat().length);
    expect(lostAcks).toBeGreaterThan(0);
  });

  it('when TRADES announces a new leader while nothing is in flight, then nothing is re-sent', async () => {
    await freshTrades();
    const proxy = await startFaultProxy(server.port);
    closers.push(() => proxy.close());
    const { publisher, metrics, nc } = await publisherThrough(proxy, { maxInFlight: 256, ackTimeoutMs: 5_000, leaderSignals: true });
    await nc.flush();
    for (const unit of units('idle', 1).slice(0, 20)) await publisher.enqueue(unit);
    expect(await publisher.drained()).toBe(true);
    observer.publish(`$JS.EVENT.ADVISORY.STREAM.LEADER_ELECTED.${TRADES_STREAM}`, JSON.stringify({ stream: TRADES_STREAM, leader: 'n2' }));
    await observer.flush();
    await sleep(300);
    expect(await total(metrics.resends)).toBe(0);
  });

  it('when the connection swallows publishes mid-window and is then reset, then TRADES stores every trade once in enqueue order and no onDone runs before its trades are stored', async () => {
    await freshTrades();
    const proxy = await startFaultProxy(server.port);
    closers.push(() => proxy.close());
    // A paced producer and a window larger than what is lost: trades sent after the reset reach the server before
    // the lost ones time out, so without the chain's expectations they would be stored ahead of the lost ones.
    const { publisher, metrics } = await publisherThrough(proxy, { maxInFlight: 1_024, ackTimeoutMs: 2_000 });
    // Every tenth transaction decodes to no trade: its onDone follows the trades before it.
    const all = units('cut', 30).flatMap((u, i) => (i % 10 === 0 ? [[], u] : [u]));
    const done: { unit: number; atMs: number }[] = [];
    let faulted = false;
    for (let i = 0; i < all.length; i++) {
      const unit = i;
      const taken = await publisher.enqueue(all[i]!, () => {
        done.push({ unit, atMs: Date.now() });
        // Mid-window: a third of the way in, with a full window behind this unit.
        if (!faulted && unit >= all.length / 3) {
          faulted = true;
          proxy.blackhole();
          setTimeout(() => proxy.cut(), 20);
        }
      });
      expect(taken).toBe(true);
      if (i % 2 === 0) await sleep(1);
    }
    expect(await publisher.drained()).toBe(true);
    expect(faulted).toBe(true);

    const want = all.flat().map((t) => t.msgId);
    const got = await stored();
    // Nothing lost, nothing twice, nothing out of order.
    expect(got.map((g) => g.msgId)).toEqual(want);
    // The fault really hit trades in flight: some were re-sent.
    expect(await total(metrics.errors)).toBeGreaterThan(0);
    expect(await total(metrics.resends)).toBeGreaterThan(0);
    // Each trade acknowledged once: stored, or a duplicate when a re-sent trade had been stored before its acknowledgement was lost.
    expect((await total(metrics.published)) + (await total(metrics.duplicates))).toBe(want.length);
    // onDone in unit order, once each, and never ahead of a stored trade.
    expect(done.map((d) => d.unit)).toEqual(all.map((_, i) => i));
    const storedAt = new Map(got.map((g) => [g.msgId, g.storedMs]));
    let latestStore = 0;
    let trade = 0;
    for (const d of done) {
      for (const t of all[d.unit]!) latestStore = Math.max(latestStore, storedAt.get(t.msgId)!);
      trade += all[d.unit]!.length;
      expect(latestStore, `unit ${d.unit} (trade ${trade}) done before its trades were stored`).toBeLessThanOrEqual(d.atMs);
    }
  });

  it('when TRADES refuses one trade for a while (a stream limit), then no later trade is stored before it', async () => {
    await freshTrades();
    // 16 KiB per message; one trade of the window carries 20 KB more, so TRADES refuses it until the limit is raised.
    const info = await jsm.streams.info(TRADES_STREAM);
    await jsm.streams.update(TRADES_STREAM, { ...info.config, max_msg_size: 16 * 1024 });
    const proxy = await startFaultProxy(server.port);
    closers.push(() => proxy.close());
    const { publisher, metrics } = await publisherThrough(proxy, { maxInFlight: 256, ackTimeoutMs: 5_000 });
    const all = units('limit', 4);
    const big = Math.floor(all.length / 2);
    const first = all[big]![0]!;
    all[big]![0] = { ...first, message: { ...first.message, memo: 'x'.repeat(20_000) } as typeof first.message };
    const producer = (async () => {
      for (const u of all) expect(await publisher.enqueue(u)).toBe(true);
    })();
    await expect.poll(async () => total(metrics.errors), { timeout: 10_000 }).toBeGreaterThan(0);
    await sleep(300);
    await jsm.streams.update(TRADES_STREAM, { ...info.config, max_msg_size: -1 });
    await producer;
    expect(await publisher.drained()).toBe(true);
    expect((await stored()).map((s) => s.msgId)).toEqual(all.flat().map((t) => t.msgId));
    expect(await total(metrics.resends)).toBeGreaterThan(0);
  });

  it('when TRADES stops answering, then enqueue stops taking units once the window is full, and everything is stored in order after it heals', async () => {
    await freshTrades();
    const proxy = await startFaultProxy(server.port);
    closers.push(() => proxy.close());
    const maxInFlight = 64;
    const { publisher, metrics } = await publisherThrough(proxy, { maxInFlight, ackTimeoutMs: 30_000 });
    const all = units('stall', 20);
    let taken = 0;
    let largest = 0;
    const stallAt = Math.floor(all.length / 4);
    const producer = (async () => {
      for (const unit of all) {
        if (!(await publisher.enqueue(unit))) return;
        taken++;
        largest = Math.max(largest, publisher.size);
        // Stalled from inside the producer: polling for it from outside let a fast run take every unit first.
        if (taken === stallAt) proxy.stall();
      }
    })();
    await expect.poll(() => taken, { timeout: 10_000 }).toBeGreaterThanOrEqual(stallAt);
    await sleep(500);
    const atStall = taken;
    await sleep(1_000);
    // Back-pressure: the producer is parked, the window is bounded.
    expect(taken).toBe(atStall);
    expect(taken).toBeLessThan(all.length);
    expect(publisher.size).toBeLessThanOrEqual(maxInFlight);
    expect(largest).toBeLessThanOrEqual(maxInFlight);
    expect(await total(metrics.windowFull)).toBeGreaterThan(0);
    proxy.heal();
    await producer;
    expect(await publisher.drained()).toBe(true);
    expect(taken).toBe(all.length);
    expect((await stored()).map((s) => s.msgId)).toEqual(all.flat().map((t) => t.msgId));
  });

  it('when a second publisher writes to TRADES at the same time, then each one stores all of its trades once and in its own order', async () => {
    await freshTrades();
    const proxy = await startFaultProxy(server.port);
    closers.push(() => proxy.close());
    const a = await publisherThrough(proxy, { maxInFlight: 128, ackTimeoutMs: 5_000 });
    const b = await publisherThrough(proxy, { maxInFlight: 128, ackTimeoutMs: 5_000 });
    const unitsA = units('a', 10);
    const unitsB = units('b', 10);
    const run = async (p: { publisher: OrderedPublisher }, us: OutgoingTrade[][]) => {
      for (const u of us) expect(await p.publisher.enqueue(u)).toBe(true);
      expect(await p.publisher.drained()).toBe(true);
    };
    await Promise.all([run(a, unitsA), run(b, unitsB)]);
    const got = (await stored()).map((s) => s.msgId);
    expect(got.filter((id) => id.includes(':replay:a:'))).toEqual(unitsA.flat().map((t) => t.msgId));
    expect(got.filter((id) => id.includes(':replay:b:'))).toEqual(unitsB.flat().map((t) => t.msgId));
    expect(got).toHaveLength(unitsA.flat().length + unitsB.flat().length);
    // They did interleave: each broke the other's chain at least once (re-sent at once, reason "order").
    const resends = async (m: PublisherMetrics) => ((await m.resends.get()).values.find((v) => v.labels.reason === 'order')?.value ?? 0) as number;
    expect((await resends(a.metrics)) + (await resends(b.metrics))).toBeGreaterThan(0);
  });
});
