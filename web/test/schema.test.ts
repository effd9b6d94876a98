import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { alternativeRules, conditionalRequirements, describeType, resolveRef, schemaRows, type JsonSchema, type SchemaRow } from '../src/lib/schema';

const repoFile = (path: string) => resolve(import.meta.dirname, '../..', path);
const loadSchema = (subject: string) => JSON.parse(readFileSync(repoFile(`packages/contracts/schemas/${subject}.schema.json`), 'utf8')) as JsonSchema;

function row(rows: readonly SchemaRow[], path: string): SchemaRow {
  const found = rows.find((r) => r.path === path);
  if (!found) throw new Error(`no row ${path}; rows: ${rows.map((r) => r.path).join(', ')}`);
  return found;
}

const SAMPLE: JsonSchema = {
  type: 'object',
  required: ['id', 'kind'],
  $defs: {
    Pubkey: { type: 'string', pattern: '^[1-9A-HJ-NP-Za-km-z]{32,44}$', description: 'Base58 public key.' },
    Holder: {
      type: 'object',
      required: ['address'],
      properties: { address: { $ref: '#/$defs/Pubkey' }, bps: { type: 'integer', minimum: 0, maximum: 10000 } },
    },
  },
  properties: {
    id: { type: 'string', format: 'uuid', description: 'Id.' },
    kind: { enum: ['CREATE', 'BUY', 'SELL'], description: 'Kind.' },
    source: { const: 'pumpfun' },
    owner: { $ref: '#/$defs/Pubkey', description: 'Owner of it.' },
    config: { oneOf: [{ type: 'string', pattern: '^x+$' }, { type: 'null' }] },
    slot: { type: ['integer', 'null'], minimum: 0 },
    path: { type: 'array', items: { type: 'integer' }, minItems: 1, maxItems: 2 },
    params: {
      type: 'object',
      required: ['name'],
      properties: { name: { type: 'string' }, inner: { type: 'object', properties: { deep: { type: 'boolean' } } } },
    },
    holders: { type: 'array', items: { $ref: '#/$defs/Holder' } },
    name: { type: 'string' },
    amount: { type: 'string' },
    replayed: { type: 'boolean', const: true },
    replay_loop: { type: 'integer' },
  },
  allOf: [
    { if: { properties: { kind: { const: 'CREATE' } } }, then: { required: ['name'] } },
    { if: { properties: { kind: { enum: ['BUY', 'SELL'] } } }, then: { required: ['amount'], oneOf: [{ required: ['owner'] }, { required: ['config'] }] } },
    { if: { properties: { kind: { const: 'CREATE' } } }, then: { not: { required: ['amount'] } } },
  ],
  dependentRequired: { replayed: ['replay_loop'] },
};

describe('schemaRows', () => {
  const rows = schemaRows(SAMPLE);

  it('lists every property depth first with dotted paths for nested objects and array items', () => {
    expect(rows.map((r) => `${r.depth}:${r.path}`)).toEqual([
      '0:id',
      '0:kind',
      '0:source',
      '0:owner',
      '0:config',
      '0:slot',
      '0:path',
      '0:params',
      '1:params.name',
      '1:params.inner',
      '2:params.inner.deep',
      '0:holders',
      '1:holders[].address',
      '1:holders[].bps',
      '0:name',
      '0:amount',
      '0:replayed',
      '0:replay_loop',
    ]);
  });

  it('marks required fields at each level', () => {
    expect(rows.filter((r) => r.required).map((r) => r.path)).toEqual(['id', 'kind', 'params.name', 'holders[].address']);
  });

  it('follows $ref, keeping a sibling description over the target’s', () => {
    expect(row(rows, 'owner')).toMatchObject({ type: 'string', pattern: '^[1-9A-HJ-NP-Za-km-z]{32,44}$', description: 'Owner of it.' });
    expect(row(rows, 'holders[].address')).toMatchObject({ type: 'string', description: 'Base58 public key.' });
    expect(row(rows, 'holders').type).toBe('array of object');
  });

  it('reads enum, const, format, oneOf, type lists and bounds', () => {
    expect(row(rows, 'kind')).toMatchObject({ type: 'string', enum: ['CREATE', 'BUY', 'SELL'] });
    expect(row(rows, 'source')).toMatchObject({ type: 'string (const)', const: '"pumpfun"' });
    expect(row(rows, 'id').format).toBe('uuid');
    expect(row(rows, 'config')).toMatchObject({ type: 'string | null', pattern: '^x+$' });
    expect(row(rows, 'slot')).toMatchObject({ type: 'integer | null', constraints: ['≥ 0'] });
    expect(row(rows, 'path')).toMatchObject({ type: 'array of integer', constraints: ['1–2 items'] });
    expect(row(rows, 'holders[].bps').constraints).toEqual(['0–10000']);
    expect(row(rows, 'replayed')).toMatchObject({ type: 'boolean', const: 'true' });
  });

  it('states conditional requirements (allOf if/then, oneOf of required, dependentRequired)', () => {
    expect(row(rows, 'name').requiredWhen).toEqual(['kind = CREATE']);
    expect(row(rows, 'amount').requiredWhen).toEqual(['kind = BUY or SELL']);
    expect(row(rows, 'owner').requiredWhen).toEqual(['kind = BUY or SELL (one of owner or config)']);
    expect(row(rows, 'replay_loop').requiredWhen).toEqual(['with replayed']);
    expect(row(rows, 'id').requiredWhen).toEqual([]);
    expect(conditionalRequirements(SAMPLE)).toEqual([
      { condition: 'kind = CREATE', required: ['name'], forbidden: [] },
      { condition: 'kind = BUY or SELL', required: ['amount', 'owner or config'], forbidden: [] },
      { condition: 'kind = CREATE', required: [], forbidden: ['amount'] },
    ]);
  });

  it('refuses a dangling or remote $ref', () => {
    expect(() => schemaRows({ properties: { a: { $ref: '#/$defs/Missing' } } })).toThrow('$ref #/$defs/Missing points nowhere');
    expect(() => resolveRef(SAMPLE, 'https://example.test/s.json')).toThrow('only local $ref');
    expect(describeType(SAMPLE, { $ref: '#/$defs/Holder' })).toBe('object');
  });
});

