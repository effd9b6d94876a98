/**
 * Per-user connection slots shared by every ws-fanout process, in Redis.
 *
 * Each user has a sorted set `tw:ws:conns:<user>` whose members are connection ids and whose
 * scores are lease expiry times (ms). Taking a slot runs one Lua script — drop expired leases,
 * count, add if below the limit — so two pods can never both take the last slot. Each pod
 * renews its own leases every third of the lease; a pod that dies stops renewing and its
 * slots expire after at most one lease, so a crash leaks nothing.
 *
 * Beside the set, a hash `<key>:holders` keeps a little about each slot's connection (when it
 * connected, from which address, User-Agent and Origin: {@link SlotHolder}), so a refused login can
 * be told which connections hold the plan's slots (docs/websocket.md §7, `holders`). Every script
 * that adds, sheds, releases or drops an expired lease writes or deletes its holder in the same
 * script (renewal in the same MULTI), and both keys expire together: a holder never outlives its slot.
 */
import type { RedisClientType } from 'redis';
import { wsConnectionSlotsKey } from '@tradewind/lib';
import type { WsConnectionHolder } from '@tradewind/contracts/ws-errors';

/** The default `createClient()` type (RESP3 in node-redis 6). */
type Redis = RedisClientType<any, any, any, any, any>;

/**
 * Longest User-Agent (and Origin) kept for a slot's holder, characters; longer ones are cut there. A
 * browser's User-Agent is 100–200 characters; the cap bounds what a client can make us store per slot.
 */
export const SLOT_HOLDER_TEXT_MAX_CHARS = 256;

/** What is kept about the connection that holds a slot: the `holders` entries of a `connection_limit` refusal. */
export type SlotHolder = WsConnectionHolder;

/** Drops the expired leases of KEYS[1] and their holders in KEYS[2] (ARGV[1]: now, ms). Shared head of the scripts. */
const DROP_EXPIRED = `
local expired = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
for _, id in ipairs(expired) do redis.call('HDEL', KEYS[2], id) end
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])`;

/**
 * Takes slot ARGV[4] (lease until ARGV[2]) with holder ARGV[6] when fewer than ARGV[3] live leases are held:
 * returns {1}; else {0, holder…} with the holders of the live leases (JSON texts, soonest-expiring first).
 */
const ACQUIRE = `${DROP_EXPIRED}
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[3]) then
  local holders = {0}
  for _, id in ipairs(redis.call('ZRANGE', KEYS[1], 0, -1)) do
    local h = redis.call('HGET', KEYS[2], id)
    if h then holders[#holders + 1] = h end
  end
  return holders
end
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[4])
redis.call('HSET', KEYS[2], ARGV[4], ARGV[6])
redis.call('PEXPIRE', KEYS[1], ARGV[5])
redis.call('PEXPIRE', KEYS[2], ARGV[5])
return {1}`;

/** Gives up the slot ARGV[3] (and its holder) when the set holds more than ARGV[2] live leases (a plan with fewer connections). */
const SHED = `${DROP_EXPIRED}
if redis.call('ZCARD', KEYS[1]) <= tonumber(ARGV[2]) then return 0 end
redis.call('HDEL', KEYS[2], ARGV[3])
return redis.call('ZREM', KEYS[1], ARGV[3])`;

/** Frees slot ARGV[1] and its holder. */
const RELEASE = `
redis.call('HDEL', KEYS[2], ARGV[1])
return redis.call('ZREM', KEYS[1], ARGV[1])`;

/** The outcome of {@link ConnectionLimiter.take}: the slot, or the connections that hold the plan's slots. */
export type TakeResult = { taken: true } | { taken: false; holders: SlotHolder[] };

/**
 * The holder record of a connection: `connectedAtMs` as ISO 8601, the User-Agent and Origin headers cut to
 * {@link SLOT_HOLDER_TEXT_MAX_CHARS} (null when absent or empty).
 */
export function slotHolder(connectedAtMs: number, address: string, userAgent: string | undefined, origin: string | undefined): SlotHolder {
  const cut = (v: string | undefined) => (v ? v.slice(0, SLOT_HOLDER_TEXT_MAX_CHARS) : null);
  return {
    connected_at: new Date(connectedAtMs).toISOString(),
    address: address.slice(0, SLOT_HOLDER_TEXT_MAX_CHARS),
    user_agent: cut(userAgent),
    origin: cut(origin),
  };
}

