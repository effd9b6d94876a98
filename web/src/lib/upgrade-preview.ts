/**
 * The upgrade modal's calls to billing (docs/billing.md) and the wording of the amount due:
 * `POST /api/upgrade-preview` (what confirming charges now) and `POST /api/checkout-sessions`
 * (the confirm, carrying the preview's `proration_date` so Stripe charges the amount shown).
 */
import { apiFetch } from '../api';
import type { BillingPeriod, PaidTier } from './gating';

/** Shown when the checkout or plan change could not be started (product spec §8), before the reason. */
export const UPGRADE_FAILED_MESSAGE = 'Failed to start upgrade process. Please try again.';

/** Where Stripe Checkout's "back" link returns to from the dashboard's upgrade modal. */
export const MODAL_CHECKOUT_CANCEL_URL = '/dashboard/plan';

/** One line of the amount due, US cents (negative for a credit). */
export interface UpgradePreviewLine {
  description: string;
  amount_cents: number;
}

/** `POST /api/upgrade-preview` answer. */
export interface UpgradePreview {
  tier: PaidTier;
  period: BillingPeriod;
  /** `checkout`: payment details are entered on Stripe's page; `proration`: the live plan changes now and the prorated difference is charged. */
  kind: 'checkout' | 'proration';
  amount_due_cents: number;
  currency: string;
  lines: UpgradePreviewLine[];
  /** ISO 8601, or null (checkout). */
  next_billing_date: string | null;
  /** Unix seconds the proration was computed for; sent back with the confirm. Null for a checkout. */
  proration_date: number | null;
}

/** `POST /api/checkout-sessions` answer. */
export interface CheckoutAnswer {
  /** Stripe Checkout, or the dashboard after an immediate plan change. */
  url?: string;
  plan_changed?: boolean;
  /** What the proration invoice charged, US cents (plan changes). */
  amount_paid_cents?: number | null;
}

/**
 * What confirming `{tier, period}` would charge the signed-in user now.
 * @throws ApiError with billing's status and message (401 signed out, 409 same plan or downgrade, 503 Stripe down).
 */
export function fetchUpgradePreview(token: string, choice: { tier: PaidTier; period: BillingPeriod }, signal?: AbortSignal): Promise<UpgradePreview> {
  return apiFetch<UpgradePreview>('/api/upgrade-preview', {
    method: 'POST',
    token,
    body: { tier: choice.tier, period: choice.period },
    ...(signal ? { signal } : {}),
  });
}

/**
 * The confirm: `POST /api/checkout-sessions {tier, period, userId, cancelUrl, proration_date?}`
 * (`proration_date` only for a prorated change, from the preview that was shown).
 * @throws ApiError with billing's status and message.
 */
export function confirmUpgrade(
  token: string,
  input: { tier: PaidTier; period: BillingPeriod; userId: string; cancelUrl: string; prorationDate: number | null },
): Promise<CheckoutAnswer> {
  const body: Record<string, unknown> = { tier: input.tier, period: input.period, userId: input.userId, cancelUrl: input.cancelUrl };
  if (input.prorationDate !== null) body.proration_date = input.prorationDate;
  return apiFetch<CheckoutAnswer>('/api/checkout-sessions', { method: 'POST', token, body });
}

/** US cents as "$13.33"; a credit keeps its sign ("-$10.00"). */
export function formatCents(cents: number): string {
  const sign = cents < 0 ? '-' : '';
  return `${sign}$${(Math.abs(cents) / 100).toFixed(2)}`;
}

/**
 * The headline of a preview: "You will be charged $13.33 now (prorated)" for a plan change,
 * "$15.00/month — you'll enter payment details on the next page" (or "/year") for a checkout.
 */
export function previewHeadline(preview: UpgradePreview): string {
  if (preview.kind === 'proration') return `You will be charged ${formatCents(preview.amount_due_cents)} now (prorated)`;
  return `${formatCents(preview.amount_due_cents)}/${preview.period === 'yearly' ? 'year' : 'month'} — you'll enter payment details on the next page`;
}

/** An ISO date as "December 25, 2026" (US English, the dashboard's date style), or the text as given when it is not a date. */
export function formatBillingDate(iso: string): string {
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : d.toLocaleDateString('en-US', { year: 'numeric', month: 'long', day: 'numeric' });
}
