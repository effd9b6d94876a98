import { decodeStructPrefix } from './borsh-tolerant.js';
import type { DecodedValue, IdlTypeRef } from './borsh-tolerant.js';
import { byDiscriminator, type ProgramCodec } from './idl.js';

/** A decoded Anchor event. */
export interface DecodedEvent {
  name: string;
  /** Fields present in the bytes, IDL names, JSON-ready values. */
  values: Record<string, DecodedValue>;
  /** Payload length after the 8-byte discriminator. */
  payloadBytes: number;
  /** Which layout matched: 'idl' (complete), 'idl-prefix' (older, shorter), or a legacy layout's name. */
  layout: string;
  /** Payload bytes after the last IDL field ('idl' layout only; else 0): fields a newer program version appended. */
  trailingBytes: number;
}

/** An older event layout that is NOT a prefix of the IDL's (a field was inserted), chosen by exact length. */
export interface LegacyLayout {
  event: string;
  name: string;
  fields: { name: string; type: IdlTypeRef }[];
}

/**
 * Decodes event bytes (8-byte discriminator + borsh payload) with a program's IDL.
 *
 * 1. If every IDL field fits, that is the event (trailing bytes a newer program
 *    version appended are ignored). Read by the tolerant reader, whose values
 *    equal anchor's BorshEventCoder's (tested on every recorded event).
 * 2. Else a legacy layout that consumes the payload exactly is used.
 * 3. Else the payload is read as a prefix of the IDL layout (older versions
 *    appended fields over time): fields past the end are absent. A prefix that
 *    leaves undecodable bytes behind is rejected (null) rather than misread.
 * Returns null for an unknown discriminator or an unreadable payload.
 */
export function decodeEvent(codec: ProgramCodec, bytes: Uint8Array, legacy: readonly LegacyLayout[] = []): DecodedEvent | null {
  if (bytes.length < 8) return null;
  const def = byDiscriminator(codec.eventsByDisc, bytes);
  if (!def) return null;
  const payload = bytes.subarray(8);
  const prefix = decodeStructPrefix(payload, def.fields, codec.types);
  if (prefix.missing.length === 0) {
    // Every IDL field read (newer programs may append bytes we do not know yet). The
    // tolerant reader is used rather than anchor's BorshEventCoder on this hot path:
    // same values (borsh-tolerant.test.ts compares them on complete buffers), about
    // 3× less time, since anchor needs a base64 round trip and buffer-layout objects.
    return { name: def.name, values: prefix.values, payloadBytes: payload.length, layout: 'idl', trailingBytes: prefix.trailingBytes };
  }
  for (const l of legacy) {
    if (l.event !== def.name) continue;
    const r = decodeStructPrefix(payload, l.fields, codec.types);
    if (r.missing.length === 0 && r.trailingBytes === 0) {
      return { name: def.name, values: r.values, payloadBytes: payload.length, layout: l.name, trailingBytes: 0 };
    }
  }
  if (prefix.trailingBytes === 0 && prefix.bytesRead > 0) {
    return { name: def.name, values: prefix.values, payloadBytes: payload.length, layout: 'idl-prefix', trailingBytes: 0 };
  }
  return null;
}
