/**
 * Human-readable amounts and dates shared by the invoice line descriptions and the hosted pages,
 * in the forms Stripe's own pages and line items use ("$15.00 / month",
 * "1 × Tradewind Plus (at $15.00 / month)", "Unused time on Tradewind Plus after 11 Jan 2026").
 */
import type Stripe from 'stripe';

const usd = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD' });
const lineDate = new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'short', year: 'numeric', timeZone: 'UTC' });
const longDate = new Intl.DateTimeFormat('en-US', { dateStyle: 'long', timeZone: 'UTC' });

/** `1500` → `$15.00` (US cents in, US dollars out; negative amounts keep their sign). */
export function formatUsd(cents: number): string {
  return usd.format(cents / 100);
}

/** `$15.00 / month`, `$144.00 / year`; `$30.00 / 3 months` when interval_count > 1. */
export function formatPrice(price: Stripe.Price): string {
  const amount = formatUsd(price.unit_amount ?? 0);
  const recurring = price.recurring;
  if (recurring === null) return amount;
  return recurring.interval_count === 1 ? `${amount} / ${recurring.interval}` : `${amount} / ${recurring.interval_count} ${recurring.interval}s`;
}

/** Unix seconds → `11 Jan 2026` (UTC), as in Stripe's proration line descriptions. */
export function formatLineDate(seconds: number): string {
  return lineDate.format(new Date(seconds * 1000));
}

/** Unix seconds → `January 11, 2026` (UTC), for the hosted pages. */
export function formatLongDate(seconds: number): string {
  return longDate.format(new Date(seconds * 1000));
}
