/**
 * Browser/Node client for auth sessions (no Node-only imports; the web app imports it as
 * `@tradewind/contracts/session-client`). It keeps the session of the product spec
 * ({access_token, refresh_token, expires_in, expires_at, token_type, user}) fresh: a timer
 * refreshes it `refreshMarginSeconds` before `expires_at` through `POST /auth/token`, and
 * `accessToken()` refreshes first when the token is that close to expiry. Concurrent callers
 * share one refresh request, so a rotated refresh token is never presented twice.
 */

/** The session object auth returns. `expires_at` is seconds since the epoch. */
export interface Session<User = unknown> {
  access_token: string;
  refresh_token: string;
  expires_in: number;
  expires_at: number;
  token_type: 'bearer';
  user: User;
}

/** Options of {@link createSessionClient}. */
export interface SessionClientOptions<User> {
  /** Origin serving `/auth/*` (the web app's own origin in the browser). */
  baseUrl: string;
  /** Refresh this many seconds before expiry (default 60). */
  refreshMarginSeconds?: number;
  /** fetch to use (default globalThis.fetch); the browser sends the refresh cookie with `credentials: 'include'`. */
  fetch?: typeof fetch;
  /** Called with the new session after each refresh, and with null when the session ended. */
  onChange?: (session: Session<User> | null) => void;
}

/** Error with the status and message auth answered (e.g. 401 "No active session"). */
export class SessionError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = 'SessionError';
  }
}

export interface SessionClient<User> {
  /** The current session, or null. */
  session(): Session<User> | null;
  /** Adopts a session (e.g. from a sign-in) and schedules its refresh. */
  setSession(session: Session<User> | null): void;
  /** Exchanges the refresh token (from the session, else the HttpOnly cookie) for a new session. @throws SessionError */
  refresh(): Promise<Session<User>>;
  /** A valid access token, refreshing first when it expires within the margin. @throws SessionError when there is no session. */
  accessToken(): Promise<string>;
  /** Revokes the session at auth and forgets it. */
  signOut(): Promise<void>;
  /** Cancels the refresh timer. */
  dispose(): void;
}

export function createSessionClient<User = unknown>(options: SessionClientOptions<User>): SessionClient<User> {
  const doFetch = options.fetch ?? globalThis.fetch.bind(globalThis);
  const margin = options.refreshMarginSeconds ?? 60;
  const base = options.baseUrl.replace(/\/$/, '');
  let current: Session<User> | null = null;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let inFlight: Promise<Session<User>> | undefined;

  function schedule(): void {
    if (timer) clearTimeout(timer);
    timer = undefined;
    if (!current) return;
    const dueMs = Math.max(0, (current.expires_at - margin) * 1000 - Date.now());
    timer = setTimeout(() => {
      client.refresh().catch(() => undefined);
    }, dueMs);
    (timer as { unref?: () => void }).unref?.();
  }

  async function errorOf(res: Response): Promise<SessionError> {
    let message = res.statusText;
    try {
      const body = (await res.json()) as { message?: string };
      if (body.message) message = body.message;
    } catch {
      // not JSON
    }
    return new SessionError(res.status, message);
  }

  const client: SessionClient<User> = {
    session: () => current,
    setSession(session) {
      current = session;
      schedule();
    },
    refresh() {
      inFlight ??= (async () => {
        try {
          const res = await doFetch(`${base}/auth/token`, {
            method: 'POST',
            credentials: 'include',
            headers: current ? { 'content-type': 'application/json' } : {},
            ...(current ? { body: JSON.stringify({ refresh_token: current.refresh_token }) } : {}),
          });
          if (!res.ok) {
            const err = await errorOf(res);
            if (res.status === 401) {
              current = null;
              schedule();
              options.onChange?.(null);
            }
            throw err;
          }
          current = (await res.json()) as Session<User>;
          schedule();
          options.onChange?.(current);
          return current;
        } finally {
          inFlight = undefined;
        }
      })();
      return inFlight;
    },
    async accessToken() {
      if (!current) throw new SessionError(401, 'No active session');
      if (current.expires_at - margin <= Date.now() / 1000) return (await client.refresh()).access_token;
      return current.access_token;
    },
    async signOut() {
      const session = current;
      current = null;
      schedule();
      await doFetch(`${base}/auth/logout`, {
        method: 'POST',
        credentials: 'include',
        headers: session ? { authorization: `Bearer ${session.access_token}`, 'content-type': 'application/json' } : {},
        ...(session ? { body: JSON.stringify({ refresh_token: session.refresh_token }) } : {}),
      });
      options.onChange?.(null);
    },
    dispose() {
      if (timer) clearTimeout(timer);
      timer = undefined;
    },
  };
  return client;
}
