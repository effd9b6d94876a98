/**
 * billing's route declaration (src/http/api.ts, the source of GET /api/openapi.json) against the
 * routes the service registers and answers: the same routes, and the body schemas accepting exactly
 * what the live routes accept (docs/openapi.md). Real billing, PostgreSQL, NATS and the local
 * Stripe stand-in (test/support.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Counter, Registry } from 'prom-client';
import { buildOpenApiDocument, createHttpApp, createLogger, openApiOperations, recordRoutes } from '@tradewind/lib';
import { registerRoutes } from '../src/http/routes.js';
import { UpgradePreviewBodySchema, billingApi, checkoutBodySchema } from '../src/http/api.js';
import { startHarness, type Harness, type TestUser } from './support.js';

let h: Harness;
let user: TestUser;

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
  h = await startHarness('billing_openapi');
  user = await h.newUser();
});
afterAll(async () => h?.close());

describe('billing OpenAPI declaration', () => {
  it('when routes.ts registers its routes, then they are exactly the declared operations', async () => {
    const http = createHttpApp({ logger: createLogger({ service: 'billing', level: 'silent' }), registry: new Registry(), service: 'billing' });
    const registered = recordRoutes(http);
    registerRoutes(http, {
      service: untouchable('service'),
      stripe: untouchable('stripe'),
      verify: untouchable('verify'),
      webhookBodyLimitBytes: 1024,
      webhooks: new Counter({ name: 'w_total', help: 'h', labelNames: ['type', 'outcome'], registers: [] }),
    });
    await http.ready();
    expect(registered.sort()).toEqual(openApiOperations(buildOpenApiDocument({ title: 't', version: '0', apis: [billingApi()] })));
    await http.close();
  });

  it('when each declared operation is called on the running service, then a route answers (not the no-route 404)', async () => {
    for (const route of billingApi().routes) {
      const res = await fetch(`${h.baseUrl}${route.path}`, { method: route.method.toUpperCase() });
      const body = (await res.json()) as { message?: string };
      expect(body.message ?? '', `${route.method} ${route.path}`).not.toMatch(/^no route for/);
    }
  });

  it('when the schema and POST /api/upgrade-preview get the same bodies, then they accept and refuse the same ones', async () => {
    const bodies: unknown[] = [
      { tier: 'plus', period: 'monthly' },
      { tier: 'pro', period: 'yearly', extra: 1 },
      { tier: 'starter', period: 'monthly' },
      { tier: 'gold', period: 'monthly' },
      { tier: 'plus' },
      { tier: 'plus', period: 'weekly' },
      {},
      [],
      'plus',
      null,
      5,
    ];
    for (const body of bodies) {
      const accepted = UpgradePreviewBodySchema.safeParse(body).success;
      const res = await h.post('/api/upgrade-preview', body, { authorization: user.authorization });
      expect(res.status === 400, `${JSON.stringify(body)}: schema ${accepted ? 'accepts' : 'refuses'}, route answered ${res.status}`).toBe(!accepted);
      expect(res.status, JSON.stringify(body)).toBe(accepted ? 200 : 400);
    }
  });

  it('when the schema and POST /api/checkout-sessions get the same bodies, then they accept and refuse the same ones', async () => {
    const schema = checkoutBodySchema(h.publicUrl);
    const ok = { tier: 'plus', period: 'monthly', userId: user.userId };
    const bodies: unknown[] = [
      ok,
      { ...ok, period: 'yearly', tier: 'pro' },
      { ...ok, cancelUrl: `${h.publicUrl}/pricing?x=1` },
      { ...ok, cancelUrl: '/pricing' },
      { ...ok, cancelUrl: null },
      { ...ok, cancelUrl: '' },
      { ...ok, proration_date: 1_700_000_000 },
      { ...ok, proration_date: null },
      { ...ok, tier: 'starter' },
      { ...ok, tier: 'gold' },
      { ...ok, period: undefined },
      { ...ok, userId: '' },
      { ...ok, userId: 7 },
      { tier: 'plus', period: 'monthly' },
      { ...ok, cancelUrl: 'https://evil.example/pricing' },
      { ...ok, cancelUrl: 5 },
      { ...ok, cancelUrl: `${h.publicUrl}/${'x'.repeat(2100)}` },
      { ...ok, proration_date: 'soon' },
      { ...ok, proration_date: -1 },
      { ...ok, proration_date: 1.5 },
      { ...ok, proration_date: 0 },
      [],
      'plus',
      null,
    ];
    for (const body of bodies) {
      const accepted = schema.safeParse(body).success;
      const res = await h.post('/api/checkout-sessions', body, { authorization: user.authorization });
      expect(res.status === 400, `${JSON.stringify(body).slice(0, 120)}: schema ${accepted ? 'accepts' : 'refuses'}, route answered ${res.status}`).toBe(
        !accepted,
      );
      expect(res.status, JSON.stringify(body).slice(0, 120)).toBe(accepted ? 200 : 400);
    }
  });
});
