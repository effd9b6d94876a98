/**
 * auth's route declaration (src/http/api.ts, the source of GET /api/openapi.json) against the
 * routes the service registers and answers: the same routes, and each query and body schema
 * accepting exactly what the live route accepts (docs/openapi.md). Real auth, PostgreSQL, NATS and
 * the local OpenID provider (test/support.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Counter, Registry } from 'prom-client';
import type { z } from 'zod';
import { buildOpenApiDocument, createHttpApp, createLogger, openApiOperations, recordRoutes } from '@tradewind/lib';
import { registerRoutes } from '../src/http/routes.js';
import {
  LoginQuerySchema,
  NewsletterBodySchema,
  NotificationPreferencesSchema,
  UnsubscribeQuerySchema,
  RefreshBodySchema,
  authApi,
  notificationsQuerySchema,
  profileUpdateSchema,
  readBodySchema,
} from '../src/http/api.js';
import { newsletterUnsubscribeKey, unsubscribeToken } from '../src/index.js';
import { Browser, signIn, startHarness, type Harness } from './support.js';

const LIMITS = { nameMaxChars: 100, pageMax: 100, readMaxIds: 200 };
const UNSUBSCRIBE_SECRET = 'openapi-unsubscribe-secret-0123456789';
const EMAIL = 'openapi@example.com';
let h: Harness;
let bearer: string;

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
  h = await startHarness('auth_openapi', { NEWSLETTER_RATE_LIMIT_PER_MINUTE: 1000, NEWSLETTER_UNSUBSCRIBE_SECRET: UNSUBSCRIBE_SECRET });
  const browser = new Browser();
  await signIn(h, browser, { email: EMAIL, name: 'Open Api' });
  const session = (await (await browser.post(`${h.publicUrl}/auth/token`)).json()) as { access_token: string };
  bearer = `Bearer ${session.access_token}`;
});
afterAll(async () => h?.close());

/** Sends `body` (JSON; none when undefined) and answers the status and JSON body. */
async function send(method: string, path: string, body: unknown, headers: Record<string, string> = {}): Promise<{ status: number; json: any }> {
  const res = await fetch(`${h.publicUrl}${path}`, {
    method,
    redirect: 'manual',
    headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, json: text ? JSON.parse(text) : undefined };
}

/** Every input: the schema's verdict must be the route's (400 for a refusal, `acceptedStatus` otherwise). */
async function agree(schema: z.ZodType, inputs: unknown[], call: (input: unknown) => Promise<{ status: number }>, acceptedStatus: number[]): Promise<void> {
  for (const input of inputs) {
    const accepted = schema.safeParse(input).success;
    const { status } = await call(input);
    const label = `${JSON.stringify(input)?.slice(0, 100)}: schema ${accepted ? 'accepts' : 'refuses'}, route answered ${status}`;
    if (accepted) expect(acceptedStatus, label).toContain(status);
    else expect(status, label).toBe(400);
  }
}

describe('auth OpenAPI declaration', () => {
  it('when routes.ts registers its routes, then they are exactly the declared operations', async () => {
    const http = createHttpApp({ logger: createLogger({ service: 'auth', level: 'silent' }), registry: new Registry(), service: 'auth' });
    const registered = recordRoutes(http);
    const counter = () => new Counter({ name: `c${Math.random().toString(36).slice(2)}_total`, help: 'h', labelNames: ['outcome'], registers: [] });
    registerRoutes(http, {
      db: untouchable('db'),
      key: untouchable('key'),
      provider: untouchable('provider'),
      relay: untouchable('relay'),
      logger: untouchable('logger'),
      signIns: counter(),
      refreshes: counter(),
      usersCreated: counter() as unknown as Counter,
      newsletterSignups: counter(),
      newsletterUnsubscribes: counter(),
      config: {
        publicUrl: 'http://localhost:8080',
        issuer: 'http://localhost:8080/auth',
        accessTokenTtlSeconds: 900,
        refreshTokenTtlSeconds: 3600,
        loginAttemptTtlSeconds: 600,
        account: { nameMaxChars: 100, pageDefault: 20, pageMax: 100, readMaxIds: 200 },
        newsletterPerMinute: 10,
        newsletterUnsubscribeKey: new Uint8Array(32),
      },
    });
    await http.ready();
    expect(registered.sort()).toEqual(openApiOperations(buildOpenApiDocument({ title: 't', version: '0', apis: [authApi(LIMITS)] })));
    await http.close();
  });

  it('when each declared operation is called on the running service, then a route answers (not the no-route 404)', async () => {
    for (const route of authApi(LIMITS).routes) {
      const res = await send(route.method.toUpperCase(), route.path, undefined);
      expect(res.json?.message ?? '', `${route.method} ${route.path}`).not.toMatch(/^no route for/);
    }
  });

  it('when the login query schema and GET /auth/login get the same query, then the schema refuses exactly what the route redirects with invalid_plan', async () => {
    const queries: Array<Record<string, string>> = [
      {},
      { tier: 'plus' },
      { tier: 'pro', period: 'yearly' },
      { tier: 'starter' },
      { tier: '' },
      { tier: '', period: '' },
      { login_hint: 'a@b.c' },
      { tier: 'gold' },
      { period: 'monthly' },
      { tier: 'plus', period: 'weekly' },
      { tier: 'PLUS' },
    ];
    for (const query of queries) {
      const accepted = LoginQuerySchema.safeParse(query).success;
      const res = await fetch(`${h.publicUrl}/auth/login?${new URLSearchParams(query).toString()}`, { redirect: 'manual' });
      expect(res.status).toBe(302);
      expect(res.headers.get('location')!.includes('error=invalid_plan'), `${JSON.stringify(query)}: schema ${accepted ? 'accepts' : 'refuses'}`).toBe(
        !accepted,
      );
    }
  });

  it('when the body schemas and PATCH /auth/user, PUT /auth/notification-preferences and POST /auth/notifications/read get the same bodies, then they agree', async () => {
    const auth = { authorization: bearer };
    await agree(
      profileUpdateSchema(LIMITS.nameMaxChars, EMAIL),
      [
        { name: 'Ann' },
        { name: '  Ann  ' },
        { name: 'x'.repeat(100) },
        { name: '😀'.repeat(100) },
        { name: 'Ann', email: EMAIL.toUpperCase() },
        { name: '' },
        { name: '   ' },
        { name: 'x'.repeat(101) },
        { name: 'a\nb' },
        { name: 5 },
        {},
        { name: 'Ann', email: 'other@example.com' },
        { name: 'Ann', plan: 'pro' },
        [],
        'Ann',
        null,
      ],
      (body) => send('PATCH', '/auth/user', body, auth),
      [200],
    );
    await agree(
      NotificationPreferencesSchema,
      [
        { plan_changes: true, payments: false, credentials: true, connection_limits: true },
        { plan_changes: true, payments: false, credentials: true },
        { plan_changes: true, payments: false, credentials: true, connection_limits: 'yes' },
        { plan_changes: true, payments: false, credentials: true, connection_limits: true, sms: true },
        [],
        null,
        true,
      ],
      (body) => send('PUT', '/auth/notification-preferences', body, auth),
      [200],
    );
    await agree(
      readBodySchema(LIMITS.readMaxIds),
      [
        { all: true },
        { ids: [] },
        { ids: ['not-a-uuid', '6f1c1a8e-6d0c-4a53-9d0f-9a2b0c3d4e5f'] },
        { ids: Array.from({ length: 200 }, () => 'x') },
        { all: false },
        { ids: [1] },
        { ids: 'x' },
        { ids: [], all: true },
        {},
        { ids: Array.from({ length: 201 }, () => 'x') },
        [],
        null,
      ],
      (body) => send('POST', '/auth/notifications/read', body, auth),
      [200],
    );
  });

  it('when the notifications query schema and GET /auth/notifications get the same query, then they agree', async () => {
    const schema = notificationsQuerySchema(LIMITS.pageMax);
    for (const query of [
      {},
      { limit: '1' },
      { limit: '100' },
      { limit: '' },
      { before: '6f1c1a8e-6d0c-4a53-9d0f-9a2b0c3d4e5f' },
      { before: '' },
      { limit: '0' },
      { limit: '101' },
      { limit: '2.5' },
      { limit: 'ten' },
      { before: 'nope' },
    ] as Array<Record<string, string>>) {
      const accepted = schema.safeParse(query).success;
      const res = await send('GET', `/auth/notifications?${new URLSearchParams(query).toString()}`, undefined, { authorization: bearer });
      expect(res.status, `${JSON.stringify(query)}: schema ${accepted ? 'accepts' : 'refuses'}`).toBe(accepted ? 200 : 400);
    }
  });

  it('when the refresh body schema and POST /auth/token and /auth/logout get the same bodies, then they agree', async () => {
    const bodies = [undefined, {}, { refresh_token: 'unknown' }, { other: 1 }, { refresh_token: 42 }, { refresh_token: null }, [], 'token', null, 3];
    const schema = { safeParse: (v: unknown) => (v === undefined ? { success: true } : RefreshBodySchema.safeParse(v)) } as unknown as z.ZodType;
    await agree(schema, bodies, (body) => send('POST', '/auth/token', body), [401]);
    await agree(schema, bodies, (body) => send('POST', '/auth/logout', body), [401]);
    expect((await send('POST', '/auth/token', { refresh_token: 42 })).json).toEqual({
      status: 400,
      code: 'invalid_argument',
      message: 'refresh_token must be a string',
    });
  });

  it('when the newsletter body schema and POST /api/newsletter get the same bodies, then they agree', async () => {
    await agree(
      NewsletterBodySchema,
      [
        { email: 'Reader@Example.com' },
        { email: ' reader2@example.com ', source: 'blog' },
        { email: 'reader3@example.com', source: null },
        { email: 'r4@example.com', extra: 1 },
        { email: 'not-an-address' },
        { email: 'a@localhost' },
        { email: '' },
        { email: 5 },
        {},
        { email: 'r5@example.com', source: 'ads' },
        [],
        'a@b.co',
        null,
      ],
      (body) => send('POST', '/api/newsletter', body),
      [200, 201],
    );
  });

  it('when the unsubscribe query schema and POST /api/newsletter/unsubscribe get the same queries, then the schema refuses exactly the malformed tokens', async () => {
    const key = newsletterUnsubscribeKey({ secret: UNSUBSCRIBE_SECRET });
    const token = unsubscribeToken(key, 'openapi-unsub@example.com');
    for (const query of [{ token }, {}, { token: '' }, { token: token.slice(0, 40) }, { token: `${token}=` }, { token: token.replace('.', ':') }] as Array<
      Record<string, string>
    >) {
      const accepted = UnsubscribeQuerySchema.safeParse(query).success;
      const res = await send('POST', `/api/newsletter/unsubscribe?${new URLSearchParams(query).toString()}`, undefined);
      expect(res.status, `${JSON.stringify(query)}: schema ${accepted ? 'accepts' : 'refuses'}`).toBe(accepted ? 200 : 400);
    }
  });
});
