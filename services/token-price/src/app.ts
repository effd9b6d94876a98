/**
 * token-price: createApp(config, deps) → {start, stop}. No I/O on import; tests run it in-process
 * against real NATS (JetStream) and Redis.
 *
 * start(): the TRADES consumer (lease, position, ordered consumer) → HTTP `GET /api/birdeye/tokens` and
 * `GET /api/trades/tape` → gRPC `PriceService`. stop(): the tape's streams and reader, HTTP, gRPC, consumer
 * (releasing the lease), metadata queue.
 */
import { hostname } from 'node:os';
import { randomUUID } from 'node:crypto';
import { Counter, Gauge, type Registry } from 'prom-client';
import type { JetStreamClient, JetStreamManager } from '@nats-io/jetstream';
import { createHttpApp, startGrpcServer, type Logger, type NatsConnection } from '@tradewind/lib';
import type { TokenPriceConfig } from './config.js';
import type { BirdeyeClient } from './birdeye/birdeye.js';
import { createTapeReader } from './events/tape-reader.js';
import { createTradesConsumer } from './events/trades-consumer.js';
import { priceGrpcService } from './grpc/price-service.js';
import { registerRoutes } from './http/routes.js';
import { TapeHub } from './http/tape-hub.js';
import { createMetadataQueue } from './metadata/queue.js';
import type { MetadataResolver } from './metadata/solana-metadata.js';
import { TokenStore, type Redis } from './store/redis-store.js';
import { WINDOW_MS } from './domain/window.js';
import { createTicker } from './ticker.js';

export interface TokenPriceDeps {
  readonly logger: Logger;
  readonly registry: Registry;
  readonly redis: Redis;
  readonly js: JetStreamClient;
  readonly jsm: JetStreamManager;
  /** The connection of `js`/`jsm`: TRADES' leader elections and reconnects restart the consumer at once (docs/reliability.md); without it only missed heartbeats do. */
  readonly nc?: NatsConnection | undefined;
  /** Optional upstream (BIRDEYE_API_KEY). */
  readonly birdeye?: BirdeyeClient | undefined;
  /** Optional on-chain metadata (SOLANA_RPC_URL). */
  readonly metadata?: MetadataResolver | undefined;
  /** Clock, Unix ms (tests move it to roll the 24 h window). */
  readonly now?: () => number;
}

type AppConfig = Pick<
  TokenPriceConfig,
  | 'PORT'
  | 'HOST'
  | 'GRPC_PORT'
  | 'TOKEN_PRICE_REDIS_PREFIX'
  | 'TOKEN_PRICE_CONSUMER'
  | 'TOKEN_PRICE_CONSUMER_INACTIVE_MS'
  | 'TOKEN_PRICE_BATCH_MESSAGES'
  | 'TOKEN_PRICE_LEASE_MS'
  | 'TOKEN_PRICE_RETRY_DELAY_MS'
  | 'TOKEN_PRICE_IDLE_HEARTBEAT_MS'
  | 'TOKEN_PRICE_STALL_CHECK_MS'
  | 'TOKEN_PRICE_BUCKET_MS'
  | 'TOKEN_PRICE_TOKEN_TTL_MS'
  | 'TOKENS_LIMIT'
  | 'TOKENS_MAX_LIMIT'
  | 'TOKENS_CACHE_MS'
  | 'SOL_USD_PRICE'
  | 'SOL_USD_MAX_AGE_MS'
  | 'SOL_USD_MIN_POOL_SOL'
  | 'METADATA_CONCURRENCY'
  | 'METADATA_QUEUE_MAX'
  | 'METADATA_RETRY_MS'
  | 'TAPE_MAX_EVENTS_PER_S'
  | 'TAPE_MAX_CONNECTIONS'
  | 'TAPE_MAX_CONNECTIONS_PER_IP'
  | 'TAPE_RETRY_AFTER_S'
  | 'TAPE_HEARTBEAT_MS'
  | 'TAPE_MAX_BUFFERED_BYTES'
  | 'TAPE_READER_LINGER_MS'
>;