/** A stored holder text read back; undefined when it is not one (written by a newer or broken writer). */
function parseHolder(text: unknown): SlotHolder | undefined {
  if (typeof text !== 'string') return undefined;
  try {
    const h = JSON.parse(text) as Partial<SlotHolder>;
    if (typeof h.connected_at !== 'string' || typeof h.address !== 'string') return undefined;
    return {
      connected_at: h.connected_at,
      address: h.address,
      user_agent: typeof h.user_agent === 'string' ? h.user_agent : null,
      origin: typeof h.origin === 'string' ? h.origin : null,
    };
  } catch {
    return undefined;
  }
}

/** Slot bookkeeping for one process. */
export class ConnectionLimiter {
  private readonly held = new Map<string, { key: string; holder: string }>(); // connection id -> redis key, holder JSON
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
    return wsConnectionSlotsKey(user);
  }

  /** The hash of the holders of `key`'s slots (beside the sorted set, so it follows the key's name). */
  private holdersKey(key: string): string {
    return `${key}:holders`;
  }

  /** Takes a slot for `connectionId` if `user` holds fewer than `limit`. @returns true when taken. */
  async acquire(user: string, connectionId: string, limit: number, holder?: SlotHolder): Promise<boolean> {
    return (await this.take(user, connectionId, limit, holder)).taken;
  }

  /**
   * Takes a slot for `connectionId` if `user` holds fewer than `limit`, recording `holder` with it.
   * @returns `{taken: true}`, or `{taken: false, holders}`: the connections holding `user`'s live slots
   *   (read in the same script that found them full), those without a record left out.
   */
  async take(user: string, connectionId: string, limit: number, holder?: SlotHolder): Promise<TakeResult> {
    // After a Redis restart (empty, no persistence) the live connections' slots are written back first,
    // so a login in between cannot take a slot an open connection holds (never past the plan's limit).
    if (this.restoring) await this.restoring;
    const now = this.now();
    const key = this.key(user);
    const holderText = JSON.stringify(holder ?? slotHolder(now, 'unknown', undefined, undefined));
    const reply = (await this.redis.eval(ACQUIRE, {
      keys: [key, this.holdersKey(key)],
      arguments: [String(now), String(now + this.leaseMs), String(limit), connectionId, String(this.leaseMs * 2), holderText],
    })) as unknown[];
    if (reply[0] === 1) {
      this.held.set(connectionId, { key, holder: holderText });
      return { taken: true };
    }
    return { taken: false, holders: reply.slice(1).flatMap((text) => parseHolder(text) ?? []) };
  }

  /**
   * After a plan change lowered the limit to `limit`: frees `connectionId`'s slot if the key holds
   * more than `limit` live slots. Each call is one atomic script, so however many processes shed
   * at once, exactly (count − limit) connections give up their slots.
   * @returns true when this connection must close.
   */
  async shed(connectionId: string, limit: number): Promise<boolean> {
    const slot = this.held.get(connectionId);
    if (!slot) return false;
    // Out of `held` while the script runs, so a renewal (which re-adds what it renews) cannot bring it back.
    this.held.delete(connectionId);
    let removed: unknown = 0;
    try {
      removed = await this.redis.eval(SHED, { keys: [slot.key, this.holdersKey(slot.key)], arguments: [String(this.now()), String(limit), connectionId] });
    } finally {
      if (removed !== 1) this.held.set(connectionId, slot);
    }
    return removed === 1;
  }

  /** Frees the slot of `connectionId` and its holder (no-op when it holds none). */
  async release(connectionId: string): Promise<void> {
    const slot = this.held.get(connectionId);
    if (!slot) return;
    this.held.delete(connectionId);
    await this.redis.eval(RELEASE, { keys: [slot.key, this.holdersKey(slot.key)], arguments: [connectionId] });
  }

  /**
   * Renews every lease this process holds, re-adding any that Redis lost (a restart without
   * persistence empties the sets while the connections are still open). Released and shed slots
   * are out of `held` before their removal is sent, so nothing freed is brought back.
   */
  async renew(): Promise<void> {
    const until = this.now() + this.leaseMs;
    const multi = this.redis.multi();
    for (const [id, { key, holder }] of this.held) {
      multi.zAdd(key, { score: until, value: id });
      multi.hSet(this.holdersKey(key), id, holder);
      multi.pExpire(key, this.leaseMs * 2);
      multi.pExpire(this.holdersKey(key), this.leaseMs * 2);
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
