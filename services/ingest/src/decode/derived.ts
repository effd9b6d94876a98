/**
 * Fields traders compute by hand (issue 22, part 3), added to decoded trade messages as a separate
 * step after `decodeNormalized`: `market_cap_sol`, `bonding_curve_progress`, and, when a SOL/USD
 * reference is known, `price_usd`, `market_cap_usd` and `usd_reference`. Every value is computed
 * from what the chain stated in the message (or in another message of the same transaction, or, for
 * a LaunchLab pool's supply, in its CREATE seen earlier); when an input is missing the field is
 * absent, never estimated. Formulas and sources: docs/decoding.md
 * "Derived fields".
 */
import { WSOL_MINT } from '@tradewind/contracts/subjects';
import type { DecodedValue } from './borsh-tolerant.js';
import { LaunchlabSupplyCache, type LaunchlabPoolSupply } from './pool-supplies.js';
import type { TradeMessage } from './types.js';

/**
 * pump.fun's total supply of every non-mayhem token, in base units: 1 000 000 000 tokens × 10^6.
 * Sources: the pump IDL (`@pump-fun/pump-sdk` 2.0.0 `src/idl/pump.json`) keeps one program-wide
 * `Global.token_total_supply` that every new curve mints (`src/bondingCurve.ts`: `tokenTotalSupply:
 * global.tokenTotalSupply`); the SDK's `src/fees.ts` names it `ONE_BILLION_SUPPLY =
 * 1_000_000_000_000_000` and uses it for every curve that is not in mayhem mode (`isMayhemMode ?
 * mintSupply : ONE_BILLION_SUPPLY`); every 2025+ CreateEvent of the bundled recording states
 * `token_total_supply: "1000000000000000"`.
 */
export const PUMPFUN_TOTAL_SUPPLY_RAW = 1_000_000_000_000_000n;
/** Decimals of every pump.fun mint (= decode/pumpfun.ts `PUMPFUN_TOKEN_DECIMALS`). */
const PUMPFUN_DECIMALS = 6;
/**
 * Real token reserves of a new pump.fun curve, in base units (793 100 000 tokens × 10^6): the
 * pump IDL's `Global.initial_real_token_reserves`, which `@pump-fun/pump-sdk` `src/bondingCurve.ts`
 * copies into a new curve (`realTokenReserves: global.initialRealTokenReserves`); every 2025+
 * CreateEvent of the bundled recording states `real_token_reserves: "793100000000000"`. The curve is
 * complete when its real token reserves reach 0 (the buy that empties them emits the CompleteEvent).
 */
export const PUMPFUN_INITIAL_REAL_TOKEN_RESERVES_RAW = 793_100_000_000_000n;

/** Circle's USDC mint on Solana mainnet (6 decimals). */
export const USDC_MINT = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';
/** Tether's USDT mint on Solana mainnet (6 decimals). */
export const USDT_MINT = 'Es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCe8BenwNYb';
/** Decimals of the USD stablecoin mints (both USDC and USDT mints have 6). */
const USD_STABLE_DECIMALS: ReadonlyMap<string, number> = new Map([
  [USDC_MINT, 6],
  [USDT_MINT, 6],
]);
const SOL_DECIMALS = 9;

/**
 * A SOL/USD rate and where it came from. `usd_per_sol`: US dollars per 1 SOL; `source`: `stream` (the
 * median of recent WSOL/USDC and WSOL/USDT swaps this ingest decoded, {@link SolUsdReference}) or
 * `config` (the operator's configured fallback); `observed_at_ms`: ms since the Unix epoch, the
 * block time of the newest swap used (stream) or when the fallback was set (config). Consumers
 * compute its age against the message's `block_time_ms`.
 */
export interface UsdReference {
  usd_per_sol: number;
  source: 'stream' | 'config';
  observed_at_ms: number;
}

/** What {@link addDerivedFields} needs besides the messages. */
export interface DerivedContext {
  /** The SOL/USD rate to price messages in USD with; absent = no USD fields at all. */
  solUsd?: UsdReference | undefined;
  /**
   * LaunchLab pool supplies from earlier transactions' CREATEs (ingest keeps one for its lifetime,
   * sized by LAUNCHLAB_SUPPLY_CACHE_MAX_ENTRIES): every LaunchLab CREATE of `messages` is added, and a
   * LaunchLab trade whose transaction holds no CREATE of its pool takes its supply from here. Absent =
   * only a CREATE in the same transaction gives a LaunchLab trade its market cap.
   */
  launchlabSupplies?: LaunchlabSupplyCache | undefined;
}

