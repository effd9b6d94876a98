import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { COMMON_SECURITY_HEADERS, webSecuritySettingsFromEnv } from '@tradewind/lib/security-headers';
import { createWebServer } from './app';

// A miniature dist/ with the files the build writes, so the routing rules are tested without a build.
const dist = mkdtempSync(join(tmpdir(), 'tw-web-dist-'));
/** The home page with the two kinds of inline script the build writes: the theme bootstrap and JSON-LD. */
const THEME_SCRIPT = "document.documentElement.dataset.theme = 'dark';";
const JSON_LD = '{"@type":"Organization","name":"Tradewind"}';
const HOME = `<title>home</title><script>${THEME_SCRIPT}</script><script type="application/ld+json">${JSON_LD}</script><script type="module" src="/assets/index-abc123.js"></script>`;
const sha256 = (text: string) => `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;
writeFileSync(join(dist, 'index.html'), HOME);
writeFileSync(join(dist, 'app.html'), '<title>shell</title>');
writeFileSync(join(dist, '404.html'), '<title>not found</title>');
mkdirSync(join(dist, 'pricing'));
writeFileSync(join(dist, 'pricing/index.html'), '<title>pricing</title>');
mkdirSync(join(dist, 'assets'));
writeFileSync(join(dist, 'assets/index-abc123.js'), 'console.log(1)');
writeFileSync(join(dist, 'sitemap.xml'), '<urlset/>');

let server: Server;
let base: string;
const seen: Array<[string, number]> = [];

beforeAll(async () => {
  server = createWebServer({ distDir: dist, onRequest: (route, status) => seen.push([route, status]) });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((ok) => server.close(() => ok())));

describe('web server', () => {
  it('when a prerendered public page is asked for (with or without a trailing slash), then it answers that page, revalidated', async () => {
    for (const path of ['/pricing', '/pricing/']) {
      const res = await fetch(`${base}${path}`);
      expect(res.status).toBe(200);
      expect(await res.text()).toBe('<title>pricing</title>');
      expect(res.headers.get('cache-control')).toBe('no-cache');
      expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    }
    expect(await (await fetch(`${base}/`)).text()).toBe(HOME);
  });

  it('when a browser-only page is asked for, then it answers the app shell with 200', async () => {
    for (const path of ['/dashboard', '/dashboard/plan', '/login', '/payment']) {
      const res = await fetch(`${base}${path}?tier=plus`);
      expect(res.status, path).toBe(200);
      expect(await res.text()).toBe('<title>shell</title>');
    }
  });

  it('when a path is unknown, then it answers the 404 page with status 404', async () => {
    for (const path of ['/nope', '/dashboard/nope', '/blog/not-an-article', '/assets/missing.js']) {
      const res = await fetch(`${base}${path}`);
      expect(res.status, path).toBe(404);
      expect(await res.text()).toBe('<title>not found</title>');
    }
    expect(seen).toContainEqual(['not_found', 404]);
    expect(seen).not.toContainEqual(['asset', 404]); // a miss is counted once, as not_found
  });

  it('when an article is asked for at /<slug>, then it is a known page (the app shell in this build without its file)', async () => {
    for (const slug of ['pump-fun-api', 'letsbonk-fun-api', 'solana-websocket', 'solana-memecoin', 'tradewind-vs-pumpportal']) {
      const res = await fetch(`${base}/${slug}`);
      expect(res.status, slug).toBe(200);
      expect(await res.text()).toBe('<title>shell</title>');
    }
  });

  it('when a retired /blog/<slug> is asked for, then it answers 301 to the article that holds its material, keeping the query', async () => {
    const moved: Record<string, string> = {
      '/blog/stream-pump-fun-trades-websocket': '/pump-fun-api',
      '/blog/nats-jetstream-solana-trades': '/pump-fun-api',
      '/blog/building-a-trading-bot-with-tradewind': '/pump-fun-api',
      '/blog/decoding-pump-fun-and-letsbonk-trades': '/letsbonk-fun-api',
      '/blog/pumpswap-raydium-cpmm-premium-subjects': '/tradewind-vs-pumpportal',
      '/blog/pump-fun-api': '/pump-fun-api',
      '/blog/solana-memecoin/': '/solana-memecoin',
    };
    for (const [from, to] of Object.entries(moved)) {
      const res = await fetch(`${base}${from}`, { redirect: 'manual' });
      expect(res.status, from).toBe(301);
      expect(res.headers.get('location'), from).toBe(to);
    }
    const withQuery = await fetch(`${base}/blog/nats-jetstream-solana-trades?utm_source=feed&x=1`, { redirect: 'manual' });
    expect(withQuery.headers.get('location')).toBe('/pump-fun-api?utm_source=feed&x=1');
    const head = await fetch(`${base}/blog/decoding-pump-fun-and-letsbonk-trades`, { method: 'HEAD', redirect: 'manual' });
    expect(head.status).toBe(301);
    expect(head.headers.get('location')).toBe('/letsbonk-fun-api');
    expect(seen).toContainEqual(['redirect', 301]);
  });

  it('when /blog/<anything else> is asked for, then it is still a 404, not a redirect', async () => {
    for (const path of ['/blog/constructor', '/blog/__proto__', '/blog/toString', '/blog/pump-fun-api/more']) {
      const res = await fetch(`${base}${path}`, { redirect: 'manual' });
      expect(res.status, path).toBe(404);
      expect(res.headers.get('location')).toBeNull();
    }
  });

  it('when a hashed asset is asked for, then it is served with a one-year immutable cache', async () => {
    const res = await fetch(`${base}/assets/index-abc123.js`);
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('console.log(1)');
    expect(res.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    const sitemap = await fetch(`${base}/sitemap.xml`);
    expect(sitemap.headers.get('cache-control')).toBe('no-cache');
  });

  it('when the method is not GET or HEAD, then it answers 405 with a JSON error', async () => {
    const res = await fetch(`${base}/pricing`, { method: 'POST' });
    expect(res.status).toBe(405);
    expect(await res.json()).toEqual({ status: 405, code: 'method_not_allowed', message: 'POST is not allowed on /pricing' });
  });

  it("when a page is answered, then its CSP lists exactly that page's inline scripts by hash, the local stack's hosts, and the other security headers", async () => {
    const home = await fetch(`${base}/`);
    expect(home.headers.get('content-security-policy')).toBe(
      [
        "default-src 'none'",
        `script-src 'self' ${sha256(THEME_SCRIPT)} ${sha256(JSON_LD)}`,
        "style-src 'self'",
        "img-src 'self'",
        "connect-src 'self' ws://localhost:9223",
        "object-src 'none'",
        "base-uri 'none'",
        "form-action 'self' http://localhost:8091 http://localhost:8092",
        "frame-ancestors 'none'",
      ].join('; '),
    );
    expect(home.headers.get('referrer-policy')).toBe('strict-origin-when-cross-origin');
    for (const [name, value] of Object.entries(COMMON_SECURITY_HEADERS)) expect(home.headers.get(name), name).toBe(value);
    expect(home.headers.get('cross-origin-opener-policy')).toBe('same-origin');
    expect(home.headers.get('x-content-type-options')).toBe('nosniff');
    expect(home.headers.get('permissions-policy')).toMatch(/^(?:[a-z-]+=\(\)(?:, |$))+$/);
    expect(home.headers.get('permissions-policy')).toContain('camera=()');
    expect(home.headers.get('access-control-allow-origin')).toBeNull();
    // A page without inline scripts allows none; the shell (dashboard) and the 404 page carry the policy too.
    for (const path of ['/pricing', '/dashboard', '/nope']) {
      const res = await fetch(`${base}${path}`);
      expect(res.headers.get('content-security-policy'), path).toMatch(/^default-src 'none'; script-src 'self'; style-src 'self';/);
      expect(res.headers.get('content-security-policy'), path).toContain("frame-ancestors 'none'");
      expect(res.headers.get('x-frame-options'), path).toBe('DENY');
      expect(res.headers.get('referrer-policy'), path).toBe('strict-origin-when-cross-origin');
    }
    const head = await fetch(`${base}/`, { method: 'HEAD' });
    expect(head.headers.get('content-security-policy')).toBe(home.headers.get('content-security-policy'));
  });

  it("when the home page's policy is read, then it allows no 'unsafe-inline', no 'unsafe-eval' and no wildcard source", async () => {
    const csp = (await fetch(`${base}/`)).headers.get('content-security-policy')!;
    expect(csp).not.toContain("'unsafe-inline'");
    expect(csp).not.toContain("'unsafe-eval'");
    expect(csp).not.toMatch(/(^|[ ;])\*( |;|$)/);
  });

  it('when an answer is not a page (asset, document, redirect, 405), then it carries the common headers and a CSP that allows nothing', async () => {
    const answers = [
      await fetch(`${base}/assets/index-abc123.js`),
      await fetch(`${base}/sitemap.xml`),
      await fetch(`${base}/blog/pump-fun-api`, { redirect: 'manual' }),
      await fetch(`${base}/pricing`, { method: 'POST' }),
    ];
    for (const res of answers) {
      expect(res.headers.get('content-security-policy'), res.url).toBe("default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'");
      for (const [name, value] of Object.entries(COMMON_SECURITY_HEADERS)) expect(res.headers.get(name), `${res.url} ${name}`).toBe(value);
    }
  });

  it("when a deployment configures its hosts, then the pages' CSP names them: the WebSocket endpoint, Google sign-in, Stripe checkout and portal, avatar pictures", async () => {
    const security = webSecuritySettingsFromEnv({
      WS_PUBLIC_URL: 'wss://ws.tradewind.example/',
      CSP_SIGN_IN_ORIGINS: 'https://accounts.google.com',
      CSP_CHECKOUT_ORIGINS: 'https://checkout.stripe.com https://billing.stripe.com',
      CSP_IMAGE_ORIGINS: 'https://*.googleusercontent.com',
    });
    const deployed = createWebServer({ distDir: dist, security });
    await new Promise<void>((ok) => deployed.listen(0, '127.0.0.1', ok));
    try {
      const res = await fetch(`http://127.0.0.1:${(deployed.address() as AddressInfo).port}/dashboard`);
      const csp = res.headers.get('content-security-policy')!;
      expect(csp).toContain("connect-src 'self' wss://ws.tradewind.example;");
      expect(csp).toContain("form-action 'self' https://accounts.google.com https://checkout.stripe.com https://billing.stripe.com;");
      expect(csp).toContain("img-src 'self' https://*.googleusercontent.com;");
      expect(csp).not.toContain('localhost');
    } finally {
      await new Promise<void>((ok) => deployed.close(() => ok()));
    }
  });

  it('when a CSP setting is not an origin, then reading the settings fails naming it', () => {
    expect(() => webSecuritySettingsFromEnv({ CSP_CHECKOUT_ORIGINS: "https://checkout.stripe.com; script-src 'unsafe-inline'" })).toThrow(
      /CSP_CHECKOUT_ORIGINS/,
    );
    expect(() => webSecuritySettingsFromEnv({ CSP_SIGN_IN_ORIGINS: 'https://accounts.google.com/o/oauth2' })).toThrow(/CSP_SIGN_IN_ORIGINS/);
    expect(() => webSecuritySettingsFromEnv({ WS_PUBLIC_URL: 'https://ws.tradewind.example' })).toThrow(/WS_PUBLIC_URL/);
    expect(webSecuritySettingsFromEnv({ CSP_IMAGE_ORIGINS: '' }).imageOrigins).toEqual([]);
  });

  it('when dist has no build, then creating the server fails with the command to run', () => {
    expect(() => createWebServer({ distDir: mkdtempSync(join(tmpdir(), 'tw-empty-')) })).toThrow(/run npm run build -w web/);
  });
});
