/**
 * Public surface of @tradewind/dev: what `npm start`, Tilt and the tests run beside the services,
 * and nothing a production image holds (docs/architecture.md §2, "Development only").
 * - Stand-ins for what cannot be reached from a developer machine: the local Stripe
 *   (Stripe's v1 API, hosted Checkout and portal pages, signed webhooks), the local OpenID
 *   Connect provider (Google sign-in), and the ingress proxy (the Kubernetes ingress's routes).
 * - Local servers: an operator-mode nats-server from the project's state directory.
 * - Test helpers: free ports, a private `nats-server -js`, a fresh PostgreSQL database per test file.
 */
export { freePort, isListening, waitForPort } from './testing/ports.js';
export { startNatsServer, type TestNatsServer } from './testing/nats-server.js';
export { createTestDatabase, DEFAULT_TEST_DATABASE_URL, type TestDatabase } from './testing/postgres.js';
export { startLocalOidcProvider, type LocalOidcProvider } from './local-oidc.js';
export { startLocalNats, NATS_SERVER_BIN, type LocalNats } from './local-nats.js';
export { startLocalStripe, CHECKOUT_LABEL, PORTAL_LABEL, type LocalStripe, type LocalStripeOptions } from './local-stripe/index.js';
export {
  startIngressProxy,
  loadRouteTable,
  matchRoute,
  DEFAULT_ROUTES_FILE,
  UPSTREAM_KEEP_ALIVE_IDLE_MS,
  type IngressProxy,
  type IngressProxyOptions,
  type Route,
  type RouteTable,
  type PathType,
  type AccessLogEntry,
} from './ingress-proxy.js';
