/**
 * Turns a JSON Schema (draft 2020-12, the subset the trade schemas in packages/contracts/schemas use)
 * into flat rows for a reference table: one row per property, nested objects and array items as
 * dotted paths (`base_mint_param.decimals`, `shareholders[].address`). `$ref` (to `#/$defs/…` or
 * `#/definitions/…`), `oneOf`/`anyOf`, `const`, `enum`, `pattern`, `format`, numeric and length
 * bounds, conditional requirements (`allOf: [{if: {properties: {x: {const|enum}}}, then: {required}}]`),
 * object-level `oneOf`/`anyOf` over fields ({@link alternativeRules}) and `dependentRequired` are all
 * read from the schema itself.
 */

/** The JSON Schema keywords read here. */
export interface JsonSchema {
  $ref?: string;
  $defs?: Record<string, JsonSchema>;
  definitions?: Record<string, JsonSchema>;
  title?: string;
  description?: string;
  type?: string | readonly string[];
  properties?: Record<string, JsonSchema>;
  required?: readonly string[];
  additionalProperties?: boolean | JsonSchema;
  items?: JsonSchema | boolean;
  enum?: readonly unknown[];
  const?: unknown;
  pattern?: string;
  format?: string;
  minimum?: number;
  maximum?: number;
  minItems?: number;
  maxItems?: number;
  minLength?: number;
  maxLength?: number;
  oneOf?: readonly JsonSchema[];
  anyOf?: readonly JsonSchema[];
  allOf?: readonly JsonSchema[];
  if?: JsonSchema;
  then?: JsonSchema;
  else?: JsonSchema;
  not?: JsonSchema;
  dependentRequired?: Record<string, readonly string[]>;
}

/** One row of a schema table. */
export interface SchemaRow {
  /** Dotted path from the message root: `mint`, `base_mint_param.name`, `shareholders[].share_bps`. */
  path: string;
  /** Nesting level: 0 for top-level properties. */
  depth: number;
  /** Human-readable type: `string`, `integer | null`, `array of integer`, `object`, `string (const)`. */
  type: string;
  /** Listed in its parent's `required`. */
  required: boolean;
  /** Conditions under which it is required besides `required`, e.g. `transaction_type = CREATE`, `with replayed`. */
  requiredWhen: string[];
  description?: string;
  /** `enum` values (JSON text of each non-string value). */
  enum?: string[];
  /** `const` value as JSON text. */
  const?: string;
  pattern?: string;
  format?: string;
  /** Bounds as text: `≥ 0`, `1–2 items`. */
  constraints: string[];
  /** The {@link alternativeRules} this field is one of the alternatives of, as text: `when transaction_type = SWAP, exactly one of …`. */
  alternatives: string[];
}

/** A conditional requirement: when `condition` holds, `required` must be present. */
export interface ConditionalRequirement {
  /** e.g. `transaction_type = BUY or SELL`. */
  condition: string;
  required: string[];
  /** Properties that must be absent (`then: {not: {required}}`). */
  forbidden: string[];
}

/**
 * Resolves a local `$ref` (`#/$defs/Name`, `#/definitions/Name` or any `#/…` JSON pointer) against `root`.
 * @throws Error when the reference is not local or points nowhere.
 */
export function resolveRef(root: JsonSchema, ref: string): JsonSchema {
  if (!ref.startsWith('#')) throw new Error(`only local $ref is supported: ${ref}`);
  let node: unknown = root;
  for (const raw of ref
    .slice(1)
    .split('/')
    .filter((s) => s !== '')) {
    const key = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    node = node !== null && typeof node === 'object' ? (node as Record<string, unknown>)[key] : undefined;
    if (node === undefined) throw new Error(`$ref ${ref} points nowhere`);
  }
  return node as JsonSchema;
}

/** `schema` with its `$ref` chain followed (sibling keywords such as `description` win over the target's). */
export function deref(root: JsonSchema, schema: JsonSchema, seen: ReadonlySet<string> = new Set()): JsonSchema {
  if (!schema.$ref) return schema;
  if (seen.has(schema.$ref)) throw new Error(`circular $ref ${schema.$ref}`);
  const { $ref, ...rest } = schema;
  const target = deref(root, resolveRef(root, $ref), new Set([...seen, $ref]));
  return { ...target, ...rest };
}

