/**
 * Subscription filters against the bundled recording of real mainnet transactions, decoded by ingest's own
 * decoder (all four subjects), plus copies of those messages changed one field at a time. Expected counts are
 * computed from the raw message fields independently of `tradeFacts`; known trades are quoted from the recording.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import bs58 from 'bs58';
import { beforeAll, describe, expect, it } from 'vitest';
import { BUNDLED_RECORDING_DIR, loadRecording, subjectOf } from '@tradewind/ingest';
import { NATIVE_SOL, TRADE_SUBJECTS, WSOL_MINT, type TradeSubject } from '@tradewind/contracts';
import { WsProtocolError } from './errors.js';
import {
  FILTER_KEYS,
  TRANSACTION_TYPES,
  matchesFilter,
  parseTradeFilter,
  solToLamports,
  tradeFacts,
  tradeFilterJson,
  type TradeFacts,
  type TradeFilter,
} from './trade-filter.js';

type Msg = Record<string, unknown>;

const LIMITS = { maxItems: 5 };
const USDC = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';
/** A valid 32-byte key that appears in no recorded trade. */
const NOBODY = bs58.encode(new Uint8Array(32).fill(7));

let bySubject: Record<TradeSubject, Msg[]>;

beforeAll(async () => {
  const { transactions, problems } = await loadRecording(BUNDLED_RECORDING_DIR);
  expect(problems).toEqual([]);
  bySubject = { 'basic.pumpfun': [], 'basic.bonk': [], 'premium.pumpswap': [], 'premium.raydium': [] };
  for (const trade of transactions.flatMap((t) => t.trades)) bySubject[subjectOf(trade)].push(trade as unknown as Msg);
  for (const subject of TRADE_SUBJECTS) expect(bySubject[subject].length, subject).toBeGreaterThan(0);
});

/** The first recorded message of `subject` whose signature starts with `prefix` and whose type is `type`. */
function recorded(subject: TradeSubject, prefix: string, type: string): Msg {
  const found = bySubject[subject].filter((m) => (m.signature as string).startsWith(prefix) && m.transaction_type === type);
  expect(found.length, `${subject} ${prefix}… ${type}`).toBeGreaterThan(0);
  return found[0]!;
}

function parse(raw: unknown, subject: TradeSubject = 'basic.pumpfun'): TradeFilter {
  const filter = parseTradeFilter(raw, subject, LIMITS);
  expect(filter).not.toBeNull();
  return filter!;
}

/** The messages of `subject` that pass `raw`. */
function passing(subject: TradeSubject, raw: unknown): Msg[] {
  const filter = parse(raw, subject);
  return bySubject[subject].filter((m) => matchesFilter(filter, tradeFacts(subject, m)));
}

/** The bad_filter message `fn` throws (fails when it throws nothing or another error). */
function badFilter(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(WsProtocolError);
    const e = error as WsProtocolError;
    expect(e.code).toBe('invalid_argument');
    expect(e.wsCode).toBe('bad_filter');
    expect(e.close).toBeUndefined();
    return e.message;
  }
  throw new Error('expected a bad_filter error, nothing was thrown');
}
const reject = (raw: unknown, subject: TradeSubject = 'basic.pumpfun', maxItems = LIMITS.maxItems): string =>
  badFilter(() => parseTradeFilter(raw, subject, { maxItems }));

