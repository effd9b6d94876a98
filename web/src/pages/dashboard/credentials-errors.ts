/**
 * The credentials panel's failure wording (product spec §8, "Credentials panel") and the loader
 * that turns any failure of `GET /api/nats` into one of those texts.
 */
import { ApiError, UNKNOWN_ERROR_MESSAGE, httpStatusMessage } from '../../api';
import { fetchCredentials, type Credentials } from '../../lib/credentials';

/** Heading of the panel when the first load failed. */
export const CREDENTIALS_LOAD_FAILED = 'Failed to load credentials';
/** Shown when the answer was OK but lacked a connection URL, JWT or seed. */
export const CONNECTION_DETAILS_MISSING = 'Failed to fetch connection details';
/** Shown when the server's answer named no reason (only "Unknown error" / "HTTP {status}"). */
export const CREDENTIALS_FETCH_FAILED = 'Failed to fetch credentials.';
/** Shown for a failure that is not an `Error` at all. */
export const CREDENTIALS_UNKNOWN_ERROR = 'An unknown error occurred.';
/** Shown when reloading failed while earlier credentials are still on screen. */
export const CREDENTIALS_REFRESH_FAILED = 'Failed to refresh credentials';
/** Hint under the load failure: the credentials are issued a moment after payment or sign-up. */
export const CREDENTIALS_WAIT_HINT = 'If you just completed payment or registration, please wait a moment and refresh the page';
/** Label of the button that reloads the whole page. */
export const REFRESH_PAGE_LABEL = 'Refresh Page';

/**
 * The panel's message for a failed load:
 * - an {@link ApiError} whose message is only the generic "Unknown error" / "HTTP {status}" →
 *   "Failed to fetch credentials. (HTTP 502)" (the generic text kept as detail);
 * - any other `Error` with a message → that message (the server's own words, e.g.
 *   "Failed to fetch NATS credentials", or "Failed to fetch connection details");
 * - an `Error` without a message → "Failed to fetch credentials.";
 * - anything else → "An unknown error occurred.".
 */
export function credentialsErrorText(err: unknown): string {
  if (err instanceof ApiError && (err.message === UNKNOWN_ERROR_MESSAGE || err.message === httpStatusMessage(err.status))) {
    return `${CREDENTIALS_FETCH_FAILED} (${err.message})`;
  }
  if (err instanceof Error) return err.message.trim() ? err.message : CREDENTIALS_FETCH_FAILED;
  return CREDENTIALS_UNKNOWN_ERROR;
}

const REQUIRED = ['ws_connection', 'nats_connection', 'user_jwt', 'user_nkey_seed'] as const;

/** `creds` when it has non-empty connection URLs, JWT and seed. @throws Error "Failed to fetch connection details" otherwise. */
export function requireConnectionDetails(creds: unknown): Credentials {
  const c = (creds ?? {}) as Record<string, unknown>;
  if (typeof creds !== 'object' || REQUIRED.some((k) => typeof c[k] !== 'string' || !(c[k] as string))) {
    throw new Error(CONNECTION_DETAILS_MISSING);
  }
  return creds as Credentials;
}

/**
 * `GET /api/nats` for the panel. @throws Error whose message is {@link credentialsErrorText} of
 * the failure (an abort is rethrown unchanged).
 */
export async function loadPanelCredentials(token: string, signal: AbortSignal): Promise<Credentials> {
  let creds: unknown;
  try {
    creds = await fetchCredentials(token, signal);
  } catch (err) {
    if (signal.aborted) throw err;
    throw new Error(credentialsErrorText(err), { cause: err });
  }
  return requireConnectionDetails(creds);
}
