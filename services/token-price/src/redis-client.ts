/** The Redis client token-price runs with (main.ts) and that its fault tests drive (scripts/reliability). */
import { createClient } from 'redis';

/**
 * A node-redis client for `url` (redis:// or rediss://), not yet connected. No offline queue: while
 * Redis is down a command fails at once, so a ticker request gets the documented 500 within its
 * deadline instead of waiting until Redis is back (docs/reliability.md, Redis outage).
 */
export function createRedisClient(url: string): ReturnType<typeof createClient> {
  return createClient({ url, disableOfflineQueue: true });
}
