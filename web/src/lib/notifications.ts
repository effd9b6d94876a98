/**
 * The signed-in user's in-app notifications and notification preferences, through auth
 * (docs/auth.md): `GET /auth/notifications`, `POST /auth/notifications/read`,
 * `GET|PUT /auth/notification-preferences`. Every call takes the session's access token and
 * throws `ApiError` (web/src/api.ts) with the server's status, code and message.
 */
import { PREFERENCE_OF_KIND, type NotificationKind, type NotificationPreferences } from '@tradewind/contracts/notifications';
import { apiFetch } from '../api';
import { apiWrite } from './profile';

export { PREFERENCE_OF_KIND, type NotificationKind, type NotificationPreferences };

/** One notification as auth returns it. Times are ISO 8601; `read_at` null means unread. */
export interface AppNotification {
  id: string;
  kind: NotificationKind;
  title: string;
  body: string;
  created_at: string;
  read_at: string | null;
  /** Where the notification leads: a site path ("/dashboard/plan") or null. */
  link: string | null;
}

/** A page of notifications, newest first, and the user's total number of unread ones. */
export interface NotificationPage {
  notifications: AppNotification[];
  unread: number;
}

/** Notifications asked for per request (the bell's first page and each "Show older"). */
export const NOTIFICATIONS_PAGE_SIZE = 20;

/** The bell reloads the first page this often while the tab is visible (and at once on focus). */
export const NOTIFICATIONS_POLL_MS = 30_000;

/**
 * A focus or visibility change within this long after the last load does not load again (switching
 * back to a tab fires both `visibilitychange` and `focus`).
 */
export const NOTIFICATIONS_MIN_RELOAD_MS = 2_000;

/**
 * Window event after which the bell reloads its list from scratch at once; Settings sends it when
 * the preferences (which decide the kinds auth shows) were saved.
 */
export const NOTIFICATIONS_CHANGED_EVENT = 'tradewind:notifications-changed';

/** Sends {@link NOTIFICATIONS_CHANGED_EVENT} (a no-op outside the browser). */
export function announceNotificationsChanged(): void {
  if (typeof window !== 'undefined') window.dispatchEvent(new Event(NOTIFICATIONS_CHANGED_EVENT));
}

function isNotification(v: unknown): v is AppNotification {
  if (v === null || typeof v !== 'object') return false;
  const n = v as Record<string, unknown>;
  return (
    typeof n.id === 'string' &&
    typeof n.kind === 'string' &&
    typeof n.title === 'string' &&
    typeof n.body === 'string' &&
    typeof n.created_at === 'string' &&
    (n.read_at === null || typeof n.read_at === 'string') &&
    (n.link === null || n.link === undefined || typeof n.link === 'string')
  );
}

/** Message of an answer that does not have the documented shape. */
export const MALFORMED_NOTIFICATIONS_MESSAGE = 'The notification service sent an answer this page cannot read.';

/**
 * `GET /auth/notifications?limit=…[&before=<id>]`: up to `limit` notifications older than the one
 * with id `before` (newest first when `before` is absent). @throws ApiError, or Error with
 * {@link MALFORMED_NOTIFICATIONS_MESSAGE} when the body has another shape.
 */
export async function fetchNotifications(
  token: string,
  { before, limit = NOTIFICATIONS_PAGE_SIZE, signal }: { before?: string; limit?: number; signal?: AbortSignal } = {},
): Promise<NotificationPage> {
  const query = new URLSearchParams({ limit: String(limit) });
  if (before) query.set('before', before);
  const body = await apiFetch<unknown>(`/auth/notifications?${query}`, { token, ...(signal ? { signal } : {}) });
  const page = body as Partial<NotificationPage> | undefined;
  if (!page || !Array.isArray(page.notifications) || typeof page.unread !== 'number' || !page.notifications.every(isNotification)) {
    throw new Error(MALFORMED_NOTIFICATIONS_MESSAGE);
  }
  return { notifications: page.notifications.map((n) => ({ ...n, link: n.link ?? null })), unread: page.unread };
}

/**
 * `POST /auth/notifications/read` with `{ids}` (those notifications) or `{all: true}` (every one).
 * Resolves to the number still unread. @throws ApiError
 */
