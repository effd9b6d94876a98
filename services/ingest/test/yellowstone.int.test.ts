/**
 * The Yellowstone source against a local Geyser gRPC server (test/support/geyser-server.ts)
 * that speaks geyser.proto over HTTP/2 and serves the recorded mainnet transactions.
 */
import bs58 from 'bs58';
import { Registry } from 'prom-client';
import { CommitmentLevel, SlotStatus, SubscribeUpdateTransactionInfo } from '@triton-one/yellowstone-grpc';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '@tradewind/lib';
import { BUNDLED_RECORDING_DIR } from '../src/config.js';
import { decodeNormalized, decodeTransaction } from '../src/decode/index.js';
import type { NormalizedTransaction } from '../src/decode/transaction.js';
import { sourceMetrics, TRADE_PROGRAM_IDS, type BackoffOptions } from '../src/live/source.js';
import { createYellowstoneSource, type YellowstoneSourceOptions } from '../src/live/yellowstone.js';
import {
  encodeTransactionError,
  GeyserTestServer,
  loadRecordedGeyserTransactions,
  type GeyserTestServerOptions,
  type RecordedGeyserTransaction,
  type ServedTransaction,
} from './support/geyser-server.js';

const FAST: BackoffOptions = { initialMs: 20, maxMs: 80 };
const LAUNCHLAB = 'LanMV9sAd7wArD4vJFi2qDdfnVhFxYSUg6eADduJ3uj';

let recorded: RecordedGeyserTransaction[];
const servers: GeyserTestServer[] = [];
const aborts: AbortController[] = [];

beforeAll(async () => {
  recorded = await loadRecordedGeyserTransactions(BUNDLED_RECORDING_DIR);
});

afterEach(async () => {
  for (const a of aborts.splice(0)) a.abort();
  for (const s of servers.splice(0)) await s.close();
});

async function startServer(options: GeyserTestServerOptions): Promise<GeyserTestServer> {
  const server = new GeyserTestServer({ pingIntervalMs: 50, ...options });
  servers.push(server);
  await server.start();
  return server;
}

interface LogLine {
  level: number;
  time: number;
  msg: string;
  [k: string]: unknown;
}

function harness(server: GeyserTestServer, overrides: Partial<YellowstoneSourceOptions> = {}) {
  const registry = new Registry();
  const logs: LogLine[] = [];
  const destination = {
    write(chunk: string) {
      for (const line of chunk.split('\n')) if (line) logs.push({ ...(JSON.parse(line) as LogLine), time: Date.now() });
    },
  };
  const logger = createLogger({ service: 'ingest-test', level: 'debug', destination });
  const abort = new AbortController();
  aborts.push(abort);
  const source = createYellowstoneSource({
    endpoint: server.endpoint,
    fromSlot: null,
    backoff: FAST,
    metrics: sourceMetrics(registry),
    registry,
    logger,
    ...overrides,
  });
  const gauge = async (name: string): Promise<number | undefined> =>
    (await registry.getSingleMetric(name)?.get())?.values.find((v) => v.labels.source === 'yellowstone')?.value;
  return { source, registry, logs, abort, gauge, iterator: source.transactions(abort.signal)[Symbol.asyncIterator]() };
}

/** Takes `n` transactions from the iterator (fails the test after `ms`). */
async function take(
  it: AsyncIterator<NormalizedTransaction>,
  n: number,
  ms = 5000,
  onEach?: (tx: NormalizedTransaction) => void,
): Promise<NormalizedTransaction[]> {
  const out: NormalizedTransaction[] = [];
  const deadline = Date.now() + ms;
  while (out.length < n) {
    const left = deadline - Date.now();
    const r = await Promise.race([it.next(), new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), Math.max(0, left)))]);
    if (r === 'timeout') throw new Error(`timed out after ${out.length} of ${n} transactions`);
    if (r.done) throw new Error(`source ended after ${out.length} of ${n} transactions`);
    out.push(r.value);
    onEach?.(r.value);
  }
  return out;
}

async function until(cond: () => boolean | Promise<boolean>, ms = 5000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 5));
  }
}

