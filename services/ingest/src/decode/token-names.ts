/**
 * Token names and symbols ingest has seen in pump.fun CREATE messages, so that later trades of the
 * same mint (in other transactions) can carry them (`symbol` / `name`, and `data.symbol` on
 * basic.pumpfun). Bounded: the least recently used mint is forgotten first.
 */
import { BoundedLruMap } from './bounded-lru.js';

/** Name and symbol of a token as its create instruction stated them (absent when the create did not). */
export interface TokenName {
  readonly name?: string;
  readonly symbol?: string;
}

/**
 * Default bound of {@link TokenNameCache} (ingest config TOKEN_NAME_CACHE_MAX_ENTRIES). pump.fun
 * sees in the order of tens of thousands of creates a day and most of a token's trades come in its
 * first hours, so 100 000 mints cover several days of launches; an entry (a 44-character base58 key
 * and two short strings in a Map) is a few hundred bytes, about 30 MB at the bound.
 */
export const DEFAULT_TOKEN_NAME_CACHE_MAX_ENTRIES = 100_000;

/**
 * mint (base58) → {@link TokenName}, at most `maxEntries` mints, least recently used evicted first
 * ({@link BoundedLruMap}: `get` marks a mint recently used, `set` replaces and may evict).
 * Filled by `decodeNormalized` from every successful pump.fun CREATE it decodes; read when a
 * pump.fun or PumpSwap trade is built. Not persisted: after a restart, tokens created before it
 * are unknown until their metadata arrives another way (their `symbol` is then null / absent).
 */
export class TokenNameCache extends BoundedLruMap<TokenName> {
  /** @throws RangeError when `maxEntries` is not a positive integer. */
  constructor(maxEntries: number = DEFAULT_TOKEN_NAME_CACHE_MAX_ENTRIES) {
    super(maxEntries);
  }
}
