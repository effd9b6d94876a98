import { useCallback, useEffect, useState } from 'react';
import { useAuth } from '../../session/session';
import { errorMessage, fetchCredentials, type Credentials } from '../../lib/credentials';

/** Load state of the user's NATS credentials. */
export interface CredentialsState {
  credentials: Credentials | null;
  loading: boolean;
  /** The server's message when the last load failed. */
  error: string | null;
  /** Loads again (the Retry button). */
  retry(): void;
  /** Replaces the shown credentials (after a rotation). */
  replace(next: Credentials): void;
}

/** Fetches `GET /api/nats` on mount and whenever `refreshKey` changes. */
export function useCredentials(refreshKey: number = 0): CredentialsState {
  const { accessToken } = useAuth();
  const [credentials, setCredentials] = useState<Credentials | null>(null);
  const [loading, setLoading] = useState(true);
  const [error, setError] = useState<string | null>(null);
  const [attempt, setAttempt] = useState(0);

  useEffect(() => {
    const controller = new AbortController();
    setLoading(true);
    setError(null);
    (async () => {
      try {
        const token = await accessToken();
        const creds = await fetchCredentials(token, controller.signal);
        if (!controller.signal.aborted) setCredentials(creds);
      } catch (err) {
        if (!controller.signal.aborted) setError(errorMessage(err));
      } finally {
        if (!controller.signal.aborted) setLoading(false);
      }
    })();
    return () => controller.abort();
  }, [accessToken, attempt, refreshKey]);

  const retry = useCallback(() => setAttempt((a) => a + 1), []);
  const replace = useCallback((next: Credentials) => {
    setCredentials(next);
    setError(null);
  }, []);
  return { credentials, loading, error, retry, replace };
}
