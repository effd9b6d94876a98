/** ingest configuration; every limit is named here with its default. */
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { CommonConfig, StreamReplicas, Port, PositiveInt, defaultPort, loadConfig, natsServerUrls, urlWithScheme } from '@tradewind/lib';
import { DEFAULT_LETSBONK_PLATFORM_CONFIGS } from './decode/program.js';
import { DEFAULT_TOKEN_NAME_CACHE_MAX_ENTRIES } from './decode/token-names.js';
import { DEFAULT_LAUNCHLAB_SUPPLY_CACHE_MAX_ENTRIES } from './decode/pool-supplies.js';
import { DEFAULT_SOL_USD_MAX_STREAM_AGE_MS, DEFAULT_SOL_USD_MIN_SWAP_LAMPORTS, DEFAULT_SOL_USD_WINDOW_SIZE } from './decode/derived.js';
import { DEFAULT_BACKOFF } from './live/source.js';
import { DEFAULT_SLOT_TRACK_MAX } from './live/slot-tracker.js';

/**
 * Default publish window (PUBLISH_MAX_IN_FLIGHT), trades: measured with `npm run bench -- ingest --publish-window
 * 64,256,1024` on 29 Nov 2026 (docs/performance.md, "Ingest publishing"): on a local 3-node cluster with TRADES at
 * R3, 1,024 stored 6,804 trades/s against 5,388 with 256 and 4,351 with 64; on one server (R1) 256 and 1,024 were
 * equal. At about 2 KB a trade the window holds about 2 MB.
 */
export const DEFAULT_PUBLISH_MAX_IN_FLIGHT = 1_024;
/**
 * Default PUBLISH_ACK_TIMEOUT_MS, from measurement: `npm run bench -- ingest` (window 1,024, replay at 100,000 tx/s,
 * ingest and nats-server both saturated on 2 cores, 2026-11-29) saw every acknowledgement within 0.5 s at R1 and
 * 0.25 s at R3 (tradewind_ingest_publish_ack_seconds, p99.9 = max bucket); 2 s is 4× the worst. It is only the
 * fallback for a lost answer nothing announces (a stalled link): a leader election or a reconnect re-sends at
 * once (OrderedPublisher.kick, docs/reliability.md). nats.js' own default is 5 s.
 */
export const DEFAULT_PUBLISH_ACK_TIMEOUT_MS = 2_000;

/**
 * Default PUBLISH_STAGED_ID_STEPDOWN_MS: 2000. A staged id (docs/reliability.md "Which nats-server") stalls ingest for
 * up to the duplicate window (2 min) while the same node leads; one step-down clears it
 * (scripts/test/nats-server-staged-id.int.test.ts: stored 1.5 s after the first staged answer with 1000). It was off
 * until the publisher went serial while another writer is seen (PUBLISH_CONTENTION_HOLD_MS): before that, two ingests
 * writing at once refused each other's re-sends on every new leader, and `npm run chaos` (29–30 Nov, 1000) saw a
 * step-down every 1–2 s for a minute. 2000 leaves a leader that has just taken over two seconds to apply its
 * predecessor's entries (an id whose proposal is in flight answers "seq 0" too) before it is asked to go.
 */
export const DEFAULT_PUBLISH_STAGED_ID_STEPDOWN_MS = 2_000;

/**
 * Default PUBLISH_CONTENTION_HOLD_MS: 30 s. Another writer on TRADES is a second ingest while a lease changes hands
 * (moments) or a deployment that runs two sources at once (for as long as both run): a writer seen again within the
 * hold keeps the publisher serial, and one that writes less often than this costs one refused expectation (and one
 * step-down) per write. Serial costs throughput (one round trip per trade) only while the other writer writes.
 */
export const DEFAULT_PUBLISH_CONTENTION_HOLD_MS = 30_000;
/** Default PUBLISH_DRAIN_TIMEOUT_MS: half of the default SHUTDOWN_DEADLINE_MS (10 s). */
export const DEFAULT_PUBLISH_DRAIN_TIMEOUT_MS = 5_000;

