/**
 * WebSocket framing done once per message for every recipient (RFC 6455 §5.2).
 *
 * Server-to-client frames are never masked, so one frame's bytes can be written to any number of
 * sockets: a trade is framed once and the same Buffer is queued for each subscriber.
 */

/** Opcode of a text frame with FIN set (RFC 6455 §5.2: FIN = 0x80, text = 0x1). */
const FIN_TEXT = 0x81;

/** Bytes of the frame header for a payload of `length` bytes (RFC 6455 §5.2: 7-bit, 16-bit or 64-bit length). */
function headerLength(length: number): number {
  return length < 126 ? 2 : length < 65_536 ? 4 : 10;
}

/** Writes the header of an unmasked text frame of `length` payload bytes at the start of `frame`; returns its size. */
function writeHeader(frame: Buffer, length: number): number {
  frame[0] = FIN_TEXT;
  if (length < 126) {
    frame[1] = length;
    return 2;
  }
  if (length < 65_536) {
    frame[1] = 126;
    frame.writeUInt16BE(length, 2);
    return 4;
  }
  frame[1] = 127;
  frame.writeUInt32BE(Math.floor(length / 2 ** 32), 2);
  frame.writeUInt32BE(length >>> 0, 6);
  return 10;
}

/** One complete unmasked text frame carrying `payload` (UTF-8 JSON). */
export function textFrame(payload: Uint8Array): Buffer {
  const frame = Buffer.allocUnsafe(headerLength(payload.byteLength) + payload.byteLength);
  frame.set(payload, writeHeader(frame, payload.byteLength));
  return frame;
}

/** A control message (`{"type": …}`) as one text frame. */
export function controlFrame(message: Record<string, unknown>): Buffer {
  return textFrame(Buffer.from(JSON.stringify(message), 'utf8'));
}

const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;

/**
 * A trade message as one text frame with its TRADES stream sequence spliced in as the first key:
 * `{"source":…}` published on NATS becomes `{"seq":<seq>,"source":…}` on the wire, in one allocation
 * and one copy (the JSON is never parsed or re-serialised). A payload that is not a JSON object
 * (never published by ingest) is framed unchanged.
 * @param seq the message's TRADES stream sequence (positive integer, JetStream metadata).
 * @param data the message's bytes as published on NATS.
 */
export function tradeFrame(seq: number, data: Uint8Array): Buffer {
  return splicedFrame(`{"seq":${seq}`, data);
}

/**
 * A slot status message (`slots`, @tradewind/contracts slots.ts) for the subscription of `subject` that asked for
 * it, as one text frame: `{"type":"slot",…}` becomes `{"seq":<seq>,"subject":"<subject>","type":"slot",…}`, so a
 * client with several such subscriptions knows whose resume point the `seq` moves (the same message reaches each).
 * @param subject a TRADES trade subject (`basic.pumpfun`…: no character JSON would escape).
 */
export function slotFrame(seq: number, subject: string, data: Uint8Array): Buffer {
  return splicedFrame(`{"seq":${seq},"subject":${JSON.stringify(subject)}`, data);
}

/** `head` (an open JSON object's first keys, without a trailing comma) followed by the keys of `data`, framed. */
function splicedFrame(head: string, data: Uint8Array): Buffer {
  if (data[0] !== OPEN_BRACE) return textFrame(data);
  const empty = data.byteLength === 2 && data[1] === CLOSE_BRACE;
  const prefix = empty ? head : `${head},`;
  const length = prefix.length + data.byteLength - 1;
  const frame = Buffer.allocUnsafe(headerLength(length) + length);
  const at = writeHeader(frame, length);
  frame.write(prefix, at, 'latin1');
  frame.set(data.subarray(1), at + prefix.length);
  return frame;
}
