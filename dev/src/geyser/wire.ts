/**
 * Transaction updates encoded once and patched per send (the stand-in's hot path): a recorded
 * transaction's `SubscribeUpdateTransactionInfo` is encoded once by the package's codec; each
 * update is then that template with the signature bytes overwritten in place (a signature is
 * always 64 bytes, so no length changes), wrapped in the few bytes of `SubscribeUpdate` around it.
 *
 * Field numbers (geyser.proto): SubscribeUpdate { repeated string filters = 1;
 * SubscribeUpdateTransaction transaction = 4; google.protobuf.Timestamp created_at = 11 };
 * SubscribeUpdateTransaction { SubscribeUpdateTransactionInfo transaction = 1; uint64 slot = 2 };
 * Timestamp { int64 seconds = 1; int32 nanos = 2 }. Encoding: protobuf wire format (varints,
 * length-delimited fields; protobuf.dev/programming-guides/encoding).
 */
import { SubscribeUpdateTransactionInfo } from '@triton-one/yellowstone-grpc';

/** Bytes of a Solana transaction signature (Ed25519). */
export const SIGNATURE_BYTES = 64;

/** A recorded transaction's encoded info and where its signature sits in it. */
export interface TransactionTemplate {
  /** Encoded `SubscribeUpdateTransactionInfo`. */
  info: Buffer;
  /** Offsets in {@link info} of the 64 signature bytes (`signature` and `transaction.signatures[0]`). */
  signatureOffsets: number[];
}

/**
 * Encodes `info` once and finds its signature in the bytes.
 * @throws Error when the signature is not 64 bytes or not found in the encoding.
 */
export function transactionTemplate(info: SubscribeUpdateTransactionInfo): TransactionTemplate {
  const bytes = Buffer.from(SubscribeUpdateTransactionInfo.encode(info).finish());
  const signature = Buffer.from(info.signature);
  if (signature.length !== SIGNATURE_BYTES) throw new Error(`transaction signature is ${signature.length} bytes, not ${SIGNATURE_BYTES}`);
  const signatureOffsets: number[] = [];
  for (let at = bytes.indexOf(signature); at >= 0; at = bytes.indexOf(signature, at + SIGNATURE_BYTES)) signatureOffsets.push(at);
  if (signatureOffsets.length === 0) throw new Error('transaction signature not found in its encoding');
  return { info: bytes, signatureOffsets };
}

function varintSize(v: number): number {
  let n = 1;
  for (; v >= 0x80; n++) v = Math.floor(v / 0x80);
  return n;
}

function putVarint(buf: Buffer, pos: number, v: number): number {
  while (v >= 0x80) {
    buf[pos++] = (v % 0x80) | 0x80;
    v = Math.floor(v / 0x80);
  }
  buf[pos++] = v;
  return pos;
}

/** The `filters` field (1) of a SubscribeUpdate naming `names`, encoded. */
export function encodeFilterNames(names: readonly string[]): Buffer {
  const parts = names.map((n) => Buffer.from(n, 'utf8'));
  const out = Buffer.allocUnsafe(parts.reduce((s, p) => s + 1 + varintSize(p.length) + p.length, 0));
  let pos = 0;
  for (const p of parts) {
    out[pos++] = 0x0a;
    pos = putVarint(out, pos, p.length);
    pos += p.copy(out, pos);
  }
  return out;
}

/**
 * The bytes of `SubscribeUpdate { filters, transaction: { transaction: template with `signature`,
 * slot }, created_at }`. `filters` comes from {@link encodeFilterNames}; `signature` is 64 bytes
 * (read from `signatureOffset` of its buffer); `createdAtMs` is ms since the Unix epoch.
 */
export function encodeTransactionUpdate(
  template: TransactionTemplate,
  signature: Buffer,
  signatureOffset: number,
  slot: number,
  filters: Buffer,
  createdAtMs: number,
): Buffer {
  const infoLen = template.info.length;
  const bodyLen = 1 + varintSize(infoLen) + infoLen + 1 + varintSize(slot);
  const seconds = Math.floor(createdAtMs / 1000);
  const nanos = Math.round((createdAtMs - seconds * 1000) * 1e6);
  const tsLen = 1 + varintSize(seconds) + (nanos > 0 ? 1 + varintSize(nanos) : 0);
  const out = Buffer.allocUnsafe(filters.length + 1 + varintSize(bodyLen) + bodyLen + 1 + varintSize(tsLen) + tsLen);
  let pos = filters.copy(out, 0);
  out[pos++] = 0x22;
  pos = putVarint(out, pos, bodyLen);
  out[pos++] = 0x0a;
  pos = putVarint(out, pos, infoLen);
  const infoAt = pos;
  pos += template.info.copy(out, pos);
  for (const off of template.signatureOffsets) signature.copy(out, infoAt + off, signatureOffset, signatureOffset + SIGNATURE_BYTES);
  out[pos++] = 0x10;
  pos = putVarint(out, pos, slot);
  out[pos++] = 0x5a;
  pos = putVarint(out, pos, tsLen);
  out[pos++] = 0x08;
  pos = putVarint(out, pos, seconds);
  if (nanos > 0) {
    out[pos++] = 0x10;
    putVarint(out, pos, nanos);
  }
  return out;
}
