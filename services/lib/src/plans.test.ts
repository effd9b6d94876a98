import { describe, expect, it } from 'vitest';
import { PLANS, cheapestPlanFor } from './plans.js';

describe('plans catalogue (ARCHITECTURE §8)', () => {
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
});