const num = (v: DecodedValue | undefined): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);
const raw = (v: DecodedValue | undefined): bigint | undefined => (typeof v === 'string' && /^[0-9]+$/.test(v) ? BigInt(v) : undefined);
const obj = (v: DecodedValue | undefined): Record<string, DecodedValue> | undefined =>
  typeof v === 'object' && v !== null && !Array.isArray(v) ? v : undefined;
const clampPercent = (x: number): number => Math.min(100, Math.max(0, x));
/** `part / whole × 100` computed on integers first (both < 2^64), clamped to 0–100. */
const percent = (part: bigint, whole: bigint): number => clampPercent((Number(part) / Number(whole)) * 100);

/** SOL per whole token the message states: `price_sol`, or (pump.fun CREATE) `data.price`, the curve's initial price; never negative. */
function solPrice(m: TradeMessage): number | undefined {
  const p = num(m.price_sol) ?? (m.source === 'pumpfun' ? num(m.data.price ?? undefined) : undefined);
  return p !== undefined && p >= 0 ? p : undefined;
}

/** What one transaction's creates state, for the trades in the same transaction. */
interface BatchFacts {
  /** pump.fun mint → CreateEvent `token_total_supply` and `real_token_reserves` (initial). */
  pumpfun: Map<string, { supply?: bigint; initialReal?: bigint }>;
  /** LaunchLab pool_state → CREATE `curve_param.data.supply` and `base_mint_param.decimals`. */
  launchlab: Map<string, LaunchlabPoolSupply>;
}

function batchFacts(messages: readonly TradeMessage[]): BatchFacts {
  const facts: BatchFacts = { pumpfun: new Map(), launchlab: new Map() };
  for (const m of messages) {
    if (m.transaction_type !== 'CREATE') continue;
    if (m.source === 'pumpfun') {
      const supply = raw(m.token_total_supply);
      const initialReal = raw(m.real_token_reserves);
      facts.pumpfun.set(m.mint, { ...(supply !== undefined ? { supply } : {}), ...(initialReal !== undefined ? { initialReal } : {}) });
    } else if (m.source === 'bonk') {
      const supply = raw(obj(obj(m.curve_param)?.data)?.supply);
      const decimals = num(obj(m.base_mint_param)?.decimals);
      if (supply !== undefined && decimals !== undefined) facts.launchlab.set(m.pool_state, { supply, decimals });
    }
  }
  return facts;
}

/** pump.fun: total supply (base units) of the message's mint, when the chain states or fixes it. */
function pumpfunSupply(m: TradeMessage & { source: 'pumpfun' }, facts: BatchFacts): bigint | undefined {
  const stated = raw(m.token_total_supply) ?? facts.pumpfun.get(m.mint)?.supply;
  if (stated !== undefined) return stated;
  // Mayhem-mode curves mint another supply (pump-sdk fees.ts); unknown unless a CreateEvent says it.
  if (m.mayhem_mode === true || m.is_mayhem_mode === true) return undefined;
  return PUMPFUN_TOTAL_SUPPLY_RAW;
}

/** pump.fun `bonding_curve_progress`, or undefined. */
function pumpfunProgress(m: TradeMessage & { source: 'pumpfun' }, facts: BatchFacts): number | undefined {
  if (m.transaction_type === 'COMPLETE') return 100;
  if (m.transaction_type !== 'BUY' && m.transaction_type !== 'SELL' && m.transaction_type !== 'CREATE') return undefined;
  const real = raw(m.real_token_reserves);
  if (real === undefined) return undefined;
  const initial = (m.transaction_type === 'CREATE' ? real : facts.pumpfun.get(m.mint)?.initialReal) ?? PUMPFUN_INITIAL_REAL_TOKEN_RESERVES_RAW;
  return initial > 0n ? percent(initial - real, initial) : undefined;
}

/** LaunchLab `bonding_curve_progress` = real_base_after / total_base_sell × 100, or undefined. */
function launchlabProgress(m: TradeMessage): number | undefined {
  if (m.transaction_type !== 'BUY' && m.transaction_type !== 'SELL') return undefined;
  const sold = raw(m.real_base_after);
  const total = raw(m.total_base_sell);
  return sold !== undefined && total !== undefined && total > 0n ? percent(sold, total) : undefined;
}

/**
 * Decimals of a PumpSwap message's base mint: the CreatePoolEvent's `base_mint_decimals`, else the
 * exponent the decoder divided the moved base amount by to get `token_amount_ui` (decimals from the
 * transaction's token balances), recovered as round(log10(raw / ui)).
 */
