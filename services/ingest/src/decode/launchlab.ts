import { decodeInstructionArgs } from './anchor-values.js';
import type { LegacyLayout } from './event-decode.js';
import { launchlabCodec } from './idl.js';
import { SOL_DECIMALS, WSOL_MINT, account, common, eventNamed, isLetsbonk, mintDecimals, programCalls, put, putDefined, ui } from './program.js';
import type { ProgramCall } from './program.js';
import { merge } from './shape.js';
import type { CallIndex, DecodeOptions } from './program.js';
import type { NormalizedTransaction } from './transaction.js';
import type { BonkMessage } from './types.js';

// LetsBonk pools are quoted in WSOL; other LaunchLab platforms use other quotes (e.g. pSo1f9… in launchlab/1Dnj…).

/**
 * The 2025 TradeEvent (130-byte payload): the IDL's TradeEvent (139 bytes)
 * without `creator_fee` (which the program later INSERTED between platform_fee
 * and share_fee) and without the trailing `exact_in`. Not a prefix of the IDL
 * layout, so it is matched by exact length. Evidence: in the 2025 fixtures the
 * 130-byte payload read this way ends exactly after pool_status, trade_direction
 * is 0/1, and the amounts agree with the token balances (test/decode.test.ts).
 */
function legacyLayouts(): LegacyLayout[] {
  const codec = launchlabCodec();
  const trade = codec.eventsByDisc.get(Buffer.from(codec.idl.events?.find((e) => e.name === 'TradeEvent')?.discriminator ?? []).toString('hex'));
  if (!trade) return [];
  return [{ event: 'TradeEvent', name: 'launchlab-2025-130B', fields: trade.fields.filter((f) => f.name !== 'creator_fee' && f.name !== 'exact_in') }];
}

let legacy: LegacyLayout[] | undefined;

/** The older LaunchLab event layouts the decoder accepts (built once from the IDL). */
export function launchlabLegacyLayouts(): LegacyLayout[] {
  legacy ??= legacyLayouts();
  return legacy;
}

const CREATE = /^initialize(_v\d+|_with_token_2022)?$/;
const BUY = /^buy_exact_(in|out)$/;
const SELL = /^sell_exact_(in|out)$/;
const MIGRATE = /^migrate_to_(amm|cpswap)$/;

/** Raw amount by which `vault`'s token balance fell in `tx` (decimal string), or undefined when not recorded. */
function vaultOutflow(tx: NormalizedTransaction, vault: string | undefined): string | undefined {
  if (!vault) return undefined;
  const i = tx.accountKeys.indexOf(vault);
  if (i < 0) return undefined;
  const pre = tx.preTokenBalances.find((b) => b.accountIndex === i);
  const post = tx.postTokenBalances.find((b) => b.accountIndex === i);
  if (!pre) return undefined;
  return (BigInt(pre.amount) - BigInt(post?.amount ?? '0')).toString();
}

function tradeAccounts(call: ProgramCall): Record<string, string | undefined> {
  return {
    payer: account(call, 'payer'),
    pool_state: account(call, 'pool_state'),
    base_mint: account(call, 'base_token_mint'),
    quote_mint: account(call, 'quote_token_mint'),
    base_vault: account(call, 'base_vault'),
    quote_vault: account(call, 'quote_vault'),
    global_config: account(call, 'global_config'),
    platform_config: account(call, 'platform_config'),
    user_base_token: account(call, 'user_base_token'),
    user_quote_token: account(call, 'user_quote_token'),
  };
}

/**
 * LetsBonk.fun / Raydium LaunchLab trades in `tx` with their execution order:
 * initialize / initialize_v2 / initialize_with_token_2022 → CREATE (accounts,
 * `base_mint_param` from the instruction args, PoolCreateEvent fields),
 * buy_exact_in/out → BUY and sell_exact_in/out → SELL (TradeEvent). Mapping:
 * buy: sol_amount = amount_in, token_amount = amount_out; sell: token_amount =
 * amount_in, sol_amount = amount_out. `index`: the transaction's calls from
 * indexProgramCalls (else they are looked up here).
 */
