/**
 * The browser-facing security headers of the public origin, defined once (docs/web.md, "Browser
 * security"). Two header sets:
 *
 * - {@link htmlSecurityHeaders}: every HTML answer of the web server (web/server): a Content Security
 *   Policy that allows only what the app loads ({@link htmlContentSecurityPolicy}), plus the
 *   {@link COMMON_SECURITY_HEADERS};
 * - {@link API_SECURITY_HEADERS}: every answer of the services' routes (`/auth/*`, `/api/*` except the
 *   web's documents), set by the ingress — the local one (dev/src/ingress-proxy.ts) and the chart's
 *   Ingress, whose `ingress.securityHeaders` values scripts/test/chart.test.ts holds equal to this.
 *
 * The per-deployment parts of the HTML policy (the WebSocket endpoint, the sign-in and checkout
 * hosts, avatar hosts) come from {@link WebSecuritySettings}, which web/server/main.ts reads from its
 * environment ({@link webSecuritySettingsFromEnv}).
 *
 * Sources: CSP Level 3 (W3C), Referrer Policy (W3C), Permissions Policy (W3C; the feature names are
 * those Chromium recognises, an unknown one is a console error there), HTML's
 * Cross-Origin-Opener-Policy, RFC 7034 (X-Frame-Options), RFC 6797 (HSTS).
 */
import { createHash } from 'node:crypto';

/**
 * Browser features the app never uses, turned off for the page and every frame it could embed.
 * Not listed: clipboard-write (the dashboard's Copy buttons) and clipboard-read (off by default
 * behind the browser's permission prompt; the browser tests read back what Copy wrote).
 */
export const DISABLED_BROWSER_FEATURES = [
  'accelerometer',
  'autoplay',
  'bluetooth',
  'camera',
  'display-capture',
  'encrypted-media',
  'fullscreen',
  'geolocation',
  'gyroscope',
  'hid',
  'idle-detection',
  'local-fonts',
  'magnetometer',
  'microphone',
  'midi',
  'payment',
  'picture-in-picture',
  'publickey-credentials-get',
  'screen-wake-lock',
  'serial',
  'usb',
  'web-share',
  'xr-spatial-tracking',
] as const;

/** `Permissions-Policy` value: every {@link DISABLED_BROWSER_FEATURES} entry with an empty allow list. */
export const PERMISSIONS_POLICY = DISABLED_BROWSER_FEATURES.map((f) => `${f}=()`).join(', ');

/**
 * Headers every answer of the origin carries, HTML or API (names lower-case, as Node sends them):
 * no MIME sniffing, no framing in browsers without CSP `frame-ancestors`, the opener relation cut
 * for cross-origin windows (a checkout tab cannot reach back into the dashboard), the features above off.
 */
export const COMMON_SECURITY_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'cross-origin-opener-policy': 'same-origin',
  'permissions-policy': PERMISSIONS_POLICY,
});

/** `Referrer-Policy` of HTML pages: the full URL same-origin, only the origin cross-origin, nothing on a downgrade. */
export const HTML_REFERRER_POLICY = 'strict-origin-when-cross-origin';

/**
 * CSP of the services' answers: JSON and redirects load nothing, so nothing is allowed; opened as a
 * document (a user following a link to `/api/nats`), such an answer can run no script, be framed by
 * no one, and submit no form.
 */
export const API_CONTENT_SECURITY_POLICY = "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

/**
 * The headers the ingress sets on every answer of the services' routes (it replaces a service's
 * own value of the same name, as ingress-nginx's `more_set_headers` does):
 * {@link API_CONTENT_SECURITY_POLICY}, {@link COMMON_SECURITY_HEADERS}, `Referrer-Policy:
 * no-referrer` (the answers a browser follows are auth's redirects, whose URLs carry OAuth codes and
 * state, and the newsletter's one-click link with its token: the next page must not see them; an
 * HTML page's referrer rule is {@link HTML_REFERRER_POLICY}), and `Cross-Origin-Resource-Policy:
 * same-origin` (another site cannot embed a per-user answer as an image or script). Cache-Control is
 * the service's: every HTTP service answers `no-store` unless a route says otherwise
 * (`createHttpApp`), since only the service knows which answers are public (the token list, the JWKS).
 */
