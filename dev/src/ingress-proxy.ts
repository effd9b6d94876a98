/**
 * The local ingress: one origin (http://localhost:8080) that routes request paths to services the
 * way the Kubernetes Ingress does, from the one route table `deploy/routes.json` (the Helm chart
 * renders the Ingress from the same file), so the web app sees the same single origin locally and
 * in a cluster.
 *
 * Proxying is `http-proxy-3` (maintained rewrite of http-proxy): bodies stream both ways, every
 * response header (Set-Cookie, Location, …) passes unchanged, WebSocket upgrades pass through.
 * On top of it this module adds what the ingress adds: X-Forwarded-For (appended),
 * X-Forwarded-Proto/-Host/-Port (set: this is the edge), an `x-request-id` when the client sent
 * none (echoed on the response), and a JSON 502 `{"status":502,"code":"unavailable","message":
 * "<service> is not running"}` when the service does not accept the connection — never a hang —
 * and, on every answer of a route to a service other than the default (web), the security headers
 * of `@tradewind/lib/security-headers` (API_SECURITY_HEADERS: a CSP that allows nothing, no framing,
 * no referrer, …), replacing a service's own value as the chart's Ingress does (ingress-nginx
 * `custom-headers`). The web app's answers keep the web server's own headers (its pages' CSP).
 *
 * `npm start` runs it in-process (scripts/start.ts); it also runs on its own:
 *   tsx dev/src/ingress-proxy.ts            (INGRESS_PORT default 8080, ROUTES_FILE default deploy/routes.json)
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Agent, createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createProxyServer } from 'http-proxy-3';
import { defaultPort } from '@tradewind/lib';
import { API_SECURITY_HEADERS } from '@tradewind/lib/security-headers';

/** `deploy/routes.json`, next to this repository's scripts. */
export const DEFAULT_ROUTES_FILE = resolve(import.meta.dirname, '..', '..', 'deploy', 'routes.json');

/** Kubernetes Ingress path types (networking.k8s.io/v1 HTTPIngressPath.pathType). */
export type PathType = 'Prefix' | 'Exact';

/** One rule: requests whose path matches go to `service`. */
export interface Route {
  path: string;
  pathType: PathType;
  service: string;
}

/** The parsed route table; see deploy/routes.json. */
export interface RouteTable {
  /** Service name → its HTTP port (locally on 127.0.0.1; in a cluster, the Service port). */
  services: Record<string, { port: number }>;
  routes: Route[];
  /** Where everything unmatched goes (the web app). */
  default: { service: string };
}

/**
 * Reads and validates a route table.
 * @throws Error listing every problem (unknown service, bad port, path not starting with `/`, …).
 */
