/**
 * The services the HTTP fuzzer (http.ts) calls, each started in-process as its integration tests do
 * (services/<svc>/test/), on free ports with private databases / nats-servers, and a valid bearer token.
 */
import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Registry } from 'prom-client';
import { createServer, type Server } from 'node:http';
import { SignJWT, exportJWK, generateKeyPair } from 'jose';
import { createClient } from 'redis';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import {
  bearerToken,
  connectNats,
  createDb,
  createLogger,
  ensureEventsStreams,
  ensureTradesStream,
  startGrpcServer,
  unary,
  verifyAccessToken,
} from '@tradewind/lib';
import { AppError, AuthServiceService, type AuthServiceServer, type GetUserRequest, type GetUserResponse } from '@tradewind/contracts';
import { BILLING_SCHEMA, createApp as createBilling, type BillingDatabase } from '@tradewind/billing';
import { createTestDatabase, freePort, startLocalNats, startLocalStripe, startNatsServer } from '@tradewind/dev';
import {
  CREDENTIAL_ISSUER_SCHEMA,
  createApp as createCredentialIssuer,
  createSeedCipher,
  generateSeedKey,
  parseSeedKey,
  type CredentialIssuerDatabase,
} from '@tradewind/credential-issuer';
import { TokenPriceConfigSchema, createApp as createTokenPrice } from '@tradewind/token-price';
import { Browser, signIn, startHarness } from '../../../services/auth/test/support.js';

/** One route of the OpenAPI document (see http.ts openApiRoutes). */
export interface HttpTargetRoute {
  readonly method: string;
  readonly path: string;
  readonly open: boolean;
  readonly hasBody: boolean;
}

/** A running service and how to call it. */
export interface HttpTarget {
  readonly name: string;
  readonly port: number;
  /** OpenAPI path prefix the service serves. */
  readonly prefixes: readonly string[];
  /** HTTP_BODY_LIMIT_BYTES of the service, bytes. */
  readonly bodyLimitBytes: number;
  /** `Bearer …` of a valid session (for routes behind bearer). */
  readonly bearer: string;
  /** Valid requests that must still be answered 200 after the run. */
  readonly healthChecks: ReadonlyArray<{ method: string; path: string; auth: boolean }>;
  /** Stops the service and everything started for it; never throws. */
  stop(): Promise<void>;
}

/** Runs `stops` last first, ignoring failures. */
async function stopAll(stops: Array<() => Promise<unknown>>): Promise<void> {
  for (const stop of stops.reverse()) await stop().catch(() => undefined);
}

/** auth (its test harness: private database, nats-server, local OpenID provider), signed in once. @throws Error when it cannot start. */
export async function startAuthTarget(): Promise<HttpTarget> {
  const h = await startHarness('fuzz_http_auth');
  try {
    const browser = new Browser();
    await signIn(h, browser, { email: 'fuzz@example.com', name: 'Fuzz' });
    const res = await browser.post(`${h.publicUrl}/auth/token`);
    if (res.status !== 200) throw new Error(`auth: /auth/token answered ${res.status}`);
    const session = (await res.json()) as { access_token: string };
    return {
      name: 'auth',
      port: Number(new URL(h.publicUrl).port),
      prefixes: ['/auth/', '/api/newsletter'],
      bodyLimitBytes: 16 * 1024,
      bearer: `Bearer ${session.access_token}`,
      healthChecks: [
        { method: 'GET', path: '/auth/user', auth: true },
        { method: 'GET', path: '/auth/provider', auth: false },
      ],
      stop: () => h.close(),
    };
  } catch (err) {
    await h.close().catch(() => undefined);
    throw err;
  }
}

