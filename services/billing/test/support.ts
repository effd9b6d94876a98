/**
 * Test harness: the real billing app in-process against a scratch PostgreSQL database, a private
 * nats-server and the local Stripe stand-in (reached through the official `stripe` client, as
 * with real keys); access tokens signed with a test ES256 key whose JWKS is served over HTTP
 * (billing verifies them exactly as in production); auth's gRPC GetUser answered by a small
 * real gRPC server.
 */
import { createServer, type Server } from 'node:http';
import { vi } from 'vitest';
import { randomUUID } from 'node:crypto';
import { jetstream, jetstreamManager, type JetStreamClient, type JetStreamManager } from '@nats-io/jetstream';
import { connect, headers as natsHeaders, type NatsConnection } from '@nats-io/transport-node';
import { SignJWT, exportJWK, generateKeyPair } from 'jose';
import Stripe from 'stripe';
import { Registry } from 'prom-client';
import {
  AppError,
  AuthServiceService,
  EVENTS_STREAM,
  decodeEvent,
  encodeEvent,
  newEventMeta,
  type AuthServiceServer,
  type EventTypes,
  type GetUserRequest,
  type GetUserResponse,
} from '@tradewind/contracts';
import { createDb, createLogger, ensureEventsStreams, startGrpcServer, unary, type Kysely } from '@tradewind/lib';
import { createTestDatabase, freePort, startNatsServer, type TestDatabase, type TestNatsServer } from '@tradewind/dev';
import { createApp, BILLING_SCHEMA, type BillingDatabase } from '../src/index.js';
import { startLocalStripe, type LocalStripe } from '@tradewind/dev';

export const SECRET_KEY = 'sk_test_tradewind_harness';
export const WEBHOOK_SECRET = 'whsec_tradewind_harness';

export interface TestUser {
  userId: string;
  email: string;
  name: string;
  /** `Bearer <access token>` for this user. */
  authorization: string;
}

export interface Harness {
  publicUrl: string;
  baseUrl: string;
  grpcPort: number;
  stripe: Stripe;
  localStripe: LocalStripe;
  db: Kysely<BillingDatabase>;
  nc: NatsConnection;
  js: JetStreamClient;
  jsm: JetStreamManager;
  registry: Registry;
  app: ReturnType<typeof createApp>;
  /** Users auth's GetUser knows (add to make the gRPC fallback find them). */
  authUsers: Map<string, { email: string; name: string }>;
  /** A new user known to auth, announced with user.created (unless `announce` is false) and applied by billing. */
  newUser(options?: { announce?: boolean }): Promise<TestUser>;
  /** `Bearer <token>` for any user id. */
  tokenFor(userId: string, email?: string): Promise<string>;
  /** POSTs JSON to billing. */
  post(path: string, body: unknown, headers?: Record<string, string>): Promise<Response>;
  get(path: string, headers?: Record<string, string>): Promise<Response>;
  /** Delivers `event` to the webhook endpoint signed with `secret` (default the endpoint's) at `timestamp` (s, default now). */
  deliver(event: unknown, options?: { secret?: string; timestamp?: number }): Promise<Response>;
  /** Waits until every Stripe webhook was delivered and every outbox row published. */
  settle(): Promise<void>;
  /** subscription.changed events on EVENTS for `userId`, oldest first. */
  changes(userId: string): Promise<Array<EventTypes['subscription.changed']>>;
  close(): Promise<void>;
}

/**
 * Starts everything. `stripeApiUrl` overrides the Stripe origin (e.g. a closed port); `now` is the
 * clock (ms) of both billing and the stand-in (default Date.now), for tests that move time.
 */
