/**
 * The upgrade confirm step end to end: `POST /api/upgrade-preview` shows what confirming costs,
 * and `POST /api/checkout-sessions` with the preview's `proration_date` charges exactly that.
 * Real PostgreSQL and NATS; Stripe is the local stand-in reached through the official client.
 * Billing and the stand-in share one test clock, so a change can be previewed mid-period and
 * confirmed later.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type Stripe from 'stripe';
import { json, startHarness, type Harness, type TestUser } from './support.js';

const DAY_MS = 86_400_000;
let offsetMs = 0;
const clock = (): number => Date.now() + offsetMs;
let h: Harness;

beforeAll(async () => {
  h = await startHarness('billing-upgrade', { now: clock });
});

afterAll(async () => {
  await h?.close();
});

interface Preview {
  tier: string;
  period: string;
  kind: 'checkout' | 'proration';
  amount_due_cents: number;
  currency: string;
  lines: Array<{ description: string; amount_cents: number }>;
  next_billing_date: string | null;
  proration_date: number | null;
}

async function preview(user: TestUser, body: unknown): Promise<Response> {
  return h.post('/api/upgrade-preview', body, { authorization: user.authorization });
}

/** Starts a checkout for `user` and pays it on the stand-in's hosted page. */
async function subscribe(user: TestUser, tier: string, period: string): Promise<string> {
  const res = await h.post('/api/checkout-sessions', { tier, period, userId: user.userId });
  expect(res.status).toBe(200);
  const { url } = await json<{ url: string }>(res);
  const pay = await fetch(`${url}/pay`, { method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: '' });
  expect(pay.status).toBe(303);
  await h.settle();
  const session = await h.stripe.checkout.sessions.retrieve(new URL(url).pathname.split('/').pop()!);
  return session.subscription as string;
}

describe('POST /api/upgrade-preview without a paid subscription', () => {
  it('when a starter user previews a plan, then the amount is its first charge from the catalogue (checkout)', async () => {
    const user = await h.newUser();
    const monthly = await preview(user, { tier: 'plus', period: 'monthly' });
    expect(monthly.status).toBe(200);
    expect(monthly.headers.get('cache-control')).toBe('no-store');
    expect(await json(monthly)).toEqual({
      tier: 'plus',
      period: 'monthly',
      kind: 'checkout',
      amount_due_cents: 1500,
      currency: 'usd',
      lines: [{ description: 'Tradewind Plus, billed monthly', amount_cents: 1500 }],
      next_billing_date: null,
      proration_date: null,
    });
    expect(await json(await preview(user, { tier: 'pro', period: 'yearly' }))).toMatchObject({ kind: 'checkout', amount_due_cents: 33600 });
  });

  it('when the token is missing or forged, then 401 with the exact body', async () => {
    for (const headers of [{}, { authorization: 'Bearer x.y.z' }] as Array<Record<string, string>>) {
      const res = await h.post('/api/upgrade-preview', { tier: 'plus', period: 'monthly' }, headers);
      expect(res.status).toBe(401);
      expect(await res.json()).toEqual({ status: 401, message: 'No active session' });
    }
  });

  it.each([
    [{ tier: 'starter', period: 'monthly' }, 400, 'invalid_argument', /Starter plan is free/],
    [{ tier: 'gold', period: 'monthly' }, 400, 'invalid_argument', /tier must be plus or pro \(got "gold"\)/],
    [{ tier: 'pro', period: 'weekly' }, 400, 'invalid_argument', /period must be monthly or yearly/],
    [{ tier: 'pro' }, 400, 'invalid_argument', /period must be monthly or yearly \(got null\)/],
    ['[1]', 400, 'invalid_argument', /Send a JSON object \{tier, period\}/],
  ])('when the body is %j, then %i %s', async (body, status, code, message) => {
    const user = await h.newUser();
    const res = await preview(user, body);
    expect(res.status).toBe(status);
    expect(await json(res)).toMatchObject({ status, code, message: expect.stringMatching(message) });
  });

  it('when the token names a user billing and auth do not know, then 404', async () => {
    const res = await h.post(
      '/api/upgrade-preview',
      { tier: 'plus', period: 'monthly' },
      { authorization: await h.tokenFor('00000000-0000-4000-8000-000000000000') },
    );
    expect(res.status).toBe(404);
    expect(await json(res)).toMatchObject({ code: 'not_found' });
  });
});

