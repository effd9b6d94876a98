/** Public surface of @tradewind/token-price (for scripts and tests). */
export { createApp, type TokenPriceDeps } from './app.js';
export { loadTokenPriceConfig, TokenPriceConfigSchema, type TokenPriceConfig } from './config.js';
export { TokenStore, type RankedToken, type StoreOptions } from './store/redis-store.js';
export { interpretTrade, tradeTimeMs, InvalidTradeMessage, type TradeUpdate, type TokenFacts } from './domain/trade.js';
export { toRow, chooseSolUsd, priceAtWindowStart, bucketStart, WINDOW_MS, type TokenRow, type SolUsdRate } from './domain/window.js';
