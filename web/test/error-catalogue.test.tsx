/**
 * The error catalogue of the product specification (§8), except the live panel: each test
 * asserts the spec's own words, typed out here (not imported), so a changed text fails.
 */
import { act, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { MemoryRouter, Outlet, Route, Routes } from 'react-router';
import { useState, type ReactNode } from 'react';
import { ApiError, apiErrorMessage, apiFetch, NOT_JSON } from '../src/api';
import { StaticAuthProvider, useAuth } from '../src/session/session';
import { copyFailedText } from '../src/lib/clipboard';
import { ConnectionDetails } from '../src/components/dashboard/ConnectionDetails';
import Overview from '../src/pages/dashboard/Overview';
import type { DashboardContext } from '../src/pages/dashboard/DashboardLayout';
import PlanPage from '../src/pages/dashboard/Plan';
import { CredentialsLoadError } from '../src/pages/dashboard/CredentialsError';
import { credentialsErrorText, requireConnectionDetails } from '../src/pages/dashboard/credentials-errors';
import type { User } from '../src/api';
import { json, renderInDashboard, testCredentials as CREDS, testUser } from './dashboard-fixtures';

/** A dashboard page for `user` (default: the fixture user; null: signed out). */
const wrap = (ui: ReactNode, user: User | null = testUser()) => renderInDashboard(ui, { user });

const SUB = {
  tier: 'plus',
  billing_period: 'monthly',
  status: 'active',
  next_billing_date: '2026-12-21T10:00:00.000Z',
  cancel_at_period_end: false,
  cancel_at: null,
  subscription_type: 'paid',
  effective_plan: 'plus',
};

function text(body: string, status: number): Response {
  return new Response(body, { status, headers: { 'content-type': 'text/html' } });
}

async function failureOf(p: Promise<unknown>): Promise<ApiError> {
  try {
    await p;
  } catch (err) {
    if (err instanceof ApiError) return err;
    throw err;
  }
  throw new Error('expected a rejection');
}

afterEach(() => {
  vi.unstubAllGlobals();
  Object.defineProperty(navigator, 'clipboard', { value: undefined, configurable: true, writable: true });
  Object.defineProperty(document, 'execCommand', { value: undefined, configurable: true, writable: true });
});

describe('API errors (spec §8)', () => {
  it('when the server answers a JSON error field, then the error carries the status and that text', async () => {
    vi.stubGlobal(
      'fetch',
      vi.fn(async () => json({ status: 400, code: 'invalid_argument', message: 'tier must be plus or pro' }, 400)),
    );
    const err = await failureOf(apiFetch('/api/x'));
    expect(err.status).toBe(400);
    expect(err.code).toBe('invalid_argument');
    expect(err.message).toBe('tier must be plus or pro');
    vi.stubGlobal(
      'fetch',
      vi.fn(async () => json({ error: 'Failed to fetch token data' }, 500)),
    );
    expect((await failureOf(apiFetch('/api/x'))).message).toBe('Failed to fetch token data');
  });

  it('when the JSON body has no error field, then the message is "HTTP {status}"', async () => {
    vi.stubGlobal(
      'fetch',
      vi.fn(async () => json({}, 503)),
    );
    const err = await failureOf(apiFetch('/api/x'));
    expect(err.status).toBe(503);
    expect(err.message).toBe('HTTP 503');
  });

  it('when the body is not JSON, then the message is "Unknown error"', async () => {
    vi.stubGlobal(
      'fetch',
      vi.fn(async () => text('<html>Bad Gateway</html>', 502)),
    );
    const err = await failureOf(apiFetch('/api/x'));
    expect(err.status).toBe(502);
    expect(err.message).toBe('Unknown error');
  });

  it('when a 401 names no reason, then the message is "No active session"', async () => {
    vi.stubGlobal(
      'fetch',
      vi.fn(async () => text('', 401)),
    );
    expect((await failureOf(apiFetch('/api/x'))).message).toBe('No active session');
    expect(apiErrorMessage(401, {})).toBe('No active session');
    expect(apiErrorMessage(401, NOT_JSON)).toBe('No active session');
    expect(apiErrorMessage(401, { message: 'token expired' })).toBe('token expired');
  });

  it('when a page asks for a token while signed out, then it gets 401 "No active session"', async () => {
    let seen: unknown;
    // The static provider mirrors the session client (packages/contracts/src/session-client.ts).
    function Grab() {
      const { accessToken } = useAuth();
      void accessToken().catch((e: unknown) => {
        seen = e;
      });
      return null;
    }
    render(
      <StaticAuthProvider user={null}>
        <Grab />
      </StaticAuthProvider>,
    );
    await waitFor(() => expect(seen).toBeTruthy());
    expect((seen as { status: number }).status).toBe(401);
    expect((seen as Error).message).toBe('No active session');
  });
});

describe('Credentials panel (spec §8)', () => {
  it('when GET /api/nats fails with the server message, then the panel is headed "Failed to load credentials" with that message, the hint, Refresh Page and Retry', async () => {
    vi.stubGlobal(
      'fetch',
      vi.fn(async () => json({ status: 500, code: 'internal', message: 'Failed to fetch NATS credentials' }, 500)),
    );
    wrap(<Overview />);
    const panel = await screen.findByTestId('credentials-error');
    within(panel).getByRole('heading', { name: 'Failed to load credentials' });
    expect(within(panel).getByTestId('credentials-error-message').textContent).toBe('Failed to fetch NATS credentials');
    expect(panel.textContent).toContain('If you just completed payment or registration, please wait a moment and refresh the page');
    within(panel).getByRole('button', { name: 'Refresh Page' });
    within(panel).getByRole('button', { name: 'Retry' });
  });

  it('when the server gives no reason, then the fallback "Failed to fetch credentials." is shown', async () => {
    vi.stubGlobal(
      'fetch',
      vi.fn(async () => text('gateway timeout', 504)),
    );
    wrap(<Overview />);
    const message = await screen.findByTestId('credentials-error-message');
    expect(message.textContent).toBe('Failed to fetch credentials. (Unknown error)');
    expect(message.textContent!.startsWith('Failed to fetch credentials.')).toBe(true);
  });

  it('when the answer lacks the connection details, then "Failed to fetch connection details" is shown', async () => {
    vi.stubGlobal(
      'fetch',
      vi.fn(async () => json({ ...CREDS, ws_connection: '' })),
    );
    wrap(<Overview />);
    expect((await screen.findByTestId('credentials-error-message')).textContent).toBe('Failed to fetch connection details');
  });

  it('credentialsErrorText: server text, then the fallbacks', () => {
    expect(credentialsErrorText(new ApiError(400, 'invalid_argument', 'bad plan'))).toBe('bad plan');
    expect(credentialsErrorText(new ApiError(500, '500', 'HTTP 500'))).toBe('Failed to fetch credentials. (HTTP 500)');
    expect(credentialsErrorText(new Error(''))).toBe('Failed to fetch credentials.');
    expect(credentialsErrorText('boom')).toBe('An unknown error occurred.');
    expect(credentialsErrorText(undefined)).toBe('An unknown error occurred.');
    expect(() => requireConnectionDetails(null)).toThrow('Failed to fetch connection details');
    expect(requireConnectionDetails(CREDS)).toBe(CREDS);
  });

  it('when Refresh Page is pressed, then the whole page reloads', () => {
    const reload = vi.fn();
    const retry = vi.fn();
    render(<CredentialsLoadError message="x" onRetry={retry} onReloadPage={reload} />);
    fireEvent.click(screen.getByRole('button', { name: 'Refresh Page' }));
    expect(reload).toHaveBeenCalledTimes(1);
    expect(retry).not.toHaveBeenCalled();
  });

  it('when reloading fails while credentials are shown, then "Failed to refresh credentials" appears above them', async () => {
    let calls = 0;
    vi.stubGlobal(
      'fetch',
      vi.fn(async () => {
        calls += 1;
        return calls === 1 ? json(CREDS) : json({ status: 500, code: 'internal', message: 'Failed to fetch NATS credentials' }, 500);
      }),
    );
    function Shell() {
      const [refreshKey, setKey] = useState(0);
      return (
        <>
          <button type="button" onClick={() => setKey((k) => k + 1)}>
            bump
          </button>
          <Outlet context={{ refreshKey, planDataRefreshKey: refreshKey } satisfies DashboardContext} />
        </>
      );
    }
    render(
      <MemoryRouter initialEntries={['/dashboard']}>
        <StaticAuthProvider user={testUser()}>
          <Routes>
            <Route path="/dashboard" element={<Shell />}>
              <Route index element={<Overview />} />
            </Route>
          </Routes>
        </StaticAuthProvider>
      </MemoryRouter>,
    );
    await screen.findByLabelText('User JWT');
    fireEvent.click(screen.getByRole('button', { name: 'bump' }));
    const alert = await screen.findByTestId('credentials-refresh-error');
    expect(alert.textContent).toContain('Failed to refresh credentials. Failed to fetch NATS credentials');
    expect(screen.getByLabelText('User JWT')).toBeTruthy(); // the earlier credentials stay
    expect(calls).toBe(2);
  });
});

describe('Subscription page (spec §8)', () => {
  it('when there is no signed-in user, then it says "User not authenticated"', () => {
    vi.stubGlobal(
      'fetch',
      vi.fn(async () => json(SUB)),
    );
    wrap(<PlanPage />, null);
    expect(screen.getByTestId('subscription-error').textContent).toBe('User not authenticated');
  });

  it('when get-subscription fails, then "Failed to load subscription details" with Retry, and Retry loads again', async () => {
    let calls = 0;
    vi.stubGlobal(
      'fetch',
      vi.fn(async () => {
        calls += 1;
        return calls === 1 ? json({ status: 503, code: 'unavailable', message: 'billing is unavailable' }, 503) : json(SUB);
      }),
    );
    wrap(<PlanPage />, testUser({ plan: 'plus' }, { tier: 'plus', billing_period: 'monthly', subscription_type: 'paid' }));
    const error = await screen.findByTestId('subscription-error');
    within(error).getByRole('heading', { name: 'Failed to load subscription details' });
    expect(error.textContent).toBe('Failed to load subscription detailsbilling is unavailable');
    fireEvent.click(screen.getByRole('button', { name: 'Retry' }));
    await screen.findByRole('heading', { name: 'Current plan' });
    expect(calls).toBe(2);
  });

  it('when the billing portal cannot be opened, then "Failed to open billing portal. Please try again." is shown', async () => {
    vi.stubGlobal(
      'fetch',
      vi.fn(async (url: string) =>
        url === '/api/get-subscription' ? json(SUB) : json({ status: 404, code: 'not_found', message: 'No billing account yet' }, 404),
      ),
    );
    wrap(<PlanPage />, testUser({ plan: 'plus' }, { tier: 'plus', billing_period: 'monthly', subscription_type: 'paid' }));
    fireEvent.click(await screen.findByRole('button', { name: 'Manage billing' }));
    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toBe('Failed to open billing portal. Please try again. (No billing account yet)');
  });
});

describe('Clipboard failure (spec §8)', () => {
  it('when both the Clipboard API and the textarea fallback fail, then the example says "Please manually copy the code"', async () => {
    Object.defineProperty(navigator, 'clipboard', {
      value: { writeText: vi.fn(async () => Promise.reject(new Error('denied'))) },
      configurable: true,
      writable: true,
    });
    const exec = vi.fn(() => false);
    Object.defineProperty(document, 'execCommand', { value: exec, configurable: true, writable: true });
    wrap(<ConnectionDetails credentials={CREDS} />);
    await act(async () => {
      fireEvent.click(screen.getByRole('button', { name: 'Copy example' }));
    });
    expect(exec).toHaveBeenCalledWith('copy'); // the hidden-textarea fallback was tried
    const alert = screen.getByRole('alert');
    expect(alert.textContent!.startsWith('Please manually copy the code')).toBe(true);
  });

  it('copyFailedText starts with the spec texts', () => {
    expect(copyFailedText('text').startsWith('Please manually copy the text')).toBe(true);
    expect(copyFailedText('code').startsWith('Please manually copy the code')).toBe(true);
  });
});

describe('Plan actions by tier (spec §4: "Pro can only manage it. The upgrade button is hidden for Pro.")', () => {
  it('when the subscriber is on Plus, then the plan page offers Upgrade and Manage billing', async () => {
    vi.stubGlobal(
      'fetch',
      vi.fn(async () => json(SUB)),
    );
    wrap(<PlanPage />, testUser({ plan: 'plus' }, { tier: 'plus', billing_period: 'monthly', subscription_type: 'paid' }));
    await screen.findByRole('button', { name: 'Manage billing' });
    expect(screen.getByRole('button', { name: 'Upgrade' })).toBeTruthy();
  });

  it('when the subscriber is on Pro, then the plan page has no upgrade button, only Manage billing', async () => {
    vi.stubGlobal(
      'fetch',
      vi.fn(async () => json({ ...SUB, tier: 'pro', effective_plan: 'pro' })),
    );
    wrap(<PlanPage />, testUser({ plan: 'pro' }, { tier: 'pro', billing_period: 'monthly', subscription_type: 'paid' }));
    await screen.findByRole('button', { name: 'Manage billing' });
    expect(screen.queryByRole('button', { name: /upgrade|plan options/i })).toBeNull();
  });

  it('when a Pro user opens the overview, then its quick action manages the subscription instead of upgrading', async () => {
    vi.stubGlobal(
      'fetch',
      vi.fn(async () => json({ ...CREDS, plan: 'pro' })),
    );
    wrap(<Overview />, testUser({ plan: 'pro' }, { tier: 'pro', billing_period: 'monthly', subscription_type: 'paid' }));
    const manage = await screen.findByRole('link', { name: 'Manage subscription' });
    expect(manage.getAttribute('href')).toBe('/dashboard/plan');
    expect(screen.queryByRole('button', { name: /upgrade|plan options/i })).toBeNull();
  });
});
