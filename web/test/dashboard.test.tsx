import { act, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { MemoryRouter, Route, Routes, useLocation } from 'react-router';
import { useState as useStateHook, type ReactNode } from 'react';
import { SessionProvider, type AuthState } from '../src/session/session';
import type { SessionClient } from '@tradewind/contracts/session-client';
import { ThemeProvider } from '../src/theme';
import { ToastProvider } from '../src/components/Toast';
import { SecretField } from '../src/components/dashboard/SecretField';
import { UpgradeModal } from '../src/components/dashboard/UpgradeModal';
import { COPY_FAILED_HOW, COPY_FAILED_MESSAGE } from '../src/lib/clipboard';
import { MASK } from '../src/lib/credentials';
import Overview from '../src/pages/dashboard/Overview';
import Settings from '../src/pages/dashboard/Settings';
import DashboardLayout, { sectionLabel } from '../src/pages/dashboard/DashboardLayout';
import { Avatar, avatarInitials } from '../src/components/Avatar';
import type { User } from '../src/api';
import { json, renderInDashboard as wrap, testCredentials as CREDS, testUser } from './dashboard-fixtures';

function setClipboard(value: unknown) {
  Object.defineProperty(navigator, 'clipboard', { value, configurable: true, writable: true });
}
function setExecCommand(fn: unknown) {
  Object.defineProperty(document, 'execCommand', { value: fn, configurable: true, writable: true });
}

afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllGlobals();
  setClipboard(undefined);
  setExecCommand(undefined);
  localStorage.clear();
});

describe('SecretField copy', () => {
  it('shows "Copied" for exactly 2000 ms', async () => {
    vi.useFakeTimers();
    const writeText = vi.fn(async () => undefined);
    setClipboard({ writeText });
    wrap(<SecretField label="NKey seed" value="SUSECRET" secret />);
    const button = screen.getByRole('button', { name: 'Copy NKey seed' });
    await act(async () => {
      fireEvent.click(button);
    });
    expect(writeText).toHaveBeenCalledWith('SUSECRET');
    expect(button.textContent).toBe('Copied');
    act(() => vi.advanceTimersByTime(1999));
    expect(button.textContent).toBe('Copied');
    act(() => vi.advanceTimersByTime(1));
    expect(button.textContent).toBe('Copy');
  });

  it('uses the textarea fallback when the Clipboard API is missing', async () => {
    const exec = vi.fn(() => true);
    setExecCommand(exec);
    wrap(<SecretField label="User JWT" value="eyJ.x.y" secret />);
    const button = screen.getByRole('button', { name: 'Copy User JWT' });
    await act(async () => {
      fireEvent.click(button);
    });
    expect(exec).toHaveBeenCalledWith('copy');
    expect(button.textContent).toBe('Copied');
    expect(screen.queryByRole('alert')).toBeNull();
  });

  it('shows an alert asking to copy manually when both methods fail', async () => {
    setClipboard({ writeText: vi.fn(async () => Promise.reject(new Error('denied'))) });
    setExecCommand(vi.fn(() => false));
    wrap(<SecretField label="User JWT" value="eyJ.x.y" secret />);
    const button = screen.getByRole('button', { name: 'Copy User JWT' });
    await act(async () => {
      fireEvent.click(button);
    });
    expect(button.textContent).toBe('Copy');
    const alert = screen.getByRole('alert').textContent!;
    expect(alert.startsWith('Please manually copy the text')).toBe(true);
    expect(alert).toBe(`${COPY_FAILED_MESSAGE}. ${COPY_FAILED_HOW} Press Show first to reveal the value.`);
  });
});

