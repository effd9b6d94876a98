import { describe, expect, it } from 'vitest';
import { AppError } from './errors.js';
import { MINT_SUBJECT_TOKEN, TRADE_SUBJECTS, isMintAddress, mintSubject, mintSubjectWildcard, type TradeSubject } from './subjects.js';

const MINT = '5dNYcC6W7fV8gEoP98pLYcuqTrU9K2ZW6dQjDyTzpump';

describe('per-mint subjects', () => {
  it('when a TRADES subject and a mint are given, then the subject is <subject>.mint.<mint>', () => {
    expect(MINT_SUBJECT_TOKEN).toBe('mint');
    expect(mintSubject('basic.pumpfun', MINT)).toBe(`basic.pumpfun.mint.${MINT}`);
    for (const s of TRADE_SUBJECTS) expect(mintSubject(s, MINT).split('.')).toHaveLength(4);
  });

  it('when the mint could change the subject (dot, wildcard, space) or is not base58, then invalid_argument', () => {
    for (const bad of ['', 'abc', `${MINT}.x`, '*', '>', `${MINT.slice(0, 40)} x`, `${MINT.slice(0, 40)}0OIl`, 'x'.repeat(45)]) {
      expect(isMintAddress(bad)).toBe(false);
      expect(() => mintSubject('basic.pumpfun', bad)).toThrow(AppError);
    }
    expect(() => mintSubject('basic.pumpfun', 'x'.repeat(45))).toThrow(/not a base58 mint address/);
  });

  it('when the subject is not a TRADES subject, then invalid_argument', () => {
    expect(() => mintSubject('basic.pumpfun.mint' as TradeSubject, MINT)).toThrow(/not a TRADES subject/);
  });

  it("when the wildcard is asked for, then it covers the subject's mint subjects only", () => {
    expect(mintSubjectWildcard('premium.raydium')).toBe('premium.raydium.mint.>');
  });
});
