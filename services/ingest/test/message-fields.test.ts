/**
 * Product spec §3 "Stream message examples" on real recorded transactions: every kind the spec
 * describes carries every field it names, under its name and with the type the subject's JSON Schema
 * documents, and the values are the chain's (signature, accounts, balance changes, event fields).
 * Also: the message schema version, the token-name cache (a CREATE names later trades of its mint)
 * and the replay order (a create before its token's trades).
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadIngestConfig } from '../src/config.js';
import {
  decodeNormalized,
  decodeTransaction,
  DEFAULT_TOKEN_NAME_CACHE_MAX_ENTRIES,
  normalizeTransaction,
  PUMPFUN_MESSAGE_TYPE,
  subjectOf,
  TokenNameCache,
  TRADE_MESSAGE_SCHEMA_VERSION,
  type TradeMessage,
  type TradeSubject,
} from '../src/decode/index.js';
import type { NormalizedTransaction } from '../src/decode/transaction.js';
import { listJsonFiles, loadRecording, replayOrder, type RecordedTransaction } from '../src/replay/recording.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const recording = join(root, 'recording');
const schemaOf = (subject: TradeSubject): { properties: Record<string, { const?: unknown }> } & object =>
  JSON.parse(readFileSync(join(root, `../../packages/contracts/schemas/${subject}.schema.json`), 'utf8')) as {
    properties: Record<string, { const?: unknown }>;
  };
const SUBJECTS: TradeSubject[] = ['basic.pumpfun', 'basic.bonk', 'premium.pumpswap', 'premium.raydium'];
const ajv = new Ajv2020({ allErrors: true, strict: true, strictRequired: false });
const validators = Object.fromEntries(SUBJECTS.map((s) => [s, ajv.compile(schemaOf(s))])) as Record<TradeSubject, ReturnType<typeof ajv.compile>>;

const BASE58_PUBKEY = /^[1-9A-HJ-NP-Za-km-z]{32,44}$/;
const SIGNATURE = /^[1-9A-HJ-NP-Za-km-z]{64,90}$/;
const U64 = /^[0-9]+$/;

/** The documented type of one spec-named field. */
type FieldType = 'pubkey' | 'pubkey|null' | 'signature' | 'u64' | 'u64|null' | 'i64' | 'int|null' | 'number|null' | 'string|null' | 'kind' | 'enum' | 'object';
const typeOk: Record<FieldType, (v: unknown) => boolean> = {
  pubkey: (v) => typeof v === 'string' && BASE58_PUBKEY.test(v),
  'pubkey|null': (v) => v === null || (typeof v === 'string' && BASE58_PUBKEY.test(v)),
  signature: (v) => typeof v === 'string' && SIGNATURE.test(v),
  u64: (v) => typeof v === 'string' && U64.test(v),
  'u64|null': (v) => v === null || (typeof v === 'string' && U64.test(v)),
  i64: (v) => typeof v === 'string' && /^-?[0-9]+$/.test(v),
  'int|null': (v) => v === null || Number.isSafeInteger(v),
  'number|null': (v) => v === null || (typeof v === 'number' && Number.isFinite(v)),
  'string|null': (v) => v === null || typeof v === 'string',
  kind: (v) => typeof v === 'string',
  enum: (v) => typeof v === 'string',
  object: (v) => typeof v === 'object' && v !== null && !Array.isArray(v),
};

/** Fields every Bonk kind shares (spec "plus the common fields"). */
const BONK_COMMON: Record<string, FieldType> = {
  transaction_type: 'kind',
  payer: 'pubkey',
  pool_state: 'pubkey',
  base_mint: 'pubkey',
  quote_mint: 'pubkey',
  global_config: 'pubkey',
  platform_config: 'pubkey',
  slot: 'int|null',
  signature: 'signature',
  block_time_ms: 'int|null',
};

/**
 * Product spec §3, as this repository implements it: subject → message kinds the spec describes →
 * every field it names with its documented type (packages/contracts/schemas/<subject>.schema.json).
 */
