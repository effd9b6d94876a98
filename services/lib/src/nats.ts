/**
 * NATS connection and JetStream helpers shared by the services.
 * Built on @nats-io/transport-node and @nats-io/jetstream (nats.js v3).
 */
import { readFile } from 'node:fs/promises';
import { connect, credsAuthenticator, type NatsConnection } from '@nats-io/transport-node';
import { jetstreamManager, type JetStreamManager, RetentionPolicy, StorageType, DiscardPolicy } from '@nats-io/jetstream';
import { nanos } from '@nats-io/transport-node';
import type { Logger } from './logger.js';
import { retryStartup } from './startup.js';
import { SLOTS_SUBJECT, TRADES_STREAM, TRADE_SUBJECTS } from '@tradewind/contracts';

export type { NatsConnection } from '@nats-io/transport-node';

/**
 * Wait before reconnecting to the same server URL, ms (nats.js `reconnectTimeWait`, default 2 s; jitter is added).
 * Short because in Kubernetes every service reaches NATS through one Service URL: after a node dies, the time
 * to the next attempt is added to every failover (issue 31, docs/reliability.md).
 */
export const RECONNECT_TIME_WAIT_MS = 250;

/**
 * Connects to NATS.
 * @param options.url one or more comma-separated server URLs (`nats://host:port`).
 * @param options.credsFile path of a `.creds` file (user JWT + NKey seed), for operator-mode servers.
 * @param options.name connection name shown in the server's monitoring (use the service name).
 * Reconnects forever once connected, RECONNECT_TIME_WAIT_MS apart per server, with jitter; status changes are logged at `warn`. The first connection
 * is a start-up step (startup.ts retryStartup, `NATS connection <name>`): inside a start-up a refused or
 * timed-out attempt is retried with backoff until STARTUP_DEADLINE_MS, an authorization violation fails at
 * once; outside one it is tried once. nats.js' own `waitOnFirstConnect` is not used: it would retry
 * unseen, without a deadline, through an authorization error, and could not be aborted by SIGTERM.
 * @throws the nats.js connection error (ConnectionError, AuthorizationError…) outside a start-up;
 *   StartupFailedError / StartupAbortedError inside one.
 */
export async function connectNats(options: {
  url: string;
  credsFile?: string | undefined;
  creds?: string | undefined;
  name: string;
  logger?: Logger;
}): Promise<NatsConnection> {
  const credsText = options.creds ?? (options.credsFile ? await readFile(options.credsFile, 'utf8') : undefined);
  const nc = await retryStartup(`NATS connection ${options.name}`, () =>
    connect({
      servers: options.url.split(',').map((s) => s.trim()),
      name: options.name,
      maxReconnectAttempts: -1,
      reconnectTimeWait: RECONNECT_TIME_WAIT_MS,
      ...(credsText ? { authenticator: credsAuthenticator(new TextEncoder().encode(credsText)) } : {}),
    }),
  );
  if (options.logger) {
    const logger = options.logger;
    void (async () => {
      for await (const status of nc.status()) {
        if (status.type === 'ping') continue;
        logger.warn({ nats_status: status.type }, 'nats connection status');
      }
    })();
  }
  return nc;
}

/** Settings of the TRADES stream; defaults per docs/architecture.md §5. */
export interface TradesStreamOptions {
  /** Retention by age in ms (default 24 h); this is what Pro replay can read. */
  maxAgeMs: number;
  /** Nats-Msg-Id duplicate window in ms (default 2 min). */
  duplicateWindowMs: number;
  /** Upper bound on stored bytes (default 1 GiB); oldest messages are discarded first. */
  maxBytes: number;
  /** Replicas (default 1; 3 on a 3-node cluster, so a server's loss loses no trade). */
  replicas?: number;
}

export const DEFAULT_TRADES_STREAM: TradesStreamOptions = {
  maxAgeMs: 24 * 60 * 60 * 1000,
  duplicateWindowMs: 2 * 60 * 1000,
  maxBytes: 1024 ** 3,
};

/**
 * Creates the TRADES stream (file storage, limits retention, all four trade
 * subjects) or updates its limits when it exists. Idempotent; retried inside a start-up ({@link upsertStream}).
 */
export async function ensureTradesStream(jsm: JetStreamManager, options: TradesStreamOptions = DEFAULT_TRADES_STREAM): Promise<void> {
  const config = {
    name: TRADES_STREAM,
    subjects: [...TRADE_SUBJECTS, SLOTS_SUBJECT],
    retention: RetentionPolicy.Limits,
    storage: StorageType.File,
    discard: DiscardPolicy.Old,
    max_age: nanos(options.maxAgeMs),
    duplicate_window: nanos(options.duplicateWindowMs),
    max_bytes: options.maxBytes,
    num_replicas: options.replicas ?? 1,
  };
  await upsertStream(jsm, config);
}

/**
 * Whether `err` is JetStream's "not found" for a stream or consumer: the API error code 404, or
 * nats.js' message for it ("stream not found" / "consumer not found").
 */
export function isJetStreamNotFound(err: unknown, what: 'stream' | 'consumer'): boolean {
  return (err as { code?: unknown } | null)?.code === 404 || new RegExp(`${what} not found`, 'i').test(String(err));
}

/**
 * Updates stream `config.name` when it exists, else creates it. Idempotent. A start-up step (`stream <name>`,
 * startup.ts retryStartup): inside a start-up, a cluster that cannot place the stream yet (no meta leader,
 * fewer servers than replicas, a request timeout) is asked again with backoff until STARTUP_DEADLINE_MS.
 * @throws the JetStream error for anything but "not found" outside a start-up; StartupFailedError (an
 *   invalid config at once, a settling cluster past the deadline) / StartupAbortedError inside one.
 */
export async function upsertStream(jsm: JetStreamManager, config: Parameters<JetStreamManager['streams']['add']>[0] & { name: string }): Promise<void> {
  await retryStartup(`stream ${config.name}`, async () => {
    try {
      await jsm.streams.info(config.name);
      await jsm.streams.update(config.name, config);
    } catch (err) {
      if (isJetStreamNotFound(err, 'stream')) {
        await jsm.streams.add(config);
      } else {
        throw err;
      }
    }
  });
}

/**
 * A JetStreamManager for `nc`. nats.js checks the JetStream API on creation (`$JS.API.INFO`), so this is a
 * start-up step (`JetStream API`): inside a start-up, no responders or a timeout (JetStream not up yet) is
 * retried until STARTUP_DEADLINE_MS.
 * @throws JetStreamNotEnabled / TimeoutError outside a start-up; StartupFailedError / StartupAbortedError inside one.
 */
export function tradesManager(nc: NatsConnection): Promise<JetStreamManager> {
  return retryStartup('JetStream API', () => jetstreamManager(nc));
}
