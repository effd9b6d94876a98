/** Public surface of @tradewind/token-price (for scripts and tests). */
export { createApp, type TokenPriceDeps } from './app.js';
export { createRedisClient } from './redis-client.js';
export { loadTokenPriceConfig, TokenPriceConfigSchema, type TokenPriceConfig } from './config.js';
export { TokenStore, type RankedToken, type StoreOptions, type StoredSolUsd } from './store/redis-store.js';
export { interpretTrade, tradeTimeMs, recordedTimeMs, InvalidTradeMessage, type TradeUpdate, type TokenFacts } from './domain/trade.js';
export {
  toRow,
  toReplayedRow,
  chooseSolUsd,
  priceAtWindowStart,
  bucketStart,
  WINDOW_MS,
  type TokenRow,
  type SolUsdRate,
  type ReplayedToken,
  type TokenIdentity,
} from './domain/window.js';
