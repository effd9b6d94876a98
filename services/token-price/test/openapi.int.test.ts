/**
 * token-price's route declaration (src/http/api.ts, the source of GET /api/openapi.json) against
 * the routes the service registers and answers: the same set of routes, and the `limit` schema
 * accepting exactly what the live route accepts (docs/openapi.md).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { createClient } from 'redis';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { Counter, Registry } from 'prom-client';
import { buildOpenApiDocument, createHttpApp, createLogger, ensureTradesStream, openApiOperations, recordRoutes } from '@tradewind/lib';
import { startNatsServer, type TestNatsServer } from '@tradewind/dev';
import { createApp } from '../src/app.js';
import { TokenPriceConfigSchema } from '../src/config.js';
import { registerRoutes } from '../src/http/routes.js';
import { tokenPriceApi } from '../src/http/api.js';
import type { Redis } from '../src/store/redis-store.js';

const MAX_LIMIT = 50;
const logger = createLogger({ service: 'token-price-test', level: 'silent' });
let nats: TestNatsServer;
let nc: NatsConnection;
let redis: Redis;
let app: ReturnType<typeof createApp>;
let base: string;

/** Registration must not touch its dependencies: any use of this one fails the test. */
const untouchable = <T>(name: string) =>
  new Proxy(
    {},
    {
      get: () => {
        throw new Error(`${name} used while registering routes`);
      },
    },
  ) as T;

beforeAll(async () => {
  nats = await startNatsServer();
  nc = await connect({ servers: nats.url });
  const jsm = await jetstreamManager(nc);
  await ensureTradesStream(jsm, { maxAgeMs: 86_400_000, duplicateWindowMs: 60_000, maxBytes: 16 * 1024 * 1024 });
  redis = createClient({ url: process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379' });
  await redis.connect();
  const config = TokenPriceConfigSchema.parse({
    PORT: '0',
    GRPC_PORT: '0',
    HOST: '127.0.0.1',
    TOKEN_PRICE_REDIS_PREFIX: `test:token-price-openapi:${randomUUID().slice(0, 8)}:`,
    TOKENS_CACHE_MS: '0',
    SOL_USD_PRICE: '150',
    TOKENS_MAX_LIMIT: String(MAX_LIMIT),
  });
  app = createApp(config, { logger, registry: new Registry(), redis, js: jetstream(nc), jsm });
  const { httpPort } = await app.start();
  base = `http://127.0.0.1:${httpPort}`;
});

afterAll(async () => {
  await app?.stop();
  await nc?.close();
  await redis?.quit();
  await nats?.stop();
});

describe('token-price OpenAPI declaration', () => {
  it('when routes.ts registers its routes, then they are exactly the declared operations', async () => {
    const http = createHttpApp({ logger, registry: new Registry(), service: 'token-price' });
    const registered = recordRoutes(http);
    registerRoutes(http, {
      ticker: untouchable('ticker'),
      logger,
      defaultLimit: 20,
      maxLimit: MAX_LIMIT,
      cacheMs: 0,
      requests: new Counter({ name: 'r_total', help: 'h', labelNames: ['outcome'], registers: [] }),
      tape: untouchable('tape'),
      tapeRetryAfterS: 15,
    });
    await http.ready();
    expect(registered.sort()).toEqual(openApiOperations(buildOpenApiDocument({ title: 't', version: '0', apis: [tokenPriceApi(MAX_LIMIT)] })));
    await http.close();
  });

  it('when each declared operation is called on the running service, then a route answers (not the no-route 404)', async () => {
    for (const route of tokenPriceApi(MAX_LIMIT).routes) {
      const res = await fetch(`${base}${route.path}`, { method: route.method.toUpperCase() });
      // The tape is a stream that stays open: its answer is the event stream, not a JSON body.
      if (res.headers.get('content-type')?.startsWith('text/event-stream')) {
        expect(res.status, `${route.method} ${route.path}`).toBe(200);
        await res.body?.cancel();
        continue;
      }
      const body = (await res.json()) as { message?: string };
      expect(body.message ?? '', `${route.method} ${route.path}`).not.toMatch(/^no route for/);
    }
  });

  it('when the schema and the live route get the same limits, then they accept and refuse the same ones', async () => {
    const limitSchema = tokenPriceApi(MAX_LIMIT).routes[0]!.query!;
    const cases: Array<string | undefined> = [
      undefined,
      '1',
      '7',
      String(MAX_LIMIT),
      '050',
      '0',
      String(MAX_LIMIT + 1),
      '-1',
      '1.5',
      'abc',
      '',
      ' 5',
      '1e2',
      '9999999',
    ];
    for (const limit of cases) {
      const accepted = limitSchema.safeParse(limit === undefined ? {} : { limit }).success;
      const res = await fetch(`${base}/api/birdeye/tokens${limit === undefined ? '' : `?limit=${encodeURIComponent(limit)}`}`);
      expect(res.status === 400, `limit=${String(limit)}: schema ${accepted ? 'accepts' : 'refuses'}, route answered ${res.status}`).toBe(!accepted);
      if (!accepted) expect(await res.json()).toEqual({ status: 400, code: 'invalid_argument', message: `limit must be an integer from 1 to ${MAX_LIMIT}` });
    }
  });
});