export const API_SECURITY_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'content-security-policy': API_CONTENT_SECURITY_POLICY,
  ...COMMON_SECURITY_HEADERS,
  'referrer-policy': 'no-referrer',
  'cross-origin-resource-policy': 'same-origin',
});

/**
 * `Strict-Transport-Security` of the TLS ingress (RFC 6797): one year, subdomains included (the
 * WebSocket host is one). Never sent over plain HTTP (browsers ignore it there, and a local run is
 * plain HTTP); the chart sets it only when `ingress.tls` is configured.
 */
export const HSTS_VALUE = 'max-age=31536000; includeSubDomains';

/** The per-deployment parts of the HTML policy. Each origin is `scheme://host[:port]`, no path. */
export interface WebSecuritySettings {
  /** The WebSocket endpoint the dashboard hands out (`WS_PUBLIC_URL`, e.g. `wss://ws.tradewind.example`); its origin goes into `connect-src`. */
  websocketUrl: string;
  /** Where sign-in happens (`CSP_SIGN_IN_ORIGINS`: Google's `https://accounts.google.com`, locally the OpenID stand-in). */
  signInOrigins: readonly string[];
  /** Where checkout and the billing portal happen (`CSP_CHECKOUT_ORIGINS`: `https://checkout.stripe.com https://billing.stripe.com`, locally the Stripe stand-in). */
  checkoutOrigins: readonly string[];
  /** Hosts of images the app shows besides its own (`CSP_IMAGE_ORIGINS`: the identity provider's avatar pictures). */
  imageOrigins: readonly string[];
}

/** Environment defaults of {@link webSecuritySettingsFromEnv}: the local stack of `npm start` (deploy/services.json ports). */
export const DEFAULT_WEB_SECURITY_ENV = Object.freeze({
  WS_PUBLIC_URL: 'ws://localhost:9223',
  CSP_SIGN_IN_ORIGINS: 'http://localhost:8091',
  CSP_CHECKOUT_ORIGINS: 'http://localhost:8092',
  CSP_IMAGE_ORIGINS: '',
});

/** A CSP host source this module accepts: scheme, host (optionally `*.` first), optional port. Nothing that could end a directive. */
const ORIGIN_SOURCE = /^(https?|wss?):\/\/(\*\.)?[a-z0-9-]+(\.[a-z0-9-]+)*(:\d{1,5})?$/;

/**
 * Checks one origin of the settings. @throws Error naming `setting` when it is not
 * `scheme://host[:port]` with scheme http, https, ws or wss (a path, a quote, a `;` or a space is refused).
 */
export function cspOrigin(value: string, setting: string): string {
  const v = value.trim().replace(/\/$/, '').toLowerCase();
  if (!ORIGIN_SOURCE.test(v)) throw new Error(`${setting}: "${value}" is not an origin (scheme://host[:port], scheme http, https, ws or wss)`);
  return v;
}

/** A space- or comma-separated list of origins from the environment. @throws Error as {@link cspOrigin}. */
export function cspOriginList(value: string | undefined, setting: string): string[] {
  return (value ?? '')
    .split(/[\s,]+/)
    .filter(Boolean)
    .map((v) => cspOrigin(v, setting));
}

/**
 * The settings from the environment (`WS_PUBLIC_URL`, `CSP_SIGN_IN_ORIGINS`,
 * `CSP_CHECKOUT_ORIGINS`, `CSP_IMAGE_ORIGINS`), each defaulting to {@link DEFAULT_WEB_SECURITY_ENV}
 * when unset (an empty `CSP_*` list means none). @throws Error naming the first bad setting.
 */
