/**
 * Spec §4 refresh rules of the dashboard: the subscription page retries once after a 400 with a
 * reloaded user; the credentials panel's refresh reloads the user first and refetches whenever the
 * user's plan changes; a signed-in user without a plan is sent to /login?message=setup-required.
 */
import { act, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { MemoryRouter, Route, Routes } from 'react-router';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ApiError, type Subscription, type User } from '../src/api';
import { StaticAuthProvider } from '../src/session/session';
import { ThemeProvider } from '../src/theme';
import { ToastProvider } from '../src/components/Toast';
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
