/**
 * The rolling 24 h window and the ticker rows (window.ts): bucket boundaries, the price 24 h ago,
 * the SOL/USD rate choice and the row figures.
 */
import { describe, expect, it } from 'vitest';
import {
  WINDOW_MS,
  bucketInWindow,
  bucketStart,
  chooseSolUsd,
  expiredBucketCutoff,
  priceAtWindowStart,
  toReplayedRow,
  toRow,
  type ReplayedToken,
  type SolUsdRate,
  type TokenState,
} from './window.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const B = MINUTE; // bucket
const W = WINDOW_MS;
const T = Date.UTC(2024, 8, 10, 17, 25, 0); // a bucket start
const ED5 = 'ED5nyyWEzpPPiWimP8vYm7sD7TD3LAt3Q3gRTWHzPJBY';

describe('when a time is put in a bucket', () => {
  it('then the window is 24 h', () => {
    expect(WINDOW_MS).toBe(86_400_000);
  });

  it('then the bucket starts at the time floored to the bucket size', () => {
    expect(T % B).toBe(0);
    expect(bucketStart(T, B)).toBe(T);
    expect(bucketStart(T + 1, B)).toBe(T);
    expect(bucketStart(T + B - 1, B)).toBe(T);
    expect(bucketStart(T + B, B)).toBe(T + B);
    expect(bucketStart(0, B)).toBe(0);
    expect(bucketStart(59_999, B)).toBe(0);
    expect(bucketStart(1_725_989_127_000, B)).toBe(1_725_989_100_000);
    expect(bucketStart(1_725_989_127_000, HOUR)).toBe(1_725_987_600_000);
    expect(bucketStart(-1, B)).toBe(-B);
  });
});

describe('when a bucket [b, b + B) is tested against the window at now', () => {
  // It counts while b + B > now − W, i.e. while now < b + W + B.
  it('then the cutoff is now − W − B', () => {
    expect(expiredBucketCutoff(T + W + B, W, B)).toBe(T);
    expect(expiredBucketCutoff(T, W, B)).toBe(T - DAY - MINUTE);
    expect(expiredBucketCutoff(1_000, 100, 10)).toBe(890);
  });

  it('then it counts up to now = b + W + B − 1 and no longer at now = b + W + B', () => {
    expect(bucketInWindow(T, T, W, B)).toBe(true);
    expect(bucketInWindow(T, T + W, W, B)).toBe(true); // a trade at T still counts 24 h later
    expect(bucketInWindow(T, T + W + B - 1, W, B)).toBe(true);
    expect(bucketInWindow(T, T + W + B, W, B)).toBe(false);
    expect(bucketInWindow(T, T + W + B + 1, W, B)).toBe(false);
    expect(bucketInWindow(T, T + 2 * W, W, B)).toBe(false);
  });

  it('then a bucket starting at the cutoff is out and the next one is in', () => {
    const now = T + W + B + 12_345;
    const cutoff = expiredBucketCutoff(now, W, B);
    expect(bucketInWindow(cutoff, now, W, B)).toBe(false);
    expect(bucketInWindow(cutoff + 1, now, W, B)).toBe(true);
    expect(bucketInWindow(bucketStart(cutoff, B), now, W, B)).toBe(false);
    expect(bucketInWindow(bucketStart(cutoff, B) + B, now, W, B)).toBe(true);
  });

  it('then the current bucket and later ones count', () => {
    expect(bucketInWindow(bucketStart(T + 30_000, B), T + 30_000, W, B)).toBe(true);
    expect(bucketInWindow(T + B, T, W, B)).toBe(true);
  });

  it('then other window and bucket sizes follow the same rule', () => {
    // W = 100, B = 10: bucket 50 counts for now < 160.
    expect(bucketInWindow(50, 159, 100, 10)).toBe(true);
    expect(bucketInWindow(50, 160, 100, 10)).toBe(false);
  });
});

