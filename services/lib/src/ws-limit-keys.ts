/**
 * The Redis keys of ws-fanout's per-plan limits and how the request counter is weighted: written by
 * ws-fanout (domain/connection-limiter.ts, domain/request-rate-limiter.ts), read by credential-issuer's
 * `GET /api/usage` (connections and requests in use now). Defined once here so writer and reader agree.
 * No I/O, no Node-only imports.
 *
 * `limitKey` is the connection-limit key of a login (ws-fanout verifier.ts): the customer's NATS account
 * public key (`A…`) on a per-customer account, or the user public key (`U…`) on the shared developer accounts.
 */

/**
 * The sorted set of a customer's WebSocket connection slots: members are connection ids, scores lease
 * expiry times (ms since the epoch); a member whose score is ≤ now is an expired lease, not a connection.
 */
export function wsConnectionSlotsKey(limitKey: string): string {
  return `tw:ws:conns:${limitKey}`;
}

/** The counter of a customer's control requests in fixed window number `window` (= floor(now_ms / window_ms)). */
export function wsRequestRateKey(limitKey: string, window: number): string {
  return `tw:ws:rpm:${limitKey}:${window}`;
}

/** Where `nowMs` falls in the fixed windows of the request counter. */
export interface RequestRateWindow {
  /** floor(nowMs / windowMs): the current window's number. */
  readonly window: number;
  /**
   * Weight of the previous window's count in the sliding-window estimate: the share of the previous
   * window still inside the last `windowMs` (1 at the start of a window, → 0 at its end).
   */
  readonly previousWeight: number;
  /** ms until the current window ends. */
  readonly remainingMs: number;
}

/**
 * The window of the sliding-window request counter at `nowMs`.
 * @param windowMs window length, ms (ws-fanout REQUEST_RATE_WINDOW_MS, default 60 000 = the plan's per minute).
 */
export function requestRateWindow(nowMs: number, windowMs: number): RequestRateWindow {
  const window = Math.floor(nowMs / windowMs);
  const elapsed = (nowMs - window * windowMs) / windowMs;
  return { window, previousWeight: 1 - elapsed, remainingMs: (window + 1) * windowMs - nowMs };
}

/**
 * Control requests in the last window, estimated as ws-fanout's limiter counts them:
 * previous window's count × {@link RequestRateWindow.previousWeight} + current window's count.
 * ws-fanout's Lua script (request-rate-limiter.ts) computes the same sum with the weight passed in.
 */
export function weightedRequests(previous: number, current: number, previousWeight: number): number {
  return previous * previousWeight + current;
}
