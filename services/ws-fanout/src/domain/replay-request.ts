/**
 * The `replay` part of a WebSocket subscribe request (docs/websocket.md, "Replay"):
 * `{"subject": "basic.pumpfun", "replay": {"from": "2026-11-21T10:00:00Z"}}` (an ISO-8601 date-time
 * with a time zone) or `{"replay": {"from": 1234}}` (a TRADES stream sequence, positive integer).
 */
import { WsProtocolError } from './errors.js';

/** Where a replay starts: a point in time (ms since the epoch) or a TRADES stream sequence. */
export type ReplayStart = { kind: 'time'; ms: number } | { kind: 'sequence'; sequence: number };

/** ISO-8601 date-time with a time zone (`Z` or `±hh:mm`); seconds and fractions optional. */
const ISO_DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:\d{2})$/;

/** Date.parse rolls 2026-02-30 over to March; a real calendar date keeps its day. */
function isCalendarDate(iso: string): boolean {
  const [y, m, d] = iso.slice(0, 10).split('-').map(Number) as [number, number, number];
  return new Date(Date.UTC(y, m - 1, d)).getUTCDate() === d;
}

const bad = (message: string) => new WsProtocolError('invalid_argument', 'bad_replay', message);

/**
 * Reads `replay` from a subscribe request.
 * @param replay the request's `replay` value, expected `{ from: string | number }`.
 * @param nowMs the current time in ms since the epoch (a start time after it is refused).
 * @throws WsProtocolError bad_replay (the connection stays open) when `replay` is not an object with
 *   `from`, or `from` is neither an ISO-8601 date-time with a time zone nor a positive integer, or
 *   lies in the future.
 */
export function parseReplayStart(replay: unknown, nowMs: number): ReplayStart {
  if (typeof replay !== 'object' || replay === null || Array.isArray(replay) || !('from' in replay)) {
    throw bad('replay must be {"from": "<ISO-8601 date-time>"} or {"from": <TRADES stream sequence>}');
  }
  const from = (replay as { from: unknown }).from;
  if (typeof from === 'number') {
    if (!Number.isSafeInteger(from) || from < 1) throw bad(`replay from ${JSON.stringify(from)} is not a stream sequence: use a positive integer`);
    return { kind: 'sequence', sequence: from };
  }
  if (typeof from === 'string') {
    const ms = ISO_DATE_TIME.test(from) && isCalendarDate(from) ? Date.parse(from) : Number.NaN;
    if (Number.isNaN(ms)) throw bad(`replay from ${JSON.stringify(from)} is not an ISO-8601 date-time with a time zone, such as "2026-11-21T10:00:00Z"`);
    if (ms > nowMs) throw bad(`replay from ${from} is in the future (server time ${new Date(nowMs).toISOString()})`);
    return { kind: 'time', ms };
  }
  throw bad('replay from must be an ISO-8601 date-time string or a positive integer stream sequence');
}
