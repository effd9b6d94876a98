import { Ajv2020 } from 'ajv/dist/2020.js';
import bs58 from 'bs58';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { decodeEvent } from './event-decode.js';
import { EVENT_IX_TAG } from './events.js';
import { pumpAmmCodec } from './idl.js';
import { WSOL_MINT } from './program.js';
import { decodePumpswap, pumpswapCodec } from './pumpswap.js';
import type { NormalizedInstruction, NormalizedTransaction, TokenBalance } from './transaction.js';

// 2026 PumpSwap emit_cpi inner-instruction data (event-CPI tag + discriminator + payload), from the shared
// fixture list pumpswap/events.json, which took them from pivox/sol-token-listener
// tests/fixtures/pumpswap/{sell-mainnet,migrate-v2-create-pool-mainnet}.json @ 3b25128f75ce4a9921d2e8c985e2c68b527c3ce5.
// SellEvent: tx 3Ap5WXY5heMaD8YmNysSe7P5YFfqfzr6WG1txPDMVf6GfVrMZgRrPbMPwcG9Np9vLaxLCKpuCeNcUzt1wG2nGnKL, slot 437956840, 409-byte payload.
const SELL_2026 =
  'e445a52e51cb9a1d3e2f370aa503dc2aa1e5766a00000000df911d00000000007ffe765f02000000df911d0000000000844c' +
  '51e77a9500004b6fceee3a010000bbb1810b41b01a007cfa7e81020000001900000000000000b58e9a010000000005000000' +
  '000000008b1c520000000000c76be47f020000003c4f927f020000004e6bcb8254ff1a00f79ee955fbb6050ad0f30598a4f3' +
  '98211e5497f4012e334fc279e1ec1e1b41d6184bfc9ddccc0defaed31a9e0270767e82bb61ae8d88f268cb9acb7f16bcb2a5' +
  '3270173943bd75f56bd3904b76b9be156fd4e1d87a3ae103b5b687311272cf90d9b9b95b78b8cfe96625ad7f4b8c80940d62' +
  '2f561538db99638373000ea22cb264d34aff64a04b5efabfbb74ddcd048997b1981547d7d110b6ae9023c96ccf074c00e7a4' +
  'c24521ae955d3c2fd3f4cdc24ad5a75724ce58e6000000000000000000000000000000000000000000000000000000000000' +
  '000000000000000000000000000000000000000000000000000000000000000000008813000000000000450e290000000000' +
  '00000000000000000000000000000000000000000000000000';
// CreatePoolEvent: tx 2eCjkZEuwfbg6B2DngZk9tvk6miFfWhGcDXmQ4BWkPkik5MzjMfxFxBueLV2gV3S6Wad8KDX1a5URaYGxUWdGBtR, slot 437957109, 326-byte payload.
const CREATE_POOL_2026 =
  'e445a52e51cb9a1db1310cd2a076a77413e6766a000000000000fe4461452fbdc817995735f6026d059bf6e238bd2bc0549e' +
  'c965051298c275e2f8db2529e4d93a9dc8cc2f22c475eea8647d1f7090b652309eefc6a80409428f069b8857feab8184fb68' +
  '7f634618c035dac439dc1aeb3b5598a0f000000000010609000801a92cbc000074f6d1c913000000000801a92cbc000074f6' +
  'd1c91300000064000000000000008f4c6b59d00300002b4c6b59d0030000fefa14e440391bedfc42041043353cdef929e37b' +
  '81b21753ec40de147c7cd24d5f02b38aadee59e9eac91fd9d0741436d9957a1708e6d66d8053c73712d620b67eca4f6d1b1e' +
  '7f659b03b41086a053fed43f7c985b49a586e5349a518ccd5119ee521031537f3fef62d3f500084fc1fb90d9aa630e460b55' +
  '3a94679a0febe151c1a2352689c90190b969833a3cd2cb7b1068f5f7d046096a936d57188899d6fa2200';

