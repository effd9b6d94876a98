/**
 * Pure: one TRADES message (docs/architecture.md §6, the JSON Schemas in packages/contracts/schemas/) →
 * what it tells token-price. No I/O.
 */

import { NATIVE_SOL, WSOL_MINT } from '@tradewind/contracts/subjects';

export { NATIVE_SOL, WSOL_MINT };
/** Circle's USDC mint on Solana mainnet (https://developers.circle.com/stablecoins/usdc-contract-addresses). */
export const USDC_MINT = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';
/** Tether's USDT mint on Solana mainnet (https://tether.to/en/supported-protocols). */
export const USDT_MINT = 'Es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCe8BenwNYB';
/** Quote assets: never listed as tokens; trades against the USD ones are SOL/USD observations. */
export const USD_STABLECOINS: ReadonlySet<string> = new Set([USDC_MINT, USDT_MINT]);
const QUOTE_ASSETS: ReadonlySet<string> = new Set([WSOL_MINT, NATIVE_SOL, USDC_MINT, USDT_MINT]);

/**
 * pump.fun's total supply of every token it creates, in base units: 1 000 000 000 tokens × 10^6.
 * Sources: the pump program's IDL (`6EF8rrecthR5Dkzon8Nwu78hRvfCKubJ14M5uBEwF6P`, shipped in
 * `@pump-fun/pump-sdk` 2.0.0 `src/idl/pump.json`) keeps one program-wide `Global.token_total_supply`
 * that every new curve mints (`bondingCurve.ts`: `mintSupply = global.tokenTotalSupply`), the same
 * SDK's `src/fees.ts` names it `ONE_BILLION_SUPPLY = 1_000_000_000_000_000`, and the 2025+
 * CreateEvents of the bundled recording state `token_total_supply: "1000000000000000"`. Used for
 * pump.fun mints whose CreateEvent we did not see (a CreateEvent's own value wins).
 */
export const PUMPFUN_TOTAL_SUPPLY_RAW = 1_000_000_000_000_000n;
/**
 * pump.fun mints have 6 decimals: the program creates every mint with 6 (ingest's
 * `PUMPFUN_TOKEN_DECIMALS`, docs/decoding.md), as the recording shows, e.g. the PumpSwap
 * CreatePoolEvent of the migrated pump.fun mint npB9… (transaction 2ffHb…) states `base_mint_decimals: 6`.
 */
export const PUMPFUN_DECIMALS = 6;
const LAMPORTS_PER_SOL = 1e9;

/** Where a trade's time comes from (see {@link tradeTimeMs}). */
export type TimeBasis = 'replayed_at' | 'block_time' | 'stream';

/** A token's identity as a message states it; every field optional. */
export interface TokenFacts {
  readonly symbol?: string;
  readonly name?: string;
  /** Mint decimals. */
  readonly decimals?: number;
  /** Total supply in base units (u64). */
  readonly supplyRaw?: bigint;
}

/**
 * What one message changes. `kind`:
 * - `trade`: a priced BUY/SELL/SWAP of `mint`, with its SOL volume;
 * - `price`: a price without volume (CREATE_POOL, DEPOSIT, WITHDRAW);
 * - `create`: identity only: a launchpad CREATE, or a pump.fun COMPLETE / MIGRATE (a pump.fun mint, so its supply is known);
 * - `sol_usd`: a SOL/USD observation (a swap of a WSOL/USD-stablecoin pool);
 * - `ignored`: a well-formed message that carries nothing for prices (LaunchLab MIGRATE, …), with the reason.
 */
export type TradeUpdate =
  | {
      readonly kind: 'trade' | 'price';
      readonly mint: string;
      readonly source: string;
      readonly timeMs: number;
      /** SOL per whole token. */
      readonly priceSol: number;
      /** Volume in lamports (integer); 0 for `price`. */
      readonly volumeLamports: number;
      readonly facts: TokenFacts;
      readonly replayed: boolean;
      /** `<signature>:<instruction path>`: the same on-chain event in every replayed copy of it. */
      readonly tradeId: string;
      /** The event's time on the chain (see {@link recordedTimeMs}); null when the message states none. */
      readonly recordedTimeMs: number | null;
    }
  | { readonly kind: 'create'; readonly mint: string; readonly source: string; readonly timeMs: number; readonly facts: TokenFacts; readonly replayed: boolean }
  | {
      readonly kind: 'sol_usd';
      readonly timeMs: number;
      /** USD per SOL (a USD stablecoin counted as one dollar). */
      readonly solUsd: number;
      readonly replayed: boolean;
      readonly tradeId: string;
      readonly recordedTimeMs: number | null;
    }
  | { readonly kind: 'ignored'; readonly reason: string };