const SPEC: Record<TradeSubject, { kinds: string[]; fields: Record<string, FieldType> }[]> = {
  'basic.pumpfun': [
    // "Pump.fun trade: type, data {symbol, price, volume, side, timestamp, txHash, poolAddress}"; the same
    // shape on every kind of the subject (CREATE, COMPLETE, MIGRATE: side, volume … null).
    { kinds: ['BUY', 'SELL', 'CREATE', 'COMPLETE', 'MIGRATE'], fields: { type: 'kind', data: 'object' } },
  ],
  'premium.pumpswap': [
    // "PumpSwap swap: tokenIn, tokenOut, amountIn, amountOut, timestamp, txHash, poolAddress, fee".
    {
      kinds: ['BUY', 'SELL'],
      fields: {
        tokenIn: 'pubkey',
        tokenOut: 'pubkey',
        amountIn: 'u64',
        amountOut: 'u64',
        timestamp: 'i64',
        txHash: 'signature',
        poolAddress: 'pubkey',
        fee: 'u64',
      },
    },
    {
      kinds: ['CREATE_POOL', 'DEPOSIT', 'WITHDRAW'],
      fields: {
        tokenIn: 'pubkey|null',
        tokenOut: 'pubkey|null',
        amountIn: 'u64|null',
        amountOut: 'u64|null',
        timestamp: 'i64',
        txHash: 'signature',
        poolAddress: 'pubkey',
        fee: 'u64|null',
      },
    },
  ],
  'basic.bonk': [
    // "Bonk CREATE: transaction_type, payer, pool_state, base_mint, quote_mint, global_config, platform_config,
    // base_mint_param {decimals, name, symbol, uri}, slot, signature, block_time_ms".
    { kinds: ['CREATE'], fields: { ...BONK_COMMON, base_mint_param: 'object' } },
    // "Bonk BUY/SELL: transaction_type, sol_amount, token_amount, protocol_fee, platform_fee, share_fee, pool_status,
    // real_base_after, real_quote_after, base_vault, quote_vault, plus the common fields".
    {
      kinds: ['BUY', 'SELL'],
      fields: {
        ...BONK_COMMON,
        sol_amount: 'u64',
        token_amount: 'u64',
        protocol_fee: 'u64',
        platform_fee: 'u64',
        share_fee: 'u64',
        pool_status: 'enum',
        real_base_after: 'u64',
        real_quote_after: 'u64',
        base_vault: 'pubkey',
        quote_vault: 'pubkey',
      },
    },
  ],
  'premium.raydium': [
    // "Raydium CPMM swap: transaction_type SWAP, amount_in, minimum_amount_out, max_amount_in, amount_out, payer,
    // authority, amm_config, pool_state, input_mint, output_mint, slot, signature, block_time_ms".
    {
      kinds: ['SWAP'],
      fields: {
        transaction_type: 'kind',
        amount_in: 'u64',
        minimum_amount_out: 'u64|null',
        max_amount_in: 'u64|null',
        amount_out: 'u64',
        payer: 'pubkey',
        authority: 'pubkey',
        amm_config: 'pubkey',
        pool_state: 'pubkey',
        input_mint: 'pubkey',
        output_mint: 'pubkey',
        slot: 'int|null',
        signature: 'signature',
        block_time_ms: 'int|null',
      },
    },
  ],
};

/** basic.pumpfun `data` members and their documented types. */
const PUMPFUN_DATA: Record<string, FieldType> = {
  symbol: 'string|null',
  price: 'number|null',
  volume: 'number|null',
  side: 'string|null',
  timestamp: 'int|null',
  txHash: 'signature',
  poolAddress: 'pubkey',
};

/** Spec kinds the recording must hold, so that each is checked on real data. */
const RECORDED_SPEC_KINDS: [TradeSubject, string][] = [
  ['basic.pumpfun', 'BUY'],
  ['basic.pumpfun', 'SELL'],
  ['basic.pumpfun', 'CREATE'],
  ['premium.pumpswap', 'BUY'],
  ['premium.pumpswap', 'SELL'],
  ['basic.bonk', 'CREATE'],
  ['basic.bonk', 'BUY'],
  ['basic.bonk', 'SELL'],
  ['premium.raydium', 'SWAP'],
];