/**
 * Default INGEST_LEASE_MS (issue 31: failover in seconds). It trades how long a killed leader's lease keeps its
 * standby waiting (5 s plus up to one renewal period) against how long a leader may fail to reach JetStream
 * before it steps down (INGEST_LEASE_MS − INGEST_LEASE_RENEW_MS ≈ 3.3 s with the default renewal period), so a
 * short NATS reconnect does not cause a failover.
 */
export const DEFAULT_INGEST_LEASE_MS = 5_000;

/** The bundled default recording: real mainnet transactions (see recording/SOURCES.md). */
export const BUNDLED_RECORDING_DIR = fileURLToPath(new URL('../recording', import.meta.url));

const Bool = z.enum(['true', 'false', '1', '0']).transform((v) => v === 'true' || v === '1');

export const IngestConfigSchema = CommonConfig.extend({
  ADMIN_PORT: Port.default(defaultPort('ingest', 'admin')),
  NATS_URL: natsServerUrls(`nats://127.0.0.1:${defaultPort('nats', 'nats')}`),
  /** Replicas of TRADES, which this service creates (default 1; 3 on the chart's 3-node NATS cluster). */
  NATS_STREAM_REPLICAS: StreamReplicas.default(1),
  /** Creds file of the services' user (TRADEWIND account); unset for a server without auth. */
  NATS_CREDS: z.string().min(1).optional(),
  /**
   * Source of transactions: `replay` (the bundled real mainnet recording, no network),
   * `yellowstone` (Yellowstone gRPC, YELLOWSTONE_ENDPOINT) or `rpc` (Solana RPC
   * WebSocket logsSubscribe + getTransaction, SOLANA_RPC_URL / SOLANA_WS_URL).
   */
  INGEST_SOURCE: z.enum(['replay', 'yellowstone', 'rpc']).default('replay'),
  /** Yellowstone (Geyser) gRPC endpoint, e.g. https://<provider>:443. Required when INGEST_SOURCE=yellowstone. */
  YELLOWSTONE_ENDPOINT: urlWithScheme(['http', 'https']).optional(),
  /** Yellowstone x-token (secret; sent as gRPC metadata `x-token`). */
  YELLOWSTONE_X_TOKEN: z.string().min(1).optional(),
  /**
   * Commitment of the Yellowstone stream (https://solana.com/docs/rpc#configuring-state-commitment); every
   * message it produces says it in `commitment`. Default = yellowstone.ts DEFAULT_YELLOWSTONE_COMMITMENT.
   */
  YELLOWSTONE_COMMITMENT: z.enum(['processed', 'confirmed', 'finalized']).default('processed'),
  /** Solana JSON-RPC HTTP endpoint for getTransaction / getSignaturesForAddress. Required when INGEST_SOURCE=rpc. */
  SOLANA_RPC_URL: urlWithScheme(['http', 'https']).optional(),
  /** Solana RPC WebSocket endpoint; default: SOLANA_RPC_URL with ws(s):// and, when it names a port, that port + 1 (8899 → 8900). */
  SOLANA_WS_URL: urlWithScheme(['ws', 'wss']).optional(),
  /**
   * Commitment of logsSubscribe / getSignaturesForAddress / getTransaction (processed is not accepted by
   * getTransaction); every message the RPC source produces says it in `commitment`.
   */
  RPC_COMMITMENT: z.enum(['confirmed', 'finalized']).default('confirmed'),
  /** getTransaction calls in flight at once (results are still handed on in notification order). */
  RPC_FETCH_CONCURRENCY: PositiveInt.max(256).default(16),
  /** getTransaction retries when the node answers null (it may trail the PubSub node by a slot). */
  RPC_GET_TRANSACTION_RETRIES: z.coerce.number().int().min(0).max(100).default(6),
  /** Wait between those retries, ms. */
  RPC_GET_TRANSACTION_RETRY_DELAY_MS: PositiveInt.default(500),
  /** Highest transaction version getTransaction is asked for (1: v1 / SIMD-0385 transactions exist on mainnet). */
  RPC_MAX_SUPPORTED_TRANSACTION_VERSION: z.coerce.number().int().min(0).max(1).default(1),
  /** WebSocket ping interval of the RPC source, ms. */
  RPC_PING_INTERVAL_MS: PositiveInt.default(10_000),
  /** Reconnect when nothing arrived on the RPC WebSocket for this long, ms. */
  RPC_IDLE_TIMEOUT_MS: PositiveInt.default(30_000),
  /** Deadline for the RPC WebSocket handshake and all subscriptions, ms. */
  RPC_CONNECT_TIMEOUT_MS: PositiveInt.default(10_000),
  /** Deadline of one HTTP JSON-RPC request, ms. */
  RPC_REQUEST_TIMEOUT_MS: PositiveInt.default(15_000),
  /** Transactions a Yellowstone stream may hold for ingest before it pauses reading (back-pressure). */
  YELLOWSTONE_QUEUE_MAX_TRANSACTIONS: PositiveInt.max(1_000_000).default(2_000),
  /** Reconnect when no Yellowstone update (not even a ping or slot) arrived for this long, ms. */
  YELLOWSTONE_IDLE_TIMEOUT_MS: PositiveInt.default(30_000),
  /** Also stream failed transactions (they decode to nothing; off saves bandwidth). */
  LIVE_INCLUDE_FAILED: Bool.default(false),
  /** Slot to start from when no checkpoint exists (default: the chain tip). */
  LIVE_FROM_SLOT: z.coerce.number().int().nonnegative().optional(),
  /** First reconnect delay of a live source, ms; doubles per failed attempt up to LIVE_RECONNECT_MAX_MS. */
  LIVE_RECONNECT_INITIAL_MS: PositiveInt.default(DEFAULT_BACKOFF.initialMs),
  /** Longest reconnect delay of a live source, ms. */
  LIVE_RECONNECT_MAX_MS: PositiveInt.default(DEFAULT_BACKOFF.maxMs),
  /** How often the live source's resume point is written to JetStream KV `ingest_checkpoints`, ms. */
  LIVE_CHECKPOINT_INTERVAL_MS: PositiveInt.default(1_000),
  /**
   * Slots whose trades and statuses a live source's slot messages keep track of at most (src/live/slot-tracker.ts);
   * the oldest are forgotten past it. Default DEFAULT_SLOT_TRACK_MAX (4,096 ≈ 27 min of chain).
   */
  INGEST_SLOT_TRACK_MAX: PositiveInt.default(DEFAULT_SLOT_TRACK_MAX),
  /**
   * LaunchLab PlatformConfig accounts that are LetsBonk.fun (comma-separated base58), setting
   * `is_letsbonk` on basic.bonk messages. Default: FfYek5vEz23cMkWsdJwG2oa6EphsvXSHrGpdALN4g6W1,
   * the config LetsBonk.fun launches pass (see docs/decoding.md for the sources).
   */
  LETSBONK_PLATFORM_CONFIGS: z
    .string()
    .default(DEFAULT_LETSBONK_PLATFORM_CONFIGS.join(','))
    .transform((v) =>
      v
        .split(',')
        .map((x) => x.trim())
        .filter(Boolean),
    )
    .pipe(z.array(z.string().regex(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/, 'not a base58 address')).min(1)),
  /**
   * Mints whose name and symbol (from pump.fun CREATEs) ingest remembers for later trades of the token
   * (`symbol`, basic.pumpfun `data.symbol`); least recently used forgotten first. Default: decode/token-names.ts
   * DEFAULT_TOKEN_NAME_CACHE_MAX_ENTRIES (100 000, about 30 MB).
   */
  TOKEN_NAME_CACHE_MAX_ENTRIES: PositiveInt.max(10_000_000).default(DEFAULT_TOKEN_NAME_CACHE_MAX_ENTRIES),
  /**
   * LaunchLab pools whose supply (from the pool's CREATE) ingest remembers, so the pool's later trades carry
   * `market_cap_sol` (basic.bonk); least recently used forgotten first. Default: decode/pool-supplies.ts
   * DEFAULT_LAUNCHLAB_SUPPLY_CACHE_MAX_ENTRIES (100 000 pools, about 20 MB).
   */
  LAUNCHLAB_SUPPLY_CACHE_MAX_ENTRIES: PositiveInt.max(10_000_000).default(DEFAULT_LAUNCHLAB_SUPPLY_CACHE_MAX_ENTRIES),
  /**
   * SOL/USD rate (US dollars per SOL) used for price_usd / market_cap_usd when no WSOL/USDC or WSOL/USDT swap
   * newer than SOL_USD_MAX_AGE_MS was decoded; unset = no USD fields until one is (never a made-up rate).
   */
  SOL_USD_FALLBACK: z.coerce.number().positive().optional(),
  /** Stable-pair swaps moving less SOL than this are not used for the SOL/USD rate (dust rounds badly and is cheap to skew). */
  SOL_USD_MIN_SWAP_SOL: z.coerce
    .number()
    .positive()
    .default(Number(DEFAULT_SOL_USD_MIN_SWAP_LAMPORTS) / 1e9),
  /** The stream SOL/USD rate is the median of this many latest qualifying swaps. */
  SOL_USD_WINDOW: PositiveInt.max(1000).default(DEFAULT_SOL_USD_WINDOW_SIZE),
  /** A stream SOL/USD rate whose newest swap is older than this (ms) is not used; SOL_USD_FALLBACK is, if set. */
  SOL_USD_MAX_AGE_MS: PositiveInt.default(DEFAULT_SOL_USD_MAX_STREAM_AGE_MS),
  /** Directory of recorded getTransaction results (*.json), read recursively. */
  REPLAY_DIR: z.string().min(1).default(BUNDLED_RECORDING_DIR),
  /** Replay pace in transactions per second (each transaction's trades are published together). */
  REPLAY_TRANSACTIONS_PER_SECOND: z.coerce.number().positive().max(100_000).default(3),
  /** Start again from the first transaction after the last one. */
  REPLAY_LOOP: Bool.default(true),
  /**
   * Publish a slot status message on `slots` after the last replayed trade of each recorded slot, with the
   * recording's commitment (`confirmed`: getTransaction's; @tradewind/contracts slots.ts), marked replayed
   * (default false: the decode and ingest benchmarks count trades only; `npm start` turns it on).
   */
  REPLAY_SLOT_STATUS: Bool.default(false),
  /** TRADES retention in ms (docs/architecture.md §5 default 24 h): what Pro replay can read. */
  TRADES_MAX_AGE_MS: PositiveInt.default(24 * 60 * 60 * 1000),
  /** Nats-Msg-Id duplicate window of TRADES in ms. */
  TRADES_DUPLICATE_WINDOW_MS: PositiveInt.default(2 * 60 * 1000),
  /** Upper bound on TRADES bytes; oldest trades are dropped first. */
  TRADES_MAX_BYTES: PositiveInt.default(1024 ** 3),
  /** Longest wait between publish retries while NATS is unreachable, ms. */
  PUBLISH_MAX_BACKOFF_MS: PositiveInt.default(5_000),
  /**
   * Trades handed to the publisher and not yet acknowledged by TRADES, at most (the publish window, src/publisher.ts).
   * When it is full ingest stops reading its source. Default {@link DEFAULT_PUBLISH_MAX_IN_FLIGHT}.
   */
  PUBLISH_MAX_IN_FLIGHT: PositiveInt.max(65_536).default(DEFAULT_PUBLISH_MAX_IN_FLIGHT),
  /** How long one publish attempt waits for TRADES' acknowledgement before the window is re-sent, ms. Default {@link DEFAULT_PUBLISH_ACK_TIMEOUT_MS} (measured). */
  PUBLISH_ACK_TIMEOUT_MS: PositiveInt.default(DEFAULT_PUBLISH_ACK_TIMEOUT_MS),
  /**
   * The staged-id remedy (src/publisher.ts OrderedPublisherOptions.stagedIdStepdownMs), ms; 0 = off: when TRADES
   * answered every publish for this long with "duplicate, seq 0" / 10158 (a message id staged by nats-server, nothing
   * stored), ingest asks TRADES' leader to step down. Default {@link DEFAULT_PUBLISH_STAGED_ID_STEPDOWN_MS}.
   */
  PUBLISH_STAGED_ID_STEPDOWN_MS: z.coerce.number().int().min(0).default(DEFAULT_PUBLISH_STAGED_ID_STEPDOWN_MS),
  /**
   * How long ingest publishes serially (one trade in flight, no chained expectations) after it last saw another writer
   * on TRADES, ms; 0 = never (src/publisher.ts OrderedPublisherOptions.contentionHoldMs). Default
   * {@link DEFAULT_PUBLISH_CONTENTION_HOLD_MS}.
   */
  PUBLISH_CONTENTION_HOLD_MS: z.coerce.number().int().min(0).default(DEFAULT_PUBLISH_CONTENTION_HOLD_MS),
  /** On shutdown, how long ingest waits for the trades already taken from the source to be acknowledged, ms (less than SHUTDOWN_DEADLINE_MS). */
  PUBLISH_DRAIN_TIMEOUT_MS: PositiveInt.default(DEFAULT_PUBLISH_DRAIN_TIMEOUT_MS),
  /**
   * Leader lease of the source (src/leader-lease.ts, JetStream KV `ingest_leader`, key INGEST_SOURCE), ms: only
   * the holder publishes; a standby takes over when the holder has not renewed it for this long (a holder that
   * was killed), or at once when the holder releases it (a graceful stop). Default {@link DEFAULT_INGEST_LEASE_MS}.
   */
  INGEST_LEASE_MS: PositiveInt.min(100).default(DEFAULT_INGEST_LEASE_MS),
  /**
   * How often the leader renews its lease, ms; less than INGEST_LEASE_MS. A leader that could not renew for
   * INGEST_LEASE_MS − INGEST_LEASE_RENEW_MS stops publishing by itself. Default: INGEST_LEASE_MS / 3 (src/leader-lease.ts defaultRenewMs).
   */
  INGEST_LEASE_RENEW_MS: PositiveInt.optional(),
});

