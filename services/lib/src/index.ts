/** Public surface of @tradewind/lib (explicit exports, no `export *`). */
export { AppError, ConfigError, toAppError, type ErrorCode } from './errors.js';
export { CommonConfig, LogLevel, Port, PositiveInt, NonNegativeNumber, urlWithScheme, loadConfig } from './config.js';
export { createLogger, REDACT_PATHS, type Logger } from './logger.js';
export { createRegistry, startAdminServer, type AdminServer, type ReadinessCheck } from './admin-server.js';
export { installShutdown, runMain, serve } from './lifecycle.js';
export { connectNats, ensureTradesStream, tradesManager, DEFAULT_TRADES_STREAM, type TradesStreamOptions, type NatsConnection } from './nats.js';
export { PLANS, PLAN_IDS, isPlanId, cheapestPlanFor, type Plan, type PlanId } from './plans.js';
export { TRADES_STREAM, TRADE_SUBJECTS, isTradeSubject, type TradeSubject } from './subjects.js';
export { freePort, isListening, waitForPort } from './testing/ports.js';