export function webSecuritySettingsFromEnv(env: Record<string, string | undefined>): WebSecuritySettings {
  const get = (name: keyof typeof DEFAULT_WEB_SECURITY_ENV) => env[name] ?? DEFAULT_WEB_SECURITY_ENV[name];
  const ws = get('WS_PUBLIC_URL');
  let wsOrigin: string;
  try {
    const url = new URL(ws);
    if (url.protocol !== 'ws:' && url.protocol !== 'wss:') throw new Error('not ws: or wss:');
    wsOrigin = `${url.protocol}//${url.host}`;
  } catch {
    throw new Error(`WS_PUBLIC_URL: "${ws}" is not a ws:// or wss:// URL`);
  }
  return {
    websocketUrl: cspOrigin(wsOrigin, 'WS_PUBLIC_URL'),
    signInOrigins: cspOriginList(get('CSP_SIGN_IN_ORIGINS'), 'CSP_SIGN_IN_ORIGINS'),
    checkoutOrigins: cspOriginList(get('CSP_CHECKOUT_ORIGINS'), 'CSP_CHECKOUT_ORIGINS'),
    imageOrigins: cspOriginList(get('CSP_IMAGE_ORIGINS'), 'CSP_IMAGE_ORIGINS'),
  };
}

/** Matches an inline classic or data `<script>` (no `src`) and captures its text. */
const INLINE_SCRIPT = /<script\b(?![^>]*\ssrc\s*=)[^>]*>([\s\S]*?)<\/script\s*>/gi;

/**
 * The CSP hash source of every inline `<script>` in `html` (the theme bootstrap script, the
 * JSON-LD blocks), in document order without repeats: `'sha256-<base64 of the UTF-8 text>'` (CSP3
 * §8.4, the text exactly as between the tags). JSON-LD blocks are data that browsers never run
 * (and CSP does not govern); listing them states every inline script the page holds.
 */
export function inlineScriptHashes(html: string): string[] {
  const hashes = new Set<string>();
  for (const m of html.matchAll(INLINE_SCRIPT)) hashes.add(`'sha256-${createHash('sha256').update(m[1]!, 'utf8').digest('base64')}'`);
  return [...hashes];
}

const unique = (xs: readonly string[]) => [...new Set(xs)];

/**
 * The CSP of one HTML page: nothing by default; scripts and styles only from the origin's files
 * (scripts also the page's own inline ones by hash, `scriptHashes` from {@link inlineScriptHashes};
 * no `'unsafe-inline'` for either: React sets its `style` props through the CSSOM, which CSP does
 * not govern, and the prerendered markup carries no `style` attribute); images from the origin and
 * `imageOrigins`; fetches to the origin and the WebSocket endpoint; no plugins, no `<base>`, forms
 * only to the origin and the sign-in and checkout hosts (a form submission's redirects are checked
 * too), no framing by anyone.
 */
export function htmlContentSecurityPolicy(settings: WebSecuritySettings, scriptHashes: readonly string[] = []): string {
  const list = (xs: readonly string[]) => unique(xs).join(' ');
  return [
    "default-src 'none'",
    `script-src ${list(["'self'", ...scriptHashes])}`,
    "style-src 'self'",
    `img-src ${list(["'self'", ...settings.imageOrigins])}`,
    `connect-src ${list(["'self'", settings.websocketUrl])}`,
    "object-src 'none'",
    "base-uri 'none'",
    `form-action ${list(["'self'", ...settings.signInOrigins, ...settings.checkoutOrigins])}`,
    "frame-ancestors 'none'",
  ].join('; ');
}

/** Every header of an HTML answer: {@link htmlContentSecurityPolicy}, {@link HTML_REFERRER_POLICY} and {@link COMMON_SECURITY_HEADERS}. */
export function htmlSecurityHeaders(settings: WebSecuritySettings, scriptHashes: readonly string[] = []): Record<string, string> {
  return {
    'content-security-policy': htmlContentSecurityPolicy(settings, scriptHashes),
    'referrer-policy': HTML_REFERRER_POLICY,
    ...COMMON_SECURITY_HEADERS,
  };
}
