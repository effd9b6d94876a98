/**
 * Derived fields (decode/derived.ts) on real recorded transactions: each formula is checked against
 * independent arithmetic on the raw event values the chain wrote (reserves, supplies), and every
 * message of the recording still validates against its subject's JSON Schema once they are added.
 * Messages labelled "constructed" are not from the chain (no COMPLETE and no WSOL/USDC or WSOL/USDT
 * swap is in the recording).
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  addDerivedFields,
  createDeriver,
  DEFAULT_SOL_USD_MAX_STREAM_AGE_MS,
  PUMPFUN_INITIAL_REAL_TOKEN_RESERVES_RAW,
  PUMPFUN_TOTAL_SUPPLY_RAW,
  SolUsdReference,
  USDC_MINT,
  USDT_MINT,
  type UsdReference,
} from './derived.js';
import { decodeTransaction, subjectOf, type TradeMessage, type TradeSubject } from './index.js';
import { LaunchlabSupplyCache } from './pool-supplies.js';
import { WSOL_MINT } from './program.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const recording = join(root, 'recording');
const SUBJECTS: TradeSubject[] = ['basic.pumpfun', 'basic.bonk', 'premium.pumpswap', 'premium.raydium'];
// The same validator settings as test/message-fields.test.ts and test/decode-amm.test.ts.
const ajv = new Ajv2020({ allErrors: true, strict: true, strictRequired: false });
const validators = Object.fromEntries(
  SUBJECTS.map((s) => [s, ajv.compile(JSON.parse(readFileSync(join(root, `../../packages/contracts/schemas/${s}.schema.json`), 'utf8')) as object)]),
) as Record<TradeSubject, ReturnType<typeof ajv.compile>>;

const FILES = readdirSync(recording, { withFileTypes: true })
  .filter((d) => d.isDirectory())
  .flatMap((d) =>
    readdirSync(join(recording, d.name))
      .filter((f) => f.endsWith('.json'))
      .map((f) => join(d.name, f)),
  );

/** Decodes the recorded transaction whose file is `<program>/<signature prefix>…`. */
function decodeFile(program: string, prefix: string): TradeMessage[] {
  const file = FILES.find((f) => f.startsWith(`${program}/${prefix}`));
  if (!file) throw new Error(`no recording ${program}/${prefix}…`);
  return decodeTransaction(JSON.parse(readFileSync(join(recording, file), 'utf8')));
}
const one = (ms: TradeMessage[], kind: string): TradeMessage => {
  const m = ms.find((x) => x.transaction_type === kind);
  if (!m) throw new Error(`no ${kind} message`);
  return m;
};
const big = (v: unknown): bigint => BigInt(String(v));
/** |a − b| / |b| below 1e-12: the same quantity computed in another order of floating-point operations. */
const close = (a: unknown, b: number): void => {
  expect(typeof a).toBe('number');
  expect(Math.abs((a as number) - b) / Math.abs(b)).toBeLessThan(1e-12);
};
const REF: UsdReference = { usd_per_sol: 150.25, source: 'config', observed_at_ms: 1_760_000_000_000 };
const NEW_FIELDS = ['market_cap_sol', 'bonding_curve_progress', 'price_usd', 'market_cap_usd', 'usd_reference'];

