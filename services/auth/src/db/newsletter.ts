/** Newsletter sign-ups and unsubscribes, and the fixed-window rate limits that guard public endpoints. */
import { createHash } from 'node:crypto';
import { sql, type Kysely } from '@tradewind/lib';
import type { AuthDatabase } from './schema.js';

/**
 * Adds `email` (already normalised) to the newsletter list.
 * @returns true when it was new, false when it was already subscribed (the first source and time stay).
 */
export async function subscribeNewsletter(db: Kysely<AuthDatabase>, email: string, source: string): Promise<boolean> {
  const inserted = await db
    .insertInto('newsletter_subscriptions')
    .values({ email, source })
    .onConflict((oc) => oc.column('email').doNothing())
    .returning('email')
    .executeTakeFirst();
  return inserted !== undefined;
}

/**
 * Removes the address whose sha256 (hex, the `email_hash` column) is `emailHash`: its row, and with it the
 * address, its hash, source and time. Nothing else holds the address.
 * @returns true when an address was removed, false when none was on the list (already unsubscribed, or never subscribed).
 */
export async function unsubscribeNewsletter(db: Kysely<AuthDatabase>, emailHash: string): Promise<boolean> {
  const r = await db.deleteFrom('newsletter_subscriptions').where('email_hash', '=', emailHash).executeTakeFirst();
  return r.numDeletedRows > 0n;
}

/**
 * Counts one hit of `key` in the current one-minute window of `scope` (the database's clock, so
 * every replica shares the count). Only sha256(key) is stored.
 * @returns whether the hit is within `perMinute`, and the seconds until the window ends.
 */
export async function takeRateLimit(
  db: Kysely<AuthDatabase>,
  scope: string,
  key: string,
  perMinute: number,
): Promise<{ allowed: boolean; retryAfterSeconds: number }> {
  const hashed = createHash('sha256').update(key).digest('hex');
  const row = await db
    .insertInto('rate_limit_windows')
    .values({ scope, key: hashed, window_start: sql<Date>`date_trunc('minute', now())`, hits: 1 })
    .onConflict((oc) => oc.columns(['scope', 'key', 'window_start']).doUpdateSet({ hits: sql<number>`rate_limit_windows.hits + 1` }))
    .returning(['hits', sql<number>`ceil(extract(epoch from (window_start + interval '1 minute' - now())))::int`.as('retry_after')])
    .executeTakeFirstOrThrow();
  return { allowed: row.hits <= perMinute, retryAfterSeconds: Math.max(1, Number(row.retry_after)) };
}

/** Deletes rate-limit windows that ended more than a minute ago. @returns rows deleted. */
export async function purgeRateLimits(db: Kysely<AuthDatabase>): Promise<number> {
  const r = await db.deleteFrom('rate_limit_windows').where('window_start', '<', sql<Date>`now() - interval '2 minutes'`).executeTakeFirst();
  return Number(r.numDeletedRows);
}
