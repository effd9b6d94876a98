/**
 * Pure: one TRADES message → one event of the live trade tape (`GET /api/trades/tape`,
 * docs/token-price.md "Trade tape"), and its Server-Sent Events frame. No I/O.
 */
import { isTradeSubject } from '@tradewind/contracts/subjects';
import { factsOf, recordedTimeMs } from './trade.js';

/**
 * One trade on the tape, as the SSE `data:` of one event (snake_case like the trade messages,
 * docs/architecture.md §6).
 */
export interface TapeEvent {
  /** TRADES stream sequence of the message. */
  readonly seq: number;
  /** The TRADES subject: basic.pumpfun, basic.bonk, premium.pumpswap, premium.raydium. */
  readonly subject: string;
  /** The message's `transaction_type`: BUY, SELL, SWAP, CREATE_POOL, DEPOSIT, WITHDRAW. */
  readonly transaction_type: string;
  /** `buy` / `sell` when the message states a side (BUY, SELL, and SWAPs with one WSOL side), else null. */
  readonly side: 'buy' | 'sell' | null;
  /** The token traded (base58): `mint`, or LaunchLab's `base_mint`. */
  readonly mint: string;
  /** As token-price knows the token (its CREATE, on-chain metadata), else null: a client then shows the mint. */
  readonly symbol: string | null;
  readonly name: string | null;
  /** SOL moved by the trade, SOL (the message's `sol_amount_ui`). */
  readonly sol_amount: number;
  /** Transaction signature (base58). */
  readonly signature: string;
  /** The chain's block time, Unix ms; null when the chain gave none. Replayed copies keep the recording's. */
  readonly block_time_ms: number | null;
  /** A copy replayed from a recording by ingest's replay source (local stack), not a live trade. */
  readonly replayed: boolean;
  /** Replayed copies: when the trade happened on the chain, Unix ms (null when the recording states no time); null for live trades. */
  readonly recorded_at: number | null;
}

/** A tape event before token-price's own knowledge of the token is added ({@link withIdentity}). */
export type TapeTrade = Omit<TapeEvent, 'symbol' | 'name'> & { readonly statedSymbol: string | null; readonly statedName: string | null };

const UTF8 = new TextDecoder('utf-8', { fatal: true });

/**
 * The tape trade a TRADES message is, or null when it is not one: not UTF-8 JSON, not an object, not on a
 * trade subject, or without a `transaction_type`, a `signature`, a token (`mint` / `base_mint`) or a positive
 * finite `sol_amount_ui` (token/token swaps, launch CREATEs and MIGRATEs, SOL-less pools, slot status messages).
 * Never throws: the tape shows trades, it does not judge messages (the ticker counts bad ones).
 */
export function tapeTradeOf(subject: string, seq: number, body: Uint8Array): TapeTrade | null {
  if (!isTradeSubject(subject)) return null;
  let m: unknown;
  try {
    m = JSON.parse(UTF8.decode(body));
  } catch {
    return null;
  }
  if (typeof m !== 'object' || m === null || Array.isArray(m)) return null;
  const msg = m as Record<string, unknown>;
  const type = msg.transaction_type;
  const signature = msg.signature;
  const mint = typeof msg.mint === 'string' ? msg.mint : msg.base_mint;
  const sol = msg.sol_amount_ui;
  if (typeof type !== 'string' || typeof signature !== 'string' || typeof mint !== 'string' || mint.length === 0) return null;
  if (typeof sol !== 'number' || !Number.isFinite(sol) || sol <= 0) return null;
  const replayed = msg.replayed === true;
  const facts = factsOf(msg, typeof msg.source === 'string' ? msg.source : '');
  const blockTime = msg.block_time_ms;
  return {
    seq,
    subject,
    transaction_type: type,
    side: msg.side === 'buy' || msg.side === 'sell' ? msg.side : null,
    mint,
    statedSymbol: facts.symbol ?? null,
    statedName: facts.name ?? null,
    sol_amount: sol,
    signature,
    block_time_ms: typeof blockTime === 'number' && Number.isFinite(blockTime) ? blockTime : null,
    replayed,
    recorded_at: replayed ? recordedTimeMs(msg) : null,
  };
}

/**
 * The event with the token's symbol and name: what the message itself states, else what token-price knows
 * (`known`, from its store; null when unknown or unreadable).
 */
export function withIdentity(trade: TapeTrade, known: { symbol: string | null; name: string | null } | null): TapeEvent {
  const { statedSymbol, statedName, ...rest } = trade;
  return { ...rest, symbol: statedSymbol ?? known?.symbol ?? null, name: statedName ?? known?.name ?? null };
}

/** One SSE event: `data: <JSON>` and the blank line (https://html.spec.whatwg.org/multipage/server-sent-events.html). */
export function sseFrame(event: TapeEvent): Buffer {
  // JSON.stringify escapes line breaks inside strings, so the data is one line.
  return Buffer.from(`data: ${JSON.stringify(event)}\n\n`);
}

/** The heartbeat: an SSE comment line, which EventSource ignores. */
export const SSE_HEARTBEAT = Buffer.from(': heartbeat\n\n');
