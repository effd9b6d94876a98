/**
 * The user record and the plan chosen before sign-in (pure logic, no I/O).
 * Shape per the product spec: id, email, name, avatar_url, plan, and metadata
 * {tier, billing_period, subscription_status, subscription_type, trial_end_date}.
 */
import { AppError, isPlanId, type PlanId } from '@tradewind/contracts';
import type { UsersTable } from '../db/schema.js';

export type BillingPeriod = 'indefinite' | 'monthly' | 'yearly';
export const BILLING_PERIODS: readonly BillingPeriod[] = ['indefinite', 'monthly', 'yearly'];
export const SUBSCRIPTION_TYPES = ['free', 'paid', 'trial'] as const;
export type SubscriptionType = (typeof SUBSCRIPTION_TYPES)[number];

/** The user as every API returns it. `trial_end_date` is an ISO 8601 string or null. */
export interface UserJson {
  id: string;
  email: string;
  name: string;
  avatar_url: string;
  plan: PlanId;
  metadata: {
    tier: PlanId;
    billing_period: BillingPeriod;
    subscription_status: string;
    subscription_type: SubscriptionType;
    trial_end_date: string | null;
  };
  created_at: string;
}

/** Row → API shape. */
export function userJson(
  row: Pick<UsersTable, 'id' | 'email' | 'name' | 'avatar_url' | 'tier' | 'billing_period' | 'subscription_status' | 'subscription_type' | 'trial_end_date'> & {
    created_at: Date;
  },
): UserJson {
  const tier = row.tier as PlanId;
  return {
    id: row.id,
    email: row.email,
    name: row.name,
    avatar_url: row.avatar_url,
    plan: tier,
    metadata: {
      tier,
      billing_period: row.billing_period as BillingPeriod,
      subscription_status: row.subscription_status,
      subscription_type: row.subscription_type as SubscriptionType,
      trial_end_date: row.trial_end_date ? row.trial_end_date.toISOString() : null,
    },
    created_at: row.created_at.toISOString(),
  };
}

/** The values a first sign-in gets: the free plan, forever, active. */
export const NEW_USER_DEFAULTS = {
  tier: 'starter',
  billing_period: 'indefinite',
  subscription_status: 'active',
  subscription_type: 'free',
  trial_end_date: null,
} as const;

/** A plan picked on the pricing page before sign-in (`/login?tier=plus&period=yearly`). */
export interface PendingPlan {
  tier: PlanId;
  period: 'monthly' | 'yearly';
}

/**
 * Validates the optional `tier` and `period` query values.
 * Neither given → undefined. `tier` alone → period "monthly". `period` without `tier` is refused.
 * @throws AppError('invalid_argument') naming the bad value and the accepted ones.
 */
export function parsePendingPlan(tier: unknown, period: unknown): PendingPlan | undefined {
  const t = tier === undefined || tier === '' ? undefined : tier;
  const p = period === undefined || period === '' ? undefined : period;
  if (t === undefined && p === undefined) return undefined;
  if (t === undefined) throw new AppError('invalid_argument', 'period was given without a tier');
  if (!isPlanId(t)) throw new AppError('invalid_argument', `tier must be starter, plus or pro (got "${String(t).slice(0, 40)}")`);
  if (p !== undefined && p !== 'monthly' && p !== 'yearly')
    throw new AppError('invalid_argument', `period must be monthly or yearly (got "${String(p).slice(0, 40)}")`);
  return { tier: t, period: (p as 'monthly' | 'yearly' | undefined) ?? 'monthly' };
}

/**
 * Where the browser goes after a successful sign-in: the payment page for a paid plan picked
 * before sign-in, else the dashboard. Paths are relative to PUBLIC_URL.
 */
export function destinationAfterSignIn(pending: PendingPlan | undefined): string {
  if (pending && pending.tier !== 'starter') return `/payment?${new URLSearchParams({ tier: pending.tier, period: pending.period }).toString()}`;
  return '/dashboard';
}

