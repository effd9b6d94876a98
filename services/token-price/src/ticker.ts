/**
 * The ticker: top tokens by 24 h volume, from Birdeye when configured and answering, else from our
 * own store: live rows first (ranked by live 24 h volume), then replayed rows (ranked by their
 * recording-time volume; a mint with a live row is not repeated). Results are cached for at most
 * `cacheMs` per limit, and concurrent callers share one computation, so the cost under load is one
 * Redis round trip set per `cacheMs`.
 */
import type { Counter, Gauge } from 'prom-client';
import type { Logger } from '@tradewind/lib';
import type { BirdeyeClient } from './birdeye/birdeye.js';
import { chooseSolUsd, toReplayedRow, toRow, type SolUsdRate, type TokenRow } from './domain/window.js';
import type { TokenStore } from './store/redis-store.js';

/** A ticker answer: the rows and the SOL/USD rate of the live rows (each row states its own). */
export interface TickerResult {
  readonly rows: readonly TokenRow[];
  readonly rate: SolUsdRate;
}

/** Options of {@link createTicker}. */
export interface TickerOptions {
  readonly store: TokenStore;
  readonly logger: Logger;
  /** The service clock, ms since the epoch: the ticker's "now" for windows, ages and the cache. */
  readonly now: () => number;
  /** Cache lifetime, ms (≤ 1000), by {@link TickerOptions.now}. */
  readonly cacheMs: number;
  /** SOL_USD_PRICE: used when the stream has given no rate within `solUsdMaxAgeMs`. */
  readonly configuredSolUsd: number | undefined;
  /** How long a stream SOL/USD observation stays in force, ms. */
  readonly solUsdMaxAgeMs: number;
  /** Optional upstream (BIRDEYE_API_KEY set). */
  readonly birdeye?: BirdeyeClient | undefined;
  readonly metrics: {
    /** upstream="birdeye", outcome = ok | timeout | http | unreachable | malformed | unsuccessful. */
    readonly upstream: Counter<'upstream' | 'outcome'>;
    /** The SOL/USD rate last served, by source. */
    readonly solUsd: Gauge<'source'>;
  };
}

/** The ticker. `list` throws what the store throws (Redis unreachable) when Birdeye cannot answer either. */
export interface Ticker {
  list(limit: number): Promise<TickerResult>;
}

/** Creates the ticker. */
export function createTicker(options: TickerOptions): Ticker {
  const cache = new Map<number, { at: number; result: Promise<TickerResult> }>();
  const log = options.logger.child({ component: 'ticker' });

  async function own(limit: number): Promise<TickerResult> {
    const now = options.now();
    const { windowMs, bucketMs } = options.store.options;
    const [ranked, replayed, stream] = await Promise.all([options.store.top(limit, now), options.store.topReplayed(limit, now), options.store.solUsd()]);
    const rate = chooseSolUsd(stream, options.configuredSolUsd, now, options.solUsdMaxAgeMs);
    options.metrics.solUsd.reset();
    if (rate.solUsd !== null && rate.source !== null) options.metrics.solUsd.set({ source: rate.source }, rate.solUsd);
    const rows = ranked.map((r) => toRow(r.token, r.volumeLamports, r.closes, rate, now, windowMs, bucketMs));
    const live = new Set(rows.map((r) => r.mint));
    const more = replayed.filter((t) => !live.has(t.mint)).slice(0, Math.max(0, limit - rows.length));
    // A replayed row is priced with the recording's SOL/USD at its own chain time (same age rule as live), else configuration.
    const dated = more.map((t) => t.recordedAtMs);
    const recordedRates = await options.store.replayedSolUsd(
      dated.filter((t): t is number => t !== null),
      options.solUsdMaxAgeMs,
    );
    let next = 0;
    for (const t of more) {
      const observed = t.recordedAtMs === null ? null : (recordedRates[next++] ?? null);
      const replayRate: SolUsdRate = observed
        ? { solUsd: observed.solUsd, source: 'stream', observedAtMs: observed.observedAtMs }
        : chooseSolUsd(null, options.configuredSolUsd, now, options.solUsdMaxAgeMs);
      rows.push(toReplayedRow(t, replayRate));
    }
    return { rows, rate };
  }

  async function compute(limit: number): Promise<TickerResult> {
    if (options.birdeye) {
      try {
        const tokens = await options.birdeye.listTokens(limit);
        options.metrics.upstream.inc({ upstream: 'birdeye', outcome: 'ok' });
        return {
          rate: { solUsd: null, source: 'birdeye', observedAtMs: null },
          rows: tokens.slice(0, limit).map((t) => ({
            mint: t.mint,
            symbol: t.symbol,
            name: t.name,
            price: t.price,
            marketCap: t.marketCap,
            volume: t.volume,
            change: t.change,
            timestamp: t.timestamp,
            priceSol: null,
            marketCapSol: null,
            volumeSol: null,
            usdSource: 'birdeye',
            solUsd: null,
            solUsdObservedAt: null,
            replayed: false,
            recordedAt: null,
          })),
        };
      } catch (err) {
        const reason = (err as { reason?: string }).reason ?? 'unreachable';
        options.metrics.upstream.inc({ upstream: 'birdeye', outcome: reason });
        log.warn({ reason, err: { message: (err as Error).message } }, 'Birdeye failed; serving our own figures');
      }
    }
    return own(limit);
  }

  return {
    list(limit) {
      // The service clock (injectable), like the data: a test can hold it still and step it.
      const now = options.now();
      const hit = cache.get(limit);
      if (hit && now - hit.at < options.cacheMs) return hit.result;
      const result = compute(limit);
      cache.set(limit, { at: now, result });
      // A failure is not cached: the next call tries again.
      result.catch(() => {
        if (cache.get(limit)?.result === result) cache.delete(limit);
      });
      return result;
    },
  };
}
