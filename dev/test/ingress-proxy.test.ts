import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket, { WebSocketServer } from 'ws';
import { freePort } from '@tradewind/dev';
import { loadRouteTable, matchRoute, startIngressProxy, type IngressProxy, type RouteTable, type AccessLogEntry } from '@tradewind/dev';
import { createHttpApp, createLogger, createRegistry } from '@tradewind/lib';
import { API_SECURITY_HEADERS } from '@tradewind/lib/security-headers';

describe('route table (deploy/routes.json)', () => {
  const table = loadRouteTable();

  it.each([
    ['/auth/login', 'auth'],
    ['/auth', 'auth'],
    ['/authx', 'web'],
    ['/api/nats', 'credential-issuer'],
    ['/api/stripe/webhook', 'billing'],
    ['/api/birdeye/tokens', 'token-price'],
    ['/dashboard', 'web'],
    ['/', 'web'],
  ])('when the path is %s, then it goes to %s', (path, service) => {
    expect(matchRoute(table, path)).toBe(service);
  });
});

describe('ingress proxy', () => {
  let upstream: Server;
  let wss: WebSocketServer;
  let proxy: IngressProxy;
  let deadPort: number;
  const log: AccessLogEntry[] = [];
  const seen: Array<Record<string, string | string[] | undefined>> = [];

  beforeAll(async () => {
    upstream = createServer((req, res) => {
      seen.push(req.headers);
      if (req.url?.startsWith('/auth/callback')) {
        res.writeHead(302, { location: '/dashboard', 'set-cookie': ['a=1; Path=/auth; HttpOnly', 'b=2; Path=/auth'] });
        res.end();
        return;
      }
      let size = 0;
      req.on('data', (c: Buffer) => {
        size += c.length;
      });
      req.on('end', () => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ url: req.url, size }));
      });
    });
    wss = new WebSocketServer({ server: upstream });
    wss.on('connection', (ws) => ws.on('message', (m) => ws.send(`echo:${m.toString()}`)));
    await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', () => r()));
    deadPort = await freePort();
    const table: RouteTable = {
      services: { auth: { port: (upstream.address() as AddressInfo).port }, billing: { port: deadPort }, web: { port: deadPort } },
      routes: [
        { path: '/auth', pathType: 'Prefix', service: 'auth' },
        { path: '/api/checkout-sessions', pathType: 'Prefix', service: 'billing' },
      ],
      default: { service: 'web' },
    };
    proxy = await startIngressProxy({ table, port: 0, host: '127.0.0.1', log: (e) => log.push(e) });
  });

  afterAll(async () => {
    await proxy?.close();
    wss?.close();
    await new Promise<void>((r) => (upstream ? upstream.close(() => r()) : r()));
  });

  it('when a request matches /auth, then it reaches auth with a request id and X-Forwarded headers, and the body streams through', async () => {
    const body = 'x'.repeat(100_000);
    const res = await fetch(`http://127.0.0.1:${proxy.port}/auth/token?x=1`, { method: 'POST', body, headers: { 'x-forwarded-for': '10.0.0.9' } });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ url: '/auth/token?x=1', size: 100_000 });
    const headers = seen.at(-1)!;
    expect(headers['x-forwarded-for']).toBe('10.0.0.9, 127.0.0.1');
    expect(headers['x-forwarded-proto']).toBe('http');
    expect(headers['x-forwarded-host']).toBe(`127.0.0.1:${proxy.port}`);
    expect(headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(res.headers.get('x-request-id')).toBe(headers['x-request-id']);
  });

  it('when auth answers a redirect with two cookies, then the browser gets the Location and both Set-Cookie headers unchanged', async () => {
    const res = await fetch(`http://127.0.0.1:${proxy.port}/auth/callback?code=secret`, { redirect: 'manual', headers: { 'x-request-id': 'abc-123' } });
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe('/dashboard');
    expect(res.headers.getSetCookie()).toEqual(['a=1; Path=/auth; HttpOnly', 'b=2; Path=/auth']);
    expect(res.headers.get('x-request-id')).toBe('abc-123');
    const entry = log.find((e) => e.request_id === 'abc-123');
    expect(entry).toMatchObject({ path: '/auth/callback', upstream: 'auth', status: 302 });
    expect(JSON.stringify(entry)).not.toContain('secret');
  });

  it.each([
    ['/api/checkout-sessions', 'billing'],
    ['/dashboard', 'web'],
  ])('when %s is requested and %s is not running, then it answers 502 JSON at once', async (path, service) => {
    const res = await fetch(`http://127.0.0.1:${proxy.port}${path}`);
    expect(res.status).toBe(502);
    expect(await res.json()).toEqual({ status: 502, code: 'unavailable', message: `${service} is not running` });
  });

  it('when a WebSocket upgrade matches /auth, then frames pass both ways', async () => {
    const ws = new WebSocket(`ws://127.0.0.1:${proxy.port}/auth/ws`);
    const reply = await new Promise<string>((resolve, reject) => {
      ws.once('open', () => ws.send('hi'));
      ws.once('message', (m) => resolve(m.toString()));
      ws.once('error', reject);
    });
    ws.close();
    expect(reply).toBe('echo:hi');
  });
});

