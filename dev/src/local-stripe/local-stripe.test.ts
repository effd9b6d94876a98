/**
 * The local Stripe stand-in driven by the official `stripe` client (as billing uses it), with a
 * webhook receiver that verifies every delivery with `stripe.webhooks.constructEvent`.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import Stripe from 'stripe';
import { addMonths } from './clock.js';
import { CHECKOUT_LABEL, PORTAL_LABEL, startLocalStripe, type LocalStripe, type LocalStripeOptions } from './index.js';

const SECRET_KEY = 'sk_test_local_stripe_unit';
const WEBHOOK_SECRET = 'whsec_local_stripe_unit';
const JAN_1_2026 = Date.UTC(2026, 0, 1, 0, 0, 0);
const DAY_MS = 86_400_000;

interface Receiver {
  url: string;
  /** Verified events in arrival order (retries included). */
  events: Stripe.Event[];
  /** Raw attempts: signature header and user agent per POST. */
  attempts: Array<{ signature: string; userAgent: string; contentType: string }>;
  close(): Promise<void>;
}

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A webhook endpoint that answers 500 to the first `failFirst` deliveries, then 200. */
async function startReceiver(options: { failFirst?: number } = {}): Promise<Receiver> {
  const verifier = new Stripe(SECRET_KEY);
  const events: Stripe.Event[] = [];
  const attempts: Receiver['attempts'] = [];
  let failures = options.failFirst ?? 0;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const signature = String(req.headers['stripe-signature'] ?? '');
      attempts.push({ signature, userAgent: String(req.headers['user-agent']), contentType: String(req.headers['content-type']) });
      try {
        events.push(verifier.webhooks.constructEvent(Buffer.concat(chunks), signature, WEBHOOK_SECRET));
      } catch {
        res.writeHead(400).end();
        return;
      }
      if (failures > 0) {
        failures -= 1;
        res.writeHead(500).end();
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"received":true}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const receiver: Receiver = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhook`,
    events,
    attempts,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
  cleanups.push(receiver.close);
  return receiver;
}

/** Starts the stand-in (port 0) and a client pointed at it. */
async function start(options: Partial<LocalStripeOptions> = {}): Promise<{ ls: LocalStripe; stripe: Stripe }> {
  const ls = await startLocalStripe({ port: 0, secretKey: SECRET_KEY, webhookSecret: WEBHOOK_SECRET, webhookRetryDelaysMs: [20, 50], ...options });
  cleanups.push(() => ls.stop());
  const stripe = new Stripe(SECRET_KEY, { host: '127.0.0.1', port: ls.port, protocol: 'http', maxNetworkRetries: 0 });
  return { ls, stripe };
}

async function priceId(stripe: Stripe, lookupKey: string): Promise<string> {
  const list = await stripe.prices.list({ lookup_keys: [lookupKey] });
  return list.data[0]!.id;
}

/** A customer with a paid subscription to `lookupKey`, completed through the stand-in's own function. */
async function subscribe(stripe: Stripe, ls: LocalStripe, lookupKey: string): Promise<{ customer: string; subscription: Stripe.Subscription }> {
  const customer = await stripe.customers.create({ email: 'ada@example.com', metadata: { user_id: 'u1' } });
  const session = await stripe.checkout.sessions.create({
    mode: 'subscription',
    customer: customer.id,
    line_items: [{ price: await priceId(stripe, lookupKey), quantity: 1 }],
    success_url: 'http://localhost:8080/done?session_id={CHECKOUT_SESSION_ID}',
    cancel_url: 'http://localhost:8080/pricing',
    subscription_data: { metadata: { user_id: 'u1' } },
  });
  const { subscriptionId } = await ls.completeCheckoutSession(session.id);
  return { customer: customer.id, subscription: await stripe.subscriptions.retrieve(subscriptionId) };
}

describe('catalogue', () => {
  it('when prices are listed by the four lookup keys, then they carry the plans catalogue amounts and intervals', async () => {
    const { stripe } = await start();
    const keys = ['tradewind_plus_monthly', 'tradewind_plus_yearly', 'tradewind_pro_monthly', 'tradewind_pro_yearly'];
    const list = await stripe.prices.list({ lookup_keys: keys, active: true, limit: 100 });
    expect(list).toMatchObject({ object: 'list', has_more: false, url: '/v1/prices' });
    const byKey = Object.fromEntries(list.data.map((p) => [p.lookup_key, [p.unit_amount, p.recurring?.interval, p.currency, p.metadata]]));
    expect(byKey).toEqual({
      tradewind_plus_monthly: [1500, 'month', 'usd', { tier: 'plus', period: 'monthly' }],
      tradewind_plus_yearly: [14400, 'year', 'usd', { tier: 'plus', period: 'yearly' }],
      tradewind_pro_monthly: [3500, 'month', 'usd', { tier: 'pro', period: 'monthly' }],
      tradewind_pro_yearly: [33600, 'year', 'usd', { tier: 'pro', period: 'yearly' }],
    });
    const price = await stripe.prices.retrieve(list.data[0]!.id, { expand: ['product'] });
    expect((price.product as Stripe.Product).name).toMatch(/^Tradewind (Plus|Pro)$/);
    expect(price.recurring).toMatchObject({ interval_count: 1, usage_type: 'licensed' });
    expect(String(price.unit_amount_decimal)).toBe(String(price.unit_amount));
  });
});

describe('checkout', () => {
  it("when the hosted page is paid, then 303 to the success URL and the signed events arrive in Stripe's order", async () => {
    const receiver = await startReceiver();
    const { ls, stripe } = await start({ webhookUrl: receiver.url });
    const customer = await stripe.customers.create({ email: 'ada@example.com', name: 'Ada', metadata: { user_id: 'u1' } });
    const session = await stripe.checkout.sessions.create({
      mode: 'subscription',
      customer: customer.id,
      line_items: [{ price: await priceId(stripe, 'tradewind_plus_monthly'), quantity: 1 }],
      client_reference_id: 'u1',
      success_url: 'http://localhost:8080/dashboard?session_id={CHECKOUT_SESSION_ID}',
      cancel_url: 'http://localhost:8080/pricing',
      metadata: { user_id: 'u1', tier: 'plus' },
      subscription_data: { metadata: { user_id: 'u1', tier: 'plus' } },
      allow_promotion_codes: true,
    });
    expect(session).toMatchObject({
      object: 'checkout.session',
      mode: 'subscription',
      status: 'open',
      payment_status: 'unpaid',
      subscription: null,
      amount_total: 1500,
      currency: 'usd',
    });
    expect(session.url).toBe(`${ls.publicUrl}/checkout/${session.id}`);
    expect(session.expires_at).toBe(session.created + 24 * 3600);

    const page = await fetch(session.url!);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain(`<title>${CHECKOUT_LABEL}</title>`);
    expect(html).toContain('Tradewind Plus');
    expect(html).toContain('$15.00 / month');
    expect(html).toContain('ada@example.com');
    expect(html).toContain('Pay $15.00 (test card)');
    expect(html).toContain('href="http://localhost:8080/pricing"');

    const pay = await fetch(`${session.url}/pay`, { method: 'POST', redirect: 'manual' });
    expect(pay.status).toBe(303);
    expect(pay.headers.get('location')).toBe(`http://localhost:8080/dashboard?session_id=${session.id}`);
    await ls.flushWebhooks();

    expect(receiver.events.map((e) => e.type)).toEqual([
      'customer.created',
      'customer.subscription.created',
      'invoice.finalized',
      'invoice.paid',
      'invoice.payment_succeeded',
      'checkout.session.completed',
    ]);
    expect(receiver.events).toEqual(ls.events);
    expect(receiver.attempts[0]).toMatchObject({ userAgent: 'Stripe/1.0 (+https://stripe.com/docs/webhooks)', contentType: 'application/json; charset=utf-8' });
    const finalized = receiver.events[2]!.data.object as Stripe.Invoice;
    expect(finalized.status).toBe('open');
    const completed = receiver.events[5]!.data.object as Stripe.Checkout.Session;
    expect(completed).toMatchObject({ status: 'complete', payment_status: 'paid', customer: customer.id, client_reference_id: 'u1' });

    const sub = await stripe.subscriptions.retrieve(completed.subscription as string, { expand: ['latest_invoice'] });
    const item = sub.items.data[0]!;
    expect(sub).toMatchObject({
      status: 'active',
      customer: customer.id,
      metadata: { user_id: 'u1', tier: 'plus' },
      cancel_at_period_end: false,
      cancel_at: null,
      ended_at: null,
      collection_method: 'charge_automatically',
    });
    expect(item.current_period_end - item.current_period_start).toBeGreaterThanOrEqual(28 * 86_400);
    expect(addMonths(item.current_period_start, 1)).toBe(item.current_period_end);
    expect(sub.billing_cycle_anchor).toBe(item.current_period_start);
    const invoice = sub.latest_invoice as Stripe.Invoice;
    expect(invoice).toMatchObject({ status: 'paid', billing_reason: 'subscription_create', amount_due: 1500, amount_paid: 1500, customer: customer.id });
    expect(invoice.parent).toEqual({
      type: 'subscription_details',
      quote_details: null,
      subscription_details: { subscription: sub.id, metadata: { user_id: 'u1', tier: 'plus' } },
    });
    expect(invoice.lines.data[0]).toMatchObject({
      amount: 1500,
      period: { start: item.current_period_start, end: item.current_period_end },
      pricing: { price_details: { price: item.price.id } },
    });

    const again = await stripe.checkout.sessions.retrieve(session.id, { expand: ['subscription', 'line_items'] });
    expect((again.subscription as Stripe.Subscription).id).toBe(sub.id);
    expect(again.line_items?.data[0]).toMatchObject({ quantity: 1, amount_total: 1500, price: { lookup_key: 'tradewind_plus_monthly' } });
    // A completed session's page says so instead of taking a second payment.
    expect(await (await fetch(`${ls.publicUrl}/checkout/${session.id}`)).text()).toContain('already complete');
    await expect(ls.completeCheckoutSession(session.id)).rejects.toThrow(/complete/);
  });

  it('when a session is expired or unknown, then the page says so (410 / 404) and checkout.session.expired is recorded', async () => {
    const { ls, stripe } = await start();
    const session = await stripe.checkout.sessions.create({
      mode: 'subscription',
      customer_email: 'bob@example.com',
      line_items: [{ price: await priceId(stripe, 'tradewind_pro_yearly') }],
      success_url: 'http://localhost:8080/ok',
      cancel_url: 'http://localhost:8080/back',
    });
    const page = await (await fetch(session.url!)).text();
    expect(page).toContain('$336.00 / year');
    expect(page).toContain('bob@example.com');
    const expired = await stripe.checkout.sessions.expire(session.id);
    expect(expired.status).toBe('expired');
    expect(ls.events.at(-1)?.type).toBe('checkout.session.expired');
    const gone = await fetch(`${ls.publicUrl}/checkout/${session.id}`);
    expect(gone.status).toBe(410);
    expect(await gone.text()).toContain('href="http://localhost:8080/back"');
    expect((await fetch(`${ls.publicUrl}/checkout/cs_test_nope`)).status).toBe(404);
    await expect(ls.completeCheckoutSession(session.id)).rejects.toThrow(/expired/);
  });
});

