/**
 * Public surface of @tradewind/dev: what `npm start`, Tilt and the tests run beside the services,
 * and nothing a production image holds (docs/architecture.md §2, "Development only").
 * - Stand-ins for what cannot be reached from a developer machine: the local Stripe
 *   (Stripe's v1 API, hosted Checkout and portal pages, signed webhooks), the local OpenID
 *   Connect provider (Google sign-in), the ingress proxy (the Kubernetes ingress's routes) and a
 *   mainnet-shaped Yellowstone (Geyser gRPC) node replaying the recorded mainnet transactions with
 *   synthetic signatures and slots (src/geyser), with the protocol pieces ingest's tests share.
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
export {
  startMainnetGeyser,
  DEFAULT_GEYSER_RATE_PROFILE,
  DEFAULT_GEYSER_SEND_INTERVAL_MS,
  MAINNET_GEYSER_PACKAGE,
  producedBy,
  phaseAt,
  validateRateProfile,
  defaultFirstSlot,
  passSignatures,
  SOLANA_MS_PER_SLOT,
  CONFIRMATION_DEPTH_SLOTS,
  FINALIZATION_DEPTH_SLOTS,
  GEYSER_SERVICE,
  GEYSER_PING_INTERVAL_MS,
  GEYSER_LAGGED_MESSAGE,
  GEYSER_FROM_SLOT_UNSUPPORTED_MESSAGE,
  GEYSER_SHUTDOWN_MESSAGE,
  DEFAULT_GEYSER_CHANNEL_CAPACITY,
  DEFAULT_GEYSER_REPLAY_STORED_SLOTS,
  SLOT_STATUS_OF_COMMITMENT,
  decodeSubscribeRequest,
  geyserSlotUnavailableMessage,
  transactionFilterError,
  transactionMatches,
  geyserTransactionFromRpc,
  encodeTransactionError,
  type FilterableTransaction,
  type SubscribeResponse,
  type WireTransactionParser,
  type GeyserRateProfile,
  type MainnetGeyserOptions,
  type MainnetGeyserServer,
  type MainnetGeyserStats,
} from './geyser/index.js';
