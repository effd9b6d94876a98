/** auth's tables (schema `auth`) as kysely sees them. */
import type { ColumnType, ConsumerTables, Generated, OutboxTable } from '@tradewind/lib';

export interface UsersTable {
  id: string;
  /** "google" | "local-oidc". */
  identity_provider: string;
  /** The provider's stable subject (`sub` claim). */
  subject: string;
  email: string;
  name: string;
  avatar_url: string;
  tier: string;
  billing_period: string;
  subscription_status: string;
  subscription_type: string;
  trial_end_date: Date | null;
  /** SubscriptionChanged.version last applied (billing counts per user). */
  subscription_version: Generated<string>;
  created_at: Generated<Date>;
  updated_at: Generated<Date>;
  last_sign_in_at: Date | null;
}

export interface LoginAttemptsTable {
  /** sha256(state), hex: the state itself only lives in the browser's cookie and the provider's redirect. */
  state_hash: string;
  code_verifier: string;
  nonce: string;
  tier: string | null;
  period: string | null;
  created_at: Generated<Date>;
  expires_at: Date;
}

export interface SessionsTable {
  id: string;
  user_id: string;
  created_at: Generated<Date>;
  last_refreshed_at: Date | null;
  /** Absolute end of the session; each refresh moves it to now + REFRESH_TOKEN_TTL_SECONDS. */
  expires_at: Date;
  revoked_at: Date | null;
  /** "logout" | "refresh_token_reuse". */
  revoked_reason: string | null;
  user_agent: string;
}

export interface RefreshTokensTable {
  /** sha256(token), hex; the token itself is never stored. */
  token_hash: string;
  session_id: string;
  created_at: Generated<Date>;
  /** Set when the token was exchanged for its successor; presenting it again is reuse. */
  rotated_at: Date | null;
}

export interface AuthDatabase extends ConsumerTables {
  users: UsersTable;
  login_attempts: LoginAttemptsTable;
  sessions: SessionsTable;
  refresh_tokens: RefreshTokensTable;
  outbox: OutboxTable;
}

export type { ColumnType };
