/**
 * payment.succeeded / payment.failed: billing turns Stripe's invoice.paid and
 * invoice.payment_failed webhooks (from the local Stripe stand-in, and hand-signed payloads) into
 * EVENTS through its outbox, once per Stripe event id.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EVENTS_STREAM, decodeEvent, type EventTypes } from '@tradewind/contracts';
import { json, startHarness, type Harness, type TestUser } from './support.js';

let h: Harness;

beforeAll(async () => {
  h = await startHarness('billing_payments');
});

afterAll(async () => {
  await h?.close();
});

type Payment =
  | { subject: 'payment.succeeded'; msgId: string | undefined; event: EventTypes['payment.succeeded'] }
  | { subject: 'payment.failed'; msgId: string | undefined; event: EventTypes['payment.failed'] };

/** payment.* events on EVENTS for `userId`, oldest first, after the outbox drained. */
async function payments(userId: string): Promise<Payment[]> {
  await h.settle();
  const info = await h.jsm.streams.info(EVENTS_STREAM);
  const out: Payment[] = [];
  for (let seq = info.state.first_seq; seq <= info.state.last_seq && info.state.messages > 0; seq++) {
    const msg = await h.jsm.streams.getMessage(EVENTS_STREAM, { seq }).catch(() => null);
    if (!msg || (msg.subject !== 'payment.succeeded' && msg.subject !== 'payment.failed')) continue;
    const msgId = msg.header?.get('Nats-Msg-Id');
    const payment =
      msg.subject === 'payment.succeeded'
        ? { subject: msg.subject, msgId, event: decodeEvent('payment.succeeded', msg.data) }
        : { subject: msg.subject, msgId, event: decodeEvent('payment.failed', msg.data) };
    if (payment.event.userId === userId) out.push(payment as Payment);
  }
  return out;
}

/** Starts a checkout for `user` and pays it on the stand-in's hosted page, as a browser would. */
async function checkout(user: TestUser, tier: string, period: string): Promise<{ subscriptionId: string; customerId: string }> {
  const res = await h.post('/api/checkout-sessions', { tier, period, userId: user.userId, cancelUrl: `${h.publicUrl}/pricing` });
  expect(res.status).toBe(200);
  const { url } = await json<{ url: string }>(res);
  const sessionId = new URL(url).pathname.split('/').pop()!;
  const pay = await fetch(`${url}/pay`, { method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: '' });
  expect(pay.status).toBe(303);
  await h.settle();
  const session = await h.stripe.checkout.sessions.retrieve(sessionId);
  return { subscriptionId: session.subscription as string, customerId: session.customer as string };
}

/** A Stripe invoice event billing can attribute to `customerId` / `subscriptionId`. */
function invoiceEvent(
  id: string,
  type: 'invoice.paid' | 'invoice.payment_failed',
  invoice: { id: string; customer: string; subscription: string; amount: number; priceId: string },
) {
  const created = Math.floor(Date.now() / 1000);
  return {
    id,
    object: 'event',
    api_version: '2026-10-28.endive',
    type,
    created,
    livemode: false,
    pending_webhooks: 1,
    request: { id: null, idempotency_key: null },
    data: {
      object: {
        id: invoice.id,
        object: 'invoice',
        customer: invoice.customer,
        currency: 'usd',
        created,
        status: type === 'invoice.paid' ? 'paid' : 'open',
        amount_due: invoice.amount,
        amount_paid: type === 'invoice.paid' ? invoice.amount : 0,
        attempt_count: type === 'invoice.paid' ? 1 : 2,
        next_payment_attempt: type === 'invoice.paid' ? null : created + 3 * 86_400,
        billing_reason: 'subscription_cycle',
        hosted_invoice_url: `https://invoice.stripe.com/i/acct_test/${invoice.id}`,
        parent: { type: 'subscription_details', quote_details: null, subscription_details: { metadata: {}, subscription: invoice.subscription } },
        lines: {
          object: 'list',
          has_more: false,
          url: `/v1/invoices/${invoice.id}/lines`,
          data: [
            {
              id: `il_${invoice.id}`,
              object: 'line_item',
              amount: invoice.amount,
              currency: 'usd',
              pricing: { type: 'price_details', price_details: { price: invoice.priceId, product: 'prod_x' }, unit_amount_decimal: String(invoice.amount) },
            },
          ],
        },
      },
    },
  };
}