describe('subscription changes', () => {
  it('when the price is switched mid-period with always_invoice, then the invoice is the per-second proration and credits carry over', async () => {
    let clock = JAN_1_2026;
    const { ls, stripe } = await start({ now: () => clock });
    const { customer, subscription } = await subscribe(stripe, ls, 'tradewind_plus_monthly');
    const item = subscription.items.data[0]!;
    expect(item.current_period_start).toBe(JAN_1_2026 / 1000);
    expect(item.current_period_end).toBe(Date.UTC(2026, 1, 1) / 1000);

    // 10 of the period's 31 days used: 21/31 of each monthly price is prorated.
    clock = JAN_1_2026 + 10 * DAY_MS;
    const before = ls.events.length;
    const upgraded = await stripe.subscriptions.update(subscription.id, {
      items: [{ id: item.id, price: await priceId(stripe, 'tradewind_pro_monthly') }],
      proration_behavior: 'always_invoice',
      payment_behavior: 'pending_if_incomplete',
      expand: ['latest_invoice'],
    });
    const credit = -Math.round((1500 * 21) / 31); // -1016
    const debit = Math.round((3500 * 21) / 31); // 2371
    const invoice = upgraded.latest_invoice as Stripe.Invoice;
    expect(invoice).toMatchObject({
      billing_reason: 'subscription_update',
      status: 'paid',
      total: credit + debit,
      amount_due: 1355,
      amount_paid: 1355,
      created: clock / 1000,
    });
    expect(invoice.lines.data.map((l) => [l.amount, l.description, l.parent?.subscription_item_details?.proration])).toEqual([
      [credit, 'Unused time on Tradewind Plus after 11 Jan 2026', true],
      [debit, 'Remaining time on Tradewind Pro after 11 Jan 2026', true],
    ]);
    expect(upgraded.pending_update).toBeNull();
    expect(upgraded.items.data[0]).toMatchObject({ id: item.id, price: { lookup_key: 'tradewind_pro_monthly' }, current_period_end: item.current_period_end });
    const events = ls.events.slice(before);
    expect(events.map((e) => e.type)).toEqual(['customer.subscription.updated', 'invoice.finalized', 'invoice.paid', 'invoice.payment_succeeded']);
    const previous = events[0]!.data.previous_attributes as Partial<Stripe.Subscription>;
    expect(previous.items?.data[0]?.price.lookup_key).toBe('tradewind_plus_monthly');
    expect(previous.latest_invoice).toBe(subscription.latest_invoice);
    expect(events[0]!.request).toMatchObject({ id: expect.stringMatching(/^req_/), idempotency_key: expect.stringMatching(/^stripe-node-retry-/) });

    // Straight back down: the credit exceeds the charge, so nothing is due and the customer keeps a balance.
    const downgraded = await stripe.subscriptions.update(subscription.id, {
      items: [{ id: item.id, price: await priceId(stripe, 'tradewind_plus_monthly') }],
      proration_behavior: 'always_invoice',
      expand: ['latest_invoice'],
    });
    expect(downgraded.latest_invoice).toMatchObject({ total: -1355, amount_due: 0, ending_balance: -1355 });
    expect(((await stripe.customers.retrieve(customer)) as Stripe.Customer).balance).toBe(-1355);
    // The renewal uses the credit first.
    await ls.advanceToPeriodEnd(subscription.id);
    const renewed = await stripe.subscriptions.retrieve(subscription.id, { expand: ['latest_invoice'] });
    expect(renewed.latest_invoice).toMatchObject({
      billing_reason: 'subscription_cycle',
      total: 1500,
      starting_balance: -1355,
      amount_due: 145,
      amount_paid: 145,
    });
    expect(renewed.items.data[0]).toMatchObject({ current_period_start: Date.UTC(2026, 1, 1) / 1000, current_period_end: Date.UTC(2026, 2, 1) / 1000 });
  });

  it("when create_prorations (Stripe's default) switches the price, then nothing is invoiced now and the prorations land on the renewal invoice", async () => {
    let clock = JAN_1_2026;
    const { ls, stripe } = await start({ now: () => clock });
    const { subscription } = await subscribe(stripe, ls, 'tradewind_plus_monthly');
    clock = JAN_1_2026 + 10 * DAY_MS;
    const updated = await stripe.subscriptions.update(subscription.id, {
      items: [{ id: subscription.items.data[0]!.id, price: await priceId(stripe, 'tradewind_pro_monthly') }],
    });
    expect(updated.latest_invoice).toBe(subscription.latest_invoice);
    await ls.advanceToPeriodEnd(subscription.id);
    const renewal = (await stripe.subscriptions.retrieve(subscription.id, { expand: ['latest_invoice'] })).latest_invoice as Stripe.Invoice;
    expect(renewal.lines.data.map((l) => l.amount)).toEqual([-Math.round((1500 * 21) / 31), Math.round((3500 * 21) / 31), 3500]);
    expect(renewal).toMatchObject({ amount_paid: 1355 + 3500, period_start: JAN_1_2026 / 1000, period_end: Date.UTC(2026, 1, 1) / 1000 });
  });

  it('when the interval changes (monthly → yearly), then the cycle restarts now and the new price is charged in full minus the credit', async () => {
    let clock = JAN_1_2026;
    const { ls, stripe } = await start({ now: () => clock });
    const { subscription } = await subscribe(stripe, ls, 'tradewind_plus_monthly');
    clock = JAN_1_2026 + 10 * DAY_MS;
    const updated = await stripe.subscriptions.update(subscription.id, {
      items: [{ id: subscription.items.data[0]!.id, price: await priceId(stripe, 'tradewind_plus_yearly') }],
      proration_behavior: 'always_invoice',
      expand: ['latest_invoice'],
    });
    const now = clock / 1000;
    expect(updated.billing_cycle_anchor).toBe(now);
    expect(updated.items.data[0]).toMatchObject({ current_period_start: now, current_period_end: Date.UTC(2027, 0, 11) / 1000 });
    expect((updated.latest_invoice as Stripe.Invoice).amount_paid).toBe(14400 - Math.round((1500 * 21) / 31));
    const event = ls.events.find((e) => e.type === 'customer.subscription.updated')!;
    expect(Object.keys(event.data.previous_attributes ?? {}).sort()).toEqual(['billing_cycle_anchor', 'items', 'latest_invoice']);
  });

  it('when cancel_at_period_end is set and the clock reaches the period end, then the subscription ends with customer.subscription.deleted', async () => {
    const { ls, stripe } = await start({ now: () => JAN_1_2026 });
    const { subscription } = await subscribe(stripe, ls, 'tradewind_pro_monthly');
    const canceled = await stripe.subscriptions.update(subscription.id, { cancel_at_period_end: true });
    const end = subscription.items.data[0]!.current_period_end;
    expect(canceled).toMatchObject({ cancel_at_period_end: true, cancel_at: end, canceled_at: JAN_1_2026 / 1000, status: 'active' });
    expect(ls.events.at(-1)?.data.previous_attributes).toMatchObject({ cancel_at_period_end: false, cancel_at: null, canceled_at: null });
    await ls.advanceToPeriodEnd(subscription.id);
    expect(ls.events.at(-1)).toMatchObject({ type: 'customer.subscription.deleted', created: end, data: { object: { status: 'canceled', ended_at: end } } });
    expect((await stripe.subscriptions.list({ customer: subscription.customer as string })).data).toHaveLength(0);
    expect((await stripe.subscriptions.list({ customer: subscription.customer as string, status: 'all' })).data).toHaveLength(1);
    await expect(stripe.subscriptions.update(subscription.id, { cancel_at_period_end: false })).rejects.toMatchObject({
      statusCode: 400,
      message: 'A canceled subscription can only update its cancellation_details and metadata.',
    });
    expect((await stripe.subscriptions.update(subscription.id, { metadata: { note: 'x' } })).metadata).toMatchObject({ note: 'x' });
  });

  it('when a renewal payment fails, then invoice.payment_failed and past_due; paying the open invoice makes it active again', async () => {
    const { ls, stripe } = await start({ now: () => JAN_1_2026 });
    const { subscription } = await subscribe(stripe, ls, 'tradewind_plus_yearly');
    const before = ls.events.length;
    await ls.advanceToPeriodEnd(subscription.id, { paymentSucceeds: false });
    expect(ls.events.slice(before).map((e) => e.type)).toEqual(['invoice.finalized', 'invoice.payment_failed', 'customer.subscription.updated']);
    const pastDue = await stripe.subscriptions.retrieve(subscription.id, { expand: ['latest_invoice'] });
    expect(pastDue.status).toBe('past_due');
    expect(pastDue.items.data[0]).toMatchObject({ current_period_start: Date.UTC(2027, 0, 1) / 1000, current_period_end: Date.UTC(2028, 0, 1) / 1000 });
    expect(pastDue.latest_invoice).toMatchObject({ status: 'open', amount_due: 14400, amount_paid: 0, attempt_count: 1 });
    const mid = ls.events.length;
    await ls.payOpenInvoice(subscription.id);
    expect(ls.events.slice(mid).map((e) => e.type)).toEqual(['invoice.paid', 'invoice.payment_succeeded', 'customer.subscription.updated']);
    expect(ls.events.at(-1)?.data.previous_attributes).toEqual({ status: 'past_due' });
    expect((await stripe.subscriptions.retrieve(subscription.id)).status).toBe('active');
    await expect(ls.payOpenInvoice(subscription.id)).rejects.toThrow(/no open invoice/);
  });

  it('when a subscription is deleted, then it is canceled now; deleting it again is resource_missing', async () => {
    const { ls, stripe } = await start({ now: () => JAN_1_2026 });
    const { subscription } = await subscribe(stripe, ls, 'tradewind_plus_monthly');
    const canceled = await stripe.subscriptions.cancel(subscription.id);
    expect(canceled).toMatchObject({ status: 'canceled', canceled_at: JAN_1_2026 / 1000, ended_at: JAN_1_2026 / 1000 });
    expect(ls.events.at(-1)?.type).toBe('customer.subscription.deleted');
    await expect(stripe.subscriptions.cancel(subscription.id)).rejects.toMatchObject({ statusCode: 404, code: 'resource_missing' });
  });
});

