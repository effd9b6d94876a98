import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { NotificationBell } from '../src/components/dashboard/NotificationBell';
import {
  NOTIFICATIONS_CHANGED_EVENT,
  NOTIFICATIONS_MIN_RELOAD_MS,
  NOTIFICATIONS_PAGE_SIZE,
  NOTIFICATIONS_POLL_MS,
  appendOlder,
  badgeText,
  bellLabel,
  mergeFirstPage,
  relativeTime,
  safeLink,
  type AppNotification,
} from '../src/lib/notifications';
import { json, renderInDashboard } from './dashboard-fixtures';

const MINUTE = 60_000;

/** A notification created `agoMs` before now; ids sort like their age (n-009 is newer than n-001). */
function note(i: number, agoMs: number, over: Partial<AppNotification> = {}): AppNotification {
  return {
    id: `n-${String(i).padStart(3, '0')}`,
    kind: 'payment_succeeded',
    title: `Title ${i}`,
    body: `Body ${i}`,
    created_at: new Date(Date.now() - agoMs).toISOString(),
    read_at: null,
    link: null,
    ...over,
  };
}

interface Call {
  method: string;
  path: string;
  query: URLSearchParams;
  auth: string | undefined;
  body: unknown;
}

/**
 * An in-memory stand-in for auth's notification routes, answering at the HTTP level:
 * `GET /auth/notifications` (limit, before) and `POST /auth/notifications/read` ({ids} | {all}).
 * `fail` answers the next matching requests with the given error instead.
 */
function notificationServer(initial: AppNotification[]) {
  const items = [...initial].sort((a, b) => (a.created_at < b.created_at ? 1 : -1));
  const calls: Call[] = [];
  const fail: Array<{ path: string; status: number; body: unknown }> = [];
  const holds: Array<Promise<void>> = [];
  const unread = () => items.filter((n) => n.read_at === null).length;
  const fetchMock = vi.fn(async (url: string, init?: RequestInit) => {
    const u = new URL(url, 'http://localhost');
    const method = init?.method ?? 'GET';
    const body = init?.body ? JSON.parse(String(init.body)) : undefined;
    calls.push({ method, path: u.pathname, query: u.searchParams, auth: (init?.headers as Record<string, string> | undefined)?.authorization, body });
    if (u.pathname === '/auth/notifications' && holds.length > 0) {
      // Answer from the state as it was when the request arrived, once released.
      const snapshot = { notifications: items.slice(0, Number(u.searchParams.get('limit'))).map((n) => ({ ...n })), unread: unread() };
      await holds.shift();
      return json(snapshot);
    }
    const f = fail.findIndex((x) => x.path === u.pathname);
    if (f >= 0) {
      const [failure] = fail.splice(f, 1);
      return json(failure!.body, failure!.status);
    }
    if (u.pathname === '/auth/notifications' && method === 'GET') {
      const limit = Number(u.searchParams.get('limit'));
      const before = u.searchParams.get('before');
      const start = before ? items.findIndex((n) => n.id === before) + 1 : 0;
      return json({ notifications: items.slice(start, start + limit), unread: unread() });
    }
    if (u.pathname === '/auth/notifications/read' && method === 'POST') {
      const now = new Date().toISOString();
      for (const n of items) if (n.read_at === null && (body.all === true || body.ids.includes(n.id))) n.read_at = now;
      return json({ unread: unread() });
    }
    return json({ code: 'not_found', message: `no route ${method} ${u.pathname}` }, 404);
  });
  vi.stubGlobal('fetch', fetchMock);
  return {
    items,
    calls,
    fail,
    reads: () => calls.filter((c) => c.path === '/auth/notifications' && c.method === 'GET'),
    add: (n: AppNotification) => {
      items.unshift(n);
    },
    /** The next list request waits until the returned function is called. */
    hold: () => {
      let release!: () => void;
      holds.push(new Promise<void>((r) => (release = r)));
      return () => release();
    },
  };
}

function bell() {
  return screen.getByRole('button', { name: /^Notifications/ });
}

async function openBell(user: ReturnType<typeof userEvent.setup>) {
  await user.click(bell());
  return screen.getByRole('dialog', { name: 'Notifications' });
}

let visibility: DocumentVisibilityState = 'visible';
Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => visibility });

afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllGlobals();
  visibility = 'visible';
});