describe('addDerivedFields on pump.fun', () => {
  it('when a real 2024 buy is derived, then progress = (793.1e12 − real_token_reserves) / 793.1e12 and market cap = virtual SOL × 1e15 / virtual tokens', () => {
    const buy = one(decodeFile('pumpfun', '2ghHZX'), 'BUY'); // 2024 TradeEvent, no CreateEvent in the transaction
    addDerivedFields([buy], {});
    const real = big(buy.real_token_reserves);
    // Integer percent with 12 decimals, independent of the module's float division.
    const progressE12 = ((793_100_000_000_000n - real) * 100n * 10n ** 12n) / 793_100_000_000_000n;
    close(buy.bonding_curve_progress, Number(progressE12) / 1e12);
    // SOL price × supply = (vSol / 1e9) / (vTok / 1e6) × (1e15 / 1e6) = vSol / 1e9 × 1e15 / vTok.
    const vSol = Number(big(buy.virtual_sol_reserves));
    const vTok = Number(big(buy.virtual_token_reserves));
    close(buy.market_cap_sol, (vSol / 1e9) * (1e15 / vTok));
    expect(buy.market_cap_sol).toBeCloseTo(45.251, 3);
    expect(buy.bonding_curve_progress).toBeCloseTo(28.9465, 4);
  });

  it('when every recorded pump.fun trade is checked, then virtual − real token reserves = 1 073 000 000 000 000 − 793 100 000 000 000 (the curves started at the Global initial reserves)', () => {
    let n = 0;
    for (const f of FILES.filter((x) => x.startsWith('pumpfun/'))) {
      for (const m of decodeTransaction(JSON.parse(readFileSync(join(recording, f), 'utf8')))) {
        if (m.source !== 'pumpfun' || (m.transaction_type !== 'BUY' && m.transaction_type !== 'SELL')) continue;
        expect(big(m.virtual_token_reserves) - big(m.real_token_reserves)).toBe(1_073_000_000_000_000n - PUMPFUN_INITIAL_REAL_TOKEN_RESERVES_RAW);
        n++;
      }
    }
    expect(n).toBeGreaterThanOrEqual(20);
  });

  it('when a CREATE and its dev buy are derived together, then CREATE is 0 % with the CreateEvent supply and the buy uses the CreateEvent initial reserves', () => {
    const ms = decodeFile('pumpfun', '2eVpZN');
    addDerivedFields(ms, {});
    const create = one(ms, 'CREATE');
    const buy = one(ms, 'BUY');
    expect(create.token_total_supply).toBe(String(PUMPFUN_TOTAL_SUPPLY_RAW));
    expect(create.bonding_curve_progress).toBe(0);
    // The initial price the CreateEvent states (data.price) × 1e9 whole tokens.
    const vSol0 = Number(big(create.virtual_sol_reserves));
    const vTok0 = Number(big(create.virtual_token_reserves));
    close(create.market_cap_sol, (vSol0 / 1e9) * (1e15 / vTok0));
    const initial = big(create.real_token_reserves);
    close(buy.bonding_curve_progress, (Number(initial - big(buy.real_token_reserves)) / Number(initial)) * 100);
    close(buy.market_cap_sol, (Number(big(buy.virtual_sol_reserves)) / 1e9) * (1e15 / Number(big(buy.virtual_token_reserves))));
  });

  it('when the curve is quoted in USDC (mayhem mode), then no SOL market cap and no USD price, but progress is given', () => {
    const buy = one(decodeFile('pumpfun', '2m5nWL'), 'BUY');
    expect(buy.quote_mint).toBe(USDC_MINT);
    addDerivedFields([buy], { solUsd: REF });
    expect(buy.market_cap_sol).toBeUndefined();
    expect(buy.price_usd).toBeUndefined();
    expect(buy.market_cap_usd).toBeUndefined();
    expect(buy.usd_reference).toBeUndefined();
    close(buy.bonding_curve_progress, (Number(PUMPFUN_INITIAL_REAL_TOKEN_RESERVES_RAW - big(buy.real_token_reserves)) / 7.931e14) * 100);
  });

  it('when a SOL-quoted trade is in mayhem mode and no CreateEvent states its supply, then market_cap_sol is absent (constructed: mayhem_mode set on a real buy)', () => {
    const buy = one(decodeFile('pumpfun', '3ejAyd'), 'BUY');
    buy.mayhem_mode = true;
    addDerivedFields([buy], {});
    expect(buy.market_cap_sol).toBeUndefined();
    expect(buy.bonding_curve_progress).toBeGreaterThan(0);
  });

  it('when a COMPLETE is derived, then its progress is 100 (constructed: the recording holds no completing buy)', () => {
    const buy = one(decodeFile('pumpfun', '5839B8'), 'BUY'); // the most filled recorded curve: 96 %
    const complete = {
      source: 'pumpfun',
      transaction_type: 'COMPLETE',
      signature: buy.signature,
      slot: buy.slot,
      commitment: buy.commitment,
      block_time_ms: buy.block_time_ms,
      instruction_path: buy.instruction_path,
      program_id: buy.program_id,
      schema_version: buy.schema_version,
      user: buy.user,
      mint: buy.mint,
      bonding_curve: buy.bonding_curve,
      timestamp: buy.timestamp,
      type: 'trade',
      data: { symbol: null, price: null, volume: null, side: null, timestamp: buy.block_time_ms, txHash: buy.signature, poolAddress: buy.bonding_curve },
    } as TradeMessage;
    addDerivedFields([buy, complete], { solUsd: REF });
    expect(complete.bonding_curve_progress).toBe(100);
    expect(complete.market_cap_sol).toBeUndefined(); // a COMPLETE states no price
    expect(complete.price_usd).toBeUndefined();
    expect(buy.bonding_curve_progress).toBeGreaterThan(96);
    expect(validators['basic.pumpfun'](complete), JSON.stringify(validators['basic.pumpfun'].errors)).toBe(true);
  });
});

