import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { join, resolve } from 'node:path';
import sirv from 'sirv';
import {
  API_CONTENT_SECURITY_POLICY,
  COMMON_SECURITY_HEADERS,
  DEFAULT_WEB_SECURITY_ENV,
  HTML_REFERRER_POLICY,
  htmlSecurityHeaders,
  inlineScriptHashes,
  webSecuritySettingsFromEnv,
  type WebSecuritySettings,
} from '@tradewind/lib/security-headers';
import { APP_PATHS, PUBLIC_PATHS, redirectTarget } from '../src/route-paths';

/** Where the OpenAPI document of the HTTP APIs is served (docs/openapi.md; an Exact route in deploy/routes.json). */
export const OPENAPI_PATH = '/api/openapi.json';
/** The generated document (scripts/openapi.ts writes it; committed). */
export const DEFAULT_OPENAPI_FILE = join(import.meta.dirname, 'openapi.json');
/** The trade-message JSON Schemas, served at their `$id` paths `/schemas/<subject>.schema.json`. */
export const DEFAULT_SCHEMAS_DIR = resolve(import.meta.dirname, '..', '..', 'packages', 'contracts', 'schemas');
/** Media type of a JSON Schema (draft 2020-12 §14.1, IANA registration of application/schema+json). */
export const SCHEMA_CONTENT_TYPE = 'application/schema+json';
/** Where the message schemas' `$id`s live: `https://tradewind.dev/schemas/<name>.schema.json` (packages/contracts/schemas). */
const SCHEMA_ID_BASE = 'https://tradewind.dev/schemas/';

/** Route classes of {@link WebServerOptions.onRequest} (the `route` label of tradewind_web_http_requests_total). */
export type WebRoute = 'asset' | 'page' | 'app' | 'redirect' | 'not_found' | 'health' | 'api_document';

/** Options of {@link createWebServer}. */
export interface WebServerOptions {
  /** The built app (web/dist). */
  distDir: string;
  /** The OpenAPI document answered at {@link OPENAPI_PATH} (default {@link DEFAULT_OPENAPI_FILE}). */
  openApiFile?: string;
  /** The trade-message schemas (default {@link DEFAULT_SCHEMAS_DIR}). */
  schemasDir?: string;
  /** Called once per request with the path's route class and the status sent. */
  onRequest?: (route: WebRoute, status: number) => void;
  /**
   * The deployment's parts of the pages' Content Security Policy (web/server/main.ts reads them from
   * WS_PUBLIC_URL and CSP_*; default: the local stack's, {@link DEFAULT_WEB_SECURITY_ENV}).
   */
  security?: WebSecuritySettings;
}

/**
 * Headers of the server's answers that are not pages (assets, the documents, sitemap, errors): the
 * common ones, and for anything a browser might open as a document a CSP that allows nothing in it.
 */
const NON_PAGE_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  ...COMMON_SECURITY_HEADERS,
  'content-security-policy': API_CONTENT_SECURITY_POLICY,
  'referrer-policy': HTML_REFERRER_POLICY,
});

/**
 * The machine-readable documents, read once: the OpenAPI document and each `*.schema.json` by
 * the path of its `$id`. @throws Error when a file is missing, or a schema's `$id` is not
 * `https://tradewind.dev/schemas/<its file name>`.
 */
function loadDocuments(openApiFile: string, schemasDir: string): Map<string, { body: Buffer; type: string }> {
  const documents = new Map<string, { body: Buffer; type: string }>();
  if (!existsSync(openApiFile)) throw new Error(`no OpenAPI document at ${openApiFile}: run npx tsx scripts/openapi.ts`);
  documents.set(OPENAPI_PATH, { body: readFileSync(openApiFile), type: 'application/json; charset=utf-8' });
  if (!existsSync(schemasDir)) throw new Error(`no message schemas in ${schemasDir}`);
  for (const file of readdirSync(schemasDir)
    .filter((f) => f.endsWith('.schema.json'))
    .sort()) {
    const body = readFileSync(join(schemasDir, file));
    const id = (JSON.parse(body.toString('utf8')) as { $id?: unknown }).$id;
    if (id !== `${SCHEMA_ID_BASE}${file}`) throw new Error(`${file}: $id must be ${SCHEMA_ID_BASE}${file}, not ${JSON.stringify(id)}`);
    documents.set(`/schemas/${file}`, { body, type: SCHEMA_CONTENT_TYPE });
  }
  return documents;
}

