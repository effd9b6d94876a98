/**
 * auth: createApp(config, deps) → {start, stop}. No I/O on import; tests run it in-process on
 * port 0 against real PostgreSQL and NATS.
 */
import cookie from '@fastify/cookie';
import { Counter, type Registry } from 'prom-client';
import type { JetStreamClient, JetStreamManager } from '@nats-io/jetstream';
import { createHttpApp, createOutboxRelay, migrate, startGrpcServer, type Kysely, type Logger } from '@tradewind/lib';
import type { AuthConfig } from './config.js';
import type { AuthDatabase } from './db/schema.js';
import { AUTH_SCHEMA, authMigrations } from './db/migrations.js';
import { purgeExpired } from './db/sessions.js';
import { registerRoutes } from './http/routes.js';
import { authGrpcService } from './grpc/auth-service.js';
import { createSubscriptionConsumer } from './events/subscription-changed.js';
import { createNotificationsConsumer } from './events/notifications.js';
import { purgeRateLimits } from './db/newsletter.js';
import { createIdentityProvider, type IdentityProvider } from './domain/identity-provider.js';
import { loadSigningKey } from './domain/signing-key.js';
import { newsletterUnsubscribeKey } from './domain/newsletter.js';

export interface AuthDeps {
  db: Kysely<AuthDatabase>;
  js: JetStreamClient;
  jsm: JetStreamManager;
  logger: Logger;
  registry: Registry;
  /** Overrides the provider built from config (tests of provider failures). */
  provider?: IdentityProvider;
}

type AppConfig = Pick<
  AuthConfig,
  | 'PORT'
  | 'HOST'
  | 'GRPC_PORT'
  | 'PUBLIC_URL'
  | 'GOOGLE_CLIENT_ID'
  | 'GOOGLE_CLIENT_SECRET'
  | 'LOCAL_OIDC_ISSUER'
  | 'AUTH_JWT_PRIVATE_KEY'
  | 'AUTH_JWT_PRIVATE_KEY_FILE'
  | 'ACCESS_TOKEN_TTL_SECONDS'
  | 'REFRESH_TOKEN_TTL_SECONDS'
  | 'LOGIN_ATTEMPT_TTL_SECONDS'
  | 'OUTBOX_POLL_MS'
  | 'OUTBOX_BATCH_SIZE'
  | 'HTTP_BODY_LIMIT_BYTES'
  | 'PROFILE_NAME_MAX_CHARS'
  | 'NOTIFICATIONS_MAX_PER_USER'
  | 'NOTIFICATIONS_UNREAD_MAX_AGE_MS'
  | 'NOTIFICATIONS_PAGE_DEFAULT'
  | 'NOTIFICATIONS_PAGE_MAX'
  | 'NOTIFICATIONS_READ_MAX_IDS'
  | 'NEWSLETTER_RATE_LIMIT_PER_MINUTE'
  | 'NEWSLETTER_UNSUBSCRIBE_SECRET'
>;

/** Issuer (`iss`) of auth's access tokens: `<PUBLIC_URL>/auth`. */
export function accessTokenIssuer(publicUrl: string): string {
  return `${publicUrl.replace(/\/$/, '')}/auth`;
}

/** Interval of the purge of expired sign-in attempts and old sessions (ms). */
const PURGE_INTERVAL_MS = 60 * 60 * 1000;

