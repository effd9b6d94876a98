/**
 * billing end to end against real PostgreSQL and NATS, with Stripe reached through the official
 * client at the local Stripe stand-in (Stripe's API shapes, signed webhooks).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type Stripe from 'stripe';
import { BillingServiceClient } from '@tradewind/contracts';
import { callUnary, grpcCredentials } from '@tradewind/lib';
import { json, startHarness, type Harness, type TestUser } from './support.js';

let h: Harness;
let grpc: BillingServiceClient;

beforeAll(async () => {
  h = await startHarness('billing');
  grpc = new BillingServiceClient(`127.0.0.1:${h.grpcPort}`, grpcCredentials.createInsecure());
});

afterAll(async () => {
  grpc?.close();
  await h?.close();
});

const NO_SESSION = { status: 401, message: 'No active session' };

async function subscriptionOf(user: TestUser) {
  const res = await h.get('/api/get-subscription', { authorization: user.authorization });
  expect(res.status).toBe(200);
  return json(res);
}

/** Starts a checkout for `user` and pays it on the stand-in's hosted page, as a browser would. */
async function checkout(user: TestUser, tier: string, period: string): Promise<{ subscriptionId: string; successUrl: string }> {
  const res = await h.post('/api/checkout-sessions', { tier, period, userId: user.userId, cancelUrl: `${h.publicUrl}/pricing` });
  expect(res.status).toBe(200);
  const { url } = await json<{ url: string }>(res);
  const sessionId = new URL(url).pathname.split('/').pop()!;
  const page = await fetch(url);
  expect(page.status).toBe(200);
  expect(await page.text()).toContain('Test checkout — no real payment');
  const pay = await fetch(`${url}/pay`, { method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: '' });
  expect(pay.status).toBe(303);
  const successUrl = pay.headers.get('location')!;
  await h.settle();
  const session = await h.stripe.checkout.sessions.retrieve(sessionId);
  return { subscriptionId: session.subscription as string, successUrl };
}

describe('starter subscriptions from user.created', () => {
  it('when a user is created, then billing gives them starter / indefinite / active with no paid dates', async () => {
    const user = await h.newUser();
    expect(await subscriptionOf(user)).toMatchObject({
      tier: 'starter',
      billing_period: 'indefinite',
      status: 'active',
      next_billing_date: null,
      cancel_at_period_end: false,
    });
    const { subscription } = await callUnary(grpc.getSubscription.bind(grpc), { userId: user.userId });
    expect(subscription).toMatchObject({ tier: 'starter', billingPeriod: 'indefinite', subscriptionStatus: 'active', subscriptionType: 'free', version: 0n });
    const { entitlements } = await callUnary(grpc.getEntitlements.bind(grpc), { userId: user.userId });
    expect(entitlements).toMatchObject({
      plan: 'starter',
      maxConnections: 1,
      requestsPerMinute: 100,
      subjects: ['basic.pumpfun', 'basic.bonk'],
      replay: false,
    });
    expect(await h.changes(user.userId)).toHaveLength(0);
  });

  it('when gRPC is asked about an unknown or malformed user, then NOT_FOUND / INVALID_ARGUMENT', async () => {
    await expect(callUnary(grpc.getEntitlements.bind(grpc), { userId: '00000000-0000-4000-8000-000000000000' })).rejects.toMatchObject({ code: 'not_found' });
    await expect(callUnary(grpc.getSubscription.bind(grpc), { userId: 'nope' })).rejects.toMatchObject({ code: 'invalid_argument' });
  });

  it('when the token is missing or forged, then get-subscription and the portal answer 401 with the exact body', async () => {
    const missing = await h.get('/api/get-subscription');
    expect(missing.status).toBe(401);
    expect(await missing.json()).toEqual(NO_SESSION);
    const forged = await h.get('/api/get-subscription', { authorization: 'Bearer eyJhbGciOiJFUzI1NiJ9.e30.AAAA' });
    expect(await forged.json()).toEqual(NO_SESSION);
    const portal = await h.post('/api/create-portal-session', {});
    expect(portal.status).toBe(401);
    expect(await portal.json()).toEqual(NO_SESSION);
  });
});

