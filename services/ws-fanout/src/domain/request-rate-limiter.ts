/**
 * Control requests per minute per user (auth, subscribe, unsubscribe), shared by every ws-fanout
 * process through Redis; the limit is the plan's `requestsPerMinute` (docs/architecture.md §8: starter
 * 100, plus 1,000, pro 10,000).
 *
 * Sliding-window counter: one counter per user per fixed window (`tw:ws:rpm:<user>:<window>`,
 * `wsRequestRateKey` and `requestRateWindow` of @tradewind/lib, which credential-issuer reads too),
 * and a request is allowed while
 *   previous window's count × (share of the previous window still inside the last minute)
 *   + this window's count  <  limit.
 * One Lua script reads both counters and increments the current one, so concurrent requests on
 * several pods can never exceed the limit together. Keys expire after two windows.
 */
import type { RedisClientType } from 'redis';
import { requestRateWindow, wsRequestRateKey } from '@tradewind/lib';

type Redis = RedisClientType<any, any, any, any, any>;

const TAKE = `
local current = tonumber(redis.call('GET', KEYS[1]) or '0')
local previous = tonumber(redis.call('GET', KEYS[2]) or '0')
local weighted = previous * tonumber(ARGV[1]) + current
if weighted >= tonumber(ARGV[2]) then
  return {0, math.floor(weighted)}
end
redis.call('INCR', KEYS[1])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return {1, math.floor(weighted) + 1}`;

/** The outcome of one request. `used` is the (weighted) number of requests in the last window including this one. */
export interface RateDecision {
  allowed: boolean;
  used: number;
  /** ms until the current window ends (a refused client may retry after it). */
  retryAfterMs: number;
}

export class RequestRateLimiter {
  /** @param windowMs window length in ms (config REQUEST_RATE_WINDOW_MS, default 60 000 = per minute). */
  constructor(
    private readonly redis: Redis,
    private readonly windowMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Counts one control request of `user` against `limit` per window. @throws Redis errors (the caller answers `unavailable`). */
  async take(user: string, limit: number): Promise<RateDecision> {
    const { window, previousWeight, remainingMs } = requestRateWindow(this.now(), this.windowMs);
    const result = (await this.redis.eval(TAKE, {
      keys: [wsRequestRateKey(user, window), wsRequestRateKey(user, window - 1)],
      arguments: [String(previousWeight), String(limit), String(this.windowMs * 2)],
    })) as [number, number];
    return { allowed: result[0] === 1, used: result[1], retryAfterMs: remainingMs };
  }
}
