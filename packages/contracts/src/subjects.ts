/**
 * JetStream stream and subject names (docs/architecture.md §5).
 */
import { AppError } from './errors.js';

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

/** Wrapped SOL mint (SPL Token program's native mint, `native_mint::id()`): the SOL side of WSOL-quoted pools. */
export const WSOL_MINT = 'So11111111111111111111111111111111111111112';

/**
 * The System Program id. pump.fun's `quote_mint` names it for native SOL (basic.pumpfun schema) and PumpSwap's
 * `coin_creator` for "no creator" (premium.pumpswap schema): neither is a mint or an account of the trade.
 */
export const NATIVE_SOL = '11111111111111111111111111111111';

/**
 * The message fields that name a token mint a trade touches, per subject (field names of
 * packages/contracts/schemas/<subject>.schema.json); a message has only those of its type:
 * - basic.pumpfun: `mint` (the coin), `quote_mint` (2026+ curves; NATIVE_SOL for native SOL);
 * - basic.bonk: `base_mint` (the launched token), `quote_mint` (WSOL for LetsBonk pools);
 * - premium.pumpswap: `base_mint` (the token, = `mint`), `quote_mint` (WSOL for SOL pools);
 * - premium.raydium: SWAP `input_mint` / `output_mint`, CREATE_POOL `token_0_mint` / `token_1_mint`,
 *   DEPOSIT / WITHDRAW `vault_0_mint` / `vault_1_mint`.
 * One list serves ws-fanout's `mints` filter and ingest's per-mint subjects, so both select the same trades.
 */
export const TRADE_MINT_FIELDS: Readonly<Record<TradeSubject, readonly string[]>> = {
  'basic.pumpfun': ['mint', 'quote_mint'],
  'basic.bonk': ['base_mint', 'quote_mint'],
  'premium.pumpswap': ['base_mint', 'quote_mint'],
  'premium.raydium': ['input_mint', 'output_mint', 'token_0_mint', 'token_1_mint', 'vault_0_mint', 'vault_1_mint'],
};

/**
 * Token between a TRADES subject and a token mint in a per-mint subject:
 * `<subject>.mint.<mint>`, e.g. `basic.pumpfun.mint.<mint>` (docs/nats.md, "One mint's trades natively").
 */
export const MINT_SUBJECT_TOKEN = 'mint';

/**
 * A Solana public key as the trade schemas write mints (packages/contracts/schemas, `pattern`): 32 to 44
 * characters of the base58 alphabet. None of them is `.`, `*`, `>` or white space, so it is one NATS token.
 */
const MINT_ADDRESS = /^[1-9A-HJ-NP-Za-km-z]{32,44}$/;

/** Whether `value` has the form of a base58 mint address (the schemas' pattern; not decoded, so not proof of a curve point). */
export function isMintAddress(value: unknown): value is string {
  return typeof value === 'string' && MINT_ADDRESS.test(value);
}

/**
 * The per-mint subject of one TRADES subject: `<subject>.mint.<mint>`, e.g.
 * `mintSubject('basic.pumpfun', 'So1…')` → `basic.pumpfun.mint.So1…`. ingest publishes every trade of
 * `subject` that touches `mint` on it as well, as a core NATS message (not stored in TRADES).
 * @param subject a TRADES subject.
 * @param mint base58 mint address (32–44 characters).
 * @throws AppError('invalid_argument') when `subject` is not a TRADES subject or `mint` is not a base58 address
 *   (a `.`, `*` or `>` in it would make another subject or a wildcard).
 */
export function mintSubject(subject: TradeSubject, mint: string): string {
  if (!isTradeSubject(subject))
    throw new AppError('invalid_argument', `${JSON.stringify(subject)} is not a TRADES subject; subjects are ${TRADE_SUBJECTS.join(', ')}`);
  if (!isMintAddress(mint)) throw new AppError('invalid_argument', `${JSON.stringify(mint)} is not a base58 mint address (32 to 44 characters)`);
  return `${subject}.${MINT_SUBJECT_TOKEN}.${mint}`;
}

/**
 * The NATS wildcard covering every per-mint subject of `subject`: `<subject>.mint.>`. What account exports,
 * imports and subscribe permissions name (credential-issuer); subscribing to it receives every trade of
 * `subject` that touches some mint, once per mint.
 */
export function mintSubjectWildcard(subject: TradeSubject): string {
  return `${subject}.${MINT_SUBJECT_TOKEN}.>`;
}
