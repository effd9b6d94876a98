/**
 * Builds the configured live source (INGEST_SOURCE=yellowstone | rpc) and, when a
 * checkpoint exists, starts it right after the last transaction a previous run
 * finished; else at LIVE_FROM_SLOT, else at the chain tip.
 */
import type { Registry } from 'prom-client';
import type { Logger } from '@tradewind/lib';
import type { IngestConfig } from '../config.js';
import type { Checkpoint } from './checkpoint.js';
import { createRpcWebSocketSource, deriveWebSocketUrl, rpcWebSocketMetrics } from './rpc-websocket.js';
import { sourceMetrics, type TransactionSource } from './source.js';
import { createYellowstoneSource } from './yellowstone.js';

/**
 * The live source `config` asks for.
 * @throws Error when INGEST_SOURCE is `replay` (no live source) or a required endpoint is missing
 *   (loadIngestConfig already refuses that configuration).
 */
export function createLiveSource(config: IngestConfig, deps: { logger: Logger; registry: Registry; checkpoint: Checkpoint | null }): TransactionSource {
  const metrics = sourceMetrics(deps.registry);
  const backoff = { initialMs: config.LIVE_RECONNECT_INITIAL_MS, maxMs: config.LIVE_RECONNECT_MAX_MS };
  const fromSlot = deps.checkpoint?.slot ?? config.LIVE_FROM_SLOT ?? null;
  const logger = deps.logger.child({ component: `source-${config.INGEST_SOURCE}` });
  if (config.INGEST_SOURCE === 'yellowstone') {
    if (!config.YELLOWSTONE_ENDPOINT) throw new Error('YELLOWSTONE_ENDPOINT is required when INGEST_SOURCE=yellowstone');
    return createYellowstoneSource({
      endpoint: config.YELLOWSTONE_ENDPOINT,
      xToken: config.YELLOWSTONE_X_TOKEN,
      commitment: config.YELLOWSTONE_COMMITMENT,
      fromSlot,
      backoff,
      metrics,
      registry: deps.registry,
      logger,
      queueMaxTransactions: config.YELLOWSTONE_QUEUE_MAX_TRANSACTIONS,
      idleTimeoutMs: config.YELLOWSTONE_IDLE_TIMEOUT_MS,
      includeFailed: config.LIVE_INCLUDE_FAILED,
    });
  }
  if (config.INGEST_SOURCE === 'rpc') {
    if (!config.SOLANA_RPC_URL) throw new Error('SOLANA_RPC_URL is required when INGEST_SOURCE=rpc');
    return createRpcWebSocketSource({
      httpUrl: config.SOLANA_RPC_URL,
      wsUrl: config.SOLANA_WS_URL ?? deriveWebSocketUrl(config.SOLANA_RPC_URL),
      commitment: config.RPC_COMMITMENT,
      fromSlot,
      fromSignature: deps.checkpoint?.signature ?? null,
      backoff,
      fetchConcurrency: config.RPC_FETCH_CONCURRENCY,
      metrics,
      rpcMetrics: rpcWebSocketMetrics(deps.registry),
      logger,
      getTransactionRetries: config.RPC_GET_TRANSACTION_RETRIES,
      getTransactionRetryDelayMs: config.RPC_GET_TRANSACTION_RETRY_DELAY_MS,
      maxSupportedTransactionVersion: config.RPC_MAX_SUPPORTED_TRANSACTION_VERSION,
      pingIntervalMs: config.RPC_PING_INTERVAL_MS,
      idleTimeoutMs: config.RPC_IDLE_TIMEOUT_MS,
      connectTimeoutMs: config.RPC_CONNECT_TIMEOUT_MS,
      requestTimeoutMs: config.RPC_REQUEST_TIMEOUT_MS,
      includeFailed: config.LIVE_INCLUDE_FAILED,
    });
  }
  throw new Error(`INGEST_SOURCE=${config.INGEST_SOURCE} is not a live source`);
}
