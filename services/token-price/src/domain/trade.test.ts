/**
 * interpretTrade / tradeTimeMs against the bundled recording of real mainnet transactions, decoded by
 * ingest's own decoder, plus copies of those messages changed one field at a time. Expected figures
 * are computed by hand from the recorded events' raw fields (docs/decoding.md).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { BUNDLED_RECORDING_DIR, loadRecording, replayCopy, type TradeMessage } from '@tradewind/ingest';
import {
  InvalidTradeMessage,
  NATIVE_SOL,
  PUMPFUN_DECIMALS,
  PUMPFUN_TOTAL_SUPPLY_RAW,
  USDC_MINT,
  USDT_MINT,
  WSOL_MINT,
  interpretTrade,
  recordedTimeMs,
  tradeTimeMs,
  type InterpretOptions,
  type TradeUpdate,
} from './trade.js';

type Msg = Record<string, unknown>;
type Priced = Extract<TradeUpdate, { priceSol: number }>;
type Created = Extract<TradeUpdate, { kind: 'create' }>;
type SolUsd = Extract<TradeUpdate, { kind: 'sol_usd' }>;

const STREAM_MS = Date.UTC(2026, 10, 21, 12, 0, 0);
const ED5 = 'ED5nyyWEzpPPiWimP8vYm7sD7TD3LAt3Q3gRTWHzPJBY';
const PEX = 'AqFe2tk1BRx6czUuRPGUZ8mtvcBGDZYsG6oPvELwzray';

let recorded: TradeMessage[];
let messages: Msg[];

beforeAll(async () => {
  const { transactions, problems } = await loadRecording(BUNDLED_RECORDING_DIR);
  expect(problems).toEqual([]);
  recorded = transactions.flatMap((t) => t.trades);
  messages = recorded as unknown as Msg[];
});

const options = (over: Partial<InterpretOptions> = {}): InterpretOptions => ({ solUsd: 150, streamTimeMs: STREAM_MS, minRatePoolSol: 100, ...over });
const bytes = (message: unknown): Uint8Array => new TextEncoder().encode(JSON.stringify(message));
const interpret = (message: unknown, over: Partial<InterpretOptions> = {}): TradeUpdate => interpretTrade(bytes(message), options(over));

/** The recorded messages of the transaction whose signature starts with `prefix` (optionally of one type). */
function bySignature(prefix: string, type?: string): Msg[] {
  const found = messages.filter((m) => (m.signature as string).startsWith(prefix) && (type === undefined || m.transaction_type === type));
  expect(found.length, `recorded messages ${prefix}… ${type ?? ''}`).toBeGreaterThan(0);
  return found;
}
const first = (prefix: string, type?: string): Msg => bySignature(prefix, type)[0]!;

function priced(update: TradeUpdate, kind: 'trade' | 'price'): Priced {
  expect(update.kind).toBe(kind);
  return update as Priced;
}
function created(update: TradeUpdate): Created {
  expect(update.kind).toBe('create');
  return update as Created;
}
function solUsd(update: TradeUpdate): SolUsd {
  expect(update.kind).toBe('sol_usd');
  return update as SolUsd;
}

/** The `reason` of the InvalidTradeMessage `fn` throws (fails when it throws nothing or something else). */
function invalidReason(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(InvalidTradeMessage);
    expect((err as Error).name).toBe('InvalidTradeMessage');
    return (err as InvalidTradeMessage).reason;
  }
  throw new Error('expected an InvalidTradeMessage, nothing was thrown');
}

/** The SOL the user moved, in lamports, as the raw (integer string) event field of each source states it. */
function rawLamports(m: Msg): number {
  switch (m.source) {
    case 'pumpfun':
    case 'bonk':
      return Number(m.sol_amount);
    case 'pumpswap':
      return Number(m.user_quote_amount);
    case 'raydium_cpmm':
      return Number(m.side === 'buy' ? m.amount_in : m.amount_out);
    default:
      throw new Error(`unexpected source ${String(m.source)}`);
  }
}

/** Recorded priced messages without a SOL price, and what they must give with a SOL/USD rate known. */
const NO_SOL_PRICE: Record<string, TradeUpdate['kind'] | { ignored: string }> = {
  '2Eaw': { ignored: 'no_sol_side' }, // Raydium CPMM token/token swap
  '2LMz': { ignored: 'no_sol_side' }, // Raydium CPMM token/token swap
  '1Dnj': { ignored: 'unsupported_quote' }, // LaunchLab pool quoted in pSo1…
  '2m5n': 'trade', // pump.fun curve quoted in USDC: priced through SOL/USD
};

