/**
 * billing: createApp(config, deps) → {start, stop}. No I/O on import; tests run it in-process
 * against real PostgreSQL and NATS, with Stripe reached through its official client (pointed at
 * a stand-in speaking Stripe's API when STRIPE_API_URL is set).
 */
import { Counter, type Registry } from 'prom-client';
import type { JetStreamClient, JetStreamManager } from '@nats-io/jetstream';
import { AuthServiceClient } from '@tradewind/contracts';
import {
  callUnary,
  createAccessTokenVerifier,
  createHttpApp,
  createOutboxRelay,
  grpcCredentials,
  migrate,
  startGrpcServer,
  type AccessTokenClaims,
  type Kysely,
  type Logger,
} from '@tradewind/lib';
import type { BillingConfig } from './config.js';
import type { BillingDatabase } from './db/schema.js';
import { BILLING_SCHEMA, billingMigrations } from './db/migrations.js';
import { registerRoutes } from './http/routes.js';
import { billingGrpcService } from './grpc/billing-service.js';
import { createUserCreatedConsumer } from './events/user-created.js';
import { createBillingService, type BillingUser } from './service.js';
import { createStripeGateway, type StripeGateway } from './stripe/gateway.js';

export interface BillingDeps {
  db: Kysely<BillingDatabase>;
  js: JetStreamClient;
  jsm: JetStreamManager;
  logger: Logger;
  registry: Registry;
  /** Overrides the access-token check (default: auth's JWKS at AUTH_JWKS_URL). */
  verifyAccessToken?: (authorization: string | undefined) => Promise<AccessTokenClaims>;
  /** Overrides the user lookup at auth (default: gRPC GetUser at AUTH_ADDR). */
  lookupUser?: (userId: string, requestId: string) => Promise<BillingUser | undefined>;
  /** Overrides billing's clock, ms since the epoch (default Date.now; tests move it with the stand-in's). */
  now?: () => number;
}

type AppConfig = Pick<
  BillingConfig,
  | 'PORT'
  | 'HOST'
  | 'GRPC_PORT'
  | 'PUBLIC_URL'
  | 'AUTH_JWKS_URL'
  | 'AUTH_ISSUER'
  | 'AUTH_ADDR'
  | 'STRIPE_SECRET_KEY'
  | 'STRIPE_WEBHOOK_SECRET'
  | 'STRIPE_API_URL'
  | 'STRIPE_TIMEOUT_MS'
  | 'STRIPE_MAX_NETWORK_RETRIES'
  | 'STRIPE_WEBHOOK_TOLERANCE_SECONDS'
  | 'STRIPE_PRICE_CACHE_SECONDS'
  | 'UPGRADE_PREVIEW_MAX_AGE_SECONDS'
  | 'OUTBOX_POLL_MS'
  | 'OUTBOX_BATCH_SIZE'
  | 'HTTP_BODY_LIMIT_BYTES'
  | 'WEBHOOK_BODY_LIMIT_BYTES'
>;

