import { describe, expect, it } from 'vitest';
import { AppError } from '@tradewind/contracts';
import { checkPlanChange, checkProrationDate, checkoutPreview, prorationPreview, PRORATION_DATE_FUTURE_SKEW_SECONDS, type PreviewInvoice } from './upgrade.js';

describe('checkPlanChange', () => {
  it('when the tier goes up or the period changes within a tier, then it is allowed', () => {
    expect(() => checkPlanChange({ tier: 'plus', billingPeriod: 'monthly' }, { tier: 'pro', period: 'monthly' })).not.toThrow();
    expect(() => checkPlanChange({ tier: 'plus', billingPeriod: 'yearly' }, { tier: 'pro', period: 'monthly' })).not.toThrow();
    expect(() => checkPlanChange({ tier: 'plus', billingPeriod: 'monthly' }, { tier: 'plus', period: 'yearly' })).not.toThrow();
  });

  it('when the plan is the same or a lower tier, then conflict with a clear message', () => {
    expect(() => checkPlanChange({ tier: 'pro', billingPeriod: 'yearly' }, { tier: 'pro', period: 'yearly' })).toThrow(
      new AppError('conflict', 'You are already on Pro (yearly).'),
    );
    const downgrade = (() => {
      try {
        checkPlanChange({ tier: 'pro', billingPeriod: 'monthly' }, { tier: 'plus', period: 'yearly' });
      } catch (err) {
        return err;
      }
      return undefined;
    })();
    expect(downgrade).toBeInstanceOf(AppError);
    expect(downgrade).toMatchObject({ code: 'conflict', message: 'Moving from Pro to Plus is a downgrade. Use Manage billing to downgrade.' });
  });
});

describe('checkoutPreview', () => {
  it('when a plan is bought, then the amount is its first charge from the catalogue', () => {
    expect(checkoutPreview({ tier: 'plus', period: 'monthly' })).toEqual({
      tier: 'plus',
      period: 'monthly',
      kind: 'checkout',
      amount_due_cents: 1500,
      currency: 'usd',
      lines: [{ description: 'Tradewind Plus, billed monthly', amount_cents: 1500 }],
      next_billing_date: null,
      proration_date: null,
    });
    expect(checkoutPreview({ tier: 'pro', period: 'yearly' })).toMatchObject({
      amount_due_cents: 33600,
      lines: [{ description: 'Tradewind Pro, billed yearly ($28/month × 12)', amount_cents: 33600 }],
    });
  });
});

describe('prorationPreview', () => {
  const line = (description: string, amount: number, end: number) => ({ description, amount, period: { start: 1, end } });

  it('when Stripe previews prorations, then its lines, amount due, latest period end and proration date are shown', () => {
    const invoice: PreviewInvoice = {
      amount_due: 1355,
      total: 1355,
      currency: 'usd',
      parent: {
        type: 'subscription_details',
        quote_details: null,
        subscription_details: { metadata: null, subscription: 'sub_1', subscription_proration_date: 1768089600 },
      },
      lines: {
        data: [
          line('Unused time on Tradewind Plus after 11 Jan 2026', -1016, 1769904000),
          line('Remaining time on Tradewind Pro after 11 Jan 2026', 2371, 1769904000),
        ],
      },
    };
    expect(prorationPreview({ tier: 'pro', period: 'monthly' }, invoice, 1)).toEqual({
      tier: 'pro',
      period: 'monthly',
      kind: 'proration',
      amount_due_cents: 1355,
      currency: 'usd',
      lines: [
        { description: 'Unused time on Tradewind Plus after 11 Jan 2026', amount_cents: -1016 },
        { description: 'Remaining time on Tradewind Pro after 11 Jan 2026', amount_cents: 2371 },
      ],
      next_billing_date: '2026-02-01T00:00:00.000Z',
      proration_date: 1768089600,
    });
  });

  it("when a credit balance lowers the amount due, then a balance line makes the lines add up; without Stripe's date, the one sent", () => {
    const invoice: PreviewInvoice = {
      amount_due: 31000,
      total: 32355,
      currency: 'usd',
      parent: null,
      lines: { data: [line('Unused time on Tradewind Plus', -1245, 100), line('1 × Tradewind Pro (at $336.00 / year)', 33600, 200)] },
    };
    const preview = prorationPreview({ tier: 'pro', period: 'yearly' }, invoice, 42);
    expect(preview.lines.at(-1)).toEqual({ description: 'Applied account balance', amount_cents: -1355 });
    expect(preview.lines.reduce((sum, l) => sum + l.amount_cents, 0)).toBe(preview.amount_due_cents);
    expect(preview).toMatchObject({ proration_date: 42, next_billing_date: new Date(200_000).toISOString() });
  });
});

describe('checkProrationDate', () => {
  const now = 1_800_000_000;
  it("when the date is a recent preview's, then it is returned", () => {
    expect(checkProrationDate(now - 1799, now, 1800)).toBe(now - 1799);
    expect(checkProrationDate(now + PRORATION_DATE_FUTURE_SKEW_SECONDS, now, 1800)).toBe(now + PRORATION_DATE_FUTURE_SKEW_SECONDS);
  });

  it('when the date is not an integer, in the future or too old, then invalid_argument or conflict', () => {
    for (const bad of ['1800000000', 1.5, -1, 0, null, Number.MAX_VALUE]) {
      expect(() => checkProrationDate(bad, now, 1800)).toThrow(expect.objectContaining({ code: 'invalid_argument' }));
    }
    expect(() => checkProrationDate(now + PRORATION_DATE_FUTURE_SKEW_SECONDS + 1, now, 1800)).toThrow(
      expect.objectContaining({ code: 'invalid_argument', message: expect.stringMatching(/future/) }),
    );
    expect(() => checkProrationDate(now - 1801, now, 1800)).toThrow(
      expect.objectContaining({ code: 'conflict', message: 'The amount shown is more than 30 minutes old. Review the new amount and confirm again.' }),
    );
  });
});