describe('when every recorded message is interpreted', () => {
  it('then none throws and each kind follows its transaction_type', () => {
    // The bundled recording grows (more CREATE transactions); at least the 40 messages of its first version.
    expect(messages.length).toBeGreaterThanOrEqual(40);
    const counts: Record<string, number> = {};
    for (const m of messages) {
      const type = m.transaction_type as string;
      const update = interpret(m);
      counts[update.kind] = (counts[update.kind] ?? 0) + 1;
      const label = `${(m.signature as string).slice(0, 4)}… ${type}`;
      const exception = NO_SOL_PRICE[(m.signature as string).slice(0, 4)];
      const timeMs = typeof m.block_time_ms === 'number' ? m.block_time_ms : STREAM_MS;
      const mint = (m.mint ?? m.base_mint) as string;
      if (type === 'CREATE') {
        expect(created(update), label).toMatchObject({ mint, source: m.source, timeMs, replayed: false });
      } else if (type === 'MIGRATE' || type === 'COMPLETE') {
        // A pump.fun COMPLETE / MIGRATE names a pump.fun mint: identity only (its supply); other sources' are ignored.
        if (m.source === 'pumpfun') {
          expect(created(update), label).toEqual({
            kind: 'create',
            mint,
            source: 'pumpfun',
            timeMs,
            facts: { decimals: 6, supplyRaw: PUMPFUN_TOTAL_SUPPLY_RAW },
            replayed: false,
          });
        } else {
          expect(update, label).toEqual({ kind: 'ignored', reason: `type_${type.toLowerCase()}` });
        }
      } else if (type === 'CREATE_POOL' || type === 'DEPOSIT' || type === 'WITHDRAW') {
        expect(typeof m.price_sol, label).toBe('number');
        expect(priced(update, 'price'), label).toMatchObject({ mint, source: m.source, timeMs, priceSol: m.price_sol, volumeLamports: 0, replayed: false });
      } else if (type === 'BUY' || type === 'SELL' || type === 'SWAP') {
        if (typeof m.price_sol === 'number') {
          const u = priced(update, 'trade');
          expect(u, label).toMatchObject({ mint, source: m.source, timeMs, priceSol: m.price_sol, replayed: false });
          expect(u.volumeLamports, label).toBe(rawLamports(m));
          expect(Number.isInteger(u.volumeLamports), label).toBe(true);
        } else {
          expect(exception, `${label}: a priced message without price_sol that this test does not know`).toBeDefined();
          if (typeof exception === 'object') expect(update, label).toEqual({ kind: 'ignored', reason: exception.ignored });
          else expect(update.kind, label).toBe(exception);
        }
      } else {
        throw new Error(`${label}: unexpected transaction_type`);
      }
    }
    // CREATE + pump.fun MIGRATE are identity; CREATE_POOL/DEPOSIT/WITHDRAW price only; the 2 token/token
    // CPMM swaps and the pSo1… sell are ignored (the USDC-quoted curve is priced: SOL/USD 150 here).
    const of = (...types: string[]) => messages.filter((m) => types.includes(m.transaction_type as string)).length;
    expect(counts).toEqual({
      trade: of('BUY', 'SELL', 'SWAP') - 3,
      price: of('CREATE_POOL', 'DEPOSIT', 'WITHDRAW'),
      create: of('CREATE') + messages.filter((m) => m.source === 'pumpfun' && (m.transaction_type === 'MIGRATE' || m.transaction_type === 'COMPLETE')).length,
      ignored: 3,
    });
    expect(counts.create).toBeGreaterThanOrEqual(7);
  });

  it('then none throws without a SOL/USD rate either, and only the USD-quoted curve changes', () => {
    for (const m of messages) {
      const withRate = interpret(m);
      const without = interpret(m, { solUsd: null });
      if ((m.signature as string).startsWith('2m5n')) expect(without).toEqual({ kind: 'ignored', reason: 'no_sol_usd_rate' });
      else expect(without).toEqual(withRate);
    }
  });

  it("then a pump.fun COMPLETE (not in the recording; built from the JBnr… buy's fields) gives the mint's pump.fun supply", () => {
    const b = first('JBnr', 'BUY');
    const complete = {
      source: 'pumpfun',
      transaction_type: 'COMPLETE',
      signature: b.signature,
      slot: b.slot,
      block_time_ms: b.block_time_ms,
      instruction_path: b.instruction_path,
      program_id: b.program_id,
      user: b.user,
      mint: b.mint,
      bonding_curve: b.bonding_curve,
      timestamp: b.timestamp,
    };
    expect(interpret(complete)).toEqual({
      kind: 'create',
      mint: ED5,
      source: 'pumpfun',
      timeMs: 1725989127000,
      facts: { decimals: 6, supplyRaw: PUMPFUN_TOTAL_SUPPLY_RAW },
      replayed: false,
    });
  });

  it('then a MIGRATE or COMPLETE of another source (a LaunchLab MIGRATE, not in the recording) is ignored', () => {
    const b = first('mqSG', 'BUY');
    const migrate = {
      source: 'bonk',
      transaction_type: 'MIGRATE',
      signature: b.signature,
      slot: b.slot,
      block_time_ms: b.block_time_ms,
      instruction_path: b.instruction_path,
      program_id: b.program_id,
      base_mint: b.base_mint,
      quote_mint: b.quote_mint,
      migrate_to: 'raydium_cpmm',
      base_amount: '1',
      quote_amount: '1',
    };
    expect(interpret(migrate)).toEqual({ kind: 'ignored', reason: 'type_migrate' });
    expect(interpret({ ...migrate, transaction_type: 'COMPLETE' })).toEqual({ kind: 'ignored', reason: 'type_complete' });
    expect(interpret({ ...first('2ffH', 'MIGRATE'), source: 'pumpswap' })).toEqual({ kind: 'ignored', reason: 'type_migrate' });
  });
});

