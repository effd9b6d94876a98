/**
 * @tradewind/client — public surface (explicit exports, no `export *`).
 */
export {
  TradewindClient,
  Subscription,
  DEFAULT_WATCHDOG_MS,
  DEFAULT_REQUEST_TIMEOUT_MS,
  DEFAULT_MAX_BUFFERED_TRADES,
  DEFAULT_MAX_BUFFERED_EVENTS,
  DEFAULT_SLOT_WAIT_MS,
  type TradewindClientOptions,
  type SubscribeOptions,
  type WaitForSlotOptions,
  type ClientStats,
  type Timers,
} from './client.js';
export type { ClientEvent, ClientEventOf } from './events.js';
export { DEFAULT_BACKOFF, backoffDelayMs, type BackoffPolicy } from './domain/backoff.js';
export { FATAL_CLOSE_CODES, type TradeFilter } from './domain/protocol.js';
export type { Gap } from './domain/subscriptions.js';
export { parseCredentials, createNonceSigner, type Credentials, type NonceSigner } from './credentials.js';
export {
  TradewindError,
  TradewindOptionsError,
  CredentialsRefusedError,
  ReconnectFailedError,
  SubscriptionError,
  BufferOverflowError,
  SlotDeadError,
} from './errors.js';
export type { SlotStatusMessage } from './generated/slots.js';
export type { WantedCommitment } from './domain/slot-book.js';
export { subjectOfTrade, type TradeMessage } from './trades.js';
export {
  TRADE_SUBJECTS,
  SUBJECT_BY_SOURCE,
  type TradeSubject,
  type TradeBySubject,
  type BasicPumpfunTradeMessage,
  type BasicBonkTradeMessage,
  type PremiumPumpswapTradeMessage,
  type PremiumRaydiumTradeMessage,
} from './generated/trades.js';
export type { WebSocketConstructor, WebSocketLike } from './websocket.js';