export async function startHarness(label: string, options: { stripeApiUrl?: string; now?: () => number } = {}): Promise<Harness> {
  const database: TestDatabase = await createTestDatabase(label);
  const nats: TestNatsServer = await startNatsServer();
  const db = createDb<BillingDatabase>({ url: database.url, schema: BILLING_SCHEMA });
  const nc = await connect({ servers: nats.url });
  const jsm = await jetstreamManager(nc);
  const js = jetstream(nc);
  await ensureEventsStreams(jsm);

  // Access tokens: ES256, iss <PUBLIC_URL>/auth, aud tradewind, as auth issues them.
  const { privateKey, publicKey } = await generateKeyPair('ES256');
  const jwk = { ...(await exportJWK(publicKey)), kid: 'test', alg: 'ES256', use: 'sig' };
  const jwksServer: Server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ keys: [jwk] }));
  });
  await new Promise<void>((resolve) => jwksServer.listen(0, '127.0.0.1', resolve));
  const jwksPort = (jwksServer.address() as { port: number }).port;

  // auth's GetUser over real gRPC.
  const authUsers = new Map<string, { email: string; name: string }>();
  const logger = createLogger({ service: 'billing', level: 'silent' });
  const authImpl: Partial<AuthServiceServer> = {
    getUser: unary<GetUserRequest, GetUserResponse>(logger, 'GetUser', async (request) => {
      const user = authUsers.get(request.userId);
      if (!user) throw new AppError('not_found', `no user ${request.userId}`);
      return {
        user: {
          id: request.userId,
          email: user.email,
          name: user.name,
          avatarUrl: '',
          plan: 'starter',
          metadata: undefined,
          createdAt: new Date(),
          updatedAt: new Date(),
        },
      };
    }),
  };
  const authGrpc = await startGrpcServer([{ definition: AuthServiceService, implementation: authImpl as AuthServiceServer }], { host: '127.0.0.1', port: 0 });

  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const publicUrl = 'http://localhost:8080';
  const localStripe = await startLocalStripe({
    port: 0,
    secretKey: SECRET_KEY,
    webhookSecret: WEBHOOK_SECRET,
    webhookUrl: `${baseUrl}/api/stripe/webhook`,
    webhookRetryDelaysMs: [50, 200, 500],
    ...(options.now ? { now: options.now } : {}),
  });
  const registry = new Registry();
  const app = createApp(
    {
      PORT: port,
      HOST: '127.0.0.1',
      GRPC_PORT: 0,
      PUBLIC_URL: publicUrl,
      AUTH_JWKS_URL: `http://127.0.0.1:${jwksPort}/jwks.json`,
      AUTH_ISSUER: undefined,
      AUTH_ADDR: `127.0.0.1:${authGrpc.port}`,
      STRIPE_SECRET_KEY: SECRET_KEY,
      STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET,
      STRIPE_API_URL: options.stripeApiUrl ?? localStripe.apiUrl,
      STRIPE_TIMEOUT_MS: 5_000,
      STRIPE_MAX_NETWORK_RETRIES: 0,
      STRIPE_WEBHOOK_TOLERANCE_SECONDS: 300,
      STRIPE_PRICE_CACHE_SECONDS: 600,
      UPGRADE_PREVIEW_MAX_AGE_SECONDS: 1800,
      OUTBOX_POLL_MS: 50,
      OUTBOX_BATCH_SIZE: 100,
      HTTP_BODY_LIMIT_BYTES: 16 * 1024,
      WEBHOOK_BODY_LIMIT_BYTES: 512 * 1024,
    },
    { db, js, jsm, logger, registry, ...(options.now ? { now: options.now } : {}) },
  );
  const { grpcPort } = await app.start();
  const stripe = new Stripe(SECRET_KEY, { host: '127.0.0.1', port: localStripe.port, protocol: 'http', maxNetworkRetries: 0 });

  async function tokenFor(userId: string, email = `${userId}@example.com`): Promise<string> {
    const token = await new SignJWT({ sid: randomUUID(), email, plan: 'starter' })
      .setProtectedHeader({ alg: 'ES256', kid: 'test' })
      .setSubject(userId)
      .setIssuer(`${publicUrl}/auth`)
      .setAudience('tradewind')
      .setIssuedAt()
      .setExpirationTime('15m')
      .sign(privateKey);
    return `Bearer ${token}`;
  }

  const harness: Harness = {
    publicUrl,
    baseUrl,
    grpcPort,
    stripe,
    localStripe,
    db,
    nc,
    js,
    jsm,
    registry,
    app,
    authUsers,
    tokenFor,
    async newUser(opts = {}) {
      const userId = randomUUID();
      const email = `${userId.slice(0, 8)}@example.com`;
      const name = `User ${userId.slice(0, 4)}`;
      authUsers.set(userId, { email, name });
      if (opts.announce !== false) {
        const h = natsHeaders();
        const event: EventTypes['user.created'] = {
          meta: newEventMeta('user.created', 'auth'),
          userId,
          email,
          name,
          avatarUrl: '',
          plan: 'starter',
          billingPeriod: 'indefinite',
          identityProvider: 'local-oidc',
        };
        h.set('Nats-Msg-Id', event.meta!.eventId);
        await js.publish('user.created', encodeEvent('user.created', event), { headers: h });
        await vi.waitFor(
          async () => {
            const applied = await db.selectFrom('subscriptions').select('user_id').where('user_id', '=', userId).executeTakeFirst();
            if (!applied) throw new Error('user.created not applied by billing yet');
          },
          { timeout: 10_000, interval: 25 },
        );
      }
      return { userId, email, name, authorization: await tokenFor(userId, email) };
    },
    post: (path, body, headers = {}) =>
      fetch(`${baseUrl}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: typeof body === 'string' ? body : JSON.stringify(body),
      }),
    get: (path, headers = {}) => fetch(`${baseUrl}${path}`, { headers }),
    async deliver(event, opts = {}) {
      const payload = JSON.stringify(event);
      const signature = Stripe.webhooks.generateTestHeaderString({
        payload,
        secret: opts.secret ?? WEBHOOK_SECRET,
        timestamp: opts.timestamp ?? Math.floor(Date.now() / 1000),
      });
      return fetch(`${baseUrl}/api/stripe/webhook`, {
        method: 'POST',
        headers: { 'content-type': 'application/json; charset=utf-8', 'stripe-signature': signature },
        body: payload,
      });
    },
    async settle() {
      await localStripe.flushWebhooks();
      await app.relay.drain();
    },
    async changes(userId) {
      const info = await jsm.streams.info(EVENTS_STREAM);
      const out: Array<EventTypes['subscription.changed']> = [];
      for (let seq = info.state.first_seq; seq <= info.state.last_seq && info.state.messages > 0; seq++) {
        const msg = await jsm.streams.getMessage(EVENTS_STREAM, { seq }).catch(() => null);
        if (!msg || msg.subject !== 'subscription.changed') continue;
        const event = decodeEvent('subscription.changed', msg.data);
        if (event.userId === userId) out.push(event);
      }
      return out;
    },
    async close() {
      await app.stop();
      await localStripe.stop();
      await authGrpc.stop();
      await new Promise<void>((resolve) => jwksServer.close(() => resolve()));
      await nc.close();
      await db.destroy();
      await nats.stop();
      await database.drop();
    },
  };
  return harness;
}

/** The JSON body of a response. */
export async function json<T = Record<string, unknown>>(res: Response): Promise<T> {
  return (await res.json()) as T;
}
