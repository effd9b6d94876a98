/** auth's migrations, applied at start by `migrate()` in schema `auth`. Never edit one that has shipped; add a new one. */
import { consumerMigration, outboxMigration, sql, type Migrations } from '@tradewind/lib';

export const AUTH_SCHEMA = 'auth';

export const authMigrations: Migrations = {
  '0001_users_sessions': {
    async up(db) {
      await sql`
        CREATE TABLE users (
          id uuid PRIMARY KEY,
          identity_provider text NOT NULL,
          subject text NOT NULL,
          email text NOT NULL,
          name text NOT NULL DEFAULT '',
          avatar_url text NOT NULL DEFAULT '',
          tier text NOT NULL DEFAULT 'starter' CHECK (tier IN ('starter', 'plus', 'pro')),
          billing_period text NOT NULL DEFAULT 'indefinite' CHECK (billing_period IN ('indefinite', 'monthly', 'yearly')),
          subscription_status text NOT NULL DEFAULT 'active',
          subscription_type text NOT NULL DEFAULT 'free' CHECK (subscription_type IN ('free', 'paid', 'trial')),
          trial_end_date timestamptz,
          created_at timestamptz NOT NULL DEFAULT now(),
          updated_at timestamptz NOT NULL DEFAULT now(),
          last_sign_in_at timestamptz,
          UNIQUE (identity_provider, subject)
        )`.execute(db);
      await sql`CREATE INDEX users_email ON users (lower(email))`.execute(db);
      await sql`
        CREATE TABLE login_attempts (
          state_hash text PRIMARY KEY,
          code_verifier text NOT NULL,
          nonce text NOT NULL,
          tier text,
          period text,
          created_at timestamptz NOT NULL DEFAULT now(),
          expires_at timestamptz NOT NULL
        )`.execute(db);
      await sql`CREATE INDEX login_attempts_expires ON login_attempts (expires_at)`.execute(db);
      await sql`
        CREATE TABLE sessions (
          id uuid PRIMARY KEY,
          user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
          created_at timestamptz NOT NULL DEFAULT now(),
          last_refreshed_at timestamptz,
          expires_at timestamptz NOT NULL,
          revoked_at timestamptz,
          revoked_reason text,
          user_agent text NOT NULL DEFAULT ''
        )`.execute(db);
      await sql`CREATE INDEX sessions_user ON sessions (user_id)`.execute(db);
      await sql`
        CREATE TABLE refresh_tokens (
          token_hash text PRIMARY KEY,
          session_id uuid NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
          created_at timestamptz NOT NULL DEFAULT now(),
          rotated_at timestamptz
        )`.execute(db);
      await sql`CREATE INDEX refresh_tokens_session ON refresh_tokens (session_id)`.execute(db);
    },
  },
  '0002_outbox': outboxMigration,
  '0003_consumer': consumerMigration,
  // The SubscriptionChanged.version last applied, so an older event never overwrites a newer one.
  '0004_subscription_version': {
    async up(db) {
      await sql`ALTER TABLE users ADD COLUMN subscription_version bigint NOT NULL DEFAULT 0`.execute(db);
    },
  },
  // Issue 21: an editable name that later sign-ins keep, the notification bell, its preferences, and
  // the blog's newsletter sign-up with its per-address rate limit.
  '0005_account_notifications_newsletter': {
    async up(db) {
      await sql`ALTER TABLE users ADD COLUMN name_set_by_user boolean NOT NULL DEFAULT false`.execute(db);
      // One row per EVENTS event that concerns a user; its id is the event id, so a redelivery inserts nothing.
      await sql`
        CREATE TABLE notifications (
          id uuid PRIMARY KEY,
          user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
          kind text NOT NULL CHECK (kind IN ('plan_changed', 'payment_succeeded', 'payment_failed', 'credentials_rotated', 'connection_limited')),
          title text NOT NULL,
          body text NOT NULL,
          link text,
          created_at timestamptz NOT NULL,
          read_at timestamptz
        )`.execute(db);
      await sql`CREATE INDEX notifications_user_newest ON notifications (user_id, created_at DESC, id DESC)`.execute(db);
      await sql`CREATE INDEX notifications_user_unread ON notifications (user_id, kind) WHERE read_at IS NULL`.execute(db);
      // No row = every kind on.
      await sql`
        CREATE TABLE notification_preferences (
          user_id uuid PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
          plan_changes boolean NOT NULL,
          payments boolean NOT NULL,
          credentials boolean NOT NULL,
          connection_limits boolean NOT NULL,
          updated_at timestamptz NOT NULL DEFAULT now()
        )`.execute(db);
      await sql`
        CREATE TABLE newsletter_subscriptions (
          email text PRIMARY KEY,
          source text NOT NULL,
          created_at timestamptz NOT NULL DEFAULT now()
        )`.execute(db);
      // Fixed one-minute windows shared by every replica; key is sha256 of the client address, never the address.
      await sql`
        CREATE TABLE rate_limit_windows (
          scope text NOT NULL,
          key text NOT NULL,
          window_start timestamptz NOT NULL,
          hits integer NOT NULL,
          PRIMARY KEY (scope, key, window_start)
        )`.execute(db);
    },
  },
  // One-click unsubscribe links find an address by sha256 of it (domain/newsletter.ts, the token's id), never by
  // the address itself. Generated by PostgreSQL, so existing rows get it and a replica of the previous version,
  // which inserts only email and source, still stores it during a rollout. decode(…, 'escape') of the text with
  // its backslashes doubled gives the text's UTF-8 bytes, as Node's createHash(…).update(email, 'utf8') hashes them
  // (convert_to would too, but it is not immutable, which a generated column requires).
  '0006_newsletter_email_hash': {
    async up(db) {
      await sql`
        ALTER TABLE newsletter_subscriptions
          ADD COLUMN email_hash text NOT NULL
          GENERATED ALWAYS AS (encode(sha256(decode(replace(email, '\\', '\\\\'), 'escape')), 'hex')) STORED`.execute(db);
      await sql`CREATE UNIQUE INDEX newsletter_subscriptions_email_hash ON newsletter_subscriptions (email_hash)`.execute(db);
    },
  },
};
