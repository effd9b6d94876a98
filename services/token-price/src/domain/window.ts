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
  /** When the stream observation was made (Unix ms; for replayed rows the recording's chain time); null for config/none. */
  readonly observedAtMs: number | null;
}

/**
 * Chooses the SOL/USD rate: the stream's latest observation while it is at most `maxAgeMs` old at
 * `nowMs`, else `configured` (SOL_USD_PRICE), else none.
 */
export function chooseSolUsd(
  stream: { solUsd: number; observedAtMs: number } | null,
  configured: number | undefined,
  nowMs: number,
  maxAgeMs: number,
): SolUsdRate {
  if (stream && nowMs - stream.observedAtMs <= maxAgeMs) return { solUsd: stream.solUsd, source: 'stream', observedAtMs: stream.observedAtMs };
  if (configured !== undefined) return { solUsd: configured, source: 'config', observedAtMs: null };
  return { solUsd: null, source: null, observedAtMs: null };
}

/** What is known of a token itself (from its CREATE, a pump.fun COMPLETE/MIGRATE, or on-chain metadata). */
export interface TokenIdentity {
  /** The source (program) of its first message: pumpfun, bonk, pumpswap, raydium_cpmm. */
  readonly source: string;
  /** null: never seen created and no metadata found. */
  readonly symbol: string | null;
  readonly name: string | null;
  readonly decimals: number | null;
  /** Total supply in base units. */
  readonly supplyRaw: bigint | null;
}

/** A live token as kept in the store. */
export interface TokenState extends TokenIdentity {
  readonly mint: string;
  /** Last price, SOL per whole token. */
  readonly priceSol: number;
  /** Last trade time, Unix ms. */
  readonly lastTradeMs: number;
}

/** A replayed token as kept in the store: its figures in the recording's own time (docs/token-price.md). */
export interface ReplayedToken extends TokenIdentity {
  readonly mint: string;
  /** Price of its last recorded trade, SOL per whole token. */
  readonly priceSol: number;
  /** Lamports of its distinct recorded trades in the 24 h of chain time up to `recordedAtMs` (and those without a time). */
  readonly volumeLamports: number;
  /** Chain time of its latest recorded trade, Unix ms; null when no recorded trade has a time. */
  readonly recordedAtMs: number | null;
  /** Its last recorded price at or before `recordedAtMs` − 24 h, SOL; null when the recording has none. */
  readonly thenPriceSol: number | null;
  /** When its latest replayed copy entered the stream, Unix ms. */
  readonly replayedAtMs: number;
}

/**
 * One row of `GET /api/birdeye/tokens`: the product's live token row (`symbol, name, price,
 * marketCap, volume, change, timestamp`) plus what makes our own figures honest. `price`,
 * `marketCap` and `volume` are USD, null when no SOL/USD rate is known (the SOL figures are always
 * set for our own rows); `change` is null when no price 24 h before is known; `marketCap*` is null
 * when the supply is unknown; `symbol`/`name` are null when the token was never seen created and no
 * metadata was found (show `mint` as an address then).
 */
export interface TokenRow {
  /** SPL mint address (base58). */
  readonly mint: string;
  readonly symbol: string | null;
  readonly name: string | null;
  /** USD per whole token. */
  readonly price: number | null;
  /** USD: price × total supply. */
  readonly marketCap: number | null;
  /** USD traded in the 24 h window. */
  readonly volume: number | null;
  /** Price change over 24 h, percent. */
  readonly change: number | null;
  /** Last trade on our stream, Unix ms (replayed rows: when the latest copy was replayed). */
  readonly timestamp: number | null;
  readonly priceSol: number | null;
  readonly marketCapSol: number | null;
  readonly volumeSol: number | null;
  readonly usdSource: UsdSource;
  /** The SOL/USD rate the USD figures use (USD per SOL); null without one. */
  readonly solUsd: number | null;
  /** When that rate was observed on the stream (Unix ms; replayed rows: the recording's chain time); null for config, Birdeye or none. */
  readonly solUsdObservedAt: number | null;
  /** The figures come from ingest's replay of a recording (local stack), not from live trades. */
  readonly replayed: boolean;
  /** Replayed rows: chain time of the token's latest recorded trade, Unix ms (null when unknown); null for live rows. */
  readonly recordedAt: number | null;
}

function supplyOf(token: TokenIdentity): number | null {
  return token.supplyRaw !== null && token.decimals !== null ? Number(token.supplyRaw) / 10 ** token.decimals : null;
}

function figures(token: TokenIdentity & { mint: string }, priceSol: number, volumeLamports: number, then: number | null, rate: SolUsdRate) {
  const supply = supplyOf(token);
  const marketCapSol = supply === null ? null : priceSol * supply;
  const volumeSol = volumeLamports / LAMPORTS_PER_SOL;
  const usd = (sol: number | null): number | null => (sol === null || rate.solUsd === null ? null : sol * rate.solUsd);
  return {
    mint: token.mint,
    symbol: token.symbol,
    name: token.name,
    price: usd(priceSol),
    marketCap: usd(marketCapSol),
    volume: usd(volumeSol),
    change: then === null ? null : ((priceSol - then) / then) * 100,
    priceSol,
    marketCapSol,
    volumeSol,
    usdSource: rate.source,
    solUsd: rate.solUsd,
    solUsdObservedAt: rate.observedAtMs,
  };
}

/**
 * Builds a live row from a token's state, its 24 h volume and its bucket closes.
 * @param volumeLamports volume inside the window, lamports.
 */
export function toRow(
  token: TokenState,
  volumeLamports: number,
  closes: ReadonlyMap<number, number>,
  rate: SolUsdRate,
  nowMs: number,
  windowMs: number,
  bucketMs: number,
): TokenRow {
  const then = priceAtWindowStart(closes, nowMs, windowMs, bucketMs);
  return { ...figures(token, token.priceSol, volumeLamports, then, rate), timestamp: token.lastTradeMs, replayed: false, recordedAt: null };
}

/**
 * Builds a replayed row: figures in recording time (the 24 h up to the token's latest recorded trade),
 * `change` against the recording's own price 24 h before that, `timestamp` = when the latest copy was replayed.
 */
export function toReplayedRow(token: ReplayedToken, rate: SolUsdRate): TokenRow {
  return {
    ...figures(token, token.priceSol, token.volumeLamports, token.thenPriceSol, rate),
    timestamp: token.replayedAtMs,
    replayed: true,
    recordedAt: token.recordedAtMs,
  };
}