export function createApp(config: AppConfig, deps: BillingDeps) {
  const publicUrl = config.PUBLIC_URL.replace(/\/$/, '');
  const log = deps.logger;
  const relay = createOutboxRelay({
    db: deps.db,
    js: deps.js,
    schema: BILLING_SCHEMA,
    logger: log.child({ component: 'outbox-relay' }),
    registry: deps.registry,
    pollIntervalMs: config.OUTBOX_POLL_MS,
    batchSize: config.OUTBOX_BATCH_SIZE,
  });
  const webhooks = new Counter({
    name: 'tradewind_billing_webhook_events_total',
    help: 'Stripe webhook deliveries by event type and outcome (applied, unchanged, stale, ignored, unhandled, duplicate, invalid_signature)',
    labelNames: ['type', 'outcome'],
    registers: [deps.registry],
  });
  const subscriptionChanges = new Counter({
    name: 'tradewind_billing_subscription_changes_total',
    help: 'subscription.changed events billing wrote, by effective plan before and after (starter when a subscription is not active, trialing or past_due): upgrades, downgrades, churn to starter; a change of period or status alone keeps both plans',
    labelNames: ['from_plan', 'to_plan'],
    registers: [deps.registry],
  });
  const http = createHttpApp({ logger: log, registry: deps.registry, service: 'billing', bodyLimitBytes: config.HTTP_BODY_LIMIT_BYTES, trustProxy: true });
  const authClient = deps.lookupUser ? undefined : new AuthServiceClient(config.AUTH_ADDR, grpcCredentials.createInsecure());
  const lookupUser =
    deps.lookupUser ??
    (async (userId: string, requestId: string): Promise<BillingUser | undefined> => {
      try {
        const { user } = await callUnary(authClient!.getUser.bind(authClient!), { userId }, { requestId });
        return user ? { userId: user.id, email: user.email, name: user.name } : undefined;
      } catch (err) {
        if ((err as { code?: string }).code === 'not_found') return undefined;
        throw err;
      }
    });
  const verify = deps.verifyAccessToken ?? createAccessTokenVerifier(config.AUTH_JWKS_URL, config.AUTH_ISSUER ?? `${publicUrl}/auth`);
  let grpc: { port: number; stop(): Promise<void> } | undefined;
  let consumer: ReturnType<typeof createUserCreatedConsumer> | undefined;
  let gateway: StripeGateway | undefined;

  return {
    /**
     * Migrates; serves HTTP and gRPC; starts the outbox relay and the user.created consumer.
     * Stripe is reached at STRIPE_API_URL when set (in development, the local stand-in of
     * @tradewind/dev that `npm start` runs), else at Stripe's own API.
     * @returns the bound ports.
     */
    async start(): Promise<{ httpPort: number; grpcPort: number }> {
      await migrate(deps.db, BILLING_SCHEMA, billingMigrations, log);
      const port = config.PORT;
      const stripeOptions = { secretKey: config.STRIPE_SECRET_KEY, webhookSecret: config.STRIPE_WEBHOOK_SECRET, apiUrl: config.STRIPE_API_URL };
      gateway = createStripeGateway({
        ...stripeOptions,
        timeoutMs: config.STRIPE_TIMEOUT_MS,
        maxNetworkRetries: config.STRIPE_MAX_NETWORK_RETRIES,
        webhookToleranceSeconds: config.STRIPE_WEBHOOK_TOLERANCE_SECONDS,
        priceCacheSeconds: config.STRIPE_PRICE_CACHE_SECONDS,
        logger: log.child({ component: 'stripe' }),
      });
      const service = createBillingService({
        db: deps.db,
        stripe: gateway,
        relay,
        logger: log,
        publicUrl,
        lookupUser,
        subscriptionChanges,
        upgradePreviewMaxAgeSeconds: config.UPGRADE_PREVIEW_MAX_AGE_SECONDS,
        ...(deps.now ? { now: deps.now } : {}),
      });
      registerRoutes(http, { service, stripe: gateway, verify, webhookBodyLimitBytes: config.WEBHOOK_BODY_LIMIT_BYTES, webhooks });
      await http.listen({ port, host: config.HOST });
      const address = http.server.address();
      const httpPort = typeof address === 'object' && address ? address.port : port;
      grpc = await startGrpcServer([billingGrpcService(deps.db, log)], { host: config.HOST, port: config.GRPC_PORT });
      relay.start();
      consumer = createUserCreatedConsumer({ db: deps.db, js: deps.js, jsm: deps.jsm, logger: log, registry: deps.registry, service });
      await consumer.start();
      return { httpPort, grpcPort: grpc.port };
    },
    /** Stops accepting, lets in-flight requests finish, then stops the consumer and the relay. */
    async stop(): Promise<void> {
      await http.close();
      await grpc?.stop();
      await consumer?.stop();
      await relay.stop();
      authClient?.close();
    },
    relay,
  };
}