export function loadRouteTable(file: string = DEFAULT_ROUTES_FILE): RouteTable {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new Error(`cannot read route table ${file}: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
  }
  const problems: string[] = [];
  const table = raw as Partial<RouteTable>;
  const services = typeof table.services === 'object' && table.services !== null ? table.services : {};
  if (services !== table.services) problems.push('services: must be an object of {"<name>": {"port": <1-65535>}}');
  for (const [name, svc] of Object.entries(services)) {
    const port = (svc as { port?: unknown } | null)?.port;
    if (!Number.isInteger(port) || (port as number) < 1 || (port as number) > 65535) problems.push(`services.${name}.port: must be an integer 1-65535`);
  }
  const known = (name: unknown): boolean => typeof name === 'string' && Object.hasOwn(services, name);
  if (!Array.isArray(table.routes)) problems.push('routes: must be an array');
  for (const [i, route] of (Array.isArray(table.routes) ? table.routes : []).entries()) {
    if (typeof route?.path !== 'string' || !route.path.startsWith('/')) problems.push(`routes[${i}].path: must start with "/"`);
    if (route?.pathType !== 'Prefix' && route?.pathType !== 'Exact') problems.push(`routes[${i}].pathType: must be "Prefix" or "Exact"`);
    if (!known(route?.service)) problems.push(`routes[${i}].service: "${String(route?.service)}" is not in services`);
  }
  if (!known(table.default?.service)) problems.push(`default.service: "${String(table.default?.service)}" is not in services`);
  if (problems.length > 0) throw new Error(`invalid route table ${file}:\n  ${problems.join('\n  ')}`);
  return { services, routes: table.routes!, default: table.default! };
}

/** Length of the path a route matched (for "longest wins"), or -1 when it does not match. */
function matchLength(route: Route, pathname: string): number {
  if (route.pathType === 'Exact') return pathname === route.path ? route.path.length : -1;
  // Prefix: element by element, trailing slash ignored ("/auth/" ≡ "/auth"; "/" matches all).
  const prefix = route.path.replace(/\/+$/, '');
  if (prefix === '') return 0;
  return pathname === prefix || pathname.startsWith(`${prefix}/`) ? prefix.length : -1;
}

/**
 * The service a request path goes to, with the Ingress precedence: the longest matching path
 * wins, Exact before Prefix on a tie, `default` when nothing matches.
 * @param pathname the URL path without query (already normalised: dot segments resolved).
 */
export function matchRoute(table: RouteTable, pathname: string): string {
  let best: { length: number; exact: boolean; service: string } | undefined;
  for (const route of table.routes) {
    const length = matchLength(route, pathname);
    if (length < 0) continue;
    const exact = route.pathType === 'Exact';
    if (!best || length > best.length || (length === best.length && exact && !best.exact)) best = { length, exact, service: route.service };
  }
  return best?.service ?? table.default.service;
}

/** One access-log entry: never the query string (it carries OAuth codes and state) nor headers. */
export interface AccessLogEntry {
  time: string;
  request_id: string;
  method: string;
  path: string;
  /** The service the route table chose. */
  upstream: string;
  status: number;
  duration_ms: number;
  upgrade?: true;
}

/** A running proxy. */
export interface IngressProxy {
  /** The port it listens on (useful with `port: 0`). */
  port: number;
  /** Stops accepting, closes open connections and upgraded (WebSocket) sockets. */
  close(): Promise<void>;
}

/** Options of {@link startIngressProxy}. */
export interface IngressProxyOptions {
  table: RouteTable;
  /** Listen port (0 = any free port). */
  port: number;
  /** Listen address; default: all interfaces, like the services themselves. */
  host?: string;
  /** Where the services listen; default 127.0.0.1. */
  upstreamHost?: string;
  /** Gives up on an upstream that sent nothing for this long, ms (default 60 000, ingress-nginx's proxy-read-timeout). */
  upstreamIdleTimeoutMs?: number;
  /**
   * Closes a kept-alive upstream connection after it was idle this long, ms (default
   * {@link UPSTREAM_KEEP_ALIVE_IDLE_MS}). It must be shorter than the services' own keep-alive
   * timeout, so the proxy never sends a request on a connection the service is closing.
   */
  upstreamKeepAliveIdleMs?: number;
  /** Receives one entry per finished request. */
  log?: (entry: AccessLogEntry) => void;
  /**
   * Headers set on every answer of a route to a service other than the table's default (lower-case
   * names; a service's own value of the same name is replaced), and on the proxy's own 502s.
   * Default {@link API_SECURITY_HEADERS}.
   */
  serviceHeaders?: Readonly<Record<string, string>>;
}

/**
 * Default of {@link IngressProxyOptions.upstreamKeepAliveIdleMs}: below Node's default keep-alive
 * timeout of 5 s (http.Server.keepAliveTimeout), the shortest any upstream could have; every
 * Tradewind service keeps connections 72 s (fastify's default; the web server's
 * HTTP_KEEP_ALIVE_TIMEOUT_MS).
 */
export const UPSTREAM_KEEP_ALIVE_IDLE_MS = 4_000;

/**
 * Errors of a connection the upstream closed as the request went out on it (the keep-alive race):
 * nothing was processed, so an idempotent request is sent once more on a new connection, as
 * ingress-nginx does (proxy_next_upstream error, non_idempotent off).
 */
const STALE_CONNECTION = new Set(['ECONNRESET', 'EPIPE']);
/** Methods RFC 9110 §9.2.2 calls idempotent and that carry no body here: safe to send twice. */
const RETRYABLE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

const REQUEST_ID = /^[\w.:-]{1,128}$/;
/** Errors meaning "nothing accepts connections there": the service is not running. */
const NOT_RUNNING = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EHOSTUNREACH', 'EADDRNOTAVAIL']);

function pathnameOf(url: string | undefined): string {
  try {
    return new URL(url ?? '/', 'http://ingress.invalid').pathname;
  } catch {
    return '/';
  }
}

/** Adds the request id and X-Forwarded-* headers the ingress adds; returns the request id. */
function prepareHeaders(req: IncomingMessage, listenPort: number): string {
  const given = req.headers['x-request-id'];
  const requestId = typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
  req.headers['x-request-id'] = requestId;
  const client = (req.socket.remoteAddress ?? '').replace(/^::ffff:/, '');
  const forwardedFor = req.headers['x-forwarded-for'];
  req.headers['x-forwarded-for'] = forwardedFor ? `${String(forwardedFor)}, ${client}` : client;
  // "http" for WebSocket upgrades too, as ingress-nginx sends ($scheme); there is no TLS locally.
  req.headers['x-forwarded-proto'] = 'http';
  req.headers['x-forwarded-host'] = req.headers.host ?? `localhost:${listenPort}`;
  req.headers['x-forwarded-port'] = String(listenPort);
  return requestId;
}

function unavailableBody(service: string, err: Error & { code?: string }): string {
  const message = err.code && NOT_RUNNING.has(err.code) ? `${service} is not running` : `${service} did not answer (${err.code ?? err.message})`;
  return JSON.stringify({ status: 502, code: 'unavailable', message });
}

/**
 * Starts the proxy.
 * @returns once listening.
 * @throws the listen error (EADDRINUSE, …).
 */
export async function startIngressProxy(options: IngressProxyOptions): Promise<IngressProxy> {
  const { table } = options;
  const upstreamHost = options.upstreamHost ?? '127.0.0.1';
  const log = options.log ?? (() => undefined);
  // Keep-alive to the services (without an agent http-proxy sends "connection: close" upstream,
  // which comes back and closes the browser's connection after every request).
  // Idle connections are closed before the services close them (see upstreamKeepAliveIdleMs).
  const agent = new Agent({ keepAlive: true, timeout: options.upstreamKeepAliveIdleMs ?? UPSTREAM_KEEP_ALIVE_IDLE_MS });
  // changeOrigin false: the service sees the browser's Host, as behind the Kubernetes Ingress.
  const proxy = createProxyServer({ agent, xfwd: false, changeOrigin: false, proxyTimeout: options.upstreamIdleTimeoutMs ?? 60_000 });
  const upgraded = new Set<Socket>();
  let listenPort = options.port;
  const serviceHeaders = options.serviceHeaders ?? API_SECURITY_HEADERS;
  /** Requests whose answers get {@link serviceHeaders} (routed to a service, not to the default). */
  const toService = new WeakSet<IncomingMessage>();
  // Before http-proxy copies the upstream's headers to the answer: ours replace a service's own.
  proxy.on('proxyRes', (proxyRes, req) => {
    if (!toService.has(req)) return;
    for (const [name, value] of Object.entries(serviceHeaders)) proxyRes.headers[name] = value;
  });

  const target = (service: string): string => `http://${upstreamHost}:${table.services[service]!.port}`;

  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const started = performance.now();
    const path = pathnameOf(req.url);
    const service = matchRoute(table, path);
    const requestId = prepareHeaders(req, listenPort);
    res.setHeader('x-request-id', requestId);
    if (service !== table.default.service) toService.add(req);
    res.once('close', () =>
      log({
        time: new Date().toISOString(),
        request_id: requestId,
        method: req.method ?? '',
        path,
        upstream: service,
        status: res.headersSent ? res.statusCode : 499,
        duration_ms: Math.round(performance.now() - started),
      }),
    );
    let retried = false;
    const forward = (): void => {
      proxy.web(req, res, { target: target(service) }, (err) => {
        const e = err as Error & { code?: string };
        if (res.headersSent) {
          res.destroy(e);
          return;
        }
        if (!retried && e.code && STALE_CONNECTION.has(e.code) && RETRYABLE_METHODS.has(req.method ?? '')) {
          retried = true;
          forward();
          return;
        }
        const body = unavailableBody(service, e);
        res.writeHead(502, {
          ...serviceHeaders,
          'content-type': 'application/json; charset=utf-8',
          'content-length': Buffer.byteLength(body),
          'cache-control': 'no-store',
        });
        res.end(body);
      });
    };
    forward();
  });

  server.on('upgrade', (req: IncomingMessage, socket: Socket, head: Buffer) => {
    const started = performance.now();
    const path = pathnameOf(req.url);
    const service = matchRoute(table, path);
    const requestId = prepareHeaders(req, listenPort);
    upgraded.add(socket);
    let status = 101;
    socket.once('close', () => {
      upgraded.delete(socket);
      log({
        time: new Date().toISOString(),
        request_id: requestId,
        method: req.method ?? '',
        path,
        upstream: service,
        status,
        duration_ms: Math.round(performance.now() - started),
        upgrade: true,
      });
    });
    socket.on('error', () => socket.destroy());
    // An upgraded connection belongs to the WebSocket, not to the keep-alive pool.
    proxy.ws(req, socket, head, { target: target(service), agent: false }, (err) => {
      // http-proxy-3 ends the socket right after this callback (destroySoon: after our write).
      status = 502;
      if (!socket.writable) return;
      const body = unavailableBody(service, err as Error & { code?: string });
      socket.write(
        `HTTP/1.1 502 Bad Gateway\r\ncontent-type: application/json; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(body)}\r\nx-request-id: ${requestId}\r\nconnection: close\r\n\r\n${body}`,
      );
    });
  });
  // A client that vanishes mid-request must not take the process down.
  server.on('clientError', (_err, socket) => {
    if (socket.writable) socket.end('HTTP/1.1 400 Bad Request\r\nconnection: close\r\n\r\n');
    else socket.destroy();
  });
  proxy.on('error', () => undefined);

  await new Promise<void>((resolvePromise, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolvePromise();
    });
  });
  listenPort = (server.address() as AddressInfo).port;

  return {
    port: listenPort,
    close: () =>
      new Promise<void>((resolvePromise) => {
        server.close(() => resolvePromise());
        server.closeAllConnections();
        for (const socket of upgraded) socket.destroy();
        agent.destroy();
        proxy.close();
      }),
  };
}

async function main(): Promise<void> {
  const port = Number(process.env.INGRESS_PORT ?? defaultPort('ingress', 'http'));
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`INGRESS_PORT: must be an integer 0-65535, got "${process.env.INGRESS_PORT}"`);
  const table = loadRouteTable(process.env.ROUTES_FILE ?? DEFAULT_ROUTES_FILE);
  const write = (line: object) => process.stdout.write(`${JSON.stringify(line)}\n`);
  const proxy = await startIngressProxy({ table, port, log: (entry) => write({ level: 'info', service: 'ingress-proxy', msg: 'request', ...entry }) });
  write({ level: 'info', service: 'ingress-proxy', msg: `listening on :${proxy.port}`, routes: table.routes.length });
  const stop = () => void proxy.close().then(() => process.exit(0));
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().catch((err: unknown) => {
    process.stderr.write(`ingress-proxy: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  });
}
