/**
 * Sizes, timings and limits of a soak run (`npm run soak`, scripts/soak/soak.ts, and the short soak in
 * `npm test`, scripts/reliability/chaos-soak.test.ts). Every limit is a named field with its default here.
 */
import { DEFAULT_GEYSER_RATE_PROFILE, type GeyserRateProfile } from '@tradewind/dev';
import { DEFAULT_MEMORY_GROWTH_LIMIT } from './rules.js';

/** 'full' for `npm run soak`, 'test' for the short run inside `npm test`. */
export type SoakScale = 'test' | 'full';

export interface SoakOptions {
  scale: SoakScale;
  /** Measured run from the first transaction the stand-in wrote to ingest's stream, ms. */
  runMs: number;
  /** The stand-in's rate profile. */
  profile: GeyserRateProfile;
  /** WebSocket clients (half of them filtered) and native NATS subscribers. */
  wsClients: number;
  nativeClients: number;
  /** Subscriber processes; the subscribers are spread over them in turn. */
  clientProcesses: number;
  /** Report interval, ms (60 000: "per minute"). */
  intervalMs: number;
  /** After an interval ends, wait this long for the subscribers' receipts of it to be judged before it is reported, ms. */
  reportSettleMs: number;
  /** Period of ingest /metrics scrapes (queue depth, reconnects), ms. */
  metricsSampleMs: number;
  /** After the run, the longest wait for ingest to store what the stand-in sent and for every subscriber to receive what it is owed, ms. */
  drainTimeoutMs: number;
  /** The stream counts as settled after its last sequence stayed the same this long (with ingest's queue empty), ms. */
  drainStableMs: number;
  /** Latency targets printed beside the figures (not failed on): chain-to-client p99, steady and burst, ms. */
  targetSteadyP99Ms: number;
  targetBurstP99Ms: number;
  /** Memory rule: largest RSS growth of a service process from the warm-up sample to the end. */
  memoryGrowthLimit: number;
  /** Redis for ws-fanout and token-price (token-price under a private key prefix, removed at the end). */
  redisUrl: string;
  /** ws-fanout's WS_WORKERS; undefined leaves its default (one per CPU). */
  wsWorkers?: number | undefined;
  /** A service must answer /readyz within this long of its start, ms. */
  serviceStartTimeoutMs: number;
  /** Subscribers connecting at once per process, attempt timeout (ms) and attempts. */
  connectConcurrency: number;
  connectTimeoutMs: number;
  connectAttempts: number;
  /** Wait before a closed subscriber reconnects (WebSocket: and resumes), ms. */
  reconnectDelayMs: number;
  /** Native subscribers owe the trades stored this long after their subscriptions were in place, ms. */
  nativeStartMarginMs: number;
  /** A native receipt whose Nats-Msg-Id matches no stored trade after this long is counted unexpected, ms. */
  unmatchedAfterMs: number;
  /** Nats-Msg-Ids of stored trades kept per subscriber process to match late or repeated native receipts. */
  nativeIdRetention: number;
  /** A stored trade waits at most this long for its send time from the stand-in's process, ms. */
  sendJoinHoldMs: number;
  /** Period of record batches to the subscriber processes, and of send batches from the stand-in's process, ms. */
  recordBatchMs: number;
  sendFlushMs: number;
  /** Matched sends kept for more trades of the same transaction, ms. */
  sendRetentionMs: number;
  /** Messages per pull of the harness's ordered consumer on TRADES. */
  storedBatchMessages: number;
  /** One request to a subscriber process, ms (connecting all its subscribers with retries included). */
  callTimeoutMs: number;
  /** Lifetime of the subscribers' user JWTs, s (the run must end inside it). */
  userTtlSeconds: number;
}

