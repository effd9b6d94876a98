/**
 * What the browser security tests of web/e2e/app.test.ts hold the origin to (issue 35; docs/web.md,
 * "Browser security"). The expected values are written here from the requirements, not read
 * from @tradewind/lib/security-headers, so a change of the policy module shows up as a failing
 * test, not as a silently moved expectation. Also: a page on another origin that frames a path.
 */
import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'vitest';

/** The WebSocket endpoint of the local stack (ws-fanout on 9223): the one host besides the origin that pages may connect to. */
export const LOCAL_WS_ENDPOINT = 'ws://localhost:9223';
/** Where forms may lead besides the origin: the local OpenID provider (8091) and the local Stripe stand-in (8092). */
export const LOCAL_FORM_HOSTS = ['http://localhost:8091', 'http://localhost:8092'];
/** Features the app never uses, which its Permissions-Policy must switch off (a subset: the sensitive ones). */
export const FEATURES_OFF = ['camera', 'microphone', 'geolocation', 'payment', 'usb', 'serial', 'hid', 'display-capture'];

/** A CSP as directive name → its sources, in order. */
export function parseCsp(value: string | null): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const part of (value ?? '').split(';')) {
    const [name, ...sources] = part.trim().split(/\s+/);
    if (name) out.set(name.toLowerCase(), sources);
  }
  return out;
}

/** `'sha256-…'` of every inline `<script>` (no `src`) of a page, in order, without repeats: what script-src must list. */
export function inlineScriptHashesOf(html: string): string[] {
  const hashes: string[] = [];
  for (const m of html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/gi)) {
    if (/\ssrc\s*=/i.test(m[1]!)) continue;
    const hash = `'sha256-${createHash('sha256').update(m[2]!, 'utf8').digest('base64')}'`;
    if (!hashes.includes(hash)) hashes.push(hash);
  }
  return hashes;
}

/**
 * `'sha256-…'` of the page's one classic inline script without attributes: the theme bootstrap of
 * web/index.html (the JSON-LD blocks carry a `type`). @throws Error when the page has none.
 */
export function themeScriptHashOf(html: string): string {
  const m = /<script>([\s\S]*?)<\/script>/i.exec(html);
  if (!m) throw new Error('the page has no inline bootstrap script');
  return `'sha256-${createHash('sha256').update(m[1]!, 'utf8').digest('base64')}'`;
}

/** Headers as a plain object with lower-case names (fetch's Headers or Playwright's). */
type HeaderBag = Record<string, string>;

/** Asserts the headers every answer of the origin carries, HTML or API. */
function expectCommonHeaders(headers: HeaderBag, what: string): void {
  expect(headers['x-content-type-options'], `${what}: X-Content-Type-Options`).toBe('nosniff');
  expect(headers['cross-origin-opener-policy'], `${what}: Cross-Origin-Opener-Policy`).toBe('same-origin');
  expect(headers['x-frame-options'], `${what}: X-Frame-Options`).toBe('DENY');
  const features = new Map((headers['permissions-policy'] ?? '').split(/,\s*/).map((f) => f.split('=') as [string, string]));
  for (const f of FEATURES_OFF) expect(features.get(f), `${what}: Permissions-Policy ${f}`).toBe('()');
  expect(headers['access-control-allow-origin'], `${what}: no CORS`).toBeUndefined();
  for (const sources of parseCsp(headers['content-security-policy'] ?? null).values()) {
    for (const s of sources) expect(s, `${what}: CSP source`).not.toMatch(/^'unsafe-(inline|eval|hashes)'$|^\*$|^(https?|wss?|data|blob):$/);
  }
}

/**
 * Asserts an HTML page's headers against the policy: a CSP that allows scripts from the origin and
 * exactly the page's inline scripts by hash, styles only from the origin, images from the origin,
 * connections to the origin and the WebSocket endpoint, forms to the origin and the sign-in and
 * checkout hosts, no plugins, no `<base>`, no framing; the referrer rule and the common headers.
 */
export function expectPageHeaders(headers: HeaderBag, html: string, what: string): void {
  const csp = parseCsp(headers['content-security-policy'] ?? null);
  expect(headers['content-security-policy'], `${what}: a Content-Security-Policy`).toBeTruthy();
  expect(csp.get('default-src'), `${what}: default-src`).toEqual(["'none'"]);
  expect(csp.get('script-src'), `${what}: script-src`).toEqual(["'self'", ...inlineScriptHashesOf(html)]);
  expect(csp.get('style-src'), `${what}: style-src`).toEqual(["'self'"]);
  expect(csp.get('img-src'), `${what}: img-src`).toEqual(["'self'"]);
  expect(csp.get('connect-src'), `${what}: connect-src`).toEqual(["'self'", LOCAL_WS_ENDPOINT]);
  expect(csp.get('object-src'), `${what}: object-src`).toEqual(["'none'"]);
  expect(csp.get('base-uri'), `${what}: base-uri`).toEqual(["'none'"]);
  expect(csp.get('form-action'), `${what}: form-action`).toEqual(["'self'", ...LOCAL_FORM_HOSTS]);
  expect(csp.get('frame-ancestors'), `${what}: frame-ancestors`).toEqual(["'none'"]);
  expect(headers['referrer-policy'], `${what}: Referrer-Policy`).toBe('strict-origin-when-cross-origin');
  expect(headers['content-type'], `${what}: content type`).toMatch(/^text\/html/);
  expectCommonHeaders(headers, what);
}

/**
 * Asserts the headers of a service's answer through the ingress: a CSP that allows nothing and
 * frames nothing, no referrer, same-origin resource policy, the common headers; `no-store` when the
 * answer is per user (`perUser`).
 */
export function expectApiHeaders(headers: HeaderBag, what: string, perUser: boolean): void {
  const csp = parseCsp(headers['content-security-policy'] ?? null);
  expect(csp.get('default-src'), `${what}: default-src`).toEqual(["'none'"]);
  expect(csp.get('frame-ancestors'), `${what}: frame-ancestors`).toEqual(["'none'"]);
  expect(csp.get('base-uri'), `${what}: base-uri`).toEqual(["'none'"]);
  expect(csp.get('form-action'), `${what}: form-action`).toEqual(["'none'"]);
  expect(headers['referrer-policy'], `${what}: Referrer-Policy`).toBe('no-referrer');
  expect(headers['cross-origin-resource-policy'], `${what}: Cross-Origin-Resource-Policy`).toBe('same-origin');
  if (perUser) expect(headers['cache-control'], `${what}: Cache-Control`).toBe('no-store');
  expectCommonHeaders(headers, what);
}

/** A fetch Response's headers as a {@link HeaderBag}. */
export function headerBag(res: Response): HeaderBag {
  return Object.fromEntries(res.headers.entries());
}

/** A page on another origin (127.0.0.1 on a free port, not localhost:8080) that frames a URL. */
export interface FramingPage {
  /** The framing page's URL. */
  url: string;
  close(): Promise<void>;
}

/**
 * Serves `<iframe src="<target>">` from http://127.0.0.1:<free port>/: another origin (and site) than
 * the app's, as a decoy page that frames the dashboard would be.
 */
export async function startFramingPage(target: string): Promise<FramingPage> {
  const html = `<!doctype html><title>decoy</title><h1>decoy</h1><iframe id="victim" src="${target}" width="800" height="600"></iframe>`;
  const server: Server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' }).end(html);
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    close: () =>
      new Promise<void>((ok) => {
        server.close(() => ok());
        server.closeAllConnections();
      }),
  };
}
