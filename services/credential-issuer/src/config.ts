/** credential-issuer configuration: every key validated at start; local defaults for a developer machine. */
import { z } from 'zod';
import {
  CommonConfig,
  StreamReplicas,
  NonNegativeNumber,
  Port,
  PositiveInt,
  defaultPort,
  loadConfig,
  optionalString,
  optionalUrl,
  natsServerUrls,
  urlWithScheme,
} from '@tradewind/lib';

export const CredentialIssuerConfigSchema = CommonConfig.extend({
  NODE_ENV: z.string().default('development'),
  ADMIN_PORT: Port.default(defaultPort('credential-issuer', 'admin')),
  /** Public HTTP API (`GET/POST /api/nats`), behind the ingress (deploy/routes.json). */
  PORT: Port.default(defaultPort('credential-issuer', 'http')),
  HOST: z.string().min(1).default('0.0.0.0'),
  /** PostgreSQL; credential-issuer keeps its tables in schema `credential_issuer`. */
  DATABASE_URL: urlWithScheme(['postgres', 'postgresql']),
  DATABASE_POOL_SIZE: PositiveInt.default(10),
  /** Directory holding the operator/account keys (`<dir>/nats/identities.json`); a Kubernetes secret mount in production. */
  TRADEWIND_STATE_DIR: z.string().min(1).default('.tradewind'),
  /** Where the services reach NATS. */
  NATS_URL: natsServerUrls(`nats://127.0.0.1:${defaultPort('nats', 'nats')}`),
  /** Replicas of EVENTS and EVENTS_DEAD_LETTER, which this service creates (default 1; 3 on the chart's 3-node NATS cluster). */
  NATS_STREAM_REPLICAS: StreamReplicas.default(1),
  /** The NATS URL handed to subscribers (their `nats_connection`); the WebSocket URL is derived from it. */
  NATS_PUBLIC_URL: urlWithScheme(['nats', 'tls']).default(`nats://localhost:${defaultPort('nats', 'nats')}`),
  /**
   * The WebSocket URL handed to subscribers (`ws_connection`). Unset: derived from NATS_PUBLIC_URL
   * (nats→ws, tls→wss, port 4223→9223; docs/architecture.md §4). Set it when ws-fanout sits behind an
   * ingress host of its own, e.g. `wss://ws.tradewind.example`.
   */
  WS_PUBLIC_URL: optionalUrl(['ws', 'wss']),
  /** Lifetime of issued user JWTs in seconds; 0 = no expiry (rotation revokes instead). Default 365 days. */
  CREDENTIALS_TTL_SECONDS: NonNegativeNumber.default(365 * 24 * 3600),
  /** Key sealing users' NKey seeds at rest (AES-256-GCM): 32 bytes as base64 or 64 hex characters, or a file holding it. */
  CREDENTIALS_ENCRYPTION_KEY: optionalString,
  CREDENTIALS_ENCRYPTION_KEY_FILE: optionalString,
  /** Rotations (`POST /api/nats`) allowed per user per 24 h; each one adds a revocation to the account JWT. */
  CREDENTIALS_ROTATIONS_PER_DAY: PositiveInt.default(20),
  /** How often accounts the resolver has not confirmed are pushed again, ms. */
  RESOLVER_RESYNC_INTERVAL_MS: PositiveInt.default(30_000),
  /** Origin of the web app (the ingress); access tokens are issued by `<PUBLIC_URL>/auth` unless AUTH_ISSUER says otherwise. */
  PUBLIC_URL: urlWithScheme(['http', 'https']).default(`http://localhost:${defaultPort('ingress', 'http')}`),
  /** auth's JWKS, for verifying access tokens locally. */
  AUTH_JWKS_URL: urlWithScheme(['http', 'https']).default(`http://127.0.0.1:${defaultPort('auth', 'http')}/auth/.well-known/jwks.json`),
  AUTH_ISSUER: optionalUrl(['http', 'https']),
  OUTBOX_POLL_MS: PositiveInt.default(500),
  OUTBOX_BATCH_SIZE: PositiveInt.default(100),
  /** Largest accepted request body in bytes (the API takes none; default 4 KiB). */
  HTTP_BODY_LIMIT_BYTES: PositiveInt.default(4 * 1024),
  /**
   * Redis shared with ws-fanout: `GET /api/usage` reads the WebSocket connection leases and control-request counters
   * there. Not needed to start or to be ready: while it is unreachable those figures are null.
   */
  REDIS_URL: urlWithScheme(['redis', 'rediss']).default('redis://127.0.0.1:6379'),
  /** ws-fanout's REQUEST_RATE_WINDOW_MS (set both alike): the window of the control-request counters read from Redis, ms. */
  REQUEST_RATE_WINDOW_MS: PositiveInt.default(60_000),
  /**
   * ws-fanout's USAGE_REPORT_INTERVAL_MS (set both alike), ms: with USAGE_NATS_POLL_INTERVAL_MS it gives `GET /api/usage`'s
   * `report_interval_ms`, how far a day's figures may lag.
   */
  USAGE_REPORT_INTERVAL_MS: PositiveInt.default(60_000),
  /** Usage metering: time between two polls of nats-server's per-connection counters (CONNZ) for native usage, ms. */
  USAGE_NATS_POLL_INTERVAL_MS: PositiveInt.default(60_000),
  /** How long one poll waits for the nats-servers' CONNZ replies (every server of a cluster answers), ms. */
  USAGE_NATS_GATHER_MS: PositiveInt.max(60_000).default(1_000),
  /** Connections per CONNZ page asked of one nats-server (nats-server's own default limit is 1 024). */
  USAGE_NATS_CONNZ_PAGE_SIZE: PositiveInt.max(100_000).default(1_024),
  /**
   * Last-seen counters of native connections not seen for this long are deleted, ms (default 24 h): far longer than a
   * closed connection stays in a server's ring of closed connections between two polls.
   */
  USAGE_NATS_COUNTER_RETENTION_MS: PositiveInt.default(24 * 3_600_000),
  /** `GET /api/usage`: longest wait for Redis or nats-server's in-use figures before they are reported as null, ms. */
  USAGE_LIVE_TIMEOUT_MS: PositiveInt.max(30_000).default(1_000),
}).superRefine((c, ctx) => {
  if (c.NODE_ENV === 'production' && !c.CREDENTIALS_ENCRYPTION_KEY && !c.CREDENTIALS_ENCRYPTION_KEY_FILE) {
    ctx.addIssue({
      code: 'custom',
      path: ['CREDENTIALS_ENCRYPTION_KEY'],
      message: 'required in production (from a Kubernetes Secret): every replica must seal seeds with the same key',
    });
  }
  if (c.CREDENTIALS_ENCRYPTION_KEY && c.CREDENTIALS_ENCRYPTION_KEY_FILE) {
    ctx.addIssue({
      code: 'custom',
      path: ['CREDENTIALS_ENCRYPTION_KEY_FILE'],
      message: 'set CREDENTIALS_ENCRYPTION_KEY or CREDENTIALS_ENCRYPTION_KEY_FILE, not both',
    });
  }
});

export type CredentialIssuerConfig = z.infer<typeof CredentialIssuerConfigSchema>;

/** Parses the environment. @throws ConfigError listing every bad key. */
export function loadCredentialIssuerConfig(env: NodeJS.ProcessEnv = process.env): Readonly<CredentialIssuerConfig> {
  return loadConfig(CredentialIssuerConfigSchema, env);
}
