/**
 * The ws-fanout WebSocket protocol as this client speaks it (pure: no I/O).
 * Sources: docs/websocket.md (v1) and protocol v2 (trade `seq`, `resume_after`, `filter`,
 * `heartbeat`). Control messages always have a `type`, never `"trade"`; a trade message has no
 * `type`, or `"type": "trade"` (basic.pumpfun messages since message schema version 2, product
 * spec §3; docs/websocket.md).
 */
import type { SlotStatusMessage } from '../generated/slots.js';

/**
 * A subscription filter (protocol v2 §3); every given key must match. Sent as is; the server
 * normalises it and echoes the result in `subscribed.filter`.
 */
export interface TradeFilter {
  /** Token mints (base58); matches a trade touching any of them. */
  readonly mints?: readonly string[];
  /** Trader, creator or pool accounts (base58); matches a trade naming any of them. */
  readonly accounts?: readonly string[];
  /** `transaction_type` values of the subject, e.g. `["CREATE", "BUY"]`. */
  readonly types?: readonly string[];
  /** Smallest SOL amount of the trade, in SOL (not lamports). */
  readonly min_sol?: number;
}

/** A request the client sends after authenticating. */
export type ClientRequest = { subject: string; filter?: TradeFilter | null; resume_after?: number; slots?: true } | { unsubscribe: string };

/** Server frames, parsed and checked. `trade` carries the parsed object and its `seq` (undefined from a v1 server). */
export type ServerFrame =
  | { kind: 'challenge'; nonce: string }
  | { kind: 'authenticated'; plan: string; subjects: string[]; expiresAtMs: number | null }
  | { kind: 'subscribed'; subject: string; filter: TradeFilter | null; resumeAfter: number | null; seq: number | null }
  | { kind: 'unsubscribed'; subject: string; reason: string | null; message: string | null }
  | { kind: 'replay_caught_up'; subject: string; seq: number | null }
  | { kind: 'plan_changed'; plan: string; subjects: string[] }
  | { kind: 'heartbeat'; slot: number | null; seq: number | null; subjects: Record<string, number | null> }
  | { kind: 'error'; code: string; message: string; subject: string | null; oldestSeq: number | null }
  | { kind: 'trade'; seq: number | undefined; trade: Record<string, unknown> }
  /** A slot status message of a subscription with slot status (docs/websocket.md "Slot status"). */
  | { kind: 'slot'; seq: number; subject: string; message: SlotStatusMessage & { seq: number; subject: string } }
  | { kind: 'other'; type: string; message: Record<string, unknown> }
  | { kind: 'invalid'; reason: string };

/**
 * Close codes after which reconnecting with the same credentials cannot help (docs/websocket.md §7):
 * 4401 (credentials refused: invalid_jwt, invalid_signature, unknown_account, nkey_mismatch,
 * expired, revoked, not_authenticated) and 4400 (the server could not understand our
 * authentication). Every other close (4429 connection_limit, 4413 slow_consumer, 4408
 * auth_timeout, 4503, 1001, 1006, …) is retried with backoff.
 */
export const FATAL_CLOSE_CODES: ReadonlySet<number> = new Set([4400, 4401]);

/** Close code this client uses when it gives up on a link (watchdog, request timeout): an application code (RFC 6455 §7.4.2). */
export const CLIENT_ABANDON_CLOSE_CODE = 4000;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isSeq = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;
const seqOrNull = (v: unknown): number | null => (isSeq(v) ? v : null);
const stringOrNull = (v: unknown): string | null => (typeof v === 'string' ? v : null);
const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((s): s is string => typeof s === 'string') : []);

/**
 * The `type` a trade message may carry: basic.pumpfun messages (schema_version 2) have
 * `"type": "trade"` (product spec §3), which no control message uses (docs/websocket.md).
 */
export const TRADE_MESSAGE_TYPE = 'trade';

/**
 * Parses one text frame. Never throws: a frame that is not JSON, or a control message missing a
 * field the client needs, is `{kind: 'invalid'}`; an unknown `type` is `{kind: 'other'}`. A frame
 * without `type` or with `"type": "trade"` is a trade (`{kind: 'trade'}`, whose `seq` must be a
 * positive safe integer when present).
 */
