/** billing's migrations, applied at start by `migrate()` in schema `billing`. Never edit one that has shipped; add a new one. */
import { consumerMigration, outboxMigration, sql, type Migrations } from '@tradewind/lib';

export const BILLING_SCHEMA = 'billing';

export const billingMigrations: Migrations = {
  '0001_customers_subscriptions': {
    async up(db) {
      // One row per Tradewind user (from user.created, or from auth's GetUser when a checkout
      // comes before the event); the Stripe customer is created at the first checkout.
      await sql`
        CREATE TABLE customers (
          user_id uuid PRIMARY KEY,
          email text NOT NULL,
          name text NOT NULL DEFAULT '',
          stripe_customer_id text UNIQUE,
          created_at timestamptz NOT NULL DEFAULT now(),
          updated_at timestamptz NOT NULL DEFAULT now()
        )`.execute(db);
      // The user's current subscription; starter/indefinite/active until a paid one exists.
      await sql`
        CREATE TABLE subscriptions (
          user_id uuid PRIMARY KEY REFERENCES customers (user_id) ON DELETE CASCADE,
          tier text NOT NULL CHECK (tier IN ('starter', 'plus', 'pro')),
          billing_period text NOT NULL CHECK (billing_period IN ('indefinite', 'monthly', 'yearly')),
          status text NOT NULL,
          subscription_type text NOT NULL CHECK (subscription_type IN ('free', 'paid', 'trial')),
          stripe_subscription_id text,
          stripe_subscription_item_id text,
          stripe_price_id text,
          stripe_status text,
          stripe_subscription_created bigint,
          current_period_end timestamptz,
          cancel_at_period_end boolean NOT NULL DEFAULT false,
          trial_end timestamptz,
          last_snapshot_created bigint,
          last_invoice_created bigint,
          version bigint NOT NULL DEFAULT 0,
          updated_at timestamptz NOT NULL DEFAULT now()
        )`.execute(db);
      await sql`CREATE UNIQUE INDEX subscriptions_stripe_id ON subscriptions (stripe_subscription_id) WHERE stripe_subscription_id IS NOT NULL`.execute(db);
      await sql`
        CREATE TABLE checkout_sessions (
          id text PRIMARY KEY,
          user_id uuid NOT NULL REFERENCES customers (user_id) ON DELETE CASCADE,
          tier text NOT NULL,
          billing_period text NOT NULL,
          stripe_customer_id text NOT NULL,
          created_at timestamptz NOT NULL DEFAULT now(),
          completed_at timestamptz
        )`.execute(db);
      await sql`CREATE INDEX checkout_sessions_user ON checkout_sessions (user_id)`.execute(db);
      // Every verified webhook event, once (its id is the key): the idempotency record and an audit log.
      await sql`
        CREATE TABLE stripe_events (
          id text PRIMARY KEY,
          type text NOT NULL,
          created bigint NOT NULL,
          livemode boolean NOT NULL,
          payload jsonb NOT NULL,
          outcome text NOT NULL,
          detail text NOT NULL DEFAULT '',
          received_at timestamptz NOT NULL DEFAULT now()
        )`.execute(db);
      await sql`CREATE INDEX stripe_events_received ON stripe_events (received_at)`.execute(db);
    },
  },
  '0002_outbox': outboxMigration,
  '0003_consumer': consumerMigration,
};