describe('Overview', () => {
  beforeEach(() => {
    vi.stubGlobal(
      'fetch',
      vi.fn(async (url: string, init?: RequestInit) => {
        expect(url).toBe('/api/nats');
        expect((init?.headers as Record<string, string>).authorization).toBe('Bearer test-access-token');
        return json(CREDS);
      }),
    );
  });

  it('renders masked secrets, shows/hides them and toggles WebSocket/NATS', async () => {
    wrap(<Overview />, { user: testUser({ plan: 'plus' }, { tier: 'plus', billing_period: 'monthly', subscription_type: 'paid' }) });
    const jwt = (await screen.findByLabelText('User JWT')) as HTMLInputElement;
    const seed = screen.getByLabelText('NKey seed') as HTMLInputElement;
    expect(jwt.value).toBe(MASK);
    expect(seed.value).toBe(MASK);
    expect(jwt.readOnly).toBe(true);
    expect((screen.getByLabelText('WebSocket URL') as HTMLInputElement).value).toBe('ws://localhost:9223');

    const show = screen.getByRole('button', { name: 'Show NKey seed' });
    expect(show.getAttribute('aria-pressed')).toBe('false');
    fireEvent.click(show);
    expect(seed.value).toBe(CREDS.user_nkey_seed);
    const hide = screen.getByRole('button', { name: 'Hide NKey seed' });
    expect(hide.getAttribute('aria-pressed')).toBe('true');
    expect(jwt.value).toBe(MASK); // the other secret stays masked
    fireEvent.click(hide);
    expect(seed.value).toBe(MASK);

    fireEvent.click(screen.getByRole('radio', { name: 'NATS' }));
    expect((screen.getByLabelText('NATS URL') as HTMLInputElement).value).toBe('nats://localhost:4223');
    expect(screen.queryByLabelText('WebSocket URL')).toBeNull();
    expect(screen.getByText(/nats sub 'basic\.pumpfun' --server nats:\/\/localhost:4223 --creds \.\/tradewind\.creds/)).toBeTruthy();

    // plan summary from the credentials
    expect(screen.getByTestId('plan-connections').textContent).toBe('1 per transport');
    expect(screen.getByTestId('plan-rpm').textContent).toBe('1,000');
  });

  it('shows the server message and retries', async () => {
    let calls = 0;
    vi.stubGlobal(
      'fetch',
      vi.fn(async () => {
        calls += 1;
        return calls === 1 ? json({ error: 'internal', message: 'Failed to fetch NATS credentials' }, 500) : json(CREDS);
      }),
    );
    wrap(<Overview />);
    const alert = await screen.findByRole('alert');
    within(alert).getByRole('heading', { name: 'Failed to load credentials' });
    expect(alert.textContent).toBe('Failed to load credentialsFailed to fetch NATS credentials');
    fireEvent.click(screen.getByRole('button', { name: 'Retry' }));
    expect(await screen.findByLabelText('User JWT')).toBeTruthy();
    expect(calls).toBe(2);
  });
});

