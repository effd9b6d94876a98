/**
 * credential-issuer: createApp(config, deps) → {start, stop}. No I/O on import; tests run it
 * in-process against real PostgreSQL and an operator-mode nats-server.
 *
 * start(): migrate → push the operator's own accounts (SYS, TRADEWIND, REPLAY, the per-plan
 * accounts) → create the TRADES mirror of native replay → push customer accounts the resolver has not confirmed → serve `GET/POST /api/nats` → outbox
 * relay (credentials.rotated) → the events consumer (user.created, subscription.changed) →
 * periodic resync; in the background, customer accounts signed by older code (e.g. before the per-mint
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
    help: 'GET (fetch) and POST (rotate) /api/nats by outcome',
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
  registerRoutes(http, { service, verify, requests, bodyLimitBytes: config.HTTP_BODY_LIMIT_BYTES });
  const consumer = createCredentialEventsConsumer({ db: deps.db, js: deps.js, jsm: deps.jsm, logger: log, registry: deps.registry, service });
  let resyncTimer: NodeJS.Timeout | undefined;
  const upgradeAbort = new AbortController();
  let upgrading: Promise<void> | undefined;

  return {
    service,
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
      await consumer.stop();
      await relay.stop();
    },
  };
}