const keysOf = (t: ServedTransaction): string[] =>
  [...t.info.transaction!.message!.accountKeys, ...t.info.meta!.loadedWritableAddresses, ...t.info.meta!.loadedReadonlyAddresses].map((k) => bs58.encode(k));

/** What the default filter lets through: successful transactions touching one of the four programs. */
const streamable = (t: ServedTransaction): boolean =>
  (t.info.meta?.err?.err.length ?? 0) === 0 && keysOf(t).some((k) => (TRADE_PROGRAM_IDS as readonly string[]).includes(k));

/** `copies` passes over the recording on a dense chain from `firstSlot`, `perSlot` transactions per slot. */
function denseChain(copies: number, perSlot: number, firstSlot: number): ServedTransaction[] {
  const out: ServedTransaction[] = [];
  for (let c = 0; c < copies; c++) for (const t of recorded.filter(streamable)) out.push({ info: t.info, slot: 0, blockTime: null });
  out.forEach((t, i) => {
    t.slot = firstSlot + Math.floor(i / perSlot);
    t.blockTime = 1_750_000_000 + Math.floor(i / perSlot);
  });
  return out;
}

describe('yellowstone source against a local geyser server', () => {
  it('when every recorded transaction is streamed, then each arrives normalised and decodes to the same trades as its getTransaction JSON, at commitment processed', async () => {
    const server = await startServer({ transactions: recorded });
    const h = harness(server);
    expect(h.source.commitment).toBe('processed');
    const expected = recorded.filter(streamable);
    expect(expected.length).toBeGreaterThanOrEqual(15);
    const got = await take(h.iterator, expected.length);

    expect(got.map((t) => t.signature)).toEqual(expected.map((t) => bs58.encode(t.info.signature)));
    let trades = 0;
    got.forEach((tx, i) => {
      const t = expected[i]!;
      expect(tx.slot).toBe(t.slot);
      // Yellowstone sends a slot's BlockMeta after its transactions: the block time is known only
      // when the BlockMeta came first (null otherwise), and then it is the capture's.
      expect([null, t.syntheticSlot ? null : t.blockTime! * 1000]).toContain(tx.blockTimeMs);
      expect(tx.commitment).toBe('processed');
      const messages = decodeNormalized(tx);
      expect(messages, t.path).toEqual(
        decodeTransaction(t.raw).map((m) => {
          const same = { ...m, slot: t.slot, commitment: 'processed', block_time_ms: tx.blockTimeMs };
          // basic.pumpfun data.timestamp is the block time when the event has no timestamp (2024 CreateEvents).
          return m.source === 'pumpfun' && m.timestamp === undefined ? { ...same, data: { ...m.data, timestamp: tx.blockTimeMs } } : same;
        }),
      );
      for (const m of messages) {
        expect(m.commitment).toBe('processed');
        expect(Object.keys(m).slice(0, 6), t.path).toEqual(['source', 'transaction_type', 'signature', 'slot', 'commitment', 'block_time_ms']);
      }
      trades += messages.length;
    });
    expect(trades).toBeGreaterThanOrEqual(15);

    const [call] = server.subscribeCalls;
    const request = call!.requests[0]!;
    expect(request.transactions).toEqual({
      tradewind: { vote: false, failed: false, accountInclude: [...TRADE_PROGRAM_IDS], accountExclude: [], accountRequired: [] },
    });
    expect(request.commitment ?? CommitmentLevel.PROCESSED).toBe(CommitmentLevel.PROCESSED);
    expect(request.fromSlot).toBeUndefined();
    // Connect calls no unary method; the source asks GetSlot once, for its resume point.
    expect(server.unaryCalls).toEqual(['GetSlot']);
    await until(() => server.pingReplies.length > 0); // server pings are answered
  });

  it.each([
    ['after the consumer took 10 transactions', 'consumer'],
    ['right after writing its 10th transaction update', 'server'],
  ] as const)(
    'when the server drops the connection mid-stream %s, then the source resumes from the last processed slot and the consumer gets every transaction once, in order',
    async (_when, trigger) => {
      const chain = denseChain(2, 3, 5_000);
      // 3 transactions per slot, 2 ms between slots: the cut lands mid-stream and mid-slot.
      const server = await startServer({ transactions: chain, slotIntervalMs: 2 });
      const h = harness(server);
      if (trigger === 'server') server.dropAfterTransactions(10);
      const callsAtYield: number[] = [];
      const got = await take(h.iterator, chain.length, 8000, () => {
        callsAtYield.push(server.subscribeCalls.length);
        if (trigger === 'consumer' && callsAtYield.length === 10) server.dropConnections();
      });

      const key = (slot: number | null, sig: string) => `${slot}:${sig}`;
      expect(got.map((t) => key(t.slot, t.signature))).toEqual(chain.map((t) => key(t.slot, bs58.encode(t.info.signature))));
      expect(server.subscribeCalls.length).toBe(2);
      // fromSlot = slot of the last transaction taken on the first connection. When the cut came
      // before the client read any (updates still in the native layer die with the stream), it is
      // the slot the server reported at start (GetSlot): the first slot of the chain.
      const lastBeforeDrop = got[callsAtYield.lastIndexOf(1)];
      if (trigger === 'consumer') expect(lastBeforeDrop).toBeDefined();
      expect(server.subscribeCalls[1]!.requests[0]!.fromSlot).toBe(String(lastBeforeDrop?.slot ?? chain[0]!.slot));
      expect(await h.gauge('tradewind_ingest_source_reconnects_total')).toBe(1);
      if (lastBeforeDrop) expect(await h.gauge('tradewind_ingest_source_duplicates_skipped_total')).toBeGreaterThanOrEqual(1);
      // The last one counts once the consumer asks for the next (the contract's "processed").
      expect(await h.gauge('tradewind_ingest_source_transactions_total')).toBe(chain.length - 1);
      const reconnect = h.logs.find((l) => l.msg === 'reconnecting after backoff');
      expect(reconnect).toMatchObject({ attempt: 0, delay_ms: FAST.initialMs });
    },
  );

  it('when the consumer is slower than the stream, then the bounded queue pauses the stream, reports it, and loses nothing', async () => {
    const chain = denseChain(1, 2, 8_000);
    const server = await startServer({ transactions: chain });
    const h = harness(server, { queueMaxTransactions: 4 });
    let deepest = 0;
    const got: NormalizedTransaction[] = [];
    // The consumer takes one transaction, then stops reading until the queue has reached its bound
    // and the stream paused (however slowly a loaded machine delivers), then drains the rest.
    got.push(...(await take(h.iterator, 1)));
    await until(async () => ((await h.gauge('tradewind_ingest_source_queue_full_total')) ?? 0) >= 1, 20_000);
    for (let i = 1; i < chain.length; i++) {
      deepest = Math.max(deepest, (await h.gauge('tradewind_ingest_source_queue_depth')) ?? 0);
      got.push(...(await take(h.iterator, 1)));
    }
    expect(got.map((t) => t.signature)).toEqual(chain.map((t) => bs58.encode(t.info.signature)));
    expect(deepest).toBeLessThanOrEqual(4);
    expect(await h.gauge('tradewind_ingest_source_queue_full_total')).toBeGreaterThanOrEqual(1);
    expect(h.logs.some((l) => l.level === 40 && /queue full/.test(l.msg))).toBe(true);
    expect(server.subscribeCalls.length).toBe(1);
  });

  it('when the stream goes silent, then the idle watchdog reconnects', async () => {
    // No transactions, no slots after the first ping: nothing arrives.
    const server = await startServer({ transactions: [], pingIntervalMs: 60_000 });
    const h = harness(server, { idleTimeoutMs: 100 });
    void h.iterator.next();
    await until(() => server.subscribeCalls.length >= 2);
    expect(h.logs.find((l) => l.msg === 'yellowstone stream failed')?.err).toMatch(/no update for 100 ms/);
  });

  it('when the connection drops before any transaction was processed, then the source resumes from the slot the server reported at start', async () => {
    const chain = denseChain(1, 2, 6_000);
    const server = await startServer({ transactions: chain });
    server.dropNextSubscribes(1);
    const h = harness(server);
    const got = await take(h.iterator, chain.length);
    expect(got.map((t) => t.signature)).toEqual(chain.map((t) => bs58.encode(t.info.signature)));
    expect(server.subscribeCalls.map((c) => c.requests[0]!.fromSlot)).toEqual([undefined, String(chain[0]!.slot)]);
  });

  it('when the server is down, then reconnect delays double from initialMs to maxMs, and reset after a connection delivers data', async () => {
    const server = await startServer({ transactions: recorded.filter(streamable).slice(0, 6) });
    await server.stop();
    const h = harness(server);
    const first = h.iterator.next();
    await until(() => h.logs.filter((l) => l.msg === 'reconnecting after backoff').length >= 5);
    const waits = h.logs.filter((l) => l.msg === 'reconnecting after backoff');
    expect(waits.slice(0, 5).map((l) => l.delay_ms)).toEqual([20, 40, 80, 80, 80]);
    // Each attempt fails no earlier than its delay after the wait began.
    for (const wait of waits.slice(0, 4)) {
      const next = h.logs.slice(h.logs.indexOf(wait)).find((l) => l.msg === 'yellowstone stream failed');
      expect(next!.time - wait.time).toBeGreaterThanOrEqual((wait.delay_ms as number) - 1);
    }

    await server.restart();
    expect((await first).value).toBeDefined();
    await take(h.iterator, 5);
    const before = h.logs.length;
    server.dropConnections();
    void h.iterator.next(); // the consumer waits for more, so the source sees the failure
    await until(() => h.logs.slice(before).some((l) => l.msg === 'reconnecting after backoff'));
    expect(h.logs.slice(before).find((l) => l.msg === 'reconnecting after backoff')).toMatchObject({ attempt: 0, delay_ms: 20 });
  });

  it('when transactions are processed behind the tip, then slot lag, tip slot and seconds behind are exported', async () => {
    const chain = denseChain(1, 2, 9_000).slice(0, 8);
    const last = chain.at(-1)!;
    const server = await startServer({ transactions: chain, tipSlot: last.slot + 7, defaultBlockTime: 1_750_000_100 });
    const now = last.blockTime! * 1000 + 12_345;
    const h = harness(server, { now: () => now, commitment: 'confirmed' });
    const got = await take(h.iterator, chain.length);
    // What the SubscribeRequest asked for is what every transaction and its trades say.
    expect(h.source.commitment).toBe('confirmed');
    expect(got.map((t) => t.commitment)).toEqual(chain.map(() => 'confirmed'));
    const trades = got.flatMap((t) => decodeNormalized(t));
    expect(trades.length).toBeGreaterThan(0);
    expect(new Set(trades.map((m) => m.commitment))).toEqual(new Set(['confirmed']));
    await until(async () => (await h.gauge('tradewind_ingest_source_tip_slot')) === last.slot + 7);
    void h.iterator.next(); // asks for the next one: the last one is processed
    await until(async () => (await h.gauge('tradewind_ingest_source_transactions_total')) === chain.length);

    expect(await h.gauge('tradewind_ingest_source_slot_lag')).toBe(7);
    expect(await h.gauge('tradewind_ingest_source_seconds_behind')).toBeCloseTo(12.345, 6);
    expect(await h.gauge('tradewind_ingest_source_connected')).toBe(1);
    const request = server.subscribeCalls[0]!.requests[0]!;
    expect(request.commitment).toBe(CommitmentLevel.CONFIRMED);
    expect(request.slots).toEqual({ tip: { filterByCommitment: true }, slot_status: { filterByCommitment: false, interslotUpdates: true } });
    expect(Object.keys(request.blocksMeta)).toEqual(['block_time']);
    expect(SlotStatus.SLOT_CONFIRMED).toBe(1);
  });

  it('when subscribing for other programs, or without failed transactions, then the server filters accordingly', async () => {
    const failed: ServedTransaction = {
      slot: 99_000_001,
      blockTime: null,
      info: SubscribeUpdateTransactionInfo.fromPartial({
        ...recorded[0]!.info,
        signature: Buffer.alloc(64, 7),
        meta: { ...recorded[0]!.info.meta!, err: { err: encodeTransactionError({ InstructionError: [1, { Custom: 6003 }] }) } },
      }),
    };
    const chain = [...recorded, failed];
    const lastSlot = Math.max(...chain.map((t) => t.slot));
    const server = await startServer({ transactions: chain, tipSlot: lastSlot + 1 });

    // A program none of the recorded transactions touches: nothing arrives, while slots do.
    const other = 'Stake11111111111111111111111111111111111111';
    expect(chain.some((t) => keysOf(t).includes(other))).toBe(false);
    const none = harness(server, { programIds: [other] });
    const pending = none.iterator.next();
    await until(async () => (await none.gauge('tradewind_ingest_source_tip_slot')) === lastSlot + 1);
    expect(server.transactionsSent).toBe(0);
    none.abort.abort();
    expect((await pending).done).toBe(true);

    // LaunchLab only, failed excluded: exactly the successful LaunchLab transactions.
    const launchlab = chain.filter((t) => keysOf(t).includes(LAUNCHLAB) && t !== failed);
    const ll = harness(server, { programIds: [LAUNCHLAB], fromSlot: 0 });
    const got = await take(ll.iterator, launchlab.length);
    expect(got.map((t) => t.signature)).toEqual(launchlab.map((t) => bs58.encode(t.info.signature)));

    // Failed included: the failed copy arrives, marked failed, and decodes to nothing.
    const all = harness(server, { includeFailed: true, fromSlot: failed.slot });
    const [tx] = await take(all.iterator, 1);
    expect(tx!.signature).toBe(bs58.encode(Buffer.alloc(64, 7)));
    expect(tx!.err).toEqual({ InstructionError: [1, { Custom: 6003 }] });
    expect(decodeNormalized(tx!)).toEqual([]);
    expect(server.subscribeCalls.at(-1)!.requests[0]!.transactions.tradewind!.failed).toBeUndefined();
  });

  it('when the server no longer holds the resume slot, then the source resumes from the first available one and reports the gap', async () => {
    const chain = denseChain(1, 1, 7_000).slice(0, 6);
    const server = await startServer({ transactions: chain, firstAvailableSlot: 7_003 });
    const h = harness(server, { fromSlot: 7_001 });
    const got = await take(h.iterator, 3);
    expect(got.map((t) => t.slot)).toEqual([7_003, 7_004, 7_005]);
    expect(server.subscribeCalls.map((c) => c.requests[0]!.fromSlot)).toEqual(['7001', '7003']);
    expect(await h.gauge('tradewind_ingest_source_resume_gaps_total')).toBe(1);
    expect(h.logs.find((l) => l.level === 50)?.msg).toMatch(/slots 7001\.\.7002 are missed/);
  });

  it('when asked for finalized, then the SubscribeRequest says FINALIZED and so does every transaction; an unknown level is refused before connecting', async () => {
    const chain = denseChain(1, 2, 10_000).slice(0, 4);
    const server = await startServer({ transactions: chain, tipSlot: chain.at(-1)!.slot + 1 });
    const h = harness(server, { commitment: 'finalized', fromSlot: chain[0]!.slot });
    const got = await take(h.iterator, chain.length);
    expect(server.subscribeCalls[0]!.requests[0]!.commitment).toBe(CommitmentLevel.FINALIZED);
    expect(got.map((t) => t.commitment)).toEqual(chain.map(() => 'finalized'));
    expect(got.flatMap((t) => decodeNormalized(t)).every((m) => m.commitment === 'finalized')).toBe(true);

    const calls = server.subscribeCalls.length;
    expect(() => harness(server, { commitment: 'recent' as never })).toThrow(/commitment must be processed, confirmed or finalized, got "recent"/);
    expect(server.subscribeCalls.length).toBe(calls);
  });
});
