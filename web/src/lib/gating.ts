/**
 * Route gating and payment rules as pure functions (no React, no fetch), so every rule is tested
 * on its own: who may see the dashboard, where /login sends a signed-in user, what /payment does
 * for each combination of session, tier, period and current subscription, and how the dashboard
 * recognises a return from Stripe Checkout.
 */
import { ENTITLED_STATUSES, PLANS, isPlanId, type PlanId } from '@tradewind/contracts/plans';
import type { Subscription } from '../api';

export type AuthStatus = 'loading' | 'signed-in' | 'signed-out';
export type BillingPeriod = 'monthly' | 'yearly';
export type PaidTier = Exclude<PlanId, 'starter'>;

/** Type guard for a checkout billing period. */
export function isBillingPeriod(value: unknown): value is BillingPeriod {
  return value === 'monthly' || value === 'yearly';
}

/** Type guard for a tier that needs a checkout. */
export function isPaidTier(value: unknown): value is PaidTier {
  return value === 'plus' || value === 'pro';
}

/** Where the dashboard sends a signed-in user whose record carries no plan (spec §4 "Dashboard gating"). */
export const SETUP_REQUIRED_PATH = '/login?message=setup-required';

/** What a dashboard route renders for a session state. */
export type DashboardGate = { kind: 'spinner' } | { kind: 'redirect'; to: '/login' | typeof SETUP_REQUIRED_PATH } | { kind: 'render' };

/**
 * Dashboard gating (spec §4): `loading` or logging out → a spinner (never a flash of content, and
 * no detour through /login while sign-out heads for /), `signed-out` → redirect to `/login` (no
 * parameters, so no secrets or state travel in the URL), signed in without a valid plan on the
 * user record → {@link SETUP_REQUIRED_PATH}, else render. `plan` is the user's `plan` field; leave
 * it out where the user is not known.
 */
export function dashboardGate(status: AuthStatus, loggingOut = false, plan?: unknown): DashboardGate {
  if (status === 'loading' || loggingOut) return { kind: 'spinner' };
  if (status === 'signed-out') return { kind: 'redirect', to: '/login' };
  if (plan !== undefined && !isPlanId(plan)) return { kind: 'redirect', to: SETUP_REQUIRED_PATH };
  return { kind: 'render' };
}

/** Plan parameters read from a URL: valid values, plus the raw invalid ones (to tell the user). */
export interface PlanParams {
  tier: PlanId | null;
  period: BillingPeriod | null;
  invalidTier: string | null;
  invalidPeriod: string | null;
}

/**
 * Reads `tier` and `period` from URL parameters. Empty values count as absent; anything else
 * that is not a plan id / `monthly` / `yearly` lands in `invalidTier` / `invalidPeriod`.
 */
export function readPlanParams(params: URLSearchParams): PlanParams {
  const rawTier = params.get('tier')?.trim() || null;
  const rawPeriod = params.get('period')?.trim() || null;
  return {
    tier: isPlanId(rawTier) ? rawTier : null,
    period: isBillingPeriod(rawPeriod) ? rawPeriod : null,
    invalidTier: rawTier !== null && !isPlanId(rawTier) ? rawTier : null,
    invalidPeriod: rawPeriod !== null && !isBillingPeriod(rawPeriod) ? rawPeriod : null,
  };
}

/** `/payment?tier=<tier>&period=<period>`. */
export function paymentPath(tier: PaidTier, period: BillingPeriod): string {
  return `/payment?${new URLSearchParams({ tier, period }).toString()}`;
}

/**
 * Where a signed-in user goes from /login (and where auth sends them after sign-in):
 * `/payment?tier&period` when a paid tier was chosen (period defaults to monthly), else `/dashboard`.
 */
export function postSignInPath(tier: PlanId | null, period: BillingPeriod | null): string {
  return isPaidTier(tier) ? paymentPath(tier, period ?? 'monthly') : '/dashboard';
}

/**
 * The `GET /auth/login` URL the sign-in button navigates to (full page load). Only valid
 * parameters are passed on; none gives the plain sign-in (Starter).
 */
export function authLoginUrl(tier: PlanId | null, period: BillingPeriod | null): string {
  const params = new URLSearchParams();
  if (tier) params.set('tier', tier);
  if (tier && period) params.set('period', period);
  const query = params.toString();
  return query ? `/auth/login?${query}` : '/auth/login';
}

/** Where Stripe Checkout's "back" link returns to. */
export const CHECKOUT_CANCEL_URL = '/pricing?checkout=cancelled';

