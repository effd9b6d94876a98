import { createContext, startTransition, useCallback, useContext, useEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import { createSessionClient, SessionError, type Session, type SessionClient } from '@tradewind/contracts/session-client';
import { NO_SESSION_MESSAGE, apiFetch, type User } from '../api';

/**
 * The signed-in state of the app. `loading` until the first refresh answers (the session lives
 * in auth's HttpOnly `tw_refresh` cookie; docs/auth.md), then `signed-in` or `signed-out`.
 */
export interface AuthState {
  status: 'loading' | 'signed-in' | 'signed-out';
  user: User | null;
  /** A valid access token (refreshed when near expiry). @throws SessionError 401 when signed out. */
  accessToken(): Promise<string>;
  /**
   * Reloads the user from `GET /auth/user` (after a plan change) with a valid access token (the
   * session is refreshed first when it is near expiry); resolves to the new user. The user state
   * keeps its identity when nothing changed. @throws ApiError
   */
  reloadUser(): Promise<User | null>;
  /**
   * Signs out in the spec's order (§4): sets {@link loggingOut}, forgets the session in this tab at
   * once (the user and the in-memory access token), then revokes it at auth (`POST /auth/logout`).
   * Callers navigate to `/`. Never rejects: when auth cannot be reached the tab is still signed
   * out, and the failure is logged (the refresh cookie then lives until auth sees it again).
   */
  signOut(): Promise<void>;
  /** True from the start of {@link signOut} until auth has answered. */
  loggingOut: boolean;
}

const AuthContext = createContext<AuthState | null>(null);

/** The auth state; must be used under {@link SessionProvider}. */
export function useAuth(): AuthState {
  const value = useContext(AuthContext);
  if (!value) throw new Error('useAuth must be used inside <SessionProvider>');
  return value;
}

/**
 * Fixed state for server rendering and tests: signed out, or signed in as `user`. `reloadUser`
 * (tests) replaces the default, which resolves to `user`.
 */
export function StaticAuthProvider({
  user = null,
  reloadUser,
  children,
}: {
  user?: User | null;
  reloadUser?: () => Promise<User | null>;
  children: ReactNode;
}) {
  const value = useMemo<AuthState>(
    () => ({
      status: user ? 'signed-in' : 'signed-out',
      user,
      accessToken: async () => {
        if (!user) throw new SessionError(401, NO_SESSION_MESSAGE);
        return 'test-access-token';
      },
      reloadUser: reloadUser ?? (async () => user),
      signOut: async () => undefined,
      loggingOut: false,
    }),
    [user, reloadUser],
  );
  return <AuthContext.Provider value={value}>{children}</AuthContext.Provider>;
}

/**
 * Keeps the browser's session: on mount it exchanges the refresh cookie for a session
 * (`POST /auth/token`), refreshes it before expiry, and signs out at auth.
 */
export function SessionProvider({ children, client: injected }: { children: ReactNode; client?: SessionClient<User> }) {
  const [status, setStatus] = useState<AuthState['status']>('loading');
  const [user, setUser] = useState<User | null>(null);
  const [loggingOut, setLoggingOut] = useState(false);
  const clientRef = useRef<SessionClient<User> | null>(injected ?? null);
  if (!clientRef.current) {
    clientRef.current = createSessionClient<User>({
      baseUrl: typeof window === 'undefined' ? '' : window.location.origin,
      // A transition: the prerendered page may still be hydrating (its route chunk loading), and
      // an urgent context change would make React throw the server HTML away and render afresh.
      onChange: (session: Session<User> | null) =>
        startTransition(() => {
          setUser(session ? session.user : null);
          setStatus(session ? 'signed-in' : 'signed-out');
        }),
    });
  }
  const client = clientRef.current;

  useEffect(() => {
    let live = true;
    client.refresh().catch(() => {
      if (live) {
        startTransition(() => {
          setUser(null);
          setStatus('signed-out');
        });
      }
    });
    return () => {
      live = false;
      client.dispose();
    };
  }, [client]);

  const reloadUser = useCallback(async () => {
    const session = client.session();
    if (!session) return null;
    const fresh = await apiFetch<User>('/auth/user', { token: await client.accessToken() });
    client.setSession({ ...session, user: fresh });
    // An unchanged user keeps its identity, so pages that reload on a user change (and retry after
    // reloading the user) do not loop when nothing changed.
    setUser((prev) => (prev && JSON.stringify(prev) === JSON.stringify(fresh) ? prev : fresh));
    return fresh;
  }, [client]);

  const value = useMemo<AuthState>(
    () => ({
      status,
      user,
      accessToken: () => client.accessToken(),
      reloadUser,
      signOut: async () => {
        setLoggingOut(true);
        setUser(null);
        setStatus('signed-out');
        try {
          await client.signOut();
        } catch (err) {
          console.warn('Sign-out could not reach auth; this tab is signed out', err);
        } finally {
          setLoggingOut(false);
        }
      },
      loggingOut,
    }),
    [status, user, client, reloadUser, loggingOut],
  );
  return <AuthContext.Provider value={value}>{children}</AuthContext.Provider>;
}