describe('parseTradeFilter', () => {
  it('when the filter is null, undefined or {}, then there is no filter', () => {
    expect(parseTradeFilter(null, 'basic.pumpfun', LIMITS)).toBeNull();
    expect(parseTradeFilter(undefined, 'basic.pumpfun', LIMITS)).toBeNull();
    expect(parseTradeFilter({}, 'basic.pumpfun', LIMITS)).toBeNull();
    expect(parseTradeFilter({ mints: undefined }, 'basic.pumpfun', LIMITS)).toBeNull();
  });

  it('when every key is valid, then the filter holds sets and lamports', () => {
    const filter = parse({ mints: [WSOL_MINT, USDC, WSOL_MINT], accounts: [NATIVE_SOL], types: ['BUY', 'CREATE'], min_sol: 0.5 });
    expect(filter.mints).toEqual(new Set([WSOL_MINT, USDC]));
    expect(filter.accounts).toEqual(new Set([NATIVE_SOL]));
    expect(filter.types).toEqual(new Set(['BUY', 'CREATE']));
    expect(filter.minLamports).toBe(500_000_000n);
  });

  it.each([
    ['a string', 'mints'],
    ['a number', 5],
    ['a boolean', true],
    ['an array', [WSOL_MINT]],
  ])('when the filter is %s, then bad_filter says it must be an object', (kind, raw) => {
    expect(reject(raw)).toBe(`filter must be an object with any of the keys mints, accounts, types, min_sol (or null for no filter); got ${kind}`);
  });

  it('when the filter has an unknown key, then bad_filter names it and lists the allowed keys', () => {
    expect(reject({ mint: [WSOL_MINT] })).toBe('filter has unknown key "mint"; allowed keys: mints, accounts, types, min_sol');
    expect(reject({ mints: [WSOL_MINT], min_usd: 1, side: 'buy' })).toBe(
      'filter has unknown keys "min_usd", "side"; allowed keys: mints, accounts, types, min_sol',
    );
    expect(FILTER_KEYS).toEqual(['mints', 'accounts', 'types', 'min_sol']);
  });

  describe.each(['mints', 'accounts'] as const)('%s', (key) => {
    it('when it is not an array, then bad_filter', () => {
      expect(reject({ [key]: WSOL_MINT })).toBe(`filter.${key} must be an array of base58 Solana public keys; got a string`);
      expect(reject({ [key]: null })).toBe(`filter.${key} must be an array of base58 Solana public keys; got null`);
    });

    it('when it is empty, then bad_filter says to omit the key', () => {
      expect(reject({ [key]: [] })).toBe(`filter.${key} is an empty array: omit the key instead`);
    });

    it('when it has more than maxItems entries, then bad_filter states the limit', () => {
      const keys = Array.from({ length: 4 }, (_, i) => bs58.encode(new Uint8Array(32).fill(i + 1)));
      expect(parseTradeFilter({ [key]: keys }, 'basic.pumpfun', { maxItems: 4 })).not.toBeNull();
      expect(reject({ [key]: [...keys, NOBODY] }, 'basic.pumpfun', 4)).toBe(`filter.${key} has 5 entries; at most 4 are allowed`);
    });

    it('when entries are not 32-byte base58 keys, then bad_filter names each of them', () => {
      const short = bs58.encode(new Uint8Array(31).fill(9)); // valid base58, 31 bytes
      const long = '1'.repeat(33); // valid base58 of 33 chars (within 32..44), 33 zero bytes
      const badChar = `0${WSOL_MINT.slice(1)}`; // '0' is not in the base58 alphabet
      expect(short).toMatch(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/);
      expect(reject({ [key]: [WSOL_MINT, short, 42, long, badChar, null, NATIVE_SOL] }, 'basic.pumpfun', 10)).toBe(
        `filter.${key} has entries that are not base58 Solana public keys (32 bytes): ` + `[1] "${short}", [2] 42, [3] "${long}", [4] "${badChar}", [5] null`,
      );
    });

    it('when many entries are bad or very long, then the message stays short', () => {
      const message = reject({ [key]: Array.from({ length: 30 }, (_, i) => `x${i}`) }, 'basic.pumpfun', 100);
      expect(message).toContain('[19] "x19" (and 10 more)');
      expect(message).not.toContain('x20');
      const huge = reject({ [key]: ['A'.repeat(100_000)] });
      expect(huge.length).toBeLessThan(200);
      expect(huge).toContain(`[0] "${'A'.repeat(47)}…`);
    });
  });

  describe('types', () => {
    it("when a type is not a transaction_type of the subject, then bad_filter names it and the subject's types", () => {
      expect(reject({ types: ['BUY', 'SWAP'] }, 'basic.pumpfun')).toBe(
        'filter.types has entries that are not transaction_type values of basic.pumpfun: [1] "SWAP"; types of basic.pumpfun: CREATE, BUY, SELL, COMPLETE, MIGRATE',
      );
      expect(reject({ types: ['COMPLETE'] }, 'basic.bonk')).toBe(
        'filter.types has entries that are not transaction_type values of basic.bonk: [0] "COMPLETE"; types of basic.bonk: CREATE, BUY, SELL, MIGRATE',
      );
      expect(reject({ types: ['buy', 7] }, 'premium.pumpswap')).toBe(
        'filter.types has entries that are not transaction_type values of premium.pumpswap: [0] "buy", [1] 7; types of premium.pumpswap: BUY, SELL, CREATE_POOL, DEPOSIT, WITHDRAW',
      );
      expect(reject({ types: ['BUY'] }, 'premium.raydium')).toBe(
        'filter.types has entries that are not transaction_type values of premium.raydium: [0] "BUY"; types of premium.raydium: SWAP, CREATE_POOL, DEPOSIT, WITHDRAW',
      );
    });

    it('when types is not a non-empty array within the limit, then bad_filter', () => {
      expect(reject({ types: 'BUY' })).toBe('filter.types must be an array of transaction_type values of basic.pumpfun; got a string');
      expect(reject({ types: [] })).toBe('filter.types is an empty array: omit the key instead');
      expect(reject({ types: ['BUY', 'BUY', 'BUY'] }, 'basic.pumpfun', 2)).toBe('filter.types has 3 entries; at most 2 are allowed');
    });

    it('when every type of a subject is given, then it is accepted for that subject', () => {
      for (const subject of TRADE_SUBJECTS) {
        expect(parse({ types: [...TRANSACTION_TYPES[subject]] }, subject).types).toEqual(new Set(TRANSACTION_TYPES[subject]));
      }
    });
  });

  describe('min_sol', () => {
    it.each([
      [0, 0n],
      [0.5, 500_000_000n],
      [1, 1_000_000_000n],
      [0.000000001, 1n],
      [1e-7, 100n],
      [0.29, 290_000_000n],
      [123.456789012, 123_456_789_012n],
      [1.5e-8, 15n],
      [1e21, 10n ** 30n],
      [-0, 0n],
    ])('when min_sol is %s, then it is exactly %s lamports', (sol, lamports) => {
      expect(parse({ min_sol: sol }).minLamports).toBe(lamports);
      expect(solToLamports(sol)).toBe(lamports);
    });

    it.each([
      [-1, '-1'],
      [-0.5, '-0.5'],
      [Number.NaN, 'NaN'],
      [Number.POSITIVE_INFINITY, 'Infinity'],
      ['0.5', '"0.5"'],
      [null, 'null'],
      [true, 'true'],
    ])('when min_sol is %s, then bad_filter asks for a finite number ≥ 0', (value, shown) => {
      expect(reject({ min_sol: value })).toBe(`filter.min_sol must be a finite number ≥ 0 (an amount of SOL, such as 0.5); got ${shown}`);
    });

    it('when min_sol has more than 9 decimals, then bad_filter', () => {
      expect(reject({ min_sol: 0.0000000001 })).toBe('filter.min_sol 1e-10 has more than 9 decimals (1 lamport = 0.000000001 SOL)');
      expect(reject({ min_sol: 1.0000000001 })).toBe('filter.min_sol 1.0000000001 has more than 9 decimals (1 lamport = 0.000000001 SOL)');
      expect(reject({ min_sol: 0.1 + 0.2 })).toBe('filter.min_sol 0.30000000000000004 has more than 9 decimals (1 lamport = 0.000000001 SOL)');
    });
  });

  it('when the first bad key is found, then the others are not reported in the same message', () => {
    expect(reject({ mints: [], min_sol: -1 })).toBe('filter.mints is an empty array: omit the key instead');
  });
});