describe('ingress proxy and kept-alive upstream connections', () => {
  // An upstream that closes a kept-alive connection just as the next request arrives on it: the
  // race a proxy meets when a service's keep-alive timeout ends at the moment the proxy reuses the
  // connection (seen as a 502 in the browser tests). Here it is made certain: every connection's
  // second request is answered by destroying the connection.
  let upstream: Server;
  let proxy: IngressProxy;
  const perSocket = new WeakMap<object, number>();
  let connections = 0;

  beforeAll(async () => {
    upstream = createServer((req, res) => {
      const n = (perSocket.get(req.socket) ?? 0) + 1;
      perSocket.set(req.socket, n);
      if (n > 1) {
        req.socket.destroy();
        return;
      }
      req.resume();
      req.on('end', () => {
        res.writeHead(200, { 'content-type': 'application/json', connection: 'keep-alive' });
        res.end(JSON.stringify({ method: req.method, url: req.url }));
      });
    });
    upstream.on('connection', () => {
      connections += 1;
    });
    await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', () => r()));
    const table: RouteTable = { services: { web: { port: (upstream.address() as AddressInfo).port } }, routes: [], default: { service: 'web' } };
    proxy = await startIngressProxy({ table, port: 0, host: '127.0.0.1', upstreamKeepAliveIdleMs: 60_000 });
  });

  afterAll(async () => {
    await proxy?.close();
    await new Promise<void>((r) => (upstream ? upstream.close(() => r()) : r()));
  });

  it('when a GET goes out on a connection the upstream drops, then it is sent once more on a new connection and answered; a POST is not resent and gets the 502', async () => {
    const url = `http://127.0.0.1:${proxy.port}`;
    const first = await fetch(`${url}/one`);
    expect(first.status).toBe(200);
    expect(connections).toBe(1);
    // The proxy reuses its kept-alive connection; the upstream drops it; the GET is resent.
    const second = await fetch(`${url}/two`);
    expect(second.status).toBe(200);
    expect(await second.json()).toEqual({ method: 'GET', url: '/two' });
    expect(connections).toBe(2);
    // The same race for a POST: not idempotent, so the proxy answers 502 instead of sending it twice.
    const post = await fetch(`${url}/three`, { method: 'POST', body: '{"a":1}', headers: { 'content-type': 'application/json' } });
    expect(post.status).toBe(502);
    expect(await post.json()).toMatchObject({ status: 502, code: 'unavailable' });
  });

  it('when an upstream connection has been idle longer than upstreamKeepAliveIdleMs, then the proxy has closed it and opens a new one', async () => {
    const table: RouteTable = { services: { web: { port: (upstream.address() as AddressInfo).port } }, routes: [], default: { service: 'web' } };
    const short = await startIngressProxy({ table, port: 0, host: '127.0.0.1', upstreamKeepAliveIdleMs: 100 });
    try {
      const before = connections;
      expect((await fetch(`http://127.0.0.1:${short.port}/a`)).status).toBe(200);
      await new Promise((r) => setTimeout(r, 400));
      // Had the idle connection been reused, the upstream would have dropped it (second request) and this POST would get 502.
      const post = await fetch(`http://127.0.0.1:${short.port}/b`, { method: 'POST', body: '{}' });
      expect(post.status).toBe(200);
      expect(connections - before).toBe(2);
    } finally {
      await short.close();
    }
  });
});

