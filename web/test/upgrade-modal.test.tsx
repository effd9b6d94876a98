/**
 * The upgrade modal (product spec §4 "Upgrade modal", §5 "The upgrade confirm button is disabled
 * without a selected plan or while processing", §6 "The Plus user's upgrade modal lists only Pro")
 * against a mocked billing API, and the plan page's `?upgrade=` link from /payment.
 */
import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Route, Routes } from 'react-router';
import { UpgradeModal } from '../src/components/dashboard/UpgradeModal';
import PlanPage from '../src/pages/dashboard/Plan';
import Payment from '../src/pages/Payment';
import type { UpgradePreview } from '../src/lib/upgrade-preview';
import { json, renderInDashboard, testUser } from './dashboard-fixtures';

const PLUS_USER = testUser({ plan: 'plus' }, { tier: 'plus', billing_period: 'monthly', subscription_type: 'paid' });
const PRO_USER = testUser({ plan: 'pro' }, { tier: 'pro', billing_period: 'yearly', subscription_type: 'paid' });

const PRORATION: UpgradePreview = {
  tier: 'pro',
  period: 'monthly',
  kind: 'proration',
  amount_due_cents: 1333,
  currency: 'usd',
  lines: [
    { description: 'Unused time on Tradewind Plus after 5 Dec 2026', amount_cents: -1000 },
    { description: 'Remaining time on Tradewind Pro after 5 Dec 2026', amount_cents: 2333 },
  ],
  next_billing_date: '2026-12-25T19:48:50.000Z',
  proration_date: 1796500130,
};

function checkoutPreview(tier: 'plus' | 'pro', period: 'monthly' | 'yearly'): UpgradePreview {
  const cents = { plus: { monthly: 1500, yearly: 14400 }, pro: { monthly: 3500, yearly: 33600 } }[tier][period];
  return {
    tier,
    period,
    kind: 'checkout',
    amount_due_cents: cents,
    currency: 'usd',
    lines: [{ description: `Tradewind ${tier}`, amount_cents: cents }],
    next_billing_date: null,
    proration_date: null,
  };
}

interface Call {
  url: string;
  body: Record<string, unknown> | undefined;
  auth: string | undefined;
}

let calls: Call[];
let assign: ReturnType<typeof vi.fn>;

/** Stubs fetch: `handler` answers each call (after it is recorded). */
function stubApi(handler: (call: Call) => Response | Promise<Response>) {
  vi.stubGlobal(
    'fetch',
    vi.fn(async (url: string, init?: RequestInit) => {
      const call: Call = {
        url,
        body: init?.body ? (JSON.parse(String(init.body)) as Record<string, unknown>) : undefined,
        auth: (init?.headers as Record<string, string>).authorization,
      };
      calls.push(call);
      return handler(call);
    }),
  );
}

const previews = () => calls.filter((c) => c.url === '/api/upgrade-preview').map((c) => c.body);
const confirms = () => calls.filter((c) => c.url === '/api/checkout-sessions').map((c) => c.body);
const confirmButton = () => screen.getByRole('button', { name: /Confirm upgrade|Processing/ }) as HTMLButtonElement;

beforeEach(() => {
  calls = [];
  assign = vi.fn();
  vi.stubGlobal('location', { ...window.location, assign });
});
afterEach(() => vi.unstubAllGlobals());

describe('UpgradeModal for Plus', () => {
  it('lists only Pro, selects it at once, shows the prorated amount and confirms with its proration date', async () => {
    stubApi((c) =>
      c.url === '/api/upgrade-preview'
        ? json(PRORATION)
        : json({ url: 'http://localhost:8080/dashboard?checkout=success&plan_changed=true', plan_changed: true, amount_paid_cents: 1333 }),
    );
    const onClose = vi.fn();
    renderInDashboard(<UpgradeModal tier="plus" period="monthly" onClose={onClose} />, { user: PLUS_USER });
    const dialog = screen.getByRole('dialog', { name: 'Upgrade your plan' });
    const radios = within(dialog).getAllByRole('radio');
    expect(radios.map((r) => (r as HTMLInputElement).value)).toEqual(['pro']);
    expect(within(dialog).getByRole('radio', { name: 'Pro' })).toBe(radios[0]);
    expect((radios[0] as HTMLInputElement).checked).toBe(true);
    expect(within(dialog).getByRole('button', { name: 'Monthly' }).getAttribute('aria-pressed')).toBe('true');
    const amount = within(dialog).getByTestId('upgrade-amount');
    await waitFor(() => expect(amount.textContent).toContain('You will be charged $13.33 now (prorated)'));
    expect(amount.textContent).toContain('Unused time on Tradewind Plus after 5 Dec 2026-$10.00');
    expect(amount.textContent).toContain('Remaining time on Tradewind Pro after 5 Dec 2026$23.33');
    expect(amount.textContent).toContain('Next billing date: December 25, 2026');
    expect(previews()).toEqual([{ tier: 'pro', period: 'monthly' }]);
    expect(calls[0]!.auth).toBe('Bearer test-access-token');

    await userEvent.click(confirmButton());
    await waitFor(() => expect(assign).toHaveBeenCalledWith('http://localhost:8080/dashboard?checkout=success&plan_changed=true'));
    expect(confirms()).toEqual([{ tier: 'pro', period: 'monthly', userId: PLUS_USER.id, cancelUrl: '/dashboard/plan', proration_date: 1796500130 }]);
    expect(onClose).toHaveBeenCalledTimes(1);
  });
});