describe('Plus monthly → Pro monthly mid-period', () => {
  let user: TestUser;
  let subscriptionId: string;
  let shown: Preview;

  it("when a Plus subscriber previews Pro ten days into the period, then Stripe's prorated amount is shown with its proration date", async () => {
    user = await h.newUser();
    subscriptionId = await subscribe(user, 'plus', 'monthly');
    const item = (await h.stripe.subscriptions.retrieve(subscriptionId)).items.data[0]!;
    offsetMs += 10 * DAY_MS;
    const res = await preview(user, { tier: 'pro', period: 'monthly' });
    expect(res.status).toBe(200);
    shown = await json<Preview>(res);
    const at = shown.proration_date!;
    expect(Math.abs(at - Math.floor(clock() / 1000))).toBeLessThanOrEqual(2);
    // Stripe's per-second proration of the rest of the period, each line rounded to a cent.
    const fraction = (item.current_period_end - at) / (item.current_period_end - item.current_period_start);
    const credit = -Math.round(1500 * fraction);
    const debit = Math.round(3500 * fraction);
    expect(shown).toMatchObject({ tier: 'pro', period: 'monthly', kind: 'proration', currency: 'usd', amount_due_cents: credit + debit });
    expect(shown.lines.map((l) => l.amount_cents)).toEqual([credit, debit]);
    expect(shown.lines[0]!.description).toMatch(/^Unused time on Tradewind Plus after /);
    expect(shown.lines[1]!.description).toMatch(/^Remaining time on Tradewind Pro after /);
    expect(shown.next_billing_date).toBe(new Date(item.current_period_end * 1000).toISOString());
    // Ten of about thirty days used: about two thirds of the $20 difference.
    expect(shown.amount_due_cents).toBeGreaterThan(1200);
    expect(shown.amount_due_cents).toBeLessThan(1500);
    // A preview changes nothing.
    expect(await json(await h.get('/api/get-subscription', { authorization: user.authorization }))).toMatchObject({ tier: 'plus' });
  });

  it('when the same plan or a lower tier is previewed, then 409 with what to do instead', async () => {
    const same = await preview(user, { tier: 'plus', period: 'monthly' });
    expect(same.status).toBe(409);
    expect(await json(same)).toMatchObject({ code: 'conflict', message: 'You are already on Plus (monthly).' });
  });

  it("when the confirm lacks the preview's proration date, sends a bad one or one too old, then nothing is charged", async () => {
    const body = { tier: 'pro', period: 'monthly', userId: user.userId };
    const missing = await h.post('/api/checkout-sessions', body, { authorization: user.authorization });
    expect(missing.status).toBe(400);
    expect(await json(missing)).toMatchObject({ code: 'invalid_argument', message: expect.stringMatching(/needs the proration_date of the price preview/) });
    const bad = await h.post('/api/checkout-sessions', { ...body, proration_date: 'soon' }, { authorization: user.authorization });
    expect(bad.status).toBe(400);
    const stale = await h.post('/api/checkout-sessions', { ...body, proration_date: Math.floor(clock() / 1000) - 1801 }, { authorization: user.authorization });
    expect(stale.status).toBe(409);
    expect(await json(stale)).toMatchObject({ code: 'conflict', message: expect.stringMatching(/Review the new amount and confirm again/) });
    const sub = await h.stripe.subscriptions.retrieve(subscriptionId);
    expect(sub.items.data[0]!.price.lookup_key).toBe('tradewind_plus_monthly');
  });

  it('when the subscriber confirms twenty minutes later, then Stripe charges exactly the amount shown and the plan is Pro', async () => {
    offsetMs += 20 * 60_000;
    const res = await h.post(
      '/api/checkout-sessions',
      {
        tier: 'pro',
        period: 'monthly',
        userId: user.userId,
        cancelUrl: `${h.publicUrl}/dashboard/plan`,
        proration_date: shown.proration_date,
      },
      { authorization: user.authorization },
    );
    expect(res.status).toBe(200);
    const body = await json<{ url: string; plan_changed: boolean; amount_paid_cents: number; subscription: Record<string, unknown> }>(res);
    expect(body).toMatchObject({
      plan_changed: true,
      url: `${h.publicUrl}/dashboard?checkout=success&plan_changed=true`,
      amount_paid_cents: shown.amount_due_cents,
    });
    expect(body.subscription).toMatchObject({ tier: 'pro', billing_period: 'monthly', status: 'active' });
    const sub = await h.stripe.subscriptions.retrieve(subscriptionId, { expand: ['latest_invoice'] });
    const invoice = sub.latest_invoice as Stripe.Invoice;
    expect(invoice).toMatchObject({ billing_reason: 'subscription_update', status: 'paid', amount_paid: shown.amount_due_cents });
    expect(invoice.lines.data.map((l) => ({ description: l.description, amount_cents: l.amount }))).toEqual(shown.lines);
    await h.settle();
    expect(await json(await h.get('/api/get-subscription', { authorization: user.authorization }))).toMatchObject({
      tier: 'pro',
      billing_period: 'monthly',
      status: 'active',
    });
    const changes = await h.changes(user.userId);
    expect(changes.map((c) => [c.plan, c.reason])).toEqual([
      ['plus', 'checkout_completed'],
      ['pro', 'plan_changed'],
    ]);
  });

  it('when the Pro subscriber previews or asks for Plus, then 409 "Use Manage billing to downgrade" and nothing changes', async () => {
    const down = await preview(user, { tier: 'plus', period: 'yearly' });
    expect(down.status).toBe(409);
    expect(await json(down)).toMatchObject({ code: 'conflict', message: 'Moving from Pro to Plus is a downgrade. Use Manage billing to downgrade.' });
    const confirm = await h.post(
      '/api/checkout-sessions',
      { tier: 'plus', period: 'yearly', userId: user.userId, proration_date: Math.floor(clock() / 1000) },
      { authorization: user.authorization },
    );
    expect(confirm.status).toBe(409);
    expect((await h.stripe.subscriptions.retrieve(subscriptionId)).items.data[0]!.price.lookup_key).toBe('tradewind_pro_monthly');
  });
});