describe('addDerivedFields on LaunchLab', () => {
  it('when a real buy is derived, then progress = real_base_after / total_base_sell × 100, real_base counting base sold (after − before = token_amount)', () => {
    const buy = one(decodeFile('launchlab', '3USu3Y'), 'BUY');
    addDerivedFields([buy], { solUsd: REF });
    expect(big(buy.real_base_after) - big(buy.real_base_before)).toBe(big(buy.token_amount));
    close(buy.bonding_curve_progress, (Number(big(buy.real_base_after)) / Number(big(buy.total_base_sell))) * 100);
    expect(buy.market_cap_sol).toBeUndefined(); // no CREATE in this transaction: supply unknown
    close(buy.price_usd, (buy.price_sol as number) * REF.usd_per_sol);
    expect(buy.market_cap_usd).toBeUndefined();
  });

  it('when the pool CREATE is in the same transaction, then the buy gets market cap = price × curve_param supply / 10^decimals', () => {
    const ms = decodeFile('launchlab', 'mqSGNw');
    addDerivedFields(ms, {});
    const create = one(ms, 'CREATE');
    const buy = one(ms, 'BUY');
    const curve = create.curve_param as { data: { supply: string } };
    const decimals = (create.base_mint_param as { decimals: number }).decimals;
    // Spot price from the raw TradeEvent values (raydium-sdk-V2 getPoolPrice), then × whole supply.
    const vq = Number(big(buy.virtual_quote) + big(buy.real_quote_after));
    const vb = Number(big(buy.virtual_base) - big(buy.real_base_after));
    close(buy.market_cap_sol, (vq / 1e9 / (vb / 10 ** decimals)) * (Number(big(curve.data.supply)) / 10 ** decimals));
    close(buy.bonding_curve_progress, (Number(big(buy.real_base_after)) / 8e14) * 100);
    expect(create.market_cap_sol).toBeUndefined();
    expect(create.bonding_curve_progress).toBeUndefined();
  });

  it('when the pool is quoted in another mint, then no SOL market cap and no USD price', () => {
    const sell = one(decodeFile('launchlab', '1Dnjaw'), 'SELL');
    addDerivedFields([sell], { solUsd: REF });
    expect(sell.quote_mint).not.toBe(WSOL_MINT);
    expect(sell.market_cap_sol).toBeUndefined();
    expect(sell.price_usd).toBeUndefined();
    expect(sell.bonding_curve_progress).toBeGreaterThan(0);
  });
});

