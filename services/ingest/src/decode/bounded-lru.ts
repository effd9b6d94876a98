/**
 * A string-keyed map with a bound on its size that forgets the least recently used key first: the
 * per-token and per-pool facts ingest remembers from one transaction for the trades of later ones
 * (token names, token-names.ts; LaunchLab pool supplies, pool-supplies.ts). Not persisted.
 */
export class BoundedLruMap<V> {
  /** The most keys held; one more evicts the least recently used. */
  readonly maxEntries: number;
  // A Map keeps insertion order: a hit is re-inserted at the end, so the first key is the oldest.
  readonly #entries = new Map<string, V>();

  /** @throws RangeError when `maxEntries` is not a positive safe integer. */
  constructor(maxEntries: number) {
    if (!Number.isSafeInteger(maxEntries) || maxEntries < 1) throw new RangeError(`maxEntries must be a positive integer, got ${maxEntries}`);
    this.maxEntries = maxEntries;
  }

  /** Keys held now. */
  get size(): number {
    return this.#entries.size;
  }

  /** The value of `key`, or undefined when it was never set (or was evicted). Marks it recently used. */
  get(key: string): V | undefined {
    const hit = this.#entries.get(key);
    if (hit !== undefined) {
      this.#entries.delete(key);
      this.#entries.set(key, hit);
    }
    return hit;
  }

  /** Sets `key` (replacing its value) as the most recently used, evicting the least recently used key beyond the bound. */
  set(key: string, value: V): void {
    this.#entries.delete(key);
    this.#entries.set(key, value);
    if (this.#entries.size > this.maxEntries) {
      const oldest = this.#entries.keys().next();
      if (!oldest.done) this.#entries.delete(oldest.value);
    }
  }
}
