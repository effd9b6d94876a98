/** billing configuration: every key validated at start; local defaults for a developer machine. */
import { z } from 'zod';
import {
  CommonConfig,
  StreamReplicas,
  Port,
  PositiveInt,
  defaultPort,
  loadConfig,
  optionalString,
  optionalUrl,
  natsServerUrls,
  urlWithScheme,
} from '@tradewind/lib';

export const BillingConfigSchema = CommonConfig.extend({
  NODE_ENV: z.string().default('development'),
  ADMIN_PORT: Port.default(defaultPort('billing', 'admin')),
  /** Public HTTP API (`/api/checkout-sessions`, `/api/upgrade-preview`, `/api/create-portal-session`, `/api/get-subscription`, `/api/stripe/webhook`). */
  PORT: Port.default(defaultPort('billing', 'http')),
  HOST: z.string().default('0.0.0.0'),
  /** gRPC (`tradewind.v1.BillingService`); other services dial BILLING_ADDR=host:GRPC_PORT. */
  GRPC_PORT: Port.default(defaultPort('billing', 'grpc')),
  /** PostgreSQL; billing keeps its tables in schema `billing`. */
  DATABASE_URL: urlWithScheme(['postgres', 'postgresql']),
  DATABASE_POOL_SIZE: PositiveInt.default(10),
  NATS_URL: natsServerUrls(`nats://127.0.0.1:${defaultPort('nats', 'nats')}`),
  /** Replicas of EVENTS and EVENTS_DEAD_LETTER, which this service creates (default 1; 3 on the chart's 3-node NATS cluster). */
  NATS_STREAM_REPLICAS: StreamReplicas.default(1),
  NATS_CREDS: optionalString,
  /** Origin of the web app (the ingress): checkout return URLs are built from it and cancel URLs must be on it. */
  PUBLIC_URL: urlWithScheme(['http', 'https']).default(`http://localhost:${defaultPort('ingress', 'http')}`),
  /** auth's JWKS, for verifying access tokens locally. */
  AUTH_JWKS_URL: urlWithScheme(['http', 'https']).default(`http://127.0.0.1:${defaultPort('auth', 'http')}/auth/.well-known/jwks.json`),
  /** Issuer of access tokens; default `<PUBLIC_URL>/auth`. */
  AUTH_ISSUER: optionalUrl(['http', 'https']),
  /** auth's gRPC address (host:port), asked for a user billing has not heard of yet. */
  AUTH_ADDR: z
    .string()
    .regex(/^[^:\s]+:\d{1,5}$/, 'host:port')
    .default(`127.0.0.1:${defaultPort('auth', 'grpc')}`),
  /**
   * Stripe secret key (sk_live_… / sk_test_… / rk_…), required. On a developer machine `npm start`
   * runs the local Stripe stand-in (@tradewind/dev, a process of its own) and passes its test key,
   * webhook secret and STRIPE_API_URL; billing itself holds no stand-in.
   */
  STRIPE_SECRET_KEY: z
    .string({
      error: 'required: a Stripe secret key (sk_test_… in test mode); on a developer machine `npm start` runs the local Stripe stand-in and passes one',
    })
    .regex(/^(sk|rk)_(test|live)_/, 'must be a Stripe secret or restricted key (sk_test_…, sk_live_…, rk_…)'),
  /** Signing secret (whsec_…) of the webhook endpoint `<PUBLIC_URL>/api/stripe/webhook`, required. */
  STRIPE_WEBHOOK_SECRET: z
    .string({ error: "required: the webhook endpoint's whsec_… signing secret" })
    .min(1, "required: the webhook endpoint's whsec_… signing secret"),
  /** Another Stripe API origin (a stand-in speaking Stripe's API), e.g. http://127.0.0.1:12111; default Stripe's own. */
  STRIPE_API_URL: optionalUrl(['http', 'https']),
  /** Per-request timeout of Stripe API calls in ms (default 10 000) and automatic retries with idempotency keys (default 2). */
  STRIPE_TIMEOUT_MS: PositiveInt.default(10_000),
  STRIPE_MAX_NETWORK_RETRIES: z.coerce.number().int().min(0).max(10).default(2),
  /** Largest age of a webhook signature timestamp in s (Stripe's default tolerance: 300). */
  STRIPE_WEBHOOK_TOLERANCE_SECONDS: PositiveInt.default(300),
  /** How long verified Stripe prices are cached, s (default 600). */
  STRIPE_PRICE_CACHE_SECONDS: PositiveInt.default(600),
  /**
   * How long the amount of an upgrade preview (`/api/upgrade-preview`) can be confirmed, s
   * (default 1800): an older `proration_date` gets 409 and the user reviews a new amount.
   */
  UPGRADE_PREVIEW_MAX_AGE_SECONDS: PositiveInt.default(1800),
  OUTBOX_POLL_MS: PositiveInt.default(500),
  OUTBOX_BATCH_SIZE: PositiveInt.default(100),
  /** Largest accepted JSON body of the API in bytes (default 16 KiB) and of a Stripe webhook (default 512 KiB). */
  HTTP_BODY_LIMIT_BYTES: PositiveInt.default(16 * 1024),
  WEBHOOK_BODY_LIMIT_BYTES: PositiveInt.default(512 * 1024),
});

export type BillingConfig = z.infer<typeof BillingConfigSchema>;

/** Parses the environment. @throws ConfigError listing every bad key. */
export function loadBillingConfig(env: NodeJS.ProcessEnv = process.env): Readonly<BillingConfig> {
  return loadConfig(BillingConfigSchema, env);
}