describe('LaunchLab pool supplies across transactions (createDeriver, what ingest runs per transaction)', () => {
  /** The real CREATE + dev buy of pool 7SUX… (recording/launchlab/mqSGNw…). */
  const createAndBuy = () => ({ create: one(decodeFile('launchlab', 'mqSGNw'), 'CREATE'), buy: one(decodeFile('launchlab', 'mqSGNw'), 'BUY') });

  it("when a pool CREATE was seen in an earlier transaction, then a later trade of the pool carries market_cap_sol from its supply (the real buy of 7SUX…, derived on its own as a later transaction's trade is)", () => {
    const { create, buy } = createAndBuy();
    expect(buy.pool_state).toBe(create.pool_state);
    const derive = createDeriver();
    derive([create], 1_749_000_000_000);
    derive([buy], 1_749_000_060_000);
    // The same market cap as with the CREATE in the buy's own transaction.
    const together = decodeFile('launchlab', 'mqSGNw');
    addDerivedFields(together, {});
    expect(one(together, 'BUY').market_cap_sol).toBeGreaterThan(0);
    expect(buy.market_cap_sol).toBe(one(together, 'BUY').market_cap_sol);
    expect(validators['basic.bonk'](buy), JSON.stringify(validators['basic.bonk'].errors)).toBe(true);
  });

  it('when the pool CREATE was never seen (another pool, or a fresh deriver), then the trade has no market_cap_sol but keeps its price and progress', () => {
    const derive = createDeriver();
    derive([createAndBuy().create], 1_749_000_000_000);
    const other = one(decodeFile('launchlab', '3USu3Y'), 'BUY'); // pool D5y6…, whose CREATE is not recorded
    derive([other], 1_754_000_000_000);
    expect(other.market_cap_sol).toBeUndefined();
    expect(other.price_sol).toBeGreaterThan(0);
    expect(other.bonding_curve_progress).toBeGreaterThan(0);
    const alone = createAndBuy().buy;
    createDeriver()([alone], 1_749_000_060_000);
    expect(alone.market_cap_sol).toBeUndefined();
  });

  it('when more pools than the bound are seen, then the least recently used pool is forgotten first', () => {
    const supplies = new LaunchlabSupplyCache(2);
    const { create, buy } = createAndBuy();
    addDerivedFields([create], { launchlabSupplies: supplies });
    expect(supplies.get(create.pool_state as string)).toEqual({ supply: 1_000_000_000_000_000n, decimals: 6 });
    // Two more pools (map entries only: the recording holds one LaunchLab CREATE) push 7SUX… out.
    supplies.set('pool-b', { supply: 1n, decimals: 0 });
    supplies.set('pool-c', { supply: 1n, decimals: 0 });
    expect(supplies.size).toBe(2);
    addDerivedFields([buy], { launchlabSupplies: supplies });
    expect(buy.market_cap_sol).toBeUndefined();
    expect(() => new LaunchlabSupplyCache(0)).toThrow(RangeError);
    expect(() => createDeriver({ launchlabSupplyCacheMaxEntries: 1.5 })).toThrow(RangeError);
  });
});

describe('addDerivedFields on PumpSwap and Raydium CPMM', () => {
  it('when a 2026 PumpSwap buy states base_supply, then market cap = price_sol × base_supply / 10^decimals (decimals from the transaction token balances)', () => {
    const file = FILES.find((f) => f.startsWith('pumpswap/4UrrW5'))!;
    const raw = JSON.parse(readFileSync(join(recording, file), 'utf8')) as {
      meta: { postTokenBalances: { mint: string; uiTokenAmount: { decimals: number } }[] };
    };
    const buy = one(decodeTransaction(raw), 'BUY');
    const decimals = raw.meta.postTokenBalances.find((b) => b.mint === buy.base_mint)!.uiTokenAmount.decimals;
    expect(decimals).toBe(6);
    addDerivedFields([buy], { solUsd: REF });
    close(buy.market_cap_sol, (buy.price_sol as number) * (Number(big(buy.base_supply)) / 10 ** decimals));
    close(buy.market_cap_usd, (buy.market_cap_sol as number) * REF.usd_per_sol);
    expect(buy.bonding_curve_progress).toBeUndefined();
  });

  it('when a PumpSwap event has no base_supply (2025), then no market cap but a USD price', () => {
    const buy = one(decodeFile('pumpswap', '59GXCx'), 'BUY');
    addDerivedFields([buy], { solUsd: REF });
    expect(buy.market_cap_sol).toBeUndefined();
    close(buy.price_usd, (buy.price_sol as number) * REF.usd_per_sol);
  });

  it('when a CPMM swap has a WSOL side, then price_usd only (CPMM never states supply); a token/token swap gets nothing', () => {
    const sol = one(decodeFile('raydium-cpmm', '2bhr1F'), 'SWAP');
    const tokens = one(decodeFile('raydium-cpmm', '2Eawkt'), 'SWAP');
    addDerivedFields([sol, tokens], { solUsd: REF });
    close(sol.price_usd, (sol.price_sol as number) * REF.usd_per_sol);
    expect(sol.usd_reference).toEqual(REF);
    expect(sol.market_cap_sol).toBeUndefined();
    for (const k of NEW_FIELDS) expect(tokens[k]).toBeUndefined();
  });
});

