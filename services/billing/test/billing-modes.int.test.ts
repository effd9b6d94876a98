/**
 * billing with the local Stripe stand-in run as `npm start` runs it (dev/bin/local-stripe.ts, a
 * process of its own; billing holds no stand-in) and with Stripe unreachable.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { join, resolve } from 'node:path';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { Registry } from 'prom-client';
import { AppError } from '@tradewind/contracts';
import { createDb, createLogger, ensureEventsStreams } from '@tradewind/lib';
import { createTestDatabase, freePort, startNatsServer, waitForPort } from '@tradewind/dev';
import { createApp, BILLING_SCHEMA, type BillingDatabase } from '../src/index.js';
import { json, startHarness } from './support.js';

const REPO_ROOT = resolve(import.meta.dirname, '..', '..', '..');
/** Bound on the stand-in's start (tsx compiles it first) and on the webhook's effect reaching billing. */
const STAND_IN_START_MS = 30_000;
const WEBHOOK_EFFECT_MS = 15_000;
const cleanups: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c();
});

/** Starts dev/bin/local-stripe.ts as `npm start` does; resolves once its API answers. */
async function startLocalStripeProcess(env: NodeJS.ProcessEnv): Promise<{ proc: ChildProcess; output: () => string }> {
  let output = '';
  const proc = spawn(process.execPath, ['--import', 'tsx', join(REPO_ROOT, 'dev/bin/local-stripe.ts')], {
    cwd: REPO_ROOT,
    env: { ...process.env, LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  proc.stdout!.on('data', (d: Buffer) => {
    output += d.toString();
  });
  proc.stderr!.on('data', (d: Buffer) => {
    output += d.toString();
  });
  return { proc, output: () => output };
}

describe('with the local Stripe stand-in of @tradewind/dev as its own process (npm start)', () => {
  it('when a user checks out, then the labelled test checkout of the stand-in completes it through a signed webhook to billing', async () => {
    const database = await createTestDatabase('billing-local');
    const nats = await startNatsServer();
    const db = createDb<BillingDatabase>({ url: database.url, schema: BILLING_SCHEMA });
    const nc = await connect({ servers: nats.url });
    const jsm = await jetstreamManager(nc);
    await ensureEventsStreams(jsm);
    const userId = randomUUID();
    const [localStripePort, billingPort] = [await freePort(), await freePort()];
    const secretKey = `sk_test_local_${randomUUID().replaceAll('-', '')}`;
    const webhookSecret = `whsec_local_${randomUUID().replaceAll('-', '')}`;
    const stand = await startLocalStripeProcess({
      LOCAL_STRIPE_PORT: String(localStripePort),
      STRIPE_SECRET_KEY: secretKey,
      STRIPE_WEBHOOK_SECRET: webhookSecret,
      STRIPE_WEBHOOK_URL: `http://127.0.0.1:${billingPort}/api/stripe/webhook`,
    });
    const app = createApp(
      {
        PORT: billingPort,
        HOST: '127.0.0.1',
        GRPC_PORT: 0,
        PUBLIC_URL: 'http://localhost:8080',
        AUTH_JWKS_URL: 'http://127.0.0.1:1/jwks.json',
        AUTH_ISSUER: undefined,
        AUTH_ADDR: '127.0.0.1:1',
        STRIPE_SECRET_KEY: secretKey,
        STRIPE_WEBHOOK_SECRET: webhookSecret,
        STRIPE_API_URL: `http://127.0.0.1:${localStripePort}`,
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
      {
        db,
        js: jetstream(nc),
        jsm,
        logger: createLogger({ service: 'billing', level: 'silent' }),
        registry: new Registry(),
        verifyAccessToken: async (authorization) => {
          if (authorization !== 'Bearer good') throw new AppError('unauthenticated', 'No active session');
          return { userId, sessionId: randomUUID(), plan: 'starter', email: 'local@example.com', expiresAt: Date.now() / 1000 + 600 };
        },
        lookupUser: async (id) => (id === userId ? { userId, email: 'local@example.com', name: 'Local' } : undefined),
      },
    );
    cleanups.push(async () => {
      stand.proc.kill('SIGTERM');
      await app.stop();
      await nc.close();
      await db.destroy();
      await nats.stop();
      await database.drop();
    });
    await waitForPort(localStripePort, '127.0.0.1', STAND_IN_START_MS, () => stand.proc.exitCode === null);
    const { httpPort } = await app.start();
    expect(httpPort).toBe(billingPort);
    const base = `http://127.0.0.1:${httpPort}`;
    const res = await fetch(`${base}/api/checkout-sessions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ tier: 'plus', period: 'yearly', userId }),
    });
    expect(res.status).toBe(200);
    const { url } = await json<{ url: string }>(res);
    expect(url.startsWith(`http://localhost:${localStripePort}/checkout/cs_`)).toBe(true);
    const local = url.replace('http://localhost:', 'http://127.0.0.1:');
    const page = await (await fetch(local)).text();
    expect(page).toContain('Test checkout — no real payment');
    expect(page).toContain('$144.00');
    const pay = await fetch(`${local}/pay`, { method: 'POST', redirect: 'manual' });
    expect(pay.status).toBe(303);
    // The webhooks cross a process boundary: wait for their effect (bounded), not for a fixed time.
    const deadline = Date.now() + WEBHOOK_EFFECT_MS;
    let sub: unknown;
    for (;;) {
      sub = await json(await fetch(`${base}/api/get-subscription`, { headers: { authorization: 'Bearer good' } }));
      if ((sub as { tier?: string }).tier === 'plus' || Date.now() > deadline) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(sub).toMatchObject({ tier: 'plus', billing_period: 'yearly', status: 'active' });
    const stored = await db.selectFrom('stripe_events').select(['type', 'outcome']).where('outcome', '=', 'applied').execute();
    expect(stored.length).toBeGreaterThan(0);
    expect(stand.output()).toMatch(/LOCAL Stripe stand-in \(test checkout, no real payment\) listening/);
    expect(stand.output()).not.toContain(secretKey);
  });

  it('when the stand-in is started with NODE_ENV=production or without a test key, then it exits 1 naming the reason', async () => {
    for (const [env, reason] of [
      [{ NODE_ENV: 'production', STRIPE_SECRET_KEY: 'sk_test_x', STRIPE_WEBHOOK_SECRET: 'whsec_x' }, /refused when NODE_ENV=production/],
      [{ NODE_ENV: 'development', STRIPE_SECRET_KEY: 'sk_live_x', STRIPE_WEBHOOK_SECRET: 'whsec_x' }, /STRIPE_SECRET_KEY: required, a test key/],
    ] as const) {
      const stand = await startLocalStripeProcess({ LOCAL_STRIPE_PORT: '0', ...env });
      const code = await new Promise<number | null>((r) => stand.proc.once('exit', r));
      expect(code).toBe(1);
      expect(stand.output()).toMatch(reason);
    }
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
