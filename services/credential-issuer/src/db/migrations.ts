/** credential-issuer's migrations, applied at start by `migrate()` in schema `credential_issuer`. Never edit one that has shipped; add a new one. */
import { consumerMigration, outboxMigration, sql, type Migrations } from '@tradewind/lib';

export const CREDENTIAL_ISSUER_SCHEMA = 'credential_issuer';

export const credentialIssuerMigrations: Migrations = {
  '0001_customers': {
    async up(db) {
      // One row per Tradewind user: their NATS account (one per customer, docs/nats.md) and their
      // one messaging user. The user's NKey seed is stored sealed (domain/seed-cipher.ts).
      await sql`
        CREATE TABLE customers (
          user_id uuid PRIMARY KEY,
          email text NOT NULL DEFAULT '',
          plan text NOT NULL CHECK (plan IN ('starter', 'plus', 'pro')),
          subscription_version bigint NOT NULL DEFAULT 0,
          account_public_key text NOT NULL UNIQUE,
          revocations jsonb NOT NULL DEFAULT '{}'::jsonb,
          account_jwt text NOT NULL,
          pushed_account_jwt text,
          user_public_key text NOT NULL,
          user_jwt text NOT NULL,
          user_seed_sealed text NOT NULL,
          user_issued_at timestamptz NOT NULL,
          created_at timestamptz NOT NULL DEFAULT now(),
          updated_at timestamptz NOT NULL DEFAULT now()
        )`.execute(db);
      // Accounts the resolver has not confirmed yet (pushed again at start and periodically).
      await sql`CREATE INDEX customers_unpushed ON customers (updated_at) WHERE pushed_account_jwt IS DISTINCT FROM account_jwt`.execute(db);
    },
  },
  '0002_outbox': outboxMigration,
  '0003_consumer': consumerMigration,
  '0004_usage': {
    async up(db) {
      // Usage metering (docs/nats.md "Usage"): messages and bytes delivered per customer key (the NATS account
      // public key; a user key on the shared developer accounts), UTC day and transport.
      await sql`
        CREATE TABLE usage_daily (
          limit_key text NOT NULL,
          day date NOT NULL,
          transport text NOT NULL CHECK (transport IN ('websocket', 'nats')),
          messages bigint NOT NULL DEFAULT 0 CHECK (messages >= 0),
          bytes bigint NOT NULL DEFAULT 0 CHECK (bytes >= 0),
          PRIMARY KEY (limit_key, day, transport)
        )`.execute(db);
      // The last-seen cumulative counters of each native connection (CONNZ out_msgs/out_bytes) per nats-server,
      // updated in the transaction that adds their delta to usage_daily.
      await sql`
        CREATE TABLE nats_connection_counters (
          server_id text NOT NULL,
          cid bigint NOT NULL,
          account_public_key text NOT NULL,
          out_msgs bigint NOT NULL,
          out_bytes bigint NOT NULL,
          sampled_at timestamptz NOT NULL,
          PRIMARY KEY (server_id, cid)
        )`.execute(db);
      await sql`CREATE INDEX nats_connection_counters_sampled ON nats_connection_counters (sampled_at)`.execute(db);
    },
  },
};