describe('addDerivedFields over the whole recording', () => {
  const decodeAll = (): TradeMessage[][] => FILES.map((f) => decodeTransaction(JSON.parse(readFileSync(join(recording, f), 'utf8'))));

  it('when no SOL/USD reference is known, then no message gets a USD field', () => {
    const all = decodeAll();
    for (const ms of all) addDerivedFields(ms, {});
    const flat = all.flat();
    expect(flat.some((m) => m.market_cap_sol !== undefined)).toBe(true);
    for (const m of flat) {
      expect(m.price_usd).toBeUndefined();
      expect(m.market_cap_usd).toBeUndefined();
      expect(m.usd_reference).toBeUndefined();
    }
  });

  it('when a reference is known, then every message still validates against its schema, existing keys keep their order, new ones come last, and creator is never added', () => {
    let derived = 0;
    for (const ms of decodeAll()) {
      const before = ms.map((m) => Object.keys(m));
      addDerivedFields(ms, { solUsd: REF });
      ms.forEach((m, i) => {
        const keys = Object.keys(m);
        const old = before[i]!;
        expect(keys.slice(0, old.length)).toEqual(old);
        for (const k of keys.slice(old.length)) expect(NEW_FIELDS).toContain(k);
        if (keys.length > old.length) derived++;
        // usd_reference exactly with price_usd; market_cap_usd only with market_cap_sol.
        expect(m.usd_reference !== undefined).toBe(m.price_usd !== undefined);
        if (m.market_cap_usd !== undefined) expect(m.market_cap_sol).toBeDefined();
        const validate = validators[subjectOf(m)];
        expect(validate(m), `${m.signature} ${m.transaction_type}: ${JSON.stringify(validate.errors)}`).toBe(true);
      });
    }
    expect(derived).toBeGreaterThanOrEqual(35); // 38 of the recording's messages in 2026-11
  });

  it('when a schema lacks a derived field, then validation fails (the check above can fail)', () => {
    const schema = JSON.parse(readFileSync(join(root, '../../packages/contracts/schemas/basic.pumpfun.schema.json'), 'utf8')) as {
      properties: Record<string, unknown>;
      $id?: string;
    };
    delete schema.properties.market_cap_sol;
    delete schema.$id;
    const validate = new Ajv2020({ strict: true, strictRequired: false }).compile(schema);
    const ms = decodeFile('pumpfun', '2ghHZX');
    addDerivedFields(ms, {});
    expect(validate(ms[0])).toBe(false);
  });
});

/** A Raydium CPMM SWAP between `inMint` and `outMint`, CONSTRUCTED from the real 2bhr… swap (the recording has no stable-pair swap). */
function constructedSwap(inMint: string, outMint: string, amountIn: bigint, amountOut: bigint, blockTimeMs: number | null): TradeMessage {
  const real = one(decodeFile('raydium-cpmm', '2bhr1F'), 'SWAP');
  return { ...real, input_mint: inMint, output_mint: outMint, amount_in: String(amountIn), amount_out: String(amountOut), block_time_ms: blockTimeMs };
}

