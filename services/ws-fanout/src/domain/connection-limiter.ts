/**
 * Per-user connection slots shared by every ws-fanout process, in Redis.
 *
 * Each user has a sorted set `tw:ws:conns:<user>` whose members are connection ids and whose
 * scores are lease expiry times (ms). Taking a slot runs one Lua script — drop expired leases,
 * count, add if below the limit — so two pods can never both take the last slot. Each pod
 * renews its own leases every third of the lease; a pod that dies stops renewing and its
 * slots expire after at most one lease, so a crash leaks nothing.
 */
import type { RedisClientType } from 'redis';

/** The default `createClient()` type (RESP3 in node-redis 6). */
type Redis = RedisClientType<any, any, any, any, any>;

const ACQUIRE = `
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[3]) then return 0 end
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[4])
redis.call('PEXPIRE', KEYS[1], ARGV[5])
return 1`;

/** Gives up the slot ARGV[3] when the set holds more than ARGV[2] live leases (a plan with fewer connections). */
const SHED = `
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
if redis.call('ZCARD', KEYS[1]) <= tonumber(ARGV[2]) then return 0 end
return redis.call('ZREM', KEYS[1], ARGV[3])`;

/** Slot bookkeeping for one process. */
export class ConnectionLimiter {
  private readonly held = new Map<string, string>(); // connection id -> redis key
  private timer: NodeJS.Timeout | undefined;
  /** Set while the leases are being written back after Redis (re)connected; acquisitions wait for it. */
  private restoring: Promise<void> | undefined;
  private readonly onReady = () => {
    const done = this.renew().catch((err: unknown) => this.onError?.(err));
    this.restoring = done.finally(() => {
      if (this.restoring === done) this.restoring = undefined;
    });
  };
  private onError: ((err: unknown) => void) | undefined;

  /** @param leaseMs lease length in ms (config CONNECTION_LEASE_MS). */
  constructor(
    private readonly redis: Redis,
    private readonly leaseMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  private key(user: string): string {
    return `tw:ws:conns:${user}`;
  }

  /** Takes a slot for `connectionId` if `user` holds fewer than `limit`. @returns true when taken. */
  async acquire(user: string, connectionId: string, limit: number): Promise<boolean> {
    // After a Redis restart (empty, no persistence) the live connections' slots are written back first,
    // so a login in between cannot take a slot an open connection holds (never past the plan's limit).
    if (this.restoring) await this.restoring;
    const now = this.now();
    const ok = await this.redis.eval(ACQUIRE, {
      keys: [this.key(user)],
      arguments: [String(now), String(now + this.leaseMs), String(limit), connectionId, String(this.leaseMs * 2)],
    });
    if (ok === 1) this.held.set(connectionId, this.key(user));
    return ok === 1;
  }

  /**
   * After a plan change lowered the limit to `limit`: frees `connectionId`'s slot if the key holds
   * more than `limit` live slots. Each call is one atomic script, so however many processes shed
   * at once, exactly (count − limit) connections give up their slots.
   * @returns true when this connection must close.
   */
  async shed(connectionId: string, limit: number): Promise<boolean> {
    const key = this.held.get(connectionId);
    if (!key) return false;
    // Out of `held` while the script runs, so a renewal (which re-adds what it renews) cannot bring it back.
    this.held.delete(connectionId);
    let removed: unknown = 0;
    try {
      removed = await this.redis.eval(SHED, { keys: [key], arguments: [String(this.now()), String(limit), connectionId] });
    } finally {
      if (removed !== 1) this.held.set(connectionId, key);
    }
    return removed === 1;
  }

  /** Frees the slot of `connectionId` (no-op when it holds none). */
  async release(connectionId: string): Promise<void> {
    const key = this.held.get(connectionId);
    if (!key) return;
    this.held.delete(connectionId);
    await this.redis.zRem(key, connectionId);
  }

  /**
   * Renews every lease this process holds, re-adding any that Redis lost (a restart without
   * persistence empties the sets while the connections are still open). Released and shed slots
   * are out of `held` before their removal is sent, so nothing freed is brought back.
   */
  async renew(): Promise<void> {
    const until = this.now() + this.leaseMs;
    const multi = this.redis.multi();
    for (const [id, key] of this.held) {
      multi.zAdd(key, { score: until, value: id });
      multi.pExpire(key, this.leaseMs * 2);
    }
    if (this.held.size > 0) await multi.exec();
  }

  /** Starts periodic renewal (every third of the lease). `onError` receives Redis failures. */
  start(onError: (err: unknown) => void): void {
    this.onError = onError;
    // node-redis emits 'ready' on every (re)connection: write the held leases back before any new acquisition.
    this.redis.on('ready', this.onReady);
    this.timer = setInterval(() => void this.renew().catch(onError), Math.max(1000, Math.floor(this.leaseMs / 3)));
    this.timer.unref();
  }

  /** Stops renewal and releases every slot this process holds. */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.redis.off('ready', this.onReady);
    await Promise.all([...this.held.keys()].map((id) => this.release(id)));
  }
}