describe('when pump.fun BUYs are interpreted (JBnr…, four buys of ED5n… in one bundle)', () => {
  it('then volume is the raw sol_amount in lamports and the price is the virtual reserves ratio, by hand', () => {
    const buys = bySignature('JBnr', 'BUY');
    expect(buys.length).toBe(4);
    for (const b of buys) {
      const u = priced(interpret(b), 'trade');
      expect(u.mint).toBe(ED5);
      expect(u.source).toBe('pumpfun');
      expect(u.volumeLamports).toBe(Number(b.sol_amount as string));
      expect(u.priceSol).toBe(Number(b.virtual_sol_reserves as string) / 1e9 / (Number(b.virtual_token_reserves as string) / 1e6));
      expect(u.timeMs).toBe(1725989127000);
    }
    // The first and the last buy with the raw figures written out.
    const [b1, , , b4] = buys.map((b) => priced(interpret(b), 'trade'));
    expect(b1!.volumeLamports).toBe(386100226);
    expect(b1!.priceSol / (31886100226 / 1e9 / (1009530791558799 / 1e6))).toBeCloseTo(1, 12);
    expect(b4!.volumeLamports).toBe(404234089);
    expect(b4!.priceSol / (33070949359 / 1e9 / (973361836482154 / 1e6))).toBeCloseTo(1, 12);
  });

  it("then without token_total_supply the facts are pump.fun's 6 decimals and 1e15 base units", () => {
    const b = first('JBnr', 'BUY');
    expect(b.token_total_supply).toBeUndefined();
    expect(PUMPFUN_DECIMALS).toBe(6);
    expect(PUMPFUN_TOTAL_SUPPLY_RAW).toBe(1_000_000_000_000_000n);
    expect(priced(interpret(b), 'trade').facts).toEqual({ decimals: 6, supplyRaw: 1_000_000_000_000_000n });
  });
});

describe('when a pump.fun CREATE is interpreted', () => {
  it("then a 2024 CREATE (2s39…) gives the event's name and symbol with the default supply", () => {
    const c = first('2s39', 'CREATE');
    const u = created(interpret(c));
    expect(u).toMatchObject({ mint: '5dNYcCZXEGfGgbdUdq7MMR7KLsNJLLLgL83wLH8Fpump', source: 'pumpfun', timeMs: 1727637145000, replayed: false });
    expect(u.facts).toEqual({ name: 'MOO DOG', symbol: 'MOODOG', decimals: 6, supplyRaw: PUMPFUN_TOTAL_SUPPLY_RAW });
  });

  it('then a 2025+ CREATE carrying token_total_supply uses that value', () => {
    const c = first('5EDH', 'CREATE');
    expect(c.token_total_supply).toBe('1000000000000000');
    expect(created(interpret(c)).facts).toEqual({ name: 'NYXORA', symbol: 'NYXORA', decimals: 6, supplyRaw: 1_000_000_000_000_000n });
    // The recorded value equals the default, so a copy with another supply shows which one is used.
    expect(created(interpret({ ...c, token_total_supply: '2000000000000001' })).facts.supplyRaw).toBe(2_000_000_000_000_001n);
    expect(created(interpret({ ...first('a9ty', 'CREATE'), token_total_supply: '999' })).facts.supplyRaw).toBe(999n);
  });

  it('then a token_total_supply that is not a decimal string falls back to the default', () => {
    const c = first('5EDH', 'CREATE');
    for (const bad of [2e15, '2e15', '-5', '', 'abc']) {
      expect(created(interpret({ ...c, token_total_supply: bad })).facts.supplyRaw).toBe(PUMPFUN_TOTAL_SUPPLY_RAW);
    }
  });

  it('then a CREATE naming a quote asset is ignored and one without a mint is invalid', () => {
    const c = first('2s39', 'CREATE');
    expect(interpret({ ...c, mint: WSOL_MINT })).toEqual({ kind: 'ignored', reason: 'quote_asset' });
    expect(interpret({ ...c, mint: USDC_MINT })).toEqual({ kind: 'ignored', reason: 'quote_asset' });
    const { mint: _mint, ...noMint } = c;
    expect(invalidReason(() => interpret(noMint))).toBe('missing_fields');
    expect(invalidReason(() => interpret({ ...c, mint: '' }))).toBe('missing_fields');
  });
});

describe('when LaunchLab (source bonk) messages are interpreted', () => {
  it('then the CREATE (mqSG…) names base_mint and takes name, symbol, decimals from base_mint_param and supply from curve_param', () => {
    const c = first('mqSG', 'CREATE');
    expect(c.mint).toBeUndefined();
    const u = created(interpret(c));
    expect(u).toMatchObject({ mint: PEX, source: 'bonk', timeMs: 1749468265000 });
    expect(u.facts).toEqual({ name: 'PenguX', symbol: 'PEX', decimals: 6, supplyRaw: 1_000_000_000_000_000n });
    // Another decimals and supply in a copy: taken as stated, not pump.fun's defaults.
    const param = c.base_mint_param as Msg;
    const curve = c.curve_param as { variant: string; data: Msg };
    const other = {
      ...c,
      base_mint_param: { ...param, decimals: 9, name: 'Other', symbol: 'OTH' },
      curve_param: { ...curve, data: { ...curve.data, supply: '123456789012345678' } },
    };
    expect(created(interpret(other)).facts).toEqual({ name: 'Other', symbol: 'OTH', decimals: 9, supplyRaw: 123_456_789_012_345_678n });
    // Without curve_param: no supply; non-integer decimals: no decimals.
    const { curve_param: _curve, ...noCurve } = c;
    expect(created(interpret({ ...noCurve, base_mint_param: { ...param, decimals: 6.5 } })).facts).toEqual({ name: 'PenguX', symbol: 'PEX' });
  });

  it("then the BUY (mqSG…) is priced on base_mint from the curve's raw reserves, by hand", () => {
    const b = first('mqSG', 'BUY');
    const u = priced(interpret(b), 'trade');
    expect(u.mint).toBe(PEX);
    expect(u.source).toBe('bonk');
    expect(u.volumeLamports).toBe(1_000_000_000); // amount_in 1 SOL
    const hand =
      ((Number(b.virtual_quote as string) + Number(b.real_quote_after as string)) / (Number(b.virtual_base as string) - Number(b.real_base_after as string))) *
      1e-3;
    expect(u.priceSol / hand).toBeCloseTo(1, 12);
    expect(u.priceSol / (((10000000000 + 990000000) / (1066666666666666 - 96087352138307)) * 1e-3)).toBeCloseTo(1, 12);
    expect(u.facts).toEqual({}); // a LaunchLab trade states no identity
  });

  it('then the pSo1…-quoted sell (1Dnj…) is ignored as an unsupported quote, whatever the SOL/USD rate', () => {
    const s = first('1Dnj', 'SELL');
    expect(s.quote_mint).toBe('pSo1f9nQXWgXibFtKf7NWYxb5enAM4qfP6UJSiXRQfL');
    expect(interpret(s)).toEqual({ kind: 'ignored', reason: 'unsupported_quote' });
    expect(interpret(s, { solUsd: null })).toEqual({ kind: 'ignored', reason: 'unsupported_quote' });
  });
});