/** Readable text for an OAuth error code returned by the provider (RFC 6749 §4.1.2.1). */
export function oauthErrorReason(error: string, description?: string): string {
  switch (error) {
    case 'access_denied':
      return 'Sign-in was cancelled.';
    case 'invalid_state':
      return 'This sign-in link expired or was opened in another browser. Please sign in again.';
    case 'temporarily_unavailable':
    case 'server_error':
      return 'The sign-in provider is unavailable right now. Please try again in a moment.';
    case 'invalid_plan':
      return description ?? 'The selected plan is not valid.';
    default:
      return description ? `Sign-in failed: ${description}` : `Sign-in failed (${error}).`;
  }
}

/**
 * Validates the plan metadata a `subscription.changed` event carries before auth's projection applies it.
 * @throws AppError('invalid_argument') for an unknown tier, billing period or subscription type.
 */
export function validateMetadataUpdate(update: {
  tier?: string | undefined;
  billingPeriod?: string | undefined;
  subscriptionType?: string | undefined;
  subscriptionStatus?: string | undefined;
}): void {
  if (update.tier !== undefined && !isPlanId(update.tier)) throw new AppError('invalid_argument', `tier must be starter, plus or pro (got "${update.tier}")`);
  if (update.billingPeriod !== undefined && !(BILLING_PERIODS as readonly string[]).includes(update.billingPeriod)) {
    throw new AppError('invalid_argument', `billing_period must be indefinite, monthly or yearly (got "${update.billingPeriod}")`);
  }
  if (update.subscriptionType !== undefined && !(SUBSCRIPTION_TYPES as readonly string[]).includes(update.subscriptionType)) {
    throw new AppError('invalid_argument', `subscription_type must be free, paid or trial (got "${update.subscriptionType}")`);
  }
  if (update.subscriptionStatus !== undefined && !/^[a-z_]{1,32}$/.test(update.subscriptionStatus)) {
    throw new AppError('invalid_argument', 'subscription_status must be a Stripe status such as active, trialing, past_due, canceled');
  }
}

/**
 * The message of every refused name, e.g. "Name must be 1–100 characters" for `maxChars` 100
 * (PROFILE_NAME_MAX_CHARS; the web app shows it next to the field).
 */
export function nameLengthMessage(maxChars: number): string {
  return `Name must be 1–${maxChars} characters`;
}

/**
 * Validates a `PATCH /auth/user` body: `{"name": string}`. The name is trimmed and must then hold
 * 1..`maxChars` characters (Unicode code points) and no control characters. `email` may be present
 * only when it equals the current address (case-insensitive): the address is the Google identity and
 * cannot be changed here.
 * @returns the trimmed name.
 * @throws AppError('invalid_argument') with a readable message for anything else.
 */
export function parseProfileUpdate(body: unknown, currentEmail: string, maxChars: number): { name: string } {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new AppError('invalid_argument', 'Send a JSON object {"name": "..."}');
  const fields = body as Record<string, unknown>;
  const unknown = Object.keys(fields).filter((k) => k !== 'name' && k !== 'email');
  if (unknown.length > 0)
    throw new AppError(
      'invalid_argument',
      `Only the name can be changed (unknown field${unknown.length === 1 ? '' : 's'} ${unknown
        .slice(0, 5)
        .map((k) => JSON.stringify(k.slice(0, 40)))
        .join(', ')})`,
    );
  if ('email' in fields && (typeof fields.email !== 'string' || fields.email.trim().toLowerCase() !== currentEmail.toLowerCase())) {
    throw new AppError('invalid_argument', 'The e-mail address is the one of your Google account and cannot be changed here');
  }
  if (typeof fields.name !== 'string') throw new AppError('invalid_argument', nameLengthMessage(maxChars));
  const name = fields.name.trim();
  const chars = [...name].length;
  if (chars < 1 || chars > maxChars) throw new AppError('invalid_argument', nameLengthMessage(maxChars));
  // C0/C1 controls (newlines, NUL, escapes) have no place in a display name.
  if (/\p{Cc}/u.test(name)) throw new AppError('invalid_argument', 'Name must not contain line breaks or control characters');
  return { name };
}