describe('payment events from the local Stripe stand-in', () => {
  let user: TestUser;
  let subscriptionId: string;

  it('when a checkout is paid, then one payment.succeeded carries the user, amount, currency, plan, invoice and Stripe event ids', async () => {
    user = await h.newUser();
    const done = await checkout(user, 'plus', 'monthly');
    subscriptionId = done.subscriptionId;
    const found = await payments(user.userId);
    expect(found).toHaveLength(1);
    const [paid] = found;
    expect(paid!.subject).toBe('payment.succeeded');
    const invoice = (await h.stripe.subscriptions.retrieve(subscriptionId, { expand: ['latest_invoice'] })).latest_invoice as {
      id: string;
      amount_paid: number;
    };
    const stripeEvent = h.localStripe.events.find((e) => e.type === 'invoice.paid' && (e.data.object as { id: string }).id === invoice.id)!;
    expect(paid!.event).toMatchObject({
      userId: user.userId,
      amount: 1500n,
      currency: 'usd',
      plan: 'plus',
      billingPeriod: 'monthly',
      billingReason: 'subscription_create',
      stripeInvoiceId: invoice.id,
      stripeEventId: stripeEvent.id,
      stripeCustomerId: done.customerId,
      stripeSubscriptionId: subscriptionId,
      hostedInvoiceUrl: '',
    });
    expect(paid!.event.meta).toMatchObject({ producer: 'billing', schemaVersion: 1 });
    expect(paid!.msgId).toBe(paid!.event.meta!.eventId);
    expect(await h.db.selectFrom('stripe_events').select('detail').where('id', '=', stripeEvent.id).executeTakeFirstOrThrow()).toMatchObject({
      detail: expect.stringContaining('payment.succeeded written'),
    });
  });

  it('when a renewal payment fails and the open invoice is then paid, then payment.failed and then payment.succeeded', async () => {
    await h.localStripe.advanceToPeriodEnd(subscriptionId, { paymentSucceeds: false });
    await h.localStripe.payOpenInvoice(subscriptionId);
    const found = await payments(user.userId);
    expect(found.map((p) => p.subject)).toEqual(['payment.succeeded', 'payment.failed', 'payment.succeeded']);
    const failed = found[1]!;
    if (failed.subject !== 'payment.failed') throw new Error('expected payment.failed');
    expect(failed.event).toMatchObject({
      userId: user.userId,
      amount: 1500n,
      currency: 'usd',
      plan: 'plus',
      billingPeriod: 'monthly',
      billingReason: 'subscription_cycle',
      attemptCount: 1,
    });
    expect(found[2]!.event).toMatchObject({ amount: 1500n, stripeInvoiceId: failed.event.stripeInvoiceId });
  });

  it('when every recorded Stripe event is delivered again, then no payment event is written twice', async () => {
    const before = await payments(user.userId);
    for (const event of h.localStripe.events) expect(await (await h.deliver(event)).json()).toEqual({ received: true, outcome: 'duplicate' });
    expect(await payments(user.userId)).toHaveLength(before.length);
  });
});