describe('UpgradeModal for Starter', () => {
  it('offers Plus and Pro (Pro marked Popular) with the option fields, and keeps Confirm disabled until a plan is chosen and priced', async () => {
    let release: (() => void) | undefined;
    stubApi(async (c) => {
      if (c.url === '/api/upgrade-preview') {
        await new Promise<void>((resolve) => {
          release = resolve;
        });
        return json(checkoutPreview(c.body!.tier as 'plus', c.body!.period as 'monthly'));
      }
      return json({ url: 'https://checkout.stripe.com/c/pay/cs_test_1' });
    });
    const user = userEvent.setup();
    renderInDashboard(<UpgradeModal tier="starter" period="indefinite" onClose={() => undefined} />);
    const plus = screen.getByTestId('upgrade-option-plus');
    const pro = screen.getByTestId('upgrade-option-pro');
    expect(within(plus).queryByText('Popular')).toBeNull();
    expect(within(pro).getByText('Popular')).toBeTruthy();
    expect(plus.textContent).toContain('$15/month');
    expect(plus.textContent).toContain('or $12/month billed yearly');
    expect(plus.textContent).toContain('All 4 trade feeds, 1 connection per transport and 1,000 control requests per minute.');
    expect(within(pro).getByText('Replay of trade history (JetStream)')).toBeTruthy();
    expect(screen.getAllByRole('radio')).toEqual([screen.getByRole('radio', { name: 'Plus' }), screen.getByRole('radio', { name: 'Pro' })]);
    expect(screen.getAllByRole('radio').some((r) => (r as HTMLInputElement).checked)).toBe(false);
    expect(screen.getByTestId('upgrade-amount').textContent).toBe('Choose a plan to see the amount due.');
    expect(confirmButton().disabled).toBe(true);
    expect(previews()).toEqual([]);

    await user.click(within(plus).getByRole('radio'));
    expect(await screen.findByText(/Calculating the amount due/)).toBeTruthy();
    expect(confirmButton().disabled).toBe(true);
    await act(async () => release!());
    await waitFor(() => expect(screen.getByTestId('upgrade-amount').textContent).toContain("$15.00/month — you'll enter payment details on the next page"));
    expect(confirmButton().disabled).toBe(false);

    // The annual toggle prices the same plan yearly.
    await user.click(screen.getByRole('button', { name: 'Annual' }));
    expect(plus.textContent).toContain('$12/month billed yearly ($144 per year, save 20%)');
    expect(confirmButton().disabled).toBe(true);
    await waitFor(() => expect(previews()).toHaveLength(2));
    await act(async () => release!());
    await waitFor(() => expect(screen.getByTestId('upgrade-amount').textContent).toContain("$144.00/year — you'll enter payment details on the next page"));
    expect(previews()).toEqual([
      { tier: 'plus', period: 'monthly' },
      { tier: 'plus', period: 'yearly' },
    ]);

    await user.click(confirmButton());
    await waitFor(() => expect(assign).toHaveBeenCalledWith('https://checkout.stripe.com/c/pay/cs_test_1'));
    expect(confirms()).toEqual([{ tier: 'plus', period: 'yearly', userId: testUser().id, cancelUrl: '/dashboard/plan' }]);
  });

  it('disables Confirm while processing, so one click makes one request', async () => {
    let answer: ((r: Response) => void) | undefined;
    stubApi((c) => (c.url === '/api/upgrade-preview' ? json(checkoutPreview('pro', 'monthly')) : new Promise<Response>((resolve) => (answer = resolve))));
    const user = userEvent.setup();
    renderInDashboard(<UpgradeModal tier="starter" period="indefinite" onClose={() => undefined} initialTier="pro" initialPeriod="monthly" />);
    await waitFor(() => expect(confirmButton().disabled).toBe(false));
    await user.click(confirmButton());
    expect(confirmButton().textContent).toBe('Processing…');
    expect(confirmButton().disabled).toBe(true);
    await user.click(confirmButton());
    expect(confirms()).toHaveLength(1);
    await act(async () => answer!(json({ url: '/checkout/1' })));
    await waitFor(() => expect(assign).toHaveBeenCalledWith('/checkout/1'));
  });

  it("shows the spec's failure text with billing's reason, prices again and lets the user retry", async () => {
    let confirmCount = 0;
    stubApi((c) => {
      if (c.url === '/api/upgrade-preview') return json(checkoutPreview('plus', 'monthly'));
      confirmCount += 1;
      return confirmCount === 1 ? json({ status: 503, code: 'unavailable', message: 'Stripe is unavailable right now' }, 503) : json({});
    });
    const user = userEvent.setup();
    renderInDashboard(<UpgradeModal tier="starter" period="indefinite" onClose={() => undefined} initialTier="plus" />);
    await waitFor(() => expect(confirmButton().disabled).toBe(false));
    await user.click(confirmButton());
    const alert = await screen.findByText(/^Failed to start upgrade process/);
    expect(alert.textContent).toBe('Failed to start upgrade process. Please try again. (Stripe is unavailable right now)');
    await waitFor(() => expect(previews()).toHaveLength(2));
    await waitFor(() => expect(confirmButton().disabled).toBe(false));
    // An answer without a url is an error too.
    await user.click(confirmButton());
    await waitFor(() =>
      expect(screen.getByText(/^Failed to start upgrade process/).textContent).toBe(
        'Failed to start upgrade process. Please try again. (No checkout URL was returned)',
      ),
    );
    expect(assign).not.toHaveBeenCalled();
  });

  it('keeps Confirm disabled when the amount cannot be calculated, with Retry', async () => {
    let fail = true;
    stubApi(() =>
      fail
        ? json({ status: 409, code: 'conflict', message: 'Moving from Pro to Plus is a downgrade. Use Manage billing to downgrade.' }, 409)
        : json(checkoutPreview('plus', 'monthly')),
    );
    const user = userEvent.setup();
    renderInDashboard(<UpgradeModal tier="starter" period="indefinite" onClose={() => undefined} initialTier="plus" />);
    expect((await screen.findByText(/Could not calculate the amount due/)).textContent).toBe(
      'Could not calculate the amount due: Moving from Pro to Plus is a downgrade. Use Manage billing to downgrade.',
    );
    expect(confirmButton().disabled).toBe(true);
    fail = false;
    await user.click(screen.getByRole('button', { name: 'Retry' }));
    await waitFor(() => expect(confirmButton().disabled).toBe(false));
  });
});