describe('POST /api/checkout-sessions input', () => {
  it.each([
    [{ tier: 'starter', period: 'monthly' }, 400, /Starter plan is free/],
    [{ tier: 'gold', period: 'monthly' }, 400, /tier must be plus or pro \(got "gold"\)/],
    [{ tier: 'plus', period: 'weekly' }, 400, /period must be monthly or yearly/],
    [{ tier: 'plus', period: 'monthly', userId: '' }, 400, /userId is required/],
    [{ tier: 'plus', period: 'monthly', userId: 'not-a-uuid' }, 400, /userId must be a user id/],
    [{ tier: 'plus', period: 'monthly', userId: '00000000-0000-4000-8000-000000000000' }, 404, /No user/],
    [{ tier: 'plus', period: 'monthly', cancelUrl: 'https://evil.example/phish' }, 400, /cancelUrl must be a URL on/],
  ])('when the body is %j, then %i with a clear message', async (body, status, message) => {
    const user = await h.newUser();
    const res = await h.post('/api/checkout-sessions', { userId: user.userId, ...body });
    expect(res.status).toBe(status);
    const err = await json<{ status: number; code: string; message: string }>(res);
    expect(err.status).toBe(status);
    expect(err.message).toMatch(message);
  });

  it('when the body is not JSON or not an object, then 400', async () => {
    expect((await h.post('/api/checkout-sessions', '{"tier":')).status).toBe(400);
    expect((await h.post('/api/checkout-sessions', '[1]')).status).toBe(400);
  });

  it("when the bearer token is another user's, then 403; when it is invalid, then 401", async () => {
    const a = await h.newUser();
    const b = await h.newUser();
    const res = await h.post('/api/checkout-sessions', { tier: 'plus', period: 'monthly', userId: a.userId }, { authorization: b.authorization });
    expect(res.status).toBe(403);
    const bad = await h.post('/api/checkout-sessions', { tier: 'plus', period: 'monthly', userId: a.userId }, { authorization: 'Bearer x.y.z' });
    expect(await bad.json()).toEqual(NO_SESSION);
  });

  it("when Stripe creates the session, then it is a subscription-mode session for the plan's Price tied to the user", async () => {
    const user = await h.newUser();
    const res = await h.post('/api/checkout-sessions', {
      tier: 'pro',
      period: 'yearly',
      userId: user.userId,
      cancelUrl: `${h.publicUrl}/pricing?from=checkout`,
    });
    expect(res.status).toBe(200);
    const { url } = await json<{ url: string }>(res);
    expect(url.startsWith(h.localStripe.publicUrl)).toBe(true);
    const id = new URL(url).pathname.split('/').pop()!;
    const session = await h.stripe.checkout.sessions.retrieve(id, { expand: ['line_items'] });
    expect(session).toMatchObject({
      mode: 'subscription',
      client_reference_id: user.userId,
      cancel_url: `${h.publicUrl}/pricing?from=checkout`,
      metadata: { user_id: user.userId, tier: 'pro', period: 'yearly' },
    });
    expect(session.success_url).toBe(`${h.publicUrl}/dashboard?checkout=success&session_id={CHECKOUT_SESSION_ID}`);
    const prices = await h.stripe.prices.list({ lookup_keys: ['tradewind_pro_yearly'] });
    const customer = (await h.stripe.customers.retrieve(session.customer as string)) as Stripe.Customer;
    expect(customer.email).toBe(user.email);
    expect(customer.metadata).toEqual({ user_id: user.userId });
    expect(prices.data[0]!.unit_amount).toBe(33600);
    // A second checkout reuses the customer.
    const again = await json<{ url: string }>(await h.post('/api/checkout-sessions', { tier: 'plus', period: 'monthly', userId: user.userId }));
    const second = await h.stripe.checkout.sessions.retrieve(new URL(again.url).pathname.split('/').pop()!);
    expect(second.customer).toBe(session.customer);
    expect(second.cancel_url).toBe(`${h.publicUrl}/pricing`);
  });

  it('when user.created has not reached billing yet, then the user is fetched from auth over gRPC and the checkout works', async () => {
    const user = await h.newUser({ announce: false });
    const res = await h.post('/api/checkout-sessions', { tier: 'plus', period: 'monthly', userId: user.userId });
    expect(res.status).toBe(200);
    expect(await subscriptionOf(user)).toMatchObject({ tier: 'starter' });
  });
});

