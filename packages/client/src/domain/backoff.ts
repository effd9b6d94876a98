/**
 * Reconnect schedule: exponential backoff (pure).
 *
 * Defaults are the product rule (product spec §9, "Article example rules"): reconnect up to 10
 * attempts, exponential backoff from 1000 ms doubling, capped at 30000 ms.
 */

/** How the client waits between reconnect attempts. */
export interface BackoffPolicy {
  /** Delay before the first reconnect attempt, ms. Default 1000. */
  readonly initialDelayMs: number;
  /** Largest delay, ms. Default 30000. */
  readonly maxDelayMs: number;
  /** Factor between two consecutive delays. Default 2. */
  readonly multiplier: number;
  /**
   * Consecutive failed attempts (connections that never reached `authenticated`) after which the
   * client gives up. Default 10; `Infinity` retries for ever. A successful authentication resets the count.
   */
  readonly maxAttempts: number;
  /**
   * Random share taken off each delay, 0..1: the delay is drawn from [delay × (1 − jitter), delay].
   * Default 0 (the exact schedule); 0.5 spreads a crowd of clients reconnecting after a server restart.
   */
  readonly jitter: number;
}

/** The product rule: 1 s, 2 s, 4 s, 8 s, 16 s, then 30 s; 10 attempts; no jitter. */
export const DEFAULT_BACKOFF: BackoffPolicy = Object.freeze({
  initialDelayMs: 1_000,
  maxDelayMs: 30_000,
  multiplier: 2,
  maxAttempts: 10,
  jitter: 0,
});

/**
 * Delay before reconnect attempt `attempt` (1-based), ms: min(initial × multiplier^(attempt−1), max),
 * less a random share of up to `jitter`.
 * @param random a number in [0, 1) (Math.random by default).
 * @throws RangeError when `attempt` is not a positive integer.
 */
export function backoffDelayMs(policy: BackoffPolicy, attempt: number, random: () => number = Math.random): number {
  if (!Number.isInteger(attempt) || attempt < 1) throw new RangeError(`attempt must be a positive integer, got ${attempt}`);
  // Exponent capped so a huge attempt count cannot overflow to Infinity × 0 = NaN.
  const exponential = policy.initialDelayMs * policy.multiplier ** Math.min(attempt - 1, 1_000);
  const delay = Math.min(exponential, policy.maxDelayMs);
  return policy.jitter > 0 ? Math.round(delay * (1 - policy.jitter * random())) : delay;
}

/**
 * Checks and completes a partial policy.
 * @throws RangeError naming the first bad field (delays must be non-negative finite numbers, the
 *   multiplier ≥ 1, maxAttempts a non-negative integer or Infinity, jitter within 0..1).
 */
export function resolveBackoff(partial: Partial<BackoffPolicy> = {}): BackoffPolicy {
  const policy = { ...DEFAULT_BACKOFF, ...partial };
  const finiteNonNegative = (name: keyof BackoffPolicy) => {
    const v = policy[name];
    if (typeof v !== 'number' || !Number.isFinite(v) || v < 0) throw new RangeError(`reconnect.${name} must be a finite number ≥ 0, got ${String(v)}`);
  };
  finiteNonNegative('initialDelayMs');
  finiteNonNegative('maxDelayMs');
  if (typeof policy.multiplier !== 'number' || !Number.isFinite(policy.multiplier) || policy.multiplier < 1) {
    throw new RangeError(`reconnect.multiplier must be a finite number ≥ 1, got ${String(policy.multiplier)}`);
  }
  if (!(policy.maxAttempts === Infinity || (Number.isInteger(policy.maxAttempts) && policy.maxAttempts >= 0))) {
    throw new RangeError(`reconnect.maxAttempts must be a non-negative integer or Infinity, got ${String(policy.maxAttempts)}`);
  }
  if (typeof policy.jitter !== 'number' || !(policy.jitter >= 0 && policy.jitter <= 1)) {
    throw new RangeError(`reconnect.jitter must be between 0 and 1, got ${String(policy.jitter)}`);
  }
  return Object.freeze(policy);
}
