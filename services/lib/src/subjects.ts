/**
 * JetStream stream and subject names (ARCHITECTURE §5).
 */

/** The stream holding every decoded trade. */
export const TRADES_STREAM = 'TRADES';

/** Every subject of the TRADES stream: `basic.*` for launchpads (all plans), `premium.*` for AMMs (plus, pro). */
export const TRADE_SUBJECTS = ['basic.pumpfun', 'basic.bonk', 'premium.pumpswap', 'premium.raydium'] as const;

export type TradeSubject = (typeof TRADE_SUBJECTS)[number];

/**
 * Header ingest sets on every TRADES publish: the publish time as decimal epoch milliseconds. ws-fanout
 * measures delivery latency from it (`tradewind_ws_fanout_delivery_latency_seconds`). Stored with the
 * message in the stream, so a replayed message carries its original publish time.
 */
export const TRADE_PUBLISHED_MS_HEADER = 'Tradewind-Published-Ms';

/** Type guard for a TRADES subject. */
export function isTradeSubject(value: unknown): value is TradeSubject {
  return typeof value === 'string' && (TRADE_SUBJECTS as readonly string[]).includes(value);
}

/**
 * Tag every per-customer NATS account carries (credential-issuer signs it; ws-fanout reads it):
 * connection slots and request budgets are then counted per account, i.e. per customer, not per user key.
 */
export const CUSTOMER_ACCOUNT_TAG = 'customer';
