/**
 * billing: createApp(config, deps) → {start, stop}. No I/O on import; tests run it in-process
 * against real PostgreSQL and NATS, with Stripe reached through its official client (pointed at
 * a stand-in speaking Stripe's API when STRIPE_API_URL is set).
 */
import { randomBytes } from 'node:crypto';
import { Counter, type Registry } from 'prom-client';
import type { JetStreamClient, JetStreamManager } from '@nats-io/jetstream';
import {
  AuthServiceClient, callUnary, createAccessTokenVerifier, createHttpApp, createOutboxRelay, freePort, grpcCredentials, migrate, startGrpcServer,
  type AccessTokenClaims, type Kysely, type Logger,
} from '@tradewind/lib';
import type { BillingConfig } from './config.js';
import type { BillingDatabase } from './db/schema.js';
import { BILLING_SCHEMA, billingMigrations } from './db/migrations.js';
import { registerRoutes } from './http/routes.js';
import { billingGrpcService } from './grpc/billing-service.js';
import { createUserCreatedConsumer } from './events/user-created.js';
import { createBillingService, type BillingUser } from './service.js';
import { createStripeGateway, type StripeGateway } from './stripe/gateway.js';
import { startLocalStripe, type LocalStripe } from './local-stripe/index.js';

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

type AppConfig = Pick<BillingConfig,
  'PORT' | 'HOST' | 'GRPC_PORT' | 'PUBLIC_URL' | 'AUTH_JWKS_URL' | 'AUTH_ISSUER' | 'AUTH_ADDR' | 'STRIPE_SECRET_KEY' | 'STRIPE_WEBHOOK_SECRET'
  | 'STRIPE_API_URL' | 'STRIPE_TIMEOUT_MS' | 'STRIPE_MAX_NETWORK_RETRIES' | 'STRIPE_WEBHOOK_TOLERANCE_SECONDS' | 'STRIPE_PRICE_CACHE_SECONDS' | 'UPGRADE_PREVIEW_MAX_AGE_SECONDS'
  | 'LOCAL_STRIPE_PORT' | 'LOCAL_STRIPE_PUBLIC_URL' | 'OUTBOX_POLL_MS' | 'OUTBOX_BATCH_SIZE' | 'HTTP_BODY_LIMIT_BYTES' | 'WEBHOOK_BODY_LIMIT_BYTES'>;

export function createApp(config: AppConfig, deps: BillingDeps) {
  const publicUrl = config.PUBLIC_URL.replace(/\/$/, '');
  const log = deps.logger;
  const relay = createOutboxRelay({ db: deps.db, js: deps.js, schema: BILLING_SCHEMA, logger: log.child({ component: 'outbox-relay' }), registry: deps.registry, pollIntervalMs: config.OUTBOX_POLL_MS, batchSize: config.OUTBOX_BATCH_SIZE });
  const webhooks = new Counter({ name: 'tradewind_billing_webhook_events_total', help: 'Stripe webhook deliveries by event type and outcome (applied, unchanged, stale, ignored, unhandled, duplicate, invalid_signature)', labelNames: ['type', 'outcome'], registers: [deps.registry] });
  const subscriptionChanges = new Counter({
    name: 'tradewind_billing_subscription_changes_total',
    help: 'subscription.changed events billing wrote, by effective plan before and after (starter when a subscription is not active, trialing or past_due): upgrades, downgrades, churn to starter; a change of period or status alone keeps both plans',
    labelNames: ['from_plan', 'to_plan'], registers: [deps.registry],
  });
  const http = createHttpApp({ logger: log, registry: deps.registry, service: 'billing', bodyLimitBytes: config.HTTP_BODY_LIMIT_BYTES, trustProxy: true });
  const authClient = deps.lookupUser ? undefined : new AuthServiceClient(config.AUTH_ADDR, grpcCredentials.createInsecure());
  const lookupUser = deps.lookupUser ?? (async (userId: string, requestId: string): Promise<BillingUser | undefined> => {
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
  let localStripe: LocalStripe | undefined;
  let consumer: ReturnType<typeof createUserCreatedConsumer> | undefined;
  let gateway: StripeGateway | undefined;

  return {
    /**
     * Migrates; starts the local Stripe stand-in when no STRIPE_SECRET_KEY is set; serves HTTP and
     * gRPC; starts the outbox relay and the user.created consumer.
     * @returns the bound ports (and the stand-in's API origin when it runs).
     */
    async start(): Promise<{ httpPort: number; grpcPort: number; localStripeUrl?: string }> {
      await migrate(deps.db, BILLING_SCHEMA, billingMigrations, log);
      let port = config.PORT;
      let stripeOptions: { secretKey: string; webhookSecret: string; apiUrl?: string };
      if (config.STRIPE_SECRET_KEY) {
        stripeOptions = { secretKey: config.STRIPE_SECRET_KEY, webhookSecret: config.STRIPE_WEBHOOK_SECRET!, apiUrl: config.STRIPE_API_URL };
      } else {
        // Offline developer machine: the labelled stand-in delivers signed webhooks to our own endpoint.
        if (port === 0) port = await freePort();
        const secretKey = `sk_test_local_${randomBytes(12).toString('hex')}`;
        const webhookSecret = `whsec_local_${randomBytes(18).toString('hex')}`;
        localStripe = await startLocalStripe({
          port: config.LOCAL_STRIPE_PORT, host: '127.0.0.1', publicUrl: config.LOCAL_STRIPE_PUBLIC_URL, secretKey, webhookSecret,
          webhookUrl: `http://127.0.0.1:${port}/api/stripe/webhook`, logger: log.child({ component: 'local-stripe' }),
        });
        stripeOptions = { secretKey, webhookSecret, apiUrl: localStripe.apiUrl };
        log.warn({ checkout_origin: localStripe.publicUrl }, 'no STRIPE_SECRET_KEY: payments go to the LOCAL Stripe stand-in (test checkout, no real payment)');
      }
      gateway = createStripeGateway({
        ...stripeOptions, timeoutMs: config.STRIPE_TIMEOUT_MS, maxNetworkRetries: config.STRIPE_MAX_NETWORK_RETRIES,
        webhookToleranceSeconds: config.STRIPE_WEBHOOK_TOLERANCE_SECONDS, priceCacheSeconds: config.STRIPE_PRICE_CACHE_SECONDS, logger: log.child({ component: 'stripe' }),
      });
      const service = createBillingService({
        db: deps.db, stripe: gateway, relay, logger: log, publicUrl, lookupUser, subscriptionChanges, upgradePreviewMaxAgeSeconds: config.UPGRADE_PREVIEW_MAX_AGE_SECONDS,
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
      return { httpPort, grpcPort: grpc.port, ...(localStripe ? { localStripeUrl: localStripe.apiUrl } : {}) };
    },
    /** Stops accepting, lets in-flight requests finish, then stops the consumer, the relay and the stand-in. */
    async stop(): Promise<void> {
      await http.close();
      await grpc?.stop();
      await consumer?.stop();
      await relay.stop();
      await localStripe?.stop();
      authClient?.close();
    },
    relay,
    /** The local Stripe stand-in while it runs (no STRIPE_SECRET_KEY). */
    get localStripe(): LocalStripe | undefined {
      return localStripe;
    },
  };
}
