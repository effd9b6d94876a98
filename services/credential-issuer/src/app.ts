/**
 * credential-issuer: createApp(config, deps) → {start, stop}. No I/O on import; tests run it
 * in-process against real PostgreSQL and an operator-mode nats-server.
 *
 * start(): migrate → push the operator's own accounts (SYS, TRADEWIND, REPLAY, the per-plan
 * accounts) → create the TRADES mirror of native replay → push customer accounts the resolver has not confirmed → serve `GET/POST /api/nats` and `GET /api/usage` → outbox
 * relay (credentials.rotated) → the events consumer (user.created, subscription.changed) → the usage
 * consumer (usage.reported) and the native usage poll (CONNZ), both for `GET /api/usage` → periodic resync; in the background, customer accounts signed by older code (e.g. before the per-mint
 * subjects) are re-signed and pushed (`upgradeAccounts`: ~25 ms an account, so it does not hold up serving).
 */
import { Counter, type Registry } from 'prom-client';
import type { JetStreamClient, JetStreamManager } from '@nats-io/jetstream';
import { TRADES_STREAM } from '@tradewind/contracts';
import {
  createAccessTokenVerifier,
  createHttpApp,
  createOutboxRelay,
  migrate,
  type AccessTokenClaims,
  type Kysely,
  type Logger,
  type NatsConnection,
} from '@tradewind/lib';
import type { CredentialIssuerConfig } from './config.js';
import type { CredentialIssuerDatabase } from './db/schema.js';
import { CREDENTIAL_ISSUER_SCHEMA, credentialIssuerMigrations } from './db/migrations.js';
import { pushAccountJwt } from './domain/customer-accounts.js';
import { ensureReplayMirror, replayConsumerName } from './domain/replay.js';
import { operatorAccounts, type NatsIdentities } from './domain/identities.js';
import type { SeedCipher } from './domain/seed-cipher.js';
import { createCredentialEventsConsumer } from './events/consumer.js';
import { registerRoutes } from './http/routes.js';
import { createUsageConsumer } from './events/usage-consumer.js';
import { createNatsUsage } from './usage/nats-usage.js';
import { usageReport, type Redis } from './usage/usage-report.js';
import { RESYNC_BATCH, createCredentialService } from './service.js';

export interface CredentialIssuerDeps {
  db: Kysely<CredentialIssuerDatabase>;
  logger: Logger;
  registry: Registry;
  identities: NatsIdentities;
  cipher: SeedCipher;
  /** Services' connection (TRADEWIND account): EVENTS, and the TRADES consumers of native replay. */
  js: JetStreamClient;
  jsm: JetStreamManager;
  /** System-account connection, for resolver claim updates. */
  sysNc: NatsConnection;
  /** JetStream manager of the REPLAY account: the TRADES mirror and customers' replay consumers (domain/replay.ts). */
  replayJsm: JetStreamManager;
  /** Overrides the access-token check (default: auth's JWKS at AUTH_JWKS_URL). */
  verifyAccessToken?: (authorization: string | undefined) => Promise<AccessTokenClaims>;
  /** Clock, ms since the epoch (tests). */
  now?: () => number;
  /** Redis shared with ws-fanout, read by GET /api/usage (absent: its in-use WebSocket figures are null). */
  redis?: Redis;
}

/** Pushes the operator's own account JWTs (SYS, TRADEWIND, REPLAY, per-plan accounts) to the resolver. @throws AppError('unavailable'). */
export async function pushAccountClaims(sysNc: NatsConnection, identities: NatsIdentities): Promise<void> {
  for (const account of operatorAccounts(identities)) await pushAccountJwt(sysNc, account.jwt, account.name);
}

type AppConfig = Pick<
  CredentialIssuerConfig,
  | 'PORT'
  | 'HOST'
  | 'NATS_PUBLIC_URL'
  | 'WS_PUBLIC_URL'
  | 'CREDENTIALS_TTL_SECONDS'
  | 'CREDENTIALS_ROTATIONS_PER_DAY'
  | 'RESOLVER_RESYNC_INTERVAL_MS'
  | 'PUBLIC_URL'
  | 'AUTH_JWKS_URL'
  | 'AUTH_ISSUER'
  | 'OUTBOX_POLL_MS'
  | 'OUTBOX_BATCH_SIZE'
  | 'HTTP_BODY_LIMIT_BYTES'
> &
  Partial<
    Pick<
      CredentialIssuerConfig,
      | 'REQUEST_RATE_WINDOW_MS'
      | 'USAGE_REPORT_INTERVAL_MS'
      | 'USAGE_NATS_POLL_INTERVAL_MS'
      | 'USAGE_NATS_GATHER_MS'
      | 'USAGE_NATS_CONNZ_PAGE_SIZE'
      | 'USAGE_NATS_COUNTER_RETENTION_MS'
      | 'USAGE_LIVE_TIMEOUT_MS'
    >
  >;

