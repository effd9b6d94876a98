/**
 * The plans catalogue: the single source of truth for prices, limits and
 * entitlements (docs/architecture.md §8). The web app, billing, credential-issuer and
 * ws-fanout all read it from here.
 */
import { TRADE_SUBJECTS, type TradeSubject } from './subjects.js';

export type PlanId = 'starter' | 'plus' | 'pro';

/** One plan. Prices are whole US dollars; `annualMonthlyUsd` is the per-month price when billed yearly. */
export interface Plan {
  readonly id: PlanId;
  readonly name: string;
  readonly monthlyUsd: number;
  readonly annualMonthlyUsd: number;
  /** Concurrent connections per user, counted per transport (WebSocket, native NATS). */
  readonly connections: number;
  /** Control requests (auth, subscribe, unsubscribe) per minute per user. */
  readonly requestsPerMinute: number;
  /** TRADES subjects the plan may subscribe to. */
  readonly subjects: readonly TradeSubject[];
  /** Whether the plan may replay TRADES history (JetStream consumers). */
  readonly replay: boolean;
  /** What the plan includes, as shown on the pricing page, each derived from the fields above. */
  readonly features: readonly string[];
}

const BASIC: readonly TradeSubject[] = ['basic.pumpfun', 'basic.bonk'];

/** Pricing-page lines for a plan, from its limits (so the page cannot promise more than is enforced). */
function featuresOf(p: Omit<Plan, 'features'>): readonly string[] {
  const lines = ['Pump.fun trades (basic.pumpfun)', 'LetsBonk.fun trades (basic.bonk)'];
  if (p.subjects.includes('premium.pumpswap')) lines.push('PumpSwap trades (premium.pumpswap)');
  if (p.subjects.includes('premium.raydium')) lines.push('Raydium CPMM trades (premium.raydium)');
  lines.push(
    `${p.connections} concurrent connection${p.connections === 1 ? '' : 's'} per transport`,
    `${p.requestsPerMinute.toLocaleString('en-US')} control requests per minute`,
    'WebSocket and native NATS JetStream',
  );
  if (p.replay) lines.push('Replay of trade history (JetStream)');
  return Object.freeze(lines);
}

function plan(p: Omit<Plan, 'features'>): Plan {
  return Object.freeze({ ...p, features: featuresOf(p) });
}

/** The catalogue, cheapest first. */
export const PLANS: Readonly<Record<PlanId, Plan>> = Object.freeze({
  starter: plan({
    id: 'starter',
    name: 'Starter',
    monthlyUsd: 0,
    annualMonthlyUsd: 0,
    connections: 1,
    requestsPerMinute: 100,
    subjects: BASIC,
    replay: false,
  }),
  plus: plan({
    id: 'plus',
    name: 'Plus',
    monthlyUsd: 15,
    annualMonthlyUsd: 12,
    connections: 1,
    requestsPerMinute: 1000,
    subjects: TRADE_SUBJECTS,
    replay: false,
  }),
  pro: plan({
    id: 'pro',
    name: 'Pro',
    monthlyUsd: 35,
    annualMonthlyUsd: 28,
    connections: 5,
    requestsPerMinute: 10000,
    subjects: TRADE_SUBJECTS,
    replay: true,
  }),
});

/** Plan ids in catalogue order. */
export const PLAN_IDS: readonly PlanId[] = ['starter', 'plus', 'pro'];

/** Type guard for a plan id string. */
export function isPlanId(value: unknown): value is PlanId {
  return typeof value === 'string' && (PLAN_IDS as readonly string[]).includes(value);
}

/** The cheapest plan (catalogue order) for which `predicate` holds, or undefined when none does. */
export function cheapestPlanWhere(predicate: (plan: Plan) => boolean): Plan | undefined {
  return PLAN_IDS.map((id) => PLANS[id]).find(predicate);
}

/** The cheapest plan whose subjects include `subject`, or undefined when no plan does. */
export function cheapestPlanFor(subject: string): Plan | undefined {
  return cheapestPlanWhere((p) => (p.subjects as readonly string[]).includes(subject));
}

/** What a year costs billed yearly, in whole US dollars: annual price per month × 12. */
export function annualTotalUsd(plan: Plan): number {
  return plan.annualMonthlyUsd * 12;
}

/** Saving of yearly over monthly billing, whole percent: round((monthly − annual per month) / monthly × 100); 0 for a free plan. */
export function annualSavingPercent(plan: Plan): number {
  return plan.monthlyUsd === 0 ? 0 : Math.round(((plan.monthlyUsd - plan.annualMonthlyUsd) / plan.monthlyUsd) * 100);
}

/** The largest annual saving of any plan, whole percent (the pricing page's "Save up to N%"). */
export function maxAnnualSavingPercent(): number {
  return Math.max(...PLAN_IDS.map((id) => annualSavingPercent(PLANS[id])));
}

/**
 * Subscription statuses that keep a paid plan's entitlements: Stripe's `active`, `trialing` and
 * `past_due` (Stripe is still retrying the payment; https://docs.stripe.com/billing/subscriptions/overview#subscription-statuses).
 * Any other status (`unpaid`, `incomplete`, `paused`, ...) falls back to starter.
 */
export const ENTITLED_STATUSES: ReadonlySet<string> = new Set(['active', 'trialing', 'past_due']);

/**
 * The plan whose limits apply now: `tier` while `status` is entitled ({@link ENTITLED_STATUSES}),
 * starter otherwise. Used by billing (GetEntitlements) and credential-issuer (subscription.changed).
 */
export function entitledPlan(tier: PlanId, status: string): Plan {
  return ENTITLED_STATUSES.has(status) ? PLANS[tier] : PLANS.starter;
}
