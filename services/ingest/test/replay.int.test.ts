import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { Registry } from 'prom-client';
import Ajv2020 from 'ajv/dist/2020.js';
import { jetstreamManager, type JetStreamManager } from '@nats-io/jetstream';
import { connectNats, createLogger, type NatsConnection } from '@tradewind/lib';
import { TRADES_STREAM, TRADE_PUBLISHED_MS_HEADER } from '@tradewind/contracts';
import { createApp } from '../src/app.js';
import { BUNDLED_RECORDING_DIR } from '../src/config.js';
import { loadRecording, RECORDING_COMMITMENT } from '../src/replay/recording.js';
import { replay } from '../src/replay/replay-source.js';

// JetStream on the machine's plain NATS (127.0.0.1:4222, no auth); the stream is TRADES, so
// this file owns it while it runs: it is deleted before and after.
let nc: NatsConnection;
let jsm: JetStreamManager;

beforeAll(async () => {
  nc = await connectNats({ url: process.env.TEST_NATS_URL ?? 'nats://127.0.0.1:4222', name: 'ingest-test' });
  jsm = await jetstreamManager(nc);
  await jsm.streams.delete(TRADES_STREAM).catch(() => undefined);
});

afterAll(async () => {
  await jsm?.streams.delete(TRADES_STREAM).catch(() => undefined);
  await nc?.close();
});

const config = {
  INGEST_SOURCE: 'replay' as const,
  LETSBONK_PLATFORM_CONFIGS: ['FfYek5vEz23cMkWsdJwG2oa6EphsvXSHrGpdALN4g6W1'],
  LIVE_CHECKPOINT_INTERVAL_MS: 1000,
  REPLAY_DIR: BUNDLED_RECORDING_DIR,
  REPLAY_TRANSACTIONS_PER_SECOND: 1000,
  REPLAY_LOOP: false,
  TRADES_MAX_AGE_MS: 3_600_000,
  TRADES_DUPLICATE_WINDOW_MS: 120_000,
  TRADES_MAX_BYTES: 64 * 1024 * 1024,
  PUBLISH_MAX_BACKOFF_MS: 1000,
  SOL_USD_FALLBACK: 150,
};

describe('replay source', () => {
  it('when looping, then each pass yields every trade again in slot order, marked replayed with distinct ids', async () => {
    const { transactions } = await loadRecording(BUNDLED_RECORDING_DIR);
    const slots = transactions.map((t) => t.slot).filter((s): s is number => s !== null);
    expect(slots).toEqual([...slots].sort((a, b) => a - b));
    const abort = new AbortController();
    const seen: string[] = [];
    const passes = new Set<number>();
    for await (const batch of replay(transactions, { transactionsPerSecond: 10_000, loop: true, signal: abort.signal, runId: 'r1' })) {
      for (const t of batch) {
        expect(t.message.replayed).toBe(true);
        expect('commitment' in t.message && t.message.commitment).toBe(RECORDING_COMMITMENT);
        seen.push(t.msgId);
        passes.add(t.message.replay_loop);
      }
      if (passes.size === 3) abort.abort();
    }
    const perPass = transactions.reduce((n, t) => n + t.trades.length, 0);
    expect(seen.length).toBeGreaterThanOrEqual(perPass * 2);
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen[0]).toMatch(/^[1-9A-HJ-NP-Za-km-z]{64,88}:\d+(\.\d+)?:replay:r1:0$/);
    expect(seen[perPass]).toMatch(/:replay:r1:1$/);
  });

  it('when paced at 20 transactions per second, then 10 transactions take about half a second', async () => {
    const { transactions } = await loadRecording(BUNDLED_RECORDING_DIR);
    const abort = new AbortController();
    const start = Date.now();
    let n = 0;
    for await (const _batch of replay(transactions, { transactionsPerSecond: 20, loop: true, signal: abort.signal })) {
      if (++n === 11) abort.abort();
    }
    // 11 batches = 10 intervals of 50 ms; generous bounds, this checks pacing exists, not speed.
    expect(Date.now() - start).toBeGreaterThanOrEqual(450);
    expect(Date.now() - start).toBeLessThan(5000);
  });

  it('when paced at 20,000 transactions per second, then sub-millisecond waits are not slept one timer each', async () => {
    const { transactions } = await loadRecording(BUNDLED_RECORDING_DIR);
    const abort = new AbortController();
    const timers = vi.spyOn(globalThis, 'setTimeout');
    let n = 0;
    let calls = 0;
    try {
      for await (const _batch of replay(transactions, { transactionsPerSecond: 20_000, loop: true, signal: abort.signal })) {
        if (++n === 2_001) abort.abort();
      }
      calls = timers.mock.calls.length;
    } finally {
      timers.mockRestore();
    }
    // 2,000 waits of 0.05 ms: a timer each (≥ 1 ms apiece, capping the replay near 1,000 tx/s) would be ~2,000
    // timers; slept only once the schedule is ≥ 1 ms ahead, they are about 100 (the span is 100 ms).
    expect(calls).toBeGreaterThan(0);
    expect(calls).toBeLessThan(400);
  });
});

