/**
 * Spec §4 refresh rules of the dashboard: the subscription page retries once after a 400 with a
 * reloaded user; the credentials panel's refresh reloads the user first and refetches whenever the
 * user's plan changes; a signed-in user without a plan is sent to /login?message=setup-required.
 */
import { act, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { startTransition, useCallback, useState, type ReactNode } from 'react';
import { MemoryRouter, Route, Routes } from 'react-router';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ApiError, type Subscription, type User } from '../src/api';
import { StaticAuthProvider } from '../src/session/session';
import { ThemeProvider } from '../src/theme';
import { ToastProvider } from '../src/components/Toast';
import DashboardLayout from '../src/pages/dashboard/DashboardLayout';
import Overview from '../src/pages/dashboard/Overview';
import { loadSubscriptionRetryingOnce } from '../src/pages/dashboard/Plan';
import Login from '../src/pages/Login';
import { json, testCredentials, testUser } from './dashboard-fixtures';

afterEach(() => {
  vi.unstubAllGlobals();
});

const sub: Subscription = { tier: 'plus', billing_period: 'monthly', status: 'active', next_billing_date: null } as Subscription;

describe('loadSubscriptionRetryingOnce (spec: on a 400 it refreshes the user and retries once)', () => {
  const signal = new AbortController().signal;

  it('when the first answer is 400, then the user is reloaded and the request retried once with a fresh token', async () => {
    const load = vi
      .fn()
      .mockRejectedValueOnce(new ApiError(400, 'invalid_argument', 'no subscription yet'))
      .mockResolvedValueOnce(sub);
    const reloadUser = vi.fn(async () => null);
    const accessToken = vi.fn(async () => 'fresh-token');
    await expect(loadSubscriptionRetryingOnce('old-token', signal, { reloadUser, accessToken }, load)).resolves.toBe(sub);
    expect(reloadUser).toHaveBeenCalledTimes(1);
    expect(load.mock.calls.map((c) => c[0])).toEqual(['old-token', 'fresh-token']);
  });

  it('when the retry answers 400 again, then that error is thrown and there is no third request', async () => {
    const load = vi.fn().mockRejectedValue(new ApiError(400, 'invalid_argument', 'still no subscription'));
    await expect(loadSubscriptionRetryingOnce('t', signal, { reloadUser: async () => null, accessToken: async () => 't2' }, load)).rejects.toMatchObject({
      status: 400,
    });
    expect(load).toHaveBeenCalledTimes(2);
  });

  it('when the answer is another error (500), then it is thrown without reloading the user', async () => {
    const load = vi.fn().mockRejectedValue(new ApiError(500, 'internal', 'boom'));
    const reloadUser = vi.fn(async () => null);
    await expect(loadSubscriptionRetryingOnce('t', signal, { reloadUser, accessToken: async () => 't2' }, load)).rejects.toMatchObject({ status: 500 });
    expect(reloadUser).not.toHaveBeenCalled();
    expect(load).toHaveBeenCalledTimes(1);
  });
});

function renderOverview(user: User, reloadUser?: () => Promise<User | null>) {
  const ui = (u: User) => (
    <MemoryRouter initialEntries={['/dashboard']}>
      <StaticAuthProvider user={u} {...(reloadUser ? { reloadUser } : {})}>
        <ThemeProvider>
          <ToastProvider>
            <Overview />
          </ToastProvider>
        </ThemeProvider>
      </StaticAuthProvider>
    </MemoryRouter>
  );
  const view = render(ui(user));
  return { rerenderAs: (u: User) => view.rerender(ui(u)) };
}

describe('credentials panel refresh', () => {
  it('when Retry is pressed after a failure, then the user is reloaded first and the credentials fetched again', async () => {
    const order: string[] = [];
    let calls = 0;
    vi.stubGlobal(
      'fetch',
      vi.fn(async () => {
        calls += 1;
        order.push(`nats#${calls}`);
        return calls === 1 ? json({ error: 'internal', message: 'Failed to fetch NATS credentials' }, 500) : json(testCredentials);
      }),
    );
    const user = testUser({ plan: 'plus' });
    const reloadUser = vi.fn(async () => {
      order.push('reloadUser');
      return user;
    });
    renderOverview(user, reloadUser);
    await screen.findByRole('alert');
    fireEvent.click(screen.getByRole('button', { name: 'Retry' }));
    expect(await screen.findByLabelText('User JWT')).toBeTruthy();
    expect(order).toEqual(['nats#1', 'reloadUser', 'nats#2']);
  });

  it('when the user’s plan changes, then the credentials are fetched again; an unchanged user fetches nothing more', async () => {
    const fetchMock = vi.fn(async () => json(testCredentials));
    vi.stubGlobal('fetch', fetchMock);
    const starter = testUser();
    const reloadUser = async () => starter;
    const { rerenderAs } = renderOverview(starter, reloadUser);
    await screen.findByLabelText('User JWT');
    expect(fetchMock).toHaveBeenCalledTimes(1);
    act(() => rerenderAs(starter));
    await new Promise((r) => setTimeout(r, 20));
    expect(fetchMock).toHaveBeenCalledTimes(1);
    act(() => rerenderAs(testUser({ plan: 'plus' }, { tier: 'plus' })));
    await waitFor(() => expect(fetchMock).toHaveBeenCalledTimes(2));
  });
});

