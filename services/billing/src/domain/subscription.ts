/**
 * A user's subscription and how Stripe's news changes it (pure logic, no I/O).
 *
 * Stripe delivers webhooks at least once and in no guaranteed order
 * (https://docs.stripe.com/webhooks#event-ordering). Each piece of news is applied only when the
 * objects' own timestamps and states say it is not older than what is already known:
 *  - A subscription snapshot (customer.subscription.* event, or Stripe's answer to our own update)
 *    is stale when its `created` is older than the newest snapshot applied, when it is of an older
 *    subscription than the current one (`subscription.created`), or when the subscription already
 *    ended (Stripe never revives a canceled subscription).
 *  - An invoice event (invoice.paid / invoice.payment_failed) only moves the status, and only when
 *    it is not older than the newest snapshot and invoice event.
 *  - A snapshot older than the newest invoice event keeps the status that event set.
 * Event `created` has a resolution of one second; two events of the same second apply in delivery order.
 */
import { ENTITLED_STATUSES, entitledPlan, type Plan, type PlanId } from '@tradewind/contracts';
import type { BillingPeriod, PaidPeriod, PaidTier } from './prices.js';

/** Stripe subscription statuses (https://docs.stripe.com/api/subscriptions/object#subscription_object-status). */
export type StripeSubscriptionStatus = 'incomplete' | 'incomplete_expired' | 'trialing' | 'active' | 'past_due' | 'canceled' | 'unpaid' | 'paused';

/**
 * Product status: Stripe's status of the current paid subscription, or "active" on the free plan
 * (also after a paid subscription ended). `canceled` and `incomplete_expired` never appear: they
 * send the user back to starter.
 */
export type SubscriptionStatus = 'active' | 'trialing' | 'past_due' | 'unpaid' | 'incomplete' | 'paused';

export type SubscriptionType = 'free' | 'paid' | 'trial';

/** Stripe statuses after which a subscription never changes again. */
const ENDED: ReadonlySet<string> = new Set(['canceled', 'incomplete_expired']);
/** Statuses an invoice.paid brings back to active. */
const UNPAID: ReadonlySet<string> = new Set(['past_due', 'unpaid', 'incomplete']);

/** What billing knows about one user's subscription. Times are Dates; Stripe `created` values are seconds since the epoch. */
export interface SubscriptionState {
  tier: PlanId;
  billingPeriod: BillingPeriod;
  status: SubscriptionStatus;
  subscriptionType: SubscriptionType;
  stripeSubscriptionId: string | null;
  stripeSubscriptionItemId: string | null;
  stripePriceId: string | null;
  /** Stripe's own status; `canceled` stays here after the fall-back to starter so late news of that subscription is recognised. */
  stripeStatus: string | null;
  stripeSubscriptionCreated: number | null;
  currentPeriodEnd: Date | null;
  cancelAtPeriodEnd: boolean;
  trialEnd: Date | null;
  lastSnapshotCreated: number | null;
  lastInvoiceCreated: number | null;
  /** +1 per change of tier, period or status. */
  version: number;
}

/** The state of a user without a paid subscription. */
export const STARTER: Readonly<
  Pick<SubscriptionState, 'tier' | 'billingPeriod' | 'status' | 'subscriptionType' | 'currentPeriodEnd' | 'cancelAtPeriodEnd' | 'trialEnd'>
> = Object.freeze({
  tier: 'starter',
  billingPeriod: 'indefinite',
  status: 'active',
  subscriptionType: 'free',
  currentPeriodEnd: null,
  cancelAtPeriodEnd: false,
  trialEnd: null,
});

/** A new user's state (from user.created). */
export function starterState(): SubscriptionState {
  return {
    ...STARTER,
    stripeSubscriptionId: null,
    stripeSubscriptionItemId: null,
    stripePriceId: null,
    stripeStatus: null,
    stripeSubscriptionCreated: null,
    lastSnapshotCreated: null,
    lastInvoiceCreated: null,
    version: 0,
  };
}

