/**
 * Stripe Prices of the paid plans. Each Price is found by its lookup key
 * (https://docs.stripe.com/products-prices/manage-prices#lookup-keys) `tradewind_<tier>_<period>`,
 * so the same code works in test mode, live mode and against the local Stripe stand-in, and
 * its amount is checked against the plans catalogue (`PLANS` in @tradewind/lib).
 */
import { AppError, PLANS, type PlanId } from '@tradewind/contracts';

/** How often a paid plan is billed. The free plan's period is "indefinite". */
export type PaidPeriod = 'monthly' | 'yearly';
export type BillingPeriod = PaidPeriod | 'indefinite';
export const PAID_PERIODS: readonly PaidPeriod[] = ['monthly', 'yearly'];
export type PaidTier = Exclude<PlanId, 'starter'>;
export const PAID_TIERS: readonly PaidTier[] = ['plus', 'pro'];

/** Stripe lookup key of a paid plan's Price, e.g. `tradewind_plus_yearly`. */
export function priceLookupKey(tier: PaidTier, period: PaidPeriod): string {
  return `tradewind_${tier}_${period}`;
}

/** The (tier, period) a lookup key names, or undefined for a key that is not one of ours. */
export function parsePriceLookupKey(key: string | null | undefined): { tier: PaidTier; period: PaidPeriod } | undefined {
  const match = /^tradewind_([a-z]+)_([a-z]+)$/.exec(key ?? '');
  return match ? paidPlanOf(match[1], match[2]) : undefined;
}

/** `{tier, period}` when both name a paid plan (as stored, or as sent in metadata), else undefined. */
export function paidPlanOf(tier: unknown, period: unknown): { tier: PaidTier; period: PaidPeriod } | undefined {
  return (tier === 'plus' || tier === 'pro') && (period === 'monthly' || period === 'yearly') ? { tier, period } : undefined;
}

/**
 * What Stripe must charge for a plan, from the catalogue: `unitAmountCents` in US cents per
 * `interval` (month: monthlyUsd; year: annualMonthlyUsd × 12).
 */
export function expectedPrice(tier: PaidTier, period: PaidPeriod): { unitAmountCents: number; currency: 'usd'; interval: 'month' | 'year' } {
  const plan = PLANS[tier];
  return period === 'monthly'
    ? { unitAmountCents: plan.monthlyUsd * 100, currency: 'usd', interval: 'month' }
    : { unitAmountCents: plan.annualMonthlyUsd * 12 * 100, currency: 'usd', interval: 'year' };
}

/** Every paid (tier, period) pair, cheapest plan first. */
export function paidPlans(): Array<{ tier: PaidTier; period: PaidPeriod }> {
  return PAID_TIERS.flatMap((tier) => PAID_PERIODS.map((period) => ({ tier, period })));
}

/**
 * Validates a requested paid plan (`POST /api/checkout-sessions`).
 * @throws AppError('invalid_argument') naming the bad value; starter is refused because it needs no payment.
 */
export function parsePaidPlan(tier: unknown, period: unknown): { tier: PaidTier; period: PaidPeriod } {
  if (tier === 'starter') throw new AppError('invalid_argument', 'The Starter plan is free and needs no checkout: choose plus or pro.');
  if (tier !== 'plus' && tier !== 'pro') throw new AppError('invalid_argument', `tier must be plus or pro (got ${JSON.stringify(tier ?? null)?.slice(0, 40)})`);
  if (period !== 'monthly' && period !== 'yearly')
    throw new AppError('invalid_argument', `period must be monthly or yearly (got ${JSON.stringify(period ?? null)?.slice(0, 40)})`);
  return { tier, period };
}