describe('replay slot status (REPLAY_SLOT_STATUS)', () => {
  it('when slot status is on, then each pass ends every recorded slot with its confirmed status after its last trade, counted per subject, with an id per pass', async () => {
    const { transactions } = await loadRecording(BUNDLED_RECORDING_DIR);
    const abort = new AbortController();
    const batches: Array<Array<{ subject: string; msgId: string; message: Record<string, unknown> }>> = [];
    for await (const batch of replay(transactions, {
      transactionsPerSecond: 100_000,
      loop: true,
      signal: abort.signal,
      runId: 'rs',
      slotStatus: 'confirmed',
    })) {
      batches.push(batch as never);
      if (batch.some((m) => m.message.replay_loop === 1)) abort.abort();
    }
    const flat = batches.flat().filter((m) => m.message.replay_loop === 0);
    // Captures without a slot (getTransaction answers that lack one) get no status.
    const slotsInRecording = new Set(transactions.map((t) => t.trades[0]!.slot).filter((slot) => slot !== null));
    const statuses = flat.filter((m) => m.subject === 'slots');
    expect(statuses.map((m) => m.message.slot).sort()).toEqual([...slotsInRecording].sort());
    for (const [i, m] of flat.entries()) {
      if (m.subject !== 'slots') continue;
      const slot = m.message.slot as number;
      // After every trade of its slot in the pass, and none of that slot after it.
      const trades = flat.filter((t) => t.subject !== 'slots' && t.message.slot === slot);
      expect(flat.slice(i + 1).some((t) => t.subject !== 'slots' && t.message.slot === slot)).toBe(false);
      const counts: Record<string, number> = {};
      for (const t of trades) counts[t.subject] = (counts[t.subject] ?? 0) + 1;
      expect(m.message).toMatchObject({ type: 'slot', status: 'confirmed', source: 'replay', replayed: true, replay_loop: 0, trades: counts, parent: null });
      expect(m.msgId).toBe(`slot:${slot}:confirmed:replay:rs:0`);
    }
    // The schema holds them.
    const ajv = new Ajv2020.default({ allErrors: true, strict: false });
    const validate = ajv.compile(
      JSON.parse(readFileSync(join(BUNDLED_RECORDING_DIR, '..', '..', '..', 'packages', 'contracts', 'schemas', 'slots.schema.json'), 'utf8')) as object,
    );
    for (const m of statuses) expect(validate(m.message), JSON.stringify(validate.errors)).toBe(true);
    // Off by default: trades only.
    const plain = new AbortController();
    for await (const batch of replay(transactions, { transactionsPerSecond: 100_000, loop: false, signal: plain.signal })) {
      expect(batch.every((m) => m.subject !== 'slots')).toBe(true);
    }
  });
});

