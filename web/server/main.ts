/**
 * The web app's server process (npm start runs it; the Helm chart runs it in the web image).
 * Environment: PORT (5173), ADMIN_PORT (9307: /metrics, /healthz, /readyz), WEB_DIST_DIR (web/dist),
 * WEB_SCHEMAS_DIR (packages/contracts/schemas: the trade-message schemas served at /schemas/*), LOG_LEVEL,
 * SHUTDOWN_READINESS_DELAY_MS (0) and SHUTDOWN_DEADLINE_MS (10000) as every service (lib CommonConfig),
 * HTTP_KEEP_ALIVE_TIMEOUT_MS (72000).
 */
import { join, resolve } from 'node:path';
import { z } from 'zod';
import { CommonConfig, Port, counterOnce, createLogger, createRegistry, defaultPort, loadConfig, runMain, serve } from '@tradewind/lib';
import { DEFAULT_SCHEMAS_DIR, createWebServer } from './app';

const Config = CommonConfig.extend({
  PORT: Port.default(defaultPort('web', 'http')),
  ADMIN_PORT: Port.default(defaultPort('web', 'admin')),
  WEB_DIST_DIR: z.string().default(join(resolve(import.meta.dirname, '..'), 'dist')),
  /** Directory of the trade-message JSON Schemas served at /schemas/<name>.schema.json (default: the repository's packages/contracts/schemas; the image must hold them there). */
  WEB_SCHEMAS_DIR: z.string().default(DEFAULT_SCHEMAS_DIR),
  /**
   * How long an idle keep-alive connection stays open, ms. It must outlast the idle time of the
   * proxy in front (ingress-nginx keeps upstream connections 60 s, upstream-keepalive-timeout; the
   * local ingress proxy 4 s): a server that closes first races the proxy's next request on that
   * connection, which then fails (a 502 seen in the browser tests with Node's 5 s default). 72 s is
   * fastify's default, which every other service's HTTP server uses.
   */
  HTTP_KEEP_ALIVE_TIMEOUT_MS: z.coerce.number().int().min(1_000).max(600_000).default(72_000),
});

runMain(async () => {
  const config = loadConfig(Config);
  const logger = createLogger({ service: 'web', level: config.LOG_LEVEL });
  const registry = createRegistry('web');
  const requests = counterOnce(registry, 'tradewind_web_http_requests_total', 'Web requests by route class and status', ['route', 'status']);
  const server = createWebServer({
    distDir: config.WEB_DIST_DIR,
    schemasDir: config.WEB_SCHEMAS_DIR,
    onRequest: (route, status) => requests.inc({ route, status: String(status) }),
  });
  server.keepAliveTimeout = config.HTTP_KEEP_ALIVE_TIMEOUT_MS;
  // Node's guidance: headers of a request on a kept-alive connection may take until the keep-alive ends.
  server.headersTimeout = config.HTTP_KEEP_ALIVE_TIMEOUT_MS + 1_000;
  await serve({
    logger,
    registry,
    adminPort: config.ADMIN_PORT,
    shutdown: config,
    checks: [],
    app: {
      start: () =>
        new Promise<void>((ok) =>
          server.listen(config.PORT, () => {
            logger.info({ port: config.PORT, dist: config.WEB_DIST_DIR }, 'web listening');
            ok();
          }),
        ),
      stop: () =>
        new Promise<void>((ok) => {
          server.close(() => ok());
          server.closeIdleConnections();
        }),
    },
    close: [],
  });
});