/** A message that is not a trade message of docs/architecture.md §6 (or contradicts itself). */
export class InvalidTradeMessage extends Error {
  constructor(
    readonly reason: string,
    message: string,
  ) {
    super(message);
    this.name = 'InvalidTradeMessage';
  }
}

/** Options for {@link interpretTrade}. */
export interface InterpretOptions {
  /** SOL/USD at the time of the trade, for trades quoted in a USD stablecoin; null = unknown (such trades are ignored). */
  readonly solUsd: number | null;
  /**
   * The same for replayed copies (`replayed: true`): SOL/USD at the copy's chain time
   * ({@link recordedTimeMs}, null when it has none) in the recording, null = unknown. Absent: `solUsd`
   * is used for them too.
   */
  readonly replayedSolUsd?: (recordedTimeMs: number | null) => number | null;
  /** The JetStream message's own timestamp, Unix ms: the trade time when the message has no block time. */
  readonly streamTimeMs: number;
  /** Smallest SOL reserve (SOL, after the swap) of a WSOL/USD pool whose swap counts as a SOL/USD observation. */
  readonly minRatePoolSol: number;
}

type Json = Record<string, unknown>;

/** One decoder for every message: a fatal one, so invalid UTF-8 is rejected rather than replaced. */
const UTF8 = new TextDecoder('utf-8', { fatal: true });

/**
 * When a message entered our stream's story, Unix ms: live trades at `block_time_ms` (the chain's),
 * else the stream's timestamp when the chain gave none. Replayed copies of a recording (`replayed:
 * true`, ingest's replay source) at `replayed_at_ms`, the moment the copy was published: it decides
 * how long a replayed token stays listed, while its figures use the recording's own chain time
 * ({@link recordedTimeMs}; docs/token-price.md, "Replayed data").
 */
export function tradeTimeMs(message: Json, streamTimeMs: number): { timeMs: number; basis: TimeBasis } {
  if (message.replayed === true && isFiniteNumber(message.replayed_at_ms)) return { timeMs: message.replayed_at_ms, basis: 'replayed_at' };
  if (isFiniteNumber(message.block_time_ms)) return { timeMs: message.block_time_ms, basis: 'block_time' };
  return { timeMs: streamTimeMs, basis: 'stream' };
}

/**
 * When the event happened on the chain, Unix ms: `block_time_ms`, else the event's own `timestamp`
 * (pump.fun TradeEvent / CreateEvent and PumpSwap events log the program's `Clock::unix_timestamp`,
 * seconds), else null. Replayed copies keep both fields as recorded (ingest's replay source), so this
 * is the recording's time, not the replay's.
 */
export function recordedTimeMs(message: Json): number | null {
  if (isFiniteNumber(message.block_time_ms)) return message.block_time_ms;
  const ts = message.timestamp;
  const seconds = typeof ts === 'string' && /^\d{1,12}$/.test(ts) ? Number(ts) : isFiniteNumber(ts) && ts >= 0 ? ts : undefined;
  return seconds === undefined || seconds === 0 ? null : seconds * 1000;
}

/** `<signature>:<instruction path joined by .>`: one on-chain event, whichever copy of it carries it. */
function tradeIdOf(m: Json): string {
  const path = Array.isArray(m.instruction_path) ? m.instruction_path.join('.') : '';
  return `${String(m.signature)}:${path}`;
}

/**
 * Parses and interprets one TRADES message body.
 * @param body the raw message bytes (UTF-8 JSON).
 * @throws InvalidTradeMessage when the bytes are not a JSON object with `source`, `transaction_type`,
 *   `signature`, or a priced message has a non-positive or non-finite price / a negative amount.
 */
