import type { DecodedValue } from './borsh-tolerant.js';
import type { DecodedEvent } from './event-decode.js';
import { pumpAmmCodec, pumpCodec } from './idl.js';
import type { ProgramCodec } from './idl.js';
import { SOL_DECIMALS, WSOL_MINT, account, common, eventNamed, mintDecimals, programCalls, put, putDefined, ui } from './program.js';
import { merge } from './shape.js';
import type { CallIndex, DecodeOptions, ProgramCall } from './program.js';
import type { NormalizedTransaction } from './transaction.js';
import type { PumpswapMessage } from './types.js';

const BUY = /^buy/;
const SELL = /^sell/;

/** Instruction → message kind and the event that carries its amounts (first match wins). */
function kindOf(n: string): { type: PumpswapMessage['transaction_type']; event: string } | undefined {
  if (BUY.test(n)) return KIND_BUY;
  if (SELL.test(n)) return KIND_SELL;
  if (n === 'create_pool') return KIND_CREATE_POOL;
  if (n === 'deposit') return KIND_DEPOSIT;
  if (n === 'withdraw') return KIND_WITHDRAW;
  return undefined;
}
const KIND_BUY = { type: 'BUY', event: 'BuyEvent' } as const;
const KIND_SELL = { type: 'SELL', event: 'SellEvent' } as const;
const KIND_CREATE_POOL = { type: 'CREATE_POOL', event: 'CreatePoolEvent' } as const;
const KIND_DEPOSIT = { type: 'DEPOSIT', event: 'DepositEvent' } as const;
const KIND_WITHDRAW = { type: 'WITHDRAW', event: 'WithdrawEvent' } as const;

const big = (v: DecodedValue | undefined): bigint | undefined => (typeof v === 'string' && /^-?\d+$/.test(v) ? BigInt(v) : undefined);

/**
 * Trade-event fields appended after the installed IDL's last one (`holder_rewards`).
 *
 * `creator_fee_unclaimed` (u64): "the creator fee waiting in the pool after this trade"
 * (pump-fun/pump-public-docs docs/instructions/PUMP_SWAP_TRADE_V2.md § Events, and
 * docs/VIRTUAL_QUOTE_RESERVES_FEE_ADJUSTMENT.md § Indexers: the trade events report
 * virtual_quote_reserves, protocol_fee, coin_creator_fee and creator_fee_unclaimed), i.e.
 * `Pool.creator_fees`, kept in the quote vault by v2 trades until swept. The same u64 right after
 * holder_rewards is read by SemyonShilin/sol-parser-sdk src/logs/pump_amm.rs (`parse_trade_tail`,
 * offset 73 of the tail). The 2026-10 mainnet Buy/SellEvents (recording pumpswap/4Urr…, 5FoZ…) are
 * exactly 8 bytes longer than @pump-fun/pump-sdk 2.0.0's `src/idl/pump_amm.json`, and in 4Urr…
 * virtual_quote_reserves + creator_fee_unclaimed = 17584505288, the boost init_boost puts into a
 * migrated pool (InitBoostEvent in pumpfun/3gsR…), as Pool::virtual_quote_reserves = boost −
 * protocol_fees − creator_fees says.
 */
const TRADE_EVENT_TAIL: { name: string; type: string }[] = [{ name: 'creator_fee_unclaimed', type: 'u64' }];

let extendedCodec: ProgramCodec | undefined;

/**
 * The PumpSwap codec used for messages: the vendored IDL (services/ingest/idl/pump_amm.json, a copy of @pump-fun/pump-sdk 2.0.0
 * `src/idl/pump_amm.json`) with {@link TRADE_EVENT_TAIL} appended to BuyEvent and SellEvent
 * when that IDL ends them with `holder_rewards` and lacks the field. Events without the trailing
 * bytes (2025, early 2026) still decode as prefixes, the new field absent.
 */
export function pumpswapCodec(): ProgramCodec {
  if (extendedCodec) return extendedCodec;
  const base = pumpAmmCodec();
  const eventsByDisc = new Map(base.eventsByDisc);
  for (const [disc, ev] of base.eventsByDisc) {
    if (ev.name !== 'BuyEvent' && ev.name !== 'SellEvent') continue;
    if (ev.fields.at(-1)?.name !== 'holder_rewards' || ev.fields.some((f) => f.name === 'creator_fee_unclaimed')) continue;
    eventsByDisc.set(disc, { name: ev.name, fields: [...ev.fields, ...TRADE_EVENT_TAIL] });
  }
  extendedCodec = { ...base, eventsByDisc };
  return extendedCodec;
}

const str = (x: DecodedValue | undefined): string | null => (typeof x === 'string' ? x : null);

