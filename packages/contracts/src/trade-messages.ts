/**
 * Telling a trade message from the other messages a reader of the stream meets (docs/websocket.md, top).
 * A trade message is the JSON ingest publishes on a TRADES subject (docs/architecture.md §6,
 * packages/contracts/schemas/<subject>.schema.json); ws-fanout sends it with `seq` put first.
 * Control messages (`challenge`, `subscribed`, `heartbeat`, `error`, …) and slot status messages
 * (`"type": "slot"`, slots.ts) always carry a `type` other than `"trade"`.
 */

/**
 * The `type` a trade message may carry: `"trade"` on every basic.pumpfun message since trade message
 * schema version 2 (product spec §3, basic.pumpfun.schema.json `type`). Messages of the other subjects,
 * and version 1 pump.fun messages, have no `type`. No control message uses it (docs/websocket.md).
 */
export const TRADE_MESSAGE_TYPE = 'trade';

/**
 * Whether `message` (a parsed JSON frame from the WebSocket, or a TRADES message body) is a trade: a
 * JSON object whose `type` is absent or {@link TRADE_MESSAGE_TYPE}. Anything else (a control or slot
 * message, which has another `type`; an array, a string, null) is not. Never throws. Testing
 * `type === undefined` alone misses every basic.pumpfun trade since schema version 2.
 */
export function isTradeMessage(message: unknown): boolean {
  if (typeof message !== 'object' || message === null || Array.isArray(message)) return false;
  const type = (message as { type?: unknown }).type;
  return type === undefined || type === TRADE_MESSAGE_TYPE;
}