function pumpswapBaseDecimals(m: TradeMessage): number | undefined {
  const stated = num(m.base_mint_decimals);
  if (stated !== undefined) return stated;
  const ui = num(m.token_amount_ui);
  const moved = raw(m.transaction_type === 'BUY' || m.transaction_type === 'WITHDRAW' ? m.base_amount_out : m.base_amount_in);
  if (ui === undefined || ui <= 0 || moved === undefined || moved === 0n) return undefined;
  const d = Math.round(Math.log10(Number(moved) / ui));
  return d >= 0 && d <= 255 ? d : undefined;
}

/**
 * Total supply in whole tokens of the message's token, when the chain states it (LaunchLab: in this
 * transaction, else in an earlier CREATE held by `supplies`); else undefined.
 */
function supplyWhole(m: TradeMessage, facts: BatchFacts, supplies: LaunchlabSupplyCache | undefined): number | undefined {
  switch (m.source) {
    case 'pumpfun': {
      const s = pumpfunSupply(m, facts);
      return s === undefined ? undefined : Number(s) / 10 ** PUMPFUN_DECIMALS;
    }
    case 'bonk': {
      const f = facts.launchlab.get(m.pool_state) ?? supplies?.get(m.pool_state);
      return f === undefined ? undefined : Number(f.supply) / 10 ** f.decimals;
    }
    case 'pumpswap': {
      const s = raw(m.base_supply);
      const d = s === undefined ? undefined : pumpswapBaseDecimals(m);
      return s === undefined || d === undefined ? undefined : Number(s) / 10 ** d;
    }
    case 'raydium_cpmm':
      // No CPMM instruction or event states a mint's supply.
      return undefined;
  }
}

/**
 * Adds the derived fields to each message of ONE transaction (the array `decodeNormalized` returns),
 * in place, after every existing field (key order of existing fields is kept), in this order and
 * each only when its inputs are there:
 * - `market_cap_sol` (SOL, number) = SOL price per whole token × total supply in whole tokens;
 *   SOL-quoted messages whose token supply the chain states (pump.fun: CreateEvent
 *   `token_total_supply`, else {@link PUMPFUN_TOTAL_SUPPLY_RAW} for non-mayhem curves; LaunchLab:
 *   the pool CREATE's `curve_param` supply, from the same transaction or, through
 *   `context.launchlabSupplies`, an earlier one; PumpSwap: the event's `base_supply`; Raydium CPMM:
 *   never).
 * - `bonding_curve_progress` (percent, 0–100): pump.fun BUY / SELL / CREATE = (initial − real token
 *   reserves) / initial × 100 ({@link PUMPFUN_INITIAL_REAL_TOKEN_RESERVES_RAW}, or the same
 *   transaction's CreateEvent), COMPLETE = 100; LaunchLab BUY / SELL = real_base_after /
 *   total_base_sell × 100.
 * - with `context.solUsd`: `price_usd` = SOL price × usd_per_sol, `market_cap_usd` = market_cap_sol ×
 *   usd_per_sol, and `usd_reference` {usd_per_sol, source, observed_at_ms} (the rate used); only on
 *   messages with a SOL price.
 * Every LaunchLab CREATE among `messages` is recorded in `context.launchlabSupplies` first.
 * Never throws; a message that lacks an input simply gets fewer fields. Creator: not added here;
 * messages already carry it where the chain states it (pump.fun `creator`, PumpSwap `coin_creator`,
 * LaunchLab / CPMM CREATE `creator`).
 */
export function addDerivedFields(messages: readonly TradeMessage[], context: DerivedContext): void {
  const facts = batchFacts(messages);
  const supplies = context.launchlabSupplies;
  if (supplies) for (const [pool, supply] of facts.launchlab) supplies.set(pool, supply);
  const usd = context.solUsd;
  for (const m of messages) {
    const price = solPrice(m);
    let marketCap: number | undefined;
    if (price !== undefined) {
      const supply = supplyWhole(m, facts, supplies);
      if (supply !== undefined) marketCap = price * supply;
    }
    if (marketCap !== undefined) m.market_cap_sol = marketCap;
    const progress = m.source === 'pumpfun' ? pumpfunProgress(m, facts) : m.source === 'bonk' ? launchlabProgress(m) : undefined;
    if (progress !== undefined) m.bonding_curve_progress = progress;
    if (usd !== undefined && price !== undefined) {
      m.price_usd = price * usd.usd_per_sol;
      if (marketCap !== undefined) m.market_cap_usd = marketCap * usd.usd_per_sol;
      m.usd_reference = { usd_per_sol: usd.usd_per_sol, source: usd.source, observed_at_ms: usd.observed_at_ms };
    }
  }
}