export async function markNotificationsRead(token: string, which: { ids: string[] } | { all: true }): Promise<number> {
  const res = await apiFetch<{ unread: number }>('/auth/notifications/read', { method: 'POST', token, body: which });
  return res.unread;
}

/** `GET /auth/notification-preferences`. @throws ApiError */
export function fetchNotificationPreferences(token: string, signal?: AbortSignal): Promise<NotificationPreferences> {
  return apiFetch<NotificationPreferences>('/auth/notification-preferences', { token, ...(signal ? { signal } : {}) });
}

/** `PUT /auth/notification-preferences` with all four switches; resolves to what auth stored. @throws ApiError */
export function saveNotificationPreferences(token: string, prefs: NotificationPreferences): Promise<NotificationPreferences> {
  return apiWrite<NotificationPreferences>('PUT', '/auth/notification-preferences', { token, body: prefs });
}

function newestFirst(a: AppNotification, b: AppNotification): number {
  return a.created_at === b.created_at ? (a.id < b.id ? 1 : a.id > b.id ? -1 : 0) : a.created_at < b.created_at ? 1 : -1;
}

/**
 * The list after a reload of the first page: `fresh` replaces the entries it contains and is added
 * to the older ones already shown, newest first. When `fresh` is a full page that shares no entry
 * with a non-empty `shown`, notifications may be missing between the two (`gap` true): the older
 * ones are dropped and the user pages down again with "Show older".
 */
export function mergeFirstPage(
  shown: readonly AppNotification[],
  fresh: readonly AppNotification[],
  pageSize = NOTIFICATIONS_PAGE_SIZE,
): { items: AppNotification[]; gap: boolean } {
  const freshIds = new Set(fresh.map((n) => n.id));
  const gap = shown.length > 0 && fresh.length >= pageSize && !shown.some((n) => freshIds.has(n.id));
  const kept = gap ? [] : shown.filter((n) => !freshIds.has(n.id));
  return { items: [...fresh, ...kept].sort(newestFirst), gap };
}

/** `older` added after `shown` (entries already shown are not repeated), newest first. */
export function appendOlder(shown: readonly AppNotification[], older: readonly AppNotification[]): AppNotification[] {
  const ids = new Set(shown.map((n) => n.id));
  return [...shown, ...older.filter((n) => !ids.has(n.id))].sort(newestFirst);
}

const RELATIVE = new Intl.RelativeTimeFormat('en', { numeric: 'always' });

/**
 * "just now" (under a minute), "5 minutes ago", "1 hour ago", "2 days ago" (under a week), else the
 * date ("Mar 3, 2026"). `now` in ms since the epoch; an unreadable date gives "".
 */
export function relativeTime(iso: string, now: number = Date.now()): string {
  const t = Date.parse(iso);
  if (Number.isNaN(t)) return '';
  const seconds = Math.max(0, Math.round((now - t) / 1000));
  if (seconds < 60) return 'just now';
  if (seconds < 3600) return RELATIVE.format(-Math.floor(seconds / 60), 'minute');
  if (seconds < 86_400) return RELATIVE.format(-Math.floor(seconds / 3600), 'hour');
  if (seconds < 7 * 86_400) return RELATIVE.format(-Math.floor(seconds / 86_400), 'day');
  return new Date(t).toLocaleDateString('en-US', { year: 'numeric', month: 'short', day: 'numeric' });
}

/**
 * The accessible name of the bell: "Notifications" when nothing is unread, else
 * "Notifications, 3 unread".
 */
export function bellLabel(unread: number): string {
  return unread > 0 ? `Notifications, ${unread} unread` : 'Notifications';
}

/** The badge text: the count up to 99, then "99+". */
export function badgeText(unread: number): string {
  return unread > 99 ? '99+' : String(unread);
}

/**
 * A notification's link when it is safe to follow: a site path ("/dashboard/plan", kind `internal`)
 * or an https URL (kind `external`); anything else (javascript:, protocol-relative) is null.
 */
export function safeLink(link: string | null): { kind: 'internal' | 'external'; href: string } | null {
  if (!link) return null;
  if (link.startsWith('/') && !link.startsWith('//')) return { kind: 'internal', href: link };
  try {
    const url = new URL(link);
    return url.protocol === 'https:' ? { kind: 'external', href: url.href } : null;
  } catch {
    return null;
  }
}
