/**
 * Calls to Tradewind's HTTP API on the web app's own origin (the ingress routes `/auth/*` and
 * `/api/*` to the services; deploy/routes.json). Every failure becomes an {@link ApiError} with
 * the status, code and message the service answered, so pages can show the server's own words.
 */

/** A failed API call. `status` 0 means the request never got an answer (network down, server gone). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

/** Message shown when the browser could not reach the API at all. */
export const NETWORK_ERROR_MESSAGE = 'Could not reach Tradewind. Check your connection and try again.';

/** Message of a failed answer whose body is not JSON (product spec §8). */
export const UNKNOWN_ERROR_MESSAGE = 'Unknown error';

/** Message of a 401 whose body names no reason, and of a call made while signed out (product spec §8). */
export const NO_SESSION_MESSAGE = 'No active session';

/** Message of a failed JSON answer without an error field: "HTTP {status}" (product spec §8). */
export function httpStatusMessage(status: number): string {
  return `HTTP ${status}`;
}

/** Marker for "the body could not be parsed as JSON" in {@link apiErrorMessage}. */
export const NOT_JSON: unique symbol = Symbol('not-json');

/**
 * The message of a failed answer (product spec §8), in this order:
 * - the server's error field: `message` (Tradewind's `{status, code, message}` body,
 *   services/lib/src/http.ts), else a string `error` field;
 * - 401 without one: "No active session";
 * - a JSON body without one: "HTTP {status}";
 * - a body that is not JSON (or empty): "Unknown error".
 * `body` is the parsed JSON, or `NOT_JSON` when parsing failed.
 */
export function apiErrorMessage(status: number, body: unknown): string {
  if (body !== NOT_JSON && body !== null && typeof body === 'object') {
    const b = body as { message?: unknown; error?: unknown };
    if (typeof b.message === 'string' && b.message.trim()) return b.message;
    if (typeof b.error === 'string' && b.error.trim()) return b.error;
  }
  if (status === 401) return NO_SESSION_MESSAGE;
  return body === NOT_JSON ? UNKNOWN_ERROR_MESSAGE : httpStatusMessage(status);
}

export interface ApiOptions {
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** JSON body. */
  body?: unknown;
  /** Bearer access token. */
  token?: string;
  signal?: AbortSignal;
}

/**
 * `fetch` of `path` with JSON in and out. Resolves to the parsed body of a 2xx answer (undefined
 * for 204 or a body that is not JSON). @throws ApiError for any other status, with the status,
 * the code (`code`, else `error`, else the status) and the message of {@link apiErrorMessage};
 * with status 0 when the network fails.
 */
export async function apiFetch<T>(path: string, options: ApiOptions = {}): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  let res: Response;
  try {
    res = await fetch(path, {
      method: options.method ?? 'GET',
      headers,
      credentials: 'same-origin',
      ...(options.body !== undefined ? { body: JSON.stringify(options.body) } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
    });
  } catch (err) {
    if (err instanceof DOMException && err.name === 'AbortError') throw err;
    throw new ApiError(0, 'network', NETWORK_ERROR_MESSAGE);
  }
  if (res.status === 204) return undefined as T;
  let body: unknown;
  try {
    body = await res.json();
  } catch {
    body = NOT_JSON;
  }
  if (!res.ok) {
    const b = (body !== NOT_JSON && body !== null && typeof body === 'object' ? body : {}) as { code?: unknown; error?: unknown };
    const code = typeof b.code === 'string' ? b.code : typeof b.error === 'string' ? b.error : String(res.status);
    throw new ApiError(res.status, code, apiErrorMessage(res.status, body));
  }
  if (body === NOT_JSON) return undefined as T;
  return body as T;
}

/** The user auth returns (docs/auth.md). */
export interface User {
  id: string;
  email: string;
  name: string | null;
  avatar_url: string | null;
  plan: 'starter' | 'plus' | 'pro';
  metadata: {
    tier: 'starter' | 'plus' | 'pro';
    billing_period: 'monthly' | 'yearly' | 'indefinite';
    subscription_status: string;
    subscription_type: 'free' | 'paid' | 'trial';
    trial_end_date: string | null;
  };
  created_at: string;
}

/** `GET /api/get-subscription` (docs/billing.md). Dates are ISO 8601 strings or null. */
export interface Subscription {
  tier: 'starter' | 'plus' | 'pro';
  billing_period: 'monthly' | 'yearly' | 'indefinite';
  status: string;
  next_billing_date: string | null;
  cancel_at_period_end: boolean;
  cancel_at: string | null;
  subscription_type: string;
  effective_plan: 'starter' | 'plus' | 'pro';
}

/** `GET /api/nats` (docs/nats.md): the signed-in user's messaging credentials. */
export interface NatsCredentials {
  nats_connection: string;
  ws_connection: string;
  user_jwt: string;
  user_nkey_seed: string;
  plan: 'starter' | 'plus' | 'pro';
  subjects: string[];
  max_connections: number;
  requests_per_minute: number;
  replay: boolean;
  account_public_key: string;
  user_public_key: string;
  /** ISO 8601 times of the user JWT. */
  issued_at: string;
  expires_at: string;
}

/** One row of `GET /api/birdeye/tokens` (docs/token-price.md); defined with its formatting rules. */
export type { TokenRow } from './lib/format';