/** One SOL/USD observation from a swap: US dollars per SOL and when (ms). */
export interface SolUsdObservation {
  usd_per_sol: number;
  observed_at_ms: number;
  /** SOL moved by the swap, lamports. */
  lamports: bigint;
}

/**
 * The SOL/USD price a swap realised, when it is a PumpSwap BUY / SELL or a Raydium CPMM SWAP between
 * WSOL and USDC or USDT: (USD raw / 10^6) / (SOL raw / 10^9), the amounts that left and reached the
 * user (PumpSwap `amountIn` / `amountOut` of `tokenIn` / `tokenOut`; CPMM `amount_in` / `amount_out`
 * of `input_mint` / `output_mint`), so fees are included (the rate is off mid by the pool fee).
 * `observed_at_ms` = the message's `block_time_ms`, else `fallbackMs`. Undefined for any other message.
 */
export function solUsdObservation(m: TradeMessage, fallbackMs: number): SolUsdObservation | undefined {
  let inMint: DecodedValue | undefined, outMint: DecodedValue | undefined, inAmt: DecodedValue | undefined, outAmt: DecodedValue | undefined;
  if (m.source === 'pumpswap' && (m.transaction_type === 'BUY' || m.transaction_type === 'SELL')) {
    [inMint, outMint, inAmt, outAmt] = [m.tokenIn, m.tokenOut, m.amountIn, m.amountOut];
  } else if (m.source === 'raydium_cpmm' && m.transaction_type === 'SWAP') {
    [inMint, outMint, inAmt, outAmt] = [m.input_mint, m.output_mint, m.amount_in, m.amount_out];
  } else {
    return undefined;
  }
  let lamports: bigint | undefined, usdRaw: bigint | undefined, usdDecimals: number | undefined;
  if (inMint === WSOL_MINT && typeof outMint === 'string' && USD_STABLE_DECIMALS.has(outMint)) {
    [lamports, usdRaw, usdDecimals] = [raw(inAmt), raw(outAmt), USD_STABLE_DECIMALS.get(outMint)];
  } else if (outMint === WSOL_MINT && typeof inMint === 'string' && USD_STABLE_DECIMALS.has(inMint)) {
    [lamports, usdRaw, usdDecimals] = [raw(outAmt), raw(inAmt), USD_STABLE_DECIMALS.get(inMint)];
  }
  if (lamports === undefined || usdRaw === undefined || usdDecimals === undefined || lamports === 0n || usdRaw === 0n) return undefined;
  const usdPerSol = Number(usdRaw) / 10 ** usdDecimals / (Number(lamports) / 10 ** SOL_DECIMALS);
  return { usd_per_sol: usdPerSol, observed_at_ms: m.block_time_ms ?? fallbackMs, lamports };
}

/** Default {@link SolUsdReferenceOptions.minSwapLamports}: 1 SOL. */
export const DEFAULT_SOL_USD_MIN_SWAP_LAMPORTS = 1_000_000_000n;
/** Default {@link SolUsdReferenceOptions.windowSize}: median of the last 15 qualifying swaps. */
export const DEFAULT_SOL_USD_WINDOW_SIZE = 15;
/** Default {@link SolUsdReferenceOptions.maxStreamAgeMs}: 5 minutes. */
export const DEFAULT_SOL_USD_MAX_STREAM_AGE_MS = 300_000;

/** Limits of {@link SolUsdReference}; every one has a default. */
export interface SolUsdReferenceOptions {
  /** Configured fallback, US dollars per SOL, used when no recent stream rate exists; absent = none (no USD fields then). */
  fallbackUsdPerSol?: number | undefined;
  /** When the fallback was set, ms since the epoch (its `observed_at_ms`); default: construction time. */
  fallbackSetAtMs?: number | undefined;
  /** Swaps moving less SOL than this are ignored (dust swaps round badly and are cheap to skew). */
  minSwapLamports?: bigint | undefined;
  /** The stream rate is the median of this many latest qualifying swaps (one odd swap cannot move it). */
  windowSize?: number | undefined;
  /** A stream rate whose newest swap is older than this (vs `current(nowMs)`) is not used. */
  maxStreamAgeMs?: number | undefined;
}

/**
 * SOL/USD from our own stream: fed with every decoded transaction's messages ({@link observe}), it
 * keeps the latest {@link SolUsdReferenceOptions.windowSize} WSOL/USDC and WSOL/USDT swaps of at
 * least {@link SolUsdReferenceOptions.minSwapLamports} ({@link solUsdObservation}) and answers
 * ({@link current}) with their median (`source: 'stream'`, `observed_at_ms` = the newest swap's
 * block time) while that is at most `maxStreamAgeMs` old, else with the configured fallback
 * (`source: 'config'`), else undefined. Throws RangeError on a non-positive fallback or window.
 */
