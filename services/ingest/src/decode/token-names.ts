/**
 * Token names and symbols ingest has seen in pump.fun CREATE messages, so that later trades of the
 * same mint (in other transactions) can carry them (`symbol` / `name`, and `data.symbol` on
 * basic.pumpfun). Bounded: the least recently used mint is forgotten first.
 */

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
 * (a Map keeps insertion order: a hit is re-inserted at the end, the first key is the oldest).
 * Filled by `decodeNormalized` from every successful pump.fun CREATE it decodes; read when a
 * pump.fun or PumpSwap trade is built. Not persisted: after a restart, tokens created before it
 * are unknown until their metadata arrives another way (their `symbol` is then null / absent).
 */
export class TokenNameCache {
  readonly maxEntries: number;
  readonly #entries = new Map<string, TokenName>();

  /** @throws RangeError when `maxEntries` is not a positive integer. */
  constructor(maxEntries: number = DEFAULT_TOKEN_NAME_CACHE_MAX_ENTRIES) {
    if (!Number.isSafeInteger(maxEntries) || maxEntries < 1) throw new RangeError(`maxEntries must be a positive integer, got ${maxEntries}`);
    this.maxEntries = maxEntries;
  }

  /** Mints held now. */
  get size(): number {
    return this.#entries.size;
  }

  /** The name and symbol of `mint`, or undefined when no CREATE of it was seen (or it was evicted). Marks it recently used. */
  get(mint: string): TokenName | undefined {
    const hit = this.#entries.get(mint);
    if (hit !== undefined) {
      this.#entries.delete(mint);
      this.#entries.set(mint, hit);
    }
    return hit;
  }

  /** Records `mint`'s name and symbol (a later CREATE of the same mint replaces them), evicting the least recently used mint beyond the bound. */
  set(mint: string, name: TokenName): void {
    this.#entries.delete(mint);
    this.#entries.set(mint, name);
    if (this.#entries.size > this.maxEntries) {
      const oldest = this.#entries.keys().next();
      if (!oldest.done) this.#entries.delete(oldest.value);
    }
  }
}