/** A Stripe Subscription reduced to what billing needs (see `snapshotOfSubscription` in stripe-objects.ts). */
export interface SubscriptionSnapshot {
  id: string;
  customerId: string;
  itemId: string | null;
  priceId: string | null;
  /** The Tradewind plan of the item's price; undefined for a price that is not one of ours. */
  plan: { tier: PaidTier; period: PaidPeriod } | undefined;
  stripeStatus: string;
  /** Subscription `created`, s. */
  created: number;
  currentPeriodEnd: Date | null;
  cancelAtPeriodEnd: boolean;
  trialEnd: Date | null;
}

/** Why the tier, period or status changed (SubscriptionChanged.reason). */
export type ChangeReason = 'checkout_completed' | 'plan_changed' | 'payment_failed' | 'payment_recovered' | 'status_changed' | 'subscription_ended';

/** The outcome of applying one piece of news. */
export type Decision =
  | { kind: 'apply'; next: SubscriptionState; changed: boolean; reason: ChangeReason | undefined }
  | { kind: 'stale' | 'ignored'; detail: string };

function stale(detail: string): Decision {
  return { kind: 'stale', detail };
}

/** Whether tier, period or status differ (what subscription.changed reports). */
export function isChange(
  a: Pick<SubscriptionState, 'tier' | 'billingPeriod' | 'status'>,
  b: Pick<SubscriptionState, 'tier' | 'billingPeriod' | 'status'>,
): boolean {
  return a.tier !== b.tier || a.billingPeriod !== b.billingPeriod || a.status !== b.status;
}

/** The reason of a change from `prev` to `next`; undefined when nothing reportable changed. */
export function changeReason(prev: SubscriptionState, next: SubscriptionState): ChangeReason | undefined {
  if (!isChange(prev, next)) return undefined;
  if (prev.tier !== 'starter' && next.tier === 'starter') return 'subscription_ended';
  if (prev.tier === 'starter' && next.tier !== 'starter') return 'checkout_completed';
  if (prev.tier !== next.tier || prev.billingPeriod !== next.billingPeriod) return 'plan_changed';
  if (next.status === 'past_due' || next.status === 'unpaid') return 'payment_failed';
  if (UNPAID.has(prev.status) && next.status === 'active') return 'payment_recovered';
  return 'status_changed';
}

function decide(prev: SubscriptionState, next: SubscriptionState): Decision {
  const reason = changeReason(prev, next);
  return { kind: 'apply', next: reason ? { ...next, version: prev.version + 1 } : next, changed: reason !== undefined, reason };
}

/** Maps a live Stripe status to the product's; unknown future statuses lose entitlements (treated like unpaid). */
export function productStatus(stripeStatus: string): SubscriptionStatus {
  switch (stripeStatus) {
    case 'active':
    case 'trialing':
    case 'past_due':
    case 'unpaid':
    case 'incomplete':
    case 'paused':
      return stripeStatus;
    default:
      return 'unpaid';
  }
}

/**
 * Applies a subscription snapshot observed at `observedAt` (event `created`, s).
 * @returns stale/ignored with the reason, or the next state.
 */
export function applySubscriptionSnapshot(current: SubscriptionState, snap: SubscriptionSnapshot, observedAt: number): Decision {
  const sameSubscription = current.stripeSubscriptionId === snap.id;
  if (current.stripeSubscriptionId && !sameSubscription) {
    if (current.stripeSubscriptionCreated !== null && snap.created < current.stripeSubscriptionCreated) {
      return stale(`subscription ${snap.id} is older than the current ${current.stripeSubscriptionId}`);
    }
    if (ENDED.has(snap.stripeStatus) && current.stripeStatus !== null && !ENDED.has(current.stripeStatus)) {
      return { kind: 'ignored', detail: `subscription ${snap.id} ended but the current ${current.stripeSubscriptionId} continues` };
    }
  }
  if (sameSubscription) {
    if (current.stripeStatus !== null && ENDED.has(current.stripeStatus)) return stale(`subscription ${snap.id} already ended`);
    if (current.lastSnapshotCreated !== null && observedAt < current.lastSnapshotCreated) {
      return stale(`snapshot of ${observedAt} is older than the applied one of ${current.lastSnapshotCreated}`);
    }
  }
  const base = {
    ...current,
    stripeSubscriptionId: snap.id,
    stripeSubscriptionItemId: snap.itemId,
    stripePriceId: snap.priceId,
    stripeStatus: snap.stripeStatus,
    stripeSubscriptionCreated: snap.created,
    // Past the checks above, this snapshot is the newest of its subscription.
    lastSnapshotCreated: observedAt,
    lastInvoiceCreated: sameSubscription ? current.lastInvoiceCreated : null,
  };
  if (ENDED.has(snap.stripeStatus)) return decide(current, { ...base, ...STARTER });
  if (!snap.plan) return { kind: 'ignored', detail: `price ${snap.priceId ?? '(none)'} of ${snap.id} is not a Tradewind plan` };
  // An invoice event newer than this snapshot knows the payment state better.
  const keepStatus = sameSubscription && current.lastInvoiceCreated !== null && observedAt < current.lastInvoiceCreated;
  const status = keepStatus ? current.status : productStatus(snap.stripeStatus);
  return decide(current, {
    ...base,
    tier: snap.plan.tier,
    billingPeriod: snap.plan.period,
    status,
    subscriptionType: snap.stripeStatus === 'trialing' ? 'trial' : 'paid',
    currentPeriodEnd: snap.currentPeriodEnd,
    cancelAtPeriodEnd: snap.cancelAtPeriodEnd,
    trialEnd: snap.trialEnd,
  });
}

