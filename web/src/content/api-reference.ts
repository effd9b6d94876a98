/**
 * Reference tables of the API reference page (/dashboard/docs), copied from the documentation of
 * the services that implement them. Each table names the doc it comes from; when the doc
 * changes, change the table. Plan-dependent values are not here: the page reads them from the
 * plans catalogue (packages/contracts/src/plans.ts).
 */
import type { Plan } from '@tradewind/contracts/plans';

// The WebSocket error codes and close codes are the protocol's contract, one list for the server,
// this page and docs/websocket.md §7: @tradewind/contracts/ws-errors.
export { WS_ERROR_CODES, WS_OTHER_CLOSE_CODES, type WsErrorCodeEntry } from '@tradewind/contracts/ws-errors';

/** A server → client control message. Source: docs/websocket.md §4 "Control messages". */
export interface ControlMessage {
  type: string;
  fields: string;
  when: string;
}

// Source: docs/websocket.md §4.
export const WS_CONTROL_MESSAGES: readonly ControlMessage[] = [
  { type: 'challenge', fields: 'nonce', when: 'on connect' },
  { type: 'authenticated', fields: 'plan, subjects, expires_at_ms', when: 'credentials accepted' },
  {
    type: 'subscribed',
    fields: 'subject, filter; live: seq (the subject’s last sequence at the start); resume: resume_after; replay: replay: {from, first_seq}',
    when: 'subscribe, filter change, resume or replay accepted',
  },
  {
    type: 'heartbeat',
    fields: 'slot, seq, subjects ({subject: last seq})',
    when: 'a subscribed connection was sent nothing for 5 s (`WS_HEARTBEAT_INTERVAL_MS`)',
  },
  {
    type: 'unsubscribed',
    fields: 'subject; after a plan change also reason: "plan_changed", message',
    when: 'unsubscribe, or the plan no longer includes the subject or replay',
  },
  { type: 'replay_caught_up', fields: 'subject, seq', when: 'a replay or resume reached the end of the stored history; live trades follow' },
  { type: 'plan_changed', fields: 'plan, subjects', when: 'the account’s plan or the user’s subjects changed on a live connection' },
  { type: 'error', fields: 'code, message', when: 'a request was refused; when the refusal is fatal the socket is then closed' },
  {
    type: 'slot',
    fields:
      'seq, subject, slot, parent, status (confirmed | finalized | dead), trades, reason and dead_error when dead, source, observed_at_ms, schema_version',
    when: 'on a subscription with "slots": true, after the trades of that slot; it has a seq and resumes like a trade',
  },
];

/** A WebSocket limit. `value` is either fixed text from the doc or a field of each plan in the catalogue. */
export interface WsLimit {
  limit: string;
  value: { text: string } | { plan: (plan: Plan) => string };
  configKey: string | null;
  over: string;
}