/** token-price against a private nats-server (TRADES) and the real Redis (a fresh key prefix). @throws Error when it cannot start. */
export async function startTokenPriceTarget(): Promise<HttpTarget> {
  const stops: Array<() => Promise<unknown>> = [];
  try {
    const nats = await startNatsServer();
    stops.push(() => nats.stop());
    const nc = await connect({ servers: nats.url });
    stops.push(() => nc.close());
    const jsm = await jetstreamManager(nc);
    await ensureTradesStream(jsm);
    const redis = createClient({ url: process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379' });
    await redis.connect();
    stops.push(() => redis.quit());
    const config = TokenPriceConfigSchema.parse({
      PORT: '0',
      GRPC_PORT: '0',
      HOST: '127.0.0.1',
      TOKEN_PRICE_REDIS_PREFIX: `fuzz:token-price:${randomUUID().slice(0, 8)}:`,
      TOKENS_CACHE_MS: '0',
      SOL_USD_PRICE: '150',
      TOKEN_PRICE_LEASE_MS: '900',
      TOKEN_PRICE_RETRY_DELAY_MS: '200',
      TOKENS_MAX_LIMIT: '100',
    });
    const app = createTokenPrice(config, {
      logger: createLogger({ service: 'token-price', level: 'silent' }),
      registry: new Registry(),
      redis,
      js: jetstream(nc),
      jsm,
    });
    const { httpPort } = await app.start();
    stops.push(() => app.stop());
    return {
      name: 'token-price',
      port: httpPort,
      prefixes: ['/api/birdeye/'],
      bodyLimitBytes: 64 * 1024,
      bearer: 'Bearer none',
      healthChecks: [{ method: 'GET', path: '/api/birdeye/tokens?limit=5', auth: false }],
      stop: () => stopAll(stops),
    };
  } catch (err) {
    await stopAll(stops);
    throw err;
  }
}

/** credential-issuer against an operator-mode nats-server and a private database; ES256 access tokens as auth signs them. @throws Error when it cannot start. */
export async function startCredentialIssuerTarget(): Promise<HttpTarget> {
  const publicUrl = 'http://localhost:8080';
  const stops: Array<() => Promise<unknown>> = [];
  try {
    const stateDir = await mkdtemp(join(tmpdir(), 'tw-fuzz-ci-'));
    stops.push(() => rm(stateDir, { recursive: true, force: true }));
    const nats = await startLocalNats({ stateDir, port: await freePort(), monitorPort: await freePort() });
    stops.push(() => nats.stop());
    const database = await createTestDatabase('fuzz_http_credential_issuer');
    stops.push(() => database.drop());
    const db = createDb<CredentialIssuerDatabase>({ url: database.url, schema: CREDENTIAL_ISSUER_SCHEMA });
    stops.push(() => db.destroy());
    const svc = await connectNats({ url: nats.url, creds: nats.identities.service_user_creds, name: 'fuzz-ci-svc' });
    stops.push(() => svc.close());
    const sys = await connectNats({ url: nats.url, creds: nats.identities.system_user_creds, name: 'fuzz-ci-sys' });
    stops.push(() => sys.close());
    const replayNc = await connectNats({ url: nats.url, creds: nats.identities.replay_user_creds, name: 'fuzz-ci-replay' });
    stops.push(() => replayNc.close());
    const jsm = await jetstreamManager(svc);
    await ensureEventsStreams(jsm);
    await ensureTradesStream(jsm);
    const keys = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const port = await freePort();
    const app = createCredentialIssuer(
      {
        PORT: port,
        HOST: '127.0.0.1',
        NATS_PUBLIC_URL: 'nats://localhost:4223',
        WS_PUBLIC_URL: 'wss://ws.tradewind.test',
        CREDENTIALS_TTL_SECONDS: 3600,
        CREDENTIALS_ROTATIONS_PER_DAY: 3,
        RESOLVER_RESYNC_INTERVAL_MS: 60_000,
        PUBLIC_URL: publicUrl,
        AUTH_JWKS_URL: 'http://127.0.0.1:1/unused',
        AUTH_ISSUER: undefined,
        OUTBOX_POLL_MS: 50,
        OUTBOX_BATCH_SIZE: 100,
        HTTP_BODY_LIMIT_BYTES: 4096,
      },
      {
        db,
        logger: createLogger({ service: 'credential-issuer', level: 'silent' }),
        registry: new Registry(),
        identities: nats.identities,
        cipher: createSeedCipher(parseSeedKey(generateSeedKey())),
        js: jetstream(svc),
        jsm,
        sysNc: sys,
        replayJsm: await jetstreamManager(replayNc),
        verifyAccessToken: (authorization) => verifyAccessToken(bearerToken(authorization), keys.publicKey, `${publicUrl}/auth`),
      },
    );
    await app.start();
    stops.push(() => app.stop());
    const token = await new SignJWT({ sid: randomUUID(), email: 'fuzz@example.com', plan: 'starter' })
      .setProtectedHeader({ alg: 'ES256', kid: 'test' })
      .setSubject(randomUUID())
      .setIssuer(`${publicUrl}/auth`)
      .setAudience('tradewind')
      .setIssuedAt()
      .setExpirationTime('1h')
      .sign(keys.privateKey);
    return {
      name: 'credential-issuer',
      port,
      prefixes: ['/api/nats'],
      bodyLimitBytes: 4096,
      bearer: `Bearer ${token}`,
      healthChecks: [{ method: 'GET', path: '/api/nats', auth: true }],
      stop: () => stopAll(stops),
    };
  } catch (err) {
    await stopAll(stops);
    throw err;
  }
}

/**
 * billing as services/billing/test/support.ts starts it (without vitest): private database and
 * nats-server, a JWKS server for ES256 access tokens, auth's GetUser over gRPC (knows the fuzz user),
 * the local Stripe stand-in. The Stripe webhook route is not fuzzed here. @throws Error when it cannot start.
 */
export async function startBillingTarget(): Promise<HttpTarget> {
  const publicUrl = 'http://localhost:8080';
  const stops: Array<() => Promise<unknown>> = [];
  try {
    const database = await createTestDatabase('fuzz_http_billing');
    stops.push(() => database.drop());
    const nats = await startNatsServer();
    stops.push(() => nats.stop());
    const db = createDb<BillingDatabase>({ url: database.url, schema: BILLING_SCHEMA });
    stops.push(() => db.destroy());
    const nc = await connect({ servers: nats.url });
    stops.push(() => nc.close());
    const jsm = await jetstreamManager(nc);
    await ensureEventsStreams(jsm);
    const { privateKey, publicKey } = await generateKeyPair('ES256');
    const jwk = { ...(await exportJWK(publicKey)), kid: 'fuzz', alg: 'ES256', use: 'sig' };
    const jwksServer: Server = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ keys: [jwk] }));
    });
    await new Promise<void>((r) => jwksServer.listen(0, '127.0.0.1', r));
    stops.push(() => new Promise<void>((r) => jwksServer.close(() => r())));
    const jwksPort = (jwksServer.address() as { port: number }).port;
    const logger = createLogger({ service: 'billing', level: 'silent' });
    const userId = randomUUID();
    const authImpl: Partial<AuthServiceServer> = {
      getUser: unary<GetUserRequest, GetUserResponse>(logger, 'GetUser', async (request) => {
        if (request.userId !== userId) throw new AppError('not_found', `no user ${request.userId}`);
        return {
          user: {
            id: userId,
            email: 'fuzz@example.com',
            name: 'Fuzz',
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
    stops.push(() => authGrpc.stop());
    const port = await freePort();
    const localStripe = await startLocalStripe({
      port: 0,
      secretKey: 'sk_test_tradewind_fuzz',
      webhookSecret: 'whsec_tradewind_fuzz',
      webhookUrl: `http://127.0.0.1:${port}/api/stripe/webhook`,
      webhookRetryDelaysMs: [50],
    });
    stops.push(() => localStripe.stop());
    const app = createBilling(
      {
        PORT: port,
        HOST: '127.0.0.1',
        GRPC_PORT: 0,
        PUBLIC_URL: publicUrl,
        AUTH_JWKS_URL: `http://127.0.0.1:${jwksPort}/jwks.json`,
        AUTH_ISSUER: undefined,
        AUTH_ADDR: `127.0.0.1:${authGrpc.port}`,
        STRIPE_SECRET_KEY: 'sk_test_tradewind_fuzz',
        STRIPE_WEBHOOK_SECRET: 'whsec_tradewind_fuzz',
        STRIPE_API_URL: localStripe.apiUrl,
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
      { db, js: jetstream(nc), jsm, logger, registry: new Registry() },
    );
    await app.start();
    stops.push(() => app.stop());
    const token = await new SignJWT({ sid: randomUUID(), email: 'fuzz@example.com', plan: 'starter' })
      .setProtectedHeader({ alg: 'ES256', kid: 'fuzz' })
      .setSubject(userId)
      .setIssuer(`${publicUrl}/auth`)
      .setAudience('tradewind')
      .setIssuedAt()
      .setExpirationTime('1h')
      .sign(privateKey);
    return {
      name: 'billing',
      port,
      prefixes: ['/api/checkout-sessions', '/api/create-portal-session', '/api/get-subscription', '/api/upgrade-preview'],
      bodyLimitBytes: 16 * 1024,
      bearer: `Bearer ${token}`,
      healthChecks: [{ method: 'GET', path: '/api/get-subscription', auth: true }],
      stop: () => stopAll(stops),
    };
  } catch (err) {
    await stopAll(stops);
    throw err;
  }
}
