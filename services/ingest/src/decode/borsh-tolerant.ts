import bs58 from 'bs58';

/**
 * A minimal view of Anchor IDL (spec 0.1.0) type definitions: just what the
 * tolerant reader needs. Source: Anchor's `IdlType`/`IdlTypeDef` (anchor ≥ 0.30).
 */
export type IdlTypeRef =
  | string
  | { vec: IdlTypeRef }
  | { option: IdlTypeRef }
  | { coption: IdlTypeRef }
  | { array: [IdlTypeRef, number] }
  | { defined: { name: string } | string };

/** A named or unnamed (tuple) field. */
export type IdlFieldDef = { name: string; type: IdlTypeRef } | IdlTypeRef;

/** An IDL `types[]` entry: struct (named or tuple fields) or enum. */
export interface IdlTypeDefEntry {
  name: string;
  type:
    | { kind: 'struct'; fields?: IdlFieldDef[] }
    | { kind: 'enum'; variants: { name: string; fields?: IdlFieldDef[] }[] }
    | { kind: string; [k: string]: unknown };
}

/**
 * JSON-ready decoded value: integers wider than 32 bits are decimal strings,
 * pubkeys base58, enums `{variant, ...fields}` or the bare variant name for unit
 * variants, tuple structs arrays.
 */
export type DecodedValue = string | number | boolean | null | DecodedValue[] | { [k: string]: DecodedValue };

/** Thrown internally when a value would run past the end of the buffer. */
export class EndOfBuffer extends Error {
  constructor(message: string) {
    // Thrown on a hot path (older event layouts end early): skip the stack trace capture.
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    super(message);
    Error.stackTraceLimit = limit;
  }
}

/** Thrown when bytes cannot be a value of the declared type (bad bool, bad enum tag, bad UTF-8). */
export class LayoutMismatch extends Error {}

/** Sequential little-endian reader over a byte buffer. */
export class ByteReader {
  offset = 0;
  private readonly view: DataView;

