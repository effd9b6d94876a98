/**
 * token-price state in Redis. Every write is one Lua script, so a trade's price, bucket and ranking
 * change together, and applying a stream sequence twice changes nothing (the script compares it with
 * the last applied sequence). Keys, under `prefix` (TOKEN_PRICE_REDIS_PREFIX):
 *
 * | key | type | content |
 * |---|---|---|
 * | `state` | hash | `seq` last applied TRADES sequence, `stream_created` the stream's creation time (a recreated stream means rebuild), `sol_usd` / `sol_usd_ms` the stream's last live SOL/USD observation |
 * | `t:<mint>` | hash | identity `source, symbol, name, decimals, supply, meta` (live and replayed alike); live figures `price_sol, last_ms`; expires `ttlMs` after the token's last message |
 * | `px:<mint>` | hash | bucket start → `<time ms>|<price SOL>` (the bucket's close); trimmed to the window plus one older bucket; expires with the token |
 * | `b:<bucket>` | hash | mint → lamports traded in that bucket |
 * | `buckets` | zset | bucket starts that have a `b:` hash |
 * | `vol` | zset | mint → lamports traded inside the window: the live ranking |
 * | `rt:<mint>` | hash | replayed figures in recording time: `anchor` (chain time of the latest recorded trade, ms), `vol` (lamports of the distinct recorded trades in the 24 h up to `anchor`, plus those without a time), `price` (last price, SOL), `then` / `then_r` (last price at or before `anchor` − 24 h, and its time) |
 * | `rx:<mint>` | hash | replayed event id (`<signature>:<instruction path>`) → `<chain time ms or ->|<lamports>|<price SOL>`: each recorded event counts once however often the replay loops |
 * | `rz:<mint>` | zset | replayed event id → chain time (ms), for moving the window |
 * | `rvol` | zset | mint → `rt:<mint>` `vol`: the replayed ranking |
 * | `rseen` | zset | mint → when its latest replayed copy entered the stream (ms): replayed tokens are listed for 24 h after it |
 * | `rsol` | zset | `<USD per SOL>|<event id>` → chain time: SOL/USD observations of the replayed recording |
 * | `leader` | string | the process that consumes TRADES (lease) |
 */
import type { RedisClientType } from 'redis';
import type { TokenFacts, TradeUpdate } from '../domain/trade.js';
import { bucketStart, expiredBucketCutoff, type ReplayedToken, type TokenIdentity, type TokenState } from '../domain/window.js';

/** Any connected node-redis client (v5+). */
export type Redis = RedisClientType<any, any, any, any, any>;

const APPLY = `
local state, token, px, bucket, buckets, vol = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6]
local seq = tonumber(ARGV[1])
local applied = tonumber(redis.call('HGET', state, 'seq') or '0')
if seq <= applied then return -1 end
redis.call('HSET', state, 'seq', ARGV[1])
local kind = ARGV[2]
if kind == 'noop' then return 0 end
local t = tonumber(ARGV[4])
if kind == 'sol_usd' then
  local prev = tonumber(redis.call('HGET', state, 'sol_usd_ms') or '-1')
  if t >= prev then redis.call('HSET', state, 'sol_usd', ARGV[5], 'sol_usd_ms', ARGV[4]) end
  return 0
end
-- identity facts: the first stated value wins (CREATE comes first on the chain)
local facts = cjson.decode(ARGV[12])
for k, v in pairs(facts) do redis.call('HSETNX', token, k, v) end
redis.call('HSETNX', token, 'source', ARGV[3])
local ttl = tonumber(ARGV[11])
local needsMeta = 0
if redis.call('HEXISTS', token, 'name') == 0 and redis.call('HEXISTS', token, 'meta') == 0 then needsMeta = 1 end
if kind == 'create' then
  redis.call('PEXPIRE', token, ttl)
  return needsMeta
end
local now, window, bucketMs = tonumber(ARGV[8]), tonumber(ARGV[9]), tonumber(ARGV[10])
local last = tonumber(redis.call('HGET', token, 'last_ms') or '-1')
if t >= last then
  redis.call('HSET', token, 'price_sol', ARGV[5], 'last_ms', ARGV[4])
end
local b = ARGV[7]
local prev = redis.call('HGET', px, b)
if (not prev) or tonumber(string.match(prev, '^([^|]+)')) <= t then redis.call('HSET', px, b, ARGV[4] .. '|' .. ARGV[5]) end
-- keep the window plus the newest bucket before it (the price 24 h ago)
if redis.call('HLEN', px) > 2 * (window / bucketMs) + 4 then
  local cutoff = now - window - bucketMs
  local anchor = nil
  local keys = redis.call('HKEYS', px)
  for _, k in ipairs(keys) do local kb = tonumber(k); if kb <= cutoff and (anchor == nil or kb > anchor) then anchor = kb end end
  if anchor then for _, k in ipairs(keys) do if tonumber(k) < anchor then redis.call('HDEL', px, k) end end end
end
local lamports = tonumber(ARGV[6])
if kind == 'trade' and lamports > 0 and tonumber(b) > now - window - bucketMs then
  redis.call('HINCRBY', bucket, ARGV[13], ARGV[6])
  redis.call('ZADD', buckets, b, b)
  redis.call('ZINCRBY', vol, ARGV[6], ARGV[13])
end
redis.call('PEXPIRE', token, ttl)
redis.call('PEXPIRE', px, ttl)
return needsMeta
`;

