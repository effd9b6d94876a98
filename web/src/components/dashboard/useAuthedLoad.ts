import { useCallback, useEffect, useState } from 'react';
import { useAuth } from '../../session/session';
import { errorMessage } from '../../lib/credentials';

/** Load state of one signed-in API read. */
export interface AuthedLoad<T> {
  data: T | null;
  loading: boolean;
  /** The server's message when the last load failed. */
  error: string | null;
  /** Loads again (the Retry button). */
  retry(): void;
  /** Replaces the shown value (e.g. after a rotation) and clears the error. */
  replace(next: T): void;
}

/**
 * Runs `load(accessToken, signal)` on mount, on `retry()` and whenever `refreshKey` changes
 * (compared with Object.is: a counter, or a string such as `${counter}:${plan}`);
 * an unmount or a newer load aborts the previous one, whose result is then dropped.
 * `load` must be stable (module-level or memoised).
 */
export function useAuthedLoad<T>(load: (token: string, signal: AbortSignal) => Promise<T>, refreshKey: unknown = 0): AuthedLoad<T> {
  const { accessToken } = useAuth();
  const [data, setData] = useState<T | null>(null);
  const [loading, setLoading] = useState(true);
  const [error, setError] = useState<string | null>(null);
  const [attempt, setAttempt] = useState(0);

  useEffect(() => {
    const controller = new AbortController();
    setLoading(true);
    setError(null);
    (async () => {
      try {
        const value = await load(await accessToken(), controller.signal);
        if (!controller.signal.aborted) setData(value);
      } catch (err) {
        if (!controller.signal.aborted) setError(errorMessage(err));
      } finally {
        if (!controller.signal.aborted) setLoading(false);
      }
    })();
    return () => controller.abort();
  }, [load, accessToken, attempt, refreshKey]);

  const retry = useCallback(() => setAttempt((a) => a + 1), []);
  const replace = useCallback((next: T) => {
    setData(next);
    setError(null);
  }, []);
  return { data, loading, error, retry, replace };
}
