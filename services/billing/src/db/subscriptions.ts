/** Customers and subscriptions in PostgreSQL (schema `billing`). */
import type { PlanId } from '@tradewind/contracts';
import type { Kysely, Selectable, Transaction } from '@tradewind/lib';
import type { BillingDatabase, SubscriptionsTable } from './schema.js';
import { starterState, type SubscriptionState, type SubscriptionStatus, type SubscriptionType } from '../domain/subscription.js';
import type { BillingPeriod } from '../domain/prices.js';

type Db = Kysely<BillingDatabase> | Transaction<BillingDatabase>;

const num = (v: string | number | null): number | null => (v === null ? null : Number(v));

/** Row → state. */
export function stateOfRow(row: Selectable<SubscriptionsTable>): SubscriptionState {
  return {
    tier: row.tier as PlanId,
    billingPeriod: row.billing_period as BillingPeriod,
    status: row.status as SubscriptionStatus,
    subscriptionType: row.subscription_type as SubscriptionType,
    stripeSubscriptionId: row.stripe_subscription_id,
    stripeSubscriptionItemId: row.stripe_subscription_item_id,
    stripePriceId: row.stripe_price_id,
    stripeStatus: row.stripe_status,
    stripeSubscriptionCreated: num(row.stripe_subscription_created),
    currentPeriodEnd: row.current_period_end,
    cancelAtPeriodEnd: row.cancel_at_period_end,
    trialEnd: row.trial_end,
    lastSnapshotCreated: num(row.last_snapshot_created),
    lastInvoiceCreated: num(row.last_invoice_created),
    version: Number(row.version),
  };
}

function rowOfState(userId: string, s: SubscriptionState): Omit<SubscriptionsTable, 'updated_at'> {
  return {
    user_id: userId,
    tier: s.tier,
    billing_period: s.billingPeriod,
    status: s.status,
    subscription_type: s.subscriptionType,
    stripe_subscription_id: s.stripeSubscriptionId,
    stripe_subscription_item_id: s.stripeSubscriptionItemId,
    stripe_price_id: s.stripePriceId,
    stripe_status: s.stripeStatus,
    stripe_subscription_created: s.stripeSubscriptionCreated === null ? null : String(s.stripeSubscriptionCreated),
    current_period_end: s.currentPeriodEnd,
    cancel_at_period_end: s.cancelAtPeriodEnd,
    trial_end: s.trialEnd,
    last_snapshot_created: s.lastSnapshotCreated === null ? null : String(s.lastSnapshotCreated),
    last_invoice_created: s.lastInvoiceCreated === null ? null : String(s.lastInvoiceCreated),
    version: String(s.version),
  };
}

/** Records a user (idempotent) with a starter subscription when they have none. */
export async function ensureCustomer(trx: Transaction<BillingDatabase>, user: { userId: string; email: string; name: string }): Promise<void> {
  await trx
    .insertInto('customers')
    .values({ user_id: user.userId, email: user.email, name: user.name, stripe_customer_id: null })
    .onConflict((oc) => oc.column('user_id').doNothing())
    .execute();
  await trx
    .insertInto('subscriptions')
    .values(rowOfState(user.userId, starterState()))
    .onConflict((oc) => oc.column('user_id').doNothing())
    .execute();
}

export async function findCustomer(db: Db, userId: string) {
  return db.selectFrom('customers').selectAll().where('user_id', '=', userId).executeTakeFirst();
}

/** The user a Stripe customer belongs to, or undefined. */
export async function userOfStripeCustomer(db: Db, stripeCustomerId: string): Promise<string | undefined> {
  const row = await db.selectFrom('customers').select('user_id').where('stripe_customer_id', '=', stripeCustomerId).executeTakeFirst();
  return row?.user_id;
}

/** Links the Stripe customer to the user unless one is linked already. @returns the linked customer id. */
export async function linkStripeCustomer(db: Db, userId: string, stripeCustomerId: string): Promise<string> {
  const row = await db
    .updateTable('customers')
    .set({ stripe_customer_id: stripeCustomerId, updated_at: new Date() })
    .where('user_id', '=', userId)
    .where('stripe_customer_id', 'is', null)
    .returning('stripe_customer_id')
    .executeTakeFirst();
  if (row?.stripe_customer_id) return row.stripe_customer_id;
  const existing = await findCustomer(db, userId);
  return existing?.stripe_customer_id ?? stripeCustomerId;
}

/** The user's subscription, or undefined when billing has no record of the user. */
export async function findSubscription(
  db: Db,
  userId: string,
): Promise<(SubscriptionState & { updatedAt: Date; stripeCustomerId: string | null }) | undefined> {
  const row = await db
    .selectFrom('subscriptions')
    .innerJoin('customers', 'customers.user_id', 'subscriptions.user_id')
    .selectAll('subscriptions')
    .select('customers.stripe_customer_id')
    .where('subscriptions.user_id', '=', userId)
    .executeTakeFirst();
  if (!row) return undefined;
  return { ...stateOfRow(row), updatedAt: row.updated_at, stripeCustomerId: row.stripe_customer_id };
}

/** Locks and reads the user's subscription row for a change in `trx`. */
export async function lockSubscription(trx: Transaction<BillingDatabase>, userId: string): Promise<SubscriptionState | undefined> {
  const row = await trx.selectFrom('subscriptions').selectAll().where('user_id', '=', userId).forUpdate().executeTakeFirst();
  return row ? stateOfRow(row) : undefined;
}

export async function saveSubscription(trx: Transaction<BillingDatabase>, userId: string, state: SubscriptionState): Promise<void> {
  const { user_id: _userId, ...values } = rowOfState(userId, state);
  await trx
    .updateTable('subscriptions')
    .set({ ...values, updated_at: new Date() })
    .where('user_id', '=', userId)
    .execute();
}