/** A short profile that still has a burst: 300 tx/s for 20 s, then 1,500 tx/s for 10 s. */
export const TEST_GEYSER_RATE_PROFILE: GeyserRateProfile = Object.freeze({
  steadyTxPerSecond: 300,
  burstTxPerSecond: 1_500,
  steadyMs: 8_000,
  burstMs: 5_000,
});

/** Sizes per scale; the timings shared by both follow. */
const SIZES: Record<SoakScale, Pick<SoakOptions, 'runMs' | 'profile' | 'wsClients' | 'nativeClients' | 'clientProcesses' | 'intervalMs' | 'drainTimeoutMs'>> = {
  full: {
    runMs: 30 * 60_000,
    profile: DEFAULT_GEYSER_RATE_PROFILE,
    wsClients: 1_000,
    nativeClients: 100,
    clientProcesses: 4,
    intervalMs: 60_000,
    drainTimeoutMs: 120_000,
  },
  // A little more than one profile cycle (so a full burst falls in it wherever ingest joined the chain), reported every 10 s.
  // One short cycle (8 s steady, 5 s burst): npm test's time budget; `npm run soak` is the measurement.
  test: { runMs: 14_000, profile: TEST_GEYSER_RATE_PROFILE, wsClients: 100, nativeClients: 10, clientProcesses: 2, intervalMs: 5_000, drainTimeoutMs: 20_000 },
};

/** The options of `scale`, with `overrides` applied. */
export function soakOptions(scale: SoakScale, overrides: Partial<SoakOptions> = {}): SoakOptions {
  return {
    scale,
    ...SIZES[scale],
    reportSettleMs: 3_000,
    metricsSampleMs: 5_000,
    drainStableMs: 2_000,
    targetSteadyP99Ms: 50,
    targetBurstP99Ms: 250,
    memoryGrowthLimit: DEFAULT_MEMORY_GROWTH_LIMIT,
    redisUrl: process.env.REDIS_URL ?? process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379',
    serviceStartTimeoutMs: 90_000,
    connectConcurrency: 50,
    connectTimeoutMs: 30_000,
    connectAttempts: 3,
    reconnectDelayMs: 1_000,
    nativeStartMarginMs: 1_000,
    unmatchedAfterMs: 30_000,
    nativeIdRetention: 500_000,
    sendJoinHoldMs: 5_000,
    recordBatchMs: 100,
    sendFlushMs: 20,
    sendRetentionMs: 60_000,
    storedBatchMessages: 1_024,
    callTimeoutMs: 4 * 30_000,
    userTtlSeconds: 24 * 3_600,
    ...overrides,
  };
}

const USAGE = 'usage: npm run soak -- [--minutes N] [--scale test|full] [--client-procs N] [--ws-workers N]';

/** Parses the command line. @throws Error with the usage on a bad argument. */
export function parseSoakArgs(argv: readonly string[]): SoakOptions {
  let scale: SoakScale = 'full';
  const overrides: Partial<SoakOptions> = {};
  const number = (flag: string, raw: string | undefined, min: number, max: number, integer: boolean) => {
    const v = Number(raw);
    if (raw === undefined || !Number.isFinite(v) || v < min || v > max || (integer && !Number.isInteger(v))) {
      throw new Error(`${flag} needs ${integer ? 'an integer' : 'a number'} from ${min} to ${max}\n${USAGE}`);
    }
    return v;
  };
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i]!;
    const value = argv[i + 1];
    if (flag === '--scale') {
      if (value !== 'test' && value !== 'full') throw new Error(`--scale is test or full\n${USAGE}`);
      scale = value;
    } else if (flag === '--minutes') overrides.runMs = number(flag, value, 0.1, 24 * 60, false) * 60_000;
    else if (flag === '--client-procs') overrides.clientProcesses = number(flag, value, 1, 32, true);
    else if (flag === '--ws-workers') overrides.wsWorkers = number(flag, value, 0, 64, true);
    else throw new Error(`unknown argument ${flag}\n${USAGE}`);
    i++;
  }
  return soakOptions(scale, overrides);
}
