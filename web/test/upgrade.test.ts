import { describe, expect, it } from 'vitest';
import {
  defaultUpgradePeriod,
  isTopPlan,
  optionPriceText,
  planBannerText,
  planChangePath,
  planDescription,
  planPriceText,
  readUpgradeRequest,
  upgradeOptions,
  upgradeRequestOutcome,
  yearlyTotalText,
} from '../src/lib/upgrade';
import { formatCents, previewHeadline, type UpgradePreview } from '../src/lib/upgrade-preview';
import type { Subscription } from '../src/api';

describe('upgradeOptions (product spec §4)', () => {
  it('starter → Plus and Pro, each with the upgrade option fields from the catalogue', () => {
    const options = upgradeOptions('starter');
    expect(options.map((o) => [o.tier, o.name, o.monthlyPrice, o.yearlyPrice, o.popular])).toEqual([
      ['plus', 'Plus', 15, 12, false],
      ['pro', 'Pro', 35, 28, true],
    ]);
    expect(Object.keys(options[0]!).sort()).toEqual(['description', 'features', 'monthlyPrice', 'name', 'popular', 'tier', 'yearlyPrice']);
    expect(options[1]!.features).toContain('Replay of trade history (JetStream)');
    expect(options[1]!.description).toBe('All 4 trade feeds, 5 connections per transport, 10,000 control requests per minute and replay of trade history.');
    expect(planDescription('plus')).toBe('All 4 trade feeds, 1 connection per transport and 1,000 control requests per minute.');
  });

  it('plus → only Pro, whatever the period; pro → nothing; unknown tiers read as starter', () => {
    expect(upgradeOptions('plus').map((o) => o.tier)).toEqual(['pro']);
    expect(upgradeOptions('pro')).toEqual([]);
    expect(isTopPlan('pro')).toBe(true);
    expect(isTopPlan('plus')).toBe(false);
    expect(upgradeOptions('enterprise').map((o) => o.tier)).toEqual(['plus', 'pro']);
  });

  it('the toggle starts on the current period, else monthly', () => {
    expect(defaultUpgradePeriod('yearly')).toBe('yearly');
    expect(defaultUpgradePeriod('monthly')).toBe('monthly');
    expect(defaultUpgradePeriod('indefinite')).toBe('monthly');
    expect(defaultUpgradePeriod(undefined)).toBe('monthly');
  });

  it("an option's price reads per period, with the yearly total and saving", () => {
    const [plus, pro] = upgradeOptions('starter');
    expect(optionPriceText(plus!, 'monthly')).toBe('$15/month');
    expect(optionPriceText(pro!, 'yearly')).toBe('$28/month billed yearly ($336 per year, save 20%)');
  });
});

describe('plan changes from /payment', () => {
  const sub = (over: Partial<Subscription>): Subscription => ({
    tier: 'plus',
    billing_period: 'monthly',
    status: 'active',
    next_billing_date: null,
    cancel_at_period_end: false,
    cancel_at: null,
    subscription_type: 'paid',
    effective_plan: 'plus',
    ...over,
  });

  it("a live paid subscriber goes to the plan page's modal; starter, a lapsed plan or an unknown one go to checkout", () => {
    expect(planChangePath(sub({}), 'pro', 'yearly')).toBe('/dashboard/plan?upgrade=pro&period=yearly');
    expect(planChangePath(sub({ status: 'past_due' }), 'pro', 'monthly')).toBe('/dashboard/plan?upgrade=pro&period=monthly');
    expect(planChangePath(sub({ tier: 'starter', billing_period: 'indefinite', subscription_type: 'free' }), 'pro', 'monthly')).toBeNull();
    expect(planChangePath(sub({ status: 'unpaid' }), 'pro', 'monthly')).toBeNull();
    expect(planChangePath(null, 'pro', 'monthly')).toBeNull();
  });

  it('the plan page opens the modal on an allowed choice and explains the others', () => {
    expect(readUpgradeRequest(new URLSearchParams('upgrade=pro&period=yearly'))).toEqual({ tier: 'pro', period: 'yearly' });
    expect(readUpgradeRequest(new URLSearchParams('upgrade=pro'))).toEqual({ tier: 'pro', period: 'monthly' });
    expect(readUpgradeRequest(new URLSearchParams('upgrade=starter'))).toBeNull();
    expect(readUpgradeRequest(new URLSearchParams(''))).toBeNull();
    expect(upgradeRequestOutcome('plus', 'monthly', { tier: 'pro', period: 'yearly' })).toEqual({ kind: 'open', tier: 'pro', period: 'yearly' });
    expect(upgradeRequestOutcome('plus', 'monthly', { tier: 'plus', period: 'yearly' })).toEqual({
      kind: 'notice',
      message: 'To switch Plus to yearly billing, use Manage billing.',
    });
    expect(upgradeRequestOutcome('plus', 'yearly', { tier: 'plus', period: 'yearly' })).toEqual({
      kind: 'notice',
      message: 'You are already on the Plus plan (billed yearly).',
    });
    expect(upgradeRequestOutcome('pro', 'monthly', { tier: 'plus', period: 'monthly' })).toEqual({
      kind: 'notice',
      message: 'Plus is below your Pro plan. Use Manage billing to downgrade.',
    });
  });
});

describe('amount due wording', () => {
  const preview = (over: Partial<UpgradePreview>): UpgradePreview => ({
    tier: 'pro',
    period: 'monthly',
    kind: 'proration',
    amount_due_cents: 1333,
    currency: 'usd',
    lines: [],
    next_billing_date: null,
    proration_date: 1,
    ...over,
  });

  it('a plan change says what is charged now; a checkout says the price and where payment details go', () => {
    expect(previewHeadline(preview({}))).toBe('You will be charged $13.33 now (prorated)');
    expect(previewHeadline(preview({ kind: 'checkout', amount_due_cents: 1500, proration_date: null }))).toBe(
      "$15.00/month — you'll enter payment details on the next page",
    );
    expect(previewHeadline(preview({ kind: 'checkout', period: 'yearly', amount_due_cents: 33600 }))).toBe(
      "$336.00/year — you'll enter payment details on the next page",
    );
    expect(formatCents(-1000)).toBe('-$10.00');
    expect(formatCents(5)).toBe('$0.05');
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
