/**
 * The WebSocket protocol's error codes and close codes (docs/websocket.md §6 and §7), one list for
 * ws-fanout (which sends them: WsErrorCode), the dashboard's API reference and the blog (which show
 * them) and docs/websocket.md (checked equal by web/test/ws-error-codes.test.ts). Browser-safe: no imports.
 */

/** A WebSocket error code. `close` is the close code that follows the error frame, or null when the connection stays open. */
export interface WsErrorCodeEntry {
  code: string;
  when: string;
  close: number | null;
  /** When the close code differs before and after authentication. */
  closeNote?: string;
}

// Source: docs/websocket.md §7 "Errors".
const ERROR_CODES = [
  { code: 'bad_json', when: 'the frame is not JSON', close: 4400, closeNote: '4400 before authentication, stays open after' },
  {
    code: 'bad_request',
    when: 'not a JSON object; an unknown request; unsubscribing a subject not subscribed',
    close: 4400,
    closeNote: '4400 before authentication, stays open after',
  },
  {
    code: 'missing_fields',
    when: 'authentication without `jwt`, or without `nkey` and `sig`; before authentication, a message that is neither authentication nor subscribe/unsubscribe',
    close: 4400,
  },
  { code: 'invalid_jwt', when: 'malformed JWT, bad signature, not a user JWT, not valid yet', close: 4401 },
  { code: 'invalid_signature', when: 'JWT not signed by its account (or its signing keys), or the account not signed by the operator', close: 4401 },
  { code: 'unknown_account', when: 'the resolver does not know the issuing account', close: 4401 },
  { code: 'nkey_mismatch', when: 'the seed is not the JWT user’s, or the nonce signature does not verify', close: 4401 },
  { code: 'expired', when: 'the user JWT (or its account) has expired — at authentication, at an account update, or while connected', close: 4401 },
  { code: 'revoked', when: 'the account’s `revocations` cover these credentials — at authentication or at an account update', close: 4401 },
  { code: 'unavailable', when: 'the resolver or Redis (connection slots) cannot be reached during authentication; never let past a plan limit', close: 4503 },
  { code: 'unavailable', when: 'a subscribe, unsubscribe or filter change while Redis cannot be reached (its request count cannot be kept)', close: null },
  { code: 'unavailable', when: 'a replay cannot be started or stops because TRADES history cannot be read', close: null },
  {
    code: 'unavailable',
    when: 'a subscription with `"slots": true` where the NATS server behind ws-fanout is older than 2.10 (one consumer cannot read two subjects)',
    close: null,
  },
  { code: 'auth_timeout', when: 'no credentials within `WS_AUTH_TIMEOUT_MS`', close: 4408 },
  { code: 'not_authenticated', when: 'subscribe / unsubscribe before authenticating', close: 4401 },
  { code: 'already_authenticated', when: 'a second authentication on the connection', close: null },
  { code: 'unknown_subject', when: 'not one of the four TRADES subjects', close: null },
  { code: 'subject_not_in_plan', when: 'the plan does not include the subject (the message names the plan that does)', close: null },
  { code: 'replay_not_in_plan', when: 'replay requested by a plan without replay', close: null },
  {
    code: 'bad_replay',
    when: '`replay` is not `{"from": …}`; `from` is not an ISO-8601 date-time with a time zone nor a positive integer; a date-time in the future or a sequence beyond the stream’s next one',
    close: null,
  },
  { code: 'replay_limit', when: 'more than `WS_MAX_REPLAYS_PER_CONNECTION` replays on the connection', close: null },
  {
    code: 'bad_filter',
    when: '`filter` is not an object, has an unknown key, an empty or oversize list, a string that is not a base58 public key, a type the subject does not have, or a bad `min_sol`',
    close: null,
  },
  { code: 'bad_resume', when: '`resume_after` is not an integer ≥ 0, or lies beyond the stream’s last sequence', close: null },
  {
    code: 'resume_too_old',
    when: 'the message after `resume_after` is older than the resume window (5 minutes; Pro: the stream’s retention); the error carries `oldest_seq`',
    close: null,
  },
  {
    code: 'connection_limit',
    when: 'the plan’s concurrent connections are taken (the message names the limit); the error carries `holders`, the connections that hold the slots',
    close: 4429,
  },
  {
    code: 'rate_limited',
    when: 'the plan’s control requests per minute are used up (the message names the plan that allows more and when to retry); during authentication the connection stays unauthenticated and may retry until `auth_timeout`',
    close: null,
  },
  {
    code: 'rate_limited',
    when: 'authentication from an address with more than `WS_LOGIN_FAILURES_PER_MINUTE` failed logins in the last minute (refused before any signature work)',
    close: 4429,
  },
  { code: 'internal', when: 'an unexpected server error', close: 1011 },
] as const satisfies readonly WsErrorCodeEntry[];

/**
 * One connection holding a slot of the plan, as the `holders` of a `connection_limit` error frame list them
 * (docs/websocket.md §7). Only the refused customer's own connections are listed (the slots are counted per
 * customer account, or per user key).
 */
export interface WsConnectionHolder {
  /** When the holding connection was opened, ISO 8601 in UTC. */
  connected_at: string;
  /** Its client address as ws-fanout records it (the TCP peer, or behind the ingress the address it forwarded). */
  address: string;
  /** The User-Agent of its WebSocket upgrade request, cut to 256 characters; null when none was sent. */
  user_agent: string | null;
  /** The Origin of its upgrade request (browsers send one), cut to 256 characters; null when none was sent. */
  origin: string | null;
}

/** Close codes sent without an error frame. Source: docs/websocket.md §6 and §7. */
const OTHER_CLOSE_CODES = [
  {
    close: 4413,
    reason: 'slow_consumer',
    when: 'more than `WS_MAX_BUFFERED_BYTES` queued for the client, or a paused replay not drained within `WS_REPLAY_STALL_MS` (close only, no error frame); reconnect and resume with `resume_after`',
  },
  {
    close: 1006,
    reason: '',
    when: 'the connection missed two pongs to the server’s pings (every `WS_PING_INTERVAL_MS`, 10 s): terminated, its plan slot freed',
  },
  { close: 1009, reason: '', when: 'a frame larger than `WS_MAX_FRAME_BYTES`' },
  { close: 1001, reason: '', when: 'the server is shutting down (every socket is closed and every replay consumer stopped)' },
] as const satisfies readonly { close: number; reason: string; when: string }[];

/** Every `code` of an error frame ws-fanout sends, and `slow_consumer`, a close reason without an error frame. */
export type WsErrorCode = (typeof ERROR_CODES)[number]['code'] | Exclude<(typeof OTHER_CLOSE_CODES)[number]['reason'], ''>;

/** Every error frame ws-fanout can send: its code, when, and the close code that follows (null: the connection stays open). */
export const WS_ERROR_CODES: readonly (WsErrorCodeEntry & { code: WsErrorCode })[] = ERROR_CODES;
/** Close codes sent without an error frame, with their reason (`slow_consumer`) or none. */
export const WS_OTHER_CLOSE_CODES: readonly { close: number; reason: WsErrorCode | ''; when: string }[] = OTHER_CLOSE_CODES;

/** Close codes (4xxx application range, RFC 6455 §7.4.2) ws-fanout closes with. */
export const CLOSE_CODES = {
  badRequest: 4400,
  unauthenticated: 4401,
  forbidden: 4403,
  authTimeout: 4408,
  limit: 4429,
  slowConsumer: 4413,
  unavailable: 4503,
} as const;