describe('when the price 24 h ago is looked up', () => {
  const now = T + W + 2 * B; // buckets T and T + B are wholly before the window; T + 2B is inside

  it('then it is the close of the newest bucket wholly before the window', () => {
    expect(bucketInWindow(T + B, now, W, B)).toBe(false);
    expect(bucketInWindow(T + 2 * B, now, W, B)).toBe(true);
    expect(
      priceAtWindowStart(
        new Map([
          [T, 1],
          [T + B, 2],
          [T + 2 * B, 3],
        ]),
        now,
        W,
        B,
      ),
    ).toBe(2);
    // Whatever the map's order.
    expect(
      priceAtWindowStart(
        new Map([
          [T + 2 * B, 3],
          [T + B, 2],
          [T, 1],
        ]),
        now,
        W,
        B,
      ),
    ).toBe(2);
    expect(
      priceAtWindowStart(
        new Map([
          [T + B, 2],
          [T - DAY, 0.5],
          [T, 1],
        ]),
        now,
        W,
        B,
      ),
    ).toBe(2);
    // A single old bucket, however old.
    expect(priceAtWindowStart(new Map([[T - 10 * DAY, 7]]), now, W, B)).toBe(7);
  });

  it('then a bucket moves out of the window exactly at b + W + B', () => {
    const closes = new Map([
      [T, 1],
      [T + B, 2],
    ]);
    expect(priceAtWindowStart(closes, T + W + B - 1, W, B)).toBeNull();
    expect(priceAtWindowStart(closes, T + W + B, W, B)).toBe(1);
    expect(priceAtWindowStart(closes, T + W + 2 * B - 1, W, B)).toBe(1);
    expect(priceAtWindowStart(closes, T + W + 2 * B, W, B)).toBe(2);
  });

  it('then it is null when every bucket is inside the window, or there is none', () => {
    expect(
      priceAtWindowStart(
        new Map([
          [T + 2 * B, 3],
          [T + 3 * B, 4],
        ]),
        now,
        W,
        B,
      ),
    ).toBeNull();
    expect(priceAtWindowStart(new Map(), now, W, B)).toBeNull();
  });
});

describe('when the SOL/USD rate is chosen', () => {
  const now = T;
  const maxAge = 5 * MINUTE;

  it('then a fresh stream observation is used, up to exactly maxAgeMs old', () => {
    expect(chooseSolUsd({ solUsd: 151.5, observedAtMs: now - MINUTE }, 150, now, maxAge)).toEqual({
      solUsd: 151.5,
      source: 'stream',
      observedAtMs: now - MINUTE,
    });
    expect(chooseSolUsd({ solUsd: 151.5, observedAtMs: now - maxAge }, 150, now, maxAge)).toEqual({
      solUsd: 151.5,
      source: 'stream',
      observedAtMs: now - maxAge,
    });
    expect(chooseSolUsd({ solUsd: 151.5, observedAtMs: now }, undefined, now, maxAge)).toEqual({ solUsd: 151.5, source: 'stream', observedAtMs: now });
  });

  it('then a stale stream observation gives way to the configured rate', () => {
    expect(chooseSolUsd({ solUsd: 151.5, observedAtMs: now - maxAge - 1 }, 150, now, maxAge)).toEqual({ solUsd: 150, source: 'config', observedAtMs: null });
    expect(chooseSolUsd(null, 150, now, maxAge)).toEqual({ solUsd: 150, source: 'config', observedAtMs: null });
  });

  it('then with neither there is no rate and no source', () => {
    expect(chooseSolUsd({ solUsd: 151.5, observedAtMs: now - maxAge - 1 }, undefined, now, maxAge)).toEqual({ solUsd: null, source: null, observedAtMs: null });
    expect(chooseSolUsd(null, undefined, now, maxAge)).toEqual({ solUsd: null, source: null, observedAtMs: null });
  });
});