/** a − b as a decimal string when both are integers and a ≥ b, else null. */
function diff(a: DecodedValue | undefined, b: DecodedValue | undefined): string | null {
  const x = big(a);
  const y = big(b);
  return x !== undefined && y !== undefined && x >= y ? (x - y).toString() : null;
}

/**
 * buy_exact_quote_in fills its BuyEvent the other way round from buy: `quote_amount_in` is the
 * all-in spend (= spendable_quote_in, fees included) and `user_quote_amount_in` the curve input net
 * of every fee (pump-swap-sdk src/__tests__/buyQuoteSimulation.spec.ts: "the chain emits
 * userQuoteAmountIn = the post-fee curve input ..., which matches the SDK's
 * internalQuoteWithoutFees"; recording pumpswap/4Urr…: quote_amount_in 1863068 is what left the
 * buyer, user_quote_amount_in 1844620 = 1863068 − lp_fee − protocol_fee − coin_creator_fee).
 * `quote_amount_in_with_lp_fee` means the same in both: what the pool quote vault receives.
 */
const isExactQuoteIn = (instruction: string): boolean => instruction === 'buy_exact_quote_in';

/**
 * Pool reserves (raw base units) right after the instruction, from the event.
 * PumpSwap events report `pool_*_token_reserves` as the vault balances BEFORE
 * the instruction (checked against meta.preTokenBalances of every recorded
 * transaction); the change follows the program's token transfers, as the
 * pump-swap-sdk models them (src/sdk/buy.ts, sell.ts) and the recorded inner
 * transfers show:
 *  - buy / buy_exact_quote_in: base − base_amount_out, quote + quote_amount_in_with_lp_fee
 *    (curve input + LP fee; the LP fee stays in the pool, protocol (incl. buyback) and
 *    coin-creator fees go to their own accounts). For buy this is quote_amount_in + lp_fee;
 *    for buy_exact_quote_in it is user_quote_amount_in + lp_fee (see {@link isExactQuoteIn});
 *  - sell: base + base_amount_in, quote − (quote_amount_out − lp_fee);
 *  - deposit: + base_amount_in, + quote_amount_in; withdraw: − base_amount_out, − quote_amount_out;
 *  - create_pool: pool_base_amount, pool_quote_amount.
 * Undefined when a field is missing.
 */
function reservesAfter(type: PumpswapMessage['transaction_type'], v: Record<string, DecodedValue>): { base: bigint; quote: bigint } | undefined {
  const base = big(v.pool_base_token_reserves);
  const quote = big(v.pool_quote_token_reserves);
  const lpFee = big(v.lp_fee);
  switch (type) {
    case 'BUY': {
      const out = big(v.base_amount_out);
      const toVault = big(v.quote_amount_in_with_lp_fee);
      return base !== undefined && quote !== undefined && out !== undefined && toVault !== undefined ? { base: base - out, quote: quote + toVault } : undefined;
    }
    case 'SELL': {
      const inp = big(v.base_amount_in);
      const qout = big(v.quote_amount_out);
      return base !== undefined && quote !== undefined && inp !== undefined && qout !== undefined && lpFee !== undefined
        ? { base: base + inp, quote: quote - (qout - lpFee) }
        : undefined;
    }
    case 'DEPOSIT': {
      const b = big(v.base_amount_in);
      const q = big(v.quote_amount_in);
      return base !== undefined && quote !== undefined && b !== undefined && q !== undefined ? { base: base + b, quote: quote + q } : undefined;
    }
    case 'WITHDRAW': {
      const b = big(v.base_amount_out);
      const q = big(v.quote_amount_out);
      return base !== undefined && quote !== undefined && b !== undefined && q !== undefined ? { base: base - b, quote: quote - q } : undefined;
    }
    case 'CREATE_POOL': {
      const b = big(v.pool_base_amount);
      const q = big(v.pool_quote_amount);
      return b !== undefined && q !== undefined ? { base: b, quote: q } : undefined;
    }
  }
}

/**
 * The base and quote amounts the user moved, raw: what `token_amount_ui`, `user_quote_amount` and
 * `sol_amount_ui` / `quote_amount_ui` show. BUY quote = what the user paid, fees included
 * (buy: user_quote_amount_in; buy_exact_quote_in: quote_amount_in, see {@link isExactQuoteIn}).
 */
function userAmounts(
  type: PumpswapMessage['transaction_type'],
  v: Record<string, DecodedValue>,
  instruction: string,
): { base?: DecodedValue; quote?: DecodedValue } {
  switch (type) {
    case 'BUY':
      return { base: v.base_amount_out, quote: isExactQuoteIn(instruction) ? v.quote_amount_in : v.user_quote_amount_in };
    case 'SELL':
      return { base: v.base_amount_in, quote: v.user_quote_amount_out };
    case 'DEPOSIT':
    case 'CREATE_POOL':
      return { base: v.base_amount_in, quote: v.quote_amount_in };
    case 'WITHDRAW':
      return { base: v.base_amount_out, quote: v.quote_amount_out };
  }
}

