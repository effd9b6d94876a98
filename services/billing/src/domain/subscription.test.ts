import { describe, expect, it } from 'vitest';
import {
  applyCheckoutCompleted,
  applyInvoiceOutcome,
  applySubscriptionSnapshot,
  changeReason,
  effectivePlan,
  starterState,
  type Decision,
  type SubscriptionSnapshot,
  type SubscriptionState,
} from './subscription.js';
import { expectedPrice, parsePaidPlan, parsePriceLookupKey, priceLookupKey } from './prices.js';

const snap = (over: Partial<SubscriptionSnapshot> = {}): SubscriptionSnapshot => ({
  id: 'sub_1',
  customerId: 'cus_1',
  itemId: 'si_1',
  priceId: 'price_plus_m',
  plan: { tier: 'plus', period: 'monthly' },
  stripeStatus: 'active',
  created: 1_000,
  currentPeriodEnd: new Date('2026-12-21T00:00:00Z'),
  cancelAtPeriodEnd: false,
  trialEnd: null,
  ...over,
});

function next(decision: Decision): SubscriptionState {
  if (decision.kind !== 'apply') throw new Error(`expected apply, got ${decision.kind}: ${decision.detail}`);
  return decision.next;
}

const plusActive = () => next(applySubscriptionSnapshot(starterState(), snap(), 1_000));

describe('subscription snapshots', () => {
  it('when a first paid snapshot arrives, then the user moves from starter to that plan with one reported change', () => {
    const d = applySubscriptionSnapshot(starterState(), snap(), 1_000);
    expect(d).toMatchObject({ kind: 'apply', changed: true, reason: 'checkout_completed' });
    expect(next(d)).toMatchObject({
      tier: 'plus',
      billingPeriod: 'monthly',
      status: 'active',
      subscriptionType: 'paid',
      version: 1,
      lastSnapshotCreated: 1_000,
    });
  });

  it('when the same snapshot is delivered again, then nothing reportable changes and the version stays', () => {
    const d = applySubscriptionSnapshot(plusActive(), snap(), 1_000);
    expect(d).toMatchObject({ kind: 'apply', changed: false });
    expect(next(d).version).toBe(1);
  });

  it('when a snapshot older than the applied one arrives, then it is stale', () => {
    const upgraded = next(applySubscriptionSnapshot(plusActive(), snap({ plan: { tier: 'pro', period: 'monthly' } }), 1_100));
    const d = applySubscriptionSnapshot(upgraded, snap(), 1_050);
    expect(d.kind).toBe('stale');
  });

  it('when the subscription was deleted, then a later-delivered older update cannot revive it', () => {
    const ended = next(applySubscriptionSnapshot(plusActive(), snap({ stripeStatus: 'canceled' }), 1_200));
    expect(ended).toMatchObject({ tier: 'starter', billingPeriod: 'indefinite', status: 'active', subscriptionType: 'free', stripeStatus: 'canceled' });
    expect(applySubscriptionSnapshot(ended, snap(), 1_300).kind).toBe('stale');
  });

  it('when a snapshot of an older subscription arrives, then it is stale; a newer subscription is adopted', () => {
    const current = next(applySubscriptionSnapshot(starterState(), snap({ id: 'sub_2', created: 2_000 }), 2_000));
    expect(applySubscriptionSnapshot(current, snap({ id: 'sub_1', created: 1_000 }), 2_500).kind).toBe('stale');
    const adopted = next(applySubscriptionSnapshot(current, snap({ id: 'sub_3', created: 3_000, plan: { tier: 'pro', period: 'yearly' } }), 3_000));
    expect(adopted).toMatchObject({ stripeSubscriptionId: 'sub_3', tier: 'pro', billingPeriod: 'yearly' });
  });

  it('when another subscription of the customer ends while the current one lives, then it is ignored', () => {
    const current = next(applySubscriptionSnapshot(starterState(), snap({ id: 'sub_1', created: 1_000 }), 1_000));
    const d = applySubscriptionSnapshot(current, snap({ id: 'sub_9', created: 1_500, stripeStatus: 'canceled' }), 1_600);
    expect(d.kind).toBe('ignored');
  });

  it('when a price is not one of the plans, then the snapshot is ignored with the price named', () => {
    const d = applySubscriptionSnapshot(starterState(), snap({ plan: undefined, priceId: 'price_other' }), 1_000);
    expect(d).toMatchObject({ kind: 'ignored' });
    expect(d.kind !== 'apply' && d.detail).toContain('price_other');
  });

  it('when Stripe says trialing, then the type is trial and entitlements are the plan', () => {
    const s = next(applySubscriptionSnapshot(starterState(), snap({ stripeStatus: 'trialing', trialEnd: new Date('2026-12-01T00:00:00Z') }), 1_000));
    expect(s).toMatchObject({ status: 'trialing', subscriptionType: 'trial' });
    expect(effectivePlan(s).id).toBe('plus');
  });
});

