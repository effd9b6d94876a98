/** Reading the Stripe objects billing receives (API version 2026-10-28.endive shapes). */
import type Stripe from 'stripe';
import type { SubscriptionSnapshot } from '../domain/subscription.js';
import type { StripeGateway } from './gateway.js';

/** The id of an expandable field (`"cus_…"` or the expanded object), or null. */
export function idOf(value: string | { id: string } | null | undefined): string | null {
  if (!value) return null;
  return typeof value === 'string' ? value : value.id;
}

const date = (seconds: number | null | undefined): Date | null => (typeof seconds === 'number' ? new Date(seconds * 1000) : null);

/**
 * A Subscription as a snapshot. Since API version 2025-03-31 the current period lives on the
 * subscription items (https://docs.stripe.com/changelog/basil/2025-03-31/deprecate-subscription-current-period-start-and-end);
 * Tradewind subscriptions have exactly one item.
 */
export function snapshotOfSubscription(sub: Stripe.Subscription, planOfPrice: StripeGateway['planOfPrice']): SubscriptionSnapshot {
  const item = sub.items?.data?.[0];
  return {
    id: sub.id,
    customerId: idOf(sub.customer) ?? '',
    itemId: item?.id ?? null,
    priceId: item?.price?.id ?? null,
    plan: planOfPrice(item?.price),
    stripeStatus: sub.status,
    created: sub.created,
    currentPeriodEnd: date(item?.current_period_end),
    cancelAtPeriodEnd: sub.cancel_at_period_end || sub.cancel_at !== null,
    trialEnd: date(sub.trial_end),
  };
}

/** The subscription an invoice bills (`parent.subscription_details.subscription` since 2025-03-31), or null. */
export function subscriptionOfInvoice(invoice: Stripe.Invoice): string | null {
  const details = invoice.parent?.subscription_details;
  return details ? idOf(details.subscription as string | { id: string } | null) : null;
}