export function interpretTrade(body: Uint8Array, options: InterpretOptions): TradeUpdate {
  let message: unknown;
  try {
    message = JSON.parse(UTF8.decode(body));
  } catch {
    throw new InvalidTradeMessage('not_json', 'message is not UTF-8 JSON');
  }
  if (typeof message !== 'object' || message === null || Array.isArray(message)) throw new InvalidTradeMessage('not_object', 'message is not a JSON object');
  const m = message as Json;
  const source = m.source;
  const type = m.transaction_type;
  if (typeof source !== 'string' || typeof type !== 'string' || typeof m.signature !== 'string') {
    throw new InvalidTradeMessage('missing_fields', 'message lacks source, transaction_type or signature');
  }
  const { timeMs } = tradeTimeMs(m, options.streamTimeMs);
  const replayed = m.replayed === true;
  const tradeId = tradeIdOf(m);
  const recorded = recordedTimeMs(m);
  const rate = replayed && options.replayedSolUsd !== undefined ? options.replayedSolUsd(recorded) : options.solUsd;

  if (type === 'CREATE') return interpretCreate(m, source, timeMs, replayed);
  // A pump.fun COMPLETE or MIGRATE names a pump.fun mint: its supply is known even when its CREATE was not seen.
  if (source === 'pumpfun' && (type === 'COMPLETE' || type === 'MIGRATE')) return interpretCreate(m, source, timeMs, replayed);
  const priced = type === 'BUY' || type === 'SELL' || type === 'SWAP';
  const priceOnly = type === 'CREATE_POOL' || type === 'DEPOSIT' || type === 'WITHDRAW';
  if (!priced && !priceOnly) return { kind: 'ignored', reason: `type_${type.toLowerCase()}` };

  // LaunchLab messages name the token `base_mint`; the other sources `mint`.
  const mint = typeof m.mint === 'string' ? m.mint : m.base_mint;
  if (typeof mint !== 'string' || mint.length === 0) {
    // A token/token CPMM pool (no WSOL side) has no `mint` and no SOL price.
    return { kind: 'ignored', reason: 'no_sol_side' };
  }
  const facts = factsOf(m, source);

  const pool = solUsdPool(m, source, mint);
  if (pool !== undefined) {
    if (!priced) return { kind: 'ignored', reason: 'stablecoin_pool' };
    const solUsd = pool.solUsd();
    if (solUsd === undefined) return { kind: 'ignored', reason: 'unpriced' };
    const reserveSol = pool.reserveSol();
    if (reserveSol === undefined || reserveSol < options.minRatePoolSol) return { kind: 'ignored', reason: 'rate_pool_too_small' };
    return { kind: 'sol_usd', timeMs, solUsd, replayed, tradeId, recordedTimeMs: recorded };
  }
  if (USD_STABLECOINS.has(mint)) return { kind: 'ignored', reason: 'stablecoin_pool' };
  if (QUOTE_ASSETS.has(mint)) return { kind: 'ignored', reason: 'quote_asset' };

  let priceSol = positiveNumber(m.price_sol, 'price_sol');
  let volumeSol = nonNegativeNumber(m.sol_amount_ui, 'sol_amount_ui');
  if (priceSol === undefined) {
    // Curves/pools quoted in another mint carry price_quote / quote_amount_ui (docs/decoding.md).
    const quoteMint = typeof m.quote_mint === 'string' ? m.quote_mint : undefined;
    const priceQuote = positiveNumber(m.price_quote, 'price_quote');
    if (priceQuote === undefined) return { kind: 'ignored', reason: 'unpriced' };
    if (quoteMint === undefined || !USD_STABLECOINS.has(quoteMint)) return { kind: 'ignored', reason: 'unsupported_quote' };
    if (rate === null) return { kind: 'ignored', reason: 'no_sol_usd_rate' };
    priceSol = priceQuote / rate;
    const quoteAmount = nonNegativeNumber(m.quote_amount_ui, 'quote_amount_ui');
    volumeSol = quoteAmount === undefined ? undefined : quoteAmount / rate;
  }
  if (priced && volumeSol === undefined) throw new InvalidTradeMessage('missing_amount', `${type} without sol_amount_ui`);
  return {
    kind: priced ? 'trade' : 'price',
    mint,
    source,
    timeMs,
    priceSol,
    volumeLamports: priced ? Math.round((volumeSol ?? 0) * LAMPORTS_PER_SOL) : 0,
    facts,
    replayed,
    tradeId,
    recordedTimeMs: recorded,
  };
}

/**
 * A pool of SOL against a USD stablecoin (USDC or USDT), whose trades give SOL/USD, or undefined:
 * - Raydium CPMM: the decoder names the non-WSOL side `mint`, and `price_sol` is SOL per stablecoin
 *   token, so SOL/USD = 1 / price_sol; the SOL reserve after the swap is read from the SwapEvent vaults.
 * - PumpSwap with base WSOL and quote USDC/USDT: `price_quote` is stablecoin per SOL (= SOL/USD); the SOL
 *   reserve is `pool_base_token_reserves_after`.
 * - PumpSwap with base USDC/USDT and quote WSOL: `price_sol` is SOL per stablecoin token (SOL/USD =
 *   1 / price_sol); the SOL reserve is `pool_quote_token_reserves_after`.
 * Both getters return undefined when the field is missing. @throws InvalidTradeMessage for a non-positive price.
 */
function solUsdPool(m: Json, source: string, mint: string): { solUsd(): number | undefined; reserveSol(): number | undefined } | undefined {
  const inverse = (field: 'price_sol') => (): number | undefined => {
    const p = positiveNumber(m[field], field);
    return p === undefined ? undefined : 1 / p;
  };
  const lamports = (field: string) => (): number | undefined => {
    const raw = decimalBigInt(m[field]);
    return raw === undefined ? undefined : Number(raw) / LAMPORTS_PER_SOL;
  };
  if (source === 'raydium_cpmm' && USD_STABLECOINS.has(mint)) return { solUsd: inverse('price_sol'), reserveSol: () => cpmmSolReserveAfter(m) };
  if (source !== 'pumpswap') return undefined;
  const quote = typeof m.quote_mint === 'string' ? m.quote_mint : undefined;
  if (mint === WSOL_MINT && quote !== undefined && USD_STABLECOINS.has(quote)) {
    return { solUsd: () => positiveNumber(m.price_quote, 'price_quote'), reserveSol: lamports('pool_base_token_reserves_after') };
  }
  if (USD_STABLECOINS.has(mint) && quote === WSOL_MINT) return { solUsd: inverse('price_sol'), reserveSol: lamports('pool_quote_token_reserves_after') };
  return undefined;
}