describe('alternativeRules (object-level oneOf / anyOf)', () => {
  const nullable = (set: string, nulls: string[]): JsonSchema => ({
    properties: { [set]: { type: 'string' }, ...Object.fromEntries(nulls.map((n) => [n, { type: 'null' }])) },
  });

  it('when each branch sets one field and nulls the others, then it says exactly one (oneOf) or at least one (anyOf) of them is set', () => {
    const schema: JsonSchema = {
      properties: { a: { type: ['string', 'null'] }, b: { type: ['string', 'null'] }, c: { type: ['string', 'null'] } },
      oneOf: [nullable('a', ['b']), nullable('b', ['a'])],
      allOf: [
        { if: { properties: { kind: { const: 'X' } } }, then: { anyOf: [nullable('a', ['b', 'c']), nullable('b', ['a', 'c']), nullable('c', ['a', 'b'])] } },
      ],
    };
    expect(alternativeRules(schema)).toEqual([
      { condition: null, keyword: 'oneOf', fields: ['a', 'b'], text: 'exactly one of a, b is set (a string); the other is null' },
      { condition: 'kind = X', keyword: 'anyOf', fields: ['a', 'b', 'c'], text: 'at least one of a, b, c is set (a string); the others are null' },
    ]);
    const rows = schemaRows(schema);
    expect(row(rows, 'a').alternatives).toEqual([
      'exactly one of a, b is set (a string); the other is null',
      'when kind = X, at least one of a, b, c is set (a string); the others are null',
    ]);
    expect(row(rows, 'c').alternatives).toEqual(['when kind = X, at least one of a, b, c is set (a string); the others are null']);
  });

  it('when the branches only require fields, then it names what must be present; other shapes are spelled out branch by branch', () => {
    expect(alternativeRules({ anyOf: [{ required: ['a'] }, { required: ['b', 'c'] }] })[0]!.text).toBe('at least one of a, b and c is present');
    expect(alternativeRules({ oneOf: [{ required: ['a'], properties: { b: { type: 'integer' } } }, { properties: { a: { const: 1 } } }] })[0]!.text).toBe(
      'exactly one of these holds: a present and b integer; a integer (const)',
    );
  });

  it('when a oneOf is one property’s type (string | null), then it is no rule; a then’s oneOf of required fields is one', () => {
    const own: JsonSchema = { properties: { config: { oneOf: [{ type: 'string' }, { type: 'null' }] } } };
    expect(alternativeRules(own)).toEqual([]);
    expect(row(schemaRows(own), 'config').alternatives).toEqual([]);
    expect(alternativeRules(SAMPLE)).toEqual([
      { condition: 'kind = BUY or SELL', keyword: 'oneOf', fields: ['owner', 'config'], text: 'exactly one of owner, config is present' },
    ]);
  });
});

describe('the repository’s trade schemas', () => {
  it('give one top-level row per property of basic.pumpfun, with its enum, required list and array items', () => {
    const schema = loadSchema('basic.pumpfun');
    const rows = schemaRows(schema);
    const top = rows.filter((r) => r.depth === 0).map((r) => r.path);
    expect(top).toEqual(Object.keys(schema.properties ?? {}));
    expect(row(rows, 'transaction_type').enum).toEqual(['CREATE', 'BUY', 'SELL', 'COMPLETE', 'MIGRATE']);
    expect(rows.filter((r) => r.depth === 0 && r.required).map((r) => r.path)).toEqual(schema.required);
    expect(row(rows, 'shareholders[].share_bps')).toMatchObject({ depth: 1, type: 'integer', required: true });
    expect(row(rows, 'sol_amount').requiredWhen).toEqual(['transaction_type = BUY or SELL', 'transaction_type = MIGRATE']);
  });

  it('read basic.bonk’s nullable oneOf and nested object, and premium.raydium’s nullable SWAP limits', () => {
    const bonk = schemaRows(loadSchema('basic.bonk'));
    expect(row(bonk, 'platform_config').type).toBe('string | null');
    expect(row(bonk, 'base_mint_param.decimals')).toMatchObject({ depth: 1, type: 'integer', required: true });
    const raydium = schemaRows(loadSchema('premium.raydium'));
    // Schema version 2: every SWAP has both limits, the one its instruction lacks null.
    expect(row(raydium, 'minimum_amount_out')).toMatchObject({ type: 'string | null', requiredWhen: ['transaction_type = SWAP'] });
    expect(row(raydium, 'max_amount_in')).toMatchObject({ type: 'string | null', requiredWhen: ['transaction_type = SWAP'] });
  });
});
