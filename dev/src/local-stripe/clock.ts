/**
 * Billing-period arithmetic of the local Stripe stand-in, in Unix seconds and UTC, following
 * Stripe's rule (https://docs.stripe.com/billing/subscriptions/billing-cycle): periods are
 * aligned to the billing cycle anchor's day of month (and month, for yearly prices); when that
 * day does not exist the period ends on the last day of the month (anchor Jan 31 → Feb 28 →
 * Mar 31), keeping the anchor's time of day.
 */

/** Recurring intervals the stand-in bills; the seeded prices use month and year. */
export type Interval = 'day' | 'week' | 'month' | 'year';

const SECONDS_PER_DAY = 86_400;

/** Adds `months` calendar months to a UTC timestamp (seconds), clamping the day to the target month's length. */
export function addMonths(timestamp: number, months: number): number {
  const d = new Date(timestamp * 1000);
  const monthIndex = d.getUTCMonth() + months;
  const year = d.getUTCFullYear() + Math.floor(monthIndex / 12);
  const month = ((monthIndex % 12) + 12) % 12;
  const lastDay = new Date(Date.UTC(year, month + 1, 0)).getUTCDate();
  const day = Math.min(d.getUTCDate(), lastDay);
  return Math.floor(Date.UTC(year, month, day, d.getUTCHours(), d.getUTCMinutes(), d.getUTCSeconds()) / 1000);
}

/**
 * End of billing period number `index` (0 = the first period) counted from `anchor`: anchor +
 * (index + 1) × interval_count intervals. Counting from the anchor rather than from the previous
 * period end is what restores day 31 after a short month.
 */
export function periodEnd(anchor: number, interval: Interval, intervalCount: number, index: number): number {
  const steps = (index + 1) * intervalCount;
  switch (interval) {
    case 'day':
      return anchor + steps * SECONDS_PER_DAY;
    case 'week':
      return anchor + steps * 7 * SECONDS_PER_DAY;
    case 'month':
      return addMonths(anchor, steps);
    case 'year':
      return addMonths(anchor, steps * 12);
  }
}

/** Narrows a Price's `recurring.interval` (typed as an open string by stripe-node) to the intervals handled here. */
export function toInterval(value: string): Interval {
  if (value === 'day' || value === 'week' || value === 'month' || value === 'year') return value;
  throw new Error(`unsupported recurring interval ${JSON.stringify(value)}`);
}