describe('invoice previews (create_preview)', () => {
  /** What the customer is charged for: each line's description, amount and proration flag, and the totals. */
  function charged(invoice: Stripe.Invoice) {
    return {
      lines: invoice.lines.data.map((l) => [l.description, l.amount, l.parent?.subscription_item_details?.proration, l.period]),
      total: invoice.total,
      amount_due: invoice.amount_due,
      currency: invoice.currency,
      billing_reason: invoice.billing_reason,
    };
  }

  it('when a price change is previewed at a proration date and applied a day later with that date, then the invoice charged equals the preview', async () => {
    let clock = JAN_1_2026;
    const { ls, stripe } = await start({ now: () => clock });
    const { customer, subscription } = await subscribe(stripe, ls, 'tradewind_plus_monthly');
    const item = subscription.items.data[0]!;
    const pro = await priceId(stripe, 'tradewind_pro_monthly');
    clock = JAN_1_2026 + 10 * DAY_MS;
    const prorationDate = clock / 1000;
    const events = ls.events.length;
    const preview = await stripe.invoices.createPreview({
      customer,
      subscription: subscription.id,
      subscription_details: { items: [{ id: item.id, price: pro }], proration_behavior: 'always_invoice', proration_date: prorationDate },
    });
    // 21 of January's 31 days are left: -21/31 × $15 + 21/31 × $35.
    expect(charged(preview)).toEqual({
      lines: [
        ['Unused time on Tradewind Plus after 11 Jan 2026', -1016, true, { start: prorationDate, end: item.current_period_end }],
        ['Remaining time on Tradewind Pro after 11 Jan 2026', 2371, true, { start: prorationDate, end: item.current_period_end }],
      ],
      total: 1355,
      amount_due: 1355,
      currency: 'usd',
      billing_reason: 'subscription_update',
    });
    expect(preview).toMatchObject({ object: 'invoice', status: 'draft', number: null, ending_balance: null, starting_balance: 0, customer });
    expect(preview.id).toMatch(/^upcoming_in_/);
    expect(preview.parent?.subscription_details).toMatchObject({ subscription: subscription.id, subscription_proration_date: prorationDate });
    // A preview changes nothing: no event, the same price, no stored invoice.
    expect(ls.events.length).toBe(events);
    expect((await stripe.subscriptions.retrieve(subscription.id)).items.data[0]!.price.id).toBe(item.price.id);
    await expect(stripe.invoices.retrieve(preview.id!)).rejects.toMatchObject({ statusCode: 404 });

    clock += DAY_MS; // the customer confirms a day later: the same proration date keeps the amount
    const updated = await stripe.subscriptions.update(subscription.id, {
      items: [{ id: item.id, price: pro }],
      proration_behavior: 'always_invoice',
      proration_date: prorationDate,
      expand: ['latest_invoice'],
    });
    const invoice = updated.latest_invoice as Stripe.Invoice;
    expect(charged(invoice)).toEqual(charged(preview));
    expect(invoice).toMatchObject({ status: 'paid', amount_paid: preview.amount_due });
  });

  it('when the customer has a credit balance or the interval changes, then the preview shows what the update then charges', async () => {
    let clock = JAN_1_2026;
    const { ls, stripe } = await start({ now: () => clock });
    const { customer, subscription } = await subscribe(stripe, ls, 'tradewind_pro_monthly');
    const item = subscription.items.data[0]!;
    const plusMonthly = await priceId(stripe, 'tradewind_plus_monthly');
    const proYearly = await priceId(stripe, 'tradewind_pro_yearly');
    clock = JAN_1_2026 + 10 * DAY_MS;
    // Down and back up leaves a credit: the next preview applies it to amount_due without spending it.
    await stripe.subscriptions.update(subscription.id, { items: [{ id: item.id, price: plusMonthly }], proration_behavior: 'always_invoice' });
    const balance = ((await stripe.customers.retrieve(customer)) as Stripe.Customer).balance;
    expect(balance).toBe(-1355);
    clock += DAY_MS;
    const prorationDate = clock / 1000;
    const params = { items: [{ id: item.id, price: proYearly }], proration_behavior: 'always_invoice' as const, proration_date: prorationDate };
    const preview = await stripe.invoices.createPreview({ subscription: subscription.id, subscription_details: params });
    const credit = -Math.round((1500 * 20) / 31);
    expect(preview.lines.data.map((l) => l.amount)).toEqual([credit, 33600]);
    expect(preview).toMatchObject({ total: 33600 + credit, starting_balance: -1355, amount_due: 33600 + credit - 1355 });
    expect(((await stripe.customers.retrieve(customer)) as Stripe.Customer).balance).toBe(-1355);
    clock += 3_600_000;
    const updated = await stripe.subscriptions.update(subscription.id, { ...params, expand: ['latest_invoice'] });
    const invoice = updated.latest_invoice as Stripe.Invoice;
    expect(invoice.lines.data.map((l) => l.amount)).toEqual(preview.lines.data.map((l) => l.amount));
    expect(invoice).toMatchObject({ total: preview.total, amount_due: preview.amount_due, amount_paid: preview.amount_due, ending_balance: 0 });
  });

  it('when create_prorations is previewed, then it is the renewal invoice with the prorations; without changes, the plain renewal', async () => {
    const clock = JAN_1_2026 + 10 * DAY_MS;
    let now = JAN_1_2026;
    const { ls, stripe } = await start({ now: () => now });
    const { customer, subscription } = await subscribe(stripe, ls, 'tradewind_plus_monthly');
    now = clock;
    const item = subscription.items.data[0]!;
    const renewal = await stripe.invoices.createPreview({ customer });
    expect(renewal).toMatchObject({ billing_reason: 'subscription_cycle', amount_due: 1500, created: item.current_period_end });
    expect(renewal.parent?.subscription_details?.subscription_proration_date).toBeUndefined();
    const preview = await stripe.invoices.createPreview({
      subscription: subscription.id,
      subscription_details: { items: [{ id: item.id, price: await priceId(stripe, 'tradewind_pro_monthly') }] },
    });
    expect(preview.lines.data.map((l) => l.amount)).toEqual([-Math.round((1500 * 21) / 31), Math.round((3500 * 21) / 31), 3500]);
    expect(preview.parent?.subscription_details?.subscription_proration_date).toBe(clock / 1000);
  });

  it("when a preview or an update is asked wrongly, then Stripe's errors come back", async () => {
    let clock = JAN_1_2026;
    const { ls, stripe } = await start({ now: () => clock });
    const { customer, subscription } = await subscribe(stripe, ls, 'tradewind_plus_monthly');
    const item = subscription.items.data[0]!;
    const pro = await priceId(stripe, 'tradewind_pro_monthly');
    clock = JAN_1_2026 + DAY_MS;
    const outside = JAN_1_2026 / 1000 - 60;
    await expect(
      stripe.invoices.createPreview({ subscription: subscription.id, subscription_details: { items: [{ id: item.id, price: pro }], proration_date: outside } }),
    ).rejects.toMatchObject({
      statusCode: 400,
      param: 'subscription_details[proration_date]',
      message: expect.stringMatching(/within the subscription's current period/),
    });
    await expect(stripe.subscriptions.update(subscription.id, { items: [{ id: item.id, price: pro }], proration_date: outside })).rejects.toMatchObject({
      statusCode: 400,
      param: 'proration_date',
    });
    await expect(
      stripe.invoices.createPreview({
        subscription: subscription.id,
        subscription_details: { items: [{ id: item.id, price: pro }], proration_behavior: 'none', proration_date: clock / 1000 },
      }),
    ).rejects.toMatchObject({ statusCode: 400, param: 'subscription_details[proration_behavior]' });
    await expect(stripe.invoices.createPreview({ customer, subscription_details: { proration_date: clock / 1000 } })).rejects.toMatchObject({
      statusCode: 400,
      param: 'subscription_details[proration_date]',
    });
    await expect(
      stripe.invoices.createPreview({ subscription: subscription.id, subscription_details: { items: [{ id: 'si_nope', price: pro }] } }),
    ).rejects.toMatchObject({ statusCode: 400, code: 'resource_missing', param: 'subscription_details[items][0][id]' });
    await expect(stripe.invoices.createPreview({ subscription: subscription.id, subscription_details: { trial_end: 'now' } })).rejects.toMatchObject({
      statusCode: 400,
      param: 'subscription_details[trial_end]',
    });
    await expect(stripe.invoices.createPreview({ subscription: 'sub_nope' })).rejects.toMatchObject({
      statusCode: 400,
      code: 'resource_missing',
      param: 'subscription',
    });
    await expect(stripe.invoices.createPreview({})).rejects.toMatchObject({ statusCode: 400, code: 'parameter_missing', param: 'customer' });
    await stripe.subscriptions.cancel(subscription.id);
    await expect(stripe.invoices.createPreview({ subscription: subscription.id })).rejects.toMatchObject({ statusCode: 404, code: 'invoice_upcoming_none' });
  });
});

describe('billing portal', () => {
  it('when the portal page is used, then it shows the plan and its forms act through the same operations', async () => {
    const { ls, stripe } = await start({ now: () => JAN_1_2026 });
    const { customer, subscription } = await subscribe(stripe, ls, 'tradewind_plus_monthly');
    const portal = await stripe.billingPortal.sessions.create({ customer, return_url: 'http://localhost:8080/dashboard/plan' });
    expect(portal).toMatchObject({ object: 'billing_portal.session', customer, configuration: 'bpc_local', url: `${ls.publicUrl}/portal/${portal.id}` });
    const html = await (await fetch(portal.url)).text();
    expect(html).toContain(`<title>${PORTAL_LABEL}</title>`);
    expect(html).toContain('Tradewind Plus — $15.00 / month');
    expect(html).toContain('February 1, 2026');
    expect(html).toContain('Test clock (simulation)');
    expect(html).toContain('href="http://localhost:8080/dashboard/plan"');

    const post = (action: string, body: Record<string, string> = {}) =>
      fetch(`${portal.url}/${action}`, {
        method: 'POST',
        redirect: 'manual',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ subscription: subscription.id, ...body }).toString(),
      });
    const switched = await post('switch', { price: await priceId(stripe, 'tradewind_pro_monthly') });
    expect(switched.status).toBe(303);
    expect(switched.headers.get('location')).toBe(`/portal/${portal.id}?done=switch`);
    expect((await stripe.subscriptions.retrieve(subscription.id)).items.data[0]!.price.lookup_key).toBe('tradewind_pro_monthly');
    expect((await post('cancel')).status).toBe(303);
    expect((await stripe.subscriptions.retrieve(subscription.id)).cancel_at_period_end).toBe(true);
    expect((await post('resume')).status).toBe(303);
    expect((await post('advance-failed')).status).toBe(303);
    expect((await stripe.subscriptions.retrieve(subscription.id)).status).toBe('past_due');
    expect((await post('pay')).status).toBe(303);
    expect((await stripe.subscriptions.retrieve(subscription.id)).status).toBe('active');
    const refused = await post('pay');
    expect(refused.status).toBe(400);
    expect(await refused.text()).toContain('no open invoice');
    expect((await fetch(`${ls.publicUrl}/portal/bps_nope`)).status).toBe(404);
  });
});

