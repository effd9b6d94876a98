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

const argDefs = new WeakMap<ProgramCodec['idl'], Map<string, ProgramCodec['idl']['instructions'][number]>>();

/**
 * Decodes an instruction's arguments (`data` = 8-byte discriminator + borsh
 * args) with the project's reader, compiled from the IDL's `args`: the
 * arguments that are there, in IDL order. Data an older program version wrote
 * (fewer trailing args) yields only those it holds: a missing argument is
 * absent, never a made-up zero; bytes a newer version appended are ignored.
 * Values equal anchor's BorshInstructionCoder's wherever it decodes the data
 * (checked on every recorded instruction, test/borsh-oracle.test.ts).
 * Returns {} when `ixName` is not in the IDL.
 */
export function decodeInstructionArgs(codec: ProgramCodec, data: Uint8Array, ixName: string): Record<string, DecodedValue> {
  let byName = argDefs.get(codec.idl);
  if (!byName) argDefs.set(codec.idl, (byName = new Map(codec.idl.instructions.map((i) => [i.name, i]))));
  const def = byName.get(ixName);
  if (!def) return {};
  return decodeStructPrefix(data.subarray(8), def.args, codec.types).values;
}

/**
 * Decodes an instruction's arguments with anchor's BorshInstructionCoder and
 * {@link fromAnchor}: the oracle tests compare {@link decodeInstructionArgs}
 * with. Returns undefined when anchor cannot decode the data.
 */
export function decodeInstructionArgsWithAnchor(codec: ProgramCodec, data: Uint8Array, ixName: string): Record<string, DecodedValue> | undefined {
  const def = codec.idl.instructions.find((i) => i.name === ixName);
  if (!def) return undefined;
  try {
    const decoded = codec.instructionCoder.decode(Buffer.from(data));
    if (!decoded || decoded.name !== ixName) return undefined;
    const args = decoded.data as Record<string, unknown>;
    const out: Record<string, DecodedValue> = {};
    for (const a of def.args) out[a.name] = fromAnchor(args[a.name], a.type, codec.types);
    return out;
  } catch {
    return undefined;
  }
}

/** Decodes a whole struct with the tolerant reader; used by tests to compare with anchor. */
export function readStruct(bytes: Uint8Array, fields: { name: string; type: IdlTypeRef }[], types: Types): Record<string, DecodedValue> {
  const r = new ByteReader(bytes);
  const out: Record<string, DecodedValue> = {};
  for (const f of fields) out[f.name] = readValue(r, f.type, types);
  return out;
}
