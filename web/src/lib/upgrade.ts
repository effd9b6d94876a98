/**
 * Upgrade options per tier (the dashboard's upgrade modal) and price wording from the plans
 * catalogue. Product spec §4: Starter may upgrade to Plus or Pro; Plus only to Pro (its modal
 * lists only Pro); Pro is the top plan (no options, the upgrade button is hidden; more capacity is
 * a conversation on /community). Downgrades, cancellation and billing-period switches happen in
 * the Stripe billing portal ("Manage billing"), not here.
 */
import { ENTITLED_STATUSES, PLANS, isPlanId, type PlanId } from '@tradewind/contracts/plans';
import { TRADE_SUBJECTS } from '@tradewind/contracts/subjects';
import type { Subscription } from '../api';
import { MOST_POPULAR_PLAN } from './pricing';
import { isBillingPeriod, isPaidTier, type BillingPeriod, type PaidTier } from './gating';

/**
 * One choice in the upgrade modal (product spec §3, "Upgrade option: name, tier, monthlyPrice,
 * yearlyPrice, description, features, popular"). Prices are whole US dollars from the catalogue.
 */
export interface UpgradeOption {
  /** Plan name, e.g. "Pro". */
  name: string;
  tier: PaidTier;
  /** Price per month billed monthly, USD. */
  monthlyPrice: number;
  /** Price per month billed yearly, USD (the year costs 12 × this). */
  yearlyPrice: number;
  /** One sentence built from the plan's limits. */
  description: string;
  /** The pricing page's feature lines of the plan. */
  features: readonly string[];
  /** Marked "Most Popular" on the pricing page (and "Popular" in the modal). */
  popular: boolean;
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
 * A plan's one-line description from its limits, e.g. "All 4 trade feeds, 5 connections per
 * transport, 10,000 control requests per minute and replay of trade history."
 */
export function planDescription(tier: PaidTier): string {
  const plan = PLANS[tier];
  const feeds = plan.subjects.length === TRADE_SUBJECTS.length ? `All ${plan.subjects.length} trade feeds` : `${plan.subjects.length} trade feeds`;
  const parts = [
    feeds,
    `${plan.connections} connection${plan.connections === 1 ? '' : 's'} per transport`,
    `${plan.requestsPerMinute.toLocaleString('en-US')} control requests per minute`,
  ];
  if (plan.replay) parts.push('replay of trade history');
  return `${parts.slice(0, -1).join(', ')} and ${parts[parts.length - 1]}.`;
}

function option(tier: PaidTier): UpgradeOption {
  const plan = PLANS[tier];
  return {
    name: plan.name,
    tier,
    monthlyPrice: plan.monthlyUsd,
    yearlyPrice: plan.annualMonthlyUsd,
    description: planDescription(tier),
    features: plan.features,
    popular: tier === MOST_POPULAR_PLAN,
  };
}

/**
 * The modal's options for a user on `current` (effective tier; unknown values read as starter):
 * starter → Plus and Pro; plus → Pro only; pro → none.
 */
export function upgradeOptions(current: string): UpgradeOption[] {
  const tier: PlanId = isPlanId(current) ? current : 'starter';
  if (tier === 'starter') return [option('plus'), option('pro')];
  if (tier === 'plus') return [option('pro')];
  return [];
}

/** The toggle's first position: the user's current billing period when it is monthly or yearly, else monthly. */
export function defaultUpgradePeriod(currentPeriod: string | null | undefined): BillingPeriod {
  return isBillingPeriod(currentPeriod) ? currentPeriod : 'monthly';
}

/** "$35/month" or "$28/month billed yearly ($336 per year, save 20%)" for an option at `period`. */
export function optionPriceText(o: UpgradeOption, period: BillingPeriod): string {
  if (period === 'monthly') return `$${o.monthlyPrice}/month`;
  const saving = o.monthlyPrice > 0 ? Math.round(((o.monthlyPrice - o.yearlyPrice) / o.monthlyPrice) * 100) : 0;
  return `$${o.yearlyPrice}/month billed yearly ($${o.yearlyPrice * 12} per year${saving > 0 ? `, save ${saving}%` : ''})`;
}

/** `/dashboard/plan?upgrade=<tier>&period=<period>`: the plan page with the upgrade modal open on that choice. */
export function planUpgradePath(tier: PaidTier, period: BillingPeriod): string {
  return `/dashboard/plan?${new URLSearchParams({ upgrade: tier, period }).toString()}`;
}

/**
 * Where /payment sends a user who already has a live paid subscription (status active, trialing
 * or past_due): a plan change is confirmed in the upgrade modal, after its prorated amount is
 * shown, never charged straight from a link. Null when `subscription` is not a live paid one
 * (then /payment starts a Stripe Checkout as before).
 */
export function planChangePath(subscription: Subscription | null | undefined, tier: PaidTier, period: BillingPeriod): string | null {
  if (!subscription || subscription.tier === 'starter' || !ENTITLED_STATUSES.has(subscription.status)) return null;
  return planUpgradePath(tier, period);
}

/** The plan page's `?upgrade=<tier>&period=<period>` request, or null when absent or not a paid plan. */
export function readUpgradeRequest(params: URLSearchParams): { tier: PaidTier; period: BillingPeriod } | null {
  const tier = params.get('upgrade');
  if (!isPaidTier(tier)) return null;
  const period = params.get('period');
  return { tier, period: isBillingPeriod(period) ? period : 'monthly' };
}

/** What the plan page does with a `?upgrade=&period=` request (see {@link readUpgradeRequest}). */
export type UpgradeRequestOutcome = { kind: 'open'; tier: PaidTier; period: BillingPeriod } | { kind: 'notice'; message: string };

/**
 * A `?upgrade=&period=` request against the user's effective tier and current period: `open` the
 * modal on that choice when it is one of the user's {@link upgradeOptions}; otherwise a notice
 * (already on it, a billing-period switch or a downgrade, both done in Manage billing).
 */
export function upgradeRequestOutcome(effective: string, currentPeriod: string, request: { tier: PaidTier; period: BillingPeriod }): UpgradeRequestOutcome {
  if (upgradeOptions(effective).some((o) => o.tier === request.tier)) return { kind: 'open', ...request };
  const from: PlanId = isPlanId(effective) ? effective : 'starter';
  const to = PLANS[request.tier].name;
  if (from === request.tier) {
    return currentPeriod === request.period
      ? { kind: 'notice', message: `You are already on the ${to} plan (billed ${request.period}).` }
      : { kind: 'notice', message: `To switch ${to} to ${request.period} billing, use Manage billing.` };
  }
  return { kind: 'notice', message: `${to} is below your ${PLANS[from].name} plan. Use Manage billing to downgrade.` };
}