/** `tradewind_billing_subscription_changes_total{from_plan, to_plan}` now; without plans, the sum over all. */
async function planChanges(from?: string, to?: string): Promise<number> {
  const metric = await h.registry.getSingleMetric('tradewind_billing_subscription_changes_total')?.get();
  return (metric?.values ?? [])
    .filter((v) => (from === undefined || v.labels.from_plan === from) && (to === undefined || v.labels.to_plan === to))
    .reduce((sum, v) => sum + v.value, 0);
}

describe('checkout, plan changes and cancellation', () => {
  let user: TestUser;
  let subscriptionId: string;

  it('when the user pays on the checkout page, then the webhooks make them plus/monthly/active with one subscription.changed', async () => {
    user = await h.newUser();
    const upgrades = await planChanges('starter', 'plus');
    const done = await checkout(user, 'plus', 'monthly');
    expect(await planChanges('starter', 'plus')).toBe(upgrades + 1);
    subscriptionId = done.subscriptionId;
    expect(done.successUrl).toMatch(/^http:\/\/localhost:8080\/dashboard\?checkout=success&session_id=cs_/);
    const sub = await h.stripe.subscriptions.retrieve(subscriptionId);
    const s = await subscriptionOf(user);
    expect(s).toMatchObject({
      tier: 'plus',
      billing_period: 'monthly',
      status: 'active',
      subscription_type: 'paid',
      cancel_at_period_end: false,
      effective_plan: 'plus',
    });
    expect(s.next_billing_date).toBe(new Date(sub.items.data[0]!.current_period_end * 1000).toISOString());
    const changes = await h.changes(user.userId);
    expect(changes).toHaveLength(1);
    expect(changes[0]).toMatchObject({
      plan: 'plus',
      previousPlan: 'starter',
      billingPeriod: 'monthly',
      previousBillingPeriod: 'indefinite',
      subscriptionStatus: 'active',
      previousSubscriptionStatus: 'active',
      subscriptionType: 'paid',
      version: 1n,
      reason: 'checkout_completed',
      stripeSubscriptionId: subscriptionId,
    });
    // Every delivered event was stored once with its outcome; the ones billing does not use were acknowledged.
    const stored = await h.db.selectFrom('stripe_events').select(['type', 'outcome']).execute();
    expect(stored.filter((e) => e.type === 'invoice.finalized').every((e) => e.outcome === 'unhandled')).toBe(true);
    expect(stored.some((e) => e.type === 'customer.subscription.created' && e.outcome === 'applied')).toBe(true);
    const { entitlements } = await callUnary(grpc.getEntitlements.bind(grpc), { userId: user.userId });
    expect(entitlements).toMatchObject({ plan: 'plus', maxConnections: 1, requestsPerMinute: 1000, replay: false, version: 1n });
    expect(entitlements!.subjects).toEqual(['basic.pumpfun', 'basic.bonk', 'premium.pumpswap', 'premium.raydium']);
  });

  it('when the subscriber asks for the same plan again, then 409; when they ask for another plan without a token, then 401', async () => {
    const same = await h.post('/api/checkout-sessions', { tier: 'plus', period: 'monthly', userId: user.userId }, { authorization: user.authorization });
    expect(same.status).toBe(409);
    const noToken = await h.post('/api/checkout-sessions', { tier: 'pro', period: 'monthly', userId: user.userId });
    expect(noToken.status).toBe(401);
    expect(await h.changes(user.userId)).toHaveLength(1);
  });

  it('when a plus subscriber previews and confirms pro, then it takes effect at once with the previewed proration charged now, and one event', async () => {
    const upgrades = await planChanges('plus', 'pro');
    const preview = await json<{ kind: string; amount_due_cents: number; proration_date: number }>(
      await h.post('/api/upgrade-preview', { tier: 'pro', period: 'monthly' }, { authorization: user.authorization }),
    );
    expect(preview.kind).toBe('proration');
    const res = await h.post(
      '/api/checkout-sessions',
      { tier: 'pro', period: 'monthly', userId: user.userId, proration_date: preview.proration_date },
      { authorization: user.authorization },
    );
    expect(res.status).toBe(200);
    const body = await json<{ url: string; plan_changed: boolean; amount_paid_cents: number; subscription: Record<string, unknown> }>(res);
    expect(body).toMatchObject({
      plan_changed: true,
      url: `${h.publicUrl}/dashboard?checkout=success&plan_changed=true`,
      amount_paid_cents: preview.amount_due_cents,
    });
    expect(body.subscription).toMatchObject({ tier: 'pro', billing_period: 'monthly', status: 'active' });
    const sub = await h.stripe.subscriptions.retrieve(subscriptionId, { expand: ['latest_invoice'] });
    const invoice = sub.latest_invoice as Stripe.Invoice;
    expect(sub.items.data[0]!.price.lookup_key).toBe('tradewind_pro_monthly');
    expect(invoice.billing_reason).toBe('subscription_update');
    // Charged now: more than nothing, less than a full month of the price difference ($20).
    expect(invoice.amount_paid).toBeGreaterThan(0);
    expect(invoice.amount_paid).toBeLessThanOrEqual(2000);
    await h.settle();
    expect(await subscriptionOf(user)).toMatchObject({ tier: 'pro', billing_period: 'monthly', status: 'active' });
    const changes = await h.changes(user.userId);
    expect(changes).toHaveLength(2);
    expect(changes[1]).toMatchObject({ plan: 'pro', previousPlan: 'plus', reason: 'plan_changed', version: 2n });
    expect(await planChanges('plus', 'pro')).toBe(upgrades + 1);
  });

  it('when a pro subscriber asks billing for plus, then 409; downgrading in the billing portal takes effect at once (credit for unused time) with one event', async () => {
    const refused = await h.post('/api/checkout-sessions', { tier: 'plus', period: 'yearly', userId: user.userId }, { authorization: user.authorization });
    expect(refused.status).toBe(409);
    expect((await json(refused)).message).toMatch(/Use Manage billing to downgrade/);
    // What the portal's plan switch does at Stripe; billing learns it from the webhook.
    const current = await h.stripe.subscriptions.retrieve(subscriptionId);
    const plusYearly = (await h.stripe.prices.list({ lookup_keys: ['tradewind_plus_yearly'] })).data[0]!;
    await h.stripe.subscriptions.update(subscriptionId, {
      items: [{ id: current.items.data[0]!.id, price: plusYearly.id }],
      proration_behavior: 'always_invoice',
    });
    await h.settle();
    expect(await subscriptionOf(user)).toMatchObject({ tier: 'plus', billing_period: 'yearly', status: 'active' });
    const sub = await h.stripe.subscriptions.retrieve(subscriptionId);
    expect(sub.items.data[0]!.price.lookup_key).toBe('tradewind_plus_yearly');
    const changes = await h.changes(user.userId);
    expect(changes).toHaveLength(3);
    expect(changes[2]).toMatchObject({
      plan: 'plus',
      previousPlan: 'pro',
      billingPeriod: 'yearly',
      previousBillingPeriod: 'monthly',
      reason: 'plan_changed',
      version: 3n,
    });
  });

  it('when the user opens the billing portal, then they get the portal of their customer', async () => {
    const res = await h.post('/api/create-portal-session', {}, { authorization: user.authorization });
    expect(res.status).toBe(200);
    const { url } = await json<{ url: string }>(res);
    expect(url.startsWith(`${h.localStripe.publicUrl}/portal/`)).toBe(true);
    const page = await fetch(url);
    expect(await page.text()).toContain('Test billing portal — no real payment');
    const fresh = await h.newUser();
    const none = await h.post('/api/create-portal-session', {}, { authorization: fresh.authorization });
    expect(none.status).toBe(404);
  });

  it('when a renewal payment fails and is then paid, then past_due (plan kept) and back to active, one event each', async () => {
    await h.localStripe.advanceToPeriodEnd(subscriptionId, { paymentSucceeds: false });
    await h.settle();
    expect(await subscriptionOf(user)).toMatchObject({ tier: 'plus', status: 'past_due', effective_plan: 'plus' });
    await h.localStripe.payOpenInvoice(subscriptionId);
    await h.settle();
    expect(await subscriptionOf(user)).toMatchObject({ tier: 'plus', status: 'active' });
    const changes = await h.changes(user.userId);
    expect(changes.slice(3).map((c) => [c.reason, c.subscriptionStatus, c.previousSubscriptionStatus])).toEqual([
      ['payment_failed', 'past_due', 'active'],
      ['payment_recovered', 'active', 'past_due'],
    ]);
  });

  it('when the user cancels in the portal, then the plan lasts to the period end and then falls back to starter with one event', async () => {
    const before = (await h.changes(user.userId)).length;
    const churned = await planChanges('plus', 'starter');
    await h.stripe.subscriptions.update(subscriptionId, { cancel_at_period_end: true });
    await h.settle();
    const s = await subscriptionOf(user);
    expect(s).toMatchObject({ tier: 'plus', status: 'active', cancel_at_period_end: true, next_billing_date: null });
    expect(s.cancel_at).not.toBeNull();
    expect(await h.changes(user.userId)).toHaveLength(before);
    expect(await planChanges('plus', 'starter')).toBe(churned);
    await h.localStripe.advanceToPeriodEnd(subscriptionId);
    await h.settle();
    expect(await subscriptionOf(user)).toMatchObject({
      tier: 'starter',
      billing_period: 'indefinite',
      status: 'active',
      next_billing_date: null,
      cancel_at_period_end: false,
    });
    const changes = await h.changes(user.userId);
    expect(changes).toHaveLength(before + 1);
    expect(changes.at(-1)).toMatchObject({ plan: 'starter', previousPlan: 'plus', reason: 'subscription_ended', stripeSubscriptionId: '' });
    expect(await planChanges('plus', 'starter')).toBe(churned + 1);
    const { entitlements } = await callUnary(grpc.getEntitlements.bind(grpc), { userId: user.userId });
    expect(entitlements?.plan).toBe('starter');
  });

  it('when every recorded event is delivered again (duplicates), then nothing changes and no event is emitted', async () => {
    const before = await h.changes(user.userId);
    const counted = await planChanges();
    const state = await subscriptionOf(user);
    for (const event of h.localStripe.events) {
      const res = await h.deliver(event);
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ received: true, outcome: 'duplicate' });
    }
    await h.settle();
    expect(await subscriptionOf(user)).toEqual(state);
    expect(await h.changes(user.userId)).toHaveLength(before.length);
    expect(await planChanges()).toBe(counted);
  });
});