/** Inputs of {@link paymentDecision}. */
export interface PaymentInput {
  status: AuthStatus;
  /** Raw `tier` URL parameter (null when absent). */
  tier: string | null;
  /** Raw `period` URL parameter (null when absent). */
  period: string | null;
  /**
   * The user's subscription from `GET /api/get-subscription`: `undefined` while not fetched yet,
   * `null` when it could not be fetched (billing then decides: it answers 409 for the same plan).
   */
  subscription?: Subscription | null;
}

/** What /payment does. */
export type PaymentDecision =
  | { kind: 'wait' }
  | { kind: 'redirect'; to: string; notice?: string }
  | { kind: 'error'; code: 'missing_tier' | 'invalid_tier' | 'invalid_period'; message: string }
  | { kind: 'need-subscription'; tier: PaidTier; period: BillingPeriod }
  | { kind: 'checkout'; tier: PaidTier; period: BillingPeriod; cancelUrl: string };

const PERIOD_WORDS: Record<BillingPeriod, string> = { monthly: 'billed monthly', yearly: 'billed yearly' };

/**
 * The /payment rules, in order:
 * 1. session loading → wait;
 * 2. signed out → `/login?tier&period&message=setup-required` (the raw parameters are passed on;
 *    /login ignores invalid ones with a notice);
 * 3. tier missing → error `missing_tier`; tier not a plan → `invalid_tier`;
 * 4. period absent → monthly; any other value than monthly/yearly → `invalid_period`;
 * 5. tier starter → `/dashboard` (free, no checkout);
 * 6. subscription not fetched yet → `need-subscription`;
 * 7. the user's entitled tier and period (status active, trialing or past_due) equal the request →
 *    `/dashboard/plan` with the notice "You are already on the Plus plan (billed yearly).";
 * 8. otherwise → checkout with cancelUrl `/pricing?checkout=cancelled`.
 */
export function paymentDecision(input: PaymentInput): PaymentDecision {
  if (input.status === 'loading') return { kind: 'wait' };
  const tier = input.tier?.trim() || null;
  const period = input.period?.trim() || null;
  if (input.status === 'signed-out') {
    const params = new URLSearchParams();
    if (tier) params.set('tier', tier);
    if (period) params.set('period', period);
    params.set('message', 'setup-required');
    return { kind: 'redirect', to: `/login?${params.toString()}` };
  }
  if (!tier) return { kind: 'error', code: 'missing_tier', message: 'No plan was chosen for this payment.' };
  if (!isPlanId(tier)) return { kind: 'error', code: 'invalid_tier', message: `“${tier}” is not a Tradewind plan.` };
  if (period !== null && !isBillingPeriod(period)) {
    return { kind: 'error', code: 'invalid_period', message: `“${period}” is not a billing period. Choose monthly or yearly.` };
  }
  const chosenPeriod: BillingPeriod = period ?? 'monthly';
  if (tier === 'starter') return { kind: 'redirect', to: '/dashboard' };
  if (input.subscription === undefined) return { kind: 'need-subscription', tier, period: chosenPeriod };
  const sub = input.subscription;
  if (sub && ENTITLED_STATUSES.has(sub.status) && sub.tier === tier && sub.billing_period === chosenPeriod) {
    return {
      kind: 'redirect',
      to: '/dashboard/plan',
      notice: `You are already on the ${PLANS[tier].name} plan (${PERIOD_WORDS[chosenPeriod]}).`,
    };
  }
  return { kind: 'checkout', tier, period: chosenPeriod, cancelUrl: CHECKOUT_CANCEL_URL };
}

/** A return from Stripe Checkout (or an in-place plan change) recognised on /dashboard. */
export interface CheckoutReturn {
  kind: 'checkout' | 'plan-changed';
  /** Toast title. */
  title: string;
}

/** Toast title of a return from checkout (product spec §4, "Return from checkout"). */
export const PAYMENT_SUCCESS_TITLE = 'Payment Successful!';

/** How long the checkout-return toast shows, ms (product spec §9: success toast 5 s). */
export const CHECKOUT_TOAST_MS = 5000;

/**
 * Reads a return from checkout from the dashboard's URL parameters: `session_id` (Stripe's
 * `{CHECKOUT_SESSION_ID}`, product spec §4) or `checkout=success`; `plan_changed=true` marks an
 * in-place plan change. Null for any other URL. Titles: "Payment Successful!" or "Plan changed".
 */
export function readCheckoutReturn(params: URLSearchParams): CheckoutReturn | null {
  const checkout = params.get('checkout');
  if (checkout !== 'success' && !(checkout === null && params.get('session_id'))) return null;
  if (params.get('plan_changed') === 'true') return { kind: 'plan-changed', title: 'Plan changed' };
  return { kind: 'checkout', title: PAYMENT_SUCCESS_TITLE };
}

