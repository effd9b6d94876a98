import { decodeInstructionArgs } from './anchor-values.js';
import { pumpCodec } from './idl.js';
import { SOL_DECIMALS, WSOL_MINT, account, common, defined, mintDecimals, programCalls, ui } from './program.js';
import type { DecodeOptions } from './program.js';
import type { NormalizedTransaction } from './transaction.js';
import type { PumpfunMessage } from './types.js';

/** Decimals of every pump.fun bonding-curve mint (pump.fun creates all its mints with 6). */
export const PUMPFUN_TOKEN_DECIMALS = 6;
/** Quote mints that mean SOL: native SOL as the program writes it (system program id) and wrapped SOL. */
const SOL_QUOTES = new Set(['11111111111111111111111111111111', WSOL_MINT]);

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
 * found (truncated logs, no emit_cpi) yields nothing.
 */
export function decodePumpfun(tx: NormalizedTransaction, options: DecodeOptions = {}): { order: number; message: PumpfunMessage }[] {
  const codec = pumpCodec();
  const calls = programCalls(tx, codec, [], options);
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
    const complete = call.events.find((e) => e.name === 'CompleteEvent');
    if (complete) {
      // Same instruction as the completing BUY: sorted just after it; messageId adds `:COMPLETE`.
      const message = {
        ...common(tx, call, 'pumpfun', 'COMPLETE'),
        ...complete.values,
        bonding_curve: (complete.values.bonding_curve as string | undefined) ?? account(call, 'bonding_curve'),
      } as PumpfunMessage;
      out.push({ order: call.order + 0.5, message });
    }
    if (MIGRATE.test(n)) {
      // No event = nothing moved (e.g. a bot's late migrate logs "Bonding curve already migrated").
      const ev = call.events.find((e) => e.name === 'CompletePumpAmmMigrationEvent');
      if (!ev) continue;
      const message = {
        ...common(tx, call, 'pumpfun', 'MIGRATE'),
        ...defined({
          mint: account(call, 'mint') ?? account(call, 'base_mint'),
          bonding_curve: account(call, 'bonding_curve'),
          pool: account(call, 'pool'),
          user: account(call, 'user'),
          withdraw_authority: account(call, 'withdraw_authority'),
          quote_mint: account(call, 'quote_mint'),
        }),
        ...ev.values,
      } as PumpfunMessage;
      const mint = typeof message.mint === 'string' ? names.get(message.mint) : undefined;
      Object.assign(message, defined({ name: mint?.name, symbol: mint?.symbol }));
      const solUi = ui(message.sol_amount, SOL_DECIMALS);
      if (solUi !== undefined) message.sol_amount_ui = solUi;
      out.push({ order: call.order, message });
      continue;
    }
    if (CREATE.test(n)) {
      const ev = call.events.find((e) => e.name === 'CreateEvent');
      const base = ev
        ? ev.values
        : defined({
            ...decodeInstructionArgs(codec, call.ix.data ?? new Uint8Array(), n),
            mint: account(call, 'mint'),
            user: account(call, 'user'),
          });
      const message = {
        ...common(tx, call, 'pumpfun', 'CREATE'),
        ...base,
        bonding_curve: account(call, 'bonding_curve') ?? (base.bonding_curve as string),
      } as PumpfunMessage;
      out.push({ order: call.order, message });
      continue;
    }
    if (!BUY.test(n) && !SELL.test(n)) continue;
    const ev = call.events.find((e) => e.name === 'TradeEvent');
    if (!ev) continue;
    const v = ev.values;
    const isBuy = typeof v.is_buy === 'boolean' ? v.is_buy : BUY.test(n);
    const quoteMint = typeof v.quote_mint === 'string' ? v.quote_mint : undefined;
    const solQuoted = quoteMint === undefined || SOL_QUOTES.has(quoteMint);
    const derived: Record<string, number | undefined> = {
      sol_amount_ui: ui(v.sol_amount, SOL_DECIMALS),
      token_amount_ui: ui(v.token_amount, PUMPFUN_TOKEN_DECIMALS),
    };
    const vTok = ui(v.virtual_token_reserves, PUMPFUN_TOKEN_DECIMALS);
    if (solQuoted) {
      const vSol = ui(v.virtual_sol_reserves, SOL_DECIMALS);
      if (vSol !== undefined && vTok) derived.price_sol = vSol / vTok;
    } else if (quoteMint) {
      // Curves quoted in another mint (e.g. USDC, 2026 *_v2 instructions): price in quote units.
      const qd = mintDecimals(tx, quoteMint);
      if (qd !== undefined) {
        derived.quote_amount_ui = ui(v.quote_amount, qd);
        const vQuote = ui(v.virtual_quote_reserves, qd);
        if (vQuote !== undefined && vTok) derived.price_quote = vQuote / vTok;
      }
    }
    const mint = typeof v.mint === 'string' ? v.mint : undefined;
    const meta = mint ? names.get(mint) : undefined;
    const message = {
      ...common(tx, call, 'pumpfun', isBuy ? 'BUY' : 'SELL'),
      ...v,
      side: isBuy ? 'buy' : 'sell',
      bonding_curve: account(call, 'bonding_curve'),
      ...defined(derived),
      ...defined({ name: meta?.name, symbol: meta?.symbol }),
    } as PumpfunMessage;
    out.push({ order: call.order, message });
  }
  return out;
}
