/**
 * The chain-agreement check's completeness rule (REQUIRED_FIELDS, src/decode/chain-check.ts) is a
 * hand-written copy of what the trade-message JSON Schemas require. This holds the two equal: per
 * source and kind, the check asks for exactly the fields the schema requires, minus those every
 * message has, those the decoder derives after the check, and those the schema lets be null.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { REQUIRED_FIELDS } from '../src/decode/chain-check.js';

type Schema = Record<string, unknown>;
const SCHEMAS = fileURLToPath(new URL('../../../packages/contracts/schemas/', import.meta.url));
const FILES: Record<string, string> = { pumpfun: 'basic.pumpfun', bonk: 'basic.bonk', pumpswap: 'premium.pumpswap', raydium_cpmm: 'premium.raydium' };

/** Fields every message carries, set by the decoder for every kind (docs/architecture.md §6). */
const COMMON = ['source', 'transaction_type', 'signature', 'slot', 'commitment', 'block_time_ms', 'instruction_path', 'program_id', 'schema_version'];
/** Product-spec display fields of pump.fun (product spec §3: `type`, `data`) and PumpSwap's `txHash`/`poolAddress`, derived from the checked fields. */
const DERIVED = ['type', 'data', 'txHash', 'poolAddress'];

/** Whether a property schema admits null. */
function admitsNull(p: Schema | undefined): boolean {
  if (!p) return false;
  const type = p.type;
  if (type === 'null' || (Array.isArray(type) && type.includes('null'))) return true;
  if ('const' in p && p.const === null) return true;
  if (Array.isArray(p.enum) && p.enum.includes(null)) return true;
  return [...((p.oneOf as Schema[]) ?? []), ...((p.anyOf as Schema[]) ?? [])].some(admitsNull);
}

/** The parts of `schema.allOf` whose `if` selects `kind`. */
function partsFor(schema: Schema, kind: string): Schema[] {
  return ((schema.allOf as Schema[]) ?? []).filter((part) => {
    const t = ((part.if as Schema | undefined)?.properties as Record<string, Schema> | undefined)?.transaction_type;
    return t !== undefined && (t.const === kind || (Array.isArray(t.enum) && t.enum.includes(kind)));
  });
}

/** What `schema` requires of a `kind` message and never lets be null, minus COMMON and DERIVED. */
function schemaRequires(schema: Schema, kind: string): string[] {
  const parts = partsFor(schema, kind).map((p) => p.then as Schema);
  const required = new Set([...(schema.required as string[]), ...parts.flatMap((t) => (t.required as string[]) ?? [])]);
  const top = schema.properties as Record<string, Schema>;
  // allOf applies every part: a field may be null for this kind only if the top-level property and each
  // part that restates it admit null, or a oneOf variant of a part does (Raydium's two swap limits).
  const nullable = (field: string) =>
    (admitsNull(top[field]) &&
      parts.every((t) => {
        const narrowed = (t.properties as Record<string, Schema> | undefined)?.[field];
        return narrowed === undefined || admitsNull(narrowed);
      })) ||
    parts.some((t) => ((t.oneOf as Schema[]) ?? []).some((v) => admitsNull((v.properties as Record<string, Schema> | undefined)?.[field])));
  return [...required].filter((f) => !COMMON.includes(f) && !DERIVED.includes(f) && !nullable(f)).sort();
}

describe('chain check: required fields', () => {
  for (const [source, file] of Object.entries(FILES)) {
    const schema = JSON.parse(readFileSync(`${SCHEMAS}${file}.schema.json`, 'utf8')) as Schema;
    const kinds = ((schema.properties as Record<string, Schema>).transaction_type!.enum as string[]) ?? [];
    it(`when a ${source} message of any kind is checked for completeness, then the check asks for what ${file}.schema.json requires (non-null)`, () => {
      expect(kinds.length).toBeGreaterThan(0);
      const spec = REQUIRED_FIELDS[source]!;
      for (const kind of kinds) {
        const checked = [...new Set([...(spec['*'] ?? []), ...(spec[kind] ?? [])])].sort();
        expect({ kind, checked }).toEqual({ kind, checked: schemaRequires(schema, kind) });
      }
    });
  }

  it('when the schema requires a further non-null field, then the comparison sees it (negative control)', () => {
    const schema = JSON.parse(readFileSync(`${SCHEMAS}basic.pumpfun.schema.json`, 'utf8')) as Schema;
    const widened = { ...schema, required: [...(schema.required as string[]), 'user'] };
    expect(schemaRequires(widened, 'MIGRATE')).toEqual(schemaRequires(schema, 'MIGRATE'));
    const extra = {
      ...schema,
      required: [...(schema.required as string[]), 'creator'],
      properties: { ...(schema.properties as object), creator: { type: 'string' } },
    };
    expect(schemaRequires(extra, 'BUY')).toContain('creator');
  });
});