// 2026-10 BuyEvent of a buy_exact_quote_in (discriminator + 496-byte payload = the installed IDL's 488 bytes + the
// 8-byte creator_fee_unclaimed), the `Program data:` line of recording pumpswap/4Urr… (slot 453665150).
const BUY_EXACT_QUOTE_IN_2026 =
  'Z/RSHyz1d3cW8sNqAAAAANXQKAsAAAAAnG0cAAAAAAAAAAAAAAAAAGqkKgAAAAAAb4L8gqMqAABTHEhzZwAAAJxtHAAAAAAAFAAA' +
  'AAAAAABqDgAAAAAAAAUAAAAAAAAAmwMAAAAAAAD2MxwAAAAAAIwlHAAAAAAA/CmDkovtScO/hY9wAksOi3tpZFzjk0zoGsKoYRp3' +
  'e4ob/pzqDcJSKVWM423U+yjwYqN2s8cwwDb7Spk+nMH+NueIsjXXIGjOjlE4C+fKhc69fbZCnQUotRzuGwtE42E16jR+Qk/T8OV2' +
  'GQFJDxfVPmTRJHaGUQf4fUP3cawE/FFKwvjQ3Vy8l+MonBl8tQYqVPPZVrnOblEV+WVnqlyz5nfZFZVfiIBzHOtKdaDMlsF0+kCV' +
  'xOHZlnrPxChFrmeuCQsNA/Jh2wlOe3AH0Xgn9j8a94SL2ZA+VS5f8P/mB9xLAAAAAAAAAAs2AAAAAAAAAAAAAAAAAAAAAAAAAAAA' +
  'AAAAAAAAAAAAAAAAAAAAAAAA0rOdBQAAAAASAAAAYnV5X2V4YWN0X3F1b3RlX2luAAAAAAAAAAAAAAAAAAAAAIgTAAAAAAAAzQEA' +
  'AAAAAACqtwYYBAAAAAAAAAAAAAAAAZYTbMjMhgMAAAAAAAAAAAAAAAAAAAAAAB6KFwAAAAAA';

const PUMP_AMM = 'pAMMBay6oceH9fJKBRHGP5D4bD4sWpmSwMn52FMfXEA';
/** A made-up base mint for the synthetic transactions below (the event bytes do not name theirs). */
const BASE_MINT = 'BaseMintZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZ';

const schema = JSON.parse(readFileSync(new URL('../../../../packages/contracts/schemas/premium.pumpswap.schema.json', import.meta.url), 'utf8')) as object;
const validate = new Ajv2020({ allErrors: true, strict: true, strictRequired: false }).compile(schema);

const hex = (h: string): Uint8Array => Uint8Array.from(Buffer.from(h, 'hex'));
const withoutTag = (b: Uint8Array): Uint8Array => b.subarray(EVENT_IX_TAG.length);

function disc(name: string): number[] {
  const ix = pumpAmmCodec().idl.instructions.find((i) => i.name === name);
  if (!ix) throw new Error(name);
  return ix.discriminator;
}

function u64le(v: bigint): number[] {
  const b = Buffer.alloc(8);
  b.writeBigUInt64LE(v);
  return [...b];
}

/** Accounts of instruction `name`: IDL order, named ones from `named`, the rest placeholders. */
function accountsFor(name: string, named: Record<string, string>): string[] {
  const ix = pumpAmmCodec().idl.instructions.find((i) => i.name === name);
  if (!ix) throw new Error(name);
  return ix.accounts.map((a, i) => named[a.name] ?? bs58.encode(new Uint8Array(32).fill(i + 1)));
}

/** A one-instruction PumpSwap transaction whose outer instruction emitted `eventCpi` (if any) by emit_cpi. */
function syntheticTx(outer: NormalizedInstruction, eventCpi: Uint8Array | null, balances: TokenBalance[] = []): NormalizedTransaction {
  // emit_cpi passes one account, the program's event authority (PDA "__event_authority").
  const inner: NormalizedInstruction[] = eventCpi
    ? [{ programId: PUMP_AMM, accounts: ['GS4CU59F31iL7aR2Q8zVS8DRrcRnXX1yjQ66TqNVQnaR'], data: eventCpi, path: [0, 0], stackHeight: 2 }]
    : [];
  return {
    signature: '1111111111111111111111111111111111111111111111111111111111111111',
    slot: 1,
    commitment: 'confirmed',
    blockTimeMs: 1_000,
    accountKeys: [],
    instructions: [{ outer, inner }],
    logs: null,
    err: null,
    fee: 5000,
    preBalances: [],
    postBalances: [],
    preTokenBalances: balances,
    postTokenBalances: balances,
  };
}

