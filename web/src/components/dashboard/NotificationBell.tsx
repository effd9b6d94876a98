import { useCallback, useEffect, useId, useRef, useState, type KeyboardEvent as ReactKeyboardEvent } from 'react';
import { Link } from 'react-router';
import { useAuth } from '../../session/session';
import { errorMessage } from '../../lib/credentials';
import {
  NOTIFICATIONS_CHANGED_EVENT,
  NOTIFICATIONS_MIN_RELOAD_MS,
  NOTIFICATIONS_PAGE_SIZE,
  NOTIFICATIONS_POLL_MS,
  appendOlder,
  badgeText,
  bellLabel,
  fetchNotifications,
  markNotificationsRead,
  mergeFirstPage,
  relativeTime,
  safeLink,
  type AppNotification,
  type NotificationPage,
} from '../../lib/notifications';

/** The bell's data: the notifications shown, the unread count, load and action state. */
export interface NotificationFeed {
  items: AppNotification[];
  /** The user's unread total as auth last reported it; null before the first answer. */
  unread: number | null;
  /** True once a first page has arrived. */
  loaded: boolean;
  /** The message of the last failed load (the list shown, if any, is then the previous one). */
  error: string | null;
  /** The message of the last failed "mark as read" or "show older". */
  actionError: string | null;
  /** More, older notifications can be asked for. */
  hasMore: boolean;
  loadingOlder: boolean;
  /** Loads the first page now (Retry). */
  reload(): void;
  loadOlder(): Promise<void>;
  markRead(id: string): Promise<void>;
  markAllRead(): Promise<void>;
}

function isHidden(): boolean {
  return typeof document !== 'undefined' && document.visibilityState === 'hidden';
}

/**
 * Loads the first page of notifications on mount and every {@link NOTIFICATIONS_POLL_MS} while the
 * tab is visible; a hidden tab does not poll, and becoming visible or focused again loads at once
 * (at most once per {@link NOTIFICATIONS_MIN_RELOAD_MS}); {@link NOTIFICATIONS_CHANGED_EVENT} reloads
 * the list from scratch (the preferences changed which kinds are shown). Marking read updates the list at once
 * and takes the unread count from auth's answer; a load that was already running when the user
 * marked something is discarded, so it cannot bring an old "unread" back.
 */