describe('ingress proxy security headers (docs/web.md, "Browser security")', () => {
  let service: ReturnType<typeof createHttpApp>;
  let web: Server;
  let proxy: IngressProxy;
  let deadPort: number;
  const WEB_CSP = "default-src 'none'; script-src 'self'";

  beforeAll(async () => {
    // A real service app (createHttpApp: the conventions every HTTP service shares) and a web upstream with its own policy.
    service = createHttpApp({
      logger: createLogger({ service: 'test', level: 'silent' }),
      registry: createRegistry('test'),
      service: 'test',
      trustProxy: true,
    });
    service.post('/auth/token', async () => ({ access_token: 'per-user' }));
    service.get('/auth/.well-known/jwks.json', async (_req, reply) => {
      void reply.header('cache-control', 'public, max-age=300');
      return { keys: [] };
    });
    service.get('/auth/loose', async (_req, reply) => {
      // A service that sends weaker values of the ingress's headers: the ingress's replace them.
      void reply.header('referrer-policy', 'unsafe-url').header('content-security-policy', 'default-src *').header('x-frame-options', 'ALLOWALL');
      return { ok: true };
    });
    await service.listen({ port: 0, host: '127.0.0.1' });
    web = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html', 'content-security-policy': WEB_CSP, 'referrer-policy': 'strict-origin-when-cross-origin' });
      res.end('<title>page</title>');
    });
    await new Promise<void>((r) => web.listen(0, '127.0.0.1', () => r()));
    deadPort = await freePort();
    const table: RouteTable = {
      services: {
        auth: { port: (service.server.address() as AddressInfo).port },
        billing: { port: deadPort },
        web: { port: (web.address() as AddressInfo).port },
      },
      routes: [
        { path: '/auth', pathType: 'Prefix', service: 'auth' },
        { path: '/api/checkout-sessions', pathType: 'Prefix', service: 'billing' },
      ],
      default: { service: 'web' },
    };
    proxy = await startIngressProxy({ table, port: 0, host: '127.0.0.1' });
  });

  afterAll(async () => {
    await proxy?.close();
    await service?.close();
    await new Promise<void>((r) => (web ? web.close(() => r()) : r()));
  });

  const base = () => `http://127.0.0.1:${proxy.port}`;
  const expectApiHeaders = (res: Response, what: string) => {
    for (const [name, value] of Object.entries(API_SECURITY_HEADERS)) expect(res.headers.get(name), `${what}: ${name}`).toBe(value);
  };

  it('when a per-user JSON answer of a service passes, then it carries every API security header and Cache-Control: no-store', async () => {
    const res = await fetch(`${base()}/auth/token`, { method: 'POST' });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ access_token: 'per-user' });
    expectApiHeaders(res, 'POST /auth/token');
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(API_SECURITY_HEADERS['content-security-policy']).toBe("default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'");
  });

  it("when a service marks an answer public or sends weaker values of the ingress's headers, then its Cache-Control stays and the weaker headers are replaced", async () => {
    const jwks = await fetch(`${base()}/auth/.well-known/jwks.json`);
    expect(jwks.headers.get('cache-control')).toBe('public, max-age=300');
    expectApiHeaders(jwks, 'jwks');
    const loose = await fetch(`${base()}/auth/loose`);
    expectApiHeaders(loose, '/auth/loose');
    expect(loose.headers.get('referrer-policy')).toBe('no-referrer');
  });

  it('when a foreign Origin calls an API, also with a CORS preflight, then no answer allows it (no Access-Control-Allow-* header)', async () => {
    const origin = 'https://evil.example';
    const get = await fetch(`${base()}/auth/.well-known/jwks.json`, { headers: { origin } });
    const post = await fetch(`${base()}/auth/token`, { method: 'POST', headers: { origin, 'content-type': 'application/json' }, body: '{}' });
    const preflight = await fetch(`${base()}/auth/token`, {
      method: 'OPTIONS',
      headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization' },
    });
    for (const res of [get, post, preflight]) {
      expect(
        [...res.headers.keys()].filter((h) => h.startsWith('access-control-')),
        res.url,
      ).toEqual([]);
      expectApiHeaders(res, `${res.url} from ${origin}`);
    }
  });

  it("when the service is not running, then the ingress's own 502 carries the API headers too", async () => {
    const res = await fetch(`${base()}/api/checkout-sessions`, { method: 'POST' });
    expect(res.status).toBe(502);
    expectApiHeaders(res, '502');
    expect(res.headers.get('cache-control')).toBe('no-store');
  });

  it("when a path goes to the web app, then its answer keeps the web server's own policy and gets none of the API headers", async () => {
    const res = await fetch(`${base()}/dashboard`);
    expect(await res.text()).toBe('<title>page</title>');
    expect(res.headers.get('content-security-policy')).toBe(WEB_CSP);
    expect(res.headers.get('referrer-policy')).toBe('strict-origin-when-cross-origin');
    expect(res.headers.get('cross-origin-resource-policy')).toBeNull();
    expect(res.headers.get('x-frame-options')).toBeNull();
  });
});