/**
 * Product spec §3 "PumpSwap swap" fields other than `timestamp` (the event's own) and the two
 * addresses: what the user gave and got, raw base units as decimal strings (the u64 convention of
 * every amount), and the swap's fees. BUY: tokenIn = quote_mint, amountIn = `user_quote_amount`
 * (what the user paid, fees included; see {@link userAmounts}), tokenOut = base_mint, amountOut =
 * base_amount_out. SELL: tokenIn = base_mint, amountIn = base_amount_in, tokenOut = quote_mint,
 * amountOut = user_quote_amount_out (fees deducted). `fee` = what the fees took from the user's
 * quote: the gross minus the curve amount (buy: user_quote_amount_in − quote_amount_in;
 * buy_exact_quote_in: quote_amount_in − user_quote_amount_in; sell: quote_amount_out −
 * user_quote_amount_out), which is lp_fee + protocol_fee + coin_creator_fee in every recorded
 * event (test/message-fields.test.ts). CREATE_POOL / DEPOSIT / WITHDRAW are not swaps: all null.
 */
function swapFields(
  type: PumpswapMessage['transaction_type'],
  v: Record<string, DecodedValue>,
  instruction: string,
  acc: { base_mint?: string | undefined; quote_mint?: string | undefined },
  userQuote: DecodedValue | undefined,
): Pick<PumpswapMessage, 'tokenIn' | 'tokenOut' | 'amountIn' | 'amountOut' | 'fee'> {
  if (type === 'BUY') {
    return {
      tokenIn: acc.quote_mint ?? null,
      tokenOut: acc.base_mint ?? null,
      amountIn: str(userQuote),
      amountOut: str(v.base_amount_out),
      fee: isExactQuoteIn(instruction) ? diff(v.quote_amount_in, v.user_quote_amount_in) : diff(v.user_quote_amount_in, v.quote_amount_in),
    };
  }
  if (type === 'SELL') {
    return {
      tokenIn: acc.base_mint ?? null,
      tokenOut: acc.quote_mint ?? null,
      amountIn: str(v.base_amount_in),
      amountOut: str(v.user_quote_amount_out),
      fee: diff(v.quote_amount_out, v.user_quote_amount_out),
    };
  }
  return { tokenIn: null, tokenOut: null, amountIn: null, amountOut: null, fee: null };
}

/** Token names known from pump.fun CreateEvents in the same transaction (a create and a PumpSwap trade together). */
function pumpfunNames(tx: NormalizedTransaction, options: DecodeOptions, index: CallIndex | undefined): Map<string, { name?: string; symbol?: string }> {
  const names = new Map<string, { name?: string; symbol?: string }>();
  const codec = pumpCodec();
  for (const c of index?.get(codec) ?? programCalls(tx, codec, [], options)) {
    for (const e of c.events) {
      if (e.name === 'CreateEvent' && typeof e.values.mint === 'string') {
        names.set(e.values.mint, { name: e.values.name as string | undefined, symbol: e.values.symbol as string | undefined });
      }
    }
  }
  return names;
}

function accounts(call: ProgramCall, type: PumpswapMessage['transaction_type']): Record<string, string | undefined> {
  const base = account(call, 'base_mint');
  return {
    pool: account(call, 'pool'),
    base_mint: base,
    quote_mint: account(call, 'quote_mint'),
    mint: base,
    pool_base_token_account: account(call, 'pool_base_token_account'),
    pool_quote_token_account: account(call, 'pool_quote_token_account'),
    lp_mint: type === 'BUY' || type === 'SELL' ? undefined : account(call, 'lp_mint'),
  };
}

/**
 * PumpSwap (pump_amm, pAMMBay6oceH9fJKBRHGP5D4bD4sWpmSwMn52FMfXEA) messages in
 * `tx` with their execution order: every buy* instruction (buy,
 * buy_exact_quote_in, …) → BUY (BuyEvent), sell* → SELL (SellEvent),
 * create_pool → CREATE_POOL (CreatePoolEvent), deposit → DEPOSIT
 * (DepositEvent), withdraw → WITHDRAW (WithdrawEvent). An instruction whose
 * event cannot be found yields nothing (the amounts exist only in the event).
 *
 * Events are read with {@link pumpswapCodec} (the installed IDL + the 2026-10 trailing
 * `creator_fee_unclaimed`). Each message: every event field present in the bytes, instruction accounts
 * `pool, base_mint, quote_mint, pool_base_token_account,
 * pool_quote_token_account` (+ `lp_mint` for CREATE_POOL/DEPOSIT/WITHDRAW),
 * `mint` (= base_mint), `side` for BUY/SELL, name/symbol when a pump.fun
 * CreateEvent for the mint is in the same transaction, and derived values:
 * `pool_base_token_reserves_after` / `pool_quote_token_reserves_after` (raw),
 * `user_quote_amount` (raw quote the user paid / received / deposited / withdrew),
 * `token_amount_ui`, `sol_amount_ui` (WSOL quote) or `quote_amount_ui`, and
 * `price_sol` (WSOL quote) or `price_quote` = effective quote reserves after /
 * base reserves after, in human units (docs/decoding.md). Product spec §3 fields: `tokenIn`,
 * `tokenOut`, `amountIn`, `amountOut`, `fee` ({@link swapFields}), `txHash` (= signature),
 * `poolAddress` (= pool) and the event's `timestamp`. name/symbol also come from
 * `options.tokenNames` when the transaction holds no CreateEvent of the mint. `index`: the
 * transaction's calls from indexProgramCalls (else they are looked up here).
 */