describe('when a row is built', () => {
  const token = (over: Partial<TokenState> = {}): TokenState => ({
    mint: ED5,
    source: 'pumpfun',
    symbol: 'ED5',
    name: 'Ed Five',
    decimals: 3,
    supplyRaw: 2_000_000_000n,
    priceSol: 0.5,
    lastTradeMs: T + W + 30_000,
    ...over,
  });
  const rate: SolUsdRate = { solUsd: 150, source: 'config', observedAtMs: null };
  const now = T + W + 2 * B;
  const before = new Map([[T, 0.25]]); // wholly before the window at `now`

  it('then USD figures are the SOL figures times the rate, and market cap is price × supplyRaw / 10^decimals', () => {
    const row = toRow(token(), 1_500_000_000, before, rate, now, W, B);
    expect(row).toEqual({
      mint: ED5,
      symbol: 'ED5',
      name: 'Ed Five',
      price: 75, // 0.5 SOL × 150
      marketCap: 150_000_000, // 0.5 SOL × (2e9 / 10^3) tokens × 150
      volume: 225, // 1.5 SOL × 150
      change: 100, // (0.5 − 0.25) / 0.25 × 100
      timestamp: T + W + 30_000,
      priceSol: 0.5,
      marketCapSol: 1_000_000,
      volumeSol: 1.5,
      usdSource: 'config',
      solUsd: 150,
      solUsdObservedAt: null,
      replayed: false,
      recordedAt: null,
    });
  });

  it("then a pump.fun token's figures match those computed by hand from its events", () => {
    // ED5n… after the JBnr… bundle: price from the last buy's virtual reserves, 1e15 base units with 6 decimals.
    const priceSol = 33070949359 / 1e9 / (973361836482154 / 1e6);
    const row = toRow(
      token({ priceSol, decimals: 6, supplyRaw: 1_000_000_000_000_000n }),
      386100226 + 386820768 + 393794276 + 404234089,
      new Map(),
      { solUsd: 150, source: 'stream', observedAtMs: now - 1 },
      now,
      W,
      B,
    );
    expect(row.volumeSol).toBe(1.570949359);
    expect(row.marketCapSol! / (priceSol * 1e9)).toBeCloseTo(1, 12);
    expect(row.price! / (priceSol * 150)).toBeCloseTo(1, 12);
    expect(row.marketCap! / (priceSol * 1e9 * 150)).toBeCloseTo(1, 12);
    expect(row.volume! / (1.570949359 * 150)).toBeCloseTo(1, 12);
    expect(row).toMatchObject({ usdSource: 'stream', solUsd: 150, solUsdObservedAt: now - 1, replayed: false });
    expect(row.change).toBeNull();
  });

  it('then volume lamports are shown in SOL', () => {
    expect(toRow(token(), 1, before, rate, now, W, B).volumeSol).toBe(1e-9);
    expect(toRow(token(), 0, before, rate, now, W, B)).toMatchObject({ volumeSol: 0, volume: 0 });
    expect(toRow(token(), 123_456_789_012, before, rate, now, W, B).volumeSol).toBe(123.456789012);
  });

  it('then decimals 0 mean the supply is supplyRaw itself', () => {
    expect(toRow(token({ decimals: 0, supplyRaw: 1000n }), 0, before, rate, now, W, B).marketCapSol).toBe(500);
  });

  it('then without supply or decimals there is no market cap, and the rest is unchanged', () => {
    for (const over of [{ supplyRaw: null }, { decimals: null }, { supplyRaw: null, decimals: null }]) {
      const row = toRow(token(over), 1_500_000_000, before, rate, now, W, B);
      expect(row.marketCap).toBeNull();
      expect(row.marketCapSol).toBeNull();
      expect(row).toMatchObject({ price: 75, volume: 225, change: 100 });
    }
  });

  it('then the change is (now − then) / then in percent, and null without a price 24 h ago', () => {
    expect(toRow(token({ priceSol: 0.5 }), 0, new Map([[T, 1]]), rate, now, W, B).change).toBe(-50);
    expect(toRow(token({ priceSol: 0.5 }), 0, new Map([[T, 0.5]]), rate, now, W, B).change).toBe(0);
    expect(toRow(token({ priceSol: 0.5 }), 0, new Map([[T, 0.4]]), rate, now, W, B).change).toBeCloseTo(25, 10);
    // The newest bucket before the window is the one compared with, not an older one or one inside.
    expect(
      toRow(
        token({ priceSol: 0.5 }),
        0,
        new Map([
          [T - B, 1],
          [T, 0.25],
          [T + 2 * B, 0.1],
        ]),
        rate,
        now,
        W,
        B,
      ).change,
    ).toBe(100);
    // Only buckets inside the window: null.
    expect(toRow(token(), 0, new Map([[T + 2 * B, 0.25]]), rate, now, W, B).change).toBeNull();
    expect(toRow(token(), 0, new Map(), rate, now, W, B).change).toBeNull();
  });

  it('then without a SOL/USD rate the USD figures are null and the SOL figures stay', () => {
    const row = toRow(token(), 1_500_000_000, before, { solUsd: null, source: null, observedAtMs: null }, now, W, B);
    expect(row).toMatchObject({
      price: null,
      marketCap: null,
      volume: null,
      usdSource: null,
      solUsd: null,
      priceSol: 0.5,
      marketCapSol: 1_000_000,
      volumeSol: 1.5,
      change: 100,
    });
  });

  it('then an unknown symbol or name stays null (never the mint or a shortened mint), with the mint beside it', () => {
    const row = toRow(token({ symbol: null, name: null }), 0, before, rate, now, W, B);
    expect(row).toMatchObject({ mint: ED5, symbol: null, name: null });
    expect(toRow(token({ symbol: null }), 0, before, rate, now, W, B)).toMatchObject({ symbol: null, name: 'Ed Five' });
    expect(toRow(token({ name: null }), 0, before, rate, now, W, B)).toMatchObject({ symbol: 'ED5', name: null });
  });
});

