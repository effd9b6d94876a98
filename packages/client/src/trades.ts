/**
 * Trade message types: the generated schema types (src/generated/trades.ts) plus the WebSocket `seq`.
 */
import { SUBJECT_BY_SOURCE, type TradeBySubject, type TradeSubject } from './generated/trades.js';

/**
 * A trade message as received over WebSocket: the JSON published on NATS for `S` (its JSON Schema,
 * packages/contracts/schemas/<subject>.schema.json) plus `seq`, its TRADES stream sequence (protocol v2:
 * increasing per subject, not contiguous; the same number native NATS users read from JetStream metadata).
 * Without a type argument, the union of every subject's message; narrow it with `source`.
 */
export type TradeMessage<S extends TradeSubject = TradeSubject> = S extends TradeSubject ? TradeBySubject[S] & { seq: number } : never;

/** The subject a trade message belongs to, from its `source`; undefined for a source this version does not know. */
export function subjectOfTrade(trade: { readonly source?: unknown }): TradeSubject | undefined {
  const source = trade.source;
  return typeof source === 'string' && Object.hasOwn(SUBJECT_BY_SOURCE, source) ? SUBJECT_BY_SOURCE[source as keyof typeof SUBJECT_BY_SOURCE] : undefined;
}
