/**
 * What a customer used of their plan (issue 34): the body of `GET /api/usage` (credential-issuer,
 * docs/nats.md "Usage"), read by the dashboard's Usage page. Browser-safe (no imports but types).
 *
 * Figures are measured by the servers that delivered the data:
 * - WebSocket: messages and bytes ws-fanout sent to the customer's connections (every frame it wrote:
 *   trades, slot statuses, control answers), counted per connection, reported per customer every
 *   `report_interval_ms` and stored per UTC day;
 * - native NATS: nats-server's per-account statistics (every customer has an account of its own),
 *   messages and bytes the servers sent to the account's connections, polled and stored per UTC day.
 * A day's figures may lag the truth by up to one reporting interval.
 */
import type { PlanId } from './plans.js';

/** Days of history `GET /api/usage` returns (today and the 29 UTC days before it). */
export const USAGE_DAYS = 30;

/** Messages and bytes delivered over one transport. `bytes` are payload bytes as the server counted them. */
export interface DeliveredCount {
  readonly messages: number;
  readonly bytes: number;
}

/** One UTC day of usage. */
export interface UsageDay {
  /** `YYYY-MM-DD`, UTC. */
  readonly day: string;
  readonly websocket: DeliveredCount;
  readonly nats: DeliveredCount;
}

/** Something in use now against the plan's limit. */
export interface InUse {
  /** In use now; null when it could not be measured at this moment (the server that counts it did not answer). */
  readonly in_use: number | null;
  /** The plan's limit (`PLANS[plan]`). */
  readonly limit: number;
}

/** `GET /api/usage` 200 body. */
export interface UsageReport {
  readonly plan: PlanId;
  /** When these figures were read, ISO 8601. */
  readonly generated_at: string;
  /** The longest a day's figures can lag delivery, ms (the larger of the WebSocket report and the NATS poll interval). */
  readonly report_interval_ms: number;
  /** Exactly {@link USAGE_DAYS} days, oldest first, the last one today (UTC); a day without traffic has zeros. */
  readonly days: readonly UsageDay[];
  /** Sums of `days`. */
  readonly totals: { readonly websocket: DeliveredCount; readonly nats: DeliveredCount };
  /** Connections open now, per transport, against the plan's connections per transport. */
  readonly connections: { readonly websocket: InUse; readonly nats: InUse };
  /** WebSocket control requests (auth, subscribe, unsubscribe) in the last minute against the plan's requests per minute. */
  readonly requests_per_minute: InUse;
}