describe('ingress proxy and event streams (GET /api/trades/tape, docs/token-price.md "Trade tape")', () => {
  // A Server-Sent Events upstream that writes one event now and one after each gap, longer than the proxy's
  // idle limit for kept-alive upstream connections: each must reach the client as it is written, not when the
  // answer ends, and the stream must outlive that limit (only upstreamIdleTimeoutMs, 60 s, ends a silent one).
  const GAP_MS = 700;
  let upstream: Server;
  let proxy: IngressProxy;
  const written: number[] = [];

  beforeAll(async () => {
    upstream = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-store' });
      let n = 0;
      const send = () => {
        written.push(performance.now());
        res.write(`data: ${n}\n\n`);
        if (++n < 3) setTimeout(send, GAP_MS);
      };
      send();
    });
    await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', () => r()));
    const port = (upstream.address() as AddressInfo).port;
    const table: RouteTable = {
      services: { web: { port: 1 }, 'token-price': { port } },
      routes: [{ path: '/api/trades/tape', pathType: 'Exact', service: 'token-price' }],
      default: { service: 'web' },
    };
    proxy = await startIngressProxy({ table, port: 0, host: '127.0.0.1', upstreamKeepAliveIdleMs: 300 });
  });

  afterAll(async () => {
    await proxy?.close();
    upstream?.closeAllConnections();
    await new Promise<void>((r) => (upstream ? upstream.close(() => r()) : r()));
  });

  it('when the service writes events with pauses longer than the keep-alive idle limit, then each reaches the client at once and the stream stays open', async () => {
    const ac = new AbortController();
    const res = await fetch(`http://127.0.0.1:${proxy.port}/api/trades/tape`, { signal: ac.signal });
    expect(res.headers.get('content-type')).toBe('text/event-stream');
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    const received: Array<{ at: number; text: string }> = [];
    let text = '';
    while (received.length < 3) {
      const { done, value } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
      for (let cut = text.indexOf('\n\n'); cut >= 0; cut = text.indexOf('\n\n')) {
        received.push({ at: performance.now(), text: text.slice(0, cut) });
        text = text.slice(cut + 2);
      }
    }
    ac.abort();
    expect(received.map((r) => r.text)).toEqual(['data: 0', 'data: 1', 'data: 2']);
    for (const [i, r] of received.entries()) expect(r.at - written[i]!, `event ${i} delayed`).toBeLessThan(GAP_MS / 2);
  });
});