/**
 * A replayed copy (ingest's replay of a recording). Its figures live in recording time (module doc):
 * the first copy of an event adds it; later copies (the replay looping) only keep the token listed.
 * ARGV: 1 seq, 2 kind (trade | price | sol_usd), 3 mint, 4 replayed-at ms, 5 chain time ms or '',
 * 6 price (SOL per token; USD per SOL for sol_usd), 7 lamports, 8 event id, 9 ttl ms, 10 window ms,
 * 11 facts JSON, 12 source.
 */
const APPLY_REPLAYED = `
local state, token, rt, rx, rz, rvol, rseen, rsol = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6], KEYS[7], KEYS[8]
local seq = tonumber(ARGV[1])
local applied = tonumber(redis.call('HGET', state, 'seq') or '0')
if seq <= applied then return -1 end
redis.call('HSET', state, 'seq', ARGV[1])
local kind, mint, at, recorded, price, id = ARGV[2], ARGV[3], tonumber(ARGV[4]), ARGV[5], ARGV[6], ARGV[8]
local lamports, ttl, window = tonumber(ARGV[7]), tonumber(ARGV[9]), tonumber(ARGV[10])
if kind == 'sol_usd' then
  if recorded ~= '' then
    redis.call('ZADD', rsol, recorded, price .. '|' .. id)
    redis.call('PEXPIRE', rsol, ttl)
  end
  return 0
end
local facts = cjson.decode(ARGV[11])
for k, v in pairs(facts) do redis.call('HSETNX', token, k, v) end
redis.call('HSETNX', token, 'source', ARGV[12])
local needsMeta = 0
if redis.call('HEXISTS', token, 'name') == 0 and redis.call('HEXISTS', token, 'meta') == 0 then needsMeta = 1 end
redis.call('PEXPIRE', token, ttl)
local seen = tonumber(redis.call('ZSCORE', rseen, mint) or '-1')
if at > seen then redis.call('ZADD', rseen, ARGV[4], mint) end
if redis.call('HSETNX', rx, id, (recorded == '' and '-' or recorded) .. '|' .. ARGV[7] .. '|' .. price) == 1 then
  local f = redis.call('HMGET', rt, 'anchor', 'vol', 'then_r')
  local anchor, vol, thenR = tonumber(f[1]), tonumber(f[2] or '0'), tonumber(f[3])
  if recorded == '' then
    -- no chain time: counted in the window; the recording puts such captures last, so its price is the latest
    vol = vol + lamports
    redis.call('HSET', rt, 'price', price)
  else
    local t = tonumber(recorded)
    redis.call('ZADD', rz, recorded, id)
    if anchor == nil or t >= anchor then
      if anchor ~= nil and t > anchor then
        -- the window (anchor - 24 h, anchor] moves forward: events that leave it leave the volume,
        -- and the newest of them is the price 24 h before
        local gone = redis.call('ZRANGEBYSCORE', rz, '(' .. string.format('%.0f', anchor - window), string.format('%.0f', t - window), 'WITHSCORES')
        for i = 1, #gone, 2 do
          local _, _, gl, gp = string.find(redis.call('HGET', rx, gone[i]), '^[^|]*|([^|]*)|(.*)$')
          vol = vol - tonumber(gl)
          local gt = tonumber(gone[i + 1])
          if thenR == nil or gt >= thenR then
            thenR = gt
            redis.call('HSET', rt, 'then', gp, 'then_r', gone[i + 1])
          end
        end
      end
      redis.call('HSET', rt, 'price', price, 'anchor', recorded)
      vol = vol + lamports
    elseif t > anchor - window then
      vol = vol + lamports
    elseif thenR == nil or t >= thenR then
      redis.call('HSET', rt, 'then', price, 'then_r', recorded)
    end
  end
  redis.call('HSET', rt, 'vol', string.format('%.0f', vol))
end
-- (re)rank: also after a read dropped the token for want of copies in the last 24 h
local vol = redis.call('HGET', rt, 'vol')
if vol and tonumber(vol) > 0 then redis.call('ZADD', rvol, vol, mint) else redis.call('ZREM', rvol, mint) end
redis.call('PEXPIRE', rt, ttl)
redis.call('PEXPIRE', rx, ttl)
redis.call('PEXPIRE', rz, ttl)
return needsMeta
`;