export function decodeLaunchlab(tx: NormalizedTransaction, options: DecodeOptions = {}, index?: CallIndex): { order: number; message: BonkMessage }[] {
  const codec = launchlabCodec();
  const out: { order: number; message: BonkMessage }[] = [];
  for (const call of index?.get(codec) ?? programCalls(tx, codec, launchlabLegacyLayouts(), options)) {
    const n = call.def.name;
    const migrate = MIGRATE.exec(n);
    if (migrate) {
      // No event exists for migration; the amounts are what left the curve's vaults (chain balances).
      // migrate_to_amm passes no platform_config account (it lives in pool_state's data): null there.
      const platformConfig = account(call, 'platform_config') ?? null;
      const baseVault = account(call, 'base_vault');
      const quoteVault = account(call, 'quote_vault');
      const message = putDefined(common(tx, call, 'bonk', 'MIGRATE'), {
        payer: account(call, 'payer'),
        pool_state: account(call, 'pool_state'),
        base_mint: account(call, 'base_mint'),
        quote_mint: account(call, 'quote_mint'),
        base_vault: baseVault,
        quote_vault: quoteVault,
        global_config: account(call, 'global_config'),
        migrate_to: migrate[1] === 'amm' ? 'raydium_amm_v4' : 'raydium_cpmm',
        amm_pool: account(call, migrate[1] === 'amm' ? 'amm_pool' : 'cpswap_pool'),
        base_amount: vaultOutflow(tx, baseVault),
        quote_amount: vaultOutflow(tx, quoteVault),
      }) as BonkMessage;
      message.platform_config = platformConfig;
      message.is_letsbonk = isLetsbonk(platformConfig, options);
      out.push({ order: call.order, message });
      continue;
    }
    if (CREATE.test(n)) {
      const ev = eventNamed(call, 'PoolCreateEvent');
      const args = decodeInstructionArgs(codec, call.ix.data ?? new Uint8Array(), n);
      const message = putDefined(common(tx, call, 'bonk', 'CREATE'), {
        payer: account(call, 'payer'),
        creator: account(call, 'creator'),
        pool_state: account(call, 'pool_state'),
        base_mint: account(call, 'base_mint'),
        quote_mint: account(call, 'quote_mint'),
        base_vault: account(call, 'base_vault'),
        quote_vault: account(call, 'quote_vault'),
        global_config: account(call, 'global_config'),
        platform_config: account(call, 'platform_config'),
      }) as BonkMessage;
      put(message, ev?.values);
      put(message, args);
      message.is_letsbonk = isLetsbonk(account(call, 'platform_config'), options);
      out.push({ order: call.order, message });
      continue;
    }
    if (!BUY.test(n) && !SELL.test(n)) continue;
    const ev = eventNamed(call, 'TradeEvent');
    if (!ev) continue;
    const v = ev.values;
    const isBuy = v.trade_direction === 'Buy' || (v.trade_direction === undefined && BUY.test(n));
    const accounts = tradeAccounts(call);
    const solAmount = isBuy ? v.amount_in : v.amount_out;
    const tokenAmount = isBuy ? v.amount_out : v.amount_in;
    const baseDecimals = accounts.base_mint ? mintDecimals(tx, accounts.base_mint) : undefined;
    const solQuoted = accounts.quote_mint === WSOL_MINT;
    const quoteDecimals = solQuoted ? SOL_DECIMALS : accounts.quote_mint ? mintDecimals(tx, accounts.quote_mint) : undefined;
    const derived: Record<string, number | undefined> = {};
    if (solQuoted) derived.sol_amount_ui = ui(solAmount, SOL_DECIMALS);
    else if (quoteDecimals !== undefined) derived.quote_amount_ui = ui(solAmount, quoteDecimals);
    if (baseDecimals !== undefined) derived.token_amount_ui = ui(tokenAmount, baseDecimals);
    if (baseDecimals !== undefined && quoteDecimals !== undefined) {
      // raydium-sdk-V2 launchpad ConstantProductCurve.getPoolPrice:
      // (virtualB + realB) / (virtualA − realA) × 10^(decimalA − decimalB), A = base, B = quote.
      if (
        typeof v.virtual_quote === 'string' &&
        typeof v.real_quote_after === 'string' &&
        typeof v.virtual_base === 'string' &&
        typeof v.real_base_after === 'string'
      ) {
        const quote = Number(BigInt(v.virtual_quote) + BigInt(v.real_quote_after));
        const base = Number(BigInt(v.virtual_base) - BigInt(v.real_base_after));
        const price = base > 0 ? (quote / base) * 10 ** (baseDecimals - quoteDecimals) : undefined;
        if (solQuoted) derived.price_sol = price;
        else derived.price_quote = price;
      }
    }
    const message = merge(putDefined(common(tx, call, 'bonk', isBuy ? 'BUY' : 'SELL'), accounts), v) as BonkMessage;
    message.side = isBuy ? 'buy' : 'sell';
    if (solAmount !== undefined) message.sol_amount = solAmount as string;
    if (tokenAmount !== undefined) message.token_amount = tokenAmount as string;
    putDefined(message, derived);
    message.is_letsbonk = isLetsbonk(accounts.platform_config, options);
    out.push({ order: call.order, message });
  }
  return out;
}
