/**
 * Keeps the Usage page's report fresh: loads `GET /api/usage` on mount, every
 * {@link USAGE_REFRESH_MS} while the tab is visible, at once when the tab becomes visible again,
 * on `refresh()` (the Refresh button) and when `refreshKey` changes (the plan may have changed).
 */
import { useCallback, useEffect, useRef, useState } from 'react';
import { useAuth } from '../session/session';
import { errorMessage } from './credentials';
import { USAGE_REFRESH_MS, fetchUsage, type UsageReport } from './usage';

/** What {@link useUsageReport} gives the page. */
export interface UsageFeed {
  /** The last report that arrived (kept when a later load fails); null before the first. */
  report: UsageReport | null;
  /** A load is in flight. */
  loading: boolean;
  /** The message of the last failed load; null once a load succeeds. */
  error: string | null;
  /** Loads now (cancelling a load in flight). */
  refresh(): void;
}

function isHidden(): boolean {
  return typeof document !== 'undefined' && document.visibilityState === 'hidden';
}

/**
 * The signed-in user's usage report, reloaded as described above. A hidden tab does not poll (the
 * timer is cleared when the tab hides and nothing is scheduled while it stays hidden); a newer load
 * aborts the one in flight, whose answer is then dropped; unmounting stops everything.
 */
export function useUsageReport(refreshKey: unknown = 0): UsageFeed {
  const { accessToken } = useAuth();
  const [report, setReport] = useState<UsageReport | null>(null);
  const [loading, setLoading] = useState(true);
  const [error, setError] = useState<string | null>(null);
  const runRef = useRef<() => void>(() => undefined);

  useEffect(() => {
    void refreshKey;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let controller: AbortController | null = null;
    let stopped = false;

    const schedule = () => {
      clearTimeout(timer);
      timer = undefined;
      if (!stopped && !isHidden()) timer = setTimeout(() => void run(), USAGE_REFRESH_MS);
    };
    const run = async () => {
      clearTimeout(timer);
      timer = undefined;
      controller?.abort();
      const c = new AbortController();
      controller = c;
      setLoading(true);
      try {
        const next = await fetchUsage(await accessToken(), c.signal);
        if (c.signal.aborted) return;
        setReport(next);
        setError(null);
      } catch (err) {
        if (c.signal.aborted) return;
        setError(errorMessage(err));
      } finally {
        if (!c.signal.aborted) {
          setLoading(false);
          schedule();
        }
      }
    };
    const onVisibility = () => {
      if (isHidden()) {
        clearTimeout(timer);
        timer = undefined;
      } else {
        void run();
      }
    };
    runRef.current = () => void run();
    void run();
    document.addEventListener('visibilitychange', onVisibility);
    return () => {
      stopped = true;
      clearTimeout(timer);
      controller?.abort();
      document.removeEventListener('visibilitychange', onVisibility);
      runRef.current = () => undefined;
    };
  }, [accessToken, refreshKey]);

  const refresh = useCallback(() => runRef.current(), []);
  return { report, loading, error, refresh };
}