const ROLL = `
local buckets, vol, prefix = KEYS[1], KEYS[2], ARGV[2]
local old = redis.call('ZRANGEBYSCORE', buckets, '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[3]))
for _, b in ipairs(old) do
  local key = prefix .. 'b:' .. b
  local kv = redis.call('HGETALL', key)
  for i = 1, #kv, 2 do redis.call('ZINCRBY', vol, -tonumber(kv[i + 1]), kv[i]) end
  redis.call('DEL', key)
  redis.call('ZREM', buckets, b)
end
redis.call('ZREMRANGEBYSCORE', vol, '-inf', 0)
return #old
`;

const RENEW = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) else return 0 end`;
const RELEASE = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) else return 0 end`;

/** Largest number of expired buckets one roll removes (a roll after long downtime is split into several calls). */
const ROLL_BATCH = 500;

/** The stream's last live SOL/USD observation as stored. */
export interface StoredSolUsd {
  /** USD per SOL. */
  readonly solUsd: number;
  /** The observation's trade time, Unix ms. */
  readonly observedAtMs: number;
}

/** A ranked live token with what a row needs. */
export interface RankedToken {
  readonly token: TokenState;
  readonly volumeLamports: number;
  /** bucket start → close price (SOL). */
  readonly closes: Map<number, number>;
}

/** Store settings. */
export interface StoreOptions {
  readonly prefix: string;
  readonly windowMs: number;
  readonly bucketMs: number;
  /** Tokens that stop trading are forgotten this long after their last trade (real time), ms. */
  readonly tokenTtlMs: number;
}

/** Thrown when Redis answers with something the store did not write. */
export class StoreError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'StoreError';
  }
}

/**
 * The token-price Redis store. Methods throw the node-redis error when Redis is unreachable.
 */
export class TokenStore {
  constructor(
    private readonly redis: Redis,
    readonly options: StoreOptions,
  ) {}

  private key(name: string): string {
    return this.options.prefix + name;
  }

  /** Last applied TRADES sequence and the stream creation time it belongs to; null when the store is empty. */
  async position(): Promise<{ seq: number; streamCreated: string } | null> {
    const [seq, created] = await this.redis.hmGet(this.key('state'), ['seq', 'stream_created']);
    if (created == null) return null;
    return { seq: Number(seq ?? 0), streamCreated: String(created) };
  }

  /** Deletes every key under the prefix and records which stream the new state belongs to. */
  async reset(streamCreated: string): Promise<void> {
    const keys: string[] = [];
    for await (const batch of this.redis.scanIterator({ MATCH: `${escapeGlob(this.options.prefix)}*`, COUNT: 1000 })) {
      for (const k of batch as unknown as string[]) if (!k.endsWith('leader')) keys.push(k);
      if (keys.length >= 1000) await this.redis.unlink(keys.splice(0));
    }
    if (keys.length > 0) await this.redis.unlink(keys);
    await this.redis.hSet(this.key('state'), { seq: '0', stream_created: streamCreated });
  }

