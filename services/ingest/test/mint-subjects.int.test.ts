/**
 * Per-mint subjects against a real nats-server with JetStream (a private one, with its monitoring port, so
 * this file neither touches the machine's TRADES on :4222 nor is disturbed by other files): what ingest
 * stores, what it copies to `<subject>.mint.<mint>`, and the bytes a one-mint subscriber saves, measured by
 * the server (`/connz` out_bytes) over replays of the bundled recording (figures in docs/nats.md).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Registry } from 'prom-client';
import { jetstream, jetstreamManager, type JetStreamManager } from '@nats-io/jetstream';
import type { Msg } from '@nats-io/transport-node';
import { TRADES_STREAM, TRADE_PUBLISHED_MS_HEADER, mintSubject } from '@tradewind/contracts';
import { connectNats, createLogger, ensureTradesStream, type NatsConnection } from '@tradewind/lib';
import { freePort, waitForPort } from '@tradewind/dev';
import { createApp } from '../src/app.js';
import { BUNDLED_RECORDING_DIR } from '../src/config.js';
import { subjectOf, type TradeMessage } from '../src/decode/index.js';
import { mintSubjectsOf } from '../src/mint-subjects.js';
import { OrderedPublisher, publisherMetrics } from '../src/publisher.js';
import { loadRecording, type RecordedTransaction } from '../src/replay/recording.js';
import { replay } from '../src/replay/replay-source.js';

/** Passes over the recording in the measurement (each pass: every recorded trade once, a fresh Nats-Msg-Id). */
const MEASURE_PASSES = Number(process.env.MINT_MEASURE_PASSES ?? 50);

let child: ChildProcess;
let storeDir: string;
let url: string;
let monitorUrl: string;
let nc: NatsConnection;
let jsm: JetStreamManager;
let transactions: RecordedTransaction[];
const opened: NatsConnection[] = [];
const logger = createLogger({ service: 'ingest', level: 'silent' });

beforeAll(async () => {
  storeDir = await mkdtemp(join(tmpdir(), 'tw-mint-'));
  const [port, monitorPort] = [await freePort(), await freePort()];
  child = spawn('nats-server', ['-js', '-a', '127.0.0.1', '-p', String(port), '-m', String(monitorPort), '-sd', storeDir], {
    stdio: 'ignore',
    env: { ...process.env, PATH: `${process.env.PATH ?? ''}:/usr/sbin:/usr/local/bin` },
  });
  await waitForPort(port, '127.0.0.1', 10_000);
  await waitForPort(monitorPort, '127.0.0.1', 10_000);
  url = `nats://127.0.0.1:${port}`;
  monitorUrl = `http://127.0.0.1:${monitorPort}`;
  nc = await connectNats({ url, name: 'ingest' });
  jsm = await jetstreamManager(nc);
  ({ transactions } = await loadRecording(BUNDLED_RECORDING_DIR));
});

afterAll(async () => {
  for (const c of opened) await c.close().catch(() => undefined);
  await nc?.close();
  if (child && child.exitCode === null) {
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    await exited;
  }
  await rm(storeDir, { recursive: true, force: true });
});

async function connection(name: string): Promise<NatsConnection> {
  const c = await connectNats({ url, name });
  opened.push(c);
  return c;
}

/** A fresh, empty TRADES (the stream's own config: exact subjects). */
async function freshTrades(): Promise<void> {
  await jsm.streams.delete(TRADES_STREAM).catch(() => undefined);
  await ensureTradesStream(jsm, { maxAgeMs: 3_600_000, duplicateWindowMs: 120_000, maxBytes: 256 * 1024 * 1024 });
}

/** Copies seen on every per-mint subject (`<a>.<b>.mint.<mint>`). */
async function watchCopies(): Promise<{ copies: Msg[]; nc: NatsConnection }> {
  const watcher = await connection('copies-watcher');
  const copies: Msg[] = [];
  watcher.subscribe('*.*.mint.*', {
    callback: (_err, m) => {
      copies.push(m);
    },
  });
  await watcher.flush();
  return { copies, nc: watcher };
}

interface ConnzEntry {
  name?: string;
  in_bytes: number;
  out_bytes: number;
  in_msgs: number;
  out_msgs: number;
}
async function connz(): Promise<Map<string, ConnzEntry>> {
  const body = (await (await fetch(`${monitorUrl}/connz?limit=1000`)).json()) as { connections: ConnzEntry[] };
  return new Map(body.connections.filter((c) => c.name).map((c) => [c.name!, c]));
}

const headerOf = (m: Msg, key: string) => m.headers?.get(key) ?? '';

