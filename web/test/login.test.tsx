import { render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { MemoryRouter, Route, Routes, useLocation } from 'react-router';
import { StaticAuthProvider } from '../src/session/session';
import Login from '../src/pages/Login';
import type { User } from '../src/api';
import { json, testUser } from './dashboard-fixtures';

function Probe() {
  const l = useLocation();
  return <div data-testid="location">{l.pathname + l.search}</div>;
}

function renderLogin(path: string, user: User | null = null, provider: unknown = { provider: 'google', label: 'Sign in with Google', local: false }) {
  vi.stubGlobal(
    'fetch',
    vi.fn(async (url: string) => {
      expect(url).toBe('/auth/provider');
      return json(provider);
    }),
  );
  return render(
    <MemoryRouter initialEntries={[path]}>
      <StaticAuthProvider user={user}>
        <Routes>
          <Route path="/login" element={<Login />} />
          <Route path="*" element={<Probe />} />
        </Routes>
      </StaticAuthProvider>
    </MemoryRouter>,
  );
}

afterEach(() => vi.unstubAllGlobals());

describe('/login', () => {
  it('shows the selected plan and links the button to /auth/login with tier and period', async () => {
    renderLogin('/login?tier=plus&period=yearly');
    const button = await screen.findByRole('link', { name: 'Sign in with Google' });
    expect(button.getAttribute('href')).toBe('/auth/login?tier=plus&period=yearly');
    expect(screen.getByTestId('login-plan-banner').textContent).toContain('Plus — $12/month billed yearly');
    expect(screen.getAllByRole('heading', { level: 1 }).map((h) => h.textContent)).toEqual(['Sign in to Tradewind']);
  });

  it('ignores invalid parameters with a notice', async () => {
    renderLogin('/login?tier=gold&period=weekly');
    expect((await screen.findByRole('link', { name: 'Sign in with Google' })).getAttribute('href')).toBe('/auth/login');
    expect(screen.getByTestId('login-invalid-plan').textContent).toContain('“gold” is not a Tradewind plan, so it was ignored.');
    expect(screen.queryByTestId('login-plan-banner')).toBeNull();
  });

  it('keeps a valid tier when only the period is invalid', async () => {
    renderLogin('/login?tier=pro&period=weekly');
    expect((await screen.findByRole('link', { name: 'Sign in with Google' })).getAttribute('href')).toBe('/auth/login?tier=pro');
    expect(screen.getByTestId('login-plan-banner').textContent).toContain('Pro — $35/month');
    expect(screen.getByTestId('login-invalid-plan').textContent).toContain('“weekly” is not a billing period, so it was ignored.');
  });

  it('shows the setup-required notice and the error from auth', async () => {
    renderLogin('/login?tier=plus&message=setup-required&error=invalid_state&error_description=The%20sign-in%20attempt%20expired');
    await screen.findByRole('link', { name: 'Sign in with Google' });
    expect(screen.getByRole('alert').textContent).toBe('Failed to sign in with Google. Please try again. The sign-in attempt expired');
    expect(screen.getByText('Finish setting up your account.')).toBeTruthy();
  });

  it('when auth redirects back with an error and no description, then an inline alert shows the spec text and the reason', async () => {
    renderLogin('/login?error=access_denied');
    await screen.findByRole('link', { name: 'Sign in with Google' });
    const alert = screen.getByRole('alert');
    expect(alert.textContent).toBe('Failed to sign in with Google. Please try again. Sign-in was cancelled.');
  });

  it('labels the local provider as the local stand-in, not Google', async () => {
    renderLogin('/login', null, { provider: 'local-oidc', label: 'Local sign-in (development provider, not Google)', local: true });
    expect(await screen.findByRole('link', { name: 'Local sign-in (development provider, not Google)' })).toBeTruthy();
    expect(screen.getByRole('note').textContent).toContain('local sign-in stand-in');
  });

  it('sends signed-in users on', () => {
    renderLogin('/login?tier=pro&period=yearly', testUser());
    expect(screen.getByTestId('location').textContent).toBe('/payment?tier=pro&period=yearly');
  });

  it('sends signed-in users without a paid tier to /dashboard', () => {
    renderLogin('/login?tier=starter', testUser());
    expect(screen.getByTestId('location').textContent).toBe('/dashboard');
  });
});