describe('NotificationBell', () => {
  it('when two of three notifications are unread, then the bell says "Notifications, 2 unread" and the popover lists them newest first with title, body, time and link', async () => {
    const server = notificationServer([
      note(1, 3 * 86_400_000, { read_at: '2026-01-01T00:00:00.000Z' }),
      note(2, 2 * 3_600_000, { kind: 'payment_failed', title: 'Payment failed', body: 'Stripe could not charge your card.', link: '/dashboard/plan' }),
      note(3, 5 * MINUTE, { kind: 'credentials_rotated', title: 'Credentials rotated', body: 'New user JWT and NKey seed issued.' }),
    ]);
    const user = userEvent.setup();
    renderInDashboard(<NotificationBell />);
    await waitFor(() => expect(bell().getAttribute('aria-label')).toBe('Notifications, 2 unread'));
    expect(screen.getByTestId('bell-badge').textContent).toBe('2');
    const first = server.reads()[0]!;
    expect(first.query.get('limit')).toBe(String(NOTIFICATIONS_PAGE_SIZE));
    expect(first.query.has('before')).toBe(false);
    expect(first.auth).toBe('Bearer test-access-token');

    expect(bell().getAttribute('aria-expanded')).toBe('false');
    const dialog = await openBell(user);
    expect(bell().getAttribute('aria-expanded')).toBe('true');
    const items = within(dialog).getAllByRole('listitem');
    expect(items.map((li) => li.querySelector('.dash-bell-item-title')!.textContent)).toEqual([
      'Unread: Credentials rotated',
      'Unread: Payment failed',
      'Title 1',
    ]);
    expect(items.map((li) => li.querySelector('time')!.textContent)).toEqual(['5 minutes ago', '2 hours ago', '3 days ago']);
    expect(items[1]!.textContent).toContain('Stripe could not charge your card.');
    expect(within(items[1]!).getByRole('link', { name: 'Unread: Payment failed' }).getAttribute('href')).toBe('/dashboard/plan');
    expect(within(items[0]!).queryByRole('link')).toBeNull();
    // Opening marks nothing read.
    expect(server.calls.some((c) => c.path === '/auth/notifications/read')).toBe(false);
    expect(bell().getAttribute('aria-label')).toBe('Notifications, 2 unread');
  });

  it('when "Mark as read" is pressed on one item, then only its id is sent and the count falls to what auth answers', async () => {
    const server = notificationServer([note(1, 2 * MINUTE), note(2, MINUTE)]);
    const user = userEvent.setup();
    renderInDashboard(<NotificationBell />);
    await waitFor(() => expect(bell().getAttribute('aria-label')).toBe('Notifications, 2 unread'));
    const dialog = await openBell(user);
    await user.click(within(dialog).getByRole('button', { name: 'Mark as read: Title 2' }));
    await waitFor(() => expect(bell().getAttribute('aria-label')).toBe('Notifications, 1 unread'));
    const read = server.calls.filter((c) => c.path === '/auth/notifications/read');
    expect(read.map((c) => [c.method, c.body, c.auth])).toEqual([['POST', { ids: ['n-002'] }, 'Bearer test-access-token']]);
    expect(within(dialog).queryByRole('button', { name: 'Mark as read: Title 2' })).toBeNull();
    expect(within(dialog).getByRole('button', { name: 'Mark as read: Title 1' })).toBeTruthy();
    expect(dialog.contains(document.activeElement)).toBe(true);
  });

  it('when "Mark all as read" is pressed, then {all: true} is sent, the badge goes and the button is disabled', async () => {
    const server = notificationServer([note(1, 2 * MINUTE), note(2, MINUTE)]);
    const user = userEvent.setup();
    renderInDashboard(<NotificationBell />);
    await waitFor(() => expect(bell().getAttribute('aria-label')).toBe('Notifications, 2 unread'));
    const dialog = await openBell(user);
    await user.click(within(dialog).getByRole('button', { name: 'Mark all as read' }));
    await waitFor(() => expect(bell().getAttribute('aria-label')).toBe('Notifications'));
    expect(server.calls.filter((c) => c.path === '/auth/notifications/read').map((c) => c.body)).toEqual([{ all: true }]);
    expect(screen.queryByTestId('bell-badge')).toBeNull();
    expect((within(dialog).getByRole('button', { name: 'Mark all as read' }) as HTMLButtonElement).disabled).toBe(true);
    expect(within(dialog).queryAllByText('Unread:')).toHaveLength(0);
  });

  it("when an unread item's link is followed, then that item is marked read and the popover closes", async () => {
    const server = notificationServer([note(1, MINUTE, { title: 'Plan changed', link: '/dashboard/plan', kind: 'plan_changed' })]);
    const user = userEvent.setup();
    renderInDashboard(<NotificationBell />);
    await waitFor(() => expect(bell().getAttribute('aria-label')).toBe('Notifications, 1 unread'));
    const dialog = await openBell(user);
    await user.click(within(dialog).getByRole('link', { name: 'Unread: Plan changed' }));
    expect(screen.queryByRole('dialog')).toBeNull();
    await waitFor(() => expect(bell().getAttribute('aria-label')).toBe('Notifications'));
    expect(server.calls.filter((c) => c.path === '/auth/notifications/read').map((c) => c.body)).toEqual([{ ids: ['n-001'] }]);
  });

  it("when marking fails, then the item is unread again and the server's message is shown", async () => {
    const server = notificationServer([note(1, MINUTE)]);
    server.fail.push({ path: '/auth/notifications/read', status: 503, body: { code: 'unavailable', message: 'Notifications are unavailable' } });
    const user = userEvent.setup();
    renderInDashboard(<NotificationBell />);
    await waitFor(() => expect(bell().getAttribute('aria-label')).toBe('Notifications, 1 unread'));
    const dialog = await openBell(user);
    await user.click(within(dialog).getByRole('button', { name: 'Mark as read: Title 1' }));
    expect((await within(dialog).findByRole('alert')).textContent).toBe('Could not mark as read: Notifications are unavailable');
    expect(within(dialog).getByRole('button', { name: 'Mark as read: Title 1' })).toBeTruthy();
    expect(bell().getAttribute('aria-label')).toBe('Notifications, 1 unread');
  });

  it('when there are none, then it says "No notifications yet" and the bell has no count', async () => {
    notificationServer([]);
    const user = userEvent.setup();
    renderInDashboard(<NotificationBell />);
    const dialog = await openBell(user);
    expect(await within(dialog).findByText('No notifications yet')).toBeTruthy();
    expect(bell().getAttribute('aria-label')).toBe('Notifications');
    expect(screen.queryByTestId('bell-badge')).toBeNull();
    expect((within(dialog).getByRole('button', { name: 'Mark all as read' }) as HTMLButtonElement).disabled).toBe(true);
  });

  it("when the load fails, then the popover shows the server's message and Retry loads again", async () => {
    const server = notificationServer([note(1, MINUTE, { title: 'Payment received' })]);
    server.fail.push({ path: '/auth/notifications', status: 500, body: { code: 'internal', message: 'Failed to load notifications' } });
    const user = userEvent.setup();
    renderInDashboard(<NotificationBell />);
    const dialog = await openBell(user);
    const alert = await within(dialog).findByRole('alert');
    expect(alert.textContent).toContain('Could not load notifications: Failed to load notifications');
    expect(within(dialog).queryByText('No notifications yet')).toBeNull();
    await user.click(within(alert).getByRole('button', { name: 'Retry' }));
    expect((await within(dialog).findByRole('listitem')).querySelector('.dash-bell-item-title')!.textContent).toBe('Unread: Payment received');
    expect(within(dialog).queryByRole('alert')).toBeNull();
    expect(server.reads()).toHaveLength(2);
  });

  it('when 20 are shown, then "Show older" asks for the ones before the oldest and adds them below', async () => {
    const server = notificationServer(Array.from({ length: 25 }, (_, i) => note(i + 1, (25 - i) * MINUTE)));
    const user = userEvent.setup();
    renderInDashboard(<NotificationBell />);
    const dialog = await openBell(user);
    await waitFor(() => expect(within(dialog).getAllByRole('listitem')).toHaveLength(20));
    await user.click(within(dialog).getByRole('button', { name: 'Show older' }));
    await waitFor(() => expect(within(dialog).getAllByRole('listitem')).toHaveLength(25));
    expect(server.reads()[1]!.query.get('before')).toBe('n-006');
    expect(within(dialog).queryByRole('button', { name: 'Show older' })).toBeNull();
  });

  it('is keyboard operable: Enter opens it with focus inside, Escape closes it and focus returns to the bell', async () => {
    notificationServer([note(1, MINUTE)]);
    const user = userEvent.setup();
    renderInDashboard(<NotificationBell />);
    await waitFor(() => expect(bell().getAttribute('aria-label')).toBe('Notifications, 1 unread'));
    bell().focus();
    await user.keyboard('{Enter}');
    const dialog = screen.getByRole('dialog', { name: 'Notifications' });
    expect(document.activeElement).toBe(dialog);
    await user.tab();
    expect(document.activeElement?.textContent).toBe('Mark all as read');
    await user.keyboard('{Escape}');
    expect(screen.queryByRole('dialog')).toBeNull();
    expect(document.activeElement).toBe(bell());
  });

  it(`polls every ${NOTIFICATIONS_POLL_MS / 1000} s while visible, not while hidden, and at once when the tab comes back`, async () => {
    vi.useFakeTimers();
    const server = notificationServer([note(1, MINUTE)]);
    renderInDashboard(<NotificationBell />);
    await act(async () => {
      await vi.advanceTimersByTimeAsync(0);
    });
    expect(server.reads()).toHaveLength(1);
    await act(async () => {
      await vi.advanceTimersByTimeAsync(NOTIFICATIONS_POLL_MS - 1);
    });
    expect(server.reads()).toHaveLength(1);
    // A new notification arrives; the next poll shows it.
    server.add(note(2, 0, { title: 'New one' }));
    await act(async () => {
      await vi.advanceTimersByTimeAsync(1);
    });
    expect(server.reads()).toHaveLength(2);
    expect(bell().getAttribute('aria-label')).toBe('Notifications, 2 unread');

    // Hidden: no polling however long.
    visibility = 'hidden';
    act(() => {
      document.dispatchEvent(new Event('visibilitychange'));
    });
    await act(async () => {
      await vi.advanceTimersByTimeAsync(5 * NOTIFICATIONS_POLL_MS);
    });
    expect(server.reads()).toHaveLength(2);

    // Visible again: loads at once; the focus event that follows is within the minimum gap.
    visibility = 'visible';
    await act(async () => {
      document.dispatchEvent(new Event('visibilitychange'));
      await vi.advanceTimersByTimeAsync(0);
    });
    expect(server.reads()).toHaveLength(3);
    await act(async () => {
      window.dispatchEvent(new Event('focus'));
      await vi.advanceTimersByTimeAsync(0);
    });
    expect(server.reads()).toHaveLength(3);
    // A later focus loads at once, and the poll restarts from there.
    await act(async () => {
      await vi.advanceTimersByTimeAsync(NOTIFICATIONS_MIN_RELOAD_MS);
      window.dispatchEvent(new Event('focus'));
      await vi.advanceTimersByTimeAsync(0);
    });
    expect(server.reads()).toHaveLength(4);
    await act(async () => {
      await vi.advanceTimersByTimeAsync(NOTIFICATIONS_POLL_MS);
    });
    expect(server.reads()).toHaveLength(5);
  });

  it('when the tab hides while a poll is in flight, then no further poll is scheduled until it is visible again', async () => {
    vi.useFakeTimers();
    const server = notificationServer([note(1, MINUTE)]);
    renderInDashboard(<NotificationBell />);
    await act(async () => {
      await vi.advanceTimersByTimeAsync(0);
    });
    const release = server.hold();
    await act(async () => {
      await vi.advanceTimersByTimeAsync(NOTIFICATIONS_POLL_MS);
    });
    expect(server.reads()).toHaveLength(2);
    visibility = 'hidden';
    await act(async () => {
      document.dispatchEvent(new Event('visibilitychange'));
      release();
      await vi.advanceTimersByTimeAsync(0);
    });
    await act(async () => {
      await vi.advanceTimersByTimeAsync(5 * NOTIFICATIONS_POLL_MS);
    });
    expect(server.reads()).toHaveLength(2);
  });

  it('when a poll that started before "Mark all as read" answers afterwards, then its stale unread state is ignored', async () => {
    const server = notificationServer([note(1, 2 * MINUTE), note(2, MINUTE)]);
    const user = userEvent.setup();
    renderInDashboard(<NotificationBell />);
    await waitFor(() => expect(bell().getAttribute('aria-label')).toBe('Notifications, 2 unread'));
    const dialog = await openBell(user);
    // A reload starts and its answer (both still unread) is held back.
    const release = server.hold();
    act(() => {
      window.dispatchEvent(new Event(NOTIFICATIONS_CHANGED_EVENT));
    });
    await waitFor(() => expect(server.reads()).toHaveLength(2));
    await user.click(within(dialog).getByRole('button', { name: 'Mark all as read' }));
    await waitFor(() => expect(bell().getAttribute('aria-label')).toBe('Notifications'));
    release();
    await act(async () => {
      await new Promise((r) => setTimeout(r, 20));
    });
    expect(bell().getAttribute('aria-label')).toBe('Notifications');
    expect(within(dialog).queryAllByText('Unread:')).toHaveLength(0);
  });

  it('when a poll fails after a good load, then the list stays and the error offers Retry', async () => {
    vi.useFakeTimers();
    const server = notificationServer([note(1, MINUTE, { title: 'Kept' })]);
    renderInDashboard(<NotificationBell />);
    await act(async () => {
      await vi.advanceTimersByTimeAsync(0);
    });
    expect(server.reads()).toHaveLength(1);
    // The network fails for the next poll.
    const realFetch = globalThis.fetch;
    vi.stubGlobal(
      'fetch',
      vi.fn(async () => Promise.reject(new TypeError('Failed to fetch'))),
    );
    await act(async () => {
      await vi.advanceTimersByTimeAsync(NOTIFICATIONS_POLL_MS);
    });
    vi.stubGlobal('fetch', realFetch);
    act(() => {
      fireEvent.click(bell());
    });
    const dialog = screen.getByRole('dialog', { name: 'Notifications' });
    expect(within(dialog).getByRole('alert').textContent).toContain('Could not load notifications: Could not reach Tradewind.');
    expect(within(dialog).getByRole('listitem').querySelector('.dash-bell-item-title')!.textContent).toBe('Unread: Kept');
    expect(bell().getAttribute('aria-label')).toBe('Notifications, 1 unread');
  });
});