describe('tradeFilterJson', () => {
  it('when there is no filter, then null', () => {
    expect(tradeFilterJson(null)).toBeNull();
  });

  it('when the filter has every key, then the echo has the normalised lists and min_sol in SOL', () => {
    const json = tradeFilterJson(parse({ min_sol: 0.5, types: ['SELL', 'BUY', 'SELL'], accounts: [NOBODY], mints: [USDC, WSOL_MINT, USDC] }));
    expect(json).toEqual({ mints: [USDC, WSOL_MINT], accounts: [NOBODY], types: ['SELL', 'BUY'], min_sol: 0.5 });
    expect(JSON.stringify(json)).toBe(`{"mints":["${USDC}","${WSOL_MINT}"],"accounts":["${NOBODY}"],"types":["SELL","BUY"],"min_sol":0.5}`);
  });

  it('when the filter has some keys, then only those are echoed', () => {
    expect(tradeFilterJson(parse({ types: ['CREATE'] }))).toEqual({ types: ['CREATE'] });
    expect(tradeFilterJson(parse({ min_sol: 0 }))).toEqual({ min_sol: 0 });
  });

  it.each([0.000000001, 0.29, 1, 123.456789012, 18446744073.709551, 1e21])('when min_sol is %s, then the echo parses back to the same filter', (sol) => {
    const echo = tradeFilterJson(parse({ min_sol: sol }));
    expect(echo).toEqual({ min_sol: sol });
    expect(parse(JSON.parse(JSON.stringify(echo))).minLamports).toBe(parse({ min_sol: sol }).minLamports);
  });
});