let replayed: RecordedTransaction[];
/** The normalised transaction of each recorded signature (the chain data the values are compared with). */
const chain = new Map<string, NormalizedTransaction>();
const all = (): TradeMessage[] => replayed.flatMap((t) => t.trades);

beforeAll(async () => {
  ({ transactions: replayed } = await loadRecording(recording));
  for (const path of await listJsonFiles(recording)) {
    const tx = normalizeTransaction(JSON.parse(readFileSync(path, 'utf8')));
    chain.set(tx.signature, tx);
  }
});

const txOf = (m: TradeMessage): NormalizedTransaction => {
  const tx = chain.get(m.signature);
  if (!tx) throw new Error(`no recorded transaction ${m.signature}`);
  return tx;
};
const lamportDelta = (tx: NormalizedTransaction, address: string): bigint => {
  const i = tx.accountKeys.indexOf(address);
  expect(i, `${address} is an account of ${tx.signature}`).toBeGreaterThanOrEqual(0);
  return BigInt(tx.postBalances[i] ?? 0) - BigInt(tx.preBalances[i] ?? 0);
};
/** Token balance change of one token account, and its mint (from meta pre/postTokenBalances). */
const tokenAccount = (tx: NormalizedTransaction, address: string): { delta: bigint; mint: string | undefined; decimals: number | undefined } => {
  const i = tx.accountKeys.indexOf(address);
  const pre = tx.preTokenBalances.find((b) => b.accountIndex === i);
  const post = tx.postTokenBalances.find((b) => b.accountIndex === i);
  return { delta: BigInt(post?.amount ?? '0') - BigInt(pre?.amount ?? '0'), mint: (post ?? pre)?.mint, decimals: (post ?? pre)?.decimals };
};
const str = (m: TradeMessage, k: string): string => {
  const v = m[k];
  if (typeof v !== 'string') throw new Error(`${k} is ${JSON.stringify(v)}`);
  return v;
};
const data = (m: TradeMessage): Record<string, unknown> => m.data as Record<string, unknown>;

describe('product spec §3 fields on every recorded message (one replay pass)', () => {
  it('when the recording is replayed, then it holds every kind the spec describes', () => {
    const kinds = new Set(all().map((m) => `${subjectOf(m)} ${m.transaction_type}`));
    for (const [subject, kind] of RECORDED_SPEC_KINDS) expect(kinds, `${subject} ${kind}`).toContain(`${subject} ${kind}`);
  });

  it('when each message is checked, then it validates against its subject schema and carries every spec-named field with the documented type', () => {
    let checked = 0;
    for (const m of all()) {
      const subject = subjectOf(m);
      const validate = validators[subject];
      expect(validate(m), `${m.signature} ${JSON.stringify(validate.errors)}`).toBe(true);
      for (const group of SPEC[subject].filter((g) => g.kinds.includes(m.transaction_type))) {
        for (const [field, type] of Object.entries(group.fields)) {
          expect(Object.hasOwn(m, field), `${subject} ${m.transaction_type} ${m.signature.slice(0, 8)} lacks ${field}`).toBe(true);
          expect(typeOk[type](m[field]), `${subject} ${m.transaction_type} ${field} = ${JSON.stringify(m[field])} is not ${type}`).toBe(true);
          checked++;
        }
      }
      if (subject === 'basic.pumpfun') {
        expect(m.type).toBe(PUMPFUN_MESSAGE_TYPE);
        expect(Object.keys(data(m)).sort()).toEqual(Object.keys(PUMPFUN_DATA).sort());
        for (const [field, type] of Object.entries(PUMPFUN_DATA))
          expect(typeOk[type](data(m)[field]), `data.${field} = ${JSON.stringify(data(m)[field])}`).toBe(true);
      }
      if (subject === 'basic.bonk' && m.transaction_type === 'CREATE') {
        const p = m.base_mint_param as Record<string, unknown>;
        expect(Object.keys(p).sort()).toEqual(['decimals', 'name', 'symbol', 'uri']);
        expect(Number.isInteger(p.decimals) && typeof p.name === 'string' && typeof p.symbol === 'string' && typeof p.uri === 'string').toBe(true);
      }
    }
    expect(checked).toBeGreaterThan(200);
  });

  it('when the schema version is read, then every message and every subject schema say version 2', () => {
    expect(TRADE_MESSAGE_SCHEMA_VERSION).toBe(2);
    for (const subject of SUBJECTS) expect(schemaOf(subject).properties.schema_version?.const, subject).toBe(TRADE_MESSAGE_SCHEMA_VERSION);
    for (const m of all()) expect(m.schema_version).toBe(TRADE_MESSAGE_SCHEMA_VERSION);
    // A version-1 message (no schema_version) is refused: consumers can rely on the field.
    const [first] = all();
    const { schema_version: _v, ...v1 } = first!;
    expect(validators[subjectOf(first!)](v1)).toBe(false);
  });
});

