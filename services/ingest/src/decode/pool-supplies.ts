/**
 * LaunchLab pool supplies ingest has seen in pool CREATEs (initialize), so that the pool's later
 * trades, in other transactions, can carry `market_cap_sol` (basic.bonk): no LaunchLab trade event
 * states the supply, only the pool's CREATE does (docs/decoding.md "Derived fields"). Bounded: the
 * least recently used pool is forgotten first.
 */
import { BoundedLruMap } from './bounded-lru.js';

/** What a LaunchLab CREATE states of its pool's token: the total supply and the decimals it is counted in. */
export interface LaunchlabPoolSupply {
  /** `curve_param.data.supply`, base units of the pool's base mint. */
  readonly supply: bigint;
  /** `base_mint_param.decimals`: one whole token = 10^decimals base units. */
  readonly decimals: number;
}

/**
 * Default bound of {@link LaunchlabSupplyCache} (ingest config LAUNCHLAB_SUPPLY_CACHE_MAX_ENTRIES), pools.
 * LaunchLab launches (LetsBonk.fun and the other platforms on the program) run in the order of tens of
 * thousands a day at their busiest and most of a pool's trades come in its first hours, so 100 000
 * pools cover days of launches, as DEFAULT_TOKEN_NAME_CACHE_MAX_ENTRIES does for pump.fun mints. An
 * entry (a 44-character base58 key, a bigint and a number in a Map) is about 200 bytes: about 20 MB at
 * the bound.
 */
export const DEFAULT_LAUNCHLAB_SUPPLY_CACHE_MAX_ENTRIES = 100_000;

/**
 * pool_state (base58) → {@link LaunchlabPoolSupply}, at most `maxEntries` pools, least recently used
 * evicted first. Filled by `addDerivedFields` from every LaunchLab CREATE it sees (a CREATE the chain
 * did not back never reaches it); read for a LaunchLab BUY / SELL whose own transaction holds no CREATE
 * of its pool. Not persisted: after a restart, pools created before it get no `market_cap_sol` until
 * ingest sees their CREATE again (it never does on the live stream).
 */
export class LaunchlabSupplyCache extends BoundedLruMap<LaunchlabPoolSupply> {
  /** @throws RangeError when `maxEntries` is not a positive integer. */
  constructor(maxEntries: number = DEFAULT_LAUNCHLAB_SUPPLY_CACHE_MAX_ENTRIES) {
    super(maxEntries);
  }
}