describe('when the USDC-quoted pump.fun curve (2m5n…) is interpreted', () => {
  it('then with SOL/USD 150 its price and volume are the USD figures over 150', () => {
    const m = first('2m5n');
    expect(m.quote_mint).toBe(USDC_MINT);
    expect(m.price_sol).toBeUndefined();
    const priceQuote = m.price_quote as number;
    const quoteUi = m.quote_amount_ui as number;
    // The message's own figures from the raw event fields (USDC has 6 decimals).
    expect(priceQuote).toBe(Number(m.virtual_quote_reserves as string) / 1e6 / (Number(m.virtual_token_reserves as string) / 1e6));
    expect(quoteUi).toBe(3.517192);
    const u = priced(interpret(m, { solUsd: 150 }), 'trade');
    expect(u.mint).toBe('4F4gGVBAWuKi3EpmYdhntXvCVFqZZqmrb1cqNGawpump');
    expect(u.priceSol).toBe(priceQuote / 150);
    expect(u.volumeLamports).toBe(Math.round((quoteUi / 150) * 1e9));
    expect(u.volumeLamports).toBe(23447947); // 3.517192 USD / 150 = 0.023447946666… SOL
    expect(priced(interpret(m, { solUsd: 200 }), 'trade').priceSol).toBe(priceQuote / 200);
  });

  it('then without a SOL/USD rate it is ignored as no_sol_usd_rate', () => {
    expect(interpret(first('2m5n'), { solUsd: null })).toEqual({ kind: 'ignored', reason: 'no_sol_usd_rate' });
  });

  it('then a USDT quote is priced the same way and any other quote mint is unsupported', () => {
    const m = first('2m5n');
    expect(priced(interpret({ ...m, quote_mint: USDT_MINT }), 'trade').priceSol).toBe((m.price_quote as number) / 150);
    expect(interpret({ ...m, quote_mint: 'pSo1f9nQXWgXibFtKf7NWYxb5enAM4qfP6UJSiXRQfL' })).toEqual({ kind: 'ignored', reason: 'unsupported_quote' });
    const { quote_mint: _q, ...noQuoteMint } = m;
    expect(interpret(noQuoteMint)).toEqual({ kind: 'ignored', reason: 'unsupported_quote' });
  });

  it('then neither price_sol nor price_quote gives unpriced', () => {
    const { price_quote: _p, ...unpriced } = first('2m5n');
    expect(interpret(unpriced)).toEqual({ kind: 'ignored', reason: 'unpriced' });
  });

  it("then a replayed copy is priced with the replay's SOL/USD at its own chain time, not the live one", () => {
    const m: Msg = { ...first('2m5n'), replayed: true, replay_loop: 0, replayed_at_ms: STREAM_MS };
    const asked: (number | null)[] = [];
    const at = (rate: number | null) => (t: number | null) => {
      asked.push(t);
      return rate;
    };
    expect(priced(interpret(m, { solUsd: 150, replayedSolUsd: at(120) }), 'trade').priceSol).toBe((m.price_quote as number) / 120);
    expect(asked).toEqual([m.block_time_ms]);
    expect(interpret(m, { solUsd: 150, replayedSolUsd: at(null) })).toEqual({ kind: 'ignored', reason: 'no_sol_usd_rate' });
    // A live copy ignores the replay's rate.
    expect(priced(interpret({ ...m, replayed: false }, { solUsd: 150, replayedSolUsd: at(120) }), 'trade').priceSol).toBe((m.price_quote as number) / 150);
  });
});

