/**
 * billing without Stripe keys (the labelled local stand-in started by billing itself, as with
 * `npm start`) and with Stripe unreachable.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { Registry } from 'prom-client';
import { AppError, createDb, createLogger, createTestDatabase, ensureEventsStreams, freePort, startNatsServer } from '@tradewind/lib';
import { createApp, BILLING_SCHEMA, type BillingDatabase } from '../src/index.js';
import { json, startHarness } from './support.js';

const cleanups: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c();
});

describe('without STRIPE_SECRET_KEY', () => {
  it('when a user checks out, then billing\'s own labelled test checkout completes it through a signed webhook to the real handler', async () => {
    const database = await createTestDatabase('billing-local');
    const nats = await startNatsServer();
    const db = createDb<BillingDatabase>({ url: database.url, schema: BILLING_SCHEMA });
    const nc = await connect({ servers: nats.url });
    const jsm = await jetstreamManager(nc);
    await ensureEventsStreams(jsm);
    const userId = randomUUID();
    const localStripePort = await freePort();
    const app = createApp({
      PORT: 0, HOST: '127.0.0.1', GRPC_PORT: 0, PUBLIC_URL: 'http://localhost:8080', AUTH_JWKS_URL: 'http://127.0.0.1:1/jwks.json', AUTH_ISSUER: undefined,
      AUTH_ADDR: '127.0.0.1:1', STRIPE_SECRET_KEY: undefined, STRIPE_WEBHOOK_SECRET: undefined, STRIPE_API_URL: undefined, STRIPE_TIMEOUT_MS: 5_000,
      STRIPE_MAX_NETWORK_RETRIES: 0, STRIPE_WEBHOOK_TOLERANCE_SECONDS: 300, STRIPE_PRICE_CACHE_SECONDS: 600, UPGRADE_PREVIEW_MAX_AGE_SECONDS: 1800, LOCAL_STRIPE_PORT: localStripePort,
      LOCAL_STRIPE_PUBLIC_URL: undefined, OUTBOX_POLL_MS: 50, OUTBOX_BATCH_SIZE: 100, HTTP_BODY_LIMIT_BYTES: 16 * 1024, WEBHOOK_BODY_LIMIT_BYTES: 512 * 1024,
    }, {
      db, js: jetstream(nc), jsm, logger: createLogger({ service: 'billing', level: 'silent' }), registry: new Registry(),
      verifyAccessToken: async (authorization) => {
        if (authorization !== 'Bearer good') throw new AppError('unauthenticated', 'No active session');
        return { userId, sessionId: randomUUID(), plan: 'starter', email: 'local@example.com', expiresAt: Date.now() / 1000 + 600 };
      },
      lookupUser: async (id) => (id === userId ? { userId, email: 'local@example.com', name: 'Local' } : undefined),
    });
    const { httpPort, localStripeUrl } = await app.start();
    cleanups.push(async () => {
      await app.stop();
      await nc.close();
      await db.destroy();
      await nats.stop();
      await database.drop();
    });
    expect(localStripeUrl).toBe(`http://127.0.0.1:${localStripePort}`);
    const base = `http://127.0.0.1:${httpPort}`;
    const res = await fetch(`${base}/api/checkout-sessions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ tier: 'plus', period: 'yearly', userId }) });
    expect(res.status).toBe(200);
    const { url } = await json<{ url: string }>(res);
    expect(url.startsWith(`http://127.0.0.1:${localStripePort}/checkout/cs_`)).toBe(true);
    const page = await (await fetch(url)).text();
    expect(page).toContain('Test checkout — no real payment');
    expect(page).toContain('$144.00');
    const pay = await fetch(`${url}/pay`, { method: 'POST', redirect: 'manual' });
    expect(pay.status).toBe(303);
    await app.localStripe!.flushWebhooks();
    const sub = await json(await fetch(`${base}/api/get-subscription`, { headers: { authorization: 'Bearer good' } }));
    expect(sub).toMatchObject({ tier: 'plus', billing_period: 'yearly', status: 'active' });
    const stored = await db.selectFrom('stripe_events').select(['type', 'outcome']).where('outcome', '=', 'applied').execute();
    expect(stored.length).toBeGreaterThan(0);
    await app.relay.drain();
    // The paid first invoice is a payment.succeeded too (invoice.paid).
    expect((await db.selectFrom('outbox').select('subject').execute()).map((r) => r.subject)).toEqual(['subscription.changed', 'payment.succeeded']);
  });
});

describe('Stripe unreachable', () => {
  it('when Stripe cannot be reached, then checkout answers 503 unavailable and the user stays on starter', async () => {
    const h = await startHarness('billing-down', { stripeApiUrl: 'http://127.0.0.1:9' });
    cleanups.push(() => h.close());
    const user = await h.newUser();
    const res = await h.post('/api/checkout-sessions', { tier: 'plus', period: 'monthly', userId: user.userId });
    expect(res.status).toBe(503);
    expect(await res.json()).toMatchObject({ status: 503, code: 'unavailable', message: expect.stringMatching(/Stripe is unavailable/) });
    const sub = await json(await h.get('/api/get-subscription', { authorization: user.authorization }));
    expect(sub).toMatchObject({ tier: 'starter' });
  });
});