  constructor(readonly bytes: Uint8Array) {
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  get remaining(): number {
    return this.bytes.length - this.offset;
  }

  private need(n: number): void {
    if (this.remaining < n) throw new EndOfBuffer(`need ${n} bytes at ${this.offset}, have ${this.remaining}`);
  }

  u8(): number {
    this.need(1);
    return this.view.getUint8(this.offset++);
  }

  u16(): number {
    this.need(2);
    const v = this.view.getUint16(this.offset, true);
    this.offset += 2;
    return v;
  }

  u32(): number {
    this.need(4);
    const v = this.view.getUint32(this.offset, true);
    this.offset += 4;
    return v;
  }

  /** Unsigned little-endian integer of `size` bytes. */
  uint(size: number): bigint {
    this.need(size);
    let v = 0n;
    for (let i = size - 1; i >= 0; i--) v = (v << 8n) | BigInt(this.bytes[this.offset + i] ?? 0);
    this.offset += size;
    return v;
  }

  /** Two's-complement little-endian integer of `size` bytes. */
  int(size: number): bigint {
    const u = this.uint(size);
    const bits = BigInt(size * 8);
    return u >= 1n << (bits - 1n) ? u - (1n << bits) : u;
  }

  take(n: number): Uint8Array {
    this.need(n);
    const out = this.bytes.subarray(this.offset, this.offset + n);
    this.offset += n;
    return out;
  }
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

function definedName(d: { name: string } | string): string {
  return typeof d === 'string' ? d : d.name;
}

/** Reads one value of IDL type `type`; throws EndOfBuffer / LayoutMismatch. */
export function readValue(r: ByteReader, type: IdlTypeRef, types: ReadonlyMap<string, IdlTypeDefEntry>): DecodedValue {
  if (typeof type === 'string') {
    switch (type) {
      case 'u8':
        return r.u8();
      case 'i8': {
        const v = r.u8();
        return v >= 128 ? v - 256 : v;
      }
      case 'u16':
        return r.u16();
      case 'i16':
        return Number(r.int(2));
      case 'u32':
        return r.u32();
      case 'i32':
        return Number(r.int(4));
      case 'u64':
        return r.uint(8).toString();
      case 'i64':
        return r.int(8).toString();
      case 'u128':
        return r.uint(16).toString();
      case 'i128':
        return r.int(16).toString();
      case 'bool': {
        const b = r.u8();
        if (b > 1) throw new LayoutMismatch(`invalid bool byte ${b} at ${r.offset - 1}`);
        return b === 1;
      }
      case 'pubkey':
      case 'publicKey':
        return bs58.encode(r.take(32));
      case 'string': {
        const len = r.u32();
        try {
          return utf8.decode(r.take(len));
        } catch (err) {
          if (err instanceof EndOfBuffer) throw err;
          throw new LayoutMismatch(`invalid UTF-8 string at ${r.offset - len}`);
        }
      }
      case 'bytes':
        return Buffer.from(r.take(r.u32())).toString('base64');
      default:
        throw new LayoutMismatch(`unsupported IDL type ${type}`);
    }
  }
  if ('vec' in type) {
    const len = r.u32();
    // A length larger than the bytes left cannot be right; fail fast instead of looping.
    if (len > r.remaining) throw new EndOfBuffer(`vec of ${len} with ${r.remaining} bytes left`);
    const out: DecodedValue[] = [];
    for (let i = 0; i < len; i++) out.push(readValue(r, type.vec, types));
    return out;
  }
  if ('option' in type) {
    const tag = r.u8();
    if (tag > 1) throw new LayoutMismatch(`invalid option tag ${tag}`);
    return tag === 0 ? null : readValue(r, type.option, types);
  }
  if ('coption' in type) {
    const tag = r.u32();
    if (tag > 1) throw new LayoutMismatch(`invalid coption tag ${tag}`);
    return tag === 0 ? null : readValue(r, type.coption, types);
  }
  if ('array' in type) {
    const [inner, len] = type.array;
    if (inner === 'u8') return Buffer.from(r.take(len)).toString('base64');
    const out: DecodedValue[] = [];
    for (let i = 0; i < len; i++) out.push(readValue(r, inner, types));
    return out;
  }
  if ('defined' in type) {
    const name = definedName(type.defined);
    const def = types.get(name);
    if (!def) throw new LayoutMismatch(`IDL type ${name} not found`);
    return readDefined(r, def, types);
  }
  throw new LayoutMismatch(`unsupported IDL type ${JSON.stringify(type)}`);
}

function isNamedField(f: IdlFieldDef): f is { name: string; type: IdlTypeRef } {
  return typeof f === 'object' && f !== null && 'name' in f && 'type' in f;
}

function readFields(r: ByteReader, fields: IdlFieldDef[], types: ReadonlyMap<string, IdlTypeDefEntry>): DecodedValue {
  if (fields.length > 0 && fields.every(isNamedField)) {
    const out: Record<string, DecodedValue> = {};
    for (const f of fields) out[f.name] = readValue(r, f.type, types);
    return out;
  }
  const tuple = fields.map((f) => readValue(r, isNamedField(f) ? f.type : f, types));
  return tuple.length === 1 ? (tuple[0] ?? null) : tuple;
}

function readDefined(r: ByteReader, def: IdlTypeDefEntry, types: ReadonlyMap<string, IdlTypeDefEntry>): DecodedValue {
  const t = def.type;
  if (t.kind === 'struct') return readFields(r, (t as { fields?: IdlFieldDef[] }).fields ?? [], types);
  if (t.kind === 'enum') {
    const variants = (t as { variants: { name: string; fields?: IdlFieldDef[] }[] }).variants;
    const tag = r.u8();
    const v = variants[tag];
    if (!v) throw new LayoutMismatch(`enum ${def.name}: variant ${tag} out of range`);
    if (!v.fields || v.fields.length === 0) return v.name;
    const inner = readFields(r, v.fields, types);
    return { variant: v.name, ...(inner !== null && typeof inner === 'object' && !Array.isArray(inner) ? inner : { value: inner }) };
  }
  throw new LayoutMismatch(`unsupported type kind ${t.kind} for ${def.name}`);
}

/** Result of {@link decodeStructPrefix}. */
export interface PrefixDecodeResult {
  /** Fields decoded, in IDL order; fields past the end of the buffer are absent (not null). */
  values: Record<string, DecodedValue>;
  /** Names of the IDL fields that were absent. */
  missing: string[];
  /** Bytes consumed. */
  bytesRead: number;
  /** Bytes left after the last decoded field (trailing data a newer layout added). */
  trailingBytes: number;
}

/**
 * Decodes a struct field by field in IDL order and stops cleanly where the
 * buffer ends: a field that does not fit entirely is absent, as are all after it.
 * This reads events emitted by older program versions, whose layouts are
 * prefixes of the current IDL's. A value that cannot be of its type (bool byte
 * 2, enum tag out of range) ends decoding the same way, so a shorter or
 * different layout is never misread into later fields.
 */
export function decodeStructPrefix(
  bytes: Uint8Array,
  fields: readonly { name: string; type: IdlTypeRef }[],
  types: ReadonlyMap<string, IdlTypeDefEntry>,
): PrefixDecodeResult {
  const r = new ByteReader(bytes);
  const values: Record<string, DecodedValue> = {};
  const missing: string[] = [];
  let stopped = false;
  for (const f of fields) {
    if (stopped) {
      missing.push(f.name);
      continue;
    }
    const start = r.offset;
    if (r.remaining === 0) {
      // The usual end of an older, shorter layout: stop without the cost of an exception.
      stopped = true;
      missing.push(f.name);
      continue;
    }
    try {
      values[f.name] = readValue(r, f.type, types);
    } catch (err) {
      if (!(err instanceof EndOfBuffer || err instanceof LayoutMismatch)) throw err;
      r.offset = start;
      stopped = true;
      missing.push(f.name);
    }
  }
  return { values, missing, bytesRead: r.offset, trailingBytes: r.remaining };
}

/** Builds the name → definition map an IDL's `types` array describes. */
export function typeMap(types: readonly IdlTypeDefEntry[] | undefined): Map<string, IdlTypeDefEntry> {
  return new Map((types ?? []).map((t) => [t.name, t]));
}