describe('UpgradeModal keyboard', () => {
  function Harness({ tier }: { tier: string }) {
    return (
      <>
        <button type="button" id="opener">
          Open
        </button>
        <UpgradeModal tier={tier} period="monthly" onClose={onClose} />
      </>
    );
  }
  const onClose = vi.fn();

  it('focuses inside, traps Tab and Shift+Tab, closes on Escape', async () => {
    onClose.mockClear();
    const user = userEvent.setup();
    wrap(<Harness tier="starter" />);
    const dialog = screen.getByRole('dialog', { name: 'Upgrade your plan' });
    expect(dialog.getAttribute('aria-modal')).toBe('true');
    const close = within(dialog).getByRole('button', { name: 'Close dialog' });
    expect(document.activeElement).toBe(close);
    expect(
      within(dialog)
        .getAllByRole('radio')
        .map((r) => (r as HTMLInputElement).value),
    ).toEqual(['plus', 'pro']);
    // Confirm is disabled (no plan chosen), so Cancel is the last focusable element.
    const last = within(dialog).getByRole('button', { name: 'Cancel' });
    await user.tab({ shift: true });
    expect(document.activeElement).toBe(last);
    await user.tab();
    expect(document.activeElement).toBe(close);
    await user.click(within(dialog).getByRole('button', { name: 'Annual' }));
    expect(within(dialog).getByRole('button', { name: 'Annual' }).getAttribute('aria-pressed')).toBe('true');
    await user.keyboard('{Escape}');
    expect(onClose).toHaveBeenCalledTimes(1);
  });

  it('returns focus to the opener when it closes', async () => {
    function Opener() {
      const [open, setOpen] = useStateHook(false);
      return (
        <>
          <button type="button" onClick={() => setOpen(true)}>
            Upgrade
          </button>
          {open ? <UpgradeModal tier="plus" period="monthly" onClose={() => setOpen(false)} /> : null}
        </>
      );
    }
    vi.stubGlobal(
      'fetch',
      vi.fn(async () =>
        json({
          tier: 'pro',
          period: 'monthly',
          kind: 'proration',
          amount_due_cents: 1333,
          currency: 'usd',
          lines: [],
          next_billing_date: null,
          proration_date: 1,
        }),
      ),
    );
    const user = userEvent.setup();
    wrap(<Opener />);
    const opener = screen.getByRole('button', { name: 'Upgrade' });
    await user.click(opener);
    expect(screen.getByRole('dialog')).toBeTruthy();
    expect(screen.getAllByRole('radio').map((r) => (r as HTMLInputElement).value)).toEqual(['pro']);
    expect(await screen.findByText('You will be charged $13.33 now (prorated)')).toBeTruthy();
    await user.keyboard('{Escape}');
    expect(screen.queryByRole('dialog')).toBeNull();
    expect(document.activeElement).toBe(opener);
  });

  it('on Pro offers nothing and points to /community', () => {
    wrap(<Harness tier="pro" />);
    const dialog = screen.getByRole('dialog', { name: 'You are on our top plan' });
    expect(within(dialog).getByRole('link', { name: 'Need more connections? Talk to us' }).getAttribute('href')).toBe('/community');
    expect(within(dialog).queryByRole('button', { name: 'Yearly' })).toBeNull();
  });
});

function LocationProbe() {
  const location = useLocation();
  return <div data-testid="location">{location.pathname + location.search}</div>;
}

