/**
 * `npm run decode` prints what the stream carries: a real recorded Pump.fun BUY decoded by the CLI gives the
 * message ingest publishes on TRADES for the same transaction — the derived fields included — when the real
 * ingest replays it (createApp, INGEST_SOURCE=replay, a private nats-server). Only the replay markers
 * (`replayed`, `replay_loop`, `replayed_at_ms`) and the configured SOL/USD fallback's `observed_at_ms` (when
 * each process started with it) differ.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Registry } from 'prom-client';
import { jetstream } from '@nats-io/jetstream';
import { TRADES_STREAM } from '@tradewind/contracts';
import { startNatsServer, type TestNatsServer } from '@tradewind/dev';
import { createApp } from '@tradewind/ingest';
import { connectNats, createLogger, type NatsConnection } from '@tradewind/lib';

const repo = fileURLToPath(new URL('../..', import.meta.url));
/** A real pump.fun BUY (2025 TradeEvent, no CREATE in the transaction): recording/SOURCES.md. */
const BUY = join(repo, 'services/ingest/recording/pumpfun/2ghHZXwyU6K1Q8KMJbLJg37ktmyctKmdzzZKGDvHk1MR865dDYyo8SfrKvmvijT43P6hdu6ozPtATiMeg2STszhc.json');
const SOL_USD = 150.5;
const DERIVED = ['market_cap_sol', 'bonding_curve_progress', 'price_usd', 'market_cap_usd', 'usd_reference'];

let nats: TestNatsServer;
let nc: NatsConnection;
const dir = mkdtempSync(join(tmpdir(), 'decode-cli-stream-'));

beforeAll(async () => {
  nats = await startNatsServer();
  nc = await connectNats({ url: nats.url, name: 'decode-cli-stream-test' });
});

afterAll(async () => {
  await nc?.close();
  await nats?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** What ingest publishes on TRADES when it replays `dir` once with SOL_USD_FALLBACK = `solUsd`. */
async function published(solUsd: number | undefined): Promise<Array<Record<string, unknown>>> {
  const app = createApp(
    {
      INGEST_SOURCE: 'replay',
      LETSBONK_PLATFORM_CONFIGS: ['FfYek5vEz23cMkWsdJwG2oa6EphsvXSHrGpdALN4g6W1'],
      LIVE_CHECKPOINT_INTERVAL_MS: 1000,
      REPLAY_DIR: dir,
      REPLAY_TRANSACTIONS_PER_SECOND: 1000,
      REPLAY_LOOP: false,
      TRADES_MAX_AGE_MS: 3_600_000,
      TRADES_DUPLICATE_WINDOW_MS: 120_000,
      TRADES_MAX_BYTES: 64 * 1024 * 1024,
      PUBLISH_MAX_BACKOFF_MS: 1000,
      SOL_USD_FALLBACK: solUsd,
    },
    { logger: createLogger({ service: 'ingest', level: 'silent' }), registry: new Registry(), nc },
  );
  await app.start();
  const js = jetstream(nc);
  const out: Array<Record<string, unknown>> = [];
  try {
    const consumer = await js.consumers.get(TRADES_STREAM);
    const messages = await consumer.fetch({ max_messages: 1, expires: 10_000 });
    for await (const m of messages) out.push(m.json<Record<string, unknown>>());
  } finally {
    await app.stop();
    await (await js.jetstreamManager()).streams.delete(TRADES_STREAM);
  }
  return out;
}

/** Runs the CLI on `args` with `env` added to the environment. */
function cli(args: string[], env: Record<string, string> = {}): { messages: Array<Record<string, unknown>>; stderr: string; status: number | null } {
  const r = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/decode.ts', ...args], {
    cwd: repo,
    encoding: 'utf8',
    timeout: 60_000,
    env: { ...process.env, ...env },
  });
  const lines = r.stdout.trimEnd().split('\n').filter(Boolean);
  return { messages: lines.map((l) => JSON.parse(l) as Record<string, unknown>), stderr: r.stderr, status: r.status };
}

/** The message without the replay markers ingest adds to a replayed copy. */
function withoutReplayMarkers(m: Record<string, unknown>): Record<string, unknown> {
  const { replayed: _r, replay_loop: _l, replayed_at_ms: _a, ...rest } = m;
  return rest;
}

describe('npm run decode against what ingest publishes', () => {
  beforeAll(() => copyFileSync(BUY, join(dir, 'buy.json')));

  it('when a real pump.fun BUY is decoded by the CLI and replayed by ingest with the same SOL/USD fallback, then the CLI prints the published message, derived fields included', async () => {
    const [stream] = await published(SOL_USD);
    expect(stream).toMatchObject({ source: 'pumpfun', transaction_type: 'BUY', replayed: true });
    for (const f of DERIVED) expect(stream, f).toHaveProperty(f);
    const run = cli([BUY], { SOL_USD_FALLBACK: String(SOL_USD) });
    expect(run.status).toBe(0);
    expect(run.stderr).toBe('');
    expect(run.messages).toHaveLength(1);
    const printed = run.messages[0]!;
    // Each process stamps its own start time on a configured fallback rate (source "config").
    const streamRef = stream!.usd_reference as Record<string, unknown>;
    const printedRef = printed.usd_reference as Record<string, unknown>;
    expect(printedRef).toEqual({ ...streamRef, observed_at_ms: printedRef.observed_at_ms });
    expect(streamRef).toMatchObject({ usd_per_sol: SOL_USD, source: 'config' });
    // Everything else, key order included.
    const sameRef = { ...printed, usd_reference: streamRef };
    expect(JSON.stringify(sameRef)).toBe(JSON.stringify(withoutReplayMarkers(stream!)));
  });

  it('when no SOL/USD rate is known to either, then both leave the USD fields out, agree on the rest, and the CLI says on stderr which fields it left out and why', async () => {
    const [stream] = await published(undefined);
    const run = cli([BUY]);
    expect(run.status).toBe(0);
    expect(run.messages).toEqual([withoutReplayMarkers(stream!)]);
    const printed = run.messages[0]!;
    expect(printed.market_cap_sol).toBeGreaterThan(0);
    expect(printed.bonding_curve_progress).toBeGreaterThan(0);
    for (const f of ['price_usd', 'market_cap_usd', 'usd_reference']) expect(printed, f).not.toHaveProperty(f);
    const notes = run.stderr.trimEnd().split('\n');
    expect(notes).toHaveLength(1);
    expect(notes[0]).toMatch(/^note: price_usd, market_cap_usd, usd_reference left out of the messages: no SOL\/USD rate was known/);
    expect(notes[0]).toContain('SOL_USD_FALLBACK');
  });
});
