/** ingest configuration; every limit is named here with its default. */
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { CommonConfig, Port, PositiveInt, loadConfig, urlWithScheme } from '@tradewind/lib';

/** The bundled default recording: real mainnet transactions (see recording/SOURCES.md). */
export const BUNDLED_RECORDING_DIR = fileURLToPath(new URL('../recording', import.meta.url));

const Bool = z.enum(['true', 'false', '1', '0']).transform((v) => v === 'true' || v === '1');

export const IngestConfigSchema = CommonConfig.extend({
  ADMIN_PORT: Port.default(9303),
  NATS_URL: urlWithScheme(['nats', 'tls']).default('nats://127.0.0.1:4223'),
  /** Creds file of the services' user (TRADEWIND account); unset for a server without auth. */
  NATS_CREDS: z.string().min(1).optional(),
  /** Source of transactions. Only `replay` exists so far; live sources (Yellowstone gRPC, RPC WebSocket) come later. */
  INGEST_SOURCE: z.enum(['replay']).default('replay'),
  /** Directory of recorded getTransaction results (*.json), read recursively. */
  REPLAY_DIR: z.string().min(1).default(BUNDLED_RECORDING_DIR),
  /** Replay pace in transactions per second (each transaction's trades are published together). */
  REPLAY_TRANSACTIONS_PER_SECOND: z.coerce.number().positive().max(100_000).default(3),
  /** Start again from the first transaction after the last one. */
  REPLAY_LOOP: Bool.default(true),
  /** TRADES retention in ms (ARCHITECTURE §5 default 24 h): what Pro replay can read. */
  TRADES_MAX_AGE_MS: PositiveInt.default(24 * 60 * 60 * 1000),
  /** Nats-Msg-Id duplicate window of TRADES in ms. */
  TRADES_DUPLICATE_WINDOW_MS: PositiveInt.default(2 * 60 * 1000),
  /** Upper bound on TRADES bytes; oldest trades are dropped first. */
  TRADES_MAX_BYTES: PositiveInt.default(1024 ** 3),
  /** Longest wait between publish retries while NATS is unreachable, ms. */
  PUBLISH_MAX_BACKOFF_MS: PositiveInt.default(5_000),
});

export type IngestConfig = z.infer<typeof IngestConfigSchema>;

/** Parses the environment. @throws ConfigError listing every bad key. */
export function loadIngestConfig(env: NodeJS.ProcessEnv = process.env): Readonly<IngestConfig> {
  return loadConfig(IngestConfigSchema, env);
}