describe('transaction types', () => {
  it("when compared with the TRADES schemas, then each subject has exactly the schema's transaction_type enum", () => {
    const schemaDir = join(BUNDLED_RECORDING_DIR, '..', '..', '..', 'packages', 'contracts', 'schemas');
    for (const subject of TRADE_SUBJECTS) {
      const schema = JSON.parse(readFileSync(join(schemaDir, `${subject}.schema.json`), 'utf8')) as { properties: { transaction_type: { enum: string[] } } };
      expect(TRANSACTION_TYPES[subject], subject).toEqual(schema.properties.transaction_type.enum);
    }
    expect(Object.keys(TRANSACTION_TYPES).sort()).toEqual([...TRADE_SUBJECTS].sort());
  });
});

describe('tradeFacts on recorded trades', () => {
  it('when a pump.fun BUY is read, then its mint, trader, pool and sol_amount are the facts', () => {
    const buy = recorded('basic.pumpfun', 'JBnrBbgq', 'BUY');
    expect(tradeFacts('basic.pumpfun', buy)).toEqual<TradeFacts>({
      mints: ['ED5nyyWEzpPPiWimP8vYm7sD7TD3LAt3Q3gRTWHzPJBY'],
      accounts: ['Gh6D6DZcASQLc2XoLpctT74KbRr4nrHF8wNptweckHoA', 'Ak4Cu8ZTTbaLvAubaCSpzdrEKbpwMpkF4RArSoRLRvMF'],
      type: 'BUY',
      lamports: 386_100_226n,
    });
  });

  it('when a pump.fun trade has a creator and a native-SOL quote_mint, then the creator is an account and 111…1 is no mint', () => {
    const sell = recorded('basic.pumpfun', '36dHx3dZ', 'SELL');
    expect(sell.quote_mint).toBe(NATIVE_SOL);
    expect(tradeFacts('basic.pumpfun', sell)).toEqual<TradeFacts>({
      mints: ['EJ9WK1msUpETtQnpN4dY9EssVy4wi6xXVwAxv6bypump'],
      accounts: [
        '3k5CB8svr7rXkyH5vGDuP9vJXfrNcRhSAVYAwNGeFJgV',
        '6f42Rb8CwWLTpxKYyqQSFqwu9km75TRZd2qZUYisUXGK',
        '4zyRuaGiBoFTr5EtwpvxyqA1gAcjAGrWGGKS29G7ABno',
      ],
      type: 'SELL',
      lamports: 71_734_685n,
    });
  });

  it('when a pump.fun MIGRATE is read, then the curve and the new PumpSwap pool are accounts', () => {
    const migrate = recorded('basic.pumpfun', '2ffHb9AX', 'MIGRATE');
    const facts = tradeFacts('basic.pumpfun', migrate);
    expect(facts.accounts).toEqual([
      '9ZbTXdPSdKZeTCY215VwzEHhJoiDK4xtbaRqr3f7b3R1',
      '8qoeYoeWG5ifYKp2uAdq7du8zsMB4AbZN7qqbdZnXbaH',
      'Ef7wUrbarRXHNMMgBs8cstSkzRttnstjMsniaq7zMp6j',
    ]);
    expect(facts.lamports).toBe(84_990_359_420n);
  });

  it('when a pump.fun curve is quoted in USDC, then the quote mint counts and the trade has no SOL amount', () => {
    const buy = recorded('basic.pumpfun', '2m5nWLnD', 'BUY');
    expect(buy.quote_mint).toBe(USDC);
    expect(buy.sol_amount).toBe('0');
    const facts = tradeFacts('basic.pumpfun', buy);
    expect(facts.mints).toEqual(['4F4gGVBAWuKi3EpmYdhntXvCVFqZZqmrb1cqNGawpump', USDC]);
    expect(facts.lamports).toBeUndefined();
    expect(matchesFilter(parse({ min_sol: 0.000000001 }), facts)).toBe(false);
    expect(matchesFilter(parse({ min_sol: 0 }), facts)).toBe(true);
  });

  it('when a pump.fun CREATE is read, then it has no SOL amount', () => {
    const create = recorded('basic.pumpfun', '2s393PSY', 'CREATE');
    expect(tradeFacts('basic.pumpfun', create).lamports).toBeUndefined();
  });

  it('when a LetsBonk CREATE and BUY are read, then base and quote mints, payer, creator and pool_state are the facts', () => {
    expect(tradeFacts('basic.bonk', recorded('basic.bonk', 'mqSGNwKK', 'CREATE'))).toEqual<TradeFacts>({
      mints: ['AqFe2tk1BRx6czUuRPGUZ8mtvcBGDZYsG6oPvELwzray', WSOL_MINT],
      accounts: [
        'FeGbW3kbwQnV42hxUAFfbupVzDU5sKhcHswvtRbrYpn5',
        'FeGbW3kbwQnV42hxUAFfbupVzDU5sKhcHswvtRbrYpn5',
        '7SUXJsAtzPEY7Aq7e8tRjPJR7VrxUkZ6erKGuprnitNa',
      ],
      type: 'CREATE',
      lamports: undefined,
    });
    expect(tradeFacts('basic.bonk', recorded('basic.bonk', '3USu3YAs', 'BUY'))).toEqual<TradeFacts>({
      mints: ['4HhNdqkmMsMV9Z3d85sPYDw1MR3DpXRrxknRTLYXN22h', WSOL_MINT],
      accounts: ['5yJ6hdVHDVax48F5Z9K2kLNzXzqsyqbbsmATMTi5Vyju', 'D5y6T2Ep483fEup9mRC3LJSK7cd4Larxz46aE6YoGQsG'],
      type: 'BUY',
      lamports: 654_952_192n,
    });
  });

  it('when a LaunchLab pool is quoted in another mint, then the trade has no SOL amount', () => {
    const sell = recorded('basic.bonk', '1DnjawZs', 'SELL');
    expect(sell.quote_mint).not.toBe(WSOL_MINT);
    const facts = tradeFacts('basic.bonk', sell);
    expect(facts.mints).toEqual(['KUCxmmJJYmnzTbKWiXhauwxoa81Z38tC7FJtqti6Bhz', sell.quote_mint]);
    expect(facts.lamports).toBeUndefined();
  });

  it('when a LaunchLab MIGRATE is read, then quote_amount is the SOL amount and the new pool an account', () => {
    const base = recorded('basic.bonk', '3USu3YAs', 'BUY');
    const migrate: Msg = {
      source: 'bonk',
      transaction_type: 'MIGRATE',
      base_mint: base.base_mint,
      quote_mint: WSOL_MINT,
      payer: NOBODY,
      pool_state: base.pool_state,
      amm_pool: USDC,
      quote_amount: '85000000000',
      migrate_to: 'raydium_cpmm',
    };
    expect(tradeFacts('basic.bonk', migrate)).toEqual<TradeFacts>({
      mints: [base.base_mint as string, WSOL_MINT],
      accounts: [NOBODY, base.pool_state as string, USDC],
      type: 'MIGRATE',
      lamports: 85_000_000_000n,
    });
  });

  it('when a PumpSwap BUY is read, then base/quote mints, user, coin_creator, pool and user_quote_amount are the facts', () => {
    expect(tradeFacts('premium.pumpswap', recorded('premium.pumpswap', '4UrrW5HM', 'BUY'))).toEqual<TradeFacts>({
      mints: ['CZJfrAmMs5Cz4H22PWzfqTJu5FkP7Q2Vvx1oPVL9pump', WSOL_MINT],
      accounts: ['2tHBxC4SgowNC9EhzAVMAMQwzJ7PzbjPjEvX6CQpDMgZ', 'cJSgF6az6m8pnU45AeBpoDJhbYYz4xqAjbVzGeZoFUw', 'HyLTPacbYR4V8yQw5bbWwAETZkjcsRw9xzCbayMnU45o'],
      type: 'BUY',
      lamports: 1_863_068n,
    });
  });

  it('when a PumpSwap CREATE_POOL is read, then the pool creator and coin creator are accounts and the deposit the SOL amount', () => {
    expect(tradeFacts('premium.pumpswap', recorded('premium.pumpswap', '3gsRn6ZL', 'CREATE_POOL'))).toEqual<TradeFacts>({
      mints: ['BB5DMEmCSC2nH2nJNdcsxKPQcU6UWHDQF2mDKiJkh5xp', WSOL_MINT],
      accounts: ['GEmLfcSkfRaCf6v5WAPCGjt8UDGt4878FHEbrtyvXz1M', 'H2eS61TtPZ83NpqDaDqFbM3PUe5DRmFfVhNsiRWEK2gx', 'heUt5ff16SBzPC8R6rfce9RFTyP6VSvwJkHGQZbfSa5'],
      type: 'CREATE_POOL',
      lamports: 84_990_359_056n,
    });
  });

  it('when a PumpSwap coin has no creator (111…1) or a non-WSOL quote, then neither counts', () => {
    const buy = recorded('premium.pumpswap', '4UrrW5HM', 'BUY');
    const facts = tradeFacts('premium.pumpswap', { ...buy, coin_creator: NATIVE_SOL, quote_mint: USDC });
    expect(facts.accounts).toEqual(['2tHBxC4SgowNC9EhzAVMAMQwzJ7PzbjPjEvX6CQpDMgZ', 'HyLTPacbYR4V8yQw5bbWwAETZkjcsRw9xzCbayMnU45o']);
    expect(facts.mints).toEqual(['CZJfrAmMs5Cz4H22PWzfqTJu5FkP7Q2Vvx1oPVL9pump', USDC]);
    expect(facts.lamports).toBeUndefined();
  });

  it('when a Raydium swap sells a token for WSOL, then amount_out is the SOL amount', () => {
    expect(tradeFacts('premium.raydium', recorded('premium.raydium', '2bhr1FWq', 'SWAP'))).toEqual<TradeFacts>({
      mints: ['7atgF8KQo4wJrD5ATGX7t1V2zVvykPJbFfNeVf1icFv1', WSOL_MINT],
      accounts: ['E8oVrS4Pk74ouemj4t6grJ6w5Ah7SFLYa8VoRtvtWpnw', '8THC7UQN8zPXRL61o75fP4gcwRyB5W3o74yHyqarkqZ9'],
      type: 'SWAP',
      lamports: 15_742n,
    });
  });

  it('when a Raydium swap is token/token, then it has no SOL amount', () => {
    const swap = recorded('premium.raydium', '2EawktQ9', 'SWAP');
    expect(tradeFacts('premium.raydium', swap)).toEqual<TradeFacts>({
      mints: ['8RVBk8vxLiUHueLUW1f4izFVqN3nWippLhkohKg6EGkS', '6GmAFSYs4gk3FDao5FzzySQpPZaWsa4rUJHacpMpUNgx'],
      accounts: ['FUNDduJTA7XcckKHKfAoEnnhuSud2JUCUZv6opWEjrBU', 'BUVzsLLLG7GWoyJVoU31pXiBveazA6GXTavZ9VD3CwS9'],
      type: 'SWAP',
      lamports: undefined,
    });
  });

  it('when a Raydium swap buys with WSOL, then amount_in is the SOL amount', () => {
    const swap = recorded('premium.raydium', '2bhr1FWq', 'SWAP');
    const reversed = { ...swap, input_mint: swap.output_mint, output_mint: swap.input_mint };
    expect(tradeFacts('premium.raydium', reversed).lamports).toBe(358_800n);
  });

  it('when Raydium CREATE_POOL / DEPOSIT / WITHDRAW are read, then their pool mints, owner or creator and WSOL side count', () => {
    const pool = { source: 'raydium_cpmm', pool_state: NOBODY };
    expect(
      tradeFacts('premium.raydium', {
        ...pool,
        transaction_type: 'CREATE_POOL',
        creator: USDC,
        token_0_mint: WSOL_MINT,
        token_1_mint: USDC,
        init_amount_0: '5000000000',
        init_amount_1: '7',
      }),
    ).toEqual<TradeFacts>({ mints: [WSOL_MINT, USDC], accounts: [USDC, NOBODY], type: 'CREATE_POOL', lamports: 5_000_000_000n });
    expect(
      tradeFacts('premium.raydium', {
        ...pool,
        transaction_type: 'WITHDRAW',
        owner: USDC,
        vault_0_mint: USDC,
        vault_1_mint: WSOL_MINT,
        token_0_amount: '9',
        token_1_amount: '42',
      }),
    ).toEqual<TradeFacts>({ mints: [USDC, WSOL_MINT], accounts: [USDC, NOBODY], type: 'WITHDRAW', lamports: 42n });
  });

  it('when a message lacks the fields or has malformed amounts, then the facts are empty and no filter key but min_sol 0 matches', () => {
    for (const subject of TRADE_SUBJECTS) {
      const facts = tradeFacts(subject, { quote_mint: WSOL_MINT, sol_amount: '-1', user_quote_amount: '', amount_in: 'x', input_mint: WSOL_MINT });
      expect(facts, subject).toEqual<TradeFacts>({ mints: [WSOL_MINT], accounts: [], type: undefined, lamports: undefined });
      expect(matchesFilter(parse({ types: [TRANSACTION_TYPES[subject][0]!] }, subject), facts)).toBe(false);
      expect(matchesFilter(parse({ accounts: [NOBODY] }, subject), facts)).toBe(false);
      expect(matchesFilter(parse({ min_sol: 0.1 }, subject), facts)).toBe(false);
      expect(matchesFilter(parse({ min_sol: 0 }, subject), facts)).toBe(true);
    }
  });
});