export function useNotificationFeed(): NotificationFeed {
  const { accessToken } = useAuth();
  const [items, setItems] = useState<AppNotification[]>([]);
  const [unread, setUnread] = useState<number | null>(null);
  const [loaded, setLoaded] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [actionError, setActionError] = useState<string | null>(null);
  const [hasMore, setHasMore] = useState(false);
  const [loadingOlder, setLoadingOlder] = useState(false);
  const itemsRef = useRef<AppNotification[]>([]);
  const pagedRef = useRef(false);
  const generation = useRef(0);
  const runRef = useRef<() => void>(() => undefined);

  const show = useCallback((next: AppNotification[]) => {
    itemsRef.current = next;
    setItems(next);
  }, []);

  const applyFirstPage = useCallback(
    (page: NotificationPage, fromScratch: boolean) => {
      const { items: next, gap } = mergeFirstPage(fromScratch ? [] : itemsRef.current, page.notifications);
      // Until the user pages down, "Show older" follows the first page; after a gap it starts over.
      if (!pagedRef.current || gap || fromScratch) {
        pagedRef.current = false;
        setHasMore(page.notifications.length >= NOTIFICATIONS_PAGE_SIZE);
      }
      show(next);
      setUnread(page.unread);
      setError(null);
      setLoaded(true);
    },
    [show],
  );

  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    let controller: AbortController | null = null;
    let lastStart = Number.NEGATIVE_INFINITY;
    let stopped = false;

    const schedule = () => {
      clearTimeout(timer);
      timer = undefined;
      if (!stopped && !isHidden()) timer = setTimeout(() => void run(), NOTIFICATIONS_POLL_MS);
    };
    const run = async (fromScratch = false) => {
      clearTimeout(timer);
      controller?.abort();
      const c = new AbortController();
      controller = c;
      const gen = generation.current;
      lastStart = Date.now();
      try {
        const page = await fetchNotifications(await accessToken(), { signal: c.signal });
        if (c.signal.aborted || gen !== generation.current) return;
        applyFirstPage(page, fromScratch);
      } catch (err) {
        if (c.signal.aborted) return;
        setError(errorMessage(err));
      } finally {
        if (!c.signal.aborted) schedule();
      }
    };
    const wake = () => {
      if (isHidden()) {
        clearTimeout(timer);
        timer = undefined;
        return;
      }
      if (Date.now() - lastStart < NOTIFICATIONS_MIN_RELOAD_MS) return;
      void run();
    };
    const changed = () => void run(true);
    runRef.current = () => void run();
    if (!isHidden()) void run();
    document.addEventListener('visibilitychange', wake);
    window.addEventListener('focus', wake);
    window.addEventListener(NOTIFICATIONS_CHANGED_EVENT, changed);
    return () => {
      stopped = true;
      clearTimeout(timer);
      controller?.abort();
      document.removeEventListener('visibilitychange', wake);
      window.removeEventListener('focus', wake);
      window.removeEventListener(NOTIFICATIONS_CHANGED_EVENT, changed);
      runRef.current = () => undefined;
    };
  }, [accessToken, applyFirstPage]);

  const reload = useCallback(() => runRef.current(), []);

  const loadOlder = useCallback(async () => {
    const oldest = itemsRef.current[itemsRef.current.length - 1];
    if (!oldest) return;
    setLoadingOlder(true);
    setActionError(null);
    try {
      const page = await fetchNotifications(await accessToken(), { before: oldest.id });
      pagedRef.current = true;
      show(appendOlder(itemsRef.current, page.notifications));
      setHasMore(page.notifications.length >= NOTIFICATIONS_PAGE_SIZE);
      setUnread(page.unread);
    } catch (err) {
      setActionError(`Could not load older notifications: ${errorMessage(err)}`);
    } finally {
      setLoadingOlder(false);
    }
  }, [accessToken, show]);

  const mark = useCallback(
    async (which: { ids: string[] } | { all: true }) => {
      generation.current += 1;
      const before = itemsRef.current;
      const now = new Date().toISOString();
      const ids = 'ids' in which ? new Set(which.ids) : null;
      show(before.map((n) => (n.read_at === null && (!ids || ids.has(n.id)) ? { ...n, read_at: now } : n)));
      setActionError(null);
      try {
        setUnread(await markNotificationsRead(await accessToken(), which));
      } catch (err) {
        // Put back what this call marked, keeping anything that arrived meanwhile.
        const previous = new Map(before.map((n) => [n.id, n.read_at]));
        show(itemsRef.current.map((n) => (previous.has(n.id) && previous.get(n.id) === null && n.read_at === now ? { ...n, read_at: null } : n)));
        setActionError(`Could not mark as read: ${errorMessage(err)}`);
      }
    },
    [accessToken, show],
  );
  const markRead = useCallback((id: string) => mark({ ids: [id] }), [mark]);
  const markAllRead = useCallback(() => mark({ all: true }), [mark]);

  return { items, unread, loaded, error, actionError, hasMore, loadingOlder, reload, loadOlder, markRead, markAllRead };
}

function BellIcon() {
  return (
    <svg
      width="22"
      height="22"
      viewBox="0 0 24 24"
      fill="none"
      stroke="currentColor"
      strokeWidth="2"
      strokeLinecap="round"
      strokeLinejoin="round"
      aria-hidden="true"
      focusable="false"
    >
      <path d="M6 8a6 6 0 0 1 12 0c0 7 3 9 3 9H3s3-2 3-9M10.3 21a1.94 1.94 0 0 0 3.4 0" />
    </svg>
  );
}

function NotificationItem({ n, onFollow, onMarkRead }: { n: AppNotification; onFollow: () => void; onMarkRead: () => void }) {
  const link = safeLink(n.link);
  const unread = n.read_at === null;
  const title = (
    <>
      {unread ? <span className="sr-only">Unread:</span> : null}
      {unread ? ' ' : null}
      {n.title}
    </>
  );
  return (
    <li className="dash-bell-item" data-unread={unread ? 'true' : 'false'}>
      <p className="dash-bell-item-title">
        {link?.kind === 'internal' ? (
          <Link to={link.href} onClick={onFollow}>
            {title}
          </Link>
        ) : link?.kind === 'external' ? (
          <a href={link.href} onClick={onFollow} target="_blank" rel="noopener noreferrer">
            {title}
          </a>
        ) : (
          title
        )}
      </p>
      <p className="dash-bell-item-body">{n.body}</p>
      <p className="dash-bell-item-meta">
        <time dateTime={n.created_at} title={new Date(n.created_at).toLocaleString('en-US')}>
          {relativeTime(n.created_at)}
        </time>
        {unread ? (
          <button type="button" className="dash-bell-link-button" onClick={onMarkRead}>
            Mark as read<span className="sr-only">: {n.title}</span>
          </button>
        ) : null}
      </p>
    </li>
  );
}