  /**
   * Applies one interpreted message at stream sequence `seq`; a sequence at or below the last applied
   * one is skipped. `nowMs` is the clock used to decide whether the trade's bucket is still in the window.
   * @returns `skipped` (already applied), `applied`, or `needs_metadata` (the token has no name yet and was never looked up).
   */
  async apply(seq: number, update: TradeUpdate, nowMs: number): Promise<'skipped' | 'applied' | 'needs_metadata'> {
    if ((update.kind === 'trade' || update.kind === 'price' || update.kind === 'sol_usd') && update.replayed) return this.applyReplayed(seq, update);
    const { windowMs, bucketMs, tokenTtlMs } = this.options;
    const isToken = update.kind === 'trade' || update.kind === 'price' || update.kind === 'create';
    const mint = isToken ? update.mint : '';
    const timeMs = update.kind === 'ignored' ? 0 : update.timeMs;
    const b = bucketStart(timeMs, bucketMs);
    const kind = update.kind === 'ignored' ? 'noop' : update.kind;
    const value = update.kind === 'sol_usd' ? update.solUsd : update.kind === 'trade' || update.kind === 'price' ? update.priceSol : 0;
    const lamports = update.kind === 'trade' ? update.volumeLamports : 0;
    const facts = isToken ? factsFields(update.facts) : {};
    const result = await this.redis.eval(APPLY, {
      keys: [this.key('state'), this.key(`t:${mint}`), this.key(`px:${mint}`), this.key(`b:${b}`), this.key('buckets'), this.key('vol')],
      arguments: [
        String(seq),
        kind,
        isToken ? update.source : '',
        String(timeMs),
        String(value),
        lamports.toFixed(0),
        String(b),
        String(nowMs),
        String(windowMs),
        String(bucketMs),
        String(tokenTtlMs),
        JSON.stringify(facts),
        mint,
      ],
    });
    if (result === -1) return 'skipped';
    return result === 1 ? 'needs_metadata' : 'applied';
  }

  private async applyReplayed(
    seq: number,
    update: Extract<TradeUpdate, { kind: 'trade' | 'price' | 'sol_usd' }>,
  ): Promise<'skipped' | 'applied' | 'needs_metadata'> {
    const mint = update.kind === 'sol_usd' ? '' : update.mint;
    const value = update.kind === 'sol_usd' ? update.solUsd : update.priceSol;
    const lamports = update.kind === 'trade' ? update.volumeLamports : 0;
    const result = await this.redis.eval(APPLY_REPLAYED, {
      keys: [
        this.key('state'),
        this.key(`t:${mint}`),
        this.key(`rt:${mint}`),
        this.key(`rx:${mint}`),
        this.key(`rz:${mint}`),
        this.key('rvol'),
        this.key('rseen'),
        this.key('rsol'),
      ],
      arguments: [
        String(seq),
        update.kind,
        mint,
        String(update.timeMs),
        update.recordedTimeMs === null ? '' : update.recordedTimeMs.toFixed(0),
        String(value),
        lamports.toFixed(0),
        update.tradeId,
        String(this.options.tokenTtlMs),
        String(this.options.windowMs),
        JSON.stringify(update.kind === 'sol_usd' ? {} : factsFields(update.facts)),
        update.kind === 'sol_usd' ? '' : update.source,
      ],
    });
    if (result === -1) return 'skipped';
    return result === 1 ? 'needs_metadata' : 'applied';
  }

  /** Records what on-chain metadata said about a token (only fields not already known), or that it had none. */
  async setMetadata(mint: string, facts: TokenFacts | null): Promise<void> {
    const key = this.key(`t:${mint}`);
    if (!(await this.redis.exists(key))) return;
    const multi = this.redis.multi();
    for (const [k, v] of Object.entries(facts ? factsFields(facts) : {})) multi.hSetNX(key, k, v);
    multi.hSet(key, 'meta', facts ? 'rpc' : 'none');
    await multi.exec();
  }