describe('ingest copies each trade to its per-mint subjects', () => {
  it('when the recording is published, then TRADES stores each trade once on its exact subject and each mint subject gets the same bytes and headers', async () => {
    await freshTrades();
    const { copies, nc: watcher } = await watchCopies();
    const registry = new Registry();
    const app = createApp(
      {
        INGEST_SOURCE: 'replay',
        LETSBONK_PLATFORM_CONFIGS: ['FfYek5vEz23cMkWsdJwG2oa6EphsvXSHrGpdALN4g6W1'],
        LIVE_CHECKPOINT_INTERVAL_MS: 1000,
        REPLAY_DIR: BUNDLED_RECORDING_DIR,
        REPLAY_TRANSACTIONS_PER_SECOND: 1000,
        REPLAY_LOOP: false,
        TRADES_MAX_AGE_MS: 3_600_000,
        TRADES_DUPLICATE_WINDOW_MS: 120_000,
        TRADES_MAX_BYTES: 256 * 1024 * 1024,
        PUBLISH_MAX_BACKOFF_MS: 1000,
      },
      { logger, registry, nc },
    );
    await app.start();
    await app.done();
    await nc.flush();
    await watcher.flush();

    const perPass = transactions.reduce((n, t) => n + t.trades.length, 0);
    const info = await jsm.streams.info(TRADES_STREAM);
    // One stored message per trade: the copies are core NATS messages the stream's exact subjects do not capture.
    expect(info.state.messages).toBe(perPass);
    expect([...info.config.subjects].sort()).toEqual(['basic.bonk', 'basic.pumpfun', 'premium.pumpswap', 'premium.raydium', 'slots']);
    const someCopy = copies[0]!.subject;
    await expect(jsm.streams.find(someCopy)).rejects.toThrow(/no stream matches subject/);

    const byMsgId = new Map<string, Msg[]>();
    for (const c of copies) byMsgId.set(headerOf(c, 'Nats-Msg-Id'), [...(byMsgId.get(headerOf(c, 'Nats-Msg-Id')) ?? []), c]);
    let expectedCopies = 0;
    for (let seq = info.state.first_seq; seq <= info.state.last_seq; seq++) {
      const stored = (await jsm.streams.getMessage(TRADES_STREAM, { seq }))!;
      const body = stored.json<TradeMessage>();
      const expected = mintSubjectsOf(subjectOf(body), body);
      expect(expected.length).toBeGreaterThan(0);
      expectedCopies += expected.length;
      const mine = byMsgId.get(stored.header.get('Nats-Msg-Id')) ?? [];
      expect(mine.map((m) => m.subject).sort()).toEqual([...expected].sort());
      for (const m of mine) {
        expect(m.subject.startsWith(`${stored.subject}.mint.`)).toBe(true);
        expect(Buffer.from(m.data).equals(Buffer.from(stored.data))).toBe(true);
        expect(headerOf(m, TRADE_PUBLISHED_MS_HEADER)).toBe(stored.header.get(TRADE_PUBLISHED_MS_HEADER));
        expect([...m.headers!.keys()].sort()).toEqual(['Nats-Msg-Id', TRADE_PUBLISHED_MS_HEADER]);
      }
    }
    expect(copies.length).toBe(expectedCopies);
    const metric = await registry.getSingleMetric('tradewind_ingest_mint_copies_published_total')!.get();
    expect(metric.values.reduce((n, v) => n + v.value, 0)).toBe(expectedCopies);
  });

  it('when an attempt fails (no TRADES yet) and is retried, then every attempt is copied with the same Nats-Msg-Id and TRADES stores the trade once', async () => {
    await jsm.streams.delete(TRADES_STREAM).catch(() => undefined);
    const { copies, nc: watcher } = await watchCopies();
    const trade = transactions.flatMap((t) => t.trades).find((t) => subjectOf(t) === 'basic.pumpfun')!;
    const outgoing = { subject: subjectOf(trade), msgId: 'retry-test:0', message: trade };
    const metrics = publisherMetrics(new Registry());
    const abort = new AbortController();
    const publisher = new OrderedPublisher({
      js: jetstream(nc),
      nc,
      logger,
      metrics,
      maxInFlight: 16,
      ackTimeoutMs: 5_000,
      maxBackoffMs: 200,
      signal: abort.signal,
    });
    expect(await publisher.enqueue([outgoing])).toBe(true);
    // The first attempt finds no stream (no responders) and is retried after 100 ms.
    await expect.poll(async () => (await metrics.errors.get()).values[0]?.value ?? 0, { timeout: 5000 }).toBeGreaterThanOrEqual(1);
    await freshTrades();
    expect(await publisher.drained()).toBe(true);
    abort.abort();
    expect((await metrics.published.get()).values.reduce((n, v) => n + v.value, 0)).toBe(1);
    await watcher.flush();
    expect(copies.length).toBeGreaterThanOrEqual(2);
    expect(new Set(copies.map((c) => c.subject))).toEqual(new Set([mintSubject('basic.pumpfun', String(trade.mint))]));
    expect(new Set(copies.map((c) => headerOf(c, 'Nats-Msg-Id')))).toEqual(new Set(['retry-test:0']));
    expect((await jsm.streams.info(TRADES_STREAM)).state.messages).toBe(1);
  });

  it(`when ${MEASURE_PASSES} passes of the recording are published, then a one-mint subscriber receives only that mint's trades and a fraction of the subject's bytes`, async () => {
    await freshTrades();
    const pumpfun = transactions.flatMap((t) => t.trades).filter((t) => subjectOf(t) === 'basic.pumpfun');
    const perMint = new Map<string, number>();
    for (const t of pumpfun) perMint.set(String(t.mint), (perMint.get(String(t.mint)) ?? 0) + 1);
    // The mint with the most pump.fun trades in the recording: the least favourable case for the saving.
    const [mint, mintTrades] = [...perMint].sort((a, b) => b[1] - a[1])[0]!;

    const all = await connection('all-basic.pumpfun');
    const one = await connection('one-mint');
    const copiesOnly = await connection('every-mint-subject');
    const got = { all: 0, one: 0, otherMint: 0 };
    all.subscribe('basic.pumpfun', {
      callback: () => {
        got.all++;
      },
    });
    one.subscribe(mintSubject('basic.pumpfun', mint), {
      callback: (_e, m) => {
        got.one++;
        if (m.json<TradeMessage>().mint !== mint) got.otherMint++;
      },
    });
    copiesOnly.subscribe('*.*.mint.*', { callback: () => undefined });
    for (const c of [all, one, copiesOnly]) await c.flush();

    const js = jetstream(nc);
    /** Publishes MEASURE_PASSES passes of the recording through `copier`; returns the trades published. */
    const publishPasses = async (runId: string, copier: Pick<NatsConnection, 'publish'>): Promise<number> => {
      const metrics = publisherMetrics(new Registry());
      const abort = new AbortController();
      const publisher = new OrderedPublisher({
        js,
        nc: copier,
        logger,
        metrics,
        maxInFlight: 256,
        ackTimeoutMs: 5_000,
        maxBackoffMs: 1000,
        signal: abort.signal,
      });
      let n = 0;
      for await (const batch of replay(transactions, { transactionsPerSecond: 1_000_000, loop: true, signal: abort.signal, runId })) {
        if (batch[0]!.message.replay_loop >= MEASURE_PASSES) break;
        expect(await publisher.enqueue(batch)).toBe(true);
        n += batch.length;
      }
      expect(await publisher.drained()).toBe(true);
      expect((await metrics.published.get()).values.reduce((sum, v) => sum + v.value, 0)).toBe(n);
      abort.abort();
      await nc.flush();
      for (const c of [all, one, copiesOnly]) await c.flush();
      return n;
    };

    // Baseline: the same trades without copies (what ingest sent before per-mint subjects).
    const start = await connz();
    await publishPasses('baseline', { publish: () => undefined });
    const before = await connz();
    got.all = 0;
    got.one = 0;
    const trades = await publishPasses('measure', nc);
    const after = await connz();
    const delta = (name: string, key: 'out_bytes' | 'out_msgs' | 'in_bytes') => after.get(name)![key] - before.get(name)![key];
    const ingestBaseline = before.get('ingest')!.in_bytes - start.get('ingest')!.in_bytes;
    expect(before.get('every-mint-subject')!.out_msgs - start.get('every-mint-subject')!.out_msgs).toBe(0);

    expect(got.all).toBe(pumpfun.length * MEASURE_PASSES);
    expect(got.one).toBe(mintTrades * MEASURE_PASSES);
    expect(got.otherMint).toBe(0);
    expect(delta('one-mint', 'out_msgs')).toBe(got.one);
    const allBytes = delta('all-basic.pumpfun', 'out_bytes');
    const oneBytes = delta('one-mint', 'out_bytes');
    expect(oneBytes).toBeLessThan(allBytes * (mintTrades / pumpfun.length) * 1.2);
    expect(delta('ingest', 'in_bytes')).toBeGreaterThan(ingestBaseline);
    const figures = {
      trades_published: trades,
      basic_pumpfun_trades: got.all,
      mint,
      mint_trades: got.one,
      bytes_basic_pumpfun_subscriber: allBytes,
      bytes_one_mint_subscriber: oneBytes,
      one_mint_share_of_bytes: Number((oneBytes / allBytes).toFixed(4)),
      copies_sent_by_ingest: delta('every-mint-subject', 'out_msgs'),
      bytes_of_all_copies: delta('every-mint-subject', 'out_bytes'),
      ingest_bytes_to_server_without_copies: ingestBaseline,
      ingest_bytes_to_server_with_copies: delta('ingest', 'in_bytes'),
    };
    console.info(`per-mint subject measurement ${JSON.stringify(figures, null, 2)}`);
  });
});
