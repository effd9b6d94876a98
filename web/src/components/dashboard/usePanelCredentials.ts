import { useCallback } from 'react';
import { useAuth } from '../../session/session';
import { loadPanelCredentials } from '../../pages/dashboard/credentials-errors';
import { useAuthedLoad, type AuthedLoad } from './useAuthedLoad';
import type { Credentials } from '../../lib/credentials';

/** The connection panel's credentials load, with the spec's refresh. */
export interface PanelCredentials extends AuthedLoad<Credentials> {
  /**
   * Spec §4 "Credentials refresh": reloads the user with a valid access token (the session is
   * refreshed first when near expiry), then fetches `GET /api/nats` again. A failed user reload
   * does not stop the refetch, whose own error is what the panel shows.
   */
  refresh(): Promise<void>;
}

/**
 * `GET /api/nats` for the connection panels (Dashboard and Settings → Connection Details): loaded
 * on mount, when `refreshKey` changes and whenever the user's plan changes (spec §4: "Credentials
 * are also refetched whenever the user's plan changes"), since the plan decides the subjects and
 * limits the credentials carry. Pass the layout's `planDataRefreshKey` (DashboardContext), which
 * skips a checkout return that ended on a new plan: that plan change refetches already, so one
 * checkout is one fetch.
 */
export function usePanelCredentials(refreshKey: number = 0): PanelCredentials {
  const { user, reloadUser } = useAuth();
  const state = useAuthedLoad(loadPanelCredentials, `${refreshKey}:${user?.plan ?? ''}`);
  const { retry } = state;
  const refresh = useCallback(async () => {
    try {
      await reloadUser();
    } catch {
      // the refetch below reports the failure the user can act on
    }
    retry();
  }, [reloadUser, retry]);
  return { ...state, refresh };
}