describe('API errors and idempotency', () => {
  it("when the key, an id or a parameter is wrong, then Stripe's error shapes come back", async () => {
    const { ls, stripe } = await start();
    const wrong = new Stripe('sk_test_wrong_key_1234', { host: '127.0.0.1', port: ls.port, protocol: 'http', maxNetworkRetries: 0 });
    await expect(wrong.customers.create({ email: 'a@example.com' })).rejects.toMatchObject({
      type: 'StripeAuthenticationError',
      statusCode: 401,
      message: expect.stringMatching(/^Invalid API Key provided: sk_test_\*+1234$/),
    });
    await expect(stripe.customers.retrieve('cus_nope')).rejects.toMatchObject({
      statusCode: 404,
      code: 'resource_missing',
      param: 'id',
      message: "No such customer: 'cus_nope'",
    });
    await expect(stripe.invoices.retrieve('in_nope')).rejects.toMatchObject({ statusCode: 404, message: "No such invoice: 'in_nope'" });
    const price = await priceId(stripe, 'tradewind_plus_monthly');
    const base = { line_items: [{ price }], success_url: 'http://localhost/ok', cancel_url: 'http://localhost/back' };
    await expect(stripe.checkout.sessions.create({ ...base, mode: 'payment' })).rejects.toMatchObject({ statusCode: 400, param: 'mode' });
    await expect(stripe.checkout.sessions.create({ ...base } as Stripe.Checkout.SessionCreateParams)).rejects.toMatchObject({
      statusCode: 400,
      code: 'parameter_missing',
      param: 'mode',
    });
    await expect(stripe.checkout.sessions.create({ ...base, mode: 'subscription', customer: 'cus_nope' })).rejects.toMatchObject({
      statusCode: 400,
      code: 'resource_missing',
      param: 'customer',
    });
    await expect(stripe.checkout.sessions.create({ ...base, mode: 'subscription', foo: 1 } as Stripe.Checkout.SessionCreateParams)).rejects.toMatchObject({
      code: 'parameter_unknown',
      param: 'foo',
    });
    await expect(stripe.subscriptions.retrieve('sub_nope')).rejects.toMatchObject({ statusCode: 404, message: "No such subscription: 'sub_nope'" });
    const unknown = await fetch(`${ls.apiUrl}/v1/foo`, { headers: { authorization: `Bearer ${SECRET_KEY}` } });
    expect(unknown.status).toBe(404);
    expect(((await unknown.json()) as { error: { message: string } }).error.message).toMatch(/^Unrecognized request URL \(GET: \/v1\/foo\)/);
  });

  it('when a POST repeats an idempotency key, then the stored answer is replayed and nothing is created twice', async () => {
    const { ls, stripe } = await start();
    const first = await stripe.customers.create({ email: 'idem@example.com', metadata: { user_id: 'u9' } }, { idempotencyKey: 'tradewind-customer-u9' });
    const second = await stripe.customers.create({ email: 'idem@example.com', metadata: { user_id: 'u9' } }, { idempotencyKey: 'tradewind-customer-u9' });
    expect(second.id).toBe(first.id);
    expect(second.lastResponse.headers['idempotent-replayed']).toBe('true');
    expect(ls.events.filter((e) => e.type === 'customer.created')).toHaveLength(1);
    expect(ls.events[0]!.request).toEqual({ id: first.lastResponse.requestId, idempotency_key: 'tradewind-customer-u9' });
    await expect(stripe.customers.create({ email: 'other@example.com' }, { idempotencyKey: 'tradewind-customer-u9' })).rejects.toMatchObject({
      type: 'StripeIdempotencyError',
      statusCode: 400,
    });
  });
});