describe('invoice events', () => {
  it('when a renewal fails, then the status becomes past_due (payment_failed) and the plan is kept while Stripe retries', () => {
    const d = applyInvoiceOutcome(plusActive(), 'sub_1', false, 1_100);
    expect(d).toMatchObject({ kind: 'apply', changed: true, reason: 'payment_failed' });
    expect(effectivePlan(next(d)).id).toBe('plus');
  });

  it('when the invoice is then paid, then the status is active again (payment_recovered)', () => {
    const pastDue = next(applyInvoiceOutcome(plusActive(), 'sub_1', false, 1_100));
    expect(applyInvoiceOutcome(pastDue, 'sub_1', true, 1_200)).toMatchObject({ kind: 'apply', changed: true, reason: 'payment_recovered' });
  });

  it('when a payment_failed older than the newest news arrives late, then it is stale', () => {
    const paid = next(applyInvoiceOutcome(plusActive(), 'sub_1', true, 1_200));
    expect(applyInvoiceOutcome(paid, 'sub_1', false, 1_100).kind).toBe('stale');
  });

  it('when a snapshot older than the newest invoice event arrives, then its tier applies but the status set by the invoice stays', () => {
    const pastDue = next(applyInvoiceOutcome(plusActive(), 'sub_1', false, 1_100));
    const recovered = next(applyInvoiceOutcome(pastDue, 'sub_1', true, 1_300));
    const d = next(applySubscriptionSnapshot(recovered, snap({ stripeStatus: 'past_due', plan: { tier: 'pro', period: 'monthly' } }), 1_200));
    expect(d).toMatchObject({ tier: 'pro', status: 'active' });
  });

  it('when the invoice is of another subscription, then it is ignored', () => {
    expect(applyInvoiceOutcome(plusActive(), 'sub_other', false, 1_100).kind).toBe('ignored');
  });

  it('when unpaid, then entitlements fall back to starter while the tier is kept', () => {
    const s = next(applySubscriptionSnapshot(plusActive(), snap({ stripeStatus: 'unpaid' }), 1_100));
    expect(s.tier).toBe('plus');
    expect(effectivePlan(s).id).toBe('starter');
  });
});

describe('checkout completion', () => {
  it('when checkout completes before any snapshot, then the plan applies from the session; the snapshot after it reports nothing new', () => {
    const afterCheckout = next(applyCheckoutCompleted(starterState(), { subscriptionId: 'sub_1', plan: { tier: 'plus', period: 'monthly' }, paid: true }));
    expect(afterCheckout).toMatchObject({ tier: 'plus', status: 'active', version: 1 });
    expect(applySubscriptionSnapshot(afterCheckout, snap(), 1_000)).toMatchObject({ kind: 'apply', changed: false });
  });

  it('when checkout completion arrives after the snapshot, then nothing changes', () => {
    expect(applyCheckoutCompleted(plusActive(), { subscriptionId: 'sub_1', plan: { tier: 'plus', period: 'monthly' }, paid: true })).toMatchObject({
      kind: 'apply',
      changed: false,
    });
  });

  it('when checkout completion arrives after the subscription already ended, then it is stale', () => {
    const ended = next(applySubscriptionSnapshot(starterState(), snap({ stripeStatus: 'canceled' }), 1_000));
    expect(applyCheckoutCompleted(ended, { subscriptionId: 'sub_1', plan: { tier: 'plus', period: 'monthly' }, paid: true }).kind).toBe('stale');
  });
});

describe('reasons and prices', () => {
  it('names plan changes, endings and status changes', () => {
    const plus = plusActive();
    expect(changeReason(plus, { ...plus, tier: 'pro' })).toBe('plan_changed');
    expect(changeReason(plus, { ...plus, billingPeriod: 'yearly' })).toBe('plan_changed');
    expect(changeReason(plus, { ...plus, tier: 'starter', billingPeriod: 'indefinite' })).toBe('subscription_ended');
    expect(changeReason(plus, { ...plus, status: 'paused' })).toBe('status_changed');
    expect(changeReason(plus, plus)).toBeUndefined();
  });

  it('prices follow the catalogue: monthly price per month, annual per-month price × 12 per year', () => {
    expect(expectedPrice('plus', 'monthly')).toEqual({ unitAmountCents: 1500, currency: 'usd', interval: 'month' });
    expect(expectedPrice('plus', 'yearly')).toEqual({ unitAmountCents: 14400, currency: 'usd', interval: 'year' });
    expect(expectedPrice('pro', 'yearly')).toEqual({ unitAmountCents: 33600, currency: 'usd', interval: 'year' });
    expect(parsePriceLookupKey(priceLookupKey('pro', 'monthly'))).toEqual({ tier: 'pro', period: 'monthly' });
    expect(parsePriceLookupKey('tradewind_gold_monthly')).toBeUndefined();
  });

  it('refuses starter, unknown tiers and periods with a clear message', () => {
    expect(() => parsePaidPlan('starter', 'monthly')).toThrow(/Starter plan is free/);
    expect(() => parsePaidPlan('gold', 'monthly')).toThrow(/tier must be plus or pro \(got "gold"\)/);
    expect(() => parsePaidPlan('plus', 'weekly')).toThrow(/period must be monthly or yearly \(got "weekly"\)/);
    expect(() => parsePaidPlan(undefined, undefined)).toThrow(/tier must be plus or pro \(got null\)/);
  });
});