  /** Moves buckets that left the window out of the ranking. @returns how many buckets were removed. */
  async roll(nowMs: number): Promise<number> {
    const cutoff = expiredBucketCutoff(nowMs, this.options.windowMs, this.options.bucketMs);
    let total = 0;
    for (;;) {
      const n = Number(
        await this.redis.eval(ROLL, { keys: [this.key('buckets'), this.key('vol')], arguments: [String(cutoff), this.options.prefix, String(ROLL_BATCH)] }),
      );
      total += n;
      if (n < ROLL_BATCH) return total;
    }
  }

  /** The stream's last live SOL/USD observation, or null. */
  async solUsd(): Promise<StoredSolUsd | null> {
    const [rate, at] = await this.redis.hmGet(this.key('state'), ['sol_usd', 'sol_usd_ms']);
    if (rate == null || at == null) return null;
    return { solUsd: Number(rate), observedAtMs: Number(at) };
  }

  /**
   * For each chain time in `atMs`, the replayed recording's latest SOL/USD observation at or before it
   * and at most `maxAgeMs` older (the live rule, in recording time), or null.
   */
  async replayedSolUsd(atMs: readonly number[], maxAgeMs: number): Promise<(StoredSolUsd | null)[]> {
    if (atMs.length === 0) return [];
    const multi = this.redis.multi();
    for (const at of atMs) multi.zRangeWithScores(this.key('rsol'), at, at - maxAgeMs, { BY: 'SCORE', REV: true, LIMIT: { offset: 0, count: 1 } } as never);
    const replies = (await multi.exec()) as unknown as { value: string; score: number }[][];
    return replies.map((r) => {
      const hit = r[0];
      if (!hit) return null;
      const solUsd = Number(String(hit.value).slice(0, String(hit.value).indexOf('|')));
      return Number.isFinite(solUsd) && solUsd > 0 ? { solUsd, observedAtMs: Number(hit.score) } : null;
    });
  }

  /**
   * The `limit` replayed tokens with the highest recording-time volume (module doc) among those with a
   * copy replayed after `nowMs` − window, highest first (ties by mint, descending). Tokens whose last
   * copy is older are dropped from the replayed ranking.
   */
  async topReplayed(limit: number, nowMs: number): Promise<ReplayedToken[]> {
    const stale = (await this.redis.zRangeByScore(this.key('rseen'), '-inf', nowMs - this.options.windowMs)) as string[];
    if (stale.length > 0) await this.redis.multi().zRem(this.key('rseen'), stale).zRem(this.key('rvol'), stale).exec();
    const ranked = await this.redis.zRangeWithScores(this.key('rvol'), 0, limit * 2 - 1, { REV: true } as never);
    if (ranked.length === 0) return [];
    const multi = this.redis.multi();
    for (const { value } of ranked) {
      multi.hGetAll(this.key(`t:${String(value)}`));
      multi.hGetAll(this.key(`rt:${String(value)}`));
      multi.zScore(this.key('rseen'), String(value));
    }
    const replies = (await multi.exec()) as unknown as unknown[];
    const out: ReplayedToken[] = [];
    const gone: string[] = [];
    ranked.forEach(({ value, score }, i) => {
      const mint = String(value);
      const identity = replies[i * 3] as Record<string, string> | undefined;
      const figures = replies[i * 3 + 1] as Record<string, string> | undefined;
      const seen = replies[i * 3 + 2] as number | string | null | undefined;
      const priceSol = Number(figures?.price);
      if (!identity || !figures || figures.price === undefined || seen == null || !Number.isFinite(priceSol)) {
        gone.push(mint);
        return;
      }
      out.push({
        mint,
        ...parseIdentity(identity),
        priceSol,
        volumeLamports: Number(score),
        recordedAtMs: figures.anchor === undefined ? null : Number(figures.anchor),
        thenPriceSol: figures.then === undefined ? null : Number(figures.then),
        replayedAtMs: Number(seen),
      });
    });
    if (gone.length > 0) await this.redis.zRem(this.key('rvol'), gone);
    return out.slice(0, limit);
  }

