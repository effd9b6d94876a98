import { existsSync, readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { join } from 'node:path';
import sirv from 'sirv';
import { APP_PATHS, PUBLIC_PATHS, redirectTarget } from '../src/route-paths';

/** Options of {@link createWebServer}. */
export interface WebServerOptions {
  /** The built app (web/dist). */
  distDir: string;
  /** Called once per request with the path's route class and the status sent. */
  onRequest?: (route: 'asset' | 'page' | 'app' | 'redirect' | 'not_found' | 'health', status: number) => void;
}

/**
 * The web app's HTTP server (behind the ingress; deploy/routes.json sends every unmatched path
 * here). It serves web/dist: hashed `/assets/*` with a one-year immutable cache, prerendered
 * public pages (`/pricing` → `pricing/index.html`), the app shell `app.html` for browser-only
 * pages (dashboard, login, payment), a 301 for a moved page (`/blog/<slug>` of an article, old
 * or current → its `/<slug>`: {@link redirectTarget}), and `404.html` with status 404 for anything else. HTML is
 * always revalidated (`no-cache`). `/healthz` answers 200 while the process runs; `/readyz` when
 * the build is present. @throws Error when `distDir` has no build.
 */
export function createWebServer(options: WebServerOptions): Server {
  const { distDir } = options;
  if (!existsSync(join(distDir, 'index.html')) || !existsSync(join(distDir, 'app.html'))) {
    throw new Error(`no web build in ${distDir}: run npm run build -w web`);
  }
  const appShell = readFileSync(join(distDir, 'app.html'));
  const notFound = readFileSync(join(distDir, '404.html'));
  // Every page's HTML, read once: a build is immutable while it is served (sirv, too, indexes
  // the files at start), so no request touches the disk for a page.
  const pages = new Map<string, { route: 'page' | 'app'; body: Buffer }>();
  for (const path of [...PUBLIC_PATHS, ...APP_PATHS]) {
    const file = path === '/' ? join(distDir, 'index.html') : join(distDir, path.slice(1), 'index.html');
    pages.set(path, existsSync(file) ? { route: 'page', body: readFileSync(file) } : { route: 'app', body: appShell });
  }
  const html = (res: ServerResponse, status: number, body: Buffer) => {
    res.writeHead(status, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-cache', 'x-content-type-options': 'nosniff' });
    res.end(body);
  };
  const files = sirv(distDir, {
    dev: false,
    etag: true,
    gzip: false,
    extensions: [],
    setHeaders(res, pathname) {
      res.setHeader('x-content-type-options', 'nosniff');
      if (pathname.startsWith('/assets/')) res.setHeader('cache-control', 'public, max-age=31536000, immutable');
      else res.setHeader('cache-control', 'no-cache');
      // sirv's type table has no .tgz (the packed client of the WebSocket starter template).
      if (pathname.endsWith('.tgz')) res.setHeader('content-type', 'application/gzip');
    },
  });
  return createServer((req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://web');
    const path = url.pathname;
    if (path === '/healthz' || path === '/readyz') {
      res.writeHead(200, { 'content-type': 'application/json' }).end(path === '/healthz' ? '{"status":"ok"}' : '{"ready":true}');
      options.onRequest?.('health', 200);
      return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { allow: 'GET, HEAD', 'content-type': 'application/json' })
        .end(JSON.stringify({ status: 405, code: 'method_not_allowed', message: `${req.method} is not allowed on ${path}` }));
      return;
    }
    // Moved page: a permanent redirect that keeps the query string, before the app is involved.
    const moved = redirectTarget(path);
    if (moved) {
      res.writeHead(301, { location: `${moved}${url.search}`, 'cache-control': 'public, max-age=3600', 'content-type': 'text/plain; charset=utf-8' });
      res.end(req.method === 'HEAD' ? undefined : `Moved permanently to ${moved}\n`);
      options.onRequest?.('redirect', 301);
      return;
    }
    // Known page: /pricing and /pricing/ → its prerendered HTML, or the app shell.
    const page = pages.get(path.length > 1 ? path.replace(/\/+$/, '') : path);
    if (page) {
      html(res, 200, page.body);
      options.onRequest?.(page.route, 200);
      return;
    }
    let missing = false;
    files(req, res, () => {
      missing = true;
      html(res, 404, notFound);
      options.onRequest?.('not_found', 404);
    });
    if (!missing) res.once('finish', () => options.onRequest?.('asset', res.statusCode));
  });
}
