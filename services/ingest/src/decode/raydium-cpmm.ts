import { decodeInstructionArgs } from './anchor-values.js';
import type { DecodedValue } from './borsh-tolerant.js';
import { raydiumCpmmCodec } from './idl.js';
import { SOL_DECIMALS, WSOL_MINT, account, common, eventNamed, mintDecimals, programCalls, put, putDefined, ui } from './program.js';
import { merge } from './shape.js';
import type { CallIndex, DecodeOptions, ProgramCall } from './program.js';
import type { NormalizedTransaction } from './transaction.js';
import type { RaydiumCpmmMessage } from './types.js';

const big = (v: DecodedValue | undefined): bigint | undefined => (typeof v === 'string' && /^\d+$/.test(v) ? BigInt(v) : undefined);

/**
 * The SOL side and the token side of a pair, when exactly one of the two mints
 * is WSOL; undefined otherwise (no SOL price for token/token pools).
 */
function solPair<T>(mintA: string | undefined, a: T, mintB: string | undefined, b: T): { mint: string; sol: T; token: T; solFirst: boolean } | undefined {
  if (mintA === WSOL_MINT && mintB !== undefined && mintB !== WSOL_MINT) return { mint: mintB, sol: a, token: b, solFirst: true };
  if (mintB === WSOL_MINT && mintA !== undefined && mintA !== WSOL_MINT) return { mint: mintA, sol: b, token: a, solFirst: false };
  return undefined;
}

/** SOL per token from raw reserves: (sol / 1e9) / (token / 10^decimals). */
function priceSol(sol: bigint, token: bigint, tokenDecimals: number): number | undefined {
  return token > 0n ? Number(sol) / 10 ** SOL_DECIMALS / (Number(token) / 10 ** tokenDecimals) : undefined;
}

/**
 * swap_base_input / swap_base_output → SWAP. The instruction fixes one side
 * and limits the other; the SwapEvent has what happened:
 *  - amount_in  = input_amount + input_transfer_fee: what left the payer's input
 *    token account (input_amount is what the vault received; a Token-2022
 *    transfer fee is withheld on the way). Equals the swap_base_input argument.
 *  - amount_out = output_amount − output_transfer_fee: what reached the payer's
 *    output token account. Equals the swap_base_output argument.
 *  - minimum_amount_out (swap_base_input) or max_amount_in (swap_base_output):
 *    the instruction's limit; the other limit is null (both are always present).
 * With exactly one WSOL side: mint (the other mint), side (buy = SOL in),
 * sol_amount_ui, token_amount_ui and price_sol, the pool price after the swap
 * from the event's fee-excluded reserves (docs/decoding.md).
 */