  /**
   * The `limit` tokens with the highest volume inside the window at `nowMs`, highest first (ties by
   * mint, descending), after rolling expired buckets out. Tokens whose state has expired are dropped.
   */
  async top(limit: number, nowMs: number): Promise<RankedToken[]> {
    await this.roll(nowMs);
    const ranked = await this.redis.zRangeWithScores(this.key('vol'), 0, limit * 2 - 1, { REV: true } as never);
    if (ranked.length === 0) return [];
    const multi = this.redis.multi();
    for (const { value } of ranked) {
      multi.hGetAll(this.key(`t:${String(value)}`));
      multi.hGetAll(this.key(`px:${String(value)}`));
    }
    const replies = (await multi.exec()) as unknown as Record<string, string>[];
    const out: RankedToken[] = [];
    const gone: string[] = [];
    ranked.forEach(({ value, score: rawScore }, i) => {
      const mint = String(value);
      const score = Number(rawScore);
      const fields = replies[i * 2] ?? {};
      const token = parseToken(mint, fields);
      if (!token) {
        gone.push(mint);
        return;
      }
      const closes = new Map<number, number>();
      for (const [b, v] of Object.entries(replies[i * 2 + 1] ?? {})) {
        const price = Number(v.slice(v.indexOf('|') + 1));
        if (Number.isFinite(price)) closes.set(Number(b), price);
      }
      out.push({ token, volumeLamports: score, closes });
    });
    if (gone.length > 0) await this.redis.zRem(this.key('vol'), gone);
    return out.slice(0, limit);
  }

  /** One token's state, or null. */
  async token(mint: string): Promise<TokenState | null> {
    return parseToken(mint, (await this.redis.hGetAll(this.key(`t:${mint}`))) as Record<string, string>);
  }

  /** A token's symbol and name as stored (`t:<mint>`: its CREATE or on-chain metadata), or null when neither is known. */
  async identity(mint: string): Promise<{ symbol: string | null; name: string | null } | null> {
    const [symbol, name] = (await this.redis.hmGet(this.key(`t:${mint}`), ['symbol', 'name'])) as Array<string | null>;
    return symbol == null && name == null ? null : { symbol: symbol ?? null, name: name ?? null };
  }

  /**
   * Takes or renews the consumer lease for `holder`.
   * @returns true while `holder` holds it.
   */
  async lease(holder: string, ttlMs: number): Promise<boolean> {
    const key = this.key('leader');
    if ((await this.redis.set(key, holder, { NX: true, PX: ttlMs } as never)) === 'OK') return true;
    return Number(await this.redis.eval(RENEW, { keys: [key], arguments: [holder, String(ttlMs)] })) === 1;
  }

  /** Gives the lease up if `holder` holds it. */
  async releaseLease(holder: string): Promise<void> {
    await this.redis.eval(RELEASE, { keys: [this.key('leader')], arguments: [holder] });
  }
}

function factsFields(facts: TokenFacts): Record<string, string> {
  const out: Record<string, string> = {};
  if (facts.symbol !== undefined) out.symbol = facts.symbol;
  if (facts.name !== undefined) out.name = facts.name;
  if (facts.decimals !== undefined) out.decimals = String(facts.decimals);
  if (facts.supplyRaw !== undefined) out.supply = facts.supplyRaw.toString();
  return out;
}

function parseIdentity(f: Record<string, string>): TokenIdentity {
  return {
    source: f.source ?? 'unknown',
    symbol: f.symbol ?? null,
    name: f.name ?? null,
    decimals: f.decimals === undefined ? null : Number(f.decimals),
    supplyRaw: f.supply === undefined ? null : BigInt(f.supply),
  };
}

function parseToken(mint: string, f: Record<string, string>): TokenState | null {
  if (f.price_sol === undefined || f.last_ms === undefined) return null;
  const priceSol = Number(f.price_sol);
  const lastTradeMs = Number(f.last_ms);
  if (!Number.isFinite(priceSol) || !Number.isFinite(lastTradeMs)) throw new StoreError(`token ${mint}: unreadable price_sol/last_ms`);
  return { mint, ...parseIdentity(f), priceSol, lastTradeMs };
}

function escapeGlob(s: string): string {
  return s.replace(/[*?[\]\\]/g, '\\$&');
}
