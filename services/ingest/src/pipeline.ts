/**
 * What ingest does to every transaction before publishing its trades, as one object shared by the
 * service (app.ts: live and replay) and `npm run decode` (scripts/decode.ts), so a developer checking
 * a transaction sees the message a subscriber receives: decode (decode/index.ts `decodeNormalized`,
 * with the token-name cache), then the derived fields (decode/derived.ts: market cap, bonding-curve
 * progress, USD prices from the SOL/USD reference, LaunchLab pool supplies from earlier CREATEs).
 * State (caches, the SOL/USD window) lives as long as the pipeline: give it transactions in chain order.
 */
import type { z } from 'zod';
import { IngestConfigSchema } from './config.js';
import { createDeriver, type Deriver, type UsdReference } from './decode/derived.js';
import { decodeNormalized, TokenNameCache, type DecodeOptions, type NormalizedTransaction, type TradeMessage, type UnknownItem } from './decode/index.js';

/**
 * The ingest config keys the pipeline reads, with ingest's defaults and checks (config.ts):
 * LETSBONK_PLATFORM_CONFIGS, TOKEN_NAME_CACHE_MAX_ENTRIES, LAUNCHLAB_SUPPLY_CACHE_MAX_ENTRIES and the
 * SOL/USD reference's SOL_USD_FALLBACK, SOL_USD_MIN_SWAP_SOL, SOL_USD_WINDOW, SOL_USD_MAX_AGE_MS.
 * `npm run decode` parses the environment with it, so the CLI follows the same settings as ingest.
 */
export const TradePipelineConfigSchema = IngestConfigSchema.pick({
  LETSBONK_PLATFORM_CONFIGS: true,
  TOKEN_NAME_CACHE_MAX_ENTRIES: true,
  LAUNCHLAB_SUPPLY_CACHE_MAX_ENTRIES: true,
  SOL_USD_FALLBACK: true,
  SOL_USD_MIN_SWAP_SOL: true,
  SOL_USD_WINDOW: true,
  SOL_USD_MAX_AGE_MS: true,
});

/**
 * The keys of {@link TradePipelineConfigSchema}, each optional (absent = ingest's default): a subset of
 * `IngestConfig`, so ingest passes its own config, and tests pass only what they change.
 */
export type TradePipelineConfig = {
  readonly [K in keyof z.infer<typeof TradePipelineConfigSchema>]?: z.infer<typeof TradePipelineConfigSchema>[K] | undefined;
};

/** Hooks of {@link createTradePipeline}. */
export interface TradePipelineHooks {
  /** The decoder's report of what a known program's IDL lacks (ingest: createUnknownReporter). */
  onUnknown?: ((item: UnknownItem) => void) | undefined;
}

/** One process's decode-and-derive state, see the module doc. */
export interface TradePipeline {
  /** The decoder's options: LetsBonk platform configs, the token-name cache, the unknown hook (replay's loadRecording takes them). */
  readonly decodeOptions: DecodeOptions;
  /** The derived-field step alone, for messages already decoded with {@link decodeOptions} (replay). */
  readonly derive: Deriver;
  /**
   * Decodes one transaction and adds the derived fields to its messages: what ingest publishes for it.
   * `atMs`: when the transaction is taken to be observed, ms since the epoch (live: now; replay and
   * `npm run decode`: its block time), against which the SOL/USD stream rate's age is checked.
   * Returns [] for a failed transaction or one without trades; never throws for a well-formed transaction.
   */
  process(tx: NormalizedTransaction, atMs: number): TradeMessage[];
  /** The SOL/USD rate messages observed at `atMs` are priced with now; undefined = none (no USD fields). */
  solUsdAt(atMs: number): UsdReference | undefined;
}

/**
 * Builds the pipeline from ingest's config keys (see {@link TradePipelineConfigSchema}; an absent key takes
 * ingest's default).
 * @throws RangeError on a non-positive cache bound, SOL/USD window or fallback (the config schema refuses them first).
 */
export function createTradePipeline(config: TradePipelineConfig, hooks: TradePipelineHooks = {}): TradePipeline {
  const decodeOptions: DecodeOptions = {
    ...(config.LETSBONK_PLATFORM_CONFIGS ? { letsbonkPlatformConfigs: new Set(config.LETSBONK_PLATFORM_CONFIGS) } : {}),
    // One cache for the pipeline's life: a CREATE names the token's later trades.
    tokenNames: new TokenNameCache(config.TOKEN_NAME_CACHE_MAX_ENTRIES),
    ...(hooks.onUnknown ? { onUnknown: hooks.onUnknown } : {}),
  };
  // SOL/USD for price_usd / market_cap_usd: our own WSOL/USDC and WSOL/USDT swaps, else the configured fallback.
  const deriver = createDeriver({
    fallbackUsdPerSol: config.SOL_USD_FALLBACK,
    minSwapLamports: config.SOL_USD_MIN_SWAP_SOL === undefined ? undefined : BigInt(Math.round(config.SOL_USD_MIN_SWAP_SOL * 1e9)),
    windowSize: config.SOL_USD_WINDOW,
    maxStreamAgeMs: config.SOL_USD_MAX_AGE_MS,
    launchlabSupplyCacheMaxEntries: config.LAUNCHLAB_SUPPLY_CACHE_MAX_ENTRIES,
  });
  return {
    decodeOptions,
    derive: deriver,
    process(tx, atMs) {
      const messages = decodeNormalized(tx, decodeOptions);
      deriver(messages, atMs);
      return messages;
    },
    solUsdAt: (atMs) => deriver.solUsdAt(atMs),
  };
}