describe('webhook delivery', () => {
  it('when the signature is forged, missing or too old, then 400 invalid_signature and nothing is stored', async () => {
    const event = {
      id: 'evt_forged_1',
      object: 'event',
      type: 'customer.subscription.deleted',
      created: Math.floor(Date.now() / 1000),
      livemode: false,
      data: { object: {} },
    };
    const forged = await h.deliver(event, { secret: 'whsec_not_ours' });
    expect(forged.status).toBe(400);
    expect(await forged.json()).toMatchObject({ status: 400, code: 'invalid_signature' });
    const old = await h.deliver(event, { timestamp: Math.floor(Date.now() / 1000) - 3600 });
    expect(old.status).toBe(400);
    expect((await json(old)).message).toMatch(/tolerance/i);
    const missing = await fetch(`${h.baseUrl}/api/stripe/webhook`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(event),
    });
    expect(missing.status).toBe(400);
    expect(await h.db.selectFrom('stripe_events').select('id').where('id', '=', 'evt_forged_1').executeTakeFirst()).toBeUndefined();
  });

  it('when an event type billing does not use arrives, then it is acknowledged and recorded as unhandled', async () => {
    const event = {
      id: 'evt_unknown_type_1',
      object: 'event',
      api_version: '2026-10-28.endive',
      type: 'customer.tax_id.created',
      created: Math.floor(Date.now() / 1000),
      livemode: false,
      data: { object: { id: 'txi_1', object: 'tax_id' } },
    };
    const res = await h.deliver(event);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ received: true, outcome: 'unhandled' });
    expect(await h.db.selectFrom('stripe_events').select('outcome').where('id', '=', 'evt_unknown_type_1').executeTakeFirst()).toEqual({
      outcome: 'unhandled',
    });
  });

  it('when a subscription event names a customer that is no Tradewind user, then it is acknowledged and ignored', async () => {
    const sub = {
      id: 'sub_foreign',
      object: 'subscription',
      customer: 'cus_foreign',
      status: 'active',
      created: 1,
      metadata: {},
      cancel_at_period_end: false,
      cancel_at: null,
      trial_end: null,
      items: { object: 'list', data: [] },
    };
    const res = await h.deliver({
      id: 'evt_foreign_1',
      object: 'event',
      type: 'customer.subscription.updated',
      created: 2,
      livemode: false,
      data: { object: sub },
    });
    expect(await res.json()).toEqual({ received: true, outcome: 'ignored' });
  });

  it('when events arrive out of order and duplicated, then the final state is right with one event per real change', async () => {
    const user = await h.newUser();
    const first = h.localStripe.events.length;
    const done = await checkout(user, 'plus', 'monthly');
    await h.settle();
    const baseline = (await h.changes(user.userId)).length;
    expect(baseline).toBe(1);
    const lifeStart = h.localStripe.events.length;
    await h.stripe.subscriptions.update(done.subscriptionId, { cancel_at_period_end: true });
    await h.localStripe.advanceToPeriodEnd(done.subscriptionId);
    await h.settle();
    const life = h.localStripe.events.slice(lifeStart);
    expect(life.map((e) => e.type)).toContain('customer.subscription.deleted');
    expect((await h.changes(user.userId)).length).toBe(2);

    // Replays with new ids (as if Stripe had created them) in reverse order must be stale:
    // the subscription already ended and nothing may revive it.
    const checkoutEvents = h.localStripe.events.slice(first, lifeStart);
    for (const event of [...checkoutEvents].reverse()) {
      const res = await h.deliver({ ...event, id: `${event.id}_late` });
      expect(res.status).toBe(200);
      expect(['stale', 'unhandled', 'ignored', 'unchanged']).toContain((await json(res)).outcome);
    }
    await h.settle();
    expect(await subscriptionOf(user)).toMatchObject({ tier: 'starter', billing_period: 'indefinite', status: 'active' });
    expect(await h.changes(user.userId)).toHaveLength(2);
  });

  it("when a new subscription's events arrive newest first, then one change to the right plan results", async () => {
    const user = await h.newUser();
    // The stand-in records the events without delivering them; the test delivers them newest first.
    const start = h.localStripe.events.length;
    const res = await h.post('/api/checkout-sessions', { tier: 'pro', period: 'yearly', userId: user.userId });
    const { url } = await json<{ url: string }>(res);
    const sessionId = new URL(url).pathname.split('/').pop()!;
    h.localStripe.pauseWebhooks();
    await h.localStripe.completeCheckoutSession(sessionId);
    const events = h.localStripe.events.slice(start);
    expect(events.map((e) => e.type)).toEqual(expect.arrayContaining(['customer.subscription.created', 'invoice.paid', 'checkout.session.completed']));
    for (const event of [...events].reverse()) expect((await h.deliver(event)).status).toBe(200);
    for (const event of events) expect(await (await h.deliver(event)).json()).toEqual({ received: true, outcome: 'duplicate' });
    // The stand-in's own deliveries of the same events are duplicates too.
    h.localStripe.resumeWebhooks();
    await h.settle();
    expect(await subscriptionOf(user)).toMatchObject({ tier: 'pro', billing_period: 'yearly', status: 'active' });
    const changes = await h.changes(user.userId);
    expect(changes).toHaveLength(1);
    expect(changes[0]).toMatchObject({ plan: 'pro', billingPeriod: 'yearly', reason: 'checkout_completed' });
  });
});