export function createApp(config: AppConfig, deps: CredentialIssuerDeps) {
  const log = deps.logger;
  const publicUrl = config.PUBLIC_URL.replace(/\/$/, '');
  const relay = createOutboxRelay({
    db: deps.db,
    js: deps.js,
    schema: CREDENTIAL_ISSUER_SCHEMA,
    logger: log.child({ component: 'outbox-relay' }),
    registry: deps.registry,
    pollIntervalMs: config.OUTBOX_POLL_MS,
    batchSize: config.OUTBOX_BATCH_SIZE,
  });
  const service = createCredentialService({
    db: deps.db,
    identities: deps.identities,
    sysNc: deps.sysNc,
    cipher: deps.cipher,
    logger: log.child({ component: 'credentials' }),
    natsPublicUrl: config.NATS_PUBLIC_URL,
    wsPublicUrl: config.WS_PUBLIC_URL,
    ttlSeconds: config.CREDENTIALS_TTL_SECONDS,
    rotationsPerDay: config.CREDENTIALS_ROTATIONS_PER_DAY,
    eventsAppended: () => relay.kick(),
    ...(deps.now ? { now: deps.now } : {}),
    // A customer's native replay consumer is named after their account (docs/nats.md); it goes with the plan.
    onReplayRevoked: async (account) => {
      try {
        await deps.replayJsm.consumers.delete(TRADES_STREAM, replayConsumerName(account));
      } catch (err) {
        if (!/not found/i.test(String((err as Error).message))) throw err;
      }
    },
  });
  const requests = new Counter({
    name: 'tradewind_credential_issuer_requests_total',
    help: 'GET (fetch) and POST (rotate) /api/nats and GET /api/usage (usage) by outcome',
    labelNames: ['operation', 'outcome'],
    registers: [deps.registry],
  });
  const http = createHttpApp({
    logger: log,
    registry: deps.registry,
    service: 'credential-issuer',
    bodyLimitBytes: config.HTTP_BODY_LIMIT_BYTES,
    trustProxy: true,
  });
  const verify = deps.verifyAccessToken ?? createAccessTokenVerifier(config.AUTH_JWKS_URL, config.AUTH_ISSUER ?? `${publicUrl}/auth`);
  // Usage metering (docs/nats.md "Usage"): native counters polled here, WebSocket reports consumed from EVENTS.
  const natsPollMs = config.USAGE_NATS_POLL_INTERVAL_MS ?? 60_000;
  const natsUsage = createNatsUsage({
    db: deps.db,
    sysNc: deps.sysNc,
    logger: log.child({ component: 'usage' }),
    registry: deps.registry,
    intervalMs: natsPollMs,
    gatherMs: config.USAGE_NATS_GATHER_MS ?? 1_000,
    pageSize: config.USAGE_NATS_CONNZ_PAGE_SIZE ?? 1_024,
    retentionMs: config.USAGE_NATS_COUNTER_RETENTION_MS ?? 24 * 3_600_000,
  });
  const usageDeps = {
    db: deps.db,
    redis: deps.redis,
    natsUsage,
    logger: log.child({ component: 'usage' }),
    reportIntervalMs: Math.max(config.USAGE_REPORT_INTERVAL_MS ?? 60_000, natsPollMs),
    requestRateWindowMs: config.REQUEST_RATE_WINDOW_MS ?? 60_000,
    liveTimeoutMs: config.USAGE_LIVE_TIMEOUT_MS ?? 1_000,
    now: deps.now ?? Date.now,
  };
  registerRoutes(http, {
    service,
    verify,
    requests,
    bodyLimitBytes: config.HTTP_BODY_LIMIT_BYTES,
    usage: (claims) => usageReport(usageDeps, claims.userId, claims.plan),
  });
  const consumer = createCredentialEventsConsumer({ db: deps.db, js: deps.js, jsm: deps.jsm, logger: log, registry: deps.registry, service });
  const usageConsumer = createUsageConsumer({ db: deps.db, js: deps.js, jsm: deps.jsm, logger: log, registry: deps.registry });
  let resyncTimer: NodeJS.Timeout | undefined;
  const upgradeAbort = new AbortController();
  let upgrading: Promise<void> | undefined;

  return {
    service,
    /** Native usage: `poll()` runs one poll now (tests; the timer polls every USAGE_NATS_POLL_INTERVAL_MS). */
    natsUsage,
    /** @returns the bound HTTP port. */
    async start(): Promise<{ httpPort: number }> {
      await migrate(deps.db, CREDENTIAL_ISSUER_SCHEMA, credentialIssuerMigrations, log);
      await pushAccountClaims(deps.sysNc, deps.identities);
      await ensureReplayMirror(deps.replayJsm);
      // Everything unconfirmed before serving: batches until one comes back short.
      while ((await service.resync(RESYNC_BATCH)) === RESYNC_BATCH);
      await http.listen({ port: config.PORT, host: config.HOST });
      relay.start();
      await consumer.start();
      await usageConsumer.start();
      natsUsage.start();
      resyncTimer = setInterval(
        () => void service.resync().catch((err: unknown) => log.warn({ err }, 'account resync failed')),
        config.RESOLVER_RESYNC_INTERVAL_MS,
      );
      resyncTimer.unref();
      // Accounts signed before a change of the claims (e.g. the per-mint subjects) get the current ones, then are pushed.
      upgrading = (async () => {
        const upgraded = await service.upgradeAccounts(RESYNC_BATCH, upgradeAbort.signal);
        if (upgraded === 0) return;
        log.info({ accounts: upgraded }, 'customer accounts re-signed with the current claims');
        while (!upgradeAbort.signal.aborted && (await service.resync(RESYNC_BATCH)) === RESYNC_BATCH);
      })().catch((err: unknown) => log.warn({ err }, 'customer account upgrade failed; the next start retries it'));
      const address = http.server.address();
      return { httpPort: typeof address === 'object' && address ? address.port : config.PORT };
    },
    /** Resolves when the background re-signing of outdated customer accounts (and their push) has ended. */
    accountsUpgraded: (): Promise<void> => upgrading ?? Promise.resolve(),
    async stop(): Promise<void> {
      if (resyncTimer) clearInterval(resyncTimer);
      upgradeAbort.abort();
      await upgrading;
      await http.close();
      await natsUsage.stop();
      await usageConsumer.stop();
      await consumer.stop();
      await relay.stop();
    },
  };
}