describe('DashboardLayout gating', () => {
  function renderAt(status: AuthState['status'], path = '/dashboard') {
    const user = status === 'signed-in' ? testUser() : null;
    // StaticAuthProvider covers signed-in/out; loading needs a custom value.
    if (status === 'loading') {
      return render(
        <MemoryRouter initialEntries={[path]}>
          <LoadingAuth>
            <ThemeProvider>
              <ToastProvider>
                <Routes>
                  <Route path="/dashboard" element={<DashboardLayout />}>
                    <Route index element={<p>secret content</p>} />
                  </Route>
                  <Route path="/login" element={<p>login page</p>} />
                </Routes>
              </ToastProvider>
            </ThemeProvider>
          </LoadingAuth>
        </MemoryRouter>,
      );
    }
    return wrap(
      <Routes>
        <Route path="/dashboard" element={<DashboardLayout />}>
          <Route index element={<p>secret content</p>} />
        </Route>
        <Route path="/login" element={<LocationProbe />} />
      </Routes>,
      { user, path },
    );
  }

  it('shows a spinner while loading and never the content', () => {
    renderAt('loading');
    expect(screen.getByRole('status').textContent).toContain('Loading your dashboard…');
    expect(screen.queryByText('secret content')).toBeNull();
  });

  it('redirects signed-out visitors to /login without parameters', () => {
    renderAt('signed-out', '/dashboard?checkout=success&session_id=cs_1');
    expect(screen.getByTestId('location').textContent).toBe('/login');
  });

  it('renders the sidebar and the page when signed in', () => {
    vi.stubGlobal(
      'fetch',
      vi.fn(async () => json({ notifications: [], unread: 0 })),
    );
    renderAt('signed-in');
    expect(screen.getByText('secret content')).toBeTruthy();
    const nav = screen.getByRole('navigation', { name: 'Dashboard sections' });
    // The product spec's labels (dashboard shell): Dashboard, Plan, Docs, Settings.
    expect(
      within(nav)
        .getAllByRole('link')
        .map((a) => [a.textContent, a.getAttribute('href')]),
    ).toEqual([
      ['Dashboard', '/dashboard'],
      ['Plan', '/dashboard/plan'],
      ['Docs', '/dashboard/docs'],
      ['Settings', '/dashboard/settings'],
      ['Usage', '/dashboard/usage'],
      ['Live', '/dashboard/live'],
      ['Back to the website', '/'],
    ]);
    const sidebar = document.getElementById('dash-sidebar')!;
    expect(within(sidebar).getByTestId('avatar').textContent).toBe('AL');
    expect(within(sidebar).getByTestId('user-display-name').textContent).toBe('Ada Lovelace');
    expect(within(sidebar).getByTestId('user-plan-label').textContent).toBe('Starter plan');
    expect(within(sidebar).getByRole('button', { name: 'Sign out' })).toBeTruthy();
    expect(within(sidebar).getByRole('button', { name: 'Switch to dark theme' })).toBeTruthy();
    const collapse = screen.getByRole('button', { name: 'Collapse sidebar' });
    fireEvent.click(collapse);
    expect(collapse.getAttribute('aria-pressed')).toBe('true');
    expect(localStorage.getItem('tw-dashboard-sidebar-collapsed')).toBe('1');
  });

  it('on return from checkout shows the toast, polls the subscription and cleans the URL', async () => {
    vi.useFakeTimers();
    const fetchMock = vi.fn(async () =>
      json({
        tier: 'starter',
        billing_period: 'indefinite',
        status: 'active',
        next_billing_date: null,
        cancel_at_period_end: false,
        cancel_at: null,
        subscription_type: 'free',
        effective_plan: 'starter',
      }),
    );
    // The top bar's notification bell loads too; fetchMock counts the other (get-subscription) calls.
    vi.stubGlobal(
      'fetch',
      vi.fn(async (url: string) => (url.startsWith('/auth/notifications') ? json({ notifications: [], unread: 0 }) : fetchMock())),
    );
    wrap(
      <Routes>
        <Route path="/dashboard" element={<DashboardLayout />}>
          <Route index element={<LocationProbe />} />
        </Route>
      </Routes>,
      { path: '/dashboard?checkout=success&session_id=cs_test_1' },
    );
    await act(async () => {});
    expect(screen.getByText('Payment Successful!')).toBeTruthy();
    expect(screen.getByTestId('location').textContent).toBe('/dashboard');
    // The spec's 2 s wait before the first refresh.
    expect(fetchMock).toHaveBeenCalledTimes(0);
    await act(async () => {
      await vi.advanceTimersByTimeAsync(2000);
    });
    expect(fetchMock).toHaveBeenCalledTimes(1);
    // The toast shows for 5 s.
    await act(async () => {
      await vi.advanceTimersByTimeAsync(3100);
    });
    expect(screen.queryByText('Payment Successful!')).toBeNull();
    await act(async () => {
      await vi.advanceTimersByTimeAsync(60_000);
    });
    expect(fetchMock).toHaveBeenCalledTimes(31); // after the wait: 0, 2, …, 60 s
    await act(async () => {
      await vi.advanceTimersByTimeAsync(10_000);
    });
    expect(fetchMock).toHaveBeenCalledTimes(31);
  });
});

/** A session that never finishes loading (refresh never answers). */
function LoadingAuth({ children }: { children: ReactNode }) {
  const client: SessionClient<User> = {
    session: () => null,
    setSession: () => undefined,
    refresh: () => new Promise<never>(() => undefined),
    accessToken: () => new Promise<never>(() => undefined),
    signOut: async () => undefined,
    dispose: () => undefined,
  };
  return <SessionProvider client={client}>{children}</SessionProvider>;
}

