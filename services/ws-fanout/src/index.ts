/** Public surface of @tradewind/ws-fanout (for tests and scripts). */
export { createApp, ACCOUNT_UPDATE_SUBJECTS, type WsFanoutApp, type WsFanoutAppConfig, type WsFanoutDeps } from './app.js';
export { loadWsFanoutConfig, WsFanoutConfigSchema, type WsFanoutConfig } from './config.js';
export { CredentialVerifier, maySubscribe, subjectMatches, type VerifiedUser, type KeyProof } from './domain/verifier.js';
export { ConnectionLimiter } from './domain/connection-limiter.js';
export { RequestRateLimiter } from './domain/request-rate-limiter.js';
export { CLOSE_CODES, WsProtocolError, type WsErrorCode } from './domain/errors.js';
export { resolverLookup } from './resolver-lookup.js';
export { parseReplayStart, type ReplayStart } from './domain/replay-request.js';
export { TradesReplayer, type TradesReplay } from './trades-replay.js';
export { encodePublicKey, encodeSeed, privateKeyFromNKeySeed, type NKeyRole } from './domain/nkey-crypto.js';
export { TradeFeeds, FEED_CONSUMER_PREFIX, type TradeFeedsOptions, type FeedRecreateReason } from './delivery/subject-feed.js';