function swapMessage(tx: NormalizedTransaction, call: ProgramCall, v: Record<string, DecodedValue>): RaydiumCpmmMessage {
  const codec = raydiumCpmmCodec();
  const args = decodeInstructionArgs(codec, call.ix.data ?? new Uint8Array(), call.def.name);
  const exactIn = call.def.name === 'swap_base_input';
  const acc = {
    payer: account(call, 'payer'),
    authority: account(call, 'authority'),
    amm_config: account(call, 'amm_config'),
    pool_state: account(call, 'pool_state'),
    input_token_account: account(call, 'input_token_account'),
    output_token_account: account(call, 'output_token_account'),
    input_vault: account(call, 'input_vault'),
    output_vault: account(call, 'output_vault'),
    input_mint: account(call, 'input_token_mint'),
    output_mint: account(call, 'output_token_mint'),
  };
  const inAmt = big(v.input_amount);
  const inFee = big(v.input_transfer_fee);
  const outAmt = big(v.output_amount);
  const outFee = big(v.output_transfer_fee);
  const amountIn = inAmt !== undefined && inFee !== undefined ? inAmt + inFee : undefined;
  const amountOut = outAmt !== undefined && outFee !== undefined ? outAmt - outFee : undefined;

  const derived: Record<string, DecodedValue | undefined> = {};
  const pair = solPair(acc.input_mint, 'in' as const, acc.output_mint, 'out' as const);
  const tokenDecimals = pair ? mintDecimals(tx, pair.mint) : undefined;
  if (pair) {
    derived.mint = pair.mint;
    derived.side = pair.sol === 'in' ? 'buy' : 'sell';
    const solRaw = pair.sol === 'in' ? amountIn : amountOut;
    const tokRaw = pair.sol === 'in' ? amountOut : amountIn;
    derived.sol_amount_ui = solRaw === undefined ? undefined : ui(solRaw.toString(), SOL_DECIMALS);
    if (tokenDecimals !== undefined) derived.token_amount_ui = tokRaw === undefined ? undefined : ui(tokRaw.toString(), tokenDecimals);
    // Reserves after the swap, fee-excluded like the program's own (the event's *_vault_before are
    // vault balances minus accrued protocol/fund/creator fees): the input side gains input_amount
    // less a creator fee taken on input, the output side loses output_amount plus a creator fee
    // taken on output (it stays in the vault as an accrued fee). The protocol and fund shares of
    // trade_fee also become accrued fees, but their split is not in the event; they are left in
    // (error ≤ trade_fee, a fraction of a percent of the input).
    const inBefore = big(v.input_vault_before);
    const outBefore = big(v.output_vault_before);
    const creatorFee = big(v.creator_fee) ?? 0n;
    const onInput = v.creator_fee_on_input === true;
    if (inBefore !== undefined && outBefore !== undefined && inAmt !== undefined && outAmt !== undefined && tokenDecimals !== undefined) {
      const inAfter = inBefore + inAmt - (onInput ? creatorFee : 0n);
      const outAfter = outBefore - outAmt - (onInput ? 0n : creatorFee);
      derived.price_sol = pair.sol === 'in' ? priceSol(inAfter, outAfter, tokenDecimals) : priceSol(outAfter, inAfter, tokenDecimals);
    }
  }
  const message = putDefined(common(tx, call, 'raydium_cpmm', 'SWAP'), acc) as RaydiumCpmmMessage;
  if (amountIn !== undefined) message.amount_in = amountIn.toString();
  if (amountOut !== undefined) message.amount_out = amountOut.toString();
  // Both limits on every SWAP (product spec §3 names both); the one the instruction lacks is null.
  message.minimum_amount_out = exactIn ? ((args.minimum_amount_out as string | undefined) ?? null) : null;
  message.max_amount_in = exactIn ? null : ((args.max_amount_in as string | undefined) ?? null);
  return putDefined(merge(message, v), derived);
}

/** Accounts deposit and withdraw share (IDL names). */
function liquidityAccounts(call: ProgramCall): Record<string, string | undefined> {
  return {
    owner: account(call, 'owner'),
    authority: account(call, 'authority'),
    pool_state: account(call, 'pool_state'),
    owner_lp_token: account(call, 'owner_lp_token'),
    token_0_account: account(call, 'token_0_account'),
    token_1_account: account(call, 'token_1_account'),
    token_0_vault: account(call, 'token_0_vault'),
    token_1_vault: account(call, 'token_1_vault'),
    vault_0_mint: account(call, 'vault_0_mint'),
    vault_1_mint: account(call, 'vault_1_mint'),
    lp_mint: account(call, 'lp_mint'),
  };
}

/**
 * Derived values of a pool with one WSOL side from raw token-0/1 amounts moved
 * and reserves after: mint, sol_amount_ui, token_amount_ui, price_sol.
 */
function pairDerived(
  tx: NormalizedTransaction,
  mint0: string | undefined,
  mint1: string | undefined,
  moved: [DecodedValue | undefined, DecodedValue | undefined],
  after: [bigint, bigint] | undefined,
): Record<string, DecodedValue | undefined> {
  const pair = solPair(mint0, 0 as const, mint1, 1 as const);
  if (!pair) return {};
  const dec = mintDecimals(tx, pair.mint);
  const out: Record<string, DecodedValue | undefined> = { mint: pair.mint, sol_amount_ui: ui(moved[pair.sol], SOL_DECIMALS) };
  if (dec !== undefined) {
    out.token_amount_ui = ui(moved[pair.token], dec);
    if (after) out.price_sol = priceSol(after[pair.sol], after[pair.token], dec);
  }
  return out;
}

