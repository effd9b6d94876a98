/**
 * Test harness: the real auth app in-process (port 0 for gRPC, a free port for HTTP so
 * PUBLIC_URL is known), a scratch PostgreSQL database, a private nats-server, and the local
 * OpenID Connect provider; plus a tiny browser (cookie jar + manual redirects) that drives the
 * sign-in redirect flow exactly as a browser would.
 */
import { jetstream, jetstreamManager, type JetStreamManager } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { Registry } from 'prom-client';
import { createDb, createLogger, ensureEventsStreams, type Kysely } from '@tradewind/lib';
import {
  createTestDatabase,
  freePort,
  startLocalOidcProvider,
  startNatsServer,
  type LocalOidcProvider,
  type TestDatabase,
  type TestNatsServer,
} from '@tradewind/dev';
import { createApp, AUTH_SCHEMA, type AuthDatabase, type AuthDeps } from '../src/index.js';

export interface Harness {
  publicUrl: string;
  grpcPort: number;
  oidc: LocalOidcProvider;
  db: Kysely<AuthDatabase>;
  nc: NatsConnection;
  jsm: JetStreamManager;
  registry: Registry;
  app: ReturnType<typeof createApp>;
  close(): Promise<void>;
}

export async function startHarness(label: string, overrides: Partial<Parameters<typeof createApp>[0]> = {}, deps: Partial<AuthDeps> = {}): Promise<Harness> {
  const database: TestDatabase = await createTestDatabase(label);
  const nats: TestNatsServer = await startNatsServer();
  const oidc = await startLocalOidcProvider({ port: 0, host: '127.0.0.1', publicHost: '127.0.0.1' });
  const db = createDb<AuthDatabase>({ url: database.url, schema: AUTH_SCHEMA });
  const nc = await connect({ servers: nats.url });
  const jsm = await jetstreamManager(nc);
  await ensureEventsStreams(jsm);
  const port = await freePort();
  const publicUrl = `http://127.0.0.1:${port}`;
  const registry = new Registry();
  const app = createApp(
    {
      PORT: port,
      HOST: '127.0.0.1',
      GRPC_PORT: 0,
      PUBLIC_URL: publicUrl,
      GOOGLE_CLIENT_ID: undefined,
      GOOGLE_CLIENT_SECRET: undefined,
      LOCAL_OIDC_ISSUER: oidc.issuer,
      AUTH_JWT_PRIVATE_KEY: undefined,
      AUTH_JWT_PRIVATE_KEY_FILE: undefined,
      ACCESS_TOKEN_TTL_SECONDS: 900,
      REFRESH_TOKEN_TTL_SECONDS: 3600,
      LOGIN_ATTEMPT_TTL_SECONDS: 600,
      OUTBOX_POLL_MS: 100,
      OUTBOX_BATCH_SIZE: 100,
      HTTP_BODY_LIMIT_BYTES: 16 * 1024,
      PROFILE_NAME_MAX_CHARS: 100,
      NOTIFICATIONS_MAX_PER_USER: 200,
      NOTIFICATIONS_PAGE_DEFAULT: 20,
      NOTIFICATIONS_PAGE_MAX: 100,
      NOTIFICATIONS_UNREAD_MAX_AGE_MS: 86_400_000,
      NOTIFICATIONS_READ_MAX_IDS: 200,
      NEWSLETTER_RATE_LIMIT_PER_MINUTE: 10,
      ...overrides,
    },
    { db, js: jetstream(nc), jsm, logger: createLogger({ service: 'auth', level: 'silent' }), registry, ...deps },
  );
  const { grpcPort } = await app.start();
  return {
    publicUrl,
    grpcPort,
    oidc,
    db,
    nc,
    jsm,
    registry,
    app,
    async close() {
      await app.stop();
      await nc.close();
      await db.destroy();
      await oidc.stop();
      await nats.stop();
      await database.drop();
    },
  };
}

/** A cookie jar and manual redirects: what a browser does during sign-in. */
export class Browser {
  readonly cookies = new Map<string, string>();

  async get(url: string, headers: Record<string, string> = {}): Promise<Response> {
    const res = await fetch(url, { redirect: 'manual', headers: { ...headers, ...this.cookieHeader(url) } });
    this.store(res);
    return res;
  }

  async post(url: string, body?: unknown, headers: Record<string, string> = {}): Promise<Response> {
    const res = await fetch(url, {
      method: 'POST',
      redirect: 'manual',
      headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers, ...this.cookieHeader(url) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    this.store(res);
    return res;
  }

  private cookieHeader(url: string): Record<string, string> {
    // All cookies auth sets have Path=/auth; the provider sets none.
    if (!new URL(url).pathname.startsWith('/auth') || this.cookies.size === 0) return {};
    return { cookie: [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ') };
  }

  private store(res: Response): void {
    for (const line of res.headers.getSetCookie()) {
      const [pair, ...attrs] = line.split(';');
      const eq = pair!.indexOf('=');
      const name = pair!.slice(0, eq).trim();
      const value = pair!.slice(eq + 1).trim();
      const expired = attrs.some((a) => /^\s*max-age=0\s*$/i.test(a) || /^\s*expires=thu, 01 jan 1970/i.test(a));
      if (expired || value === '') this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }
}

/** Follows the sign-in flow; `login_hint` answers the local provider's page. @returns the final Location and the auth-side responses. */
export async function signIn(
  h: Harness,
  browser: Browser,
  options: { email: string; name?: string; query?: string },
): Promise<{ location: string; providerUrl: string }> {
  const start = await browser.get(`${h.publicUrl}/auth/login${options.query ? `?${options.query}` : ''}`);
  if (start.status !== 302) throw new Error(`login answered ${start.status}`);
  const providerUrl = start.headers.get('location')!;
  if (!providerUrl.startsWith(h.oidc.issuer)) return { location: providerUrl, providerUrl };
  const authorize = new URL(providerUrl);
  authorize.searchParams.set('login_hint', options.email);
  if (options.name) authorize.searchParams.set('local_name', options.name);
  const provider = await browser.get(authorize.toString());
  if (provider.status !== 302) throw new Error(`provider answered ${provider.status}: ${await provider.text()}`);
  const callback = await browser.get(provider.headers.get('location')!);
  if (callback.status !== 302) throw new Error(`callback answered ${callback.status}: ${await callback.text()}`);
  return { location: callback.headers.get('location')!, providerUrl };
}
