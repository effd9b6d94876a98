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
  /** True once the user saved a name with `PATCH /auth/user`: sign-ins then keep it instead of the provider's. */
  name_set_by_user: Generated<boolean>;
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

export interface NotificationsTable {
  /** The EVENTS event id the notification was made from. */
  id: string;
  user_id: string;
  /** One of NOTIFICATION_KINDS (domain/notifications.ts). */
  kind: string;
  title: string;
  body: string;
  /** A path of the web app (`/dashboard/plan`) or an absolute https URL (Stripe's hosted invoice); null for none. */
  link: string | null;
  /** When the event happened (its meta.occurred_at). */
  created_at: Date;
  read_at: Date | null;
}

export interface NotificationPreferencesTable {
  user_id: string;
  plan_changes: boolean;
  payments: boolean;
  credentials: boolean;
  connection_limits: boolean;
  updated_at: Generated<Date>;
}

export interface NewsletterSubscriptionsTable {
  /** Normalised (trimmed, lowercase) address. */
  email: string;
  /** Where the sign-up came from ("blog"). */
  source: string;
  created_at: Generated<Date>;
}

export interface RateLimitWindowsTable {
  /** Which limit ("newsletter"). */
  scope: string;
  /** sha256 hex of the limited key (the client address). */
  key: string;
  window_start: Date;
  hits: number;
}

export interface AuthDatabase extends ConsumerTables {
  notifications: NotificationsTable;
  notification_preferences: NotificationPreferencesTable;
  newsletter_subscriptions: NewsletterSubscriptionsTable;
  rate_limit_windows: RateLimitWindowsTable;
  users: UsersTable;
  login_attempts: LoginAttemptsTable;
  sessions: SessionsTable;
  refresh_tokens: RefreshTokensTable;
  outbox: OutboxTable;
}

export type { ColumnType };
