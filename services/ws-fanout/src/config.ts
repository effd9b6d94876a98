/**
 * ws-fanout configuration: every key has a default suited to `npm start`; every limit is named here.
 */
import { z } from 'zod';
import {
  DEFAULT_USAGE_FINAL_REPORT_TIMEOUT_MS,
  DEFAULT_USAGE_REPORT_INTERVAL_MS,
  DEFAULT_USAGE_REPORT_MAX_CUSTOMERS,
  DEFAULT_USAGE_REPORT_PUBLISH_TIMEOUT_MS,
  DEFAULT_USAGE_REPORT_RETRY_MS,
} from './usage-meter.js';
import { CommonConfig, Port, PositiveInt, defaultPort, loadConfig, natsServerUrls, urlWithScheme } from '@tradewind/lib';

export const WsFanoutConfigSchema = CommonConfig.extend({
  ADMIN_PORT: Port.default(defaultPort('ws-fanout', 'admin')),
  /** WebSocket listen port (docs/architecture.md §4). */
  PORT: Port.default(defaultPort('ws-fanout', 'websocket')),
  HOST: z.string().min(1).default('0.0.0.0'),
  NATS_URL: natsServerUrls(`nats://127.0.0.1:${defaultPort('nats', 'nats')}`),
  /** Creds file of the services' user in the TRADEWIND account (subscribes to TRADES subjects). */
  NATS_CREDS: z.string().min(1),
  /** Creds file of a system-account user, used to look up account JWTs from the server's resolver. */
  NATS_SYSTEM_CREDS: z.string().min(1),
  /** The operator JWT (path to a file, or the JWT itself): the trust anchor of the signature chain. */
  NATS_OPERATOR_JWT: z.string().min(1),
  REDIS_URL: urlWithScheme(['redis', 'rediss']).default('redis://127.0.0.1:6379'),
  /** Largest WebSocket frame a client may send, in bytes; larger frames close the socket with 1009. */
  WS_MAX_FRAME_BYTES: PositiveInt.default(16 * 1024),
  /** Time a client has to authenticate after connecting, in ms. */
  WS_AUTH_TIMEOUT_MS: PositiveInt.default(10_000),
  /** Slow-consumer policy: bytes queued for one client before it is disconnected with `slow_consumer`. */
  WS_MAX_BUFFERED_BYTES: PositiveInt.default(8 * 1024 * 1024),
  /**
   * How long a looked-up account JWT is trusted before it is fetched again, ms. Account JWTs pushed to the resolver
   * replace the cached one at once (docs/websocket.md §5); this bounds how long a missed update goes unnoticed at authentication.
   */
  ACCOUNT_CACHE_TTL_MS: PositiveInt.default(5_000),
  /** Lease on a connection slot in Redis, ms; renewed every third of it, so a dead pod's slots free themselves. */
  CONNECTION_LEASE_MS: PositiveInt.default(30_000),
  /** Window of the per-plan control-request limit (requests per minute in the plans catalogue), ms. */
  REQUEST_RATE_WINDOW_MS: PositiveInt.default(60_000),
  /** Pro replay: JetStream replays (one per subject) one connection may run at once; more are refused with `replay_limit`. */
  WS_MAX_REPLAYS_PER_CONNECTION: PositiveInt.default(4),
  /** Pro replay: messages pulled from JetStream per request; with the pause below it bounds a replay's memory. */
  WS_REPLAY_BATCH_MESSAGES: PositiveInt.default(256),
  /**
   * How often each live feed is checked for silence, ms (default 5 000; 0 = never): a feed that
   * delivered nothing since the last check while TRADES holds a newer message of its subject is
   * recreated from its last sequence, so a stalled consumer (seen after a stream-leader change on a
   * NATS cluster) delays trades by at most two periods and loses none.
   */
  WS_FEED_STALL_CHECK_MS: z.coerce.number().int().min(0).max(600_000).default(5_000),
  /**
   * Idle heartbeat of each live feed's JetStream pull requests, ms (default 1 000, at least 500 as nats.js
   * clamps it): two missed heartbeats recreate the feed from its last sequence. A feed is also recreated at
   * once when TRADES elects a leader or the connection reconnects (docs/reliability.md).
   */
  WS_FEED_IDLE_HEARTBEAT_MS: z.coerce.number().int().min(500).max(30_000).default(1_000),
  /**
   * Delay before a live feed whose consumer could not be created tries again, ms (default 250): while the
   * cluster elects a meta leader the creation fails, and the feed must start within this of the election.
   */
  WS_FEED_RETRY_MS: PositiveInt.max(60_000).default(250),
  /** Pro replay: bytes queued on the socket at which a replay stops reading from JetStream until the client catches up. */
  WS_REPLAY_PAUSE_BYTES: PositiveInt.default(1024 * 1024),
  /** Pro replay: how long a paused replay waits for the socket to drain before the slow-consumer policy disconnects it, ms. */
  WS_REPLAY_STALL_MS: PositiveInt.default(30_000),
  /**
   * Worker processes sharing PORT (node:cluster); each runs the whole fan-out with its own NATS connections, while the
   * primary serves /healthz, /readyz and /metrics off the fan-out's event loops. 0 = one per CPU (os.availableParallelism()).
   */
  WS_WORKERS: z.coerce.number().int().min(0).max(64).default(0),
  /** Failed authentications per source address per minute (per process) before further attempts are refused unchecked. */
  WS_LOGIN_FAILURES_PER_MINUTE: PositiveInt.default(30),
  /**
   * Take the client address for login limits from the last X-Forwarded-For entry (set true only behind a proxy that
   * appends it, such as the ingress); otherwise the TCP peer address.
   */
  WS_TRUST_FORWARDED_FOR: z
    .enum(['true', 'false'])
    .default('false')
    .transform((v) => v === 'true'),
  /** Largest `mints` / `accounts` / `types` list of one subscription filter. */
  WS_FILTER_MAX_ITEMS: PositiveInt.default(1000),
  /** How far back every plan may resume with `resume_after` (Pro may replay all retention), ms. */
  WS_RESUME_WINDOW_MS: PositiveInt.default(5 * 60_000),
  /**
   * Slots a subscription with slot status (`"slots": true`) remembers having sent trades from, awaiting their
   * `finalized` or `dead` status (default 1 024, about 7 minutes of chain at 400 ms a slot; a slot is forgotten once
   * finalized or dead). Past it the oldest is forgotten and its later statuses are not sent.
   */
  WS_SLOT_TRACK_MAX: PositiveInt.max(1_000_000).default(1_024),
  /** Longest silence on a subscribed connection before the server sends a heartbeat, ms. */
  WS_HEARTBEAT_INTERVAL_MS: PositiveInt.default(5_000),
  /** Interval of WebSocket pings; a connection that misses two pongs is terminated, ms. */
  WS_PING_INTERVAL_MS: PositiveInt.default(10_000),
  /** Bytes handed to a socket at once; the rest of a client's queue waits in the process until the socket drains. */
  WS_SOCKET_HIGH_WATER_BYTES: PositiveInt.default(256 * 1024),
  /**
   * Least time between two `connection.limited` events (EVENTS) of one customer whose logins are refused at the plan's
   * connection limit, ms; refusals in between publish nothing, so a reconnect loop cannot flood EVENTS.
   */
  WS_CONNECTION_LIMIT_EVENT_INTERVAL_MS: PositiveInt.default(60_000),
  /**
   * Usage metering (docs/websocket.md "Usage metering"): time between two `usage.reported` events of this process, ms
   * (default 60 000; `npm start` uses 10 000). A crash loses at most this much of the counts.
   */
  USAGE_REPORT_INTERVAL_MS: PositiveInt.max(3_600_000).default(DEFAULT_USAGE_REPORT_INTERVAL_MS),
  /** Delay before an unacknowledged `usage.reported` is published again with the same event id, ms; doubles with each failure in a row, up to USAGE_REPORT_INTERVAL_MS. */
  USAGE_REPORT_RETRY_MS: PositiveInt.max(600_000).default(DEFAULT_USAGE_REPORT_RETRY_MS),
  /** How long one `usage.reported` publish waits for the JetStream ack before it counts as failed (and is retried), ms. */
  USAGE_REPORT_PUBLISH_TIMEOUT_MS: PositiveInt.max(600_000).default(DEFAULT_USAGE_REPORT_PUBLISH_TIMEOUT_MS),
  /**
   * Customers in one `usage.reported` (about 70 bytes each, so the default stays far below NATS's 1 MiB max_payload);
   * more are reported in further events published right after.
   */
  USAGE_REPORT_MAX_CUSTOMERS: PositiveInt.max(10_000).default(DEFAULT_USAGE_REPORT_MAX_CUSTOMERS),
  /**
   * At shutdown, how long the final `usage.reported` is retried before its counts are given up (logged and counted as
   * lost), ms; keep it below SHUTDOWN_DEADLINE_MS.
   */
  USAGE_FINAL_REPORT_TIMEOUT_MS: PositiveInt.max(600_000).default(DEFAULT_USAGE_FINAL_REPORT_TIMEOUT_MS),
  /** After a close frame (slow consumer, refusal), how long the peer has to finish the close handshake before the socket is destroyed, ms. */
  WS_CLOSE_TIMEOUT_MS: PositiveInt.default(2_000),
});

export type WsFanoutConfig = z.infer<typeof WsFanoutConfigSchema>;

/** Parses the environment. @throws ConfigError listing every bad key. */
export function loadWsFanoutConfig(env: NodeJS.ProcessEnv = process.env): Readonly<WsFanoutConfig> {
  return loadConfig(WsFanoutConfigSchema, env);
}