describe('payment events from signed webhook payloads', () => {
  it('when a signed invoice.paid arrives twice with one id, then one payment.succeeded with the hosted invoice URL; a failed one gives payment.failed with the next attempt', async () => {
    const user = await h.newUser();
    const { subscriptionId, customerId } = await checkout(user, 'pro', 'yearly');
    const price = (await h.stripe.prices.list({ lookup_keys: ['tradewind_pro_yearly'] })).data[0]!;
    const before = (await payments(user.userId)).length;
    const paid = invoiceEvent(`evt_manual_paid_${user.userId}`, 'invoice.paid', {
      id: `in_manual_${user.userId.slice(0, 8)}`,
      customer: customerId,
      subscription: subscriptionId,
      amount: 28800,
      priceId: price.id,
    });
    const first = await h.deliver(paid);
    expect(first.status).toBe(200);
    expect(await h.deliver(paid).then((r) => r.json())).toEqual({ received: true, outcome: 'duplicate' });
    const failed = invoiceEvent(`evt_manual_failed_${user.userId}`, 'invoice.payment_failed', {
      id: `in_manual_f_${user.userId.slice(0, 8)}`,
      customer: customerId,
      subscription: subscriptionId,
      amount: 28800,
      priceId: price.id,
    });
    expect((await h.deliver(failed)).status).toBe(200);
    const found = (await payments(user.userId)).slice(before);
    expect(found.map((p) => p.subject)).toEqual(['payment.succeeded', 'payment.failed']);
    expect(found[0]!.event).toMatchObject({
      amount: 28800n,
      plan: 'pro',
      billingPeriod: 'yearly',
      stripeEventId: paid.id,
      hostedInvoiceUrl: `https://invoice.stripe.com/i/acct_test/${paid.data.object.id}`,
    });
    const f = found[1]!;
    if (f.subject !== 'payment.failed') throw new Error('expected payment.failed');
    expect(f.event).toMatchObject({
      amount: 28800n,
      attemptCount: 2,
      stripeEventId: failed.id,
      nextPaymentAttempt: new Date(failed.data.object.next_payment_attempt! * 1000),
    });
  });

  it("when a proration invoice for a new plan arrives before billing applied the change, then the event names the plan of the invoice's largest line", async () => {
    const user = await h.newUser();
    const { subscriptionId, customerId } = await checkout(user, 'plus', 'monthly');
    const pro = (await h.stripe.prices.list({ lookup_keys: ['tradewind_pro_monthly'] })).data[0]!;
    const plus = (await h.stripe.prices.list({ lookup_keys: ['tradewind_plus_monthly'] })).data[0]!;
    const before = (await payments(user.userId)).length;
    const event = invoiceEvent(`evt_proration_${user.userId}`, 'invoice.paid', {
      id: `in_pr_${user.userId.slice(0, 8)}`,
      customer: customerId,
      subscription: subscriptionId,
      amount: 2000,
      priceId: pro.id,
    });
    // Stripe's proration invoice: a credit line for the old price and a debit line for the new one.
    const lines = event.data.object.lines.data;
    lines.unshift({ ...lines[0]!, id: 'il_credit', amount: -1500, pricing: { ...lines[0]!.pricing, price_details: { price: plus.id, product: 'prod_x' } } });
    expect((await h.deliver(event)).status).toBe(200);
    const found = (await payments(user.userId)).slice(before);
    expect(found).toHaveLength(1);
    expect(found[0]!.event).toMatchObject({ amount: 2000n, plan: 'pro', billingPeriod: 'monthly' });
  });

  it('when an invoice.paid charged nothing or belongs to no Tradewind user, then no payment event', async () => {
    const user = await h.newUser();
    const { subscriptionId, customerId } = await checkout(user, 'plus', 'yearly');
    const price = (await h.stripe.prices.list({ lookup_keys: ['tradewind_plus_yearly'] })).data[0]!;
    const before = (await payments(user.userId)).length;
    const zero = invoiceEvent(`evt_zero_${user.userId}`, 'invoice.paid', {
      id: `in_zero_${user.userId.slice(0, 8)}`,
      customer: customerId,
      subscription: subscriptionId,
      amount: 0,
      priceId: price.id,
    });
    expect((await h.deliver(zero)).status).toBe(200);
    const foreign = invoiceEvent(`evt_foreign_${user.userId}`, 'invoice.paid', {
      id: 'in_foreign',
      customer: 'cus_nobody',
      subscription: 'sub_nobody',
      amount: 900,
      priceId: price.id,
    });
    expect(await (await h.deliver(foreign)).json()).toEqual({ received: true, outcome: 'ignored' });
    expect(await payments(user.userId)).toHaveLength(before);
  });
});