describe('when a replayed row is built', () => {
  const replayed = (over: Partial<ReplayedToken> = {}): ReplayedToken => ({
    mint: ED5,
    source: 'pumpfun',
    symbol: 'ED5',
    name: 'Ed Five',
    decimals: 6,
    supplyRaw: 1_000_000_000_000_000n,
    priceSol: 0.5,
    volumeLamports: 1_500_000_000,
    recordedAtMs: T,
    thenPriceSol: null,
    replayedAtMs: T + 10 * DAY,
    ...over,
  });
  const none: SolUsdRate = { solUsd: null, source: null, observedAtMs: null };

  it("then its figures are the recording's, its timestamp the replay's and its recorded time the chain's", () => {
    expect(toReplayedRow(replayed(), none)).toEqual({
      mint: ED5,
      symbol: 'ED5',
      name: 'Ed Five',
      price: null,
      marketCap: null,
      volume: null,
      change: null,
      timestamp: T + 10 * DAY,
      priceSol: 0.5,
      marketCapSol: 500_000_000,
      volumeSol: 1.5,
      usdSource: null,
      solUsd: null,
      solUsdObservedAt: null,
      replayed: true,
      recordedAt: T,
    });
  });

  it("then the change compares with the recording's own price 24 h before, and is null without one", () => {
    expect(toReplayedRow(replayed({ thenPriceSol: 0.4 }), none).change).toBeCloseTo(25, 10);
    expect(toReplayedRow(replayed({ thenPriceSol: null }), none).change).toBeNull();
  });

  it('then a SOL/USD rate observed in the recording gives USD figures and says when it was observed', () => {
    const row = toReplayedRow(replayed({ recordedAtMs: null }), { solUsd: 200, source: 'stream', observedAtMs: T - MINUTE });
    expect(row).toMatchObject({
      price: 100,
      volume: 300,
      marketCap: 100_000_000_000,
      usdSource: 'stream',
      solUsd: 200,
      solUsdObservedAt: T - MINUTE,
      recordedAt: null,
    });
  });
});
