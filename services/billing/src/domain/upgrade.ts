/**
 * Upgrade rules and the price preview shown before an upgrade is confirmed (pure logic, no I/O).
 *
 * Product spec §4: Starter can upgrade to Plus or Pro; Plus only to Pro; Pro only manages its
 * subscription. Downgrades (a lower tier) happen in the Stripe billing portal ("Manage billing"),
 * never through `/api/checkout-sessions`. A change of billing period within the same tier is
 * allowed here (the portal offers it too).
 *
 * A user with a live paid subscription pays the prorated difference at once (pricing FAQ: "plan
 * changes take effect immediately with proration"). The amount comes from Stripe's invoice preview
 * at a `proration_date`; the confirm sends that date back, and billing applies the change with it,
 * so Stripe charges exactly the amount shown (https://docs.stripe.com/api/invoices/create_preview).
 */
import type Stripe from 'stripe';
import { AppError, PLANS, PLAN_IDS, type PlanId } from '@tradewind/contracts';
import { expectedPrice, type PaidPeriod, type PaidTier } from './prices.js';

/** Largest gap allowed between a `proration_date` and billing's clock in the future direction, s (clock skew between browser round trips and billing instances). */
export const PRORATION_DATE_FUTURE_SKEW_SECONDS = 300;

/** One line of a price preview, in US cents (negative for a credit). */
export interface PreviewLine {
  description: string;
  amount_cents: number;
}

/** The `POST /api/upgrade-preview` body. */
export interface UpgradePreviewJson {
  tier: PaidTier;
  period: PaidPeriod;
  /**
   * `checkout`: no live paid subscription; Stripe Checkout takes the first payment on its page.
   * `proration`: the live subscription changes at once and the prorated difference is charged now.
   */
  kind: 'checkout' | 'proration';
  /** What is charged when the user confirms, US cents (never negative: a net credit stays on the account). */
  amount_due_cents: number;
  /** ISO 4217, lower case (Stripe's form): always `usd`. */
  currency: string;
  /** The charges and credits that add up to `amount_due_cents`. */
  lines: PreviewLine[];
  /** When the next regular charge falls after the change (ISO 8601); null for a checkout (the cycle starts on payment). */
  next_billing_date: string | null;
  /** Unix seconds the proration was computed for; send it back as `proration_date` to confirm. Null for a checkout. */
  proration_date: number | null;
}

function tierName(tier: PlanId): string {
  return PLANS[tier].name;
}

/**
 * Checks that a user on `current` (a live paid subscription) may move to `plan` here.
 * @throws AppError('conflict') for the same plan ("You are already on …") and for a lower tier
 *   ("… Use Manage billing to downgrade.").
 */
export function checkPlanChange(current: { tier: PlanId; billingPeriod: string }, plan: { tier: PaidTier; period: PaidPeriod }): void {
  if (current.tier === plan.tier && current.billingPeriod === plan.period) {
    throw new AppError('conflict', `You are already on ${tierName(plan.tier)} (${plan.period}).`);
  }
  if (PLAN_IDS.indexOf(plan.tier) < PLAN_IDS.indexOf(current.tier)) {
    throw new AppError('conflict', `Moving from ${tierName(current.tier)} to ${tierName(plan.tier)} is a downgrade. Use Manage billing to downgrade.`);
  }
}

/**
 * The preview for a user without a live paid subscription: the plan's first charge from the
 * catalogue (monthly price, or annual price per month × 12 for yearly; `expectedPrice`, which
 * billing also checks Stripe's Prices against).
 */
export function checkoutPreview(plan: { tier: PaidTier; period: PaidPeriod }): UpgradePreviewJson {
  const price = expectedPrice(plan.tier, plan.period);
  const p = PLANS[plan.tier];
  const description =
    plan.period === 'monthly' ? `Tradewind ${p.name}, billed monthly` : `Tradewind ${p.name}, billed yearly ($${p.annualMonthlyUsd}/month × 12)`;
  return {
    tier: plan.tier,
    period: plan.period,
    kind: 'checkout',
    amount_due_cents: price.unitAmountCents,
    currency: price.currency,
    lines: [{ description, amount_cents: price.unitAmountCents }],
    next_billing_date: null,
    proration_date: null,
  };
}

/** The parts of Stripe's preview Invoice the preview reads. */
export type PreviewInvoice = Pick<Stripe.Invoice, 'amount_due' | 'total' | 'currency' | 'parent'> & {
  lines: { data: Array<Pick<Stripe.InvoiceLineItem, 'description' | 'amount' | 'period'>> };
};

/**
 * The preview for a live subscription, from Stripe's invoice preview of the item's price change
 * (`proration_behavior: always_invoice`), as sent at `sentProrationDate` (s).
 * - Lines are Stripe's lines. When the customer's balance changes what is due (a credit from an
 *   earlier downgrade), a line "Applied account balance" makes the lines add up to `amount_due`.
 * - `next_billing_date` is the latest end of the invoice's line periods (the current period end, or
 *   the new period's end when the billing interval changes).
 * - `proration_date` is Stripe's `subscription_proration_date`, else the one sent.
 */
export function prorationPreview(plan: { tier: PaidTier; period: PaidPeriod }, invoice: PreviewInvoice, sentProrationDate: number): UpgradePreviewJson {
  const lines: PreviewLine[] = invoice.lines.data.map((line) => ({ description: line.description ?? '', amount_cents: line.amount }));
  if (invoice.amount_due !== invoice.total) lines.push({ description: 'Applied account balance', amount_cents: invoice.amount_due - invoice.total });
  const ends = invoice.lines.data.map((line) => line.period?.end).filter((end): end is number => typeof end === 'number');
  const stripeDate = invoice.parent?.subscription_details?.subscription_proration_date;
  return {
    tier: plan.tier,
    period: plan.period,
    kind: 'proration',
    amount_due_cents: invoice.amount_due,
    currency: invoice.currency,
    lines,
    next_billing_date: ends.length > 0 ? new Date(Math.max(...ends) * 1000).toISOString() : null,
    proration_date: typeof stripeDate === 'number' ? stripeDate : sentProrationDate,
  };
}

/**
 * Validates the `proration_date` sent with a confirm (`POST /api/checkout-sessions`): the Unix
 * time (s) of a preview from `/api/upgrade-preview`, at most `maxAgeSeconds` old and not in the
 * future (beyond {@link PRORATION_DATE_FUTURE_SKEW_SECONDS}) by billing's clock `nowSeconds`.
 * @throws AppError('invalid_argument') for anything but an integer in range;
 *   AppError('conflict') for a preview older than `maxAgeSeconds` (the user must review the new amount).
 */
export function checkProrationDate(value: unknown, nowSeconds: number, maxAgeSeconds: number): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value <= 0) {
    throw new AppError('invalid_argument', 'proration_date must be the Unix time in seconds of the price preview (POST /api/upgrade-preview).');
  }
  if (value > nowSeconds + PRORATION_DATE_FUTURE_SKEW_SECONDS)
    throw new AppError('invalid_argument', 'proration_date is in the future: send the one of the price preview.');
  if (nowSeconds - value > maxAgeSeconds) {
    throw new AppError('conflict', `The amount shown is more than ${Math.round(maxAgeSeconds / 60)} minutes old. Review the new amount and confirm again.`);
  }
  return value;
}
