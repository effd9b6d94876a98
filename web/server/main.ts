/**
 * The web app's server process (npm start runs it; the Helm chart runs it in the web image).
 * Environment: PORT (5173), ADMIN_PORT (9307: /metrics, /healthz, /readyz), WEB_DIST_DIR (web/dist),
 * WEB_SCHEMAS_DIR (packages/contracts/schemas: the trade-message schemas served at /schemas/*), LOG_LEVEL,
 * SHUTDOWN_READINESS_DELAY_MS (0) and SHUTDOWN_DEADLINE_MS (10000) as every service (lib CommonConfig),
 * HTTP_KEEP_ALIVE_TIMEOUT_MS (72000); the deployment's parts of the pages' Content Security Policy:
 * WS_PUBLIC_URL (ws://localhost:9223), CSP_SIGN_IN_ORIGINS (http://localhost:8091),
 * CSP_CHECKOUT_ORIGINS (http://localhost:8092), CSP_IMAGE_ORIGINS (none) — @tradewind/lib/security-headers.
 */
import { join, resolve } from 'node:path';
import { z } from 'zod';
import { CommonConfig, Port, counterOnce, createLogger, createRegistry, defaultPort, loadConfig, runMain, serve } from '@tradewind/lib';
import { DEFAULT_WEB_SECURITY_ENV, webSecuritySettingsFromEnv } from '@tradewind/lib/security-headers';
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
  /** The WebSocket endpoint the dashboard hands out (credential-issuer's WS_PUBLIC_URL); its origin is the pages' CSP `connect-src` besides the origin. */
  WS_PUBLIC_URL: z.string().default(DEFAULT_WEB_SECURITY_ENV.WS_PUBLIC_URL),
  /** Origins of the sign-in provider, space-separated (CSP `form-action`): https://accounts.google.com with Google; default the local OpenID provider. */
  CSP_SIGN_IN_ORIGINS: z.string().default(DEFAULT_WEB_SECURITY_ENV.CSP_SIGN_IN_ORIGINS),
  /** Origins of checkout and the billing portal, space-separated (CSP `form-action`): https://checkout.stripe.com https://billing.stripe.com with Stripe; default the local Stripe stand-in. */
  CSP_CHECKOUT_ORIGINS: z.string().default(DEFAULT_WEB_SECURITY_ENV.CSP_CHECKOUT_ORIGINS),
  /** Origins of images besides the site's own, space-separated (CSP `img-src`): the identity provider's avatars (https://*.googleusercontent.com with Google); default none. */
  CSP_IMAGE_ORIGINS: z.string().default(DEFAULT_WEB_SECURITY_ENV.CSP_IMAGE_ORIGINS),
});

runMain(async () => {
  const config = loadConfig(Config);
  const security = webSecuritySettingsFromEnv({
    WS_PUBLIC_URL: config.WS_PUBLIC_URL,
    CSP_SIGN_IN_ORIGINS: config.CSP_SIGN_IN_ORIGINS,
    CSP_CHECKOUT_ORIGINS: config.CSP_CHECKOUT_ORIGINS,
    CSP_IMAGE_ORIGINS: config.CSP_IMAGE_ORIGINS,
  });
  const logger = createLogger({ service: 'web', level: config.LOG_LEVEL });
  const registry = createRegistry('web');
  const requests = counterOnce(registry, 'tradewind_web_http_requests_total', 'Web requests by route class and status', ['route', 'status']);
  const server = createWebServer({
    distDir: config.WEB_DIST_DIR,
    schemasDir: config.WEB_SCHEMAS_DIR,
    security,
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
