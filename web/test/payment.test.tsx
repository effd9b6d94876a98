import { render, screen, waitFor } from '@testing-library/react';
import { StrictMode } from 'react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { MemoryRouter, Route, Routes, useLocation } from 'react-router';
import { StaticAuthProvider } from '../src/session/session';
import Payment, { CHECKOUT_WITHOUT_URL_MESSAGE } from '../src/pages/Payment';
import type { User } from '../src/api';
import { json, testUser } from './dashboard-fixtures';

function Probe() {
  const l = useLocation();
  const notice = (l.state as { notice?: string } | null)?.notice ?? '';
  return (
    <div data-testid="location">
      {l.pathname + l.search}
      {notice ? `|${notice}` : ''}
    </div>
  );
}

function renderPayment(path: string, user: User | null = testUser()) {
  return render(
    <StrictMode>
      <MemoryRouter initialEntries={[path]}>
        <StaticAuthProvider user={user}>
          <Routes>
            <Route path="/payment" element={<Payment />} />
            <Route path="*" element={<Probe />} />
          </Routes>
        </StaticAuthProvider>
      </MemoryRouter>
    </StrictMode>,
  );
}

const STARTER_SUB = {
  tier: 'starter',
  billing_period: 'indefinite',
  status: 'active',
  next_billing_date: null,
  cancel_at_period_end: false,
  cancel_at: null,
  subscription_type: 'free',
  effective_plan: 'starter',
};

let assign: ReturnType<typeof vi.fn>;
beforeEach(() => {
  assign = vi.fn();
  vi.stubGlobal('location', { ...window.location, assign });
});
afterEach(() => vi.unstubAllGlobals());

describe('/payment', () => {
  it('posts exactly one checkout (StrictMode) and redirects to its URL', async () => {
    const calls: Array<{ url: string; body: unknown; auth: string | undefined }> = [];
    vi.stubGlobal(
      'fetch',
      vi.fn(async (url: string, init?: RequestInit) => {
        calls.push({ url, body: init?.body ? JSON.parse(String(init.body)) : undefined, auth: (init?.headers as Record<string, string>).authorization });
        if (url === '/api/get-subscription') return json(STARTER_SUB);
        return json({ url: 'https://checkout.stripe.com/c/pay/cs_test_1' });
      }),
    );
    renderPayment('/payment?tier=pro&period=yearly');
    expect(screen.getByText('Redirecting to secure checkout…')).toBeTruthy();
    await waitFor(() => expect(assign).toHaveBeenCalledWith('https://checkout.stripe.com/c/pay/cs_test_1'));
    const checkouts = calls.filter((c) => c.url === '/api/checkout-sessions');
    expect(checkouts).toHaveLength(1);
    expect(checkouts[0]!.body).toEqual({ tier: 'pro', period: 'yearly', userId: testUser().id, cancelUrl: '/pricing?checkout=cancelled' });
    expect(checkouts[0]!.auth).toBe('Bearer test-access-token');
    expect(assign).toHaveBeenCalledTimes(1);
  });

  it('defaults the period to monthly', async () => {
    const bodies: unknown[] = [];
    vi.stubGlobal(
      'fetch',
      vi.fn(async (url: string, init?: RequestInit) => {
        if (url === '/api/get-subscription') return json(STARTER_SUB);
        bodies.push(JSON.parse(String(init?.body)));
        return json({ url: '/local-checkout/1' });
      }),
    );
    renderPayment('/payment?tier=plus');
    await waitFor(() => expect(assign).toHaveBeenCalledWith('/local-checkout/1'));
    expect(bodies).toEqual([{ tier: 'plus', period: 'monthly', userId: testUser().id, cancelUrl: '/pricing?checkout=cancelled' }]);
  });

  it('sends signed-out visitors to /login with setup-required', () => {
    vi.stubGlobal('fetch', vi.fn());
    renderPayment('/payment?tier=plus&period=yearly', null);
    expect(screen.getByTestId('location').textContent).toBe('/login?tier=plus&period=yearly&message=setup-required');
    expect(fetch).not.toHaveBeenCalled();
  });

  it('shows an error with a link to /pricing for a missing or invalid tier or period', () => {
    vi.stubGlobal('fetch', vi.fn());
    const { unmount } = renderPayment('/payment?tier=gold');
    expect(screen.getByRole('alert').textContent).toBe('“gold” is not a Tradewind plan.');
    expect(screen.getByRole('link', { name: 'Back to pricing' }).getAttribute('href')).toBe('/pricing');
    expect(screen.queryByRole('button', { name: 'Retry' })).toBeNull();
    unmount();
    renderPayment('/payment?tier=plus&period=weekly');
    expect(screen.getByRole('alert').textContent).toBe('“weekly” is not a billing period. Choose monthly or yearly.');
    expect(fetch).not.toHaveBeenCalled();
  });

  it('sends starter to /dashboard', () => {
    vi.stubGlobal('fetch', vi.fn());
    renderPayment('/payment?tier=starter');
    expect(screen.getByTestId('location').textContent).toBe('/dashboard');
  });

  it('sends a user already on the plan to /dashboard/plan with a notice and no checkout', async () => {
    const fetchMock = vi.fn(async () =>
      json({ ...STARTER_SUB, tier: 'plus', billing_period: 'yearly', status: 'active', subscription_type: 'paid', effective_plan: 'plus' }),
    );
    vi.stubGlobal('fetch', fetchMock);
    renderPayment('/payment?tier=plus&period=yearly');
    await waitFor(() => expect(screen.getByTestId('location').textContent).toBe('/dashboard/plan|You are already on the Plus plan (billed yearly).'));
    expect(fetchMock).toHaveBeenCalledTimes(1);
  });

  it('shows the server message with Retry, and Retry sends one new request', async () => {
    let checkouts = 0;
    vi.stubGlobal(
      'fetch',
      vi.fn(async (url: string) => {
        if (url === '/api/get-subscription') return json(STARTER_SUB);
        checkouts += 1;
        return checkouts === 1 ? json({ status: 503, code: 'unavailable', message: 'Payments are temporarily unavailable' }, 503) : json({ url: '/ok' });
      }),
    );
    renderPayment('/payment?tier=plus&period=monthly');
    expect((await screen.findByRole('alert')).textContent).toBe('Failed to start upgrade process. Please try again. (Payments are temporarily unavailable)');
    expect(screen.getByRole('link', { name: 'Back to pricing' })).toBeTruthy();
    screen.getByRole('button', { name: 'Retry' }).click();
    await waitFor(() => expect(assign).toHaveBeenCalledWith('/ok'));
    expect(checkouts).toBe(2);
  });

  it('when the checkout answers 200 without a url, then the error shows with Retry and Back to pricing, and the browser goes nowhere', async () => {
    for (const body of [{}, { url: '' }, { url: null }, { plan_changed: false }]) {
      vi.stubGlobal(
        'fetch',
        vi.fn(async (url: string) => (url === '/api/get-subscription' ? json(STARTER_SUB) : json(body))),
      );
      const { unmount } = renderPayment('/payment?tier=plus&period=monthly');
      const alert = await screen.findByRole('alert');
      expect(alert.textContent, JSON.stringify(body)).toBe(`Failed to start upgrade process. Please try again. (${CHECKOUT_WITHOUT_URL_MESSAGE})`);
      expect(screen.getByRole('button', { name: 'Retry' })).toBeTruthy();
      expect(screen.getByRole('link', { name: 'Back to pricing' }).getAttribute('href')).toBe('/pricing');
      expect(assign).not.toHaveBeenCalled();
      unmount();
    }
  });
});
