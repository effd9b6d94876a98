import { Ajv2020 } from 'ajv/dist/2020.js';
import bs58 from 'bs58';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { decodeEvent } from './event-decode.js';
import { raydiumCpmmCodec } from './idl.js';
import { WSOL_MINT } from './program.js';
import { decodeRaydiumCpmm } from './raydium-cpmm.js';
import type { NormalizedInstruction, NormalizedTransaction, TokenBalance } from './transaction.js';

// A 2026 Raydium CPMM SwapEvent `Program data:` log line (8-byte discriminator + 162-byte payload), from the
// shared fixture list raydium-cpmm/events.json, which took it from SemyonShilin/sol-parser-sdk
// tests/fixtures/rpc_corpus/cpmm_0.json @ 51407403089f3cbe1804b265623d1e4a39660b9c: tx
// 2LMzxp9Y9YE7Adw8SK5jY1EGtSnCmBY7LS6u4BuC9VWTruGoiokzMUM5wEZ5oDwmAb3XjDk4zcvSAXc5RSbe5o63, slot 453452014
// (the same transaction is in recording/raydium-cpmm/).
const SWAP_2026 =
  'QMbN6CYIceLkWH7JAJITSErXCXaUJEw1JyYRfID2Sa8jNNfNfbV2t3qk0NYFAAAA62lwH+w7AAArCFcAAAAAAOVAx3EDAAAAAAAAAAAAAABAWtEIAAAAAAEH6AObtK1M95w4PkPAxR3RhTdAUSt50PlCEpI0UdADg7hw5j8nrrXVsR+eGJj1GaycoOTp/aEoVWUMHoRW0s5PtDcAAAAAAADN3gAAAAAAAAE=';

const CPMM = 'CPMMoo8L3F4NbTegBCKVNunggL7H1ZpdTHKxQB5qKP1C';
/** Made-up pool and token addresses for the synthetic transactions below. */
const POOL = bs58.encode(new Uint8Array(32).fill(201));
const TOKEN = bs58.encode(new Uint8Array(32).fill(202));

const schema = JSON.parse(readFileSync(new URL('../../../../packages/contracts/schemas/premium.raydium.schema.json', import.meta.url), 'utf8')) as object;
const validate = new Ajv2020({ allErrors: true, strict: true, strictRequired: false }).compile(schema);

const codec = raydiumCpmmCodec();

function idlInstruction(name: string): (typeof codec.idl.instructions)[number] {
  const ix = codec.idl.instructions.find((i) => i.name === name);
  if (!ix) throw new Error(name);
  return ix;
}

function eventDisc(name: string): number[] {
  const ev = codec.idl.events?.find((e) => e.name === name);
  if (!ev) throw new Error(name);
  return ev.discriminator;
}

const u64le = (v: bigint): number[] => {
  const b = Buffer.alloc(8);
  b.writeBigUInt64LE(v);
  return [...b];
};
const key = (k: string): number[] => [...bs58.decode(k)];

/** Accounts of instruction `name`: IDL order, named ones from `named`, the rest placeholders. */
function accountsFor(name: string, named: Record<string, string>): string[] {
  return idlInstruction(name).accounts.map((a, i) => named[a.name] ?? bs58.encode(new Uint8Array(32).fill(i + 1)));
}

/** A one-instruction CPMM transaction; `event` (if any) is logged as `Program data:` the way CPMM emits it. */
function syntheticTx(outer: NormalizedInstruction, event: Uint8Array | null, balances: TokenBalance[], truncated = false): NormalizedTransaction {
  const logs = [`Program ${CPMM} invoke [1]`, 'Program log: Instruction: Test'];
  if (truncated) logs.push('Log truncated');
  else
    logs.push(
      ...(event ? [`Program data: ${Buffer.from(event).toString('base64')}`] : []),
      `Program ${CPMM} consumed 1 of 2 compute units`,
      `Program ${CPMM} success`,
    );
  return {
    signature: '1111111111111111111111111111111111111111111111111111111111111111',
    slot: 1,
    commitment: 'confirmed',
    blockTimeMs: 1_000,
    accountKeys: [],
    instructions: [{ outer, inner: [] }],
    logs,
    err: null,
    fee: 5000,
    preBalances: [],
    postBalances: [],
    preTokenBalances: balances,
    postTokenBalances: balances,
  };
}

