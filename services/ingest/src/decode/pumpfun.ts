import { decodeInstructionArgs } from './anchor-values.js';
import { pumpCodec } from './idl.js';
import { SOL_DECIMALS, WSOL_MINT, account, common, defined, eventNamed, mintDecimals, programCalls, put, putDefined, ui } from './program.js';
import type { CallIndex, DecodeOptions } from './program.js';
import { merge } from './shape.js';
import type { DecodedValue } from './borsh-tolerant.js';
import type { NormalizedTransaction } from './transaction.js';
import { PUMPFUN_MESSAGE_TYPE, type PumpfunMessage, type PumpfunTradeData } from './types.js';

/** Decimals of every pump.fun bonding-curve mint (pump.fun creates all its mints with 6). */
export const PUMPFUN_TOKEN_DECIMALS = 6;
/** Quote mints that mean SOL: native SOL as the program writes it (system program id) and wrapped SOL. */
const SOL_QUOTES = new Set(['11111111111111111111111111111111', WSOL_MINT]);

/** Whether an event's curve is quoted in SOL: no `quote_mint` (before 2026) or native SOL / WSOL. */
function solQuoted(v: Record<string, DecodedValue>): boolean {
  return typeof v.quote_mint !== 'string' || SOL_QUOTES.has(v.quote_mint);
}

/** Spot price of the curve from an event's virtual reserves, SOL per whole token; undefined when absent or not SOL-quoted. */
function curvePriceSol(v: Record<string, DecodedValue>): number | undefined {
  if (!solQuoted(v)) return undefined;
  const vSol = ui(v.virtual_sol_reserves, SOL_DECIMALS);
  const vTok = ui(v.virtual_token_reserves, PUMPFUN_TOKEN_DECIMALS);
  return vSol !== undefined && vTok ? vSol / vTok : undefined;
}

/**
 * The `data` object (product spec §3) of a message about to be published; `fields` are what the
 * message itself carries, so nothing is encoded or parsed again. `timestamp`: the event's i64
 * `timestamp` (the slot's Clock unix_timestamp, which equals the block time: checked against
 * blockTime on every recorded event) × 1000, else the transaction's block time.
 */
function tradeData(
  tx: NormalizedTransaction,
  fields: {
    symbol: string | undefined;
    price: number | undefined;
    volume: number | undefined;
    side: 'buy' | 'sell' | null;
    eventTimestamp: DecodedValue | undefined;
    bondingCurve: string;
  },
): PumpfunTradeData {
  const ts = fields.eventTimestamp;
  return {
    symbol: fields.symbol ?? null,
    price: fields.price ?? null,
    volume: fields.volume ?? null,
    side: fields.side,
    timestamp: typeof ts === 'string' && /^-?\d+$/.test(ts) ? Number(ts) * 1000 : tx.blockTimeMs,
    txHash: tx.signature,
    poolAddress: fields.bondingCurve,
  };
}

/** A token's name and symbol: from a CreateEvent of this transaction, else from `options.tokenNames`. */
function nameOf(
  names: ReadonlyMap<string, { name?: string; symbol?: string }>,
  options: DecodeOptions,
  mint: DecodedValue | undefined,
): { name?: string; symbol?: string } | undefined {
  return typeof mint === 'string' ? (names.get(mint) ?? options.tokenNames?.get(mint)) : undefined;
}

/** Sets `name` / `symbol` on a message when known (= `...defined({name, symbol})`). */
function putName(message: PumpfunMessage, meta: { name?: string | undefined; symbol?: string | undefined } | undefined): void {
  if (meta?.name !== undefined) message.name = meta.name;
  if (meta?.symbol !== undefined) message.symbol = meta.symbol;
}

const CREATE = /^create(_v\d+)?$/;
const MIGRATE = /^migrate(_v\d+)?$/;
const BUY = /^buy/;
const SELL = /^sell/;

/**
 * pump.fun trades in `tx`, with their execution order. Instructions: create /
 * create_v2 → CREATE (CreateEvent), every buy* variant → BUY and sell* → SELL
 * (TradeEvent; the side follows the event's is_buy), a CompleteEvent (the buy
 * that fills the bonding curve) → COMPLETE right after that BUY, migrate /
 * migrate_v2 (curve liquidity moved to a PumpSwap pool) → MIGRATE
 * (CompletePumpAmmMigrationEvent). A trade instruction whose event cannot be
 * found (truncated logs, no emit_cpi) yields nothing. Every message also gets
 * `type` ({@link PUMPFUN_MESSAGE_TYPE}) and `data` ({@link PumpfunTradeData});
 * a token's name and symbol come from a CreateEvent in the same transaction,
 * else from `options.tokenNames`. `index`: the transaction's calls from
 * indexProgramCalls (else they are looked up here).
 */