describe('ingest app (JetStream)', () => {
  it('when the recording is replayed twice, then TRADES holds every trade twice, schema-valid, at commitment confirmed, stamped with its publish time, and a re-publish of the same copy is dropped', async () => {
    expect(RECORDING_COMMITMENT).toBe('confirmed');
    const { transactions } = await loadRecording(BUNDLED_RECORDING_DIR);
    const perPass = transactions.reduce((n, t) => n + t.trades.length, 0);
    expect(perPass).toBeGreaterThanOrEqual(20);
    const logger = createLogger({ service: 'ingest', level: 'silent' });

    const publishedFrom = Date.now();
    const first = createApp(config, { logger, registry: new Registry(), nc });
    await first.start();
    await first.done();
    const second = createApp(config, { logger, registry: new Registry(), nc });
    await second.start();
    await second.done();
    const publishedTo = Date.now();

    const info = await jsm.streams.info(TRADES_STREAM);
    expect(info.state.messages).toBe(perPass * 2);
    expect(info.config.subjects.sort()).toEqual(['basic.bonk', 'basic.pumpfun', 'premium.pumpswap', 'premium.raydium', 'slots']);

    const ajv = new Ajv2020.default({ allErrors: true, strict: false });
    const schemaDir = join(BUNDLED_RECORDING_DIR, '..', '..', '..', 'packages', 'contracts', 'schemas');
    const validate = {
      'basic.pumpfun': ajv.compile(JSON.parse(readFileSync(join(schemaDir, 'basic.pumpfun.schema.json'), 'utf8')) as object),
      'basic.bonk': ajv.compile(JSON.parse(readFileSync(join(schemaDir, 'basic.bonk.schema.json'), 'utf8')) as object),
      'premium.pumpswap': ajv.compile(JSON.parse(readFileSync(join(schemaDir, 'premium.pumpswap.schema.json'), 'utf8')) as object),
      'premium.raydium': ajv.compile(JSON.parse(readFileSync(join(schemaDir, 'premium.raydium.schema.json'), 'utf8')) as object),
    };
    const bySubject: Record<string, number> = {};
    let derived = 0;
    for (let seq = info.state.first_seq; seq <= info.state.last_seq; seq++) {
      const m = await jsm.streams.getMessage(TRADES_STREAM, { seq });
      const body = m!.json<Record<string, unknown>>();
      const check = validate[m!.subject as keyof typeof validate];
      expect(check(body), JSON.stringify(check.errors)).toBe(true);
      expect(body.replayed).toBe(true);
      // Recorded getTransaction results: at least confirmed (RECORDING_COMMITMENT), placed right after slot.
      expect(body.commitment).toBe('confirmed');
      expect(Object.keys(body).slice(3, 6)).toEqual(['slot', 'commitment', 'block_time_ms']);
      expect(m!.header.get('Nats-Msg-Id')).toContain(`${String(body.signature)}:`);
      // Epoch ms of the publish, which ws-fanout's delivery latency starts from.
      const publishedMs = m!.header.get(TRADE_PUBLISHED_MS_HEADER);
      expect(publishedMs).toMatch(/^\d+$/);
      expect(Number(publishedMs)).toBeGreaterThanOrEqual(publishedFrom);
      expect(Number(publishedMs)).toBeLessThanOrEqual(publishedTo);
      bySubject[m!.subject] = (bySubject[m!.subject] ?? 0) + 1;
      // Derived fields (decode/derived.ts): the recording has no stable-pair swap, so USD comes from SOL_USD_FALLBACK.
      if (body.market_cap_usd !== undefined) {
        derived++;
        expect(body.market_cap_usd).toBeCloseTo((body.market_cap_sol as number) * 150, 6);
        expect(body.usd_reference).toMatchObject({ usd_per_sol: 150, source: 'config' });
      }
    }
    expect(Object.keys(bySubject).sort()).toEqual(['basic.bonk', 'basic.pumpfun', 'premium.pumpswap', 'premium.raydium']);
    expect(derived).toBeGreaterThan(0);

    // The same copy published again (same Nats-Msg-Id) is dropped by the duplicate window.
    const last = await jsm.streams.getMessage(TRADES_STREAM, { seq: info.state.last_seq });
    const { jetstream } = await import('@nats-io/jetstream');
    const ack = await jetstream(nc).publish(last!.subject, last!.data, { msgID: last!.header.get('Nats-Msg-Id') });
    expect(ack.duplicate).toBe(true);
    expect((await jsm.streams.info(TRADES_STREAM)).state.messages).toBe(perPass * 2);
  });
});
