/**
 * The load balancer in front of the rolling-restart stack (chaos/rolling.ts): what Kubernetes puts in
 * front of a Deployment, small enough to read.
 *
 * - **Endpoints and readiness.** Each service has a set of replicas (pods). Every `probePeriodMs` each
 *   replica's admin `/readyz` is fetched with a `probeTimeoutMs` timeout, like a Kubernetes readiness probe
 *   with the chart's `failureThreshold` (`ProbeSettings.failureThreshold` consecutive failed probes take the
 *   replica out of the ready set) and `successThreshold: 1` (one answered 200 puts it back in). A replica
 *   added is not ready until its first probe passes.
 *   Only NEW requests and connections are routed by readiness; what is open stays where it is
 *   (conntrack / an upstream connection in flight).
 * - **HTTP, the Ingress** (ingress-nginx): the public origin routes by path with the one route table,
 *   deploy/routes.json (`loadRouteTable` / `matchRoute` of dev/src/ingress-proxy.ts), to the ready
 *   replicas of the chosen service, round-robin. No ready replica: 503 `{status, code: "unavailable",
 *   message}`, as ingress-nginx answers. A GET/HEAD whose upstream connection was refused or reset before
 *   an answer is sent once more to the next ready replica (ingress-nginx's default `proxy_next_upstream
 *   error timeout`, which never re-sends a request with a body); every such retry is counted. Any other
 *   upstream failure is a 502 (`{status: 502, code: "unavailable"}`), never a hang.
 * - **WebSocket, the second Ingress** (charts/tradewind/templates/ingress.yaml): its own listener; each
 *   upgrade goes to the next ready ws-fanout replica, and the upgraded connection is piped both ways
 *   until one side closes (a 1001 close frame passes through untouched).
 * - **gRPC, a ClusterIP Service** (kube-proxy): a TCP listener per service that connects each new
 *   connection to the next ready replica's gRPC port (billing's AUTH_ADDR goes through one).
 */