/**
 * The web app's HTTP server (behind the ingress; deploy/routes.json sends every unmatched path
 * here). It serves web/dist: hashed `/assets/*` with a one-year immutable cache, prerendered
 * public pages (`/pricing` → `pricing/index.html`), the app shell `app.html` for browser-only
 * pages (dashboard, login, payment), a 301 for a moved page (`/blog/<slug>` of an article, old
 * or current → its `/<slug>`: {@link redirectTarget}), and `404.html` with status 404 for anything else. HTML is
 * always revalidated (`no-cache`). `/healthz` answers 200 while the process runs; `/readyz` when
 * the build is present. The machine-readable documents: the OpenAPI 3.1 document of the HTTP APIs at
 * `/api/openapi.json` and the trade-message JSON Schemas at their `$id` paths
 * (`/schemas/<subject>.schema.json`, application/schema+json), both revalidated and readable
 * cross-origin (`access-control-allow-origin: *`) so API tools and validators can fetch them.
 * Every page carries the security headers of `@tradewind/lib/security-headers` with a CSP of its own:
 * the hashes of that page's inline scripts ({@link inlineScriptHashes}, computed once at start) and the
 * deployment's {@link WebServerOptions.security}; every other answer the common headers and a CSP
 * that allows nothing (docs/web.md, "Browser security").
 * @throws Error when `distDir` has no build, or a document is missing.
 */
export function createWebServer(options: WebServerOptions): Server {
  const { distDir } = options;
  if (!existsSync(join(distDir, 'index.html')) || !existsSync(join(distDir, 'app.html'))) {
    throw new Error(`no web build in ${distDir}: run npm run build -w web`);
  }
  const documents = loadDocuments(options.openApiFile ?? DEFAULT_OPENAPI_FILE, options.schemasDir ?? DEFAULT_SCHEMAS_DIR);
  const security = options.security ?? webSecuritySettingsFromEnv(DEFAULT_WEB_SECURITY_ENV);
  // A page with its headers, CSP included: its inline scripts' hashes are a property of the file.
  const htmlPage = (body: Buffer) => ({
    body,
    headers: {
      'content-type': 'text/html; charset=utf-8',
      'cache-control': 'no-cache',
      ...htmlSecurityHeaders(security, inlineScriptHashes(body.toString('utf8'))),
    },
  });
  const appShell = htmlPage(readFileSync(join(distDir, 'app.html')));
  const notFound = htmlPage(readFileSync(join(distDir, '404.html')));
  // Every page's HTML, read once: a build is immutable while it is served (sirv, too, indexes
  // the files at start), so no request touches the disk for a page.
  const pages = new Map<string, { route: 'page' | 'app'; page: ReturnType<typeof htmlPage> }>();
  for (const path of [...PUBLIC_PATHS, ...APP_PATHS]) {
    const file = path === '/' ? join(distDir, 'index.html') : join(distDir, path.slice(1), 'index.html');
    pages.set(path, existsSync(file) ? { route: 'page', page: htmlPage(readFileSync(file)) } : { route: 'app', page: appShell });
  }
  const html = (req: IncomingMessage, res: ServerResponse, status: number, page: ReturnType<typeof htmlPage>) => {
    res.writeHead(status, { ...page.headers, 'content-length': page.body.length });
    res.end(req.method === 'HEAD' ? undefined : page.body);
  };
  const files = sirv(distDir, {
    dev: false,
    etag: true,
    gzip: false,
    extensions: [],
    setHeaders(res, pathname) {
      for (const [name, value] of Object.entries(NON_PAGE_HEADERS)) res.setHeader(name, value);
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
      res.writeHead(200, { 'content-type': 'application/json', ...NON_PAGE_HEADERS }).end(path === '/healthz' ? '{"status":"ok"}' : '{"ready":true}');
      options.onRequest?.('health', 200);
      return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res
        .writeHead(405, { allow: 'GET, HEAD', 'content-type': 'application/json', ...NON_PAGE_HEADERS })
        .end(JSON.stringify({ status: 405, code: 'method_not_allowed', message: `${req.method} is not allowed on ${path}` }));
      return;
    }
    const document = documents.get(path);
    if (document) {
      res.writeHead(200, {
        'content-type': document.type,
        'content-length': document.body.length,
        'cache-control': 'no-cache',
        'access-control-allow-origin': '*',
        ...NON_PAGE_HEADERS,
      });
      res.end(req.method === 'HEAD' ? undefined : document.body);
      options.onRequest?.('api_document', 200);
      return;
    }
    // Moved page: a permanent redirect that keeps the query string, before the app is involved.
    const moved = redirectTarget(path);
    if (moved) {
      res.writeHead(301, {
        location: `${moved}${url.search}`,
        'cache-control': 'public, max-age=3600',
        'content-type': 'text/plain; charset=utf-8',
        ...NON_PAGE_HEADERS,
      });
      res.end(req.method === 'HEAD' ? undefined : `Moved permanently to ${moved}\n`);
      options.onRequest?.('redirect', 301);
      return;
    }
    // Known page: /pricing and /pricing/ → its prerendered HTML, or the app shell.
    const page = pages.get(path.length > 1 ? path.replace(/\/+$/, '') : path);
    if (page) {
      html(req, res, 200, page.page);
      options.onRequest?.(page.route, 200);
      return;
    }
    let missing = false;
    files(req, res, () => {
      missing = true;
      html(req, res, 404, notFound);
      options.onRequest?.('not_found', 404);
    });
    if (!missing) res.once('finish', () => options.onRequest?.('asset', res.statusCode));
  });
}
