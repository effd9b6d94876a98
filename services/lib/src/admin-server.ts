/**
 * The admin HTTP server every service runs on its own port: `/healthz` (the
 * process is alive), `/readyz` (its dependencies are reachable) and `/metrics`
 * (Prometheus text format from one prom-client Registry per process).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Counter, Gauge, Registry, collectDefaultMetrics } from 'prom-client';
import type { Logger } from './logger.js';

/** A named readiness check; it resolves true when the dependency is usable. */
export interface ReadinessCheck {
  readonly name: string;
  check(): boolean | Promise<boolean>;
}

/** Creates the process registry with Node's default metrics, prefixed `tradewind_<service>_`. */
export function createRegistry(service: string): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: `tradewind_${service.replace(/-/g, '_')}_` });
  return registry;
}

/**
 * The counter `name` on `registry`, created on first use. Components that can be built more than
 * once per process (a restarted consumer, a second relay) share it instead of having prom-client
 * refuse a second registration.
 */
export function counterOnce<L extends string>(registry: Registry, name: string, help: string, labelNames: readonly L[]): Counter<L> {
  return (registry.getSingleMetric(name) as Counter<L> | undefined) ?? new Counter<L>({ name, help, labelNames, registers: [registry] });
}

/** The gauge `name` on `registry`, created on first use (see {@link counterOnce}). */
export function gaugeOnce<L extends string>(registry: Registry, name: string, help: string, labelNames: readonly L[]): Gauge<L> {
  return (registry.getSingleMetric(name) as Gauge<L> | undefined) ?? new Gauge<L>({ name, help, labelNames, registers: [registry] });
}

/**
 * What `/metrics` renders: a prom-client Registry, or anything that renders like one (ws-fanout's
 * cluster primary answers with the aggregate of its workers' registries).
 */
export type MetricsSource = Pick<Registry, 'contentType' | 'metrics'>;

/** Handle returned by {@link startAdminServer}. */
export interface AdminServer {
  readonly port: number;
  /** Makes `/readyz` answer 503 from now on (first step of graceful shutdown). */
  markNotReady(): void;
  close(): Promise<void>;
}

/**
 * Starts the admin server on `port` (0 = any free port) bound to `host` (default all interfaces).
 * `/readyz` answers 200 `{"ready":true}` when every check passes, else 503 with the failing names.
 */
export async function startAdminServer(options: {
  port: number;
  host?: string;
  registry: MetricsSource;
  checks: readonly ReadinessCheck[];
  logger: Logger;
}): Promise<AdminServer> {
  let shuttingDown = false;
  const server: Server = createServer((req, res) => {
    void (async () => {
      const path = (req.url ?? '/').split('?')[0];
      if (req.method !== 'GET') {
        res.writeHead(405, { allow: 'GET' }).end();
      } else if (path === '/healthz') {
        res.writeHead(200, { 'content-type': 'application/json' }).end('{"alive":true}');
      } else if (path === '/readyz') {
        const failing: string[] = [];
        if (shuttingDown) failing.push('shutting_down');
        for (const c of options.checks) {
          const ok = await Promise.resolve()
            .then(() => c.check())
            .catch(() => false);
          if (!ok) failing.push(c.name);
        }
        const body = failing.length === 0 ? { ready: true } : { ready: false, failing };
        res.writeHead(failing.length === 0 ? 200 : 503, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      } else if (path === '/metrics') {
        res.writeHead(200, { 'content-type': options.registry.contentType }).end(await options.registry.metrics());
      } else {
        res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"not_found"}');
      }
    })().catch((err: unknown) => {
      options.logger.error({ err }, 'admin request failed');
      if (!res.headersSent) res.writeHead(500).end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    markNotReady() {
      shuttingDown = true;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