const tokenBalance: TokenBalance = { accountIndex: 0, mint: TOKEN, owner: null, amount: '0', decimals: 6 };

describe('Raydium CPMM SwapEvent layouts', () => {
  it('when the 2026 SwapEvent (162 B) is decoded, then the appended mints and fees come out', () => {
    const ev = decodeEvent(codec, Buffer.from(SWAP_2026, 'base64'));
    expect(ev).toMatchObject({ name: 'SwapEvent', payloadBytes: 162, layout: 'idl' });
    expect(ev?.values).toEqual({
      pool_id: 'GNNDoaH6fEZ8NHhzYRbZuwGTkTfSZhzUmwJU8j9GbD8r',
      input_vault_before: '25078834298',
      output_vault_before: '65885325781483',
      input_amount: '5703723',
      output_amount: '14793785573',
      input_transfer_fee: '0',
      output_transfer_fee: '147937856',
      base_input: true,
      input_mint: 'Xs3oZwbHvqis4NYcf4YKWmEia2eC84wSiVrcYcTqpH8',
      output_mint: 'DQysBW79uHzZAWd2ahVQrf89CuSFqVzuNA3ijHbjVJfG',
      trade_fee: '14260',
      creator_fee: '57037',
      creator_fee_on_input: true,
    });
  });

  it('when only the first 81 payload bytes are there (2024 layout), then the five 2026 fields are absent', () => {
    const ev = decodeEvent(codec, Buffer.from(SWAP_2026, 'base64').subarray(0, 8 + 81));
    expect(ev).toMatchObject({ name: 'SwapEvent', payloadBytes: 81, layout: 'idl-prefix' });
    expect(ev?.values.output_transfer_fee).toBe('147937856');
    expect(ev?.values.base_input).toBe(true);
    for (const k of ['input_mint', 'output_mint', 'trade_fee', 'creator_fee', 'creator_fee_on_input']) expect(ev && k in ev.values).toBe(false);
  });
});