describe('PumpSwap 2026 event layouts', () => {
  it('when the 2026 SellEvent (409 B) is decoded, then fields up to base_supply are present and holder_rewards* absent', () => {
    const ev = decodeEvent(pumpAmmCodec(), withoutTag(hex(SELL_2026)));
    expect(ev).toMatchObject({ name: 'SellEvent', payloadBytes: 409, layout: 'idl-prefix' });
    expect(ev?.values).toMatchObject({
      pool: '6H88paP8vd1xMwUBfxbPt9mSDfdCzzgwDgq3GMFGBdiv',
      base_amount_in: '1937887',
      quote_amount_out: '10762517116',
      lp_fee: '26906293',
      protocol_fee: '5381259',
      user_quote_amount_out: '10730229564',
      buyback_fee_basis_points: '5000',
      buyback_fee: '2690629',
      virtual_quote_reserves: '0',
      can_boost: false,
      base_supply: '0',
    });
    expect(ev && 'holder_rewards_bps' in ev.values).toBe(false);
    expect(ev && 'holder_rewards' in ev.values).toBe(false);
    // Fees accounted for: the user gets the curve output minus LP, protocol and creator fees (the
    // buyback fee is part of the protocol fee: 5000 bps of it).
    const n = (k: string): bigint => BigInt(ev?.values[k] as string);
    expect(n('quote_amount_out') - n('lp_fee') - n('protocol_fee') - n('coin_creator_fee')).toBe(n('user_quote_amount_out'));
    expect(n('quote_amount_out') - n('lp_fee')).toBe(n('quote_amount_out_without_lp_fee'));
    expect((n('protocol_fee') * n('buyback_fee_basis_points')) / 10_000n).toBe(n('buyback_fee'));
  });

  it('when the 2026 CreatePoolEvent (326 B) is decoded, then is_mayhem_mode is present and the later fields absent', () => {
    const ev = decodeEvent(pumpAmmCodec(), withoutTag(hex(CREATE_POOL_2026)));
    expect(ev).toMatchObject({ name: 'CreatePoolEvent', payloadBytes: 326, layout: 'idl-prefix' });
    expect(ev?.values).toMatchObject({
      base_mint: 'HkRvV6TfbGDnhbAaXctBfc8yfqWignizwakktB1Dpump',
      quote_mint: WSOL_MINT,
      base_mint_decimals: 6,
      pool_base_amount: '206900000000000',
      pool_quote_amount: '84990359156',
      is_mayhem_mode: false,
    });
    for (const k of ['creator_fee_bps', 'can_edit_creator_fee', 'is_holder_reward']) expect(ev && k in ev.values).toBe(false);
  });

  it('when a 432-byte BuyEvent (2026 layout, ix_name "buy") is decoded, then it reads as a prefix ending at buyback_fee', () => {
    // Synthetic bytes: no 2026 BuyEvent is in the fixtures, so one is encoded field by field in IDL
    // order up to buyback_fee, which gives the 432-byte size the 2026 program emits.
    const codec = pumpAmmCodec();
    const def = [...codec.eventsByDisc.entries()].find(([, e]) => e.name === 'BuyEvent');
    if (!def) throw new Error('BuyEvent');
    const parts: number[] = [...Buffer.from(def[0], 'hex')];
    const pool = bs58.decode('6H88paP8vd1xMwUBfxbPt9mSDfdCzzgwDgq3GMFGBdiv');
    for (const f of def[1].fields) {
      if (f.type === 'pubkey') parts.push(...pool);
      else if (f.type === 'bool') parts.push(1);
      else if (f.type === 'string') parts.push(...[3, 0, 0, 0], ...Buffer.from('buy'));
      else parts.push(...u64le(7n)); // u64 / i64
      if (f.name === 'buyback_fee') break;
    }
    const ev = decodeEvent(codec, Uint8Array.from(parts));
    expect(ev).toMatchObject({ name: 'BuyEvent', payloadBytes: 432, layout: 'idl-prefix' });
    expect(ev?.values).toMatchObject({ ix_name: 'buy', track_volume: true, buyback_fee: '7', min_base_amount_out: '7' });
    for (const k of ['virtual_quote_reserves', 'can_boost', 'base_supply', 'holder_rewards']) expect(ev && k in ev.values).toBe(false);
  });

  it('when the 2026-10 BuyEvent (496 B) is decoded with pumpswapCodec, then the 8 bytes after holder_rewards are creator_fee_unclaimed', () => {
    const bytes = Uint8Array.from(Buffer.from(BUY_EXACT_QUOTE_IN_2026, 'base64'));
    const ev = decodeEvent(pumpswapCodec(), bytes);
    expect(ev).toMatchObject({ name: 'BuyEvent', payloadBytes: 496, layout: 'idl' });
    expect(ev?.values).toMatchObject({
      ix_name: 'buy_exact_quote_in',
      holder_rewards: '0',
      virtual_quote_reserves: '17582962602',
      creator_fee_unclaimed: '1542686',
    });
    // The installed IDL alone stops at holder_rewards and ignores the 8 bytes.
    const plain = decodeEvent(pumpAmmCodec(), bytes);
    expect(plain?.layout).toBe('idl');
    expect(plain && 'creator_fee_unclaimed' in plain.values).toBe(false);
    // Without them (a Buy/SellEvent emitted before the field existed) the field is absent, the rest read as before.
    const older = decodeEvent(pumpswapCodec(), bytes.subarray(0, bytes.length - 8));
    expect(older).toMatchObject({ payloadBytes: 488, layout: 'idl-prefix' });
    expect(older?.values.holder_rewards).toBe('0');
    expect(older && 'creator_fee_unclaimed' in older.values).toBe(false);
    // Only BuyEvent and SellEvent get the field; the base codec is left as it is.
    const names = (c: ReturnType<typeof pumpAmmCodec>): string[] =>
      [...c.eventsByDisc.values()]
        .filter((e) => e.fields.some((f) => f.name === 'creator_fee_unclaimed'))
        .map((e) => e.name)
        .sort();
    expect(names(pumpswapCodec())).toEqual(['BuyEvent', 'SellEvent']);
    expect(names(pumpAmmCodec())).toEqual([]);
  });
});

