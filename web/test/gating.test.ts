import { describe, expect, it, vi } from 'vitest';
import type { Subscription } from '../src/api';
import {
  authLoginUrl,
  dashboardGate,
  paymentDecision,
  pollForPlanChange,
  fromPaymentRedirect,
  waitForUserPlan,
  postSignInPath,
  readCheckoutReturn,
  readPlanParams,
  withoutCheckoutParams,
} from '../src/lib/gating';

function sub(over: Partial<Subscription> = {}): Subscription {
  return {
    tier: 'plus',
    billing_period: 'monthly',
    status: 'active',
    next_billing_date: '2027-01-01T00:00:00.000Z',
    cancel_at_period_end: false,
    cancel_at: null,
    subscription_type: 'paid',
    effective_plan: 'plus',
    ...over,
  };
}

describe('dashboardGate', () => {
  it('spinner while loading, /login when signed out, render when signed in', () => {
    expect(dashboardGate('loading')).toEqual({ kind: 'spinner' });
    expect(dashboardGate('signed-out')).toEqual({ kind: 'redirect', to: '/login' });
    expect(dashboardGate('signed-in')).toEqual({ kind: 'render' });
  });

  it('while logging out, then a spinner, whatever the session state (the spec: spinner while logging out)', () => {
    expect(dashboardGate('signed-in', true)).toEqual({ kind: 'spinner' });
    expect(dashboardGate('signed-out', true)).toEqual({ kind: 'spinner' });
    expect(dashboardGate('signed-out', false)).toEqual({ kind: 'redirect', to: '/login' });
  });

  it('when signed in without a valid plan on the user, then /login?message=setup-required; with one, render', () => {
    expect(dashboardGate('signed-in', false, null)).toEqual({ kind: 'redirect', to: '/login?message=setup-required' });
    expect(dashboardGate('signed-in', false, 'gold')).toEqual({ kind: 'redirect', to: '/login?message=setup-required' });
    expect(dashboardGate('signed-in', false, 'plus')).toEqual({ kind: 'render' });
    expect(dashboardGate('signed-in')).toEqual({ kind: 'render' });
  });
});

describe('readPlanParams / postSignInPath / authLoginUrl', () => {
  it('keeps valid values and reports invalid ones', () => {
    expect(readPlanParams(new URLSearchParams('tier=plus&period=yearly'))).toEqual({ tier: 'plus', period: 'yearly', invalidTier: null, invalidPeriod: null });
    expect(readPlanParams(new URLSearchParams('tier=gold&period=weekly'))).toEqual({ tier: null, period: null, invalidTier: 'gold', invalidPeriod: 'weekly' });
    expect(readPlanParams(new URLSearchParams('tier=&period='))).toEqual({ tier: null, period: null, invalidTier: null, invalidPeriod: null });
  });
  it('sends paid tiers to /payment and everything else to /dashboard', () => {
    expect(postSignInPath('pro', 'yearly')).toBe('/payment?tier=pro&period=yearly');
    expect(postSignInPath('plus', null)).toBe('/payment?tier=plus&period=monthly');
    expect(postSignInPath('starter', 'yearly')).toBe('/dashboard');
    expect(postSignInPath(null, null)).toBe('/dashboard');
  });
  it('builds the /auth/login URL from valid parameters only', () => {
    expect(authLoginUrl('plus', 'yearly')).toBe('/auth/login?tier=plus&period=yearly');
    expect(authLoginUrl('pro', null)).toBe('/auth/login?tier=pro');
    expect(authLoginUrl(null, 'yearly')).toBe('/auth/login');
  });
});

describe('paymentDecision', () => {
  it('waits while the session loads', () => {
    expect(paymentDecision({ status: 'loading', tier: 'plus', period: 'monthly' })).toEqual({ kind: 'wait' });
  });
  it('sends signed-out visitors to /login with setup-required, keeping tier and period', () => {
    expect(paymentDecision({ status: 'signed-out', tier: 'plus', period: 'yearly' })).toEqual({
      kind: 'redirect',
      to: '/login?tier=plus&period=yearly&message=setup-required',
    });
    expect(paymentDecision({ status: 'signed-out', tier: null, period: null })).toEqual({ kind: 'redirect', to: '/login?message=setup-required' });
  });
  it('refuses a missing or unknown tier and an unknown period', () => {
    expect(paymentDecision({ status: 'signed-in', tier: null, period: 'monthly' })).toMatchObject({ kind: 'error', code: 'missing_tier' });
    expect(paymentDecision({ status: 'signed-in', tier: 'gold', period: 'monthly' })).toEqual({
      kind: 'error',
      code: 'invalid_tier',
      message: '“gold” is not a Tradewind plan.',
    });
    expect(paymentDecision({ status: 'signed-in', tier: 'plus', period: 'weekly' })).toMatchObject({ kind: 'error', code: 'invalid_period' });
  });
  it('defaults the period to monthly and sends starter to /dashboard', () => {
    expect(paymentDecision({ status: 'signed-in', tier: 'plus', period: null })).toEqual({ kind: 'need-subscription', tier: 'plus', period: 'monthly' });
    expect(paymentDecision({ status: 'signed-in', tier: 'starter', period: 'yearly' })).toEqual({ kind: 'redirect', to: '/dashboard' });
  });
  it('sends a user already on the requested plan to /dashboard/plan with a notice', () => {
    for (const status of ['active', 'trialing', 'past_due']) {
      expect(paymentDecision({ status: 'signed-in', tier: 'plus', period: 'yearly', subscription: sub({ billing_period: 'yearly', status }) })).toEqual({
        kind: 'redirect',
        to: '/dashboard/plan',
        notice: 'You are already on the Plus plan (billed yearly).',
      });
    }
  });
  it('checks out otherwise: other period, other tier, not entitled, or subscription unknown', () => {
    const checkout = (tier: 'plus' | 'pro', period: 'monthly' | 'yearly') => ({ kind: 'checkout', tier, period, cancelUrl: '/pricing?checkout=cancelled' });
    expect(paymentDecision({ status: 'signed-in', tier: 'plus', period: 'yearly', subscription: sub() })).toEqual(checkout('plus', 'yearly'));
    expect(paymentDecision({ status: 'signed-in', tier: 'pro', period: 'monthly', subscription: sub() })).toEqual(checkout('pro', 'monthly'));
    expect(paymentDecision({ status: 'signed-in', tier: 'plus', period: 'monthly', subscription: sub({ status: 'unpaid' }) })).toEqual(
      checkout('plus', 'monthly'),
    );
    expect(paymentDecision({ status: 'signed-in', tier: 'plus', period: 'monthly', subscription: null })).toEqual(checkout('plus', 'monthly'));
  });
});

