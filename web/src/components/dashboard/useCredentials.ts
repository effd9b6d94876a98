import { fetchCredentials, type Credentials } from '../../lib/credentials';
import { useAuthedLoad } from './useAuthedLoad';

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
  const { data, ...rest } = useAuthedLoad(fetchCredentials, refreshKey);
  return { credentials: data, ...rest };
}
