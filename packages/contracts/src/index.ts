/**
 * Public surface of @tradewind/contracts: what the services, the web app and the tools agree on,
 * in one package both sides import by name (docs/architecture.md §2). Explicit exports, no `export *`.
 * - errors: the error codes every API answers with, and AppError;
 * - plans: the plans catalogue (spec §7); subjects: TRADES subjects, mints, headers;
 * - trade-messages: which stream message is a trade (`isTradeMessage`);
 * - events: the EVENTS subjects, schema versions and protobuf codec (proto/tradewind/v1/events.proto);
 * - the generated gRPC contracts (proto/tradewind/v1/*.proto, `npm run proto`);
 * - usage: the body of GET /api/usage (what a customer used of the plan, issue 34);
 * - subpaths: ./ws-errors (WebSocket error and close codes), ./usage, ./notifications, ./session-client,
 *   ./plans, ./subjects, ./errors (browser-safe), ./schemas/<subject>.schema.json (the trade
 *   message JSON Schemas, docs/architecture.md §6).
 */
export { USAGE_DAYS, type DeliveredCount, type InUse, type UsageDay, type UsageReport } from './usage.js';
export { AppError, ConfigError, isUuid, toAppError, type ErrorCode } from './errors.js';
export {
  PLANS,
  PLAN_IDS,
  isPlanId,
  cheapestPlanFor,
  cheapestPlanWhere,
  annualTotalUsd,
  annualSavingPercent,
  maxAnnualSavingPercent,
  ENTITLED_STATUSES,
  entitledPlan,
  type Plan,
  type PlanId,
} from './plans.js';
export {
  TRADES_STREAM,
  TRADE_SUBJECTS,
  TRADE_PUBLISHED_MS_HEADER,
  CUSTOMER_ACCOUNT_TAG,
  isTradeSubject,
  type TradeSubject,
  MINT_SUBJECT_TOKEN,
  isMintAddress,
  mintSubject,
  mintSubjectWildcard,
  WSOL_MINT,
  NATIVE_SOL,
  TRADE_MINT_FIELDS,
} from './subjects.js';
export {
  SLOTS_SUBJECT,
  SLOT_MESSAGE_SCHEMA_VERSION,
  SLOT_STATUSES,
  slotMessageId,
  type SlotStatusName,
  type SlotStatusMessage,
  type DeadSlotReason,
} from './slots.js';
export { TRADE_MESSAGE_TYPE, isTradeMessage } from './trade-messages.js';
export {
  EVENTS_STREAM,
  DEAD_LETTER_STREAM,
  EVENT_SUBJECTS,
  EVENT_SCHEMA_VERSIONS,
  deadLetterSubject,
  isEventSubject,
  newEventMeta,
  encodeEvent,
  decodeEvent,
  UserCreated,
  SubscriptionChanged,
  CredentialsRotated,
  PaymentSucceeded,
  PaymentFailed,
  ConnectionLimited,
  UsageReported,
  type CustomerUsage,
  type EventMeta,
  type EventTypes,
  type EventSubject,
} from './events.js';
export {
  AuthServiceClient,
  AuthServiceService,
  User as AuthUser,
  UserMetadata as AuthUserMetadata,
  GetUserRequest,
  GetUserResponse,
  type AuthServiceServer,
} from './gen/tradewind/v1/auth.js';
export {
  BillingServiceClient,
  BillingServiceService,
  Subscription as BillingSubscription,
  Entitlements,
  GetSubscriptionRequest,
  GetSubscriptionResponse,
  GetEntitlementsRequest,
  GetEntitlementsResponse,
  type BillingServiceServer,
} from './gen/tradewind/v1/billing.js';
export {
  PriceServiceClient,
  PriceServiceService,
  Token as PriceToken,
  UsdSource,
  ListTokensRequest,
  ListTokensResponse,
  type PriceServiceServer,
} from './gen/tradewind/v1/prices.js';
