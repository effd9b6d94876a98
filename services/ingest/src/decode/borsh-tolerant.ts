import { addressToBase58 } from './base58.js';
import { literalMaker, type LiteralMaker } from './shape.js';

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
        return addressToBase58(r.take(32));
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
 *
 * The field list is compiled once into a {@link StructPlan} (cached per `fields`
 * array, so pass the same array each time: the IDL's own) and read by it.
 */
export function decodeStructPrefix(
  bytes: Uint8Array,
  fields: readonly { name: string; type: IdlTypeRef }[],
  types: ReadonlyMap<string, IdlTypeDefEntry>,
): PrefixDecodeResult {
  return readStructPrefix(bytes, structPlan(fields, types));
}

/** A value reader compiled from an IDL type: reads at `c.offset`, advances it; throws EndOfBuffer / LayoutMismatch. */
type Reader = (c: Cursor) => DecodedValue;

/** Byte cursor of the compiled readers (one per struct read). */
class Cursor {
  offset = 0;
  readonly view: DataView;
  constructor(readonly bytes: Uint8Array) {
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }
  need(n: number): void {
    if (this.bytes.length - this.offset < n) throw new EndOfBuffer(`need ${n} bytes at ${this.offset}, have ${this.bytes.length - this.offset}`);
  }
}

/**
 * A struct's fields compiled to readers, once per IDL field list: what the
 * decoder's hot path reads instruction arguments and events with.
 */
export interface StructPlan {
  readonly names: readonly string[];
  readonly readers: readonly Reader[];
  /** Builds the values object of a complete read as one literal (fast properties; see shape.ts); null: field by field. */
  readonly make: LiteralMaker | null;
}

const TWO_32 = 4_294_967_296;
/** |hi| below 2^21: hi·2^32 + lo < 2^53, exact as a double (and String() of it = BigInt's decimal). */
const SAFE_HI = 0x200000;

function readU64(c: Cursor): string {
  c.need(8);
  const lo = c.view.getUint32(c.offset, true);
  const hi = c.view.getUint32(c.offset + 4, true);
  c.offset += 8;
  if (hi < SAFE_HI) return String(hi * TWO_32 + lo);
  return ((BigInt(hi) << 32n) | BigInt(lo)).toString();
}

function readI64(c: Cursor): string {
  c.need(8);
  const lo = c.view.getUint32(c.offset, true);
  const hi = c.view.getInt32(c.offset + 4, true);
  c.offset += 8;
  if (hi < SAFE_HI && hi >= -SAFE_HI) return String(hi * TWO_32 + lo);
  return ((BigInt(hi) << 32n) + BigInt(lo)).toString();
}

function readBig(c: Cursor, size: number, signed: boolean): string {
  c.need(size);
  let v = 0n;
  for (let i = size - 1; i >= 0; i--) v = (v << 8n) | BigInt(c.bytes[c.offset + i] ?? 0);
  c.offset += size;
  if (signed) {
    const bits = BigInt(size * 8);
    if (v >= 1n << (bits - 1n)) v -= 1n << bits;
  }
  return v.toString();
}

function take(c: Cursor, n: number): Uint8Array {
  c.need(n);
  const out = c.bytes.subarray(c.offset, c.offset + n);
  c.offset += n;
  return out;
}

function readU32(c: Cursor): number {
  c.need(4);
  const v = c.view.getUint32(c.offset, true);
  c.offset += 4;
  return v;
}

function readU8(c: Cursor): number {
  c.need(1);
  return c.bytes[c.offset++]!;
}

const PRIMITIVES: Record<string, Reader> = {
  u8: readU8,
  i8: (c) => {
    const v = readU8(c);
    return v >= 128 ? v - 256 : v;
  },
  u16: (c) => {
    c.need(2);
    const v = c.view.getUint16(c.offset, true);
    c.offset += 2;
    return v;
  },
  i16: (c) => {
    c.need(2);
    const v = c.view.getInt16(c.offset, true);
    c.offset += 2;
    return v;
  },
  u32: readU32,
  i32: (c) => {
    c.need(4);
    const v = c.view.getInt32(c.offset, true);
    c.offset += 4;
    return v;
  },
  u64: readU64,
  i64: readI64,
  u128: (c) => readBig(c, 16, false),
  i128: (c) => readBig(c, 16, true),
  bool: (c) => {
    const b = readU8(c);
    if (b > 1) throw new LayoutMismatch(`invalid bool byte ${b} at ${c.offset - 1}`);
    return b === 1;
  },
  pubkey: (c) => addressToBase58(take(c, 32)),
  publicKey: (c) => addressToBase58(take(c, 32)),
  string: (c) => {
    const len = readU32(c);
    const bytes = take(c, len);
    try {
      return utf8.decode(bytes);
    } catch {
      throw new LayoutMismatch(`invalid UTF-8 string at ${c.offset - len}`);
    }
  },
  bytes: (c) => Buffer.from(take(c, readU32(c))).toString('base64'),
};

/** Compiles an IDL type to a reader; `memo` holds defined types by name (built lazily, so recursive types work). */
function compileType(type: IdlTypeRef, types: ReadonlyMap<string, IdlTypeDefEntry>, memo: Map<string, Reader>): Reader {
  if (typeof type === 'string') {
    return (
      PRIMITIVES[type] ??
      (() => {
        throw new LayoutMismatch(`unsupported IDL type ${type}`);
      })
    );
  }
  if ('vec' in type) {
    const inner = compileType(type.vec, types, memo);
    return (c) => {
      const len = readU32(c);
      // A length larger than the bytes left cannot be right; fail fast instead of looping.
      if (len > c.bytes.length - c.offset) throw new EndOfBuffer(`vec of ${len} with ${c.bytes.length - c.offset} bytes left`);
      const out: DecodedValue[] = [];
      for (let i = 0; i < len; i++) out.push(inner(c));
      return out;
    };
  }
  if ('option' in type) {
    const inner = compileType(type.option, types, memo);
    return (c) => {
      const tag = readU8(c);
      if (tag > 1) throw new LayoutMismatch(`invalid option tag ${tag}`);
      return tag === 0 ? null : inner(c);
    };
  }
  if ('coption' in type) {
    const inner = compileType(type.coption, types, memo);
    return (c) => {
      const tag = readU32(c);
      if (tag > 1) throw new LayoutMismatch(`invalid coption tag ${tag}`);
      return tag === 0 ? null : inner(c);
    };
  }
  if ('array' in type) {
    const [innerType, len] = type.array;
    if (innerType === 'u8') return (c) => Buffer.from(take(c, len)).toString('base64');
    const inner = compileType(innerType, types, memo);
    return (c) => {
      const out: DecodedValue[] = [];
      for (let i = 0; i < len; i++) out.push(inner(c));
      return out;
    };
  }
  if ('defined' in type) {
    const name = definedName(type.defined);
    const known = memo.get(name);
    if (known) return known;
    const def = types.get(name);
    if (!def) {
      return () => {
        throw new LayoutMismatch(`IDL type ${name} not found`);
      };
    }
    let compiled: Reader | undefined;
    const lazy: Reader = (c) => (compiled ??= compileDefined(def, types, memo))(c);
    memo.set(name, lazy);
    return lazy;
  }
  return () => {
    throw new LayoutMismatch(`unsupported IDL type ${JSON.stringify(type)}`);
  };
}

function compileFields(fields: IdlFieldDef[], types: ReadonlyMap<string, IdlTypeDefEntry>, memo: Map<string, Reader>): Reader {
  if (fields.length > 0 && fields.every(isNamedField)) {
    const names = fields.map((f) => f.name);
    const readers = fields.map((f) => compileType(f.type, types, memo));
    return (c) => {
      const out: Record<string, DecodedValue> = {};
      for (let i = 0; i < readers.length; i++) out[names[i]!] = readers[i]!(c);
      return out;
    };
  }
  const readers = fields.map((f) => compileType(isNamedField(f) ? f.type : f, types, memo));
  return (c) => {
    const tuple = readers.map((r) => r(c));
    return tuple.length === 1 ? (tuple[0] ?? null) : tuple;
  };
}

function compileDefined(def: IdlTypeDefEntry, types: ReadonlyMap<string, IdlTypeDefEntry>, memo: Map<string, Reader>): Reader {
  const t = def.type;
  if (t.kind === 'struct') return compileFields((t as { fields?: IdlFieldDef[] }).fields ?? [], types, memo);
  if (t.kind === 'enum') {
    const variants = (t as { variants: { name: string; fields?: IdlFieldDef[] }[] }).variants.map((v) => ({
      name: v.name,
      fields: v.fields && v.fields.length > 0 ? compileFields(v.fields, types, memo) : null,
    }));
    return (c) => {
      const tag = readU8(c);
      const v = variants[tag];
      if (!v) throw new LayoutMismatch(`enum ${def.name}: variant ${tag} out of range`);
      if (!v.fields) return v.name;
      const inner = v.fields(c);
      return { variant: v.name, ...(inner !== null && typeof inner === 'object' && !Array.isArray(inner) ? inner : { value: inner }) };
    };
  }
  return () => {
    throw new LayoutMismatch(`unsupported type kind ${t.kind} for ${def.name}`);
  };
}

const plans = new WeakMap<object, { types: ReadonlyMap<string, IdlTypeDefEntry>; plan: StructPlan }>();
const memos = new WeakMap<ReadonlyMap<string, IdlTypeDefEntry>, Map<string, Reader>>();

/**
 * The compiled reader plan of a struct's field list (IDL instruction `args`,
 * event fields): one reader per field. Compiled on first use and cached per
 * `fields` array and `types` map.
 */
export function structPlan(fields: readonly { name: string; type: IdlTypeRef }[], types: ReadonlyMap<string, IdlTypeDefEntry>): StructPlan {
  const hit = plans.get(fields);
  if (hit && hit.types === types) return hit.plan;
  let memo = memos.get(types);
  if (!memo) memos.set(types, (memo = new Map()));
  const names = fields.map((f) => f.name);
  const plan: StructPlan = { names, readers: fields.map((f) => compileType(f.type, types, memo)), make: literalMaker(names) };
  plans.set(fields, { types, plan });
  return plan;
}

/** {@link decodeStructPrefix} with an already compiled plan. */
export function readStructPrefix(bytes: Uint8Array, plan: StructPlan): PrefixDecodeResult {
  const c = new Cursor(bytes);
  const { names, readers } = plan;
  const read = new Array<DecodedValue>(readers.length);
  const missing: string[] = [];
  const n = readers.length;
  let i = 0;
  for (; i < n; i++) {
    const start = c.offset;
    // The usual end of an older, shorter layout: stop without the cost of an exception.
    if (start === bytes.length) break;
    try {
      read[i] = readers[i]!(c);
    } catch (err) {
      if (!(err instanceof EndOfBuffer || err instanceof LayoutMismatch)) throw err;
      c.offset = start;
      break;
    }
  }
  let values: Record<string, DecodedValue>;
  if (i === n && plan.make) {
    values = plan.make(read) as Record<string, DecodedValue>;
  } else {
    values = {};
    for (let j = 0; j < i; j++) values[names[j]!] = read[j]!;
  }
  for (; i < n; i++) missing.push(names[i]!);
  return { values, missing, bytesRead: c.offset, trailingBytes: bytes.length - c.offset };
}

/** Builds the name → definition map an IDL's `types` array describes. */
export function typeMap(types: readonly IdlTypeDefEntry[] | undefined): Map<string, IdlTypeDefEntry> {
  return new Map((types ?? []).map((t) => [t.name, t]));
}
