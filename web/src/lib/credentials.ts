/**
 * The signed-in user's NATS credentials (docs/nats.md): fetch, rotate, download as a `.creds`
 * file, and the wording the dashboard shows around them. The secrets stay in memory only: never
 * in URLs, storage or logs.
 */
import { ApiError, NETWORK_ERROR_MESSAGE, apiFetch, type NatsCredentials } from '../api';

/** `GET /api/nats` (docs/nats.md). */
export type Credentials = NatsCredentials;

export type Transport = 'websocket' | 'nats';

/** File name of the downloaded credentials (the starter templates read `./tradewind.creds`). */
export const CREDS_FILE_NAME = 'tradewind.creds';

/** What a masked secret shows: a fixed number of bullets, so the length is not revealed either. */
export const MASK = '•'.repeat(24);

/** `GET /api/nats`. @throws ApiError with the server's message (401, 500 "Failed to fetch NATS credentials", …). */
export function fetchCredentials(token: string, signal?: AbortSignal): Promise<Credentials> {
  return apiFetch<Credentials>('/api/nats', { token, ...(signal ? { signal } : {}) });
}

/**
 * `POST /api/nats`: new user JWT and NKey seed; the old ones are revoked and live connections
 * using them are dropped. @throws ApiError (429 after too many rotations, 500 "Failed to rotate NATS credentials").
 */
export function rotateCredentials(token: string): Promise<Credentials> {
  return apiFetch<Credentials>('/api/nats', { method: 'POST', body: {}, token });
}

/**
 * `GET /api/nats?format=creds`: the standard `.creds` text (user JWT + NKey seed).
 * @throws ApiError with the server's `message` (JSON error body) or the HTTP status text.
 */
export async function fetchCredsFile(token: string): Promise<string> {
  let res: Response;
  try {
    res = await fetch('/api/nats?format=creds', {
      headers: { authorization: `Bearer ${token}`, accept: 'text/plain, application/json' },
      credentials: 'same-origin',
    });
  } catch {
    throw new ApiError(0, 'network', NETWORK_ERROR_MESSAGE);
  }
  const text = await res.text();
  if (!res.ok) {
    let message = res.statusText || `HTTP ${res.status}`;
    let code = String(res.status);
    try {
      const body = JSON.parse(text) as { message?: unknown; error?: unknown; code?: unknown };
      if (typeof body.message === 'string') message = body.message;
      if (typeof body.error === 'string') code = body.error;
      else if (typeof body.code === 'string') code = body.code;
    } catch {
      // not JSON: keep the status text
    }
    throw new ApiError(res.status, code, message);
  }
  return text;
}

/** Saves `text` as a file named `fileName` through a temporary object URL (browser only). */
export function downloadText(fileName: string, text: string, mime = 'text/plain'): void {
  const url = URL.createObjectURL(new Blob([text], { type: mime }));
  const a = document.createElement('a');
  a.href = url;
  a.download = fileName;
  a.rel = 'noopener';
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 0);
}

/** The server URL for a transport: `ws_connection` or `nats_connection`. */
export function connectionUrl(creds: Pick<NatsCredentials, 'ws_connection' | 'nats_connection'>, transport: Transport): string {
  return transport === 'websocket' ? creds.ws_connection : creds.nats_connection;
}

/**
 * A ready-to-run snippet for a transport. It reads the secrets from the `.creds` file or
 * environment variables, never embedding them, so it can be shown unmasked and pasted anywhere.
 * - websocket: Node.js ≥ 22 (global WebSocket), the protocol of docs/websocket.md;
 * - nats: the `nats` CLI with the downloaded `.creds` file.
 */
export function connectionSnippet(transport: Transport, url: string): string {
  if (transport === 'nats') {
    return [`# Save ${CREDS_FILE_NAME} with “Download .creds”, then:`, `nats sub 'basic.pumpfun' --server ${url} --creds ./${CREDS_FILE_NAME}`].join('\n');
  }
  return [
    '// Node.js 22 or later: TW_JWT=<User JWT> TW_SEED=<NKey seed> node stream.mjs',
    `const ws = new WebSocket('${url}');`,
    'ws.onmessage = (event) => {',
    '  const msg = JSON.parse(event.data);',
    "  if (msg.type === 'challenge') ws.send(JSON.stringify({ jwt: process.env.TW_JWT, nkey: process.env.TW_SEED }));",
    "  else if (msg.type === 'authenticated') ws.send(JSON.stringify({ subject: 'basic.pumpfun' }));",
    '  else console.log(msg);',
    '};',
  ].join('\n');
}

/** A readable message for any error thrown by these helpers or the session. */
export function errorMessage(err: unknown): string {
  if (err instanceof Error && err.message) return err.message;
  return 'Something went wrong. Please try again.';
}
