/**
 * The local OpenID Connect provider used when no GOOGLE_CLIENT_ID is configured (developer
 * machines and tests). It is `oauth2-mock-server` (authorization code + PKCE + nonce, RS256
 * id_tokens, discovery and JWKS) behind a small front that:
 *   - shows a page clearly labelled "Local sign-in — not Google" on `/authorize` where the
 *     developer types an email and name; `/authorize?...&login_hint=<email>` skips the page
 *     (tests, and Google accepts the same parameter);
 *   - puts that identity into the id_token (`sub` stable per email, `email`, `email_verified`,
 *     `name`, `picture`);
 *   - serves the signing keys as `{kid: PEM}` on `/oauth2/v1/certs`, the format
 *     google-auth-library's `verifyIdToken` fetches on Node (Google serves the same shape at
 *     https://www.googleapis.com/oauth2/v1/certs), so auth runs its Google code path unchanged.
 * Never started when Google is configured or NODE_ENV=production (the auth config refuses it).
 */
import { createHash, createPublicKey } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { OAuth2Issuer, OAuth2Service, type MutableRedirectUri, type MutableToken } from 'oauth2-mock-server';

/** Endpoints a client needs; all under `issuer`. */
export interface LocalOidcProvider {
  /** Issuer URL (`iss` of its tokens), e.g. `http://localhost:8091`. */
  issuer: string;
  authorizationUrl: string;
  tokenUrl: string;
  /** `{kid: PEM public key}` for google-auth-library. */
  pemCertsUrl: string;
  jwksUrl: string;
  stop(): Promise<void>;
}

interface LocalIdentity {
  email: string;
  name: string;
}

/** How long an issued code remembers its identity (ms); codes are single-use at the token endpoint. */
const CODE_TTL_MS = 10 * 60 * 1000;

/**
 * Starts the provider on `host:port` (port 0 = any free port).
 * @param options.publicHost host name put into the issuer URL (default `localhost`), as the browser sees it.
 */
export async function startLocalOidcProvider(options: { port: number; host?: string; publicHost?: string }): Promise<LocalOidcProvider> {
  const issuer = new OAuth2Issuer();
  await issuer.keys.generate('RS256');
  const service = new OAuth2Service(issuer);
  const identities = new Map<string, LocalIdentity & { at: number }>();

  service.on('beforeAuthorizeRedirect', (redirect: MutableRedirectUri, req: { url?: string }) => {
    const query = new URL(req.url ?? '/', 'http://local').searchParams;
    const code = redirect.url.searchParams.get('code');
    const email = query.get('login_hint');
    if (!code || !email) return;
    const now = Date.now();
    for (const [k, v] of identities) if (now - v.at > CODE_TTL_MS) identities.delete(k);
    identities.set(code, { email: email.trim().toLowerCase(), name: (query.get('local_name') ?? '').trim() || email.split('@')[0]!, at: now });
  });
  service.on('beforeTokenSigning', (token: MutableToken, req: { body?: Record<string, unknown> }) => {
    const code = typeof req.body?.code === 'string' ? req.body.code : undefined;
    const identity = code ? identities.get(code) : undefined;
    if (!identity) return;
    Object.assign(token.payload, {
      sub: `local-${createHash('sha256').update(identity.email).digest('hex').slice(0, 20)}`,
      email: identity.email,
      email_verified: true,
      name: identity.name,
      picture: '',
    });
  });

  const handler = service.requestHandler;
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://local');
    if (req.method === 'GET' && url.pathname === '/oauth2/v1/certs') {
      const certs: Record<string, string> = {};
      for (const jwk of issuer.keys.toJSON()) {
        const { kid, ...publicJwk } = jwk as unknown as Record<string, string>;
        certs[kid!] = createPublicKey({ key: publicJwk, format: 'jwk' }).export({ type: 'spki', format: 'pem' }).toString();
      }
      res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'public, max-age=60' });
      res.end(JSON.stringify(certs));
      return;
    }
    if (req.method === 'GET' && url.pathname === '/authorize' && !url.searchParams.get('login_hint') && !url.searchParams.has('error')) {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
      res.end(signInPage(url.searchParams));
      return;
    }
    if (req.method === 'GET' && url.pathname === '/authorize' && url.searchParams.get('error')) {
      // "Cancel" on the page: answer like Google does when the user declines.
      const back = new URL(url.searchParams.get('redirect_uri') ?? '/');
      back.searchParams.set('error', 'access_denied');
      const state = url.searchParams.get('state');
      if (state) back.searchParams.set('state', state);
      res.writeHead(302, { location: back.toString() });
      res.end();
      return;
    }
    handler(req, res);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host ?? '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const base = `http://${options.publicHost ?? 'localhost'}:${port}`;
  issuer.url = base;
  return {
    issuer: base,
    authorizationUrl: `${base}/authorize`,
    tokenUrl: `${base}/token`,
    pemCertsUrl: `${base}/oauth2/v1/certs`,
    jwksUrl: `${base}/jwks`,
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

/** The labelled sign-in form: resubmits the authorization request with `login_hint` and `local_name`. */
function signInPage(params: URLSearchParams): string {
  const hidden = [...params]
    .filter(([k]) => k !== 'login_hint' && k !== 'local_name')
    .map(([k, v]) => `<input type="hidden" name="${escapeHtml(k)}" value="${escapeHtml(v)}">`)
    .join('\n      ');
  const cancel = new URLSearchParams(params);
  cancel.set('error', 'access_denied');
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Local sign-in (not Google) · Tradewind</title>
<style>
  body { font-family: system-ui, sans-serif; background: #0b1220; color: #e5e7eb; display: grid; place-items: center; min-height: 100vh; margin: 0; }
  main { background: #111a2e; padding: 2rem; border-radius: 12px; max-width: 26rem; width: 100%; box-shadow: 0 10px 30px #0008; }
  .badge { display: inline-block; background: #f59e0b; color: #111; font-weight: 700; padding: .2rem .6rem; border-radius: 999px; font-size: .8rem; }
  label { display: block; margin-top: 1rem; font-size: .9rem; }
  input[type=email], input[type=text] { width: 100%; box-sizing: border-box; padding: .6rem; margin-top: .3rem; border-radius: 8px; border: 1px solid #334155; background: #0b1220; color: inherit; }
  button { margin-top: 1.4rem; width: 100%; padding: .7rem; border: 0; border-radius: 8px; background: #22d3ee; color: #06202a; font-weight: 700; cursor: pointer; }
  a { color: #93c5fd; }
</style></head>
<body><main>
  <span class="badge">LOCAL DEVELOPMENT PROVIDER</span>
  <h1>Local sign-in — not Google</h1>
  <p>No <code>GOOGLE_CLIENT_ID</code> is configured, so this machine signs you in with a local OpenID Connect provider.
  Any email works; the same email always maps to the same account.</p>
  <form method="get" action="/authorize">
      ${hidden}
    <label>Email <input type="email" name="login_hint" required value="developer@localhost.test" autocomplete="email"></label>
    <label>Name <input type="text" name="local_name" value="Local Developer" autocomplete="name"></label>
    <button type="submit">Continue as this user</button>
  </form>
  <p><a href="/authorize?${escapeHtml(cancel.toString())}">Cancel</a></p>
</main></body></html>`;
}
