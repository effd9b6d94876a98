/**
 * The web app's server process (npm start runs it; the Helm chart runs it in the web image).
 * Environment: PORT (5173), ADMIN_PORT (9307: /metrics, /healthz, /readyz), WEB_DIST_DIR (web/dist), LOG_LEVEL,
 * SHUTDOWN_READINESS_DELAY_MS (0) and SHUTDOWN_DEADLINE_MS (10000) as every service (lib CommonConfig).
 */
import { join, resolve } from 'node:path';
import { z } from 'zod';
import { CommonConfig, Port, counterOnce, createLogger, createRegistry, loadConfig, runMain, serve } from '@tradewind/lib';
import { createWebServer } from './app';

const Config = CommonConfig.extend({
  PORT: Port.default(5173),
  ADMIN_PORT: Port.default(9307),
  WEB_DIST_DIR: z.string().default(join(resolve(import.meta.dirname, '..'), 'dist')),
});

runMain(async () => {
  const config = loadConfig(Config);
  const logger = createLogger({ service: 'web', level: config.LOG_LEVEL });
  const registry = createRegistry('web');
  const requests = counterOnce(registry, 'tradewind_web_http_requests_total', 'Web requests by route class and status', ['route', 'status']);
  const server = createWebServer({ distDir: config.WEB_DIST_DIR, onRequest: (route, status) => requests.inc({ route, status: String(status) }) });
  await serve({
    logger,
    registry,
    adminPort: config.ADMIN_PORT,
    shutdown: config,
    checks: [],
    app: {
      start: () => new Promise<void>((ok) => server.listen(config.PORT, () => {
        logger.info({ port: config.PORT, dist: config.WEB_DIST_DIR }, 'web listening');
        ok();
      })),
      stop: () => new Promise<void>((ok) => {
        server.close(() => ok());
        server.closeIdleConnections();
      }),
    },
    close: [],
  });
});