describe('decodeRaydiumCpmm on synthetic transactions', () => {
  // A WSOL → TOKEN swap_base_output on a pool with a 1% Token-2022 transfer fee on TOKEN and the creator fee on the output.
  const swapEvent = Uint8Array.from([
    ...eventDisc('SwapEvent'),
    ...key(POOL),
    ...u64le(100_000_000_000n), // input_vault_before (WSOL)
    ...u64le(1_000_000_000_000n), // output_vault_before (TOKEN)
    ...u64le(1_002_507_520n), // input_amount
    ...u64le(9_900_000_000n), // output_amount
    ...u64le(0n), // input_transfer_fee
    ...u64le(99_000_000n), // output_transfer_fee
    0, // base_input: false (swap_base_output)
    ...key(WSOL_MINT),
    ...key(TOKEN),
    ...u64le(2_506_269n), // trade_fee
    ...u64le(990_000n), // creator_fee
    0, // creator_fee_on_input: false
  ]);
  const swapAccounts = accountsFor('swap_base_output', { pool_state: POOL, input_token_mint: WSOL_MINT, output_token_mint: TOKEN });
  const swapData = Uint8Array.from([...idlInstruction('swap_base_output').discriminator, ...u64le(1_100_000_000n), ...u64le(9_801_000_000n)]);
  const swapIx: NormalizedInstruction = { programId: CPMM, accounts: swapAccounts, data: swapData, path: [0], stackHeight: 1 };

  it('when swap_base_output logs its SwapEvent, then SWAP has the actual amounts, the max_amount_in limit, side and price', () => {
    const msgs = decodeRaydiumCpmm(syntheticTx(swapIx, swapEvent, [tokenBalance]));
    expect(msgs).toHaveLength(1);
    const m = msgs[0]?.message;
    expect(m).toMatchObject({
      source: 'raydium_cpmm',
      transaction_type: 'SWAP',
      pool_state: POOL,
      input_mint: WSOL_MINT,
      output_mint: TOKEN,
      amount_in: '1002507520', // input_amount + input_transfer_fee
      amount_out: '9801000000', // output_amount − output_transfer_fee = the instruction's amount_out
      max_amount_in: '1100000000',
      base_input: false,
      mint: TOKEN,
      side: 'buy',
      sol_amount_ui: 1.00250752,
      token_amount_ui: 9801,
    });
    // swap_base_output has no minimum_amount_out: present (spec §3 names it on every swap) and null.
    expect(m && 'minimum_amount_out' in m).toBe(true);
    expect(m?.minimum_amount_out).toBeNull();
    // Reserves after: WSOL 100e9 + 1002507520; TOKEN 1e12 − 9.9e9 − 990000 (creator fee taken from the output).
    expect(m?.price_sol).toBeCloseTo(101.00250752 / ((1e12 - 9.9e9 - 990000) / 1e6), 12);
    expect(validate(m), JSON.stringify(validate.errors)).toBe(true);
  });

  it('when the log is truncated before the SwapEvent, then the swap yields nothing', () => {
    expect(decodeRaydiumCpmm(syntheticTx(swapIx, swapEvent, [tokenBalance], true))).toEqual([]);
  });

  it('when deposit logs an LpChangeEvent, then DEPOSIT has accounts, args, event and the price after', () => {
    const lp = Uint8Array.from([
      ...eventDisc('LpChangeEvent'),
      ...key(POOL),
      ...u64le(5_000_000n), // lp_amount_before
      ...u64le(50_000_000_000n), // token_0_vault_before (WSOL)
      ...u64le(2_000_000_000_000n), // token_1_vault_before (TOKEN)
      ...u64le(1_000_000_000n), // token_0_amount
      ...u64le(40_000_000_000n), // token_1_amount
      ...u64le(0n),
      ...u64le(400_000_000n), // token_1_transfer_fee
      0, // change_type: deposit
    ]);
    const accounts = accountsFor('deposit', { pool_state: POOL, vault_0_mint: WSOL_MINT, vault_1_mint: TOKEN });
    const data = Uint8Array.from([...idlInstruction('deposit').discriminator, ...u64le(100_000n), ...u64le(1_010_000_000n), ...u64le(40_800_000_000n)]);
    const m = decodeRaydiumCpmm(syntheticTx({ programId: CPMM, accounts, data, path: [0], stackHeight: 1 }, lp, [tokenBalance]))[0]?.message;
    expect(m).toMatchObject({
      transaction_type: 'DEPOSIT',
      lp_token_amount: '100000',
      maximum_token_0_amount: '1010000000',
      token_1_amount: '40000000000',
      change_type: 0,
      mint: TOKEN,
      sol_amount_ui: 1,
      token_amount_ui: 40000,
    });
    expect(m?.price_sol).toBeCloseTo(51 / 2_040_000, 15);
    expect(validate(m), JSON.stringify(validate.errors)).toBe(true);
  });

  it('when initialize runs (no event), then CREATE_POOL comes from its accounts and arguments', () => {
    const accounts = accountsFor('initialize', { pool_state: POOL, token_0_mint: WSOL_MINT, token_1_mint: TOKEN });
    const data = Uint8Array.from([...idlInstruction('initialize').discriminator, ...u64le(10_000_000_000n), ...u64le(500_000_000_000n), ...u64le(0n)]);
    const m = decodeRaydiumCpmm(syntheticTx({ programId: CPMM, accounts, data, path: [0], stackHeight: 1 }, null, [tokenBalance]))[0]?.message;
    expect(m).toMatchObject({
      transaction_type: 'CREATE_POOL',
      init_amount_0: '10000000000',
      init_amount_1: '500000000000',
      open_time: '0',
      mint: TOKEN,
      sol_amount_ui: 10,
      token_amount_ui: 500000,
    });
    expect(m?.price_sol).toBeCloseTo(10 / 500000, 15);
    expect(validate(m), JSON.stringify(validate.errors)).toBe(true);
  });
});
