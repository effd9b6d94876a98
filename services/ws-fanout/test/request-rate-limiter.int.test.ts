/** The per-plan control-request limit against real Redis: shared by processes, sliding over windows. */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from 'redis';
import { RequestRateLimiter } from '../src/domain/request-rate-limiter.js';

let redisA: ReturnType<typeof createClient>;
let redisB: ReturnType<typeof createClient>;

beforeAll(async () => {
  redisA = createClient({ url: process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379' });
  redisB = createClient({ url: process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379' });
  await Promise.all([redisA.connect(), redisB.connect()]);
});

afterAll(async () => {
  await redisA?.quit();
  await redisB?.quit();
});

describe('RequestRateLimiter', () => {
  it('when two processes take requests for one user at once, then exactly the limit is allowed in total', async () => {
    const now = () => 1_800_000_010_000;
    const podA = new RequestRateLimiter(redisA, 60_000, now);
    const podB = new RequestRateLimiter(redisB, 60_000, now);
    const user = `U${randomUUID()}`;
    const decisions = await Promise.all(Array.from({ length: 160 }, (_, i) => (i % 2 === 0 ? podA : podB).take(user, 100)));
    expect(decisions.filter((d) => d.allowed)).toHaveLength(100);
    expect(decisions.filter((d) => !d.allowed).every((d) => d.retryAfterMs === 50_000)).toBe(true);
  });

  it('when the window moves on, then the previous window counts by the share still inside the last minute', async () => {
    let t = 1_800_000_000_000; // a window start
    const limiter = new RequestRateLimiter(redisA, 60_000, () => t);
    const user = `U${randomUUID()}`;
    for (let i = 0; i < 100; i++) expect((await limiter.take(user, 100)).allowed).toBe(true);
    expect((await limiter.take(user, 100)).allowed).toBe(false);
    t += 60_000 + 15_000; // 15 s into the next window: 75 % of the previous 100 still count
    let allowed = 0;
    while ((await limiter.take(user, 100)).allowed) allowed++;
    expect(allowed).toBe(25);
    t += 60_000 + 60_000; // two windows later nothing counts
    expect((await limiter.take(user, 100)).allowed).toBe(true);
  });
});