function interpretCreate(m: Json, source: string, timeMs: number, replayed: boolean): TradeUpdate {
  const mint = typeof m.mint === 'string' ? m.mint : typeof m.base_mint === 'string' ? m.base_mint : undefined;
  if (mint === undefined || mint.length === 0) throw new InvalidTradeMessage('missing_fields', `${String(m.transaction_type)} without mint`);
  if (QUOTE_ASSETS.has(mint)) return { kind: 'ignored', reason: 'quote_asset' };
  return { kind: 'create', mint, source, timeMs, facts: factsOf(m, source), replayed };
}

/** Identity facts a message states: pump.fun CREATE/trade name+symbol, LaunchLab base_mint_param + curve supply. */
export function factsOf(m: Json, source: string): TokenFacts {
  const facts: { symbol?: string; name?: string; decimals?: number; supplyRaw?: bigint } = {};
  const param = isObject(m.base_mint_param) ? m.base_mint_param : undefined;
  const name = cleanText(param?.name ?? m.name, 64);
  const symbol = cleanText(param?.symbol ?? m.symbol, 16);
  if (name !== undefined) facts.name = name;
  if (symbol !== undefined) facts.symbol = symbol;
  if (param && Number.isInteger(param.decimals)) facts.decimals = param.decimals as number;
  if (source === 'pumpfun') {
    facts.decimals = PUMPFUN_DECIMALS;
    facts.supplyRaw = decimalBigInt(m.token_total_supply) ?? PUMPFUN_TOTAL_SUPPLY_RAW;
  }
  // LaunchLab CREATE: curve_param {variant, data: {supply, ...}} (every curve type carries `supply`).
  const curve = isObject(m.curve_param) && isObject(m.curve_param.data) ? m.curve_param.data : undefined;
  const supply = decimalBigInt(curve?.supply);
  if (supply !== undefined) facts.supplyRaw = supply;
  return facts;
}

/**
 * SOL reserve (SOL) of a Raydium CPMM pool after a SWAP, from the event's reserves, less a creator fee
 * taken on the SOL side (it stays in the vault as an accrued fee; docs/decoding.md, Raydium CPMM).
 */
function cpmmSolReserveAfter(m: Json): number | undefined {
  const inBefore = decimalBigInt(m.input_vault_before);
  const outBefore = decimalBigInt(m.output_vault_before);
  const inAmount = decimalBigInt(m.input_amount);
  const outAmount = decimalBigInt(m.output_amount);
  const creatorFee = decimalBigInt(m.creator_fee) ?? 0n;
  const feeOnInput = m.creator_fee_on_input === true;
  if (m.input_mint === WSOL_MINT && inBefore !== undefined && inAmount !== undefined)
    return Number(inBefore + inAmount - (feeOnInput ? creatorFee : 0n)) / LAMPORTS_PER_SOL;
  if (m.output_mint === WSOL_MINT && outBefore !== undefined && outAmount !== undefined)
    return Number(outBefore - outAmount - (feeOnInput ? 0n : creatorFee)) / LAMPORTS_PER_SOL;
  return undefined;
}

function cleanText(value: unknown, max: number): string | undefined {
  if (typeof value !== 'string') return undefined;
  // Control, format (e.g. the right-to-left override U+202E) and line/paragraph separator characters
  // can disguise a name on the ticker: removed.
  const text = [...value.replace(/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/gu, '').trim()].slice(0, max).join('').trim();
  return text.length === 0 ? undefined : text;
}

function decimalBigInt(value: unknown): bigint | undefined {
  return typeof value === 'string' && /^\d{1,39}$/.test(value) ? BigInt(value) : undefined;
}

function positiveNumber(value: unknown, field: string): number | undefined {
  if (value === undefined || value === null) return undefined;
  if (!isFiniteNumber(value) || value <= 0) throw new InvalidTradeMessage('bad_number', `${field} must be a positive number`);
  return value;
}

function nonNegativeNumber(value: unknown, field: string): number | undefined {
  if (value === undefined || value === null) return undefined;
  if (!isFiniteNumber(value) || value < 0) throw new InvalidTradeMessage('bad_number', `${field} must be a non-negative number`);
  return value;
}

function isFiniteNumber(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value);
}

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
