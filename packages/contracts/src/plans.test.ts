import { describe, expect, it } from 'vitest';
import { PLANS, annualSavingPercent, annualTotalUsd, cheapestPlanFor, maxAnnualSavingPercent } from './plans.js';

describe('plans catalogue (docs/architecture.md §8)', () => {
  it('when read, then prices, limits and subjects are the published ones', () => {
    expect([PLANS.starter.monthlyUsd, PLANS.plus.monthlyUsd, PLANS.pro.monthlyUsd]).toEqual([0, 15, 35]);
    expect([PLANS.plus.annualMonthlyUsd, PLANS.pro.annualMonthlyUsd]).toEqual([12, 28]);
    expect([PLANS.starter.connections, PLANS.plus.connections, PLANS.pro.connections]).toEqual([1, 1, 5]);
    expect([PLANS.starter.requestsPerMinute, PLANS.plus.requestsPerMinute, PLANS.pro.requestsPerMinute]).toEqual([100, 1000, 10000]);
    expect(PLANS.starter.subjects).toEqual(['basic.pumpfun', 'basic.bonk']);
    expect(PLANS.pro.replay && !PLANS.plus.replay).toBe(true);
  });

  it('when asked which plan includes a subject, then the cheapest one', () => {
    expect(cheapestPlanFor('basic.bonk')?.id).toBe('starter');
    expect(cheapestPlanFor('premium.raydium')?.id).toBe('plus');
    expect(cheapestPlanFor('nope')).toBeUndefined();
  });

  it('when yearly billing is priced, then the total is 12 × the per-month price and the saving is the rounded percentage', () => {
    expect([annualTotalUsd(PLANS.starter), annualTotalUsd(PLANS.plus), annualTotalUsd(PLANS.pro)]).toEqual([0, 144, 336]);
    // (15 − 12) / 15 = 20 %; (35 − 28) / 35 = 20 %.
    expect([annualSavingPercent(PLANS.starter), annualSavingPercent(PLANS.plus), annualSavingPercent(PLANS.pro)]).toEqual([0, 20, 20]);
    expect(maxAnnualSavingPercent()).toBe(20);
    expect(annualSavingPercent({ ...PLANS.plus, monthlyUsd: 30, annualMonthlyUsd: 21 })).toBe(30);
    expect(annualSavingPercent({ ...PLANS.plus, monthlyUsd: 9, annualMonthlyUsd: 8 })).toBe(11);
  });

  it('when features are listed, then they follow the limits and subjects', () => {
    expect(PLANS.starter.features).toContain('1 concurrent connection per transport');
    expect(PLANS.starter.features.some((f) => f.includes('premium'))).toBe(false);
    expect(PLANS.plus.features).toContain('Raydium CPMM trades (premium.raydium)');
    expect(PLANS.plus.features).toContain('1,000 control requests per minute');
    expect(PLANS.pro.features).toEqual(
      expect.arrayContaining(['5 concurrent connections per transport', '10,000 control requests per minute', 'Replay of trade history (JetStream)']),
    );
  });
});
