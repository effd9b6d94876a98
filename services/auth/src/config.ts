/** auth configuration: every key validated at start; local defaults for a developer machine. */
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

/**
 * Shortest NEWSLETTER_UNSUBSCRIBE_SECRET, characters: RFC 2104 §3 strongly discourages HMAC keys shorter than the
 * hash's output, 32 bytes for SHA-256; 32 ASCII characters are 32 bytes (`openssl rand -base64 32` gives 44).
 */
export const NEWSLETTER_UNSUBSCRIBE_SECRET_MIN_CHARS = 32;

export const AuthConfigSchema = CommonConfig.extend({
  NODE_ENV: z.string().default('development'),
  ADMIN_PORT: Port.default(defaultPort('auth', 'admin')),
  /** Public HTTP API (`/auth/*`), reached through the ingress / local proxy. */
  PORT: Port.default(defaultPort('auth', 'http')),
  HOST: z.string().default('0.0.0.0'),
  /** gRPC (`tradewind.v1.AuthService`); other services dial AUTH_ADDR=host:GRPC_PORT. */
  GRPC_PORT: Port.default(defaultPort('auth', 'grpc')),
  /** PostgreSQL; auth keeps its tables in schema `auth`. */
  DATABASE_URL: urlWithScheme(['postgres', 'postgresql']),
  DATABASE_POOL_SIZE: PositiveInt.default(10),
  NATS_URL: natsServerUrls(`nats://127.0.0.1:${defaultPort('nats', 'nats')}`),
  /** Replicas of EVENTS and EVENTS_DEAD_LETTER, which this service creates (default 1; 3 on the chart's 3-node NATS cluster). */
  NATS_STREAM_REPLICAS: StreamReplicas.default(1),
  /** `.creds` file of the services' NATS user (operator mode); unset for a server without auth. */
  NATS_CREDS: optionalString,
  /** Origin the browser uses for the web app and `/auth/*` (the ingress); callback and redirects are built from it. */
  PUBLIC_URL: urlWithScheme(['http', 'https']).default(`http://localhost:${defaultPort('ingress', 'http')}`),
  /** Google OAuth 2.0 client (https://console.cloud.google.com/apis/credentials); redirect URI `<PUBLIC_URL>/auth/callback`. */
  GOOGLE_CLIENT_ID: optionalString,
  GOOGLE_CLIENT_SECRET: optionalString,
  /** Issuer URL of the local OpenID Connect provider (`npm start` sets it when Google is not configured). */
  LOCAL_OIDC_ISSUER: optionalUrl(['http', 'https']),
  /** ES256 private key (PKCS#8 PEM) signing access tokens; required in production (one key for all replicas). */
  AUTH_JWT_PRIVATE_KEY: optionalString,
  /** File holding that key; `npm start` keeps one in the state directory. */
  AUTH_JWT_PRIVATE_KEY_FILE: optionalString,
  /** Access-token lifetime in seconds (default 900 = 15 min). */
  ACCESS_TOKEN_TTL_SECONDS: PositiveInt.default(900),
  /** Refresh-token (session) lifetime in seconds without use (default 30 days). */
  REFRESH_TOKEN_TTL_SECONDS: PositiveInt.default(30 * 24 * 3600),
  /** How long a started sign-in (state, nonce, PKCE verifier) stays valid, seconds (default 600). */
  LOGIN_ATTEMPT_TTL_SECONDS: PositiveInt.default(600),
  /** Outbox relay poll interval in ms (default 500) and batch size (default 100). */
  OUTBOX_POLL_MS: PositiveInt.default(500),
  OUTBOX_BATCH_SIZE: PositiveInt.default(100),
  /** Largest accepted request body in bytes (default 16 KiB). */
  HTTP_BODY_LIMIT_BYTES: PositiveInt.default(16 * 1024),
  /** Longest display name `PATCH /auth/user` accepts, in characters (Unicode code points) after trimming (default 100). */
  PROFILE_NAME_MAX_CHARS: PositiveInt.default(100),
  /** Notifications kept per user; older ones are deleted when a new one is stored (default 200). */
  NOTIFICATIONS_MAX_PER_USER: PositiveInt.default(200),
  /** Events older than this (ms) when the notifications consumer stores them arrive already read (catch-up on history; default 24 h). */
  NOTIFICATIONS_UNREAD_MAX_AGE_MS: PositiveInt.default(86_400_000),
  /** `GET /auth/notifications` page size without `limit` (default 20) and the largest `limit` accepted (default 100). */
  NOTIFICATIONS_PAGE_DEFAULT: PositiveInt.default(20),
  NOTIFICATIONS_PAGE_MAX: PositiveInt.default(100),
  /** Most ids one `POST /auth/notifications/read` may name (default 200). */
  NOTIFICATIONS_READ_MAX_IDS: PositiveInt.default(200),
  /** `POST /api/newsletter` requests per client address per minute, across replicas (default 10); more answer 429 rate_limited. */
  NEWSLETTER_RATE_LIMIT_PER_MINUTE: PositiveInt.default(10),
  /**
   * Secret of the newsletter's one-click unsubscribe links (HMAC-SHA256 key derived from it: domain/newsletter.ts
   * newsletterUnsubscribeKey), at least NEWSLETTER_UNSUBSCRIBE_SECRET_MIN_CHARS (32) characters, the same on every
   * replica. Unset: derived from the access-token signing key (AUTH_JWT_PRIVATE_KEY), so rotating that key also
   * invalidates the links in mails already sent; set this to keep them apart.
   */
  NEWSLETTER_UNSUBSCRIBE_SECRET: optionalString,
}).superRefine((c, ctx) => {
  const production = c.NODE_ENV === 'production';
  if (c.LOCAL_OIDC_ISSUER && (c.GOOGLE_CLIENT_ID || production)) {
    ctx.addIssue({
      code: 'custom',
      path: ['LOCAL_OIDC_ISSUER'],
      message: 'the local OpenID Connect provider is refused when GOOGLE_CLIENT_ID is set or NODE_ENV=production',
    });
  }
  if (!c.LOCAL_OIDC_ISSUER && !c.GOOGLE_CLIENT_ID) {
    ctx.addIssue({
      code: 'custom',
      path: ['GOOGLE_CLIENT_ID'],
      message: 'set GOOGLE_CLIENT_ID and GOOGLE_CLIENT_SECRET (or LOCAL_OIDC_ISSUER on a developer machine)',
    });
  }
  if (c.GOOGLE_CLIENT_ID && !c.GOOGLE_CLIENT_SECRET) {
    ctx.addIssue({ code: 'custom', path: ['GOOGLE_CLIENT_SECRET'], message: 'required with GOOGLE_CLIENT_ID' });
  }
  if (c.NEWSLETTER_UNSUBSCRIBE_SECRET !== undefined && c.NEWSLETTER_UNSUBSCRIBE_SECRET.length < NEWSLETTER_UNSUBSCRIBE_SECRET_MIN_CHARS) {
    ctx.addIssue({
      code: 'custom',
      path: ['NEWSLETTER_UNSUBSCRIBE_SECRET'],
      message: `must be at least ${NEWSLETTER_UNSUBSCRIBE_SECRET_MIN_CHARS} characters (e.g. openssl rand -base64 32)`,
    });
  }
  if (c.NOTIFICATIONS_PAGE_DEFAULT > c.NOTIFICATIONS_PAGE_MAX) {
    ctx.addIssue({ code: 'custom', path: ['NOTIFICATIONS_PAGE_DEFAULT'], message: `must not exceed NOTIFICATIONS_PAGE_MAX (${c.NOTIFICATIONS_PAGE_MAX})` });
  }
  if (production && !c.AUTH_JWT_PRIVATE_KEY && !c.AUTH_JWT_PRIVATE_KEY_FILE) {
    ctx.addIssue({ code: 'custom', path: ['AUTH_JWT_PRIVATE_KEY'], message: 'required in production so every replica signs with the same key' });
  }
});

export type AuthConfig = z.infer<typeof AuthConfigSchema>;

/** Parses the environment. @throws ConfigError listing every bad key. */
export function loadAuthConfig(env: NodeJS.ProcessEnv = process.env): Readonly<AuthConfig> {
  return loadConfig(AuthConfigSchema, env);
}
