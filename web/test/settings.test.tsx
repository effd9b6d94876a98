import { render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { MemoryRouter, Route, Routes } from 'react-router';
import type { User } from '../src/api';
import { PREFERENCE_OF_KIND, type AppNotification, type NotificationPreferences } from '../src/lib/notifications';
import { SessionProvider } from '../src/session/session';
import { ThemeProvider } from '../src/theme';
import { ToastProvider } from '../src/components/Toast';
import DashboardLayout from '../src/pages/dashboard/DashboardLayout';
import Settings from '../src/pages/dashboard/Settings';
import { json, renderInDashboard, testUser } from './dashboard-fixtures';

interface Call {
  method: string;
  path: string;
  auth: string | undefined;
  body: unknown;
}

/**
 * An in-memory stand-in for auth at the HTTP level, holding one user and their preferences:
 * `POST /auth/token` (the session, as after a page load), `GET|PATCH /auth/user`,
 * `GET|PUT /auth/notification-preferences`, `GET /auth/notifications` (the kinds the preferences
 * show). PATCH applies
 * the contract's rule (1–100 characters) so a reload shows what was stored. `hold` makes the
 * next request to a path wait until released.
 */
function authServer(
  user: User,
  prefs: NotificationPreferences = { plan_changes: true, payments: true, credentials: true, connection_limits: true },
  notifications: AppNotification[] = [],
) {
  const state = { user: { ...user }, prefs: { ...prefs } };
  const calls: Call[] = [];
  const failures = new Map<string, { status: number; body: unknown }>();
  const holds = new Map<string, Promise<void>>();
  const fetchMock = vi.fn(async (url: string, init?: RequestInit) => {
    const u = new URL(url, 'http://localhost');
    const method = init?.method ?? 'GET';
    const body = init?.body ? JSON.parse(String(init.body)) : undefined;
    const key = `${method} ${u.pathname}`;
    calls.push({ method, path: u.pathname, auth: (init?.headers as Record<string, string> | undefined)?.authorization, body });
    const hold = holds.get(key);
    if (hold) {
      holds.delete(key);
      await hold;
    }
    const failure = failures.get(key);
    if (failure) {
      failures.delete(key);
      return json(failure.body, failure.status);
    }
    switch (key) {
      case 'POST /auth/token':
        return json({
          access_token: 'at-1',
          refresh_token: 'rt-1',
          expires_in: 3600,
          expires_at: Math.floor(Date.now() / 1000) + 3600,
          token_type: 'bearer',
          user: state.user,
        });
      case 'GET /auth/user':
        return json(state.user);
      case 'PATCH /auth/user': {
        const name = String(body.name);
        if (name.length < 1 || name.length > 100) return json({ status: 400, code: 'invalid_argument', message: 'Name must be 1–100 characters' }, 400);
        state.user = { ...state.user, name };
        return json(state.user);
      }
      case 'GET /auth/notification-preferences':
        return json(state.prefs);
      case 'PUT /auth/notification-preferences':
        state.prefs = { ...(body as NotificationPreferences) };
        return json(state.prefs);
      case 'GET /auth/notifications': {
        // Like auth: kinds switched off are kept but not shown.
        const shown = notifications.filter((n) => state.prefs[PREFERENCE_OF_KIND[n.kind]]);
        return json({ notifications: shown, unread: shown.filter((n) => n.read_at === null).length });
      }
      default:
        return json({ code: 'not_found', message: `no route ${key}` }, 404);
    }
  });
  vi.stubGlobal('fetch', fetchMock);
  return {
    state,
    calls,
    fail: (key: string, status: number, body: unknown) => failures.set(key, { status, body }),
    hold: (key: string) => {
      let release!: () => void;
      holds.set(key, new Promise<void>((r) => (release = r)));
      return () => release();
    },
  };
}

/** The dashboard as after a page load: a real SessionProvider (POST /auth/token), the layout and Settings at `path`. */
function renderDashboard(path = '/dashboard/settings?tab=profile') {
  return render(
    <MemoryRouter initialEntries={[path]}>
      <SessionProvider>
        <ThemeProvider>
          <ToastProvider>
            <Routes>
              <Route path="/dashboard" element={<DashboardLayout />}>
                <Route path="settings" element={<Settings />} />
              </Route>
            </Routes>
          </ToastProvider>
        </ThemeProvider>
      </SessionProvider>
    </MemoryRouter>,
  );
}

afterEach(() => {
  vi.unstubAllGlobals();
});

describe('Settings → Profile', () => {
  it('when a new full name is saved, then it is sent to auth, "Profile saved" shows, the sidebar shows it and a reload still has it', async () => {
    const server = authServer(testUser());
    const user = userEvent.setup();
    const view = renderDashboard();
    const name = (await screen.findByLabelText('Full name')) as HTMLInputElement;
    expect(name.value).toBe('Ada Lovelace');
    const save = screen.getByRole('button', { name: 'Save profile' }) as HTMLButtonElement;
    expect(save.disabled).toBe(true); // nothing changed yet

    await user.clear(name);
    await user.type(name, 'Ada King');
    const release = server.hold('PATCH /auth/user');
    await user.click(save);
    const saving = screen.getByRole('button', { name: 'Saving…' }) as HTMLButtonElement;
    expect(saving.disabled).toBe(true);
    release();
    expect((await screen.findByText('Profile saved')).getAttribute('role')).toBe('status');
    expect(server.calls.filter((c) => c.method === 'PATCH').map((c) => [c.path, c.body, c.auth])).toEqual([
      ['/auth/user', { name: 'Ada King' }, 'Bearer at-1'],
    ]);
    // The session's user was reloaded: the sidebar and the top bar name the new name.
    await waitFor(() => expect(screen.getByTestId('user-display-name').textContent).toBe('Ada King'));
    expect(screen.getByRole('link', { name: 'Profile: Ada King, Starter plan' })).toBeTruthy();

    view.unmount();
    renderDashboard();
    expect(((await screen.findByLabelText('Full name')) as HTMLInputElement).value).toBe('Ada King');
    expect(screen.getByTestId('user-display-name').textContent).toBe('Ada King');
  });

  it('when auth refuses the name, then its message is shown and nothing else changes', async () => {
    const server = authServer(testUser());
    const user = userEvent.setup();
    renderDashboard();
    const name = (await screen.findByLabelText('Full name')) as HTMLInputElement;
    await user.clear(name);
    await user.type(name, 'x'.repeat(101));
    await user.click(screen.getByRole('button', { name: 'Save profile' }));
    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toBe('Could not save your profile: Name must be 1–100 characters');
    expect(name.getAttribute('aria-invalid')).toBe('true');
    expect(name.getAttribute('aria-describedby')).toBe(alert.id);
    expect(screen.queryByText('Profile saved')).toBeNull();
    expect(screen.getByTestId('user-display-name').textContent).toBe('Ada Lovelace');
    expect(server.state.user.name).toBe('Ada Lovelace');
  });

  it('shows the e-mail address read-only and says it is the Google sign-in', async () => {
    authServer(testUser());
    renderDashboard();
    const email = (await screen.findByLabelText('E-mail')) as HTMLInputElement;
    expect(email.value).toBe('ada@example.com');
    expect(email.readOnly).toBe(true);
    expect(document.getElementById(email.getAttribute('aria-describedby')!)!.textContent).toBe(
      'This is the Google account you sign in with, so it cannot be changed here.',
    );
  });
});

describe('Settings → Notifications', () => {
  it('when the tab opens, then the four stored preferences load; a change is saved with all four and a reload shows it', async () => {
    const server = authServer(testUser(), { plan_changes: true, payments: true, credentials: false, connection_limits: true });
    const user = userEvent.setup();
    const view = renderInDashboard(<Settings />, { path: '/dashboard/settings?tab=notifications' });
    const boxes = await screen.findAllByRole('checkbox');
    expect(boxes.map((b) => [(b as HTMLInputElement).labels![0]!.textContent, (b as HTMLInputElement).checked])).toEqual([
      ['Plan changes', true],
      ['Payments', true],
      ['Credentials', false],
      ['Connection limits', true],
    ]);
    expect(screen.getByRole('group', { name: /Show a notification in the dashboard’s bell when/ })).toBeTruthy();
    const payments = screen.getByRole('checkbox', { name: 'Payments' });
    expect(payments.getAttribute('aria-describedby')).toBeTruthy();
    expect(document.getElementById(payments.getAttribute('aria-describedby')!)!.textContent).toBe('A payment went through or failed.');
    const save = screen.getByRole('button', { name: 'Save preferences' }) as HTMLButtonElement;
    expect(save.disabled).toBe(true);

    await user.click(payments);
    expect(save.disabled).toBe(false);
    await user.click(save);
    expect((await screen.findByRole('status')).textContent).toBe('Preferences saved');
    expect(server.calls.filter((c) => c.method === 'PUT').map((c) => [c.path, c.body, c.auth])).toEqual([
      ['/auth/notification-preferences', { plan_changes: true, payments: false, credentials: false, connection_limits: true }, 'Bearer test-access-token'],
    ]);
    expect((screen.getByRole('button', { name: 'Save preferences' }) as HTMLButtonElement).disabled).toBe(true);
    expect((screen.getByRole('checkbox', { name: 'Payments' }) as HTMLInputElement).checked).toBe(false);

    view.unmount();
    renderInDashboard(<Settings />, { path: '/dashboard/settings?tab=notifications' });
    expect(((await screen.findByRole('checkbox', { name: 'Payments' })) as HTMLInputElement).checked).toBe(false);
  });

  it('when a kind is switched off and saved, then the bell reloads at once without it', async () => {
    const at = new Date().toISOString();
    authServer(testUser(), undefined, [
      { id: 'n2', kind: 'payment_failed', title: 'Payment failed', body: 'b', created_at: at, read_at: null, link: null },
      { id: 'n1', kind: 'plan_changed', title: 'Plan changed', body: 'b', created_at: at, read_at: null, link: null },
    ]);
    const user = userEvent.setup();
    renderDashboard('/dashboard/settings?tab=notifications');
    await screen.findByRole('button', { name: 'Notifications, 2 unread' });
    await user.click(await screen.findByRole('checkbox', { name: 'Payments' }));
    await user.click(screen.getByRole('button', { name: 'Save preferences' }));
    // Well before the next poll (30 s).
    expect(await screen.findByRole('button', { name: 'Notifications, 1 unread' }, { timeout: 1000 })).toBeTruthy();
    await user.click(screen.getByRole('button', { name: 'Notifications, 1 unread' }));
    const list = within(screen.getByRole('dialog', { name: 'Notifications' })).getByRole('list');
    expect(
      within(list)
        .getAllByRole('listitem')
        .map((li) => li.querySelector('.dash-bell-item-title')!.textContent),
    ).toEqual(['Unread: Plan changed']);
  });

  it('when loading fails, then the server message shows with Retry, which loads them', async () => {
    const server = authServer(testUser());
    server.fail('GET /auth/notification-preferences', 503, { code: 'unavailable', message: 'Preferences are unavailable' });
    const user = userEvent.setup();
    renderInDashboard(<Settings />, { path: '/dashboard/settings?tab=notifications' });
    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toContain('Could not load your notification preferences: Preferences are unavailable');
    expect(screen.queryByRole('checkbox')).toBeNull();
    await user.click(within(alert).getByRole('button', { name: 'Retry' }));
    expect(await screen.findAllByRole('checkbox')).toHaveLength(4);
  });

  it('when saving fails, then the server message shows and the unsaved choice stays', async () => {
    const server = authServer(testUser());
    server.fail('PUT /auth/notification-preferences', 400, { code: 'invalid_argument', message: 'payments must be a boolean' });
    const user = userEvent.setup();
    renderInDashboard(<Settings />, { path: '/dashboard/settings?tab=notifications' });
    await user.click(await screen.findByRole('checkbox', { name: 'Credentials' }));
    await user.click(screen.getByRole('button', { name: 'Save preferences' }));
    expect((await screen.findByRole('alert')).textContent).toBe('Could not save your preferences: payments must be a boolean');
    expect((screen.getByRole('checkbox', { name: 'Credentials' }) as HTMLInputElement).checked).toBe(false);
    expect((screen.getByRole('button', { name: 'Save preferences' }) as HTMLButtonElement).disabled).toBe(false);
    expect(server.state.prefs.credentials).toBe(true);
  });
});
