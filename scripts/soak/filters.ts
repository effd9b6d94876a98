/**
 * What a soak subscriber is owed, computed from the stored trade itself: the WebSocket server-side
 * filters the soak's clients use (docs/websocket.md §2 "Filters": `types`, `mints`, `min_sol`) and the
 * native per-mint subjects (docs/nats.md "One mint's trades natively").
 *
 * Written from the documentation and the trade schemas (packages/contracts/schemas/<subject>.schema.json),
 * not taken from ws-fanout's own matcher (services/ws-fanout/src/domain/trade-filter.ts), so the audit
 * checks ws-fanout against the contract rather than against itself. It covers the filter kinds the soak
 * subscribes with; `min_sol` only on the two subjects whose SOL side is one field
 * ({@link SOL_SIDE_FIELDS}).
 */
import { NATIVE_SOL, TRADE_MINT_FIELDS, WSOL_MINT, type TradeSubject } from '@tradewind/contracts';

/** A WebSocket subscription filter as the client sends it (docs/websocket.md §2). */
export interface SoakFilter {
  /** `transaction_type` values; the trade's type must be one of them. */
  readonly types?: readonly string[];
  /** Token mints (base58); the trade must touch one of them. */
  readonly mints?: readonly string[];
  /** The trade's SOL amount must be at least this many SOL (compared in lamports). */
  readonly min_sol?: number;
}

/** A stored trade message as parsed JSON (field names of the trade schemas). */
export type TradeJson = Readonly<Record<string, unknown>>;

/** Lamports per SOL (Solana's native unit has 9 decimals). */
const LAMPORTS_PER_SOL = 1_000_000_000n;

/**
 * Where the SOL side of a trade is, per subject that `min_sol` is used on here (schema field names):
 * - basic.pumpfun: `sol_amount` (lamports) when the curve is quoted in SOL — `quote_mint` absent (pre-2026
 *   curves), NATIVE_SOL or WSOL; a curve quoted in another token has no SOL side;
 * - premium.pumpswap: `user_quote_amount` (lamports the user paid or received) when `quote_mint` is WSOL.
 */
export const SOL_SIDE_FIELDS: Readonly<Partial<Record<TradeSubject, string>>> = {
  'basic.pumpfun': 'sol_amount',
  'premium.pumpswap': 'user_quote_amount',
};

/**
 * The trade's SOL amount in lamports, or undefined when it has none (or the field is absent).
 * @throws Error for a subject without an entry in {@link SOL_SIDE_FIELDS} (the soak never filters those by `min_sol`).
 */
export function solSideLamports(subject: TradeSubject, trade: TradeJson): bigint | undefined {
  const field = SOL_SIDE_FIELDS[subject];
  if (field === undefined) throw new Error(`min_sol is not computed for ${subject} in the soak`);
  const quote = trade.quote_mint;
  const solQuoted = subject === 'basic.pumpfun' ? quote === undefined || quote === NATIVE_SOL || quote === WSOL_MINT : quote === WSOL_MINT;
  const raw = trade[field];
  if (!solQuoted || typeof raw !== 'string' || !/^\d{1,20}$/.test(raw)) return undefined;
  return BigInt(raw);
}

/** `sol` (≥ 0, at most 9 decimals) in lamports, through its decimal text so 0.29 stays exact. */
export function solToLamports(sol: number): bigint {
  const [whole = '0', fraction = ''] = sol.toFixed(9).split('.');
  return BigInt(whole) * LAMPORTS_PER_SOL + BigInt(fraction.padEnd(9, '0'));
}

/**
 * The token mints a trade touches as the WebSocket `mints` filter reads them: the values of the subject's
 * {@link TRADE_MINT_FIELDS} present in the message, without NATIVE_SOL (pump.fun's `quote_mint` for native SOL
 * is not a mint).
 */
export function tradeMints(subject: TradeSubject, trade: TradeJson): string[] {
  const out: string[] = [];
  for (const field of TRADE_MINT_FIELDS[subject]) {
    const value = trade[field];
    if (typeof value === 'string' && value !== NATIVE_SOL && !out.includes(value)) out.push(value);
  }
  return out;
}

/**
 * The mints whose per-mint subject `<subject>.mint.<mint>` carries a copy of the trade: {@link tradeMints}
 * without WSOL (docs/nats.md: "without WSOL and native SOL").
 */
export function perMintSubjectMints(subject: TradeSubject, trade: TradeJson): string[] {
  return tradeMints(subject, trade).filter((m) => m !== WSOL_MINT);
}

/**
 * Whether the stored `trade` of `subject` passes `filter`: every key given must match (docs/websocket.md §2):
 * `types` ∋ `transaction_type`; `mints` ∩ {@link tradeMints} ≠ ∅; SOL amount ≥ `min_sol` (a trade without a
 * SOL side passes only `min_sol` 0).
 */
export function matchesSoakFilter(subject: TradeSubject, filter: SoakFilter, trade: TradeJson): boolean {
  if (filter.types !== undefined && !filter.types.includes(String(trade.transaction_type))) return false;
  if (filter.mints !== undefined) {
    const mints = tradeMints(subject, trade);
    if (!filter.mints.some((m) => mints.includes(m))) return false;
  }
  if (filter.min_sol !== undefined && filter.min_sol > 0) {
    const lamports = solSideLamports(subject, trade);
    if (lamports === undefined || lamports < solToLamports(filter.min_sol)) return false;
  }
  return true;
}