/**
 * Signed in as `initial`; `reloadUser` answers `reloaded()` and makes it the signed-in user (in a
 * transition when `inTransition`, as the session client's own changes arrive), so pages see a plan
 * change; {@link changeUser} changes the user from outside (e.g. a session refresh).
 */
function ChangingAuth({ initial, reloaded, inTransition, children }: { initial: User; reloaded: () => User; inTransition: boolean; children: ReactNode }) {
  const [user, setUser] = useState(initial);
  const reloadUser = useCallback(async () => {
    const fresh = reloaded();
    if (inTransition) startTransition(() => setUser(fresh));
    else setUser(fresh);
    return fresh;
  }, [reloaded, inTransition]);
  changeUser = setUser;
  return (
    <StaticAuthProvider user={user} reloadUser={reloadUser}>
      {children}
    </StaticAuthProvider>
  );
}
let changeUser: (u: User) => void = () => undefined;

const plusMonthly = testUser({ plan: 'plus' }, { tier: 'plus', billing_period: 'monthly', subscription_type: 'paid' });

/**
 * Opens /dashboard?session_id=… (a return from checkout) as `initial`; billing answers `billed` from
 * the first poll on. Returns the times `GET /api/nats` was called (fake clock).
 */
function returnFromCheckout(initial: User, billed: Partial<Subscription>, reloaded: () => User, inTransition = false): number[] {
  const natsCalls: number[] = [];
  vi.stubGlobal(
    'fetch',
    vi.fn(async (url: string) => {
      if (url.startsWith('/auth/notifications')) return json({ notifications: [], unread: 0 });
      if (url === '/api/get-subscription') return json({ ...sub, ...billed });
      if (url === '/api/nats') {
        natsCalls.push(Date.now());
        return json(testCredentials);
      }
      return json({ status: 404, code: 'not_found', message: `unexpected ${url}` }, 404);
    }),
  );
  render(
    <MemoryRouter initialEntries={['/dashboard?session_id=cs_test_1']}>
      <ChangingAuth initial={initial} reloaded={reloaded} inTransition={inTransition}>
        <ThemeProvider>
          <ToastProvider>
            <Routes>
              <Route path="/dashboard" element={<DashboardLayout />}>
                <Route index element={<Overview />} />
              </Route>
            </Routes>
          </ToastProvider>
        </ThemeProvider>
      </ChangingAuth>
    </MemoryRouter>,
  );
  return natsCalls;
}

async function advance(ms: number): Promise<void> {
  await act(async () => {
    await vi.advanceTimersByTimeAsync(ms);
  });
}

describe('credentials panel on return from checkout (one fetch per change)', () => {
  afterEach(() => vi.useRealTimers());

  it('when the new plan reaches the page before the checkout return ends, then GET /api/nats is fetched once for it, and again when the plan changes later', async () => {
    vi.useFakeTimers();
    const natsCalls = returnFromCheckout(testUser(), { tier: 'plus', billing_period: 'monthly' }, () => plusMonthly);
    await advance(0);
    expect(natsCalls).toHaveLength(1); // on mount
    // The session refresh brings the new plan during the 2 s wait; then billing and auth agree and the pages refresh.
    await advance(1000);
    act(() => changeUser(plusMonthly));
    await advance(11_000);
    expect(screen.getAllByTestId('user-plan-label')[0]!.textContent).toBe('Plus plan');
    expect(natsCalls, 'one fetch for the new plan, not one for the plan and one for the checkout return').toHaveLength(2);
    // A later, real plan change still refetches.
    act(() => changeUser(testUser({ plan: 'pro' }, { tier: 'pro', billing_period: 'monthly', subscription_type: 'paid' })));
    await advance(100);
    expect(natsCalls).toHaveLength(3);
  });

  it('when the reloaded user with the new plan renders after the checkout return’s refresh, then GET /api/nats is still fetched once for it', async () => {
    vi.useFakeTimers();
    const natsCalls = returnFromCheckout(testUser(), { tier: 'plus', billing_period: 'monthly' }, () => plusMonthly, true);
    await advance(12_000);
    expect(screen.getAllByTestId('user-plan-label')[0]!.textContent).toBe('Plus plan');
    expect(natsCalls).toHaveLength(2);
  });

  it('when the checkout return ends on the same plan (a billing-period change), then the credentials are fetched again once', async () => {
    vi.useFakeTimers();
    const yearly = testUser({ plan: 'plus' }, { tier: 'plus', billing_period: 'yearly', subscription_type: 'paid' });
    const natsCalls = returnFromCheckout(plusMonthly, { tier: 'plus', billing_period: 'yearly' }, () => yearly);
    await advance(12_000);
    expect(natsCalls).toHaveLength(2);
  });
});

describe('/login?message=setup-required for a signed-in user', () => {
  it('when the dashboard sent a signed-in user here, then the page stays (no redirect loop) and says how to finish', async () => {
    vi.stubGlobal(
      'fetch',
      vi.fn(async () => json({ provider: 'local-oidc', label: 'Sign in (local)', local: true })),
    );
    render(
      <MemoryRouter initialEntries={['/login?message=setup-required']}>
        <StaticAuthProvider user={testUser()}>
          <Routes>
            <Route path="/login" element={<Login />} />
            <Route path="/dashboard" element={<p>dashboard</p>} />
          </Routes>
        </StaticAuthProvider>
      </MemoryRouter>,
    );
    expect(screen.queryByText('dashboard')).toBeNull();
    expect(screen.getByRole('status').textContent).toContain('Your account has no plan yet. Sign in again to finish setting it up');
  });
});