export function createApp(config: AppConfig, deps: TokenPriceDeps) {
  const log = deps.logger;
  const now = deps.now ?? Date.now;
  const registry = deps.registry;
  const store = new TokenStore(deps.redis, {
    prefix: config.TOKEN_PRICE_REDIS_PREFIX,
    windowMs: WINDOW_MS,
    bucketMs: config.TOKEN_PRICE_BUCKET_MS,
    tokenTtlMs: config.TOKEN_PRICE_TOKEN_TTL_MS,
  });
  const lookups = new Counter({
    name: 'tradewind_token_price_metadata_lookups_total',
    help: 'On-chain metadata lookups of tokens first seen mid-life, by outcome',
    labelNames: ['outcome'],
    registers: [registry],
  });
  const metadata = deps.metadata
    ? createMetadataQueue({
        resolver: deps.metadata,
        store,
        logger: log,
        concurrency: config.METADATA_CONCURRENCY,
        maxQueued: config.METADATA_QUEUE_MAX,
        retryMs: config.METADATA_RETRY_MS,
        lookups,
      })
    : undefined;
  const consumer = createTradesConsumer({
    js: deps.js,
    jsm: deps.jsm,
    nc: deps.nc,
    idleHeartbeatMs: config.TOKEN_PRICE_IDLE_HEARTBEAT_MS,
    stallCheckMs: config.TOKEN_PRICE_STALL_CHECK_MS,
    inactiveThresholdMs: config.TOKEN_PRICE_CONSUMER_INACTIVE_MS,
    store,
    logger: log,
    metrics: {
      messages: new Counter({
        name: 'tradewind_token_price_messages_total',
        help: 'TRADES messages by outcome (applied, duplicate, ignored, invalid)',
        labelNames: ['outcome'],
        registers: [registry],
      }),
      skipped: new Counter({
        name: 'tradewind_token_price_messages_skipped_total',
        help: 'TRADES messages that changed no price, by reason (invalid ones: not_json, not_object, missing_fields, bad_number, missing_amount)',
        labelNames: ['reason'],
        registers: [registry],
      }),
      pending: new Gauge({
        name: 'tradewind_token_price_consumer_pending_messages',
        help: 'TRADES messages not yet delivered to the token-price consumer',
        registers: [registry],
      }),
      restarts: new Counter({
        name: 'tradewind_token_price_consumer_restarts_total',
        help: 'Restarts of the TRADES consumer loop after a failure',
        registers: [registry],
      }),
    },
    consumerPrefix: config.TOKEN_PRICE_CONSUMER,
    holder: `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`,
    leaseMs: config.TOKEN_PRICE_LEASE_MS,
    batch: config.TOKEN_PRICE_BATCH_MESSAGES,
    retryDelayMs: config.TOKEN_PRICE_RETRY_DELAY_MS,
    now,
    configuredSolUsd: config.SOL_USD_PRICE,
    solUsdMaxAgeMs: config.SOL_USD_MAX_AGE_MS,
    minRatePoolSol: config.SOL_USD_MIN_POOL_SOL,
    ...(metadata ? { onNeedsMetadata: (mint: string) => metadata.add(mint) } : {}),
  });
  const ticker = createTicker({
    store,
    logger: log,
    now,
    cacheMs: config.TOKENS_CACHE_MS,
    configuredSolUsd: config.SOL_USD_PRICE,
    solUsdMaxAgeMs: config.SOL_USD_MAX_AGE_MS,
    birdeye: deps.birdeye,
    metrics: {
      upstream: new Counter({
        name: 'tradewind_token_price_upstream_requests_total',
        help: 'Requests to the optional Birdeye upstream by outcome',
        labelNames: ['upstream', 'outcome'],
        registers: [registry],
      }),
      solUsd: new Gauge({
        name: 'tradewind_token_price_sol_usd',
        help: 'The SOL/USD rate last served (USD per SOL), by source',
        labelNames: ['source'],
        registers: [registry],
      }),
    },
  });
  const requests = new Counter({
    name: 'tradewind_token_price_ticker_requests_total',
    help: 'GET /api/birdeye/tokens by outcome (ok, bad_request, error)',
    labelNames: ['outcome'],
    registers: [registry],
  });
  const tape = createTape(config, deps, store);
  const http = createHttpApp({ logger: log, registry, service: 'token-price', trustProxy: true });
  registerRoutes(http, {
    ticker,
    logger: log,
    defaultLimit: config.TOKENS_LIMIT,
    maxLimit: config.TOKENS_MAX_LIMIT,
    cacheMs: config.TOKENS_CACHE_MS,
    requests,
    tape,
    tapeRetryAfterS: config.TAPE_RETRY_AFTER_S,
  });
  let grpc: { port: number; stop(): Promise<void> } | undefined;

  return {
    store,
    consumer,
    ticker,
    metadata,
    tape,
    async start(): Promise<{ httpPort: number; grpcPort: number }> {
      await consumer.start();
      await http.listen({ host: config.HOST, port: config.PORT });
      const address = http.server.address();
      const httpPort = typeof address === 'object' && address ? address.port : config.PORT;
      grpc = await startGrpcServer([priceGrpcService(ticker, log, config.TOKENS_LIMIT, config.TOKENS_MAX_LIMIT)], {
        host: config.HOST,
        port: config.GRPC_PORT,
      });
      return { httpPort, grpcPort: grpc.port };
    },
    async stop(): Promise<void> {
      // The tape's streams never end by themselves: closed first, or closing the server would wait for them.
      await tape.close();
      await http.close();
      await grpc?.stop();
      await consumer.stop();
      metadata?.stop();
    },
  };
}