/** Expected SOL amount of a recorded message, read from the raw fields as the schemas describe them. */
function expectedLamports(subject: TradeSubject, m: Msg): bigint | undefined {
  switch (subject) {
    case 'basic.pumpfun':
      return m.sol_amount !== undefined && (m.quote_mint === undefined || m.quote_mint === NATIVE_SOL) ? BigInt(m.sol_amount as string) : undefined;
    case 'basic.bonk':
      return m.quote_mint === WSOL_MINT && m.sol_amount !== undefined ? BigInt(m.sol_amount as string) : undefined;
    case 'premium.pumpswap':
      return m.quote_mint === WSOL_MINT ? BigInt(m.user_quote_amount as string) : undefined;
    case 'premium.raydium':
      if (m.input_mint === WSOL_MINT) return BigInt(m.amount_in as string);
      return m.output_mint === WSOL_MINT ? BigInt(m.amount_out as string) : undefined;
  }
}

/** Trader, creator and pool fields of a recorded message, read independently of tradeFacts' field lists. */
const PEOPLE: Record<TradeSubject, { trader: string; pool: string }> = {
  'basic.pumpfun': { trader: 'user', pool: 'bonding_curve' },
  'basic.bonk': { trader: 'payer', pool: 'pool_state' },
  'premium.pumpswap': { trader: 'user', pool: 'pool' },
  'premium.raydium': { trader: 'payer', pool: 'pool_state' },
};
const TOKEN: Record<TradeSubject, string> = {
  'basic.pumpfun': 'mint',
  'basic.bonk': 'base_mint',
  'premium.pumpswap': 'base_mint',
  'premium.raydium': 'input_mint',
};