import { randomUUID } from 'node:crypto';
import { Agent, createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { connect, createServer as createTcpServer, type AddressInfo, type Server as TcpServer, type Socket } from 'node:net';
import { createProxyServer } from 'http-proxy-3';
import { matchRoute, type RouteTable } from '@tradewind/dev';

/** One replica behind the balancer. */
export interface LbEndpoint {
  /** Replica name, e.g. `auth-a.2`. */
  readonly name: string;
  /** Ports on 127.0.0.1 by role: `http` (the Ingress target), `ws`, `grpc`. */
  readonly ports: Readonly<Partial<Record<'http' | 'ws' | 'grpc', number>>>;
  /** `http://127.0.0.1:<admin port>`, probed at `/readyz`. */
  readonly adminUrl: string;
}

/** Readiness probe settings (Kubernetes `readinessProbe`: periodSeconds, timeoutSeconds, failureThreshold; successThreshold is 1). */
export interface ProbeSettings {
  /** Time between probes of one replica, ms. */
  readonly periodMs: number;
  /** A probe without an answer within this long fails, ms. */
  readonly timeoutMs: number;
  /** Consecutive failed probes that take a replica out of the ready set (the chart's readiness failureThreshold). */
  readonly failureThreshold: number;
}

/** What the balancer did, for the report notes. */
export interface LbCounters {
  /** HTTP requests answered 503 because the service had no ready replica. */
  noEndpoint: number;
  /** GET/HEAD requests sent again to another replica after a refused or reset connection. */
  retried: number;
  /** Requests answered 502 (upstream failed after the request was sent, or no retry allowed). */
  badGateway: number;
  /** WebSocket upgrades / TCP connections refused for want of a ready replica, or whose upstream refused. */
  refusedConnections: number;
}

/** One thing the balancer did besides forwarding (a {@link LbCounters} increment), for per-restart notes. */
export interface LbEvent {
  /** Epoch ms. */
  readonly at: number;
  readonly kind: keyof LbCounters;
  readonly service: string;
  /** The replica involved, when there was one. */
  readonly replica?: string;
}

/** A running balancer. */
export interface LoadBalancer {
  /** The public origin: `http://127.0.0.1:<port>` (PUBLIC_URL). */
  readonly httpUrl: string;
  /** The WebSocket origin: `ws://127.0.0.1:<port>`, to ws-fanout. */
  readonly wsUrl: string;
  readonly counters: LbCounters;
  /** Every counted event, in order. */
  readonly events: readonly LbEvent[];
  /** Adds a replica of `service` (not ready until a probe passes). */
  add(service: string, endpoint: LbEndpoint): void;
  /** Removes a replica (the pod object is gone); open connections are not touched. */
  remove(service: string, name: string): void;
  /** True when the replica is in its service's ready set. */
  isReady(service: string, name: string): boolean;
  /**
   * Resolves when the replica has passed a readiness probe. @throws Error after `timeoutMs` ms or when
   * `alive()` turns false (its process died).
   */
  waitReady(service: string, name: string, timeoutMs: number, alive?: () => boolean): Promise<void>;
  /**
   * Resolves when the replica has failed a probe since this call began and is out of the ready set (failureThreshold
   * failures in a row): the balancer routes nothing new to it. @throws Error after `timeoutMs` ms.
   */
  waitUnready(service: string, name: string, timeoutMs: number): Promise<void>;
  /** Listens on a free port as `service`'s ClusterIP for role `grpc` (a TCP balancer); @returns `127.0.0.1:<port>`. */
  tcpService(service: string): Promise<string>;
  /** Which replica each WebSocket upgrade went to, in order (replica names). */
  wsRoutes(): readonly string[];
  /** Stops probing and listening; closes every open connection. Never throws. */
  close(): Promise<void>;
}

interface EndpointState extends LbEndpoint {
  ready: boolean;
  /** Probes answered since the replica was added (a waitUnready needs a failed one after it began). */
  probes: number;
  lastFailureAt: number;
  /** Failed probes in a row. */
  failures: number;
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
/** Errors meaning nothing was processed upstream: the request may go to another replica (idempotent methods only). */
const RETRYABLE_ERRORS = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE']);
const RETRYABLE_METHODS = new Set(['GET', 'HEAD']);

/**
 * Starts the balancer on free loopback ports.
 * @param options.table the route table (loadRouteTable of dev/src/ingress-proxy.ts).
 * @param options.wsService the service behind the WebSocket listener (ws-fanout).
 * @throws the listen error.
 */
export async function startLoadBalancer(options: { table: RouteTable; wsService: string; probe: ProbeSettings }): Promise<LoadBalancer> {
  const pools = new Map<string, EndpointState[]>();
  const cursors = new Map<string, number>();
  const counters: LbCounters = { noEndpoint: 0, retried: 0, badGateway: 0, refusedConnections: 0 };
  const events: LbEvent[] = [];
  const count = (kind: keyof LbCounters, service: string, replica?: string) => {
    counters[kind]++;
    events.push({ at: Date.now(), kind, service, ...(replica ? { replica } : {}) });
  };
  const wsRoutes: string[] = [];
  const pool = (service: string) => {
    let p = pools.get(service);
    if (!p) {
      p = [];
      pools.set(service, p);
    }
    return p;
  };
  /** Round-robin over the ready replicas that have `role`, skipping `exclude`. */
  const pick = (service: string, role: keyof LbEndpoint['ports'], exclude?: string): EndpointState | undefined => {
    const ready = pool(service).filter((e) => e.ready && e.ports[role] !== undefined && e.name !== exclude);
    if (ready.length === 0) return undefined;
    const n = (cursors.get(service) ?? 0) % ready.length;
    cursors.set(service, n + 1);
    return ready[n];
  };

  let closed = false;
  const probeOne = async (e: EndpointState) => {
    const ok = await fetch(`${e.adminUrl}/readyz`, { signal: AbortSignal.timeout(options.probe.timeoutMs) }).then(
      async (r) => {
        await r.body?.cancel().catch(() => undefined);
        return r.status === 200;
      },
      () => false,
    );
    e.probes++;
    e.failures = ok ? 0 : e.failures + 1;
    // A replica never ready yet needs one pass; a ready one leaves after failureThreshold failures in a row.
    if (ok) e.ready = true;
    else if (e.failures >= options.probe.failureThreshold) e.ready = false;
    if (!ok) e.lastFailureAt = Date.now();
  };
  const prober = (async () => {
    while (!closed) {
      const started = Date.now();
      await Promise.all([...pools.values()].flat().map(probeOne));
      await sleep(Math.max(0, options.probe.periodMs - (Date.now() - started)));
    }
  })();

  const agent = new Agent({ keepAlive: true, timeout: 4_000 });
  const proxy = createProxyServer({ agent, xfwd: false, changeOrigin: false, proxyTimeout: 60_000 });
  proxy.on('error', () => undefined);
  const sockets = new Set<Socket>();
  const track = (server: Server | TcpServer) =>
    server.on('connection', (s: Socket) => {
      sockets.add(s);
      s.once('close', () => sockets.delete(s));
    });

  const json = (res: ServerResponse, status: number, body: object) => {
    const text = JSON.stringify(body);
    res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text), 'cache-control': 'no-store' });
    res.end(text);
  };

  const http = createServer((req: IncomingMessage, res: ServerResponse) => {
    const path = new URL(req.url ?? '/', 'http://lb.invalid').pathname;
    const service = matchRoute(options.table, path);
    req.headers['x-request-id'] ??= randomUUID();
    req.headers['x-forwarded-for'] = '127.0.0.1';
    req.headers['x-forwarded-proto'] = 'http';
    let tried: string | undefined;
    const forward = (): void => {
      const target = pick(service, 'http', tried);
      if (!target) {
        if (tried) {
          count('badGateway', service, tried);
          json(res, 502, { status: 502, code: 'unavailable', message: `${service} did not answer and has no other ready replica` });
        } else {
          count('noEndpoint', service);
          json(res, 503, { status: 503, code: 'unavailable', message: `${service} has no ready replica` });
        }
        return;
      }
      res.setHeader('x-upstream-replica', target.name);
      proxy.web(req, res, { target: `http://127.0.0.1:${target.ports.http}` }, (err) => {
        const e = err as Error & { code?: string };
        if (res.headersSent) {
          res.destroy(e);
          return;
        }
        if (!tried && e.code && RETRYABLE_ERRORS.has(e.code) && RETRYABLE_METHODS.has(req.method ?? '')) {
          tried = target.name;
          count('retried', service, target.name);
          forward();
          return;
        }
        count('badGateway', service, target.name);
        json(res, 502, { status: 502, code: 'unavailable', message: `${service} replica ${target.name} did not answer (${e.code ?? e.message})` });
      });
    };
    forward();
  });
  track(http);

  const ws = createServer((_req, res) => json(res, 426, { status: 426, code: 'upgrade_required', message: 'connect with a WebSocket client' }));
  ws.on('upgrade', (req: IncomingMessage, socket: Socket, head: Buffer) => {
    socket.on('error', () => socket.destroy());
    const target = pick(options.wsService, 'ws');
    if (!target) {
      count('refusedConnections', options.wsService);
      socket.end('HTTP/1.1 503 Service Unavailable\r\ncontent-length: 0\r\nconnection: close\r\n\r\n');
      return;
    }
    wsRoutes.push(target.name);
    proxy.ws(req, socket, head, { target: `http://127.0.0.1:${target.ports.ws}`, agent: false }, () => {
      count('refusedConnections', options.wsService, target.name);
      if (socket.writable) socket.end('HTTP/1.1 502 Bad Gateway\r\ncontent-length: 0\r\nconnection: close\r\n\r\n');
    });
  });
  track(ws);

  const listen = (server: Server | TcpServer) =>
    new Promise<number>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => {
        server.off('error', reject);
        resolve((server.address() as AddressInfo).port);
      });
    });
  const httpPort = await listen(http);
  const wsPort = await listen(ws);
  const tcpServers: TcpServer[] = [];

  const find = (service: string, name: string) => pool(service).find((e) => e.name === name);

  return {
    httpUrl: `http://127.0.0.1:${httpPort}`,
    wsUrl: `ws://127.0.0.1:${wsPort}`,
    counters,
    events,
    add(service, endpoint) {
      pool(service).push({ ...endpoint, ready: false, probes: 0, lastFailureAt: 0, failures: 0 });
    },
    remove(service, name) {
      const p = pool(service);
      const i = p.findIndex((e) => e.name === name);
      if (i >= 0) p.splice(i, 1);
    },
    isReady: (service, name) => find(service, name)?.ready ?? false,
    async waitReady(service, name, timeoutMs, alive = () => true) {
      const deadline = Date.now() + timeoutMs;
      while (!find(service, name)?.ready) {
        if (!alive()) throw new Error(`${name} exited before it was ready`);
        if (Date.now() > deadline) throw new Error(`${name} not ready after ${timeoutMs} ms`);
        await sleep(50);
      }
    },
    async waitUnready(service, name, timeoutMs) {
      const since = Date.now();
      const deadline = since + timeoutMs;
      for (;;) {
        const e = find(service, name);
        if (!e || (!e.ready && e.lastFailureAt >= since)) return;
        if (Date.now() > deadline) throw new Error(`${name} still ready ${timeoutMs} ms after its shutdown began`);
        await sleep(20);
      }
    },
    async tcpService(service) {
      const server = createTcpServer((client) => {
        client.on('error', () => client.destroy());
        const target = pick(service, 'grpc');
        if (!target) {
          count('refusedConnections', service);
          client.destroy();
          return;
        }
        const upstream = connect({ host: '127.0.0.1', port: target.ports.grpc! });
        upstream.on('error', () => {
          count('refusedConnections', service, target.name);
          client.destroy();
        });
        client.on('close', () => upstream.destroy());
        upstream.on('close', () => client.destroy());
        client.pipe(upstream);
        upstream.pipe(client);
      });
      track(server);
      tcpServers.push(server);
      return `127.0.0.1:${await listen(server)}`;
    },
    wsRoutes: () => wsRoutes,
    async close() {
      closed = true;
      await prober.catch(() => undefined);
      for (const s of sockets) s.destroy();
      await Promise.all([http, ws, ...tcpServers].map((s) => new Promise<void>((r) => s.close(() => r()))));
      agent.destroy();
      proxy.close();
    },
  };
}
