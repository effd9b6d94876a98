/**
 * Which per-mint subjects (`<subject>.mint.<mint>`, lib's mintSubject) a trade is copied to, so a native
 * NATS user can receive one mint's trades without receiving the whole subject (docs/nats.md, "One mint's
 * trades natively"). Pure: no I/O.
 *
 * The mints are those the WebSocket `mints` filter matches (ws-fanout's tradeFacts; field names of
 * packages/contracts/schemas/<subject>.schema.json), except the SOL side:
 * - basic.pumpfun: `mint`, and `quote_mint` on curves quoted in another token (2026+ curves, e.g. USDC);
 * - basic.bonk: `base_mint`, `quote_mint` (other quotes than WSOL exist on LaunchLab);
 * - premium.pumpswap: `base_mint` (= `mint`), `quote_mint`;
 * - premium.raydium: SWAP `input_mint` / `output_mint`, CREATE_POOL `token_0_mint` / `token_1_mint`,
 *   DEPOSIT / WITHDRAW `vault_0_mint` / `vault_1_mint`.
 * Never WSOL or native SOL: nearly every trade has a SOL side, so `….mint.So11…112` would be a second copy of
 * the whole subject, doubling what nats-server sends for nothing (subscribe to the subject itself instead).
 * `lp_mint` is not a traded token and has no subject.
 */
import { NATIVE_SOL, TRADE_MINT_FIELDS, WSOL_MINT, isMintAddress, mintSubject } from '@tradewind/contracts';
import type { TradeMessage, TradeSubject } from './decode/index.js';

/**
 * The per-mint subjects of one trade, in field order, each mint once.
 * @param subject the TRADES subject the trade is published on.
 * @param message the decoded trade.
 * @returns e.g. `['basic.pumpfun.mint.<mint>']`; `[]` when the trade names no mint but SOL's (a field that is
 *   absent, not a string or not a base58 address is skipped, never thrown on).
 */
export function mintSubjectsOf(subject: TradeSubject, message: TradeMessage): string[] {
  const fields = TRADE_MINT_FIELDS[subject];
  const record = message as Record<string, unknown>;
  const out: string[] = [];
  for (let i = 0; i < fields.length; i++) {
    const mint = record[fields[i]!];
    if (!isMintAddress(mint) || mint === WSOL_MINT || mint === NATIVE_SOL) continue;
    const subjectOfMint = mintSubject(subject, mint);
    if (!out.includes(subjectOfMint)) out.push(subjectOfMint);
  }
  return out;
}
