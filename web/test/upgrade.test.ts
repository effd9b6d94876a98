import { describe, expect, it } from 'vitest';
import { isTopPlan, planBannerText, planPriceText, upgradeOptions, yearlyTotalText } from '../src/lib/upgrade';

describe('upgradeOptions', () => {
  it('starter → Plus and Pro at the selected period', () => {
    expect(upgradeOptions('starter', 'indefinite', 'monthly').map((o) => [o.tier, o.period, o.kind, o.price, o.href])).toEqual([
      ['plus', 'monthly', 'upgrade', '$15/month', '/payment?tier=plus&period=monthly'],
      ['pro', 'monthly', 'upgrade', '$35/month', '/payment?tier=pro&period=monthly'],
    ]);
    expect(upgradeOptions('starter', 'indefinite', 'yearly').map((o) => [o.tier, o.price, o.href])).toEqual([
      ['plus', '$12/month billed yearly', '/payment?tier=plus&period=yearly'],
      ['pro', '$28/month billed yearly', '/payment?tier=pro&period=yearly'],
    ]);
  });
  it('plus → Pro, plus switching the period when another one is selected', () => {
    expect(upgradeOptions('plus', 'monthly', 'monthly').map((o) => o.title)).toEqual(['Upgrade to Pro']);
    expect(upgradeOptions('plus', 'monthly', 'yearly').map((o) => [o.title, o.href])).toEqual([
      ['Upgrade to Pro', '/payment?tier=pro&period=yearly'],
      ['Switch Plus to yearly billing', '/payment?tier=plus&period=yearly'],
    ]);
    expect(upgradeOptions('plus', 'yearly', 'monthly').map((o) => o.title)).toEqual(['Upgrade to Pro', 'Switch Plus to monthly billing']);
  });
  it('pro → nothing (top plan); unknown tiers read as starter', () => {
    expect(upgradeOptions('pro', 'yearly', 'monthly')).toEqual([]);
    expect(isTopPlan('pro')).toBe(true);
    expect(isTopPlan('plus')).toBe(false);
    expect(upgradeOptions('enterprise', 'monthly', 'monthly').map((o) => o.tier)).toEqual(['plus', 'pro']);
  });
});

describe('price wording', () => {
  it('comes from the catalogue', () => {
    expect(planBannerText('plus', 'yearly')).toBe('Plus — $12/month billed yearly');
    expect(planBannerText('pro', 'monthly')).toBe('Pro — $35/month');
    expect(planBannerText('starter', 'monthly')).toBe('Starter — Free');
    expect(planPriceText('starter', 'yearly')).toBe('Free');
    expect(yearlyTotalText('plus', 'yearly')).toBe('$144 per year');
    expect(yearlyTotalText('pro', 'yearly')).toBe('$336 per year');
    expect(yearlyTotalText('pro', 'monthly')).toBeNull();
  });
});
