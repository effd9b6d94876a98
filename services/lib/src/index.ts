/** Public surface of @tradewind/lib (explicit exports, no `export *`). */
export { AppError, ConfigError, isUuid, toAppError, type ErrorCode } from './errors.js';
export { CommonConfig, LogLevel, Port, PositiveInt, NonNegativeNumber, urlWithScheme, optionalString, optionalUrl, loadConfig } from './config.js';
export { createLogger, REDACT_PATHS, type Logger } from './logger.js';
export { createRegistry, counterOnce, gaugeOnce, startAdminServer, type AdminServer, type ReadinessCheck } from './admin-server.js';
export { installShutdown, runMain, serve } from './lifecycle.js';
export { connectNats, ensureTradesStream, isJetStreamNotFound, tradesManager, DEFAULT_TRADES_STREAM, type TradesStreamOptions, type NatsConnection } from './nats.js';
export { PLANS, PLAN_IDS, isPlanId, cheapestPlanFor, cheapestPlanWhere, annualTotalUsd, annualSavingPercent, maxAnnualSavingPercent, ENTITLED_STATUSES, entitledPlan, type Plan, type PlanId } from './plans.js';
export { TRADES_STREAM, TRADE_SUBJECTS, TRADE_PUBLISHED_MS_HEADER, CUSTOMER_ACCOUNT_TAG, isTradeSubject, type TradeSubject, MINT_SUBJECT_TOKEN, isMintAddress, mintSubject, mintSubjectWildcard, WSOL_MINT, NATIVE_SOL, TRADE_MINT_FIELDS } from './subjects.js';
export { createDb, migrate, pingDb, sql, type DbOptions, type Migrations, type Kysely, type Migration, type Transaction, type Selectable, type Insertable, type Updateable, type Generated, type ColumnType } from './db.js';
export {
  EVENTS_STREAM, DEAD_LETTER_STREAM, EVENT_SUBJECTS, EVENT_SCHEMA_VERSIONS, DEFAULT_EVENTS_STREAM,
  deadLetterSubject, isEventSubject, newEventMeta, encodeEvent, decodeEvent, ensureEventsStreams,
  UserCreated, SubscriptionChanged, CredentialsRotated, PaymentSucceeded, PaymentFailed, ConnectionLimited,
  type EventMeta, type EventTypes, type EventSubject, type EventsStreamOptions,
} from './events.js';
export { appendEvent, createOutboxRelay, outboxMigration, type OutboxTable, type OutboxDatabase, type OutboxRelay, type OutboxRelayOptions } from './outbox.js';
export { createEventConsumer, consumerMigration, type ConsumerTables, type EventConsumer, type EventConsumerOptions, type EventContext, type EventHandlers } from './event-consumer.js';
export { unary, fromGrpcError, startGrpcServer, callUnary, Metadata, grpcCredentials, grpcStatus } from './grpc.js';
export { createHttpApp, errorBody, httpAppError, HTTP_STATUS, type ErrorBody, type HttpAppOptions } from './http.js';
export {
  buildOpenApiDocument, openApiOperations, openApiPath, openApiProblems, recordRoutes, DEFAULT_ERROR_RESPONSE, ErrorBodySchema, SECURITY_SCHEMES,
  type ApiDeclaration, type ApiResponse, type ApiRoute, type ApiSecurity, type HttpMethod, type OpenApiDocument, type OpenApiDocumentOptions,
} from './openapi.js';
export { ACCESS_TOKEN_AUDIENCE, NO_ACTIVE_SESSION, bearerToken, verifyAccessToken, createAccessTokenVerifier, type AccessTokenClaims } from './access-token.js';
export {
  AuthServiceClient, AuthServiceService, User as AuthUser, UserMetadata as AuthUserMetadata,
  GetUserRequest, GetUserResponse,
  type AuthServiceServer,
} from './gen/tradewind/v1/auth.js';
export {
  BillingServiceClient, BillingServiceService, Subscription as BillingSubscription, Entitlements,
  GetSubscriptionRequest, GetSubscriptionResponse, GetEntitlementsRequest, GetEntitlementsResponse,
  type BillingServiceServer,
} from './gen/tradewind/v1/billing.js';
export {
  PriceServiceClient, PriceServiceService, Token as PriceToken, UsdSource, ListTokensRequest, ListTokensResponse,
  type PriceServiceServer,
} from './gen/tradewind/v1/prices.js';
export { SERVICES_MANIFEST_FILE, ServicesManifestSchema, defaultPort, findServicesManifest, readServicesManifest, servicesManifest, type ManifestComponent, type ManifestPort, type ServicesManifest } from './services-manifest.js';