export function decodePumpswap(tx: NormalizedTransaction, options: DecodeOptions = {}, index?: CallIndex): { order: number; message: PumpswapMessage }[] {
  const codec = pumpswapCodec();
  const calls = index?.get(codec) ?? programCalls(tx, codec, [], options);
  if (calls.length === 0) return [];
  const names = pumpfunNames(tx, options, index);
  // Decimals announced by CreatePoolEvents in this transaction (for mints with no token balance entry).
  const announced = new Map<string, number>();
  for (const c of calls) {
    for (const e of c.events) {
      if (e.name !== 'CreatePoolEvent') continue;
      const { base_mint, quote_mint, base_mint_decimals, quote_mint_decimals } = e.values;
      if (typeof base_mint === 'string' && typeof base_mint_decimals === 'number') announced.set(base_mint, base_mint_decimals);
      if (typeof quote_mint === 'string' && typeof quote_mint_decimals === 'number') announced.set(quote_mint, quote_mint_decimals);
    }
  }
  const decimals = (mint: string | undefined): number | undefined =>
    mint === undefined ? undefined : mint === WSOL_MINT ? SOL_DECIMALS : (mintDecimals(tx, mint) ?? announced.get(mint));

  const out: { order: number; message: PumpswapMessage }[] = [];
  for (const call of calls) {
    const kind = kindOf(call.def.name);
    if (!kind) continue;
    const ev: DecodedEvent | undefined = eventNamed(call, kind.event);
    if (!ev) continue;
    const v = ev.values;
    const acc = accounts(call, kind.type);
    const solQuoted = acc.quote_mint === WSOL_MINT;
    const baseDecimals = decimals(acc.base_mint);
    const quoteDecimals = decimals(acc.quote_mint);
    const derived: Record<string, DecodedValue | undefined> = {};
    const after = reservesAfter(kind.type, v);
    if (after) {
      derived.pool_base_token_reserves_after = after.base.toString();
      derived.pool_quote_token_reserves_after = after.quote.toString();
    }
    const moved = userAmounts(kind.type, v, call.def.name);
    if (typeof moved.quote === 'string') derived.user_quote_amount = moved.quote;
    if (baseDecimals !== undefined) derived.token_amount_ui = ui(moved.base, baseDecimals);
    if (quoteDecimals !== undefined) derived[solQuoted ? 'sol_amount_ui' : 'quote_amount_ui'] = ui(moved.quote, quoteDecimals);
    if (after && after.base > 0n && baseDecimals !== undefined && quoteDecimals !== undefined) {
      // Constant-product spot price on the effective quote reserves (pump-fun/pump-public-docs
      // NEGATIVE_VIRTUAL_QUOTE_RESERVES.md: effective = quote vault + virtual_quote_reserves, signed;
      // 2025 events lack the field: 0).
      const effectiveQuote = after.quote + (big(v.virtual_quote_reserves) ?? 0n);
      const price = Number(effectiveQuote) / 10 ** quoteDecimals / (Number(after.base) / 10 ** baseDecimals);
      derived[solQuoted ? 'price_sol' : 'price_quote'] = price;
    }
    const meta = acc.mint ? (names.get(acc.mint) ?? options.tokenNames?.get(acc.mint)) : undefined;
    const message = merge(common(tx, call, 'pumpswap', kind.type), v) as PumpswapMessage;
    putDefined(message, acc);
    if (kind.type === 'BUY') message.side = 'buy';
    else if (kind.type === 'SELL') message.side = 'sell';
    putDefined(message, derived);
    if (meta?.name !== undefined) message.name = meta.name;
    if (meta?.symbol !== undefined) message.symbol = meta.symbol;
    put(message, swapFields(kind.type, v, call.def.name, acc, moved.quote));
    message.txHash = tx.signature;
    message.poolAddress = acc.pool as string;
    out.push({ order: call.order, message });
  }
  return out;
}