export function decodePumpfun(tx: NormalizedTransaction, options: DecodeOptions = {}, index?: CallIndex): { order: number; message: PumpfunMessage }[] {
  const codec = pumpCodec();
  const calls = index?.get(codec) ?? programCalls(tx, codec, [], options);
  const names = new Map<string, { name?: string; symbol?: string }>();
  for (const c of calls) {
    for (const e of c.events) {
      if (e.name === 'CreateEvent' && typeof e.values.mint === 'string') {
        names.set(e.values.mint, { name: e.values.name as string | undefined, symbol: e.values.symbol as string | undefined });
      }
    }
  }
  const out: { order: number; message: PumpfunMessage }[] = [];
  for (const call of calls) {
    const n = call.def.name;
    const complete = eventNamed(call, 'CompleteEvent');
    if (complete) {
      // Same instruction as the completing BUY: sorted just after it; messageId adds `:COMPLETE`.
      const bondingCurve = (complete.values.bonding_curve as string | undefined) ?? (account(call, 'bonding_curve') as string);
      const meta = nameOf(names, options, complete.values.mint);
      const message = merge(common(tx, call, 'pumpfun', 'COMPLETE'), complete.values) as PumpfunMessage;
      message.bonding_curve = bondingCurve;
      putName(message, meta);
      message.type = PUMPFUN_MESSAGE_TYPE;
      message.data = tradeData(tx, {
        symbol: meta?.symbol,
        price: undefined,
        volume: undefined,
        side: null,
        eventTimestamp: complete.values.timestamp,
        bondingCurve,
      });
      out.push({ order: call.order + 0.5, message });
    }
    if (MIGRATE.test(n)) {
      // No event = nothing moved (e.g. a bot's late migrate logs "Bonding curve already migrated").
      const ev = eventNamed(call, 'CompletePumpAmmMigrationEvent');
      if (!ev) continue;
      const message = putDefined(common(tx, call, 'pumpfun', 'MIGRATE'), {
        mint: account(call, 'mint') ?? account(call, 'base_mint'),
        bonding_curve: account(call, 'bonding_curve'),
        pool: account(call, 'pool'),
        user: account(call, 'user'),
        withdraw_authority: account(call, 'withdraw_authority'),
        quote_mint: account(call, 'quote_mint'),
      }) as PumpfunMessage;
      put(message, ev.values);
      const mint = nameOf(names, options, message.mint);
      putName(message, mint);
      const solUi = ui(message.sol_amount, SOL_DECIMALS);
      if (solUi !== undefined) message.sol_amount_ui = solUi;
      message.type = PUMPFUN_MESSAGE_TYPE;
      message.data = tradeData(tx, {
        symbol: mint?.symbol,
        price: undefined,
        volume: undefined,
        side: null,
        eventTimestamp: ev.values.timestamp,
        bondingCurve: message.bonding_curve,
      });
      out.push({ order: call.order, message });
      continue;
    }
    if (CREATE.test(n)) {
      const ev = eventNamed(call, 'CreateEvent');
      // Without a CreateEvent (older transactions): the create arguments the data holds (an
      // argument an older layout lacks, e.g. `creator`, stays absent) and the accounts.
      const base = ev
        ? ev.values
        : defined(put(decodeInstructionArgs(codec, call.ix.data ?? new Uint8Array(), n), { mint: account(call, 'mint'), user: account(call, 'user') }));
      const bondingCurve = account(call, 'bonding_curve') ?? (base.bonding_curve as string);
      const message = merge(common(tx, call, 'pumpfun', 'CREATE'), base) as PumpfunMessage;
      message.bonding_curve = bondingCurve;
      message.type = PUMPFUN_MESSAGE_TYPE;
      message.data = tradeData(tx, {
        symbol: typeof base.symbol === 'string' ? base.symbol : undefined,
        // The curve's initial price, when the CreateEvent states its reserves (2025+).
        price: ev ? curvePriceSol(ev.values) : undefined,
        volume: undefined,
        side: null,
        eventTimestamp: base.timestamp,
        bondingCurve,
      });
      out.push({ order: call.order, message });
      continue;
    }
    if (!BUY.test(n) && !SELL.test(n)) continue;
    const ev = eventNamed(call, 'TradeEvent');
    if (!ev) continue;
    const v = ev.values;
    const isBuy = typeof v.is_buy === 'boolean' ? v.is_buy : BUY.test(n);
    const quoteMint = typeof v.quote_mint === 'string' ? v.quote_mint : undefined;
    const sol = solQuoted(v);
    const derived: Record<string, number | undefined> = {
      sol_amount_ui: ui(v.sol_amount, SOL_DECIMALS),
      token_amount_ui: ui(v.token_amount, PUMPFUN_TOKEN_DECIMALS),
    };
    const vTok = ui(v.virtual_token_reserves, PUMPFUN_TOKEN_DECIMALS);
    if (sol) {
      derived.price_sol = curvePriceSol(v);
    } else if (quoteMint) {
      // Curves quoted in another mint (e.g. USDC, 2026 *_v2 instructions): price in quote units.
      const qd = mintDecimals(tx, quoteMint);
      if (qd !== undefined) {
        derived.quote_amount_ui = ui(v.quote_amount, qd);
        const vQuote = ui(v.virtual_quote_reserves, qd);
        if (vQuote !== undefined && vTok) derived.price_quote = vQuote / vTok;
      }
    }
    const meta = nameOf(names, options, v.mint);
    const side = isBuy ? 'buy' : 'sell';
    const bondingCurve = account(call, 'bonding_curve') as string;
    const message = merge(common(tx, call, 'pumpfun', isBuy ? 'BUY' : 'SELL'), v) as PumpfunMessage;
    message.side = side;
    message.bonding_curve = bondingCurve;
    putDefined(message, derived);
    putName(message, meta);
    message.type = PUMPFUN_MESSAGE_TYPE;
    message.data = tradeData(tx, {
      symbol: meta?.symbol,
      price: derived.price_sol,
      // Non-SOL curves move no SOL (sol_amount 0): their volume is in quote_amount, not here.
      volume: sol ? derived.sol_amount_ui : undefined,
      side,
      eventTimestamp: v.timestamp,
      bondingCurve,
    });
    out.push({ order: call.order, message });
  }
  return out;
}
