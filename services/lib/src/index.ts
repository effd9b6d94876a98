/**
 * Public surface of @tradewind/lib, the service runtime (explicit exports, no `export *`): config,
 * logging, admin server, lifecycle and start-up retries, NATS/JetStream, the EVENTS streams, outbox, event consumer,
 * gRPC, HTTP, OpenAPI, db, access tokens, the services manifest. The contracts the services share
 * (errors, plans, subjects, events, generated gRPC code, schemas) are in @tradewind/contracts.
 */
export {
  CommonConfig,
  DEFAULT_STARTUP_DEADLINE_MS,
  StreamReplicas,
  LogLevel,
  Port,
  PositiveInt,
  NonNegativeNumber,
  urlWithScheme,
  natsServerUrls,
  optionalString,
  optionalUrl,
  loadConfig,
} from './config.js';
export { createLogger, REDACT_PATHS, type Logger } from './logger.js';
export { createRegistry, counterOnce, gaugeOnce, startAdminServer, type AdminServer, type ReadinessCheck } from './admin-server.js';
export { installShutdown, runMain, serve, startService, type ServiceStartup, type StartedService } from './lifecycle.js';
export {
  runStartup,
  retryStartup,
  isRetryableStartupError,
  startupBackoffDelay,
  DEFAULT_STARTUP_BACKOFF,
  StartupAbortedError,
  StartupFailedError,
  type RetryStartupOptions,
  type StartupBackoff,
  type StartupHandle,
  type StartupOptions,
} from './startup.js';
export {
  connectNats,
  ensureTradesStream,
  isJetStreamNotFound,
  tradesManager,
  DEFAULT_TRADES_STREAM,
  type TradesStreamOptions,
  type NatsConnection,
} from './nats.js';
export {
  watchStreamLeader,
  streamLeaderElectedSubject,
  consumerLeaderElectedSubject,
  type LeaderEvent,
  type LeaderSignal,
  type StreamLeaderWatch,
} from './stream-leader.js';
export {
  createDb,
  migrate,
  pingDb,
  sql,
  type DbOptions,
  type Migrations,
  type Kysely,
  type Migration,
  type Transaction,
  type Selectable,
  type Insertable,
  type Updateable,
  type Generated,
  type ColumnType,
} from './db.js';
export { ensureEventsStreams, DEFAULT_EVENTS_STREAM, type EventsStreamOptions } from './events.js';
export { appendEvent, createOutboxRelay, outboxMigration, type OutboxTable, type OutboxDatabase, type OutboxRelay, type OutboxRelayOptions } from './outbox.js';
export {
  createEventConsumer,
  consumerMigration,
  type ConsumerTables,
  type EventConsumer,
  type EventConsumerOptions,
  type EventContext,
  type EventHandlers,
} from './event-consumer.js';
export { unary, fromGrpcError, startGrpcServer, callUnary, Metadata, grpcCredentials, grpcStatus } from './grpc.js';
export {
  API_CONTENT_SECURITY_POLICY,
  API_SECURITY_HEADERS,
  COMMON_SECURITY_HEADERS,
  DEFAULT_WEB_SECURITY_ENV,
  DISABLED_BROWSER_FEATURES,
  HSTS_VALUE,
  HTML_REFERRER_POLICY,
  PERMISSIONS_POLICY,
  cspOrigin,
  cspOriginList,
  htmlContentSecurityPolicy,
  htmlSecurityHeaders,
  inlineScriptHashes,
  webSecuritySettingsFromEnv,
  type WebSecuritySettings,
} from './security-headers.js';
export { createHttpApp, errorBody, httpAppError, HTTP_STATUS, lastForwardedFor, type ErrorBody, type HttpAppOptions } from './http.js';
export {
  buildOpenApiDocument,
  openApiOperations,
  openApiPath,
  openApiProblems,
  recordRoutes,
  DEFAULT_ERROR_RESPONSE,
  ErrorBodySchema,
  SECURITY_SCHEMES,
  type ApiDeclaration,
  type ApiResponse,
  type ApiRoute,
  type ApiSecurity,
  type HttpMethod,
  type OpenApiDocument,
  type OpenApiDocumentOptions,
} from './openapi.js';
export { ACCESS_TOKEN_AUDIENCE, NO_ACTIVE_SESSION, bearerToken, verifyAccessToken, createAccessTokenVerifier, type AccessTokenClaims } from './access-token.js';
export {
  SERVICES_MANIFEST_FILE,
  ServicesManifestSchema,
  defaultPort,
  findServicesManifest,
  readServicesManifest,
  servicesManifest,
  type ManifestComponent,
  type ManifestPort,
  type ServicesManifest,
} from './services-manifest.js';
export { requestRateWindow, weightedRequests, wsConnectionSlotsKey, wsRequestRateKey, type RequestRateWindow } from './ws-limit-keys.js';
