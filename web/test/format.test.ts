import { describe, expect, it } from 'vitest';
import {
  changeDirection,
  formatAge,
  formatChange,
  formatDate,
  formatMarketCap,
  formatMarketCapSol,
  formatName,
  formatPrice,
  formatPriceSol,
  formatVolume,
  formatVolumeSol,
  shortenMint,
  tokenFigures,
  tokenLabel,
  usdSourceNote,
  type TokenRow,
} from '../src/lib/format';

const MINT = 'ED5nyyWEzpPPiWimP8vYm7sD7TD3LAt3Q3gRTWHzPJBY';

function row(over: Partial<TokenRow> = {}): TokenRow {
  return {
    mint: MINT,
    symbol: 'WIND',
    name: 'Tradewind Test',
    price: 0.0000050964,
    marketCap: 5096.4,
    volume: 235.64,
    change: null,
    timestamp: 1795259827163,
    priceSol: 3.3976e-8,
    marketCapSol: 33.976,
    volumeSol: 1.570949359,
    usdSource: 'config',
    replayed: false,
    ...over,
  };
}

describe('formatName', () => {
  it('keeps names of 25 characters or fewer', () => {
    expect(formatName('a'.repeat(24))).toBe('a'.repeat(24));
    expect(formatName('a'.repeat(25))).toBe('a'.repeat(25));
  });
  it('cuts names longer than 25 characters to 25 and an ellipsis', () => {
    expect(formatName('a'.repeat(26))).toBe(`${'a'.repeat(25)}…`);
    expect(formatName('The Extremely Long Token Name Coin')).toBe('The Extremely Long Token …');
  });
  it('counts code points, not UTF-16 units', () => {
    expect(formatName('🚀'.repeat(25))).toBe('🚀'.repeat(25));
    expect(formatName('🚀'.repeat(26))).toBe(`${'🚀'.repeat(25)}…`);
  });
});

describe('token label', () => {
  it('shortens a mint to its first and last four characters', () => {
    expect(shortenMint(MINT)).toBe('ED5n…PJBY');
    expect(shortenMint('short')).toBe('short');
  });
  it('uses name, then symbol, then the shortened mint', () => {
    expect(tokenLabel({ mint: MINT, name: 'Bonk Dog', symbol: 'BD' })).toBe('Bonk Dog');
    expect(tokenLabel({ mint: MINT, name: null, symbol: 'BD' })).toBe('BD');
    expect(tokenLabel({ mint: MINT, name: '  ', symbol: null })).toBe('ED5n…PJBY');
    expect(tokenLabel({ mint: MINT, name: null, symbol: null })).toBe('ED5n…PJBY');
  });
  it('shows a name that is just the mint (no metadata known) shortened', () => {
    expect(tokenLabel({ mint: MINT, name: MINT, symbol: 'ED5n…PJBY' })).toBe('ED5n…PJBY');
  });
});

describe('formatPrice', () => {
  it('shows 6 decimals', () => {
    expect(formatPrice(0.0001234)).toBe('$0.000123');
    expect(formatPrice(0.0000050964)).toBe('$0.000005');
    expect(formatPrice(1.5)).toBe('$1.500000');
    expect(formatPrice(0)).toBe('$0.000000');
  });
  it('never shows a positive price as zero, and never more than 6 decimals', () => {
    expect(formatPrice(0.0000004)).toBe('<$0.000001');
    expect(formatPriceSol(3.3976e-8)).toBe('<0.000001 SOL');
    // 5e-7 is stored as 4.99…e-7 and rounds down; anything rounding to 0.000001 is shown as such.
    expect(formatPrice(5e-7)).toBe('<$0.000001');
    expect(formatPrice(5.0000001e-7)).toBe('$0.000001');
    expect(formatPriceSol(9.852495668142022e-6)).toBe('0.000010 SOL');
    expect(formatPrice(0)).toBe('$0.000000');
    for (const p of [3.3976e-8, 4.5e-7, 0.0001234, 1.5, 241.123456789]) {
      expect(formatPrice(p).replace(/^<?\$/, '').split('.')[1]).toHaveLength(6);
      expect(formatPriceSol(p).replace(/^</, '').replace(/ SOL$/, '').split('.')[1]).toHaveLength(6);
    }
  });
  it('N/A for missing figures', () => {
    expect(formatPrice(null)).toBe('N/A');
    expect(formatPrice(undefined)).toBe('N/A');
    expect(formatPrice(Number.NaN)).toBe('N/A');
    expect(formatPriceSol(null)).toBe('N/A');
  });
  it('SOL price has a SOL suffix', () => {
    expect(formatPriceSol(0.0001234)).toBe('0.000123 SOL');
  });
});

describe('formatMarketCap', () => {
  it('millions at 1 000 000 and above, 2 decimals', () => {
    expect(formatMarketCap(1_234_567)).toBe('$1.23M');
    expect(formatMarketCap(1_000_000)).toBe('$1.00M');
    expect(formatMarketCap(2_500_000_000)).toBe('$2500.00M');
  });
  it('thousands from 1 000, 1 decimal', () => {
    expect(formatMarketCap(45_600)).toBe('$45.6K');
    expect(formatMarketCap(1000)).toBe('$1.0K');
    expect(formatMarketCap(5096.4)).toBe('$5.1K');
    expect(formatMarketCap(999_949)).toBe('$999.9K');
  });
  it('switches unit by the rounded value at the boundaries', () => {
    expect(formatMarketCap(999_950)).toBe('$1.00M');
    expect(formatMarketCap(999_999)).toBe('$1.00M');
    expect(formatMarketCap(999.99)).toBe('$999.99');
    expect(formatMarketCap(999.999)).toBe('$1.0K');
  });
  it('units below 1 000 with 2 decimals', () => {
    expect(formatMarketCap(999)).toBe('$999.00');
    expect(formatMarketCap(0)).toBe('$0.00');
    expect(formatMarketCap(null)).toBe('N/A');
  });
  it('SOL variant', () => {
    expect(formatMarketCapSol(33.976)).toBe('33.98 SOL');
    expect(formatMarketCapSol(45_600)).toBe('45.6K SOL');
    expect(formatMarketCapSol(1_230_000)).toBe('1.23M SOL');
    expect(formatMarketCapSol(null)).toBe('N/A');
  });
});