export class SolUsdReference {
  readonly #window: SolUsdObservation[] = [];
  readonly #fallback: UsdReference | undefined;
  readonly #minLamports: bigint;
  readonly #windowSize: number;
  readonly #maxAgeMs: number;

  constructor(options: SolUsdReferenceOptions = {}, nowMs: number = Date.now()) {
    const { fallbackUsdPerSol } = options;
    if (fallbackUsdPerSol !== undefined && !(Number.isFinite(fallbackUsdPerSol) && fallbackUsdPerSol > 0)) {
      throw new RangeError(`fallbackUsdPerSol must be a positive number, got ${fallbackUsdPerSol}`);
    }
    this.#windowSize = options.windowSize ?? DEFAULT_SOL_USD_WINDOW_SIZE;
    if (!Number.isInteger(this.#windowSize) || this.#windowSize < 1) throw new RangeError(`windowSize must be a positive integer, got ${this.#windowSize}`);
    this.#fallback =
      fallbackUsdPerSol === undefined ? undefined : { usd_per_sol: fallbackUsdPerSol, source: 'config', observed_at_ms: options.fallbackSetAtMs ?? nowMs };
    this.#minLamports = options.minSwapLamports ?? DEFAULT_SOL_USD_MIN_SWAP_LAMPORTS;
    this.#maxAgeMs = options.maxStreamAgeMs ?? DEFAULT_SOL_USD_MAX_STREAM_AGE_MS;
  }

  /** Takes the stable-pair swaps among one transaction's messages; `nowMs` stands in for a missing block time. */
  observe(messages: readonly TradeMessage[], nowMs: number = Date.now()): void {
    for (const m of messages) {
      const o = solUsdObservation(m, nowMs);
      if (o === undefined || o.lamports < this.#minLamports) continue;
      this.#window.push(o);
      if (this.#window.length > this.#windowSize) this.#window.shift();
    }
  }

  /** The rate to use at `nowMs` (ms since the epoch), see the class doc; undefined when none is known. */
  current(nowMs: number = Date.now()): UsdReference | undefined {
    if (this.#window.length > 0) {
      const newest = Math.max(...this.#window.map((o) => o.observed_at_ms));
      if (nowMs - newest <= this.#maxAgeMs) {
        const sorted = this.#window.map((o) => o.usd_per_sol).sort((a, b) => a - b);
        const mid = sorted.length >> 1;
        const median = sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
        return { usd_per_sol: median, source: 'stream', observed_at_ms: newest };
      }
    }
    return this.#fallback;
  }
}

/**
 * What ingest runs on each transaction's messages right after decoding (live and replay alike):
 * feeds the SOL/USD reference with them, then adds the derived fields. `atMs` is the time the
 * messages are taken to be observed (live: now; replay: the block time). Mutates the messages.
 */
export interface Deriver {
  (messages: readonly TradeMessage[], atMs: number): void;
  /**
   * The SOL/USD rate messages observed at `atMs` (ms since the epoch) are priced with, given what was
   * observed so far; undefined = none, so they get no `price_usd`, `market_cap_usd` or `usd_reference`.
   */
  solUsdAt(atMs: number): UsdReference | undefined;
}

/** Options of {@link createDeriver}: the SOL/USD reference's, and the LaunchLab pool-supply cache's bound. */
export interface DeriverOptions extends SolUsdReferenceOptions {
  /** Pools whose CREATE supply is kept for later trades; default DEFAULT_LAUNCHLAB_SUPPLY_CACHE_MAX_ENTRIES (pool-supplies.ts, 100 000). */
  launchlabSupplyCacheMaxEntries?: number | undefined;
}

/**
 * A {@link Deriver} with its own {@link SolUsdReference} and {@link LaunchlabSupplyCache}, built from
 * `options`, kept across the transactions it is given (call it in chain order).
 * @throws RangeError on a non-positive fallback, window or cache bound.
 */
export function createDeriver(options: DeriverOptions = {}): Deriver {
  const solUsd = new SolUsdReference(options);
  const launchlabSupplies = new LaunchlabSupplyCache(options.launchlabSupplyCacheMaxEntries);
  const derive = (messages: readonly TradeMessage[], atMs: number): void => {
    solUsd.observe(messages, atMs);
    addDerivedFields(messages, { solUsd: solUsd.current(atMs), launchlabSupplies });
  };
  return Object.assign(derive, { solUsdAt: (atMs: number) => solUsd.current(atMs) });
}