describe('Settings tabs', () => {
  it('has accessible tabs moved with the arrow keys', async () => {
    vi.stubGlobal(
      'fetch',
      vi.fn(async () => json({ plan_changes: true, payments: true, credentials: true, connection_limits: true })),
    );
    const user = userEvent.setup();
    wrap(<Settings />, { path: '/dashboard/settings' });
    const tabs = screen.getAllByRole('tab');
    expect(tabs.map((t) => t.textContent)).toEqual(['Profile', 'Security', 'Connection Details', 'Notifications']);
    expect(tabs[0]!.getAttribute('aria-selected')).toBe('true');
    expect(screen.getByRole('tabpanel').getAttribute('aria-labelledby')).toBe(tabs[0]!.id);
    expect((screen.getByLabelText('E-mail') as HTMLInputElement).value).toBe('ada@example.com');
    tabs[0]!.focus();
    await user.keyboard('{ArrowLeft}');
    const notif = screen.getByRole('tab', { name: 'Notifications' });
    expect(notif.getAttribute('aria-selected')).toBe('true');
    expect(document.activeElement).toBe(notif);
    // The Notifications tab loads the stored preferences (web/test/settings.test.tsx covers saving).
    expect(await screen.findAllByRole('checkbox')).toHaveLength(4);
    screen.getByRole('tab', { name: 'Notifications' }).focus();
    await user.keyboard('{Home}');
    expect(screen.getByRole('tab', { name: 'Profile' }).getAttribute('aria-selected')).toBe('true');
    await user.keyboard('{ArrowRight}');
    expect(screen.getByRole('tab', { name: 'Security' }).getAttribute('aria-selected')).toBe('true');
  });

  it('rotates credentials after confirmation and shows the new values', async () => {
    const fetchMock = vi.fn(async (_url: string, init?: RequestInit) => {
      expect(init?.method).toBe('POST');
      return json({ ...CREDS, user_nkey_seed: 'SUNEWSEED' });
    });
    vi.stubGlobal('fetch', fetchMock);
    const user = userEvent.setup();
    wrap(<Settings />, { path: '/dashboard/settings?tab=security' });
    await user.click(screen.getByRole('button', { name: 'Rotate credentials' }));
    const dialog = screen.getByRole('dialog', { name: 'Rotate credentials?' });
    expect(dialog.textContent).toContain('Every WebSocket and NATS connection using them is dropped');
    expect(fetchMock).not.toHaveBeenCalled();
    await user.click(within(dialog).getByRole('button', { name: 'Rotate now' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(fetchMock).toHaveBeenCalledTimes(1);
    await user.click(screen.getByRole('button', { name: 'Show NKey seed' }));
    expect((screen.getByLabelText('NKey seed') as HTMLInputElement).value).toBe('SUNEWSEED');
  });

  it('shows the 429 message of a refused rotation', async () => {
    vi.stubGlobal(
      'fetch',
      vi.fn(async () => json({ error: 'resource_exhausted', message: 'Too many rotations; try again after 2026-11-22T10:00:00Z' }, 429)),
    );
    const user = userEvent.setup();
    wrap(<Settings />, { path: '/dashboard/settings?tab=security' });
    await user.click(screen.getByRole('button', { name: 'Rotate credentials' }));
    await user.click(screen.getByRole('button', { name: 'Rotate now' }));
    expect((await screen.findByRole('alert')).textContent).toBe('Could not rotate the credentials: Too many rotations; try again after 2026-11-22T10:00:00Z');
  });
});

describe('Sidebar drawer (≤ 860 px)', () => {
  it('opens from the menu button, takes focus, makes the page behind inert, closes on Escape, its close button or the backdrop and returns focus', async () => {
    vi.stubGlobal(
      'fetch',
      vi.fn(async () => json({ notifications: [], unread: 0 })),
    );
    vi.stubGlobal('matchMedia', (query: string) => ({
      matches: query === '(max-width: 860px)',
      media: query,
      addEventListener: () => undefined,
      removeEventListener: () => undefined,
    }));
    const user = userEvent.setup();
    wrap(
      <Routes>
        <Route path="/dashboard" element={<DashboardLayout />}>
          <Route index element={<p>content</p>} />
        </Route>
      </Routes>,
    );
    const menu = screen.getByRole('button', { name: 'Open dashboard menu' });
    expect(menu.getAttribute('aria-expanded')).toBe('false');
    expect(document.getElementById('dash-sidebar')!.hasAttribute('inert')).toBe(true);
    const column = document.querySelector('.dash-column')!;
    expect(column.hasAttribute('inert')).toBe(false);
    await user.click(menu);
    expect(menu.getAttribute('aria-expanded')).toBe('true');
    expect(document.getElementById('dash-sidebar')!.hasAttribute('inert')).toBe(false);
    expect(column.hasAttribute('inert'), 'the page behind an open drawer takes no focus').toBe(true);
    expect(document.activeElement?.textContent).toBe('Dashboard');
    await user.keyboard('{Escape}');
    expect(menu.getAttribute('aria-expanded')).toBe('false');
    expect(column.hasAttribute('inert')).toBe(false);
    expect(document.activeElement).toBe(menu);
    await user.click(menu);
    await user.click(within(document.getElementById('dash-sidebar')!).getByRole('button', { name: 'Close dashboard menu' }));
    expect(menu.getAttribute('aria-expanded')).toBe('false');
    expect(document.activeElement).toBe(menu);
    await user.click(menu);
    await user.click(screen.getByTestId('dash-backdrop'));
    expect(menu.getAttribute('aria-expanded')).toBe('false');
  });
});

describe('Dashboard shell', () => {
  const narrow = (query: string) => ({
    matches: query === '(max-width: 860px)',
    media: query,
    addEventListener: () => undefined,
    removeEventListener: () => undefined,
  });

  it('when narrow, then the top bar is one row holding the menu button, the section name, the bell with its count and the avatar linking to the profile', async () => {
    vi.stubGlobal('matchMedia', narrow);
    vi.stubGlobal(
      'fetch',
      vi.fn(async () =>
        json({
          notifications: [
            { id: 'n2', kind: 'payment_failed', title: 'Payment failed', body: 'b', created_at: '2026-11-21T10:00:00.000Z', read_at: null, link: null },
            { id: 'n1', kind: 'plan_changed', title: 'Plan changed', body: 'b', created_at: '2026-11-20T10:00:00.000Z', read_at: null, link: null },
          ],
          unread: 2,
        }),
      ),
    );
    wrap(
      <Routes>
        <Route path="/dashboard" element={<DashboardLayout />}>
          <Route path="settings" element={<p>settings page</p>} />
        </Route>
      </Routes>,
      { path: '/dashboard/settings' },
    );
    const bar = screen.getByRole('banner');
    await within(bar).findByRole('button', { name: 'Notifications, 2 unread' });
    const controls = Array.from(bar.querySelectorAll('button, a, .dash-topbar-title')).map((el) => el.getAttribute('aria-label') ?? el.textContent);
    expect(controls).toEqual(['Open dashboard menu', 'Settings', 'Notifications, 2 unread', 'Profile: Ada Lovelace, Starter plan']);
    expect(within(bar).getByRole('link', { name: 'Profile: Ada Lovelace, Starter plan' }).getAttribute('href')).toBe('/dashboard/settings?tab=profile');
    // The main column is not a grid row that stretches the bar (issue 21: ~210 px at 390 px).
    expect(bar.parentElement!.className).toBe('dash-column');
    expect(bar.nextElementSibling!.id).toBe('dash-main');
  });

  it('names the section of each dashboard path', () => {
    expect(sectionLabel('/dashboard')).toBe('Dashboard');
    expect(sectionLabel('/dashboard/')).toBe('Dashboard');
    expect(sectionLabel('/dashboard/plan')).toBe('Plan');
    expect(sectionLabel('/dashboard/docs')).toBe('Docs');
    expect(sectionLabel('/dashboard/settings')).toBe('Settings');
  });
});

describe('Avatar', () => {
  it('when there is no picture, then initials follow the spec: up to 2 name words, else the first 2 letters of the e-mail, else U', () => {
    expect(avatarInitials({ name: 'Ada Lovelace', email: 'x@example.com' })).toBe('AL');
    expect(avatarInitials({ name: 'Jean Claude van Damme' })).toBe('JC');
    expect(avatarInitials({ name: '  ada  ' })).toBe('A');
    expect(avatarInitials({ name: 'élodie durand' })).toBe('ÉD');
    expect(avatarInitials({ name: null, email: 'grace.hopper@example.com' })).toBe('GR');
    expect(avatarInitials({ name: '   ', email: 'q@example.com' })).toBe('Q');
    expect(avatarInitials({ name: '', email: '@example.com' })).toBe('U');
    expect(avatarInitials({ name: null, email: null })).toBe('U');
    expect(avatarInitials(null)).toBe('U');
  });

  it('shows the picture, falls back to the initials when it fails to load, and tries a new picture again', () => {
    const person = { name: 'Ada Lovelace', email: 'ada@example.com', avatar_url: 'https://example.com/a.png' };
    const view = render(<Avatar user={person} />);
    const img = screen.getByTestId('avatar').querySelector('img')!;
    expect(img.getAttribute('src')).toBe('https://example.com/a.png');
    expect(screen.getByTestId('avatar').textContent).toBe('');
    fireEvent.error(img);
    expect(screen.getByTestId('avatar').querySelector('img')).toBeNull();
    expect(screen.getByTestId('avatar').textContent).toBe('AL');
    view.rerender(<Avatar user={{ ...person, avatar_url: 'https://example.com/b.png' }} />);
    expect(screen.getByTestId('avatar').querySelector('img')!.getAttribute('src')).toBe('https://example.com/b.png');
    view.rerender(<Avatar user={{ ...person, avatar_url: null }} />);
    expect(screen.getByTestId('avatar').textContent).toBe('AL');
  });
});

describe('Overview page: welcome, notices and quick actions', () => {
  it('when a Starter user opens it, then it is headed "Dashboard" and its quick actions lead to the plan, the docs, the templates and the settings', async () => {
    vi.stubGlobal(
      'fetch',
      vi.fn(async () => json(CREDS)),
    );
    wrap(<Overview />);
    expect(screen.getByRole('heading', { level: 1 }).textContent).toBe('Dashboard');
    expect(screen.getByText('Welcome, Ada Lovelace. Connect with the details below.')).toBeTruthy();
    const actions = screen.getByRole('region', { name: 'Quick actions' });
    expect(within(actions).getByRole('button', { name: 'Upgrade plan' })).toBeTruthy();
    expect(
      within(actions)
        .getAllByRole('link')
        .map((a) => a.getAttribute('href')),
    ).toEqual(['/dashboard/plan', '/dashboard/docs', '/dashboard/docs#templates', '/dashboard/settings', '/dashboard/settings?tab=security']);
    await screen.findByLabelText('User JWT');
  });

  it("when a payment failed, then the warning shows (it is the account's state, not a notification preference)", async () => {
    vi.stubGlobal(
      'fetch',
      vi.fn(async () => json(CREDS)),
    );
    localStorage.setItem('tw-dashboard-notices', 'off'); // the former browser-only switch no longer hides it
    wrap(<Overview />, { user: testUser({}, { subscription_status: 'past_due' }) });
    expect(screen.getByText(/Stripe could not take your last payment and is retrying/).textContent).toContain('update your card under Plan → Manage billing.');
    await screen.findByLabelText('User JWT');
  });
});