describe('formatVolume', () => {
  it('always in millions with 2 decimals', () => {
    expect(formatVolume(120_000)).toBe('$0.12M');
    expect(formatVolume(235.64)).toBe('$0.00M');
    expect(formatVolume(4_999_999)).toBe('$5.00M');
    expect(formatVolume(12_345_678)).toBe('$12.35M');
    expect(formatVolume(null)).toBe('N/A');
  });
  it('SOL variant is compacted', () => {
    expect(formatVolumeSol(1.570949359)).toBe('1.57 SOL');
    expect(formatVolumeSol(2500)).toBe('2.5K SOL');
    expect(formatVolumeSol(null)).toBe('N/A');
  });
});

describe('formatChange', () => {
  it('signs the change with 2 decimals', () => {
    expect(formatChange(1.234)).toBe('+1.23%');
    expect(formatChange(-4.5)).toBe('-4.50%');
    expect(formatChange(250)).toBe('+250.00%');
  });
  it('zero and values rounding to zero have no sign', () => {
    expect(formatChange(0)).toBe('0.00%');
    expect(formatChange(-0.004)).toBe('0.00%');
    expect(formatChange(0.004)).toBe('0.00%');
    expect(formatChange(0.005)).toBe('+0.01%');
  });
  it('N/A without a price 24 h ago', () => {
    expect(formatChange(null)).toBe('N/A');
    expect(formatChange(Number.POSITIVE_INFINITY)).toBe('N/A');
  });
  it('direction follows the shown sign', () => {
    expect(changeDirection(1)).toBe('up');
    expect(changeDirection(-1)).toBe('down');
    expect(changeDirection(-0.001)).toBe('none');
    expect(changeDirection(null)).toBe('none');
  });
});

describe('tokenFigures', () => {
  it('uses USD figures when a rate is known', () => {
    expect(tokenFigures(row({ change: 12.345 }))).toEqual({
      label: 'Tradewind Test',
      unit: 'USD',
      price: '$0.000005',
      marketCap: '$5.1K',
      volume: '$0.00M',
      change: '+12.35%',
      direction: 'up',
      replayed: false,
    });
  });
  it('falls back to SOL figures when the USD fields are null', () => {
    const f = tokenFigures(row({ price: null, marketCap: null, volume: null, usdSource: null, replayed: true }));
    expect(f).toEqual({
      label: 'Tradewind Test',
      unit: 'SOL',
      price: '<0.000001 SOL',
      marketCap: '33.98 SOL',
      volume: '1.57 SOL',
      change: 'N/A',
      direction: 'none',
      replayed: true,
    });
  });
  it('shows N/A for a market cap with an unknown supply', () => {
    expect(tokenFigures(row({ marketCap: null })).marketCap).toBe('N/A');
  });
});

describe('the notes about ages, dates and the USD source', () => {
  const NOW = Date.UTC(2026, 10, 21, 12, 0, 0);

  it('formats an age in whole seconds, minutes, hours or days', () => {
    expect(formatAge(-5)).toBe('0 s');
    expect(formatAge(59_999)).toBe('59 s');
    expect(formatAge(60_000)).toBe('1 min');
    expect(formatAge(3_599_999)).toBe('59 min');
    expect(formatAge(3_600_000)).toBe('1 h');
    expect(formatAge(48 * 3_600_000 - 1)).toBe('47 h');
    expect(formatAge(48 * 3_600_000)).toBe('2 days');
  });

  it('formats a time as its UTC date', () => {
    expect(formatDate(1725989127000)).toBe('2024-09-10');
  });

  it('names the source of the USD figures, with the rate and its age (live) or recorded date (replayed)', () => {
    expect(usdSourceNote([row({ usdSource: 'stream', solUsd: 142.5, solUsdObservedAt: NOW - 42_000 })], NOW)).toBe(
      'USD at SOL/USD $142.50 from a SOL/USDC or SOL/USDT swap on our stream, 42 s ago.',
    );
    expect(usdSourceNote([row({ usdSource: 'stream', solUsd: 134.2, solUsdObservedAt: 1725989007000, replayed: true })], NOW)).toBe(
      'USD at SOL/USD $134.20 from a SOL/USDC or SOL/USDT swap in the recording (2024-09-10).',
    );
    expect(usdSourceNote([row({ usdSource: 'config', solUsd: 150 })], NOW)).toBe(
      'USD at the operator-configured SOL/USD rate $150.00 (SOL_USD_PRICE), not one measured on the stream.',
    );
    expect(usdSourceNote([row({ usdSource: 'birdeye' })], NOW)).toBe('USD figures from Birdeye’s token list.');
  });

  it('says nothing about USD when no row has a USD price', () => {
    expect(usdSourceNote([row({ price: null, usdSource: null })], NOW)).toBeNull();
    expect(usdSourceNote([], NOW)).toBeNull();
  });
});