/**
 * The live trade tape (docs/token-price.md "Trade tape"): one TRADES reader shared by every client, the
 * fan-out with its limits (TAPE_*), and its metrics. The token's symbol and name come from the store.
 */
function createTape(config: AppConfig, deps: TokenPriceDeps, store: TokenStore): TapeHub {
  const registry = deps.registry;
  // Assigned right below: the reader's messages go to the hub, which starts and stops the reader.
  let hub: TapeHub | undefined;
  const reader = createTapeReader({
    js: deps.js,
    logger: deps.logger,
    consumerPrefix: `${config.TOKEN_PRICE_CONSUMER}-tape`,
    retryDelayMs: config.TOKEN_PRICE_RETRY_DELAY_MS,
    idleHeartbeatMs: config.TOKEN_PRICE_IDLE_HEARTBEAT_MS,
    inactiveThresholdMs: config.TOKEN_PRICE_CONSUMER_INACTIVE_MS,
    onMessage: (subject, seq, data) => hub?.offer(subject, seq, data),
  });
  hub = new TapeHub({
    maxEventsPerS: config.TAPE_MAX_EVENTS_PER_S,
    maxConnections: config.TAPE_MAX_CONNECTIONS,
    maxConnectionsPerAddress: config.TAPE_MAX_CONNECTIONS_PER_IP,
    heartbeatMs: config.TAPE_HEARTBEAT_MS,
    maxBufferedBytes: config.TAPE_MAX_BUFFERED_BYTES,
    readerLingerMs: config.TAPE_READER_LINGER_MS,
    reader,
    identity: async (mint) => {
      const known = await store.identity(mint);
      return known && { symbol: known.symbol, name: known.name };
    },
    // One pass of the hub: an event is sent without the token's name rather than late.
    identityTimeoutMs: Math.floor(1000 / config.TAPE_MAX_EVENTS_PER_S),
    logger: deps.logger,
    metrics: {
      clients: new Gauge({ name: 'tradewind_token_price_tape_clients', help: 'Open GET /api/trades/tape streams', registers: [registry] }),
      eventsSent: new Counter({
        name: 'tradewind_token_price_tape_events_sent_total',
        help: 'Trade tape events written to clients (one per client per event)',
        registers: [registry],
      }),
      refused: new Counter({
        name: 'tradewind_token_price_tape_clients_refused_total',
        help: 'Trade tape connections answered 429, by reason (connections: TAPE_MAX_CONNECTIONS, address: TAPE_MAX_CONNECTIONS_PER_IP)',
        labelNames: ['reason'],
        registers: [registry],
      }),
      dropped: new Counter({
        name: 'tradewind_token_price_tape_clients_dropped_total',
        help: 'Trade tape connections ended by the service, by reason (slow: over TAPE_MAX_BUFFERED_BYTES unsent, shutdown)',
        labelNames: ['reason'],
        registers: [registry],
      }),
    },
  });
  return hub;
}