describe('product spec §3 values equal the chain', () => {
  it('when a pump.fun BUY/SELL is checked, then data is the trade as the chain recorded it', () => {
    const trades = all().filter((m) => m.source === 'pumpfun' && (m.transaction_type === 'BUY' || m.transaction_type === 'SELL'));
    expect(trades.length).toBe(20);
    // Per transaction and curve: Σ signed data.volume × 1e9 = the bonding curve's lamport change (less the rent a create deposits).
    const perCurve = new Map<string, { tx: NormalizedTransaction; lamports: bigint }>();
    for (const m of trades) {
      const d = data(m);
      const tx = txOf(m);
      expect(d.txHash).toBe(tx.signature);
      expect(d.txHash).toBe(m.signature);
      expect(d.poolAddress).toBe(m.bonding_curve);
      expect(d.side).toBe(m.is_buy ? 'buy' : 'sell');
      // The event's clock, ms; equal to the block time whenever the capture has one.
      expect(d.timestamp).toBe(Number(str(m, 'timestamp')) * 1000);
      if (tx.blockTimeMs !== null) expect(d.timestamp).toBe(tx.blockTimeMs);
      if (m.price_sol === undefined) {
        // A curve quoted in another mint (USDC, pumpfun/2m5n…): no SOL price or volume is invented.
        expect(m.quote_mint).toBe('EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v');
        expect([d.price, d.volume]).toEqual([null, null]);
        continue;
      }
      expect(d.price).toBe(m.price_sol);
      expect(d.price).toBe(Number(str(m, 'virtual_sol_reserves')) / 1e9 / (Number(str(m, 'virtual_token_reserves')) / 1e6));
      expect(d.volume).toBe(Number(str(m, 'sol_amount')) / 1e9);
      const key = `${m.signature}|${str(m, 'bonding_curve')}`;
      const lamports = BigInt(Math.round((d.volume as number) * 1e9)) * (d.side === 'buy' ? 1n : -1n);
      perCurve.set(key, { tx, lamports: (perCurve.get(key)?.lamports ?? 0n) + lamports });
    }
    expect(perCurve.size).toBeGreaterThan(10);
    for (const [key, { tx, lamports }] of perCurve) {
      const curve = key.split('|')[1]!;
      const created = all().some((c) => c.signature === tx.signature && c.transaction_type === 'CREATE');
      const delta = lamportDelta(tx, curve);
      // A create in the same transaction funds the new curve's rent: it is the only other lamport movement.
      if (created) expect(delta - lamports, key).toBeGreaterThan(1_000_000n);
      else expect(delta, key).toBe(lamports);
    }
  });

  it("when a pump.fun CREATE, COMPLETE or MIGRATE is checked, then side and volume are null and the rest are the chain's", () => {
    const others = all().filter((m) => m.source === 'pumpfun' && m.transaction_type !== 'BUY' && m.transaction_type !== 'SELL');
    expect(others.map((m) => m.transaction_type).sort()).toEqual(['CREATE', 'CREATE', 'CREATE', 'CREATE', 'CREATE', 'CREATE', 'CREATE', 'MIGRATE', 'MIGRATE']);
    for (const m of others) {
      const d = data(m);
      expect([d.side, d.volume]).toEqual([null, null]);
      expect(d.txHash).toBe(m.signature);
      expect(d.poolAddress).toBe(m.bonding_curve);
      const tx = txOf(m);
      if (m.transaction_type === 'CREATE') {
        expect(d.symbol).toBe(m.symbol);
        // The curve is an account of the create; its initial price from the CreateEvent's reserves when it states them.
        expect(tx.accountKeys).toContain(d.poolAddress);
        if (m.virtual_sol_reserves === undefined) expect(d.price).toBeNull();
        else expect(d.price).toBe(Number(str(m, 'virtual_sol_reserves')) / 1e9 / (Number(str(m, 'virtual_token_reserves')) / 1e6));
      } else {
        expect(d.price).toBeNull();
      }
      expect(d.timestamp).toBe(m.timestamp === undefined ? tx.blockTimeMs : Number(str(m, 'timestamp')) * 1000);
    }
  });

  it('when a PumpSwap swap is checked, then tokenIn/Out, amountIn/Out and fee match the pool vaults and the event', () => {
    const swaps = all().filter((m) => m.source === 'pumpswap' && (m.transaction_type === 'BUY' || m.transaction_type === 'SELL'));
    expect(swaps.length).toBe(6);
    let vaultChecked = 0;
    for (const m of swaps) {
      const tx = txOf(m);
      const buy = m.transaction_type === 'BUY';
      expect(m.txHash).toBe(tx.signature);
      expect(m.poolAddress).toBe(m.pool);
      expect(tx.accountKeys).toContain(m.poolAddress);
      expect([m.tokenIn, m.tokenOut]).toEqual(buy ? [m.quote_mint, m.base_mint] : [m.base_mint, m.quote_mint]);
      const fee = BigInt(str(m, 'fee'));
      // fee = every fee the event names (the three fee accounts receive them: test/decode-amm.test.ts).
      expect(fee).toBe(BigInt(str(m, 'lp_fee')) + BigInt(str(m, 'protocol_fee')) + BigInt(str(m, 'coin_creator_fee')));
      expect(BigInt(str(m, buy ? 'amountOut' : 'amountIn'))).toBe(BigInt(str(m, buy ? 'base_amount_out' : 'base_amount_in')));
      // The pools' vaults, where this is the only PumpSwap message on the pool in its transaction.
      if (all().filter((o) => o.signature === m.signature && o.pool === m.pool).length > 1) continue;
      const base = tokenAccount(tx, str(m, 'pool_base_token_account'));
      const quote = tokenAccount(tx, str(m, 'pool_quote_token_account'));
      expect([base.mint, quote.mint]).toEqual([m.base_mint, m.quote_mint]);
      const lpFee = BigInt(str(m, 'lp_fee'));
      if (buy) {
        expect(base.delta).toBe(-BigInt(str(m, 'amountOut')));
        // The vault keeps the curve input and the LP fee: what the user paid less the other fees.
        expect(quote.delta).toBe(BigInt(str(m, 'amountIn')) - fee + lpFee);
      } else {
        expect(base.delta).toBe(BigInt(str(m, 'amountIn')));
        expect(quote.delta).toBe(-(BigInt(str(m, 'amountOut')) + fee - lpFee));
      }
      vaultChecked++;
    }
    expect(vaultChecked).toBeGreaterThanOrEqual(4);
  });

  it("when a PumpSwap pool creation, deposit or withdraw is checked, then the swap fields are null and txHash / poolAddress are the chain's", () => {
    const others = all().filter((m) => m.source === 'pumpswap' && m.transaction_type !== 'BUY' && m.transaction_type !== 'SELL');
    expect(others.map((m) => m.transaction_type).sort()).toEqual(['CREATE_POOL', 'CREATE_POOL', 'DEPOSIT', 'WITHDRAW']);
    for (const m of others) {
      expect([m.tokenIn, m.tokenOut, m.amountIn, m.amountOut, m.fee]).toEqual([null, null, null, null, null]);
      expect(m.txHash).toBe(m.signature);
      expect(m.poolAddress).toBe(m.pool);
    }
  });

  it("when a Bonk message is checked, then the vaults hold the named mints, base_mint_param.decimals is the mint's, and the quote vault moved by the trade", () => {
    const bonk = all().filter((m) => m.source === 'bonk');
    expect(bonk.map((m) => m.transaction_type).sort()).toEqual(['BUY', 'BUY', 'CREATE', 'SELL']);
    for (const m of bonk) {
      const tx = txOf(m);
      for (const k of ['payer', 'pool_state', 'global_config', 'platform_config']) expect(tx.accountKeys, k).toContain(m[k]);
      if (m.transaction_type === 'CREATE') {
        const p = m.base_mint_param as { decimals: number; symbol: string };
        expect(tx.postTokenBalances.find((b) => b.mint === m.base_mint)?.decimals).toBe(p.decimals);
        continue;
      }
      expect(tokenAccount(tx, str(m, 'base_vault')).mint).toBe(m.base_mint);
      expect(tokenAccount(tx, str(m, 'quote_vault')).mint).toBe(m.quote_mint);
      expect(m.sol_amount).toBe(m.side === 'buy' ? m.amount_in : m.amount_out);
      expect(m.token_amount).toBe(m.side === 'buy' ? m.amount_out : m.amount_in);
      // real_quote_after − real_quote_before = the quote the curve kept (sol_amount net of every fee).
      const fees = ['protocol_fee', 'platform_fee', 'creator_fee', 'share_fee'].reduce((s, k) => s + BigInt(m[k] === undefined ? '0' : str(m, k)), 0n);
      const kept = BigInt(str(m, 'real_quote_after')) - BigInt(str(m, 'real_quote_before'));
      expect(kept).toBe(m.side === 'buy' ? BigInt(str(m, 'sol_amount')) - fees : -(BigInt(str(m, 'sol_amount')) + fees));
    }
  });

  it("when a Raydium CPMM swap is checked, then the mints are the vaults', both limits are present, and the one the instruction had held", () => {
    const swaps = all().filter((m) => m.source === 'raydium_cpmm' && m.transaction_type === 'SWAP');
    expect(swaps.length).toBe(3);
    for (const m of swaps) {
      const tx = txOf(m);
      expect(tokenAccount(tx, str(m, 'input_vault')).mint).toBe(m.input_mint);
      expect(tokenAccount(tx, str(m, 'output_vault')).mint).toBe(m.output_mint);
      for (const k of ['payer', 'authority', 'amm_config', 'pool_state']) expect(tx.accountKeys, k).toContain(m[k]);
      expect(Object.hasOwn(m, 'minimum_amount_out') && Object.hasOwn(m, 'max_amount_in')).toBe(true);
      if (m.base_input === true) {
        expect(m.max_amount_in).toBeNull();
        expect(BigInt(str(m, 'amount_out'))).toBeGreaterThanOrEqual(BigInt(str(m, 'minimum_amount_out')));
      } else {
        expect(m.minimum_amount_out).toBeNull();
        expect(BigInt(str(m, 'amount_in'))).toBeLessThanOrEqual(BigInt(str(m, 'max_amount_in')));
      }
    }
  });
});