/**
 * `from=payment` on the dashboard (product spec §4, "Dashboard gating"): a Starter user who came
 * from the payment flow without paying is sent back to `/payment?tier=plus`; null otherwise.
 */
export function fromPaymentRedirect(params: URLSearchParams, tier: string | null | undefined): string | null {
  if (params.get('from') !== 'payment') return null;
  return (tier ?? 'starter') === 'starter' ? '/payment?tier=plus' : null;
}

/** The URL parameters of a checkout return, removed once the return has been handled. */
export const CHECKOUT_RETURN_PARAMS: readonly string[] = ['checkout', 'plan_changed', 'session_id', 'from'];

/** `search` without the checkout-return parameters ("" when nothing else is left, else "?…"). */
export function withoutCheckoutParams(params: URLSearchParams): string {
  const rest = new URLSearchParams(params);
  for (const key of CHECKOUT_RETURN_PARAMS) rest.delete(key);
  const s = rest.toString();
  return s ? `?${s}` : '';
}

/** Wait before the first refresh after a checkout return, ms (product spec §9: post-checkout wait 2 s). */
export const CHECKOUT_FIRST_REFRESH_MS = 2000;
/** Interval between subscription polls after a checkout return, ms. */
export const CHECKOUT_POLL_INTERVAL_MS = 2000;
/**
 * How long to keep polling after a checkout return, ms. Stripe's webhook, billing, the event to auth
 * and the next token can take longer than the spec's single 2 s wait on a busy system: a customer who
 * paid keeps seeing the refresh until the new plan shows, for up to a minute.
 */
export const CHECKOUT_POLL_MAX_MS = 60_000;

/** The part of a subscription whose change means "the webhook has been applied". */
export interface PlanSnapshot {
  tier: string;
  billing_period: string;
}

/**
 * After billing reports the new plan, waits until the signed-in user (auth's copy, which follows
 * billing through the `subscription.changed` event) carries it too: `reloadUser` at once, then every
 * `intervalMs`, until its tier is `tier` or `maxMs` has passed. Resolves to whether it did.
 */
export async function waitForUserPlan(
  tier: string,
  reloadUser: () => Promise<{ tier: string | null } | null>,
  options: { intervalMs?: number; maxMs?: number; signal?: AbortSignal; sleep?: (ms: number) => Promise<void> } = {},
): Promise<boolean> {
  const intervalMs = options.intervalMs ?? CHECKOUT_POLL_INTERVAL_MS;
  const maxMs = options.maxMs ?? CHECKOUT_POLL_MAX_MS;
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  for (let elapsed = 0; elapsed <= maxMs; elapsed += intervalMs) {
    if (elapsed > 0) await sleep(intervalMs);
    if (options.signal?.aborted) return false;
    try {
      if ((await reloadUser())?.tier === tier) return true;
    } catch {
      // auth unreachable for a moment: try again at the next tick
    }
  }
  return false;
}

/** Whether the plan (tier or billing period) differs between two snapshots. */
export function planChanged(before: PlanSnapshot, after: PlanSnapshot): boolean {
  return before.tier !== after.tier || before.billing_period !== after.billing_period;
}

/**
 * Polls `fetchPlan` (first call at once, then every `intervalMs`) until the plan differs from
 * `before` or `maxMs` has passed. Resolves to the last snapshot read (null when every call
 * failed) and whether it changed; resolves early with `changed: false` when `signal` aborts.
 * Fetch errors are ignored and retried at the next tick.
 */
export async function pollForPlanChange(
  before: PlanSnapshot,
  fetchPlan: () => Promise<PlanSnapshot>,
  options: { intervalMs?: number; maxMs?: number; signal?: AbortSignal; sleep?: (ms: number) => Promise<void> } = {},
): Promise<{ changed: boolean; last: PlanSnapshot | null; attempts: number }> {
  const intervalMs = options.intervalMs ?? CHECKOUT_POLL_INTERVAL_MS;
  const maxMs = options.maxMs ?? CHECKOUT_POLL_MAX_MS;
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  let last: PlanSnapshot | null = null;
  let attempts = 0;
  for (let elapsed = 0; elapsed <= maxMs; elapsed += intervalMs) {
    if (elapsed > 0) await sleep(intervalMs);
    if (options.signal?.aborted) return { changed: false, last, attempts };
    attempts += 1;
    try {
      last = await fetchPlan();
      if (planChanged(before, last)) return { changed: true, last, attempts };
    } catch {
      // webhook may lag, network may blip: try again at the next tick
    }
  }
  return { changed: false, last, attempts };
}