describe('decodePumpswap on synthetic transactions', () => {
  const sellAccounts = { pool: '6H88paP8vd1xMwUBfxbPt9mSDfdCzzgwDgq3GMFGBdiv', base_mint: BASE_MINT, quote_mint: WSOL_MINT };

  it('when a sell emits the 2026 SellEvent, then SELL carries the event, derived reserves and price, and validates', () => {
    const data = Uint8Array.from([...disc('sell'), ...u64le(1937887n), ...u64le(10191568511n)]);
    const outer = { programId: PUMP_AMM, accounts: accountsFor('sell', sellAccounts), data, path: [0], stackHeight: 1 };
    // Base decimals come from the transaction's token balances (synthetic: 6).
    const bal: TokenBalance = { accountIndex: 0, mint: BASE_MINT, owner: null, amount: '0', decimals: 6 };
    const msgs = decodePumpswap(syntheticTx(outer, hex(SELL_2026), [bal]));
    expect(msgs).toHaveLength(1);
    const m = msgs[0]?.message;
    expect(m).toMatchObject({
      source: 'pumpswap',
      transaction_type: 'SELL',
      side: 'sell',
      pool: sellAccounts.pool,
      base_mint: BASE_MINT,
      mint: BASE_MINT,
      quote_mint: WSOL_MINT,
      virtual_quote_reserves: '0',
      // pool_base 1352626237259 + 1937887; pool_quote 7512142806888891 − (10762517116 − 26906293)
      pool_base_token_reserves_after: '1352628175146',
      pool_quote_token_reserves_after: '7512132071278068',
      token_amount_ui: 1.937887,
      user_quote_amount: '10730229564',
      sol_amount_ui: 10.730229564,
    });
    expect(m?.price_sol).toBeCloseTo(7512132071278068 / 1e9 / (1352628175146 / 1e6), 9);
    expect(m && 'holder_rewards' in m).toBe(false);
    expect(validate(m), JSON.stringify(validate.errors)).toBe(true);
  });

  it('when virtual_quote_reserves is negative, then the price uses the effective quote reserves', () => {
    // The same SellEvent with virtual_quote_reserves (i128 at payload offset 384) set to −1 SOL (synthetic).
    const bytes = Buffer.from(hex(SELL_2026));
    const at = EVENT_IX_TAG.length + 8 + 384;
    bytes.writeBigInt64LE(-1_000_000_000n, at);
    bytes.writeBigInt64LE(-1n, at + 8);
    const data = Uint8Array.from([...disc('sell'), ...u64le(1937887n), ...u64le(0n)]);
    const outer = { programId: PUMP_AMM, accounts: accountsFor('sell', sellAccounts), data, path: [0], stackHeight: 1 };
    const bal: TokenBalance = { accountIndex: 0, mint: BASE_MINT, owner: null, amount: '0', decimals: 6 };
    const m = decodePumpswap(syntheticTx(outer, Uint8Array.from(bytes), [bal]))[0]?.message;
    expect(m?.virtual_quote_reserves).toBe('-1000000000');
    expect(m?.price_sol).toBeCloseTo((7512132071278068 - 1e9) / 1e9 / (1352628175146 / 1e6), 9);
  });

  it('when create_pool emits the 2026 CreatePoolEvent, then CREATE_POOL takes decimals from the event and prices the initial reserves', () => {
    const named = {
      pool: 'HqDQGEqujcpYiGvdK6h6wydcWov8wam8ATayLtS5yPnv',
      base_mint: 'HkRvV6TfbGDnhbAaXctBfc8yfqWignizwakktB1Dpump',
      quote_mint: WSOL_MINT,
      lp_mint: 'BYbyVV9bq2za35eE2EQK6xn8pTe9F56tXxVBeLjWqZw',
    };
    const outer = { programId: PUMP_AMM, accounts: accountsFor('create_pool', named), data: Uint8Array.from(disc('create_pool')), path: [0], stackHeight: 1 };
    const m = decodePumpswap(syntheticTx(outer, hex(CREATE_POOL_2026)))[0]?.message;
    expect(m).toMatchObject({
      transaction_type: 'CREATE_POOL',
      mint: named.base_mint,
      lp_mint: named.lp_mint,
      token_amount_ui: 206900000,
      sol_amount_ui: 84.990359156,
    });
    expect(m && 'side' in m).toBe(false);
    expect(m?.price_sol).toBeCloseTo(84.990359156 / 206900000, 15);
    expect(validate(m), JSON.stringify(validate.errors)).toBe(true);
  });

  it('when buy_exact_quote_in emits its BuyEvent, then the user quote is quote_amount_in (the all-in spend) and the vault grows by quote_amount_in_with_lp_fee', () => {
    // The recorded 4Urr… BuyEvent, as emit_cpi. buy_exact_quote_in fills quote_amount_in with the spend
    // (1863068 = spendable_quote_in) and user_quote_amount_in with the curve input net of fees (1844620).
    const named = { pool: 'HyLTPacbYR4V8yQw5bbWwAETZkjcsRw9xzCbayMnU45o', base_mint: BASE_MINT, quote_mint: WSOL_MINT };
    const data = Uint8Array.from([...disc('buy_exact_quote_in'), ...u64le(1863068n), ...u64le(94221266n)]);
    const outer = { programId: PUMP_AMM, accounts: accountsFor('buy_exact_quote_in', named), data, path: [0], stackHeight: 1 };
    const event = Uint8Array.from([...EVENT_IX_TAG, ...Buffer.from(BUY_EXACT_QUOTE_IN_2026, 'base64')]);
    const bal: TokenBalance = { accountIndex: 0, mint: BASE_MINT, owner: null, amount: '0', decimals: 6 };
    const m = decodePumpswap(syntheticTx(outer, event, [bal]))[0]?.message;
    expect(m).toMatchObject({
      transaction_type: 'BUY',
      side: 'buy',
      ix_name: 'buy_exact_quote_in',
      quote_amount_in: '1863068',
      user_quote_amount_in: '1844620',
      user_quote_amount: '1863068',
      sol_amount_ui: 0.001863068,
      creator_fee_unclaimed: '1542686',
      // 46881765622383 − 187224277; 444315737171 + 1848310
      pool_base_token_reserves_after: '46881578398106',
      pool_quote_token_reserves_after: '444317585481',
    });
    expect(m?.price_sol).toBeCloseTo((444317585481 + 17582962602) / 1e9 / (46881578398106 / 1e6), 15);
    expect(validate(m), JSON.stringify(validate.errors)).toBe(true);
  });

  it('when a trade instruction has no event (logs truncated, no emit_cpi), then it yields nothing', () => {
    const data = Uint8Array.from([...disc('buy'), ...u64le(1n), ...u64le(2n)]);
    const outer = { programId: PUMP_AMM, accounts: accountsFor('buy', sellAccounts), data, path: [0], stackHeight: 1 };
    expect(decodePumpswap(syntheticTx(outer, null))).toEqual([]);
  });

  it('when an instruction is not in the IDL, then onUnknown reports it as an instruction with its discriminator and nothing is produced', () => {
    const seen: string[] = [];
    const outer = { programId: PUMP_AMM, accounts: [], data: hex('0102030405060708ff'), path: [0], stackHeight: 1 };
    expect(
      decodePumpswap(syntheticTx(outer, null), {
        onUnknown: (u) => {
          if (u.kind === 'instruction') seen.push(`${u.programId}:${u.name}`);
        },
      }),
    ).toEqual([]);
    expect(seen).toEqual([`${PUMP_AMM}:0102030405060708`]);
  });
});