function jsonText(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

function typeOfValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

/** Human-readable type of a (dereferenced) schema. */
export function describeType(root: JsonSchema, input: JsonSchema): string {
  const schema = deref(root, input);
  const alternatives = schema.oneOf ?? schema.anyOf;
  if (alternatives && !schema.type) {
    return [...new Set(alternatives.map((s) => describeType(root, s)))].join(' | ');
  }
  if (schema.type !== undefined) {
    const types = typeof schema.type === 'string' ? [schema.type] : [...schema.type];
    return types.map((t) => (t === 'array' ? arrayType(root, schema) : t)).join(' | ');
  }
  if (schema.const !== undefined) return `${typeOfValue(schema.const)} (const)`;
  if (schema.enum) return [...new Set(schema.enum.map(typeOfValue))].join(' | ');
  if (schema.properties) return 'object';
  return 'any';
}

function arrayType(root: JsonSchema, schema: JsonSchema): string {
  if (schema.items === undefined || typeof schema.items === 'boolean') return 'array';
  return `array of ${describeType(root, schema.items)}`;
}

function constraintsOf(schema: JsonSchema): string[] {
  const out: string[] = [];
  if (schema.minimum !== undefined && schema.maximum !== undefined) out.push(`${schema.minimum}–${schema.maximum}`);
  else if (schema.minimum !== undefined) out.push(`≥ ${schema.minimum}`);
  else if (schema.maximum !== undefined) out.push(`≤ ${schema.maximum}`);
  if (schema.minItems !== undefined || schema.maxItems !== undefined) {
    out.push(
      schema.minItems !== undefined && schema.maxItems !== undefined
        ? `${schema.minItems}–${schema.maxItems} items`
        : schema.minItems !== undefined
          ? `≥ ${schema.minItems} items`
          : `≤ ${schema.maxItems} items`,
    );
  }
  if (schema.minLength !== undefined) out.push(`length ≥ ${schema.minLength}`);
  if (schema.maxLength !== undefined) out.push(`length ≤ ${schema.maxLength}`);
  return out;
}

/** The condition text of an `if` schema of the form `{properties: {x: {const}|{enum}}}`; undefined otherwise. */
function conditionText(root: JsonSchema, ifSchema: JsonSchema): string | undefined {
  const props = deref(root, ifSchema).properties;
  if (!props) return undefined;
  const parts: string[] = [];
  for (const [name, raw] of Object.entries(props)) {
    const s = deref(root, raw);
    if (s.const !== undefined) parts.push(`${name} = ${jsonText(s.const)}`);
    else if (s.enum) parts.push(`${name} = ${s.enum.map(jsonText).join(' or ')}`);
    else return undefined;
  }
  return parts.length > 0 ? parts.join(' and ') : undefined;
}

/**
 * The `allOf: [{if, then}]` requirements of an object schema, in schema order. A `then` with
 * `oneOf`/`anyOf` of `{required}` adds `a or b` alternatives as one entry (`minimum_amount_out or max_amount_in`).
 */
export function conditionalRequirements(root: JsonSchema, input: JsonSchema = root): ConditionalRequirement[] {
  const schema = deref(root, input);
  const out: ConditionalRequirement[] = [];
  for (const part of schema.allOf ?? []) {
    const p = deref(root, part);
    if (!p.if || !p.then) continue;
    const condition = conditionText(root, p.if);
    if (!condition) continue;
    const then = deref(root, p.then);
    const required = [...(then.required ?? [])];
    const alternatives = then.oneOf ?? then.anyOf;
    if (alternatives) {
      const names = alternatives.flatMap((a) => deref(root, a).required ?? []);
      if (names.length > 0) required.push(names.join(' or '));
    }
    const forbidden = then.not ? [...(deref(root, then.not).required ?? [])] : [];
    out.push({ condition, required, forbidden });
  }
  return out;
}

/** An object-level `oneOf`/`anyOf` whose branches speak about the object's fields: those fields are alternatives. */
export interface AlternativeRule {
  /** When it applies (`transaction_type = SWAP`, from an `allOf` `if`), or null: always. */
  condition: string | null;
  /** `oneOf` or `anyOf`. */
  keyword: 'oneOf' | 'anyOf';
  /** The fields the branches name, in schema order. */
  fields: string[];
  /** The rule in words: `exactly one of minimum_amount_out, max_amount_in is set (a string); the other is null`. */
  text: string;
}

/** What one branch says about each field: present (`required`), or its type (`string`, `null`, …). */
function branchFacts(root: JsonSchema, branch: JsonSchema): { required: string[]; types: Map<string, string> } {
  const b = deref(root, branch);
  const types = new Map<string, string>();
  for (const [name, raw] of Object.entries(b.properties ?? {})) types.set(name, describeType(root, raw));
  return { required: [...(b.required ?? [])], types };
}

function alternativeText(keyword: 'oneOf' | 'anyOf', fields: readonly string[], branches: ReturnType<typeof branchFacts>[]): string {
  const quantifier = keyword === 'oneOf' ? 'exactly one' : 'at least one';
  // One field non-null per branch, every other field null ("exactly one of the limits is set").
  const setOf = branches.map((b) => {
    const set = fields.filter((f) => b.types.has(f) && b.types.get(f) !== 'null' && !b.types.get(f)!.split(' | ').includes('null'));
    const nulls = fields.filter((f) => b.types.get(f) === 'null');
    return set.length === 1 && nulls.length === fields.length - 1 && b.required.every((r) => fields.includes(r)) ? set[0]! : undefined;
  });
  if (setOf.every((f) => f !== undefined) && new Set(setOf).size === branches.length && setOf.length === fields.length) {
    const types = [...new Set(branches.map((b, i) => b.types.get(setOf[i]!)!))];
    const others = fields.length === 2 ? 'the other is null' : 'the others are null';
    return `${quantifier} of ${fields.join(', ')} is set (${types.length === 1 ? `a ${types[0]}` : types.join(' or ')}); ${others}`;
  }
  // Branches that only require fields ("exactly one of owner, config is present").
  if (branches.every((b) => b.types.size === 0 && b.required.length > 0)) {
    return `${quantifier} of ${branches.map((b) => b.required.join(' and ')).join(', ')} is present`;
  }
  const describe = (b: ReturnType<typeof branchFacts>) =>
    [...b.required.filter((r) => !b.types.has(r)).map((r) => `${r} present`), ...[...b.types].map(([name, type]) => `${name} ${type}`)].join(' and ');
  return `${quantifier} of these holds: ${branches.map(describe).join('; ')}`;
}

/**
 * The object-level `oneOf`/`anyOf` of an object schema: on the object itself, in an `allOf` part, or
 * in an `allOf` `if`/`then` (with the `if` as the condition), in schema order. Only branches that name
 * fields (`properties`, `required`) count; a property's own `oneOf` (`string | null`) is its type.
 */
export function alternativeRules(root: JsonSchema, input: JsonSchema = root): AlternativeRule[] {
  const schema = deref(root, input);
  const out: AlternativeRule[] = [];
  const add = (holder: JsonSchema, condition: string | null) => {
    for (const keyword of ['oneOf', 'anyOf'] as const) {
      const branches = (holder[keyword] ?? []).map((b) => branchFacts(root, b));
      const fields: string[] = [];
      for (const b of branches) for (const f of [...b.required, ...b.types.keys()]) if (!fields.includes(f)) fields.push(f);
      if (branches.length < 2 || fields.length === 0) continue;
      out.push({ condition, keyword, fields, text: alternativeText(keyword, fields, branches) });
    }
  };
  add(schema, null);
  for (const part of schema.allOf ?? []) {
    const p = deref(root, part);
    if (p.if && p.then) {
      const condition = conditionText(root, p.if);
      if (condition) add(deref(root, p.then), condition);
    } else {
      add(p, null);
    }
  }
  return out;
}

function requiredWhenOf(root: JsonSchema, schema: JsonSchema): Map<string, string[]> {
  const when = new Map<string, string[]>();
  const add = (name: string, text: string) => when.set(name, [...(when.get(name) ?? []), text]);
  for (const c of conditionalRequirements(root, schema)) {
    for (const r of c.required) {
      for (const name of r.split(' or ')) add(name, r.includes(' or ') ? `${c.condition} (one of ${r})` : c.condition);
    }
  }
  for (const [trigger, names] of Object.entries(schema.dependentRequired ?? {})) {
    for (const name of names) add(name, `with ${trigger}`);
  }
  return when;
}

/**
 * Rows for every property of `schema` (an object schema), depth first in schema order: each
 * property, then the properties of its object value or of its array's object items.
 * @param root the document `$ref`s resolve against (defaults to `schema`).
 * @throws Error on a non-local or dangling `$ref`.
 */
export function schemaRows(schema: JsonSchema, root: JsonSchema = schema): SchemaRow[] {
  const rows: SchemaRow[] = [];
  const walk = (input: JsonSchema, prefix: string, depth: number) => {
    const obj = deref(root, input);
    const required = new Set(obj.required ?? []);
    const when = requiredWhenOf(root, obj);
    const rules = alternativeRules(root, obj);
    for (const [name, rawProp] of Object.entries(obj.properties ?? {})) {
      const prop = deref(root, rawProp);
      const path = prefix === '' ? name : `${prefix}.${name}`;
      const alternatives = (prop.oneOf ?? prop.anyOf ?? []).map((s) => deref(root, s));
      const pattern = prop.pattern ?? alternatives.find((a) => a.pattern)?.pattern;
      const format = prop.format ?? alternatives.find((a) => a.format)?.format;
      const row: SchemaRow = {
        path,
        depth,
        type: describeType(root, prop),
        required: required.has(name),
        requiredWhen: when.get(name) ?? [],
        constraints: constraintsOf(prop),
        alternatives: rules.filter((r) => r.fields.includes(name)).map((r) => (r.condition ? `when ${r.condition}, ${r.text}` : r.text)),
      };
      if (prop.description !== undefined) row.description = prop.description;
      if (prop.enum) row.enum = prop.enum.map(jsonText);
      if (prop.const !== undefined) row.const = JSON.stringify(prop.const);
      if (pattern !== undefined) row.pattern = pattern;
      if (format !== undefined) row.format = format;
      rows.push(row);
      if (prop.properties) walk(prop, path, depth + 1);
      const items = prop.items !== undefined && typeof prop.items !== 'boolean' ? deref(root, prop.items) : undefined;
      if (items?.properties) walk(items, `${path}[]`, depth + 1);
    }
  };
  walk(schema, '', 0);
  return rows;
}