/**
 * Raydium CPMM (raydium_cp_swap, CPMMoo8L3F4NbTegBCKVNunggL7H1ZpdTHKxQB5qKP1C)
 * messages in `tx` with their execution order:
 *  - swap_base_input / swap_base_output → SWAP (needs its SwapEvent, which CPMM
 *    emits only as a `Program data:` log line; 81-byte 2024 and 162-byte 2026
 *    layouts, the older a prefix of the newer);
 *  - initialize → CREATE_POOL (no event: accounts and the init_amount_0/1,
 *    open_time arguments);
 *  - deposit → DEPOSIT, withdraw → WITHDRAW (LpChangeEvent + accounts + args).
 * Other instructions (fee collection, admin) produce nothing; instructions the
 * IDL does not know (e.g. collect_creator_fee) go to options.onUnknown. `index`: the
 * transaction's calls from indexProgramCalls (else they are looked up here).
 */
export function decodeRaydiumCpmm(tx: NormalizedTransaction, options: DecodeOptions = {}, index?: CallIndex): { order: number; message: RaydiumCpmmMessage }[] {
  const codec = raydiumCpmmCodec();
  const out: { order: number; message: RaydiumCpmmMessage }[] = [];
  for (const call of index?.get(codec) ?? programCalls(tx, codec, [], options)) {
    const n = call.def.name;
    if (n === 'swap_base_input' || n === 'swap_base_output') {
      const ev = eventNamed(call, 'SwapEvent');
      if (!ev) continue;
      out.push({ order: call.order, message: swapMessage(tx, call, ev.values) });
      continue;
    }
    if (n === 'initialize') {
      const args = decodeInstructionArgs(codec, call.ix.data ?? new Uint8Array(), n);
      const acc = {
        creator: account(call, 'creator'),
        amm_config: account(call, 'amm_config'),
        authority: account(call, 'authority'),
        pool_state: account(call, 'pool_state'),
        token_0_mint: account(call, 'token_0_mint'),
        token_1_mint: account(call, 'token_1_mint'),
        lp_mint: account(call, 'lp_mint'),
        creator_token_0: account(call, 'creator_token_0'),
        creator_token_1: account(call, 'creator_token_1'),
        creator_lp_token: account(call, 'creator_lp_token'),
        token_0_vault: account(call, 'token_0_vault'),
        token_1_vault: account(call, 'token_1_vault'),
      };
      // Initial price from the deposited amounts (pool reserves = init amounts, less any Token-2022
      // transfer fee withheld on the way in, which the instruction does not state).
      const a0 = big(args.init_amount_0);
      const a1 = big(args.init_amount_1);
      const message = putDefined(common(tx, call, 'raydium_cpmm', 'CREATE_POOL'), acc) as RaydiumCpmmMessage;
      put(message, args);
      putDefined(
        message,
        pairDerived(
          tx,
          acc.token_0_mint,
          acc.token_1_mint,
          [args.init_amount_0, args.init_amount_1],
          a0 !== undefined && a1 !== undefined ? [a0, a1] : undefined,
        ),
      );
      out.push({ order: call.order, message });
      continue;
    }
    if (n === 'deposit' || n === 'withdraw') {
      const ev = eventNamed(call, 'LpChangeEvent');
      if (!ev) continue;
      const v = ev.values;
      const args = decodeInstructionArgs(codec, call.ix.data ?? new Uint8Array(), n);
      const acc = liquidityAccounts(call);
      const sign = n === 'deposit' ? 1n : -1n;
      const b0 = big(v.token_0_vault_before);
      const b1 = big(v.token_1_vault_before);
      const m0 = big(v.token_0_amount);
      const m1 = big(v.token_1_amount);
      // Fee-excluded reserves after: *_vault_before ± the amounts the vaults received / sent.
      const after: [bigint, bigint] | undefined =
        b0 !== undefined && b1 !== undefined && m0 !== undefined && m1 !== undefined ? [b0 + sign * m0, b1 + sign * m1] : undefined;
      const message = putDefined(common(tx, call, 'raydium_cpmm', n === 'deposit' ? 'DEPOSIT' : 'WITHDRAW'), acc) as RaydiumCpmmMessage;
      put(message, args);
      put(message, v);
      putDefined(message, pairDerived(tx, acc.vault_0_mint, acc.vault_1_mint, [v.token_0_amount, v.token_1_amount], after));
      out.push({ order: call.order, message });
    }
  }
  return out;
}