describe('token names (symbol on pump.fun trades)', () => {
  it("when one replay pass is counted, then 7 of 20 pump.fun BUY/SELL carry a symbol: every one whose token's CREATE is in the recording", () => {
    const creates = new Map(
      all()
        .filter((m) => m.source === 'pumpfun' && m.transaction_type === 'CREATE')
        .map((m) => [m.mint, m.symbol]),
    );
    const trades = all().filter((m) => m.source === 'pumpfun' && (m.transaction_type === 'BUY' || m.transaction_type === 'SELL'));
    const named = trades.filter((m) => data(m).symbol !== null);
    expect(`${named.length} of ${trades.length}`).toBe('7 of 20');
    for (const m of trades) {
      const expected = creates.get(m.mint) ?? null;
      expect(data(m).symbol, m.signature).toBe(expected);
      // The top-level symbol is the same value, absent when unknown.
      expect(m.symbol ?? null).toBe(expected);
    }
    expect([...creates.values()].sort()).toEqual(['COSTCO', 'DOD', 'IRL', 'KINTON', 'LEDOG', 'MOODOG', 'NYXORA']);
  });

  it('when loadRecording is given a cache, then its replay-order pass fills it with every recorded create', async () => {
    const names = new TokenNameCache();
    await loadRecording(recording, { tokenNames: names });
    expect(names.size).toBe(7);
    expect(names.get('28cfnohntvves5WTYeovTu5uJ3Dxnxia45o2jEECpump')).toEqual({ name: 'IRL Money', symbol: 'IRL' });
  });

  // pumpfun/2s39… holds a create (instruction 3) and a buy (instruction 5) of one mint. Split into two
  // transactions (the same bytes, each keeping one of the two instruction trees; logs dropped so that
  // the events come from each tree's own emit_cpi), the buy has no create beside it: only the cache can name it.
  const split = (): { create: NormalizedTransaction; buy: NormalizedTransaction } => {
    const tx = normalizeTransaction(
      JSON.parse(
        readFileSync(join(recording, 'pumpfun/2s393PSYYxJJJfGiwHf18HZeC68nZs44ssbeB4aAkeYMyd1dyiiu3yVmGyRWZuArk5HzYDgVxYfhKLYd2CJ8kCBj.json'), 'utf8'),
      ),
    );
    const only = (i: number): NormalizedTransaction => ({ ...tx, logs: null, instructions: [tx.instructions[i]!] });
    return { create: only(3), buy: only(5) };
  };

  it("when a buy comes in another transaction than its token's create, then the cache names it, and without the cache it is null", () => {
    const { create, buy } = split();
    const [alone] = decodeNormalized(buy);
    expect(alone).toMatchObject({ transaction_type: 'BUY', mint: '5dNYcCZXEGfGgbdUdq7MMR7KLsNJLLLgL83wLH8Fpump' });
    expect(data(alone!).symbol).toBeNull();
    expect('symbol' in alone!).toBe(false);

    const names = new TokenNameCache();
    expect(decodeNormalized(buy, { tokenNames: names }).map((m) => data(m).symbol)).toEqual([null]); // before the create: unknown
    expect(decodeNormalized(create, { tokenNames: names }).map((m) => m.transaction_type)).toEqual(['CREATE']);
    expect(names.get('5dNYcCZXEGfGgbdUdq7MMR7KLsNJLLLgL83wLH8Fpump')).toEqual({ name: 'MOO DOG', symbol: 'MOODOG' });
    const [named] = decodeNormalized(buy, { tokenNames: names });
    expect(data(named!).symbol).toBe('MOODOG');
    expect(named).toMatchObject({ name: 'MOO DOG', symbol: 'MOODOG' });
    // Only the name differs from the unnamed decode.
    const { data: d1, name: _n, symbol: _s, ...rest1 } = named!;
    const { data: d0, ...rest0 } = alone!;
    expect(rest1).toEqual(rest0);
    expect({ ...(d1 as object), symbol: null }).toEqual(d0);
  });

  it('when failed creates are decoded, then they name no token', () => {
    const names = new TokenNameCache();
    for (const p of ['3Guf', '2dab', '3LQK', '3MRW', '3QVp']) {
      const file = readFileSync(join(recording, 'pumpfun', `${p}${chainFile(p)}`), 'utf8');
      expect(decodeNormalized(normalizeTransaction(JSON.parse(file)), { tokenNames: names })).toEqual([]);
    }
    expect(names.size).toBe(0);
  });

  it('when the cache is full, then the least recently used mint is forgotten first, and the bound is a config value with a default', () => {
    const names = new TokenNameCache(2);
    names.set('A', { symbol: 'a' });
    names.set('B', { symbol: 'b' });
    expect(names.get('A')).toEqual({ symbol: 'a' }); // A used: B is now the oldest
    names.set('C', { symbol: 'c' });
    expect([names.get('A'), names.get('B'), names.get('C')]).toEqual([{ symbol: 'a' }, undefined, { symbol: 'c' }]);
    expect(names.size).toBe(2);
    expect(() => new TokenNameCache(0)).toThrow(RangeError);
    expect(loadIngestConfig({}).TOKEN_NAME_CACHE_MAX_ENTRIES).toBe(DEFAULT_TOKEN_NAME_CACHE_MAX_ENTRIES);
    expect(loadIngestConfig({ TOKEN_NAME_CACHE_MAX_ENTRIES: '500' }).TOKEN_NAME_CACHE_MAX_ENTRIES).toBe(500);
    expect(() => loadIngestConfig({ TOKEN_NAME_CACHE_MAX_ENTRIES: '0' })).toThrow(/TOKEN_NAME_CACHE_MAX_ENTRIES/);
  });
});

