import { ByteReader, decodeStructPrefix, readValue } from './borsh-tolerant.js';
import type { DecodedValue, IdlTypeDefEntry, IdlTypeRef } from './borsh-tolerant.js';
import type { ProgramCodec } from './idl.js';

type Types = ReadonlyMap<string, IdlTypeDefEntry>;

function hasMethod(v: unknown, name: string): boolean {
  return typeof v === 'object' && v !== null && typeof (v as Record<string, unknown>)[name] === 'function';
}

function definedName(d: { name: string } | string): string {
  return typeof d === 'string' ? d : d.name;
}

/**
 * Converts a value decoded by anchor's BorshCoder (BN, PublicKey, enum objects
 * `{Variant: {...}}`) into the same JSON-ready form the tolerant reader
 * produces, guided by the IDL type.
 */
export function fromAnchor(v: unknown, type: IdlTypeRef, types: Types): DecodedValue {
  if (typeof type === 'string') {
    // Duck-typed: anchor is CommonJS and its BN/PublicKey re-exports are not visible as ESM named exports.
    if (hasMethod(v, 'toBase58')) return (v as { toBase58(): string }).toBase58();
    if (hasMethod(v, 'toArrayLike')) {
      const s = (v as { toString(base: number): string }).toString(10);
      return ['u8', 'i8', 'u16', 'i16', 'u32', 'i32'].includes(type) ? Number(s) : s;
    }
    if (v instanceof Uint8Array) return Buffer.from(v).toString('base64');
    if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') return v;
    return v === null || v === undefined ? null : String(v);
  }
  if ('vec' in type) return (v as unknown[]).map((x) => fromAnchor(x, type.vec, types));
  if ('array' in type) {
    if (type.array[0] === 'u8') return Buffer.from(v as number[]).toString('base64');
    return (v as unknown[]).map((x) => fromAnchor(x, type.array[0], types));
  }
  if ('option' in type) return v === null || v === undefined ? null : fromAnchor(v, type.option, types);
  if ('coption' in type) return v === null || v === undefined ? null : fromAnchor(v, type.coption, types);
  const def = types.get(definedName(type.defined));
  if (!def) return null;
  const obj = v as Record<string, unknown>;
  if (def.type.kind === 'enum') {
    const variants = (def.type as { variants: { name: string; fields?: ({ name: string; type: IdlTypeRef } | IdlTypeRef)[] }[] }).variants;
    const key = Object.keys(obj)[0] ?? '';
    const variant = variants.find((x) => x.name.toLowerCase() === key.toLowerCase());
    if (!variant) return key;
    if (!variant.fields || variant.fields.length === 0) return variant.name;
    const inner = obj[key] as Record<string, unknown>;
    const out: Record<string, DecodedValue> = { variant: variant.name };
    variant.fields.forEach((f, i) => {
      if (typeof f === 'object' && 'name' in f && 'type' in f) out[f.name] = fromAnchor(inner[f.name], f.type, types);
      else out[String(i)] = fromAnchor((inner as unknown as unknown[])[i] ?? inner[String(i)], f as IdlTypeRef, types);
    });
    return out;
  }
  const fields = ((def.type as { fields?: unknown[] }).fields ?? []) as ({ name: string; type: IdlTypeRef } | IdlTypeRef)[];
  if (fields.every((f) => typeof f === 'object' && 'name' in f && 'type' in f)) {
    const out: Record<string, DecodedValue> = {};
    for (const f of fields as { name: string; type: IdlTypeRef }[]) out[f.name] = fromAnchor(obj[f.name], f.type, types);
    return out;
  }
  const tuple = fields.map((f, i) => fromAnchor((obj as unknown as unknown[])[i] ?? obj[String(i)], f as IdlTypeRef, types));
  return tuple.length === 1 ? (tuple[0] ?? null) : tuple;
}

/**
 * Decodes an instruction's arguments: anchor's BorshInstructionCoder first; when
 * it throws (data written by an older program version with fewer trailing args)
 * the tolerant reader decodes the arguments that are there.
 */
export function decodeInstructionArgs(codec: ProgramCodec, data: Uint8Array, ixName: string): Record<string, DecodedValue> {
  const def = codec.idl.instructions.find((i) => i.name === ixName);
  if (!def) return {};
  try {
    const decoded = codec.instructionCoder.decode(Buffer.from(data));
    if (decoded && decoded.name === ixName) {
      const args = decoded.data as Record<string, unknown>;
      const out: Record<string, DecodedValue> = {};
      for (const a of def.args) out[a.name] = fromAnchor(args[a.name], a.type, codec.types);
      return out;
    }
  } catch {
    // fall through to the tolerant reader
  }
  return decodeStructPrefix(data.subarray(8), def.args, codec.types).values;
}

/** Decodes a whole struct with the tolerant reader; used by tests to compare with anchor. */
export function readStruct(bytes: Uint8Array, fields: { name: string; type: IdlTypeRef }[], types: Types): Record<string, DecodedValue> {
  const r = new ByteReader(bytes);
  const out: Record<string, DecodedValue> = {};
  for (const f of fields) out[f.name] = readValue(r, f.type, types);
  return out;
}
