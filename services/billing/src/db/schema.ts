/** billing's tables (schema `billing`) as kysely sees them. */
import type { ConsumerTables, Generated, OutboxTable } from '@tradewind/lib';

export interface CustomersTable {
  user_id: string;
  email: string;
  name: string;
  /** `cus_...`, set when the first checkout creates the Stripe customer. */
  stripe_customer_id: string | null;
  created_at: Generated<Date>;
  updated_at: Generated<Date>;
}

export interface SubscriptionsTable {
  user_id: string;
  tier: string;
  billing_period: string;
  /** Product status (see domain/subscription.ts). */
  status: string;
  subscription_type: string;
  stripe_subscription_id: string | null;
  stripe_subscription_item_id: string | null;
  stripe_price_id: string | null;
  /** Stripe's own status of that subscription (`canceled` stays visible here after the fall-back to starter). */
  stripe_status: string | null;
  /** Subscription `created`, seconds since the epoch: a newer subscription supersedes an older one. */
  stripe_subscription_created: string | null;
  current_period_end: Date | null;
  cancel_at_period_end: boolean;
  trial_end: Date | null;
  /** `created` (s) of the newest subscription snapshot applied (customer.subscription.* event or API response): older snapshots are stale. */
  last_snapshot_created: string | null;
  /** `created` (s) of the newest invoice.paid / invoice.payment_failed applied: a snapshot older than it keeps the status. */
  last_invoice_created: string | null;
  /** +1 per change of tier, period or status. */
  version: string;
  updated_at: Generated<Date>;
}

export interface CheckoutSessionsTable {
  id: string;
  user_id: string;
  tier: string;
  billing_period: string;
  stripe_customer_id: string;
  created_at: Generated<Date>;
  completed_at: Date | null;
}

export interface StripeEventsTable {
  id: string;
  type: string;
  created: string;
  livemode: boolean;
  payload: unknown;
  /** "applied" | "unchanged" | "stale" | "ignored" | "unhandled". */
  outcome: string;
  detail: string;
  received_at: Generated<Date>;
}

export interface BillingDatabase extends ConsumerTables {
  customers: CustomersTable;
  subscriptions: SubscriptionsTable;
  checkout_sessions: CheckoutSessionsTable;
  stripe_events: StripeEventsTable;
  outbox: OutboxTable;
}
