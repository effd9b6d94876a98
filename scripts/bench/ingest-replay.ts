/**
 * The trades ingest's replay source publishes, built here as ingest builds them, for the ingest bench
 * (scripts/bench/ingest.ts): its broker baseline publishes exactly these messages, and its order check
 * compares what TRADES stored with one replay pass's order.
 *
 * As services/ingest/src/app.ts does with its default config (loadIngestConfig of an environment with only
 * INGEST_SOURCE=replay): loadRecording of REPLAY_DIR with the LetsBonk platform configs and a token-name
 * cache, then the derived fields once per recorded transaction at its block time (createDeriver with the
 * SOL/USD settings), in replay order. Each publish is then a `replayCopy` (replay/replay-source.ts) of a trade,
 * JSON text as its body, on `subjectOf(trade)`, copied to the trade's per-mint subjects (mintSubjectsOf).
 */
import type { TradesStreamOptions } from '@tradewind/lib';
import { TokenNameCache, createDeriver, loadIngestConfig, loadRecording, messageId, subjectOf, type TradeMessage } from '@tradewind/ingest';
import { mintSubjectsOf } from '@tradewind/ingest/mint-subjects';

/** One replay pass of the recording, as ingest publishes it. */
export interface BenchReplay {
  /** Every trade of one pass, in the order ingest publishes them (recorded transactions in replay order, trades in instruction order). */
  readonly trades: readonly TradeMessage[];
  /** `messageId(trade)` of each trade of {@link trades}, same order: `<signature>:<instruction path>[:COMPLETE]`. */
  readonly passOrder: readonly string[];
  /** Per trade of {@link trades}: its TRADES subject. */
  readonly subjects: readonly string[];
  /** Per trade of {@link trades}: the core NATS subjects ingest copies it to (`<subject>.mint.<mint>`). */
  readonly mintSubjects: readonly (readonly string[])[];
  /** Recorded transactions the pass holds. */
  readonly transactions: number;
  /** Recorded files ingest would skip (not decodable). */
  readonly problems: number;
}

/** ingest's configuration with nothing set but the replay source (what the bench's ingest child runs with, apart from pace and loop). */
export function ingestDefaults() {
  return loadIngestConfig({ INGEST_SOURCE: 'replay' });
}

/**
 * TRADES' settings as ingest creates the stream with its default config (TRADES_MAX_AGE_MS,
 * TRADES_DUPLICATE_WINDOW_MS, TRADES_MAX_BYTES) and `replicas` (NATS_STREAM_REPLICAS).
 */
export function ingestStreamOptions(replicas: number): TradesStreamOptions {
  const c = ingestDefaults();
  return { maxAgeMs: c.TRADES_MAX_AGE_MS, duplicateWindowMs: c.TRADES_DUPLICATE_WINDOW_MS, maxBytes: c.TRADES_MAX_BYTES, replicas };
}

/**
 * Loads and decodes the recording at ingest's default REPLAY_DIR (the bundled one) as ingest's replay does.
 * @throws Error when the recording holds no trade, or two trades of a pass share a message id (the order check needs them unique).
 */
export async function loadBenchReplay(): Promise<BenchReplay> {
  const config = ingestDefaults();
  const { transactions, problems } = await loadRecording(config.REPLAY_DIR, {
    letsbonkPlatformConfigs: new Set(config.LETSBONK_PLATFORM_CONFIGS),
    tokenNames: new TokenNameCache(config.TOKEN_NAME_CACHE_MAX_ENTRIES),
  });
  const derive = createDeriver({
    fallbackUsdPerSol: config.SOL_USD_FALLBACK,
    minSwapLamports: config.SOL_USD_MIN_SWAP_SOL === undefined ? undefined : BigInt(Math.round(config.SOL_USD_MIN_SWAP_SOL * 1e9)),
    windowSize: config.SOL_USD_WINDOW,
    maxStreamAgeMs: config.SOL_USD_MAX_AGE_MS,
  });
  for (const t of transactions) derive(t.trades, t.trades[0]?.block_time_ms ?? Date.now());
  const trades = transactions.flatMap((t) => t.trades);
  if (trades.length === 0) throw new Error(`the recording at ${config.REPLAY_DIR} holds no decodable trade`);
  const passOrder = trades.map(messageId);
  if (new Set(passOrder).size !== passOrder.length) throw new Error('two trades of the recording share a message id');
  return {
    trades,
    passOrder,
    subjects: trades.map(subjectOf),
    mintSubjects: trades.map((t) => mintSubjectsOf(subjectOf(t), t)),
    transactions: transactions.length,
    problems: problems.length,
  };
}