export function createApp(config: AppConfig, deps: AuthDeps) {
  const publicUrl = config.PUBLIC_URL.replace(/\/$/, '');
  const issuer = accessTokenIssuer(publicUrl);
  const relay = createOutboxRelay({
    db: deps.db,
    js: deps.js,
    schema: AUTH_SCHEMA,
    logger: deps.logger.child({ component: 'outbox-relay' }),
    registry: deps.registry,
    pollIntervalMs: config.OUTBOX_POLL_MS,
    batchSize: config.OUTBOX_BATCH_SIZE,
  });
  const signIns = new Counter({
    name: 'tradewind_auth_sign_ins_total',
    help: 'Sign-in callbacks by outcome',
    labelNames: ['outcome'],
    registers: [deps.registry],
  });
  const refreshes = new Counter({
    name: 'tradewind_auth_token_refreshes_total',
    help: 'Refresh-token exchanges by outcome',
    labelNames: ['outcome'],
    registers: [deps.registry],
  });
  const usersCreated = new Counter({
    name: 'tradewind_auth_users_created_total',
    help: 'Users created at their first sign-in (the user.created event committed to the outbox); repeat sign-ins do not count',
    registers: [deps.registry],
  });
  const newsletterSignups = new Counter({
    name: 'tradewind_auth_newsletter_signups_total',
    help: 'POST /api/newsletter by outcome (subscribed, already_subscribed, invalid, rate_limited)',
    labelNames: ['outcome'],
    registers: [deps.registry],
  });
  const newsletterUnsubscribes = new Counter({
    name: 'tradewind_auth_newsletter_unsubscribes_total',
    help: 'POST /api/newsletter/unsubscribe (one-click links) by outcome (unsubscribed, not_subscribed, invalid_token)',
    labelNames: ['outcome'],
    registers: [deps.registry],
  });
  const http = createHttpApp({ logger: deps.logger, registry: deps.registry, service: 'auth', bodyLimitBytes: config.HTTP_BODY_LIMIT_BYTES, trustProxy: true });
  let grpc: { port: number; stop(): Promise<void> } | undefined;
  let purge: NodeJS.Timeout | undefined;
  const consumer = createSubscriptionConsumer({
    db: deps.db,
    js: deps.js,
    jsm: deps.jsm,
    logger: deps.logger.child({ component: 'subscription-consumer' }),
    registry: deps.registry,
  });
  const notifications = createNotificationsConsumer({
    db: deps.db,
    js: deps.js,
    jsm: deps.jsm,
    logger: deps.logger.child({ component: 'notifications-consumer' }),
    registry: deps.registry,
    maxPerUser: config.NOTIFICATIONS_MAX_PER_USER,
    unreadMaxAgeMs: config.NOTIFICATIONS_UNREAD_MAX_AGE_MS,
  });

  return {
    /** Migrates, then serves HTTP and gRPC and starts the outbox relay and the EVENTS consumers (subscription.changed, notifications). @returns the bound ports. */
    async start(): Promise<{ httpPort: number; grpcPort: number }> {
      await migrate(deps.db, AUTH_SCHEMA, authMigrations, deps.logger);
      const key = await loadSigningKey({ pem: config.AUTH_JWT_PRIVATE_KEY, file: config.AUTH_JWT_PRIVATE_KEY_FILE });
      if (key.ephemeral) deps.logger.warn('no AUTH_JWT_PRIVATE_KEY: access tokens are signed with a key generated for this process');
      const provider =
        deps.provider ??
        createIdentityProvider({
          redirectUri: `${issuer}/callback`,
          google: config.GOOGLE_CLIENT_ID ? { clientId: config.GOOGLE_CLIENT_ID, clientSecret: config.GOOGLE_CLIENT_SECRET ?? '' } : undefined,
          localIssuer: config.LOCAL_OIDC_ISSUER,
        });
      if (provider.name === 'local-oidc')
        deps.logger.warn({ issuer: config.LOCAL_OIDC_ISSUER }, 'sign-in uses the LOCAL OpenID Connect provider (no GOOGLE_CLIENT_ID)');
      await http.register(cookie);
      registerRoutes(http, {
        db: deps.db,
        key,
        provider,
        relay,
        logger: deps.logger,
        signIns,
        refreshes,
        usersCreated,
        newsletterSignups,
        newsletterUnsubscribes,
        config: {
          publicUrl,
          issuer,
          accessTokenTtlSeconds: config.ACCESS_TOKEN_TTL_SECONDS,
          refreshTokenTtlSeconds: config.REFRESH_TOKEN_TTL_SECONDS,
          loginAttemptTtlSeconds: config.LOGIN_ATTEMPT_TTL_SECONDS,
          account: {
            nameMaxChars: config.PROFILE_NAME_MAX_CHARS,
            pageDefault: config.NOTIFICATIONS_PAGE_DEFAULT,
            pageMax: config.NOTIFICATIONS_PAGE_MAX,
            readMaxIds: config.NOTIFICATIONS_READ_MAX_IDS,
          },
          newsletterPerMinute: config.NEWSLETTER_RATE_LIMIT_PER_MINUTE,
          newsletterUnsubscribeKey: newsletterUnsubscribeKey({ secret: config.NEWSLETTER_UNSUBSCRIBE_SECRET, signingKey: key.privateKey }),
        },
      });
      await http.listen({ port: config.PORT, host: config.HOST });
      const address = http.server.address();
      const httpPort = typeof address === 'object' && address ? address.port : config.PORT;
      grpc = await startGrpcServer([authGrpcService(deps.db, deps.logger)], { host: config.HOST, port: config.GRPC_PORT });
      relay.start();
      await consumer.start();
      await notifications.start();
      purge = setInterval(() => {
        purgeExpired(deps.db).catch((err: unknown) => deps.logger.warn({ err }, 'purge of expired sessions failed'));
        purgeRateLimits(deps.db).catch((err: unknown) => deps.logger.warn({ err }, 'purge of rate-limit windows failed'));
      }, PURGE_INTERVAL_MS);
      purge.unref();
      return { httpPort, grpcPort: grpc.port };
    },
    /** Stops accepting, lets in-flight requests finish, stops the relay after its batch. */
    async stop(): Promise<void> {
      if (purge) clearInterval(purge);
      await http.close();
      await grpc?.stop();
      await consumer.stop();
      await notifications.stop();
      await relay.stop();
    },
    relay,
    /** The notification bell's EVENTS consumer (tests rebuild it). */
    notifications,
  };
}
