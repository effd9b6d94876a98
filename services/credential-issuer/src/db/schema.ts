/** credential-issuer's tables (schema `credential_issuer`) as kysely sees them. */
import type { ColumnType, ConsumerTables, Generated, OutboxTable } from '@tradewind/lib';

export interface CustomersTable {
  user_id: string;
  email: string;
  /** Effective plan (starter when a paid subscription is not entitled). */
  plan: string;
  /** `version` of the newest subscription.changed applied (bigint as string). */
  subscription_version: string;
  /** `A…`: the customer's own NATS account. */
  account_public_key: string;
  /** Revoked user public key → seconds since the epoch (JWTs issued at or before it are refused). */
  revocations: ColumnType<Record<string, number>, string, string>;
  /** The account JWT as it should be; `pushed_account_jwt` is the last one the resolver accepted. */
  account_jwt: string;
  pushed_account_jwt: string | null;
  /** `U…` of the current messaging user, its JWT and its sealed seed. */
  user_public_key: string;
  user_jwt: string;
  user_seed_sealed: string;
  user_issued_at: Date;
  created_at: Generated<Date>;
  updated_at: Generated<Date>;
}

/** Delivered messages and bytes per customer key, UTC day and transport (usage metering). */
export interface UsageDailyTable {
  /** The customer's NATS account public key (`A…`), or a user key (`U…`) on the shared developer accounts. */
  limit_key: string;
  /** UTC day, written and compared as `YYYY-MM-DD` (select it with to_char: node-postgres reads a bare date as local midnight). */
  day: ColumnType<string, string, string>;
  transport: 'websocket' | 'nats';
  /** bigint, read as a string. */
  messages: ColumnType<string, number | string, number | string>;
  bytes: ColumnType<string, number | string, number | string>;
}

/** Last-seen CONNZ counters of one native connection (cid) on one nats-server (server id). */
export interface NatsConnectionCountersTable {
  server_id: string;
  cid: ColumnType<string, number | string, number | string>;
  account_public_key: string;
  out_msgs: ColumnType<string, number | string, number | string>;
  out_bytes: ColumnType<string, number | string, number | string>;
  /** The server's `now` of the CONNZ reply these values came from. */
  sampled_at: Date;
}

export interface CredentialIssuerDatabase extends ConsumerTables {
  customers: CustomersTable;
  outbox: OutboxTable;
  usage_daily: UsageDailyTable;
  nats_connection_counters: NatsConnectionCountersTable;
}