export type IngestConfig = z.infer<typeof IngestConfigSchema>;

/** Cross-field rules the per-key schema cannot express. */
const IngestConfigChecked = IngestConfigSchema.superRefine((c, ctx) => {
  if (c.INGEST_SOURCE === 'yellowstone' && !c.YELLOWSTONE_ENDPOINT) {
    ctx.addIssue({ code: 'custom', path: ['YELLOWSTONE_ENDPOINT'], message: 'required when INGEST_SOURCE=yellowstone' });
  }
  if (c.INGEST_SOURCE === 'rpc' && !c.SOLANA_RPC_URL) {
    ctx.addIssue({ code: 'custom', path: ['SOLANA_RPC_URL'], message: 'required when INGEST_SOURCE=rpc' });
  }
  if (c.PUBLISH_DRAIN_TIMEOUT_MS >= c.SHUTDOWN_DEADLINE_MS) {
    ctx.addIssue({ code: 'custom', path: ['PUBLISH_DRAIN_TIMEOUT_MS'], message: `must be less than SHUTDOWN_DEADLINE_MS (${c.SHUTDOWN_DEADLINE_MS} ms)` });
  }
  if (c.INGEST_LEASE_RENEW_MS !== undefined && c.INGEST_LEASE_RENEW_MS >= c.INGEST_LEASE_MS) {
    ctx.addIssue({ code: 'custom', path: ['INGEST_LEASE_RENEW_MS'], message: `must be less than INGEST_LEASE_MS (${c.INGEST_LEASE_MS} ms)` });
  }
  if (c.LIVE_RECONNECT_MAX_MS < c.LIVE_RECONNECT_INITIAL_MS) {
    ctx.addIssue({ code: 'custom', path: ['LIVE_RECONNECT_MAX_MS'], message: 'must be ≥ LIVE_RECONNECT_INITIAL_MS' });
  }
});

/** Parses the environment. @throws ConfigError listing every bad key. */
export function loadIngestConfig(env: NodeJS.ProcessEnv = process.env): Readonly<IngestConfig> {
  return loadConfig(IngestConfigChecked, env);
}