describe('replay order', () => {
  it("when the recording is loaded, then slots ascend and every create comes no later than its token's first trade", () => {
    const slots = replayed.map((t) => t.slot).filter((s): s is number => s !== null);
    expect(slots).toEqual([...slots].sort((a, b) => a - b));
    replayed.forEach((t, i) => {
      for (const c of t.trades.filter((m) => m.source === 'pumpfun' && m.transaction_type === 'CREATE')) {
        const first = replayed.findIndex((o) => o.trades.some((m) => m.transaction_type !== 'CREATE' && m.mint === c.mint));
        expect(first, c.mint as string).toBeGreaterThanOrEqual(i);
      }
    });
  });

  it("when a create has no slot or shares its slot with a later-listed create, then replayOrder moves it before its token's first trade", () => {
    // Real messages (pumpfun/2s39…: CREATE then BUY of one mint), placed in separate items with slots
    // chosen to put the trade first under slot order alone.
    const [create, buy] = decodeTransaction(JSON.parse(readFileSync(join(recording, `pumpfun/2s39${chainFile('2s39')}`), 'utf8')));
    const other = decodeTransaction(JSON.parse(readFileSync(join(recording, `pumpfun/JBnr${chainFile('JBnr')}`), 'utf8')));
    const item = (name: string, slot: number | null, trades: TradeMessage[]) => ({ name, slot, trades });
    const order = (items: ReturnType<typeof item>[]) => replayOrder(items).map((i) => i.name);
    // A slot-less create sorts last by slot; it must still precede its token's trade.
    expect(order([item('create', null, [create!]), item('other', 5, other), item('buy', 10, [buy!])])).toEqual(['other', 'create', 'buy']);
    // Same slot, trade listed first.
    expect(order([item('buy', 7, [buy!]), item('create', 7, [create!]), item('other', 3, other)])).toEqual(['other', 'create', 'buy']);
    // Already in order: unchanged; a create with no trade of its mint stays in slot order.
    expect(order([item('create', 1, [create!]), item('buy', 2, [buy!])])).toEqual(['create', 'buy']);
    expect(order([item('other', 2, other), item('create', null, [create!])])).toEqual(['other', 'create']);
  });
});

/** The rest of a recorded file name after its 4-character prefix, from the listing. */
function chainFile(prefix: string): string {
  for (const dir of ['pumpfun']) {
    const hit = listing.find((f) => f.startsWith(`${dir}/${prefix}`));
    if (hit) return hit.slice(dir.length + 1 + prefix.length);
  }
  throw new Error(`no recording ${prefix}`);
}
const listing: string[] = (await listJsonFiles(recording)).map((p) => p.slice(recording.length + 1));