export function parseServerFrame(text: string): ServerFrame {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { kind: 'invalid', reason: 'not JSON' };
  }
  if (!isObject(value)) return { kind: 'invalid', reason: 'not a JSON object' };
  const type = value.type;
  if (type === undefined || type === TRADE_MESSAGE_TYPE) {
    const seq = value.seq;
    if (seq !== undefined && !(isSeq(seq) && seq > 0)) return { kind: 'invalid', reason: `trade message with a bad seq ${JSON.stringify(seq)}` };
    return { kind: 'trade', seq, trade: value };
  }
  if (typeof type !== 'string') return { kind: 'invalid', reason: 'type is not a string' };
  const subject = value.subject;
  switch (type) {
    case 'challenge':
      return typeof value.nonce === 'string' ? { kind: 'challenge', nonce: value.nonce } : { kind: 'invalid', reason: 'challenge without nonce' };
    case 'authenticated':
      return {
        kind: 'authenticated',
        plan: String(value.plan ?? 'unknown'),
        subjects: strings(value.subjects),
        expiresAtMs: typeof value.expires_at_ms === 'number' ? value.expires_at_ms : null,
      };
    case 'subscribed':
      if (typeof subject !== 'string') return { kind: 'invalid', reason: 'subscribed without subject' };
      return {
        kind: 'subscribed',
        subject,
        filter: isObject(value.filter) ? (value.filter as TradeFilter) : null,
        resumeAfter: seqOrNull(value.resume_after),
        seq: seqOrNull(value.seq),
      };
    case 'unsubscribed':
      if (typeof subject !== 'string') return { kind: 'invalid', reason: 'unsubscribed without subject' };
      return { kind: 'unsubscribed', subject, reason: stringOrNull(value.reason), message: stringOrNull(value.message) };
    case 'replay_caught_up':
      if (typeof subject !== 'string') return { kind: 'invalid', reason: 'replay_caught_up without subject' };
      return { kind: 'replay_caught_up', subject, seq: seqOrNull(value.seq) };
    case 'plan_changed':
      return { kind: 'plan_changed', plan: String(value.plan ?? 'unknown'), subjects: strings(value.subjects) };
    case 'heartbeat': {
      const subjects: Record<string, number | null> = {};
      if (isObject(value.subjects)) for (const [s, v] of Object.entries(value.subjects)) subjects[s] = seqOrNull(v);
      return { kind: 'heartbeat', slot: typeof value.slot === 'number' ? value.slot : null, seq: seqOrNull(value.seq), subjects };
    }
    case 'slot': {
      const seq = value.seq;
      if (!(isSeq(seq) && seq > 0)) return { kind: 'invalid', reason: `slot message with a bad seq ${JSON.stringify(seq)}` };
      if (typeof subject !== 'string') return { kind: 'invalid', reason: 'slot message without subject' };
      if (!isSeq(value.slot) || !SLOT_STATUS_NAMES.has(value.status as string))
        return { kind: 'invalid', reason: 'slot message without slot or a known status' };
      return { kind: 'slot', seq, subject, message: value as unknown as SlotStatusMessage & { seq: number; subject: string } };
    }
    case 'error':
      return {
        kind: 'error',
        code: typeof value.code === 'string' ? value.code : 'unknown',
        message: typeof value.message === 'string' ? value.message : '',
        subject: stringOrNull(subject),
        oldestSeq: seqOrNull(value.oldest_seq) ?? oldestSeqFromMessage(value.message),
      };
    default:
      return { kind: 'other', type, message: value };
  }
}

/** `resume_too_old` names the oldest sequence in its message too ("… the oldest sequence still held for resume is 23456 …"). */
function oldestSeqFromMessage(message: unknown): number | null {
  if (typeof message !== 'string') return null;
  const m = /oldest sequence[^0-9]*([0-9]+)/.exec(message);
  return m ? Number(m[1]) : null;
}

/**
 * The subscribe request: `{"subject"}`, plus `"filter"` when one is set and `"resume_after"` when
 * a position is known, `"slots": true` for a subscription with slot status. A null filter is omitted, except
 * when `clearFilter` (a filter being removed from a live subscription, which needs `"filter": null`).
 */
export function subscribeRequest(
  subject: string,
  filter: TradeFilter | null,
  resumeAfter: number | undefined,
  clearFilter = false,
  slots = false,
): ClientRequest {
  const request: { subject: string; filter?: TradeFilter | null; resume_after?: number; slots?: true } = { subject };
  if (filter !== null || clearFilter) request.filter = filter;
  if (resumeAfter !== undefined) request.resume_after = resumeAfter;
  if (slots) request.slots = true;
  return request;
}

/** The `status` values of a slot message (slots.schema.json). */
const SLOT_STATUS_NAMES: ReadonlySet<string> = new Set(['processed', 'confirmed', 'finalized', 'dead']);

/**
 * Checks a filter's shape before it is sent (the server checks values: mints, types of the subject).
 * @returns the filter, or null for null/undefined/`{}` (no filter).
 * @throws TypeError naming the bad key.
 */
export function checkFilter(filter: TradeFilter | null | undefined): TradeFilter | null {
  if (filter === null || filter === undefined) return null;
  if (!isObject(filter)) throw new TypeError('filter must be an object like {"mints": [...], "types": ["BUY"], "min_sol": 0.5} or null');
  const known = new Set(['mints', 'accounts', 'types', 'min_sol']);
  for (const key of Object.keys(filter)) {
    if (!known.has(key)) throw new TypeError(`filter.${key} is not a filter key (use mints, accounts, types, min_sol)`);
  }
  for (const key of ['mints', 'accounts', 'types'] as const) {
    const list = filter[key];
    if (list !== undefined && !(Array.isArray(list) && list.every((s) => typeof s === 'string'))) {
      throw new TypeError(`filter.${key} must be an array of strings`);
    }
  }
  if (filter.min_sol !== undefined && !(typeof filter.min_sol === 'number' && Number.isFinite(filter.min_sol) && filter.min_sol >= 0)) {
    throw new TypeError(`filter.min_sol must be a finite number ≥ 0 (SOL), got ${String(filter.min_sol)}`);
  }
  return Object.keys(filter).length === 0 ? null : filter;
}