// Source: docs/websocket.md §6 "Limits" (plan values come from the plans catalogue, not from the doc).
export const WS_LIMITS: readonly WsLimit[] = [
  { limit: 'concurrent connections', value: { plan: (p) => String(p.connections) }, configKey: null, over: '`connection_limit`, close 4429' },
  {
    limit: 'control requests per minute (authentication, subscribe, replay, unsubscribe)',
    value: { plan: (p) => p.requestsPerMinute.toLocaleString('en-US') },
    configKey: 'REQUEST_RATE_WINDOW_MS (window, 60 000 ms)',
    over: '`rate_limited`, stays open',
  },
  { limit: 'frame size from the client', value: { text: '16 KiB' }, configKey: 'WS_MAX_FRAME_BYTES', over: 'close 1009' },
  { limit: 'time to authenticate', value: { text: '10 s' }, configKey: 'WS_AUTH_TIMEOUT_MS', over: '`auth_timeout`, close 4408' },
  { limit: 'bytes queued for one client', value: { text: '8 MiB' }, configKey: 'WS_MAX_BUFFERED_BYTES', over: 'close 4413 `slow_consumer`' },
  { limit: 'replays running on one connection', value: { text: '4' }, configKey: 'WS_MAX_REPLAYS_PER_CONNECTION', over: '`replay_limit`, stays open' },
  {
    limit: 'how far back `resume_after` reaches (every plan; Pro: the whole retention)',
    value: { text: '5 min' },
    configKey: 'WS_RESUME_WINDOW_MS',
    over: '`resume_too_old` with `oldest_seq`, stays open',
  },
  {
    limit: 'entries per filter list (`mints`, `accounts`, `types`)',
    value: { text: '1,000' },
    configKey: 'WS_FILTER_MAX_ITEMS',
    over: '`bad_filter`, stays open',
  },
  {
    limit: 'slots one subscription with `"slots": true` remembers awaiting their final status',
    value: { text: '1,024' },
    configKey: 'WS_SLOT_TRACK_MAX',
    over: 'the oldest is forgotten; its later statuses are not sent',
  },
  {
    limit: 'failed logins per source address per minute',
    value: { text: '30' },
    configKey: 'WS_LOGIN_FAILURES_PER_MINUTE',
    over: '`rate_limited`, close 4429',
  },
  { limit: 'silence before a heartbeat', value: { text: '5 s' }, configKey: 'WS_HEARTBEAT_INTERVAL_MS', over: '`heartbeat` message' },
  { limit: 'ping interval (two missed pongs end the connection)', value: { text: '10 s' }, configKey: 'WS_PING_INTERVAL_MS', over: 'terminated, slot freed' },
  { limit: 'messages pulled per replay request', value: { text: '256' }, configKey: 'WS_REPLAY_BATCH_MESSAGES', over: '—' },
  { limit: 'queued bytes at which a replay pauses', value: { text: '1 MiB' }, configKey: 'WS_REPLAY_PAUSE_BYTES', over: '— (pauses)' },
  { limit: 'time a paused replay waits for the client', value: { text: '30 s' }, configKey: 'WS_REPLAY_STALL_MS', over: 'close 4413 `slow_consumer`' },
  { limit: 'connection slot lease', value: { text: '30 s' }, configKey: 'CONNECTION_LEASE_MS', over: 'a dead server’s slots free after at most one lease' },
  { limit: 'account JWT cache', value: { text: '5 s' }, configKey: 'ACCOUNT_CACHE_TTL_MS', over: 'looked up again from the resolver' },
  {
    limit: 'TRADES history kept for replay',
    value: { text: '24 h' },
    configKey: 'TRADES_MAX_AGE_MS',
    over: 'a replay from earlier starts at the oldest stored message',
  },
];

/** What native NATS clients see when they go beyond their plan. Source: docs/nats.md. */
export const NATS_ERRORS: readonly { error: string; when: string }[] = [
  {
    error: 'Permissions Violation for Subscription to "<subject>"',
    when: 'subscribing to a subject outside the plan (e.g. a Starter subscribing to premium.pumpswap)',
  },
  { error: 'Permissions Violation for Publish', when: 'publishing anything: customers never publish' },
  { error: 'Authorization Violation', when: 'connecting with revoked (rotated) or invalid credentials' },
  {
    error: 'maximum account active connections exceeded',
    when: 'more native connections than the plan allows (counted per account), or a reconnect during the one resolver round trip of a plan change',
  },
  {
    error: 'connection closed by the server, then a reconnect',
    when: 'a plan change or key rotation: the account is pushed with no connections allowed, then with the new claims; clients reconnect with the same credentials and get the new plan',
  },
];

/** HTTP errors of the credential API. Source: docs/nats.md ("GET /api/nats and POST /api/nats") and docs/auth.md ("401s"). */
export const HTTP_ERRORS: readonly { status: number; body: string; when: string }[] = [
  { status: 401, body: '{"status":401,"message":"No active session"}', when: 'no valid session (every Tradewind API)' },
  {
    status: 400,
    body: '{"error":"invalid_argument","message":…}',
    when: '`?format=` other than json/creds, a POST body other than none or `{}`, invalid JSON',
  },
  {
    status: 429,
    body: '{"error":"resource_exhausted","message":…}',
    when: 'more than `CREDENTIALS_ROTATIONS_PER_DAY` (20) rotations in 24 h; the message names the next possible time',
  },
  {
    status: 500,
    body: '{"error":"unavailable"|"internal","message":"Failed to fetch NATS credentials"}',
    when: 'resolver or database unreachable (POST: "Failed to rotate NATS credentials"); the cause is logged, never sent',
  },
];