describe('webhook delivery', () => {
  it('when the endpoint answers 500 once, then the event is delivered again after the retry delay', async () => {
    const receiver = await startReceiver({ failFirst: 1 });
    const { ls, stripe } = await start({ webhookUrl: receiver.url, webhookRetryDelaysMs: [50, 100] });
    const customer = await stripe.customers.create({ email: 'retry@example.com' });
    await ls.flushWebhooks();
    expect(receiver.events.map((e) => [e.type, e.id])).toEqual([
      ['customer.created', ls.events[0]!.id],
      ['customer.created', ls.events[0]!.id],
    ]);
    expect((receiver.events[1]!.data.object as Stripe.Customer).id).toBe(customer.id);
  });

  it('when the endpoint never answers 2xx, then delivery is given up after the last delay and the queue moves on', async () => {
    const receiver = await startReceiver({ failFirst: 3 });
    const { ls, stripe } = await start({ webhookUrl: receiver.url, webhookRetryDelaysMs: [10, 10] });
    await stripe.customers.create({ email: 'one@example.com' });
    await stripe.customers.create({ email: 'two@example.com' });
    await ls.flushWebhooks();
    // Three attempts for the first event (all 500), one for the second.
    expect(receiver.attempts).toHaveLength(4);
    expect(receiver.events.map((e) => e.id)).toEqual([ls.events[0]!.id, ls.events[0]!.id, ls.events[0]!.id, ls.events[1]!.id]);
  });

  it('when paused, then events are recorded but held back until resumed', async () => {
    const receiver = await startReceiver();
    const { ls, stripe } = await start({ webhookUrl: receiver.url });
    ls.pauseWebhooks();
    await stripe.customers.create({ email: 'held@example.com' });
    await ls.flushWebhooks();
    expect(ls.events).toHaveLength(1);
    expect(receiver.events).toHaveLength(0);
    ls.resumeWebhooks();
    await ls.flushWebhooks();
    expect(receiver.events).toEqual(ls.events);
  });
});

describe('billing periods', () => {
  it('when a month is added, then the day is clamped to the month end and counted from the anchor', () => {
    const jan31 = Date.UTC(2026, 0, 31, 12, 30) / 1000;
    expect(addMonths(jan31, 1)).toBe(Date.UTC(2026, 1, 28, 12, 30) / 1000);
    expect(addMonths(jan31, 2)).toBe(Date.UTC(2026, 2, 31, 12, 30) / 1000);
    expect(addMonths(Date.UTC(2028, 1, 29) / 1000, 12)).toBe(Date.UTC(2029, 1, 28) / 1000);
    expect(addMonths(Date.UTC(2026, 11, 15) / 1000, 1)).toBe(Date.UTC(2027, 0, 15) / 1000);
  });
});