describe.each([...TRADE_SUBJECTS])('matchesFilter on every recorded %s message', (subject) => {
  it('when filtering by the token mint of a recorded trade, then exactly the trades touching that mint pass', () => {
    const messages = bySubject[subject];
    const mint = messages[0]![TOKEN[subject]] as string;
    const touches = (m: Msg) => Object.values(m).includes(mint);
    const passed = passing(subject, { mints: [mint] });
    expect(passed.length).toBeGreaterThan(0);
    expect(passed).toEqual(messages.filter(touches));
    if (messages.length > 1) expect(passed.length).toBeLessThan(messages.length);
    expect(passing(subject, { mints: [NOBODY] })).toEqual([]);
  });

  it('when filtering by the trader and by the pool of a recorded trade, then that trade passes and unrelated ones do not', () => {
    const messages = bySubject[subject];
    const { trader, pool } = PEOPLE[subject];
    const known = messages.find((m) => typeof m[trader] === 'string')!;
    for (const account of [known[trader] as string, known[pool] as string]) {
      const passed = passing(subject, { accounts: [account] });
      expect(passed, account).toContain(known);
      expect(passed).toEqual(messages.filter((m) => Object.values(m).includes(account)));
      if (messages.length > 1) expect(passed.length).toBeLessThan(messages.length);
    }
  });

  it('when filtering by each transaction type, then exactly the trades of that type pass', () => {
    const messages = bySubject[subject];
    let total = 0;
    for (const type of TRANSACTION_TYPES[subject]) {
      const passed = passing(subject, { types: [type] });
      expect(passed).toEqual(messages.filter((m) => m.transaction_type === type));
      total += passed.length;
    }
    expect(total).toBe(messages.length);
  });

  it('when filtering by min_sol, then the SOL amounts are read as the schema describes and compared at lamport precision', () => {
    const messages = bySubject[subject];
    for (const m of messages) expect(tradeFacts(subject, m).lamports, m.signature as string).toBe(expectedLamports(subject, m));
    const amounts = messages
      .map((m) => expectedLamports(subject, m))
      .filter((l): l is bigint => l !== undefined)
      .sort((a, b) => (a < b ? -1 : 1));
    expect(amounts.length).toBeGreaterThan(0);
    const median = amounts[Math.floor(amounts.length / 2)]!;
    const sol = Number(median) / 1e9; // the recorded amounts have at most 9 decimals, so this is exact in decimal form
    expect(solToLamports(sol)).toBe(median);
    const passed = passing(subject, { min_sol: sol });
    expect(passed).toEqual(messages.filter((m) => (expectedLamports(subject, m) ?? -1n) >= median));
    expect(passed.length).toBeGreaterThan(0);
    if (messages.length > 1) expect(passed.length).toBeLessThan(messages.length);
    expect(passing(subject, { min_sol: 0 })).toEqual(messages);
  });

  it('when several keys are given, then a trade must match all of them', () => {
    const messages = bySubject[subject];
    const known = messages[0]!;
    const facts = tradeFacts(subject, known);
    const otherType = TRANSACTION_TYPES[subject].find((t) => t !== known.transaction_type)!;
    const all = { mints: [facts.mints[0]!], accounts: [facts.accounts[0]!], types: [known.transaction_type as string] };
    expect(matchesFilter(parse(all, subject), facts)).toBe(true);
    expect(matchesFilter(parse({ ...all, types: [otherType] }, subject), facts)).toBe(false);
    expect(matchesFilter(parse({ ...all, mints: [NOBODY] }, subject), facts)).toBe(false);
    expect(matchesFilter(parse({ ...all, accounts: [NOBODY] }, subject), facts)).toBe(false);
    expect(matchesFilter(parse({ ...all, min_sol: 1e9 }, subject), facts)).toBe(false);
  });
});

describe('min_sol boundary', () => {
  it('when a trade moves exactly min_sol, then it passes; one lamport more and it does not', () => {
    const buy = recorded('basic.pumpfun', 'ZEu54dZe', 'BUY');
    expect(buy.sol_amount).toBe('1000000000');
    const facts = tradeFacts('basic.pumpfun', buy);
    expect(matchesFilter(parse({ min_sol: 1 }), facts)).toBe(true);
    expect(matchesFilter(parse({ min_sol: 0.999999999 }), facts)).toBe(true);
    expect(matchesFilter(parse({ min_sol: 1.000000001 }), facts)).toBe(false);
  });

  it('when a lamport amount is not representable as a float, then the comparison is still exact', () => {
    const facts: TradeFacts = { mints: [], accounts: [], type: 'BUY', lamports: 9_007_199_254_740_993n }; // 2^53 + 1
    expect(matchesFilter(parse({ min_sol: 9007199.254740993 }), facts)).toBe(true);
    expect(matchesFilter(parse({ min_sol: 9007199.254740994 }), facts)).toBe(false);
  });
});