/**
 * The dashboard's notification bell: a button with the unread count ("Notifications, 3 unread")
 * and a popover listing the notifications newest first (title, body, relative time, link), with
 * "Mark all as read", "Show older", an empty state ("No notifications yet") and an error state
 * with Retry. Opening the popover marks nothing read: an item becomes read when its link is
 * followed or its "Mark as read" is pressed, so unread items stay marked until the user has acted
 * on them. The popover closes on Escape (focus returns to the bell), on a click outside it and
 * when focus moves out of it. Data: {@link useNotificationFeed}.
 */
export function NotificationBell() {
  const feed = useNotificationFeed();
  const [open, setOpen] = useState(false);
  const wrapper = useRef<HTMLDivElement>(null);
  const button = useRef<HTMLButtonElement>(null);
  const panel = useRef<HTMLDivElement>(null);
  const id = useId();
  const unread = feed.unread ?? 0;

  const close = useCallback((returnFocus: boolean) => {
    setOpen(false);
    if (returnFocus) button.current?.focus();
  }, []);

  useEffect(() => {
    if (open) panel.current?.focus();
  }, [open]);

  useEffect(() => {
    if (!open) return;
    const onDown = (e: MouseEvent) => {
      if (!wrapper.current?.contains(e.target as Node)) close(false);
    };
    const onKey = (e: KeyboardEvent) => {
      if (e.key === 'Escape') close(true);
    };
    document.addEventListener('mousedown', onDown);
    document.addEventListener('keydown', onKey);
    return () => {
      document.removeEventListener('mousedown', onDown);
      document.removeEventListener('keydown', onKey);
    };
  }, [open, close]);

  const onKeyDown = (e: ReactKeyboardEvent) => {
    if (e.key === 'Escape') {
      e.stopPropagation();
      close(true);
    }
  };

  const markOne = (n: AppNotification) => {
    void feed.markRead(n.id);
    // The button disappears with the item's unread state: keep focus inside the popover.
    panel.current?.focus();
  };

  return (
    <div
      className="dash-bell"
      ref={wrapper}
      onBlur={(e) => {
        const next = e.relatedTarget as Node | null;
        if (open && next && !wrapper.current?.contains(next)) setOpen(false);
      }}
    >
      <button
        ref={button}
        type="button"
        className="btn btn-ghost dash-bell-button"
        aria-label={bellLabel(unread)}
        aria-haspopup="dialog"
        aria-expanded={open}
        aria-controls={open ? `${id}-panel` : undefined}
        onClick={() => setOpen((o) => !o)}
      >
        <BellIcon />
        {unread > 0 ? (
          <span className="dash-bell-badge" aria-hidden="true" data-testid="bell-badge">
            {badgeText(unread)}
          </span>
        ) : null}
      </button>
      {open ? (
        <div ref={panel} id={`${id}-panel`} className="dash-bell-panel" role="dialog" aria-labelledby={`${id}-title`} tabIndex={-1} onKeyDown={onKeyDown}>
          <div className="dash-bell-head">
            <h2 id={`${id}-title`}>Notifications</h2>
            <button type="button" className="dash-bell-link-button" onClick={() => void feed.markAllRead()} disabled={unread === 0}>
              Mark all as read
            </button>
          </div>
          {feed.error ? (
            <div className="alert alert-error dash-bell-error" role="alert">
              <p>Could not load notifications: {feed.error}</p>
              <button type="button" className="btn btn-secondary btn-sm" onClick={feed.reload}>
                Retry
              </button>
            </div>
          ) : null}
          {feed.actionError ? (
            <p className="alert alert-error dash-bell-error" role="alert">
              {feed.actionError}
            </p>
          ) : null}
          {!feed.loaded && !feed.error ? (
            <p role="status" className="dash-bell-state">
              <span className="spinner" aria-hidden="true" /> Loading notifications…
            </p>
          ) : feed.loaded && feed.items.length === 0 ? (
            <p className="dash-bell-state muted">No notifications yet</p>
          ) : feed.items.length > 0 ? (
            <ul className="dash-bell-list" aria-label="Notifications, newest first">
              {feed.items.map((n) => (
                <NotificationItem
                  key={n.id}
                  n={n}
                  onFollow={() => {
                    if (n.read_at === null) void feed.markRead(n.id);
                    close(false);
                  }}
                  onMarkRead={() => markOne(n)}
                />
              ))}
            </ul>
          ) : null}
          {feed.hasMore && feed.items.length > 0 ? (
            <button type="button" className="btn btn-secondary btn-sm dash-bell-more" onClick={() => void feed.loadOlder()} disabled={feed.loadingOlder}>
              {feed.loadingOlder ? 'Loading…' : 'Show older'}
            </button>
          ) : null}
          <p className="dash-bell-foot muted">
            <Link to="/dashboard/settings?tab=notifications" onClick={() => close(false)}>
              Notification settings
            </Link>
          </p>
        </div>
      ) : null}
    </div>
  );
}
