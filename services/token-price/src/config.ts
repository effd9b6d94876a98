/** token-price configuration: every key validated at start; every limit named here with its default. */
import { z } from 'zod';
import { CommonConfig, Port, PositiveInt, defaultPort, loadConfig, optionalString, optionalUrl, natsServerUrls, urlWithScheme } from '@tradewind/lib';

const PositiveNumber = z.coerce.number().positive().finite();
const optionalPositiveNumber = z.preprocess((v) => (v === '' ? undefined : v), PositiveNumber.optional());

export const TokenPriceConfigSchema = CommonConfig.extend({
  ADMIN_PORT: Port.default(defaultPort('token-price', 'admin')),
  /** Public HTTP API: `GET /api/birdeye/tokens` (behind the ingress, deploy/routes.json). */
  PORT: Port.default(defaultPort('token-price', 'http')),
  HOST: z.string().min(1).default('0.0.0.0'),
  /** gRPC (`tradewind.v1.PriceService`); other services dial TOKEN_PRICE_ADDR=host:GRPC_PORT. */
  GRPC_PORT: Port.default(defaultPort('token-price', 'grpc')),
  NATS_URL: natsServerUrls(`nats://127.0.0.1:${defaultPort('nats', 'nats')}`),
  NATS_CREDS: optionalString,
  REDIS_URL: urlWithScheme(['redis', 'rediss']).default('redis://127.0.0.1:6379'),
  /** Prefix of every Redis key token-price writes. */
  TOKEN_PRICE_REDIS_PREFIX: z.string().min(1).default('tradewind:token-price:'),
  /**
   * Name prefix of token-price's consumers on TRADES (ordered consumers: ephemeral, one replica; a random part per
   * start and nats.js' serial follow it), so `nats consumer ls TRADES` shows whose they are.
   */
  TOKEN_PRICE_CONSUMER: z
    .string()
    .regex(/^[A-Za-z0-9_-]+$/, 'a consumer name (letters, digits, - and _)')
    .default('token-price'),
  /**
   * A consumer of token-price's that the server has not heard from for this long is deleted by the server, ms
   * (default 60 000): the one a restart replaced on a dead connection. Its replacement starts from Redis.
   */
  TOKEN_PRICE_CONSUMER_INACTIVE_MS: z.coerce.number().int().min(1_000).max(3_600_000).default(60_000),
  /** Messages pulled per request from TRADES. */
  TOKEN_PRICE_BATCH_MESSAGES: PositiveInt.default(256),
  /** Consumer lease in Redis, ms: one replica applies trades; another takes over this long after it dies. */
  TOKEN_PRICE_LEASE_MS: PositiveInt.default(15_000),
  /**
   * Wait before the consumer restarts after a Redis or NATS failure, ms (default 500), and the hedge of a start
   * attempt: one that has not started the consumer within this long (a JetStream request sent into a leader
   * election waits for its timeout) is joined by another, so a restart follows the broker's recovery within about
   * this (issue 31, docs/reliability.md).
   */
  TOKEN_PRICE_RETRY_DELAY_MS: PositiveInt.default(500),
  /**
   * Timeout of token-price's JetStream API requests (consumer info, delete, create; stream info), ms (default
   * 1 000, not nats.js' 5 000): a request sent into a leader election gets no answer, and each restart of the
   * consumer waited out the full timeout per request (npm run chaos: token-price 10–15 s behind the broker).
   */
  TOKEN_PRICE_API_TIMEOUT_MS: z.coerce.number().int().min(100).max(30_000).default(1_000),
  /**
   * Idle heartbeat of the TRADES consumer's pull requests, ms (default 1 000; nats.js clamps it to ≥ 500): two
   * missed restart the consumer from the stored position. TRADES' leader elections and reconnects restart it at once.
   */
  TOKEN_PRICE_IDLE_HEARTBEAT_MS: z.coerce.number().int().min(500).max(30_000).default(1_000),
  /**
   * How often the TRADES consumer is checked for silence, ms (default 2 000; 0 = never): one that applied nothing
   * since the previous check while TRADES holds newer messages is restarted from the stored position (the backstop
   * for a consumer that heartbeats but delivers nothing after a leader kill).
   */
  TOKEN_PRICE_STALL_CHECK_MS: z.coerce.number().int().min(0).max(600_000).default(2_000),
  /** Resolution of the 24 h window, ms: volume and the price 24 h ago are kept per bucket of this size. Must divide 24 h. */
  TOKEN_PRICE_BUCKET_MS: PositiveInt.default(60_000).refine((v) => (24 * 60 * 60 * 1000) % v === 0, 'must divide 24 h (86 400 000 ms)'),
  /** A token that stops trading is forgotten this long after its last trade, ms (Redis expiry; default 48 h). */
  TOKEN_PRICE_TOKEN_TTL_MS: PositiveInt.default(48 * 60 * 60 * 1000),
  /** Default and largest number of rows of GET /api/birdeye/tokens (`?limit=` may ask for 1 … max). */
  TOKENS_LIMIT: PositiveInt.default(20),
  TOKENS_MAX_LIMIT: PositiveInt.default(100),
  /** How long an answer is reused, ms (at most one second: the ticker is never staler than that). */
  TOKENS_CACHE_MS: z.coerce.number().int().min(0).max(1000).default(1000),
  /** SOL/USD to use when the stream has given none within SOL_USD_MAX_AGE_MS (USD per SOL). Unset: USD figures are null then. */
  SOL_USD_PRICE: optionalPositiveNumber,
  /** How long a SOL/USD observation from the stream stays in force, ms (replayed data: in the recording's chain time). */
  SOL_USD_MAX_AGE_MS: PositiveInt.default(10 * 60 * 1000),
  /** Smallest SOL reserve (SOL, after the trade) of a Raydium CPMM or PumpSwap WSOL/USDC or WSOL/USDT pool whose trades set SOL/USD. */
  SOL_USD_MIN_POOL_SOL: PositiveNumber.default(100),
  /**
   * Live trade tape `GET /api/trades/tape` (Server-Sent Events, docs/token-price.md "Trade tape"): the most events sent
   * to one client per second (default 4). When trades arrive faster the newest is sent and the rest are dropped; nothing
   * queues. A new client first gets up to this many of the latest events at once, its first second's share.
   */
  TAPE_MAX_EVENTS_PER_S: z.coerce.number().int().min(1).max(50).default(4),
  /** Open tape connections per process (default 1 000); more answer 429 resource_exhausted with Retry-After. */
  TAPE_MAX_CONNECTIONS: PositiveInt.default(1_000),
  /** Open tape connections per client address (the ingress's X-Forwarded-For entry; default 8); more answer 429. */
  TAPE_MAX_CONNECTIONS_PER_IP: PositiveInt.default(8),
  /** Retry-After of a refused tape connection, s (default 15). */
  TAPE_RETRY_AFTER_S: PositiveInt.default(15),
  /**
   * A comment line is sent on every tape connection this often, ms (default 15 000), so proxies that close idle
   * connections (ingress-nginx and the local ingress proxy: 60 s) keep it open and dead clients are noticed.
   */
  TAPE_HEARTBEAT_MS: z.coerce.number().int().min(1_000).max(55_000).default(15_000),
  /** A tape client with more than this many bytes not yet taken by its connection is dropped, bytes (default 65 536). */
  TAPE_MAX_BUFFERED_BYTES: z.coerce.number().int().min(1_024).max(16_777_216).default(65_536),
  /**
   * The tape's reader of TRADES (one ordered consumer per process, shared by every tape client) starts with the first
   * client and stops this long after the last one left, ms (default 30 000).
   */
  TAPE_READER_LINGER_MS: z.coerce.number().int().min(0).max(3_600_000).default(30_000),
  /** Birdeye API key: when set, Birdeye's token list is served first, falling back to our own figures. */
  BIRDEYE_API_KEY: optionalString,
  BIRDEYE_API_URL: optionalUrl(['http', 'https']),
  /** Birdeye request timeout, ms. */
  BIRDEYE_TIMEOUT_MS: PositiveInt.default(2_000),
  /** Solana JSON-RPC endpoint for the name, symbol and supply of tokens first seen mid-life. Unset: such tokens are shown by mint. */
  SOLANA_RPC_URL: optionalUrl(['http', 'https']),
  /** Metadata lookups: per-request timeout (ms), concurrent requests, queue bound, and the wait before a failed lookup is retried (ms). */
  METADATA_TIMEOUT_MS: PositiveInt.default(5_000),
  METADATA_CONCURRENCY: PositiveInt.default(2),
  METADATA_QUEUE_MAX: PositiveInt.default(10_000),
  METADATA_RETRY_MS: PositiveInt.default(10 * 60 * 1000),
});

export type TokenPriceConfig = z.infer<typeof TokenPriceConfigSchema>;

/** Parses the environment. @throws ConfigError listing every bad key. */
export function loadTokenPriceConfig(env: NodeJS.ProcessEnv = process.env): Readonly<TokenPriceConfig> {
  return loadConfig(TokenPriceConfigSchema, env);
}