/**
 * Applies checkout.session.completed: the subscription `subscriptionId` now exists for the plan
 * the session was created for. Only fills in what no snapshot has told yet.
 */
export function applyCheckoutCompleted(
  current: SubscriptionState,
  completed: { subscriptionId: string; plan: { tier: PaidTier; period: PaidPeriod }; paid: boolean },
): Decision {
  const same = current.stripeSubscriptionId === completed.subscriptionId;
  if (same && current.stripeStatus !== null && ENDED.has(current.stripeStatus)) return stale(`subscription ${completed.subscriptionId} already ended`);
  if (same && current.lastSnapshotCreated !== null) return { kind: 'apply', next: current, changed: false, reason: undefined };
  // No snapshot of this subscription yet, so nothing of its `created` or snapshot clock is known.
  return decide(current, {
    ...current,
    stripeSubscriptionId: completed.subscriptionId,
    stripeStatus: completed.paid ? 'active' : 'incomplete',
    stripeSubscriptionCreated: null,
    lastSnapshotCreated: null,
    lastInvoiceCreated: same ? current.lastInvoiceCreated : null,
    tier: completed.plan.tier,
    billingPeriod: completed.plan.period,
    status: completed.paid ? 'active' : 'incomplete',
    subscriptionType: 'paid',
    cancelAtPeriodEnd: false,
  });
}

/** Applies invoice.paid (`paid` true) or invoice.payment_failed (false) of `subscriptionId`, observed at `observedAt` (s). */
export function applyInvoiceOutcome(current: SubscriptionState, subscriptionId: string, paid: boolean, observedAt: number): Decision {
  if (current.stripeSubscriptionId !== subscriptionId) return { kind: 'ignored', detail: `invoice of ${subscriptionId}, not the current subscription` };
  if (current.stripeStatus !== null && ENDED.has(current.stripeStatus)) return stale(`subscription ${subscriptionId} already ended`);
  const newest = Math.max(current.lastSnapshotCreated ?? 0, current.lastInvoiceCreated ?? 0);
  if (observedAt < newest) return stale(`invoice event of ${observedAt} is older than news of ${newest}`);
  let status = current.status;
  if (paid && UNPAID.has(current.status)) status = 'active';
  if (!paid && (current.status === 'active' || current.status === 'trialing')) status = 'past_due';
  return decide(current, { ...current, status, stripeStatus: status, lastInvoiceCreated: observedAt });
}

/** The plan whose limits apply now: the subscribed tier while the status is entitled, starter otherwise. */
export function effectivePlan(state: Pick<SubscriptionState, 'tier' | 'status'>): Plan {
  return entitledPlan(state.tier, state.status);
}

/** Whether a paid plan change can be made on the current subscription (rather than a new checkout). */
export function hasLivePaidSubscription(state: SubscriptionState): boolean {
  return state.tier !== 'starter' && state.stripeSubscriptionId !== null && state.stripeSubscriptionItemId !== null && ENTITLED_STATUSES.has(state.status);
}