describe("when a message's chain time and event id are taken", () => {
  it("then the chain time is block_time_ms, else the event's own timestamp (seconds), else null", () => {
    const b = first('JBnr', 'BUY');
    expect(recordedTimeMs(b)).toBe(1725989127000);
    // 3sWB… is a blockSubscribe capture without block time: its TradeEvent's timestamp 1724072458 s.
    const captured = first('3sWB', 'BUY');
    expect(captured.block_time_ms).toBeNull();
    expect(captured.timestamp).toBe('1724072458');
    expect(recordedTimeMs(captured)).toBe(1724072458000);
    expect(priced(interpret(captured), 'trade').recordedTimeMs).toBe(1724072458000);
    // Its CreateEvent (2024 layout) has no timestamp: null.
    expect(recordedTimeMs(first('3sWB', 'CREATE'))).toBeNull();
    expect(recordedTimeMs({ ...captured, timestamp: 'soon' })).toBeNull();
    expect(recordedTimeMs({ ...captured, timestamp: '0' })).toBeNull();
    expect(recordedTimeMs({ ...captured, timestamp: 1700000000 })).toBe(1700000000000);
    // A replayed copy keeps the recording's time.
    expect(priced(interpret(replayCopy(b as unknown as TradeMessage, 'r', 2, STREAM_MS).message), 'trade')).toMatchObject({
      recordedTimeMs: 1725989127000,
      timeMs: STREAM_MS,
      replayed: true,
    });
  });

  it('then the event id is the signature and instruction path, the same in every replayed copy', () => {
    const buys = bySignature('JBnr', 'BUY');
    const ids = buys.map((b) => priced(interpret(b), 'trade').tradeId);
    expect(ids).toEqual([1, 3, 5, 7].map((i) => `${buys[0]!.signature as string}:${i}`));
    const copy = replayCopy(buys[0] as unknown as TradeMessage, 'other-run', 9, STREAM_MS).message;
    expect(priced(interpret(copy), 'trade').tradeId).toBe(ids[0]);
    expect(priced(interpret(first('2bhr', 'SWAP')), 'trade').tradeId).toMatch(/^2bhr[1-9A-HJ-NP-Za-km-z]+:3\.0$/);
  });
});

describe('when PumpSwap trades in a SOL/USD-stablecoin pool are interpreted', () => {
  // Constructed: the recording has no such pool. Copies of the recorded PumpSwap BUY 4Urr… with the
  // pool's mints and derived figures changed: a WSOL/USDC pool of 2 000 SOL and 300 000 USDC after the trade.
  const base = () => first('4Urr', 'BUY');
  const wsolBase = (over: Msg = {}): Msg => ({
    ...base(),
    mint: WSOL_MINT,
    base_mint: WSOL_MINT,
    quote_mint: USDC_MINT,
    pool_base_token_reserves_after: '2000000000000',
    pool_quote_token_reserves_after: '300000000000',
    price_sol: undefined,
    price_quote: 150,
    quote_amount_ui: 1.5,
    sol_amount_ui: undefined,
    ...over,
  });
  const usdcBase = (over: Msg = {}): Msg => ({
    ...base(),
    mint: USDC_MINT,
    base_mint: USDC_MINT,
    quote_mint: WSOL_MINT,
    pool_base_token_reserves_after: '300000000000',
    pool_quote_token_reserves_after: '2000000000000',
    price_sol: 2000 / 300000,
    ...over,
  });

  it('then base WSOL quoted in USDC or USDT gives SOL/USD = price_quote, with the SOL reserve from the base side', () => {
    const u = solUsd(interpret(wsolBase(), { minRatePoolSol: 100 }));
    expect(u).toMatchObject({ solUsd: 150, timeMs: 1791226390000, recordedTimeMs: 1791226390000, replayed: false });
    expect(solUsd(interpret(wsolBase({ quote_mint: USDT_MINT }))).solUsd).toBe(150);
    expect(interpret(wsolBase(), { minRatePoolSol: 2000 }).kind).toBe('sol_usd');
    expect(interpret(wsolBase(), { minRatePoolSol: 2000.000000001 })).toEqual({ kind: 'ignored', reason: 'rate_pool_too_small' });
  });

  it('then base USDC quoted in WSOL gives SOL/USD = 1 / price_sol, with the SOL reserve from the quote side', () => {
    const u = solUsd(interpret(usdcBase(), { minRatePoolSol: 2000 }));
    expect(u.solUsd).toBe(1 / (2000 / 300000));
    expect(u.solUsd).toBeCloseTo(150, 9);
    expect(interpret(usdcBase(), { minRatePoolSol: 2000.000000001 })).toEqual({ kind: 'ignored', reason: 'rate_pool_too_small' });
  });

  it('then a pool without reserves, without a price, a deposit, or WSOL against another mint gives no rate', () => {
    expect(interpret(wsolBase({ pool_base_token_reserves_after: undefined }))).toEqual({ kind: 'ignored', reason: 'rate_pool_too_small' });
    expect(interpret(wsolBase({ price_quote: undefined }))).toEqual({ kind: 'ignored', reason: 'unpriced' });
    expect(interpret(usdcBase({ transaction_type: 'DEPOSIT' }))).toEqual({ kind: 'ignored', reason: 'stablecoin_pool' });
    expect(interpret(wsolBase({ quote_mint: 'pSo1f9nQXWgXibFtKf7NWYxb5enAM4qfP6UJSiXRQfL' }))).toEqual({ kind: 'ignored', reason: 'quote_asset' });
    expect(invalidReason(() => interpret(wsolBase({ price_quote: -1 })))).toBe('bad_number');
  });
});

