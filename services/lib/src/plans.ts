/**
 * The plans catalogue: the single source of truth for prices, limits and
 * entitlements (ARCHITECTURE §8). The web app, billing, credential-issuer and
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
}

const BASIC: readonly TradeSubject[] = ['basic.pumpfun', 'basic.bonk'];

/** The catalogue, cheapest first. */
export const PLANS: Readonly<Record<PlanId, Plan>> = Object.freeze({
  starter: Object.freeze({
    id: 'starter', name: 'Starter', monthlyUsd: 0, annualMonthlyUsd: 0,
    connections: 1, requestsPerMinute: 100, subjects: BASIC, replay: false,
  }),
  plus: Object.freeze({
    id: 'plus', name: 'Plus', monthlyUsd: 15, annualMonthlyUsd: 12,
    connections: 1, requestsPerMinute: 1000, subjects: TRADE_SUBJECTS, replay: false,
  }),
  pro: Object.freeze({
    id: 'pro', name: 'Pro', monthlyUsd: 35, annualMonthlyUsd: 28,
    connections: 5, requestsPerMinute: 10000, subjects: TRADE_SUBJECTS, replay: true,
  }),
});

/** Plan ids in catalogue order. */
export const PLAN_IDS: readonly PlanId[] = ['starter', 'plus', 'pro'];

/** Type guard for a plan id string. */
export function isPlanId(value: unknown): value is PlanId {
  return typeof value === 'string' && (PLAN_IDS as readonly string[]).includes(value);
}

/** The cheapest plan whose subjects include `subject`, or undefined when no plan does. */
export function cheapestPlanFor(subject: string): Plan | undefined {
  return PLAN_IDS.map((id) => PLANS[id]).find((p) => (p.subjects as readonly string[]).includes(subject));
}