describe('notification helpers', () => {
  it('when times are formatted, then they read relative up to a week, then as a date', () => {
    const now = Date.parse('2026-11-21T12:00:00.000Z');
    expect(relativeTime('2026-11-21T11:59:30.000Z', now)).toBe('just now');
    expect(relativeTime('2026-11-21T11:59:00.000Z', now)).toBe('1 minute ago');
    expect(relativeTime('2026-11-21T11:00:00.000Z', now)).toBe('1 hour ago');
    expect(relativeTime('2026-11-20T11:00:00.000Z', now)).toBe('1 day ago');
    expect(relativeTime('2026-11-14T12:00:01.000Z', now)).toBe('6 days ago');
    expect(relativeTime('2026-11-14T12:00:00.000Z', now)).toBe('Nov 14, 2026');
    expect(relativeTime('not a date', now)).toBe('');
  });

  it('when labels are made, then the count reads in words and the badge caps at 99+', () => {
    expect(bellLabel(0)).toBe('Notifications');
    expect(bellLabel(3)).toBe('Notifications, 3 unread');
    expect(badgeText(99)).toBe('99');
    expect(badgeText(100)).toBe('99+');
  });

  it('when a link is checked, then only site paths and https URLs are followed', () => {
    expect(safeLink('/dashboard/plan')).toEqual({ kind: 'internal', href: '/dashboard/plan' });
    expect(safeLink('https://status.example.com/x')).toEqual({ kind: 'external', href: 'https://status.example.com/x' });
    expect(safeLink('javascript:alert(1)')).toBeNull();
    expect(safeLink('//evil.example.com')).toBeNull();
    expect(safeLink('http://plain.example.com')).toBeNull();
    expect(safeLink(null)).toBeNull();
  });

  it('when a first page is merged, then it replaces its entries and keeps older ones unless a full page leaves a gap', () => {
    const shown = [note(3, 3 * MINUTE), note(2, 4 * MINUTE), note(1, 5 * MINUTE)];
    const fresh = [note(4, MINUTE), { ...shown[0]!, read_at: '2026-01-01T00:00:00.000Z' }];
    const merged = mergeFirstPage(shown, fresh, 20);
    expect(merged.gap).toBe(false);
    expect(merged.items.map((n) => [n.id, n.read_at !== null])).toEqual([
      ['n-004', false],
      ['n-003', true],
      ['n-002', false],
      ['n-001', false],
    ]);
    const full = [note(9, 0), note(8, 1)];
    expect(mergeFirstPage(shown, full, 2)).toEqual({ items: full, gap: true });
    expect(mergeFirstPage([], full, 2).gap).toBe(false);
    expect(appendOlder(shown.slice(0, 2), shown.slice(1)).map((n) => n.id)).toEqual(['n-003', 'n-002', 'n-001']);
  });
});
