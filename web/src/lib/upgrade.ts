/**
 * Upgrade options per tier (the dashboard's upgrade modal) and price wording from the plans
 * catalogue. Rules: Starter may upgrade to Plus or Pro; Plus to Pro, or switch its billing
 * period; Pro is the top plan (no options; more capacity is a conversation on /community).
 * Downgrades and cancellation happen in the Stripe billing portal, not here.
 */
import { PLANS, isPlanId, type PlanId } from '@tradewind/lib/plans';
import { paymentPath, type BillingPeriod, type PaidTier } from './gating';

/** One choice in the upgrade modal. */
export interface UpgradeOption {
  tier: PaidTier;
  period: BillingPeriod;
  /** `upgrade` to a higher tier, or `switch-period` of the current tier. */
  kind: 'upgrade' | 'switch-period';
  /** Button / card title, e.g. "Upgrade to Pro" or "Switch Plus to yearly billing". */
  title: string;
  /** Price wording, e.g. "$28/month billed yearly". */
  price: string;
  /** Where choosing it goes: `/payment?tier&period`. */
  href: string;
}

/**
 * "$15/month", "$12/month billed yearly" (and "$144 per year" is {@link yearlyTotalText}); a free
 * plan reads "Free". Dollars are whole US dollars from the catalogue.
 */
export function planPriceText(tier: PlanId, period: BillingPeriod): string {
  const plan = PLANS[tier];
  if (plan.monthlyUsd === 0) return 'Free';
  return period === 'yearly' ? `$${plan.annualMonthlyUsd}/month billed yearly` : `$${plan.monthlyUsd}/month`;
}

/** "$144 per year" for a yearly paid plan, else null. */
export function yearlyTotalText(tier: PlanId, period: BillingPeriod): string | null {
  const plan = PLANS[tier];
  return period === 'yearly' && plan.annualMonthlyUsd > 0 ? `$${plan.annualMonthlyUsd * 12} per year` : null;
}

/** "Plus — $12/month billed yearly", "Starter — Free" (the sign-in banner). */
export function planBannerText(tier: PlanId, period: BillingPeriod): string {
  return `${PLANS[tier].name} — ${planPriceText(tier, period)}`;
}

/** Whether `tier` has nothing above it. */
export function isTopPlan(tier: string): boolean {
  return tier === 'pro';
}

/**
 * The modal's options for a user on `current` (effective tier; unknown values read as starter)
 * billed `currentPeriod` ('indefinite' for Starter), with `period` selected in the modal's
 * monthly/yearly toggle:
 * - starter → Plus and Pro at `period`;
 * - plus → Pro at `period`, and Plus at `period` when that differs from `currentPeriod`;
 * - pro → none.
 */
export function upgradeOptions(current: string, currentPeriod: string, period: BillingPeriod): UpgradeOption[] {
  const tier: PlanId = isPlanId(current) ? current : 'starter';
  const option = (t: PaidTier, kind: UpgradeOption['kind']): UpgradeOption => ({
    tier: t,
    period,
    kind,
    title: kind === 'upgrade' ? `Upgrade to ${PLANS[t].name}` : `Switch ${PLANS[t].name} to ${period} billing`,
    price: planPriceText(t, period),
    href: paymentPath(t, period),
  });
  if (tier === 'starter') return [option('plus', 'upgrade'), option('pro', 'upgrade')];
  if (tier === 'plus') {
    const options = [option('pro', 'upgrade')];
    if (currentPeriod !== period) options.push(option('plus', 'switch-period'));
    return options;
  }
  return [];
}
