/**
 * Local Yellowstone (Geyser gRPC) servers: the mainnet-shaped stand-in (`startMainnetGeyser`, run
 * by dev/bin/local-geyser.ts and `npm start -- --yellowstone`) and the protocol pieces it shares
 * with ingest's test server (services/ingest/test/support/geyser-server.ts).
 */
export {
  startMainnetGeyser,
  DEFAULT_GEYSER_RATE_PROFILE,
  DEFAULT_GEYSER_SEND_INTERVAL_MS,
  MAINNET_GEYSER_PACKAGE,
  type GeyserRateProfile,
  type MainnetGeyserOptions,
  type MainnetGeyserServer,
  type MainnetGeyserStats,
} from './mainnet-server.js';
export { producedBy, phaseAt, validateRateProfile, defaultFirstSlot, passSignatures, SOLANA_MS_PER_SLOT } from './profile.js';
export { CONFIRMATION_DEPTH_SLOTS, FINALIZATION_DEPTH_SLOTS, DEAD_SLOT_ERROR, type ForkKind } from './chain.js';
export {
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
  type FilterableTransaction,
  type SubscribeResponse,
} from './protocol.js';
export { geyserTransactionFromRpc, encodeTransactionError, type WireTransactionParser } from './rpc-transaction.js';
