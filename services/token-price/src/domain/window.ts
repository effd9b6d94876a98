/**
 * Pure: the rolling 24 h window and the ticker rows. No I/O.
 *
 * Time is cut into buckets of `bucketMs` (default one minute). A bucket [b, b + bucketMs) counts
 * toward "the last 24 h" at time `now` while it ends after `now − windowMs`, so a trade at t leaves the
 * 24 h volume between t + 24 h and t + 24 h + bucketMs: the window is exact to one bucket.
 */

/** The ticker's window: 24 h (the product's "24 h volume" and "24 h change"). */
export const WINDOW_MS = 24 * 60 * 60 * 1000;
const LAMPORTS_PER_SOL = 1e9;

/** Start of the bucket holding `timeMs`. */
export function bucketStart(timeMs: number, bucketMs: number): number {
  return Math.floor(timeMs / bucketMs) * bucketMs;
}

/** Buckets starting at or before this time are out of the window at `nowMs`. */
export function expiredBucketCutoff(nowMs: number, windowMs: number, bucketMs: number): number {
  return nowMs - windowMs - bucketMs;
}

/** Whether bucket `b` still counts at `nowMs`. */
export function bucketInWindow(b: number, nowMs: number, windowMs: number, bucketMs: number): boolean {
  return b > expiredBucketCutoff(nowMs, windowMs, bucketMs);
}

/**
 * The price 24 h ago: the close of the latest bucket that lies wholly before the window, i.e. the last
 * price known at `nowMs − windowMs` (to one bucket). null when no such bucket is kept, i.e. the token's
 * first known price is inside the window.
 * @param closes bucket start (ms) → last price in that bucket (SOL per token).
 */
export function priceAtWindowStart(closes: ReadonlyMap<number, number>, nowMs: number, windowMs: number, bucketMs: number): number | null {
  let best: number | null = null;
  let price: number | null = null;
  for (const [b, p] of closes) {
    if (bucketInWindow(b, nowMs, windowMs, bucketMs)) continue;
    if (best === null || b > best) {
      best = b;
      price = p;
    }
  }
  return price;
}

/** Where a row's USD figures come from. */
export type UsdSource = 'stream' | 'config' | 'birdeye' | null;

/** The SOL/USD rate in force: from the stream while fresh, else configuration, else none. */
export interface SolUsdRate {
  /** USD per SOL; null when unknown. */
  readonly solUsd: number | null;
  readonly source: UsdSource;
  /** When the stream observation was made (Unix ms); null for config/none. */
  readonly observedAtMs: number | null;
}

/**
 * Chooses the SOL/USD rate: the stream's latest observation while it is at most `maxAgeMs` old at
 * `nowMs`, else `configured` (SOL_USD_PRICE), else none.
 */
export function chooseSolUsd(stream: { solUsd: number; observedAtMs: number } | null, configured: number | undefined, nowMs: number, maxAgeMs: number): SolUsdRate {
  if (stream && nowMs - stream.observedAtMs <= maxAgeMs) return { solUsd: stream.solUsd, source: 'stream', observedAtMs: stream.observedAtMs };
  if (configured !== undefined) return { solUsd: configured, source: 'config', observedAtMs: null };
  return { solUsd: null, source: null, observedAtMs: null };
}

/** A token as kept in the store. */
export interface TokenState {
  readonly mint: string;
  readonly source: string;
  readonly symbol: string | null;
  readonly name: string | null;
  readonly decimals: number | null;
  /** Total supply in base units. */
  readonly supplyRaw: bigint | null;
  /** Last price, SOL per whole token. */
  readonly priceSol: number;
  /** Last trade time, Unix ms. */
  readonly lastTradeMs: number;
  readonly replayed: boolean;
}

/**
 * One row of `GET /api/birdeye/tokens`: Birdeye's token-list shape (`symbol, name, price, marketCap,
 * volume, change, timestamp`) plus what makes our own figures honest. USD fields are null when no
 * SOL/USD rate is known; `change` is null when no price 24 h ago is known; `marketCap*` is null when
 * the supply is unknown.
 */
export interface TokenRow {
  readonly mint: string;
  readonly symbol: string;
  readonly name: string;
  /** USD per token. */
  readonly price: number | null;
  /** USD: price × total supply. */
  readonly marketCap: number | null;
  /** USD traded in the last 24 h. */
  readonly volume: number | null;
  /** Price change over 24 h, percent. */
  readonly change: number | null;
  /** Last trade time, Unix ms. */
  readonly timestamp: number | null;
  readonly priceSol: number | null;
  readonly marketCapSol: number | null;
  readonly volumeSol: number | null;
  readonly usdSource: UsdSource;
  /** The figures come from the replayed recording (local stack), not from live trades. */
  readonly replayed: boolean;
}

/** The label of a token whose name and symbol are unknown: its mint, shortened (`AbCd…WxYz`). */
export function shortMint(mint: string): string {
  return mint.length <= 10 ? mint : `${mint.slice(0, 4)}…${mint.slice(-4)}`;
}

/**
 * Builds a row from a token's state, its 24 h volume and its bucket closes.
 * @param volumeLamports volume inside the window, lamports.
 */
export function toRow(token: TokenState, volumeLamports: number, closes: ReadonlyMap<number, number>, rate: SolUsdRate, nowMs: number, windowMs: number, bucketMs: number): TokenRow {
  const then = priceAtWindowStart(closes, nowMs, windowMs, bucketMs);
  const supply = token.supplyRaw !== null && token.decimals !== null ? Number(token.supplyRaw) / 10 ** token.decimals : null;
  const marketCapSol = supply === null ? null : token.priceSol * supply;
  const volumeSol = volumeLamports / LAMPORTS_PER_SOL;
  const usd = (sol: number | null): number | null => (sol === null || rate.solUsd === null ? null : sol * rate.solUsd);
  return {
    mint: token.mint,
    symbol: token.symbol ?? shortMint(token.mint),
    name: token.name ?? token.mint,
    price: usd(token.priceSol),
    marketCap: usd(marketCapSol),
    volume: usd(volumeSol),
    change: then === null ? null : ((token.priceSol - then) / then) * 100,
    timestamp: token.lastTradeMs,
    priceSol: token.priceSol,
    marketCapSol,
    volumeSol,
    usdSource: rate.source,
    replayed: token.replayed,
  };
}
