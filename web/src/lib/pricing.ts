/**
 * Helpers over the plans catalogue (`@tradewind/contracts/plans`) for the pricing and home pages.
 * Nothing here holds a price or a limit: every figure is read from the catalogue.
 */
import { PLANS, PLAN_IDS, annualSavingPercent, annualTotalUsd, type Plan, type PlanId } from '@tradewind/contracts/plans';

/**
 * The plan card marked "Most Popular" (product spec §9: "Pro is marked Most Popular"), also the
 * `popular` upgrade option. Kept here, not in the pricing page, so the dashboard's upgrade dialog
 * does not pull the page into its chunk.
 */
export const MOST_POPULAR_PLAN: PlanId = 'pro';

/** Badge text of {@link MOST_POPULAR_PLAN}'s card. */
export const MOST_POPULAR_LABEL = 'Most Popular';

/** The billing periods of checkout and sign-in links (`?period=`). */
export type BillingPeriod = 'monthly' | 'yearly';

/** Whole US dollars as "$15" ("$0" for free); fractional amounts keep two decimals ("$12.50"). */
export function formatUsd(amount: number): string {
  return Number.isInteger(amount) ? `$${amount}` : `$${amount.toFixed(2)}`;
}

/** What a plan card shows for `period`: the per-month price and, billed yearly, the year's total and saving. */
export interface PlanPrice {
  /** Per-month price, e.g. "$15" (monthly) or "$12" (yearly). */
  perMonth: string;
  /** "billed $144 yearly" when `period` is yearly and the plan is paid; null otherwise. */
  billedYearly: string | null;
  /** "Save 20%" when `period` is yearly and the plan saves anything; null otherwise. */
  saving: string | null;
}

/** The price lines of `plan` for `period` (see {@link PlanPrice}). */
export function planPrice(plan: Plan, period: BillingPeriod): PlanPrice {
  if (period === 'monthly' || plan.monthlyUsd === 0) {
    return { perMonth: formatUsd(period === 'monthly' ? plan.monthlyUsd : plan.annualMonthlyUsd), billedYearly: null, saving: null };
  }
  const saving = annualSavingPercent(plan);
  return {
    perMonth: formatUsd(plan.annualMonthlyUsd),
    billedYearly: `billed ${formatUsd(annualTotalUsd(plan))} yearly`,
    saving: saving > 0 ? `Save ${saving}%` : null,
  };
}

/**
 * Where a plan card's button leads. Starter: `/dashboard` when signed in, else `/login`. Paid
 * plans: `/payment?tier=<id>&period=<period>` when signed in, else `/login?tier=<id>&period=<period>`
 * (sign-in carries the choice on to payment).
 */
export function planCtaHref(id: PlanId, period: BillingPeriod, signedIn: boolean): string {
  if (id === 'starter') return signedIn ? '/dashboard' : '/login';
  const query = new URLSearchParams({ tier: id, period }).toString();
  return `${signedIn ? '/payment' : '/login'}?${query}`;
}

/** Label of a plan card's button. */
export function planCtaLabel(id: PlanId, signedIn: boolean): string {
  if (id === 'starter') return signedIn ? 'Open dashboard' : 'Start free';
  return `${signedIn ? 'Upgrade to' : 'Choose'} ${PLANS[id].name}`;
}

/** The plans in catalogue order. */
export function allPlans(): readonly Plan[] {
  return PLAN_IDS.map((id) => PLANS[id]);
}

/** One row of the comparison table: a label and one cell per plan (catalogue order). */
export interface ComparisonRow {
  label: string;
  cells: readonly string[];
}

/**
 * The comparison table, every cell read from the catalogue: one row per TRADES subject
 * ("Included" / "Not included"), concurrent connections, control requests per minute, replay,
 * transports, and prices.
 */
export function comparisonRows(subjectLabels: Readonly<Record<string, string>>): readonly ComparisonRow[] {
  const plans = allPlans();
  const subjects = Array.from(new Set(plans.flatMap((p) => p.subjects as readonly string[])));
  const yes = 'Included';
  const no = 'Not included';
  return [
    { label: 'Monthly price', cells: plans.map((p) => `${formatUsd(p.monthlyUsd)}/month`) },
    {
      label: 'Billed yearly',
      cells: plans.map((p) => (p.monthlyUsd === 0 ? 'Free' : `${formatUsd(p.annualMonthlyUsd)}/month (${formatUsd(annualTotalUsd(p))}/year)`)),
    },
    ...subjects.map((s) => ({
      label: subjectLabels[s] ? `${subjectLabels[s]} (${s})` : s,
      cells: plans.map((p) => ((p.subjects as readonly string[]).includes(s) ? yes : no)),
    })),
    { label: 'Concurrent connections per transport', cells: plans.map((p) => String(p.connections)) },
    { label: 'Control requests per minute', cells: plans.map((p) => p.requestsPerMinute.toLocaleString('en-US')) },
    { label: 'Replay of trade history', cells: plans.map((p) => (p.replay ? yes : no)) },
    { label: 'Transports', cells: plans.map((p) => p.features.find((f) => f.includes('WebSocket')) ?? 'WebSocket') },
  ];
}

/** Human names of the TRADES subjects' sources. */
export const SUBJECT_SOURCES: Readonly<Record<string, string>> = Object.freeze({
  'basic.pumpfun': 'Pump.fun',
  'basic.bonk': 'LetsBonk.fun',
  'premium.pumpswap': 'PumpSwap',
  'premium.raydium': 'Raydium CPMM',
});