describe('when Raydium CPMM swaps are interpreted', () => {
  it('then token/token swaps (no mint) are ignored as no_sol_side', () => {
    for (const prefix of ['2Eaw', '2LMz']) {
      const s = first(prefix, 'SWAP');
      expect(s.mint).toBeUndefined();
      expect(s.input_mint).not.toBe(WSOL_MINT);
      expect(s.output_mint).not.toBe(WSOL_MINT);
      expect(interpret(s)).toEqual({ kind: 'ignored', reason: 'no_sol_side' });
    }
  });

  it('then the recorded WSOL swap (2bhr…) is a trade of its token with the SOL that left the pool', () => {
    const s = first('2bhr', 'SWAP');
    const u = priced(interpret(s), 'trade');
    expect(u).toMatchObject({
      mint: '7atgF8KQo4wJrD5ATGX7t1V2zVvykPJbFfNeVf1icFv1',
      source: 'raydium_cpmm',
      priceSol: s.price_sol,
      volumeLamports: 15742,
      facts: {},
    });
  });

  // Constructed: the recording has no WSOL/USDC swap, so this copies the recorded WSOL CPMM swap 2bhr…
  // (token in, WSOL out) and makes the token side USDC: 150 USDC in, SOL out of a 1 000 SOL / 150 000 USDC pool.
  const SOL_BEFORE = 1_000_000_000_000n; // lamports
  const USDC_BEFORE = 150_000_000_000n; // USDC base units (6 decimals)
  const USDC_IN = 150_000_000n;
  const SOL_OUT = 999_000_999n; // constant product: 1000e9 × 150e6 / 150150e6, floored
  const SOL_AFTER = Number(SOL_BEFORE - SOL_OUT) / 1e9; // 999.000999001 SOL
  const USDC_AFTER = Number(USDC_BEFORE + USDC_IN) / 1e6;
  const PRICE_SOL = SOL_AFTER / USDC_AFTER; // SOL per USDC
  function usdcSwap(): Msg {
    return {
      ...first('2bhr', 'SWAP'),
      mint: USDC_MINT,
      input_mint: USDC_MINT,
      output_mint: WSOL_MINT,
      input_vault_before: String(USDC_BEFORE),
      output_vault_before: String(SOL_BEFORE),
      input_amount: String(USDC_IN),
      output_amount: String(SOL_OUT),
      amount_in: String(USDC_IN),
      amount_out: String(SOL_OUT),
      input_transfer_fee: '0',
      output_transfer_fee: '0',
      side: 'sell',
      sol_amount_ui: Number(SOL_OUT) / 1e9,
      token_amount_ui: Number(USDC_IN) / 1e6,
      price_sol: PRICE_SOL,
    };
  }

  it('then a WSOL/USDC swap is a SOL/USD observation of 1 / price_sol when the SOL reserve after it is at least minRatePoolSol', () => {
    const s = usdcSwap();
    const u = solUsd(interpret(s, { minRatePoolSol: 100 }));
    expect(u.solUsd).toBe(1 / PRICE_SOL);
    expect(u.solUsd).toBeCloseTo(150.3, 1);
    expect(u.timeMs).toBe(1726695504000);
    expect(u.replayed).toBe(false);
    // Exactly at the threshold (reserve after = before − output = 999.000999001 SOL) it still counts.
    expect(SOL_AFTER).toBe(999.000999001);
    expect(interpret(s, { minRatePoolSol: 999.000999001 }).kind).toBe('sol_usd');
    // The threshold is on the reserve after the swap, not before (1 000 SOL).
    expect(interpret(s, { minRatePoolSol: 999.5 })).toEqual({ kind: 'ignored', reason: 'rate_pool_too_small' });
    expect(interpret(s, { minRatePoolSol: 999.000999002 })).toEqual({ kind: 'ignored', reason: 'rate_pool_too_small' });
  });

  it('then a creator fee taken on the SOL side is not counted in the SOL reserve', () => {
    const s = usdcSwap();
    const solIn = {
      ...s,
      input_mint: WSOL_MINT,
      output_mint: USDC_MINT,
      input_vault_before: '9000000000',
      input_amount: '1000000000',
      output_vault_before: '1350000000',
      output_amount: '135000000',
      side: 'buy',
    };
    expect(interpret({ ...solIn, creator_fee: '1', creator_fee_on_input: true }, { minRatePoolSol: 10 })).toEqual({
      kind: 'ignored',
      reason: 'rate_pool_too_small',
    });
    expect(interpret({ ...solIn, creator_fee: '1', creator_fee_on_input: false }, { minRatePoolSol: 10 }).kind).toBe('sol_usd'); // fee on the USDC side
    expect(interpret({ ...s, creator_fee: '1', creator_fee_on_input: false }, { minRatePoolSol: 999.000999001 })).toEqual({
      kind: 'ignored',
      reason: 'rate_pool_too_small',
    });
  });

  it('then with SOL in, the SOL reserve after is the input vault plus the input amount', () => {
    const s = usdcSwap();
    const solIn = {
      ...s,
      input_mint: WSOL_MINT,
      output_mint: USDC_MINT,
      input_vault_before: '9000000000',
      input_amount: '1000000000',
      output_vault_before: '1350000000',
      output_amount: '135000000',
      side: 'buy',
    };
    expect(interpret(solIn, { minRatePoolSol: 10 }).kind).toBe('sol_usd'); // 9 + 1 = 10 SOL
    expect(interpret(solIn, { minRatePoolSol: 10.000000001 })).toEqual({ kind: 'ignored', reason: 'rate_pool_too_small' });
  });

  it('then a WSOL/USDC swap without reserves, or not from Raydium CPMM, or not a swap, gives no rate', () => {
    const s = usdcSwap();
    const { output_vault_before: _o, ...noReserve } = s;
    expect(interpret(noReserve)).toEqual({ kind: 'ignored', reason: 'rate_pool_too_small' });
    expect(interpret({ ...s, source: 'pumpswap' })).toEqual({ kind: 'ignored', reason: 'stablecoin_pool' });
    expect(interpret({ ...s, transaction_type: 'DEPOSIT' })).toEqual({ kind: 'ignored', reason: 'stablecoin_pool' });
    const { price_sol: _p, ...unpriced } = s;
    expect(interpret(unpriced)).toEqual({ kind: 'ignored', reason: 'unpriced' });
    expect(invalidReason(() => interpret({ ...s, price_sol: 0 }))).toBe('bad_number');
  });

  it('then a message whose mint is WSOL (or native SOL) is ignored as a quote asset', () => {
    expect(interpret({ ...first('2bhr', 'SWAP'), mint: WSOL_MINT })).toEqual({ kind: 'ignored', reason: 'quote_asset' });
    expect(interpret({ ...first('JBnr', 'BUY'), mint: WSOL_MINT })).toEqual({ kind: 'ignored', reason: 'quote_asset' });
    expect(interpret({ ...first('JBnr', 'BUY'), mint: NATIVE_SOL })).toEqual({ kind: 'ignored', reason: 'quote_asset' });
  });
});

