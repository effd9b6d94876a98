import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWebServer } from './app';

// A miniature dist/ with the files the build writes, so the routing rules are tested without a build.
const dist = mkdtempSync(join(tmpdir(), 'tw-web-dist-'));
writeFileSync(join(dist, 'index.html'), '<title>home</title>');
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
    expect(await (await fetch(`${base}/`)).text()).toBe('<title>home</title>');
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

  it('when dist has no build, then creating the server fails with the command to run', () => {
    expect(() => createWebServer({ distDir: mkdtempSync(join(tmpdir(), 'tw-empty-')) })).toThrow(/run npm run build -w web/);
  });
});