describe('checkout return', () => {
  it('recognises checkout=success and plan_changed=true', () => {
    expect(readCheckoutReturn(new URLSearchParams('checkout=success&session_id=cs_1'))).toEqual({ kind: 'checkout', title: 'Payment Successful!' });
    // Stripe's success URL with only {CHECKOUT_SESSION_ID} (product spec §4: "session_id present").
    expect(readCheckoutReturn(new URLSearchParams('session_id=cs_2'))).toEqual({ kind: 'checkout', title: 'Payment Successful!' });
    expect(readCheckoutReturn(new URLSearchParams('session_id='))).toBeNull();
    expect(readCheckoutReturn(new URLSearchParams('checkout=success&plan_changed=true'))).toEqual({ kind: 'plan-changed', title: 'Plan changed' });
    expect(readCheckoutReturn(new URLSearchParams('checkout=cancelled'))).toBeNull();
    expect(readCheckoutReturn(new URLSearchParams(''))).toBeNull();
  });
  it('removes only the checkout parameters', () => {
    expect(withoutCheckoutParams(new URLSearchParams('checkout=success&session_id=cs_1'))).toBe('');
    expect(withoutCheckoutParams(new URLSearchParams('checkout=success&plan_changed=true&tab=x'))).toBe('?tab=x');
  });
  it('when a starter user arrives with from=payment, then they are sent to /payment?tier=plus; paid users and other URLs stay', () => {
    expect(fromPaymentRedirect(new URLSearchParams('from=payment'), 'starter')).toBe('/payment?tier=plus');
    expect(fromPaymentRedirect(new URLSearchParams('from=payment'), null)).toBe('/payment?tier=plus');
    expect(fromPaymentRedirect(new URLSearchParams('from=payment'), 'plus')).toBeNull();
    expect(fromPaymentRedirect(new URLSearchParams(''), 'starter')).toBeNull();
  });

  it('when billing already shows the new plan but auth does not yet, then the user is reloaded until it does, within the bound', async () => {
    const sleep = async () => undefined;
    let n = 0;
    const lagging = vi.fn(async () => ({ tier: ++n >= 4 ? 'plus' : 'starter' }));
    expect(await waitForUserPlan('plus', lagging, { sleep })).toBe(true);
    expect(lagging).toHaveBeenCalledTimes(4);
    const never = vi.fn(async () => ({ tier: 'starter' }));
    expect(await waitForUserPlan('plus', never, { sleep, intervalMs: 2000, maxMs: 10_000 })).toBe(false);
    expect(never).toHaveBeenCalledTimes(6);
  });

  it('polls at 0, 2, 4, 6, 8 and 10 s and stops when the plan changes', async () => {
    const slept: number[] = [];
    const sleep = async (ms: number) => {
      slept.push(ms);
    };
    const unchanged = vi.fn(async () => ({ tier: 'starter', billing_period: 'indefinite' }));
    const r1 = await pollForPlanChange({ tier: 'starter', billing_period: 'indefinite' }, unchanged, { sleep, maxMs: 10_000 });
    expect(r1).toEqual({ changed: false, last: { tier: 'starter', billing_period: 'indefinite' }, attempts: 6 });
    expect(slept).toEqual([2000, 2000, 2000, 2000, 2000]);

    let n = 0;
    const changesOnThird = vi.fn(async () => {
      n += 1;
      if (n === 1) throw new Error('network');
      return n >= 3 ? { tier: 'plus', billing_period: 'monthly' } : { tier: 'starter', billing_period: 'indefinite' };
    });
    const r2 = await pollForPlanChange({ tier: 'starter', billing_period: 'indefinite' }, changesOnThird, { sleep });
    expect(r2).toEqual({ changed: true, last: { tier: 'plus', billing_period: 'monthly' }, attempts: 3 });
  });
});