describe('SolUsdReference (constructed stable-pair swaps)', () => {
  const T = 1_760_000_000_000;

  it('when a WSOL → USDC swap is seen, then usd_per_sol = (USDC raw / 1e6) / (lamports / 1e9) from the stream, timed by the block', () => {
    const ref = new SolUsdReference();
    ref.observe([constructedSwap(WSOL_MINT, USDC_MINT, 2_000_000_000n, 301_000_000n, T)]);
    expect(ref.current(T + 1000)).toEqual({ usd_per_sol: 150.5, source: 'stream', observed_at_ms: T });
  });

  it('when USDT is paid for SOL, then the rate is read the other way round', () => {
    const ref = new SolUsdReference();
    ref.observe([constructedSwap(USDT_MINT, WSOL_MINT, 450_000_000n, 3_000_000_000n, T)]);
    expect(ref.current(T)?.usd_per_sol).toBe(150);
  });

  it('when several swaps are seen, then the median is used and a dust swap is ignored', () => {
    const ref = new SolUsdReference({ windowSize: 3 });
    ref.observe([
      constructedSwap(WSOL_MINT, USDC_MINT, 1_000_000_000n, 1_000_000n, T), // 1 $/SOL, pushed out of the window
      constructedSwap(WSOL_MINT, USDC_MINT, 1_000_000_000n, 140_000_000n, T + 1),
      constructedSwap(WSOL_MINT, USDC_MINT, 1_000_000_000n, 150_000_000n, T + 2),
      constructedSwap(WSOL_MINT, USDC_MINT, 1_000_000_000n, 900_000_000n, T + 3), // an outlier, and the latest: not used as the rate
      constructedSwap(WSOL_MINT, USDC_MINT, 1_000n, 1_000_000_000n, T + 4), // dust: below 1 SOL
    ]);
    expect(ref.current(T + 4)).toEqual({ usd_per_sol: 150, source: 'stream', observed_at_ms: T + 3 });
  });

  it('when the stream rate is older than the limit, then the configured fallback is used; without one, none', () => {
    const swap = constructedSwap(WSOL_MINT, USDC_MINT, 1_000_000_000n, 150_000_000n, T);
    const withFallback = new SolUsdReference({ fallbackUsdPerSol: 140, fallbackSetAtMs: T - 5 });
    withFallback.observe([swap]);
    expect(withFallback.current(T + DEFAULT_SOL_USD_MAX_STREAM_AGE_MS)?.source).toBe('stream');
    expect(withFallback.current(T + DEFAULT_SOL_USD_MAX_STREAM_AGE_MS + 1)).toEqual({ usd_per_sol: 140, source: 'config', observed_at_ms: T - 5 });
    const without = new SolUsdReference();
    expect(without.current(T)).toBeUndefined();
    without.observe([swap]);
    expect(without.current(T + DEFAULT_SOL_USD_MAX_STREAM_AGE_MS + 1)).toBeUndefined();
  });

  it('when real recorded swaps (no stable pair) are observed, then no stream rate appears', () => {
    const ref = new SolUsdReference();
    for (const f of FILES) ref.observe(decodeTransaction(JSON.parse(readFileSync(join(recording, f), 'utf8'))), T);
    expect(ref.current(T)).toBeUndefined();
  });

  it('when a swap is WSOL against a token that is not a USD stablecoin, then it is not an observation', () => {
    const ref = new SolUsdReference();
    ref.observe([constructedSwap(WSOL_MINT, 'Xs3oZwbHvqis4NYcf4YKWmEia2eC84wSiVrcYcTqpH8', 2_000_000_000n, 300_000_000n, T)]);
    expect(ref.current(T)).toBeUndefined();
  });

  it('when the fallback is not a positive number, then the constructor throws RangeError', () => {
    expect(() => new SolUsdReference({ fallbackUsdPerSol: 0 })).toThrow(RangeError);
    expect(() => new SolUsdReference({ fallbackUsdPerSol: Number.NaN })).toThrow(RangeError);
    expect(() => new SolUsdReference({ windowSize: 0 })).toThrow(RangeError);
  });

  it('when its reference is passed to addDerivedFields, then messages carry price_usd with that rate and its source and age', () => {
    const ref = new SolUsdReference();
    ref.observe([constructedSwap(WSOL_MINT, USDC_MINT, 2_000_000_000n, 301_000_000n, T)]);
    const buy = one(decodeFile('pumpfun', '2ghHZX'), 'BUY');
    addDerivedFields([buy], { solUsd: ref.current(T) });
    close(buy.price_usd, (buy.price_sol as number) * 150.5);
    close(buy.market_cap_usd, (buy.market_cap_sol as number) * 150.5);
    expect(buy.usd_reference).toEqual({ usd_per_sol: 150.5, source: 'stream', observed_at_ms: T });
  });
});