describe("when a trade's time is taken", () => {
  it('then a replayed copy is timed at replayed_at_ms, not its block time', () => {
    const b = recorded.find((m) => m.signature.startsWith('JBnr'))!;
    const T0 = Date.UTC(2026, 10, 21, 12, 0, 0);
    const copy = replayCopy(b, 'test', 0, T0).message as unknown as Msg;
    expect(copy.block_time_ms).toBe(1725989127000);
    expect(tradeTimeMs(copy, STREAM_MS)).toEqual({ timeMs: T0, basis: 'replayed_at' });
    expect(priced(interpret(copy), 'trade')).toMatchObject({ timeMs: T0, replayed: true });
  });

  it('then a live message is timed at block_time_ms', () => {
    const b = first('JBnr', 'BUY');
    expect(tradeTimeMs(b, STREAM_MS)).toEqual({ timeMs: 1725989127000, basis: 'block_time' });
    expect(priced(interpret(b), 'trade')).toMatchObject({ timeMs: 1725989127000, replayed: false });
  });

  it('then replayed_at_ms counts only with replayed: true, and replayed: true without it falls back to the block time', () => {
    const b = first('JBnr', 'BUY');
    expect(tradeTimeMs({ ...b, replayed: false, replayed_at_ms: 5 }, STREAM_MS)).toEqual({ timeMs: 1725989127000, basis: 'block_time' });
    expect(tradeTimeMs({ ...b, replayed: 'true', replayed_at_ms: 5 }, STREAM_MS)).toEqual({ timeMs: 1725989127000, basis: 'block_time' });
    expect(tradeTimeMs({ ...b, replayed: true }, STREAM_MS)).toEqual({ timeMs: 1725989127000, basis: 'block_time' });
    expect(tradeTimeMs({ ...b, replayed: true, replayed_at_ms: '5' }, STREAM_MS)).toEqual({ timeMs: 1725989127000, basis: 'block_time' });
    expect(priced(interpret({ ...b, replayed: true }), 'trade')).toMatchObject({ timeMs: 1725989127000, replayed: true });
  });

  it('then a message with block_time_ms null (3sWB…) is timed at the stream time', () => {
    const b = first('3sWB', 'BUY');
    expect(b.block_time_ms).toBeNull();
    expect(tradeTimeMs(b, STREAM_MS)).toEqual({ timeMs: STREAM_MS, basis: 'stream' });
    expect(priced(interpret(b), 'trade').timeMs).toBe(STREAM_MS);
    expect(priced(interpret(b, { streamTimeMs: 42 }), 'trade').timeMs).toBe(42);
    const { block_time_ms: _bt, ...noBlockTime } = first('JBnr', 'BUY');
    expect(tradeTimeMs(noBlockTime, 7)).toEqual({ timeMs: 7, basis: 'stream' });
  });
});

describe('when the bytes are not a trade message', () => {
  it('then non-UTF-8 bytes and non-JSON text are not_json', () => {
    expect(invalidReason(() => interpretTrade(new Uint8Array([0xff, 0xfe, 0x00]), options()))).toBe('not_json');
    // Valid JSON text in invalid UTF-8 (a lone continuation byte inside a string) is still rejected.
    expect(invalidReason(() => interpretTrade(new Uint8Array([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0x80, 0x22, 0x7d]), options()))).toBe('not_json');
    for (const text of ['not json {', '', '{"source":', "{'a':1}"]) {
      expect(
        invalidReason(() => interpretTrade(new TextEncoder().encode(text), options())),
        text,
      ).toBe('not_json');
    }
  });

  it('then arrays, null, numbers and strings are not_object', () => {
    for (const text of ['[1,2]', '[]', 'null', '42', '"BUY"', 'true']) {
      expect(
        invalidReason(() => interpretTrade(new TextEncoder().encode(text), options())),
        text,
      ).toBe('not_object');
    }
  });

  it('then a message without source, transaction_type or signature (or with one not a string) is missing_fields', () => {
    const b = first('JBnr', 'BUY');
    for (const field of ['source', 'transaction_type', 'signature']) {
      const { [field]: _dropped, ...rest } = b;
      expect(
        invalidReason(() => interpret(rest)),
        field,
      ).toBe('missing_fields');
      expect(
        invalidReason(() => interpret({ ...b, [field]: null })),
        `${field} null`,
      ).toBe('missing_fields');
      expect(
        invalidReason(() => interpret({ ...b, [field]: 1 })),
        `${field} number`,
      ).toBe('missing_fields');
    }
    expect(invalidReason(() => interpret({ source: 'pumpfun', transaction_type: 'BUY' }))).toBe('missing_fields');
  });

  it('then a non-positive or non-numeric price, or a negative amount, is bad_number', () => {
    const b = first('JBnr', 'BUY');
    expect(invalidReason(() => interpret({ ...b, price_sol: -1 }))).toBe('bad_number');
    expect(invalidReason(() => interpret({ ...b, price_sol: 0 }))).toBe('bad_number');
    expect(invalidReason(() => interpret({ ...b, price_sol: 'NaN' }))).toBe('bad_number');
    expect(invalidReason(() => interpret({ ...b, price_sol: '3.1e-8' }))).toBe('bad_number');
    expect(invalidReason(() => interpretTrade(new TextEncoder().encode(JSON.stringify(b).replace(/"price_sol":[^,}]+/, '"price_sol":1e400')), options()))).toBe(
      'bad_number',
    );
    expect(invalidReason(() => interpret({ ...b, sol_amount_ui: 'a lot' }))).toBe('bad_number');
    expect(invalidReason(() => interpret({ ...b, sol_amount_ui: 'Infinity' }))).toBe('bad_number');
    expect(invalidReason(() => interpret({ ...b, sol_amount_ui: -0.5 }))).toBe('bad_number');
    const usdc = first('2m5n');
    expect(invalidReason(() => interpret({ ...usdc, price_quote: -1 }))).toBe('bad_number');
    expect(invalidReason(() => interpret({ ...usdc, quote_amount_ui: -1 }))).toBe('bad_number');
    // Zero volume is allowed (the USDC curve's own sol_amount_ui is 0).
    expect(priced(interpret({ ...b, sol_amount_ui: 0 }), 'trade').volumeLamports).toBe(0);
  });

  it('then a priced BUY without sol_amount_ui is missing_amount, while a price-only message needs none', () => {
    const { sol_amount_ui: _a, ...noAmount } = first('JBnr', 'BUY');
    expect(invalidReason(() => interpret(noAmount))).toBe('missing_amount');
    expect(invalidReason(() => interpret({ ...noAmount, sol_amount_ui: null }))).toBe('missing_amount');
    const { quote_amount_ui: _q, ...noQuoteAmount } = first('2m5n');
    expect(invalidReason(() => interpret(noQuoteAmount))).toBe('missing_amount');
    const { sol_amount_ui: _w, ...withdraw } = first('2Z6p', 'WITHDRAW');
    expect(priced(interpret(withdraw), 'price').volumeLamports).toBe(0);
  });
});