describe('plan page ?upgrade= (from /payment for a subscriber)', () => {
  const SUB = {
    tier: 'plus',
    billing_period: 'monthly',
    status: 'active',
    next_billing_date: '2026-12-25T00:00:00.000Z',
    cancel_at_period_end: false,
    cancel_at: null,
    subscription_type: 'paid',
    effective_plan: 'plus',
  };

  function renderPlan(path: string, user = PLUS_USER) {
    return renderInDashboard(
      <Routes>
        <Route path="/dashboard/plan" element={<PlanPage />} />
      </Routes>,
      { user, path },
    );
  }

  it('opens the modal on the requested plan and period for a Plus subscriber', async () => {
    stubApi((c) => (c.url === '/api/get-subscription' ? json(SUB) : json({ ...PRORATION, period: 'yearly', amount_due_cents: 30000 })));
    renderPlan('/dashboard/plan?upgrade=pro&period=yearly');
    const dialog = await screen.findByRole('dialog', { name: 'Upgrade your plan' });
    expect(within(dialog).getByRole('button', { name: 'Annual' }).getAttribute('aria-pressed')).toBe('true');
    await waitFor(() => expect(within(dialog).getByTestId('upgrade-amount').textContent).toContain('You will be charged $300.00 now (prorated)'));
    expect(previews()).toEqual([{ tier: 'pro', period: 'yearly' }]);
  });

  it("sends a Plus subscriber's /payment?tier=pro from /pricing to this modal, with no checkout request", async () => {
    stubApi((c) => (c.url === '/api/get-subscription' ? json(SUB) : json(PRORATION)));
    renderInDashboard(
      <Routes>
        <Route path="/payment" element={<Payment />} />
        <Route path="/dashboard/plan" element={<PlanPage />} />
      </Routes>,
      { user: PLUS_USER, path: '/payment?tier=pro&period=monthly' },
    );
    const dialog = await screen.findByRole('dialog', { name: 'Upgrade your plan' });
    await waitFor(() => expect(within(dialog).getByTestId('upgrade-amount').textContent).toContain('You will be charged $13.33 now (prorated)'));
    expect(confirms()).toEqual([]);
    expect(assign).not.toHaveBeenCalled();
  });

  it('tells a Pro subscriber that a downgrade is done in Manage billing, and shows no Upgrade button', async () => {
    stubApi(() => json({ ...SUB, tier: 'pro', billing_period: 'yearly', effective_plan: 'pro' }));
    renderPlan('/dashboard/plan?upgrade=plus&period=monthly', PRO_USER);
    expect((await screen.findByTestId('upgrade-request-notice')).textContent).toBe('Plus is below your Pro plan. Use Manage billing to downgrade.');
    expect(screen.queryByRole('dialog')).toBeNull();
    expect(screen.queryByRole('button', { name: 'Upgrade' })).toBeNull();
    expect(screen.getByRole('button', { name: 'Manage billing' })).toBeTruthy();
  });
});
