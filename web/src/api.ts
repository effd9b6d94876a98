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

export interface ApiOptions {
  method?: 'GET' | 'POST';
  /** JSON body. */
  body?: unknown;
  /** Bearer access token. */
  token?: string;
  signal?: AbortSignal;
}

/**
 * `fetch` of `path` with JSON in and out. Resolves to the parsed body of a 2xx answer (undefined
 * for 204). @throws ApiError for any other status (its `{status, code, message}` body, or the
 * HTTP status text), and with status 0 when the network fails.
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
    body = undefined;
  }
  if (!res.ok) {
    const b = (body ?? {}) as { code?: unknown; message?: unknown; error?: unknown };
    const message = typeof b.message === 'string' ? b.message : res.statusText || `HTTP ${res.status}`;
    const code = typeof b.code === 'string' ? b.code : typeof b.error === 'string' ? b.error : String(res.status);
    throw new ApiError(res.status, code, message);
  }
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

/** One row of `GET /api/birdeye/tokens` (docs/token-price.md). Prices in USD unless named `...Sol`. */
export interface TokenRow {
  mint: string;
  symbol: string | null;
  name: string | null;
  price: number | null;
  marketCap: number | null;
  volume: number | null;
  change: number | null;
  timestamp: number;
  priceSol: number | null;
  marketCapSol: number | null;
  volumeSol: number | null;
  usdSource: 'stream' | 'config' | 'birdeye' | null;
  replayed: boolean;
}