describe('when a message carries a name or symbol', () => {
  it('then control characters are removed and the text trimmed', () => {
    const c = first('2s39', 'CREATE');
    const u = created(interpret({ ...c, name: '\t MOO\u0000 DOG\u0007\u007f \n', symbol: '\u001bMOO\u0001DOG\r\n' }));
    expect(u.facts.name).toBe('MOO DOG');
    expect(u.facts.symbol).toBe('MOODOG');
    // LaunchLab base_mint_param names are cleaned the same way.
    const l = first('mqSG', 'CREATE');
    const lu = created(interpret({ ...l, base_mint_param: { ...(l.base_mint_param as Msg), name: ' Pen\u0000guX ', symbol: '\u0002PEX\u0003' } }));
    expect(lu.facts).toMatchObject({ name: 'PenguX', symbol: 'PEX' });
  });

  it('then a name or symbol of only control characters and spaces, or not a string, is absent', () => {
    const c = first('2s39', 'CREATE');
    const u = created(interpret({ ...c, name: ' \u0000\u0001 \t', symbol: 42 }));
    expect(u.facts).not.toHaveProperty('name');
    expect(u.facts).not.toHaveProperty('symbol');
    expect(u.facts).toEqual({ decimals: 6, supplyRaw: PUMPFUN_TOTAL_SUPPLY_RAW });
  });

  it('then names are capped at 64 and symbols at 16 characters, counted in code points', () => {
    const c = first('2s39', 'CREATE');
    const long = created(interpret({ ...c, name: 'n'.repeat(100), symbol: 's'.repeat(17) }));
    expect(long.facts.name).toBe('n'.repeat(64));
    expect(long.facts.symbol).toBe('s'.repeat(16));
    const exact = created(interpret({ ...c, name: 'n'.repeat(64), symbol: 's'.repeat(16) }));
    expect(exact.facts.name).toBe('n'.repeat(64));
    expect(exact.facts.symbol).toBe('s'.repeat(16));
    // Astral characters (2 UTF-16 units each) count once and are never split.
    const emoji = created(interpret({ ...c, name: '🐶'.repeat(70), symbol: '🚀'.repeat(20) }));
    expect([...emoji.facts.name!]).toHaveLength(64);
    expect(emoji.facts.name).toBe('🐶'.repeat(64));
    expect(emoji.facts.symbol).toBe('🚀'.repeat(16));
    expect(emoji.facts.symbol).toHaveLength(32);
    // The cap applies after control characters are removed.
    expect(created(interpret({ ...c, symbol: '\u0000'.repeat(10) + 'S'.repeat(16) })).facts.symbol).toBe('S'.repeat(16));
  });

  it('then format and separator characters (a right-to-left override, U+2028) are removed and a cap never leaves a trailing space', () => {
    const c = first('2s39', 'CREATE');
    const u = created(interpret({ ...c, name: 'A\u0085B\u009b\u202eC\u2028D\u200bE', symbol: 'a'.repeat(15) + ' b' }));
    expect(u.facts.name).toBe('ABCDE');
    expect(u.facts.symbol).toBe('a'.repeat(15));
  });

  it("then a trade's own name and symbol (2s39… BUY) are facts too", () => {
    expect(priced(interpret(first('2s39', 'BUY')), 'trade').facts).toEqual({
      name: 'MOO DOG',
      symbol: 'MOODOG',
      decimals: 6,
      supplyRaw: PUMPFUN_TOTAL_SUPPLY_RAW,
    });
  });
});
