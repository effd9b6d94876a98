/**
 * Objects with a stable shape for the decoder's hot path.
 *
 * Why: V8 turns an object into a slow "dictionary-mode" object once more than ~12
 * properties beyond its in-object slots are added by keyed stores (`o[k] = v`, what a
 * field-copying loop does). Trade messages and event values have 20–70 fields, so
 * built that way they were dictionaries: each store was a hash insertion, and
 * JSON.stringify read them ~1.5× slower. An object literal instead gets every field
 * in-object (fast properties), and keyed stores added to it later stay fast up to as
 * many more fields. The functions here build such literals from a compiled maker,
 * one per list of keys, with the same keys in the same order as the copying loop.
 */

/** Builds an object with fixed keys from values given in key order. */
export type LiteralMaker = (values: readonly unknown[]) => Record<string, unknown>;

/** Whether a key can be written as a literal key: `__proto__` would set the prototype instead. */
function literalSafe(keys: readonly string[]): boolean {
  for (const k of keys) if (k === '__proto__') return false;
  return true;
}

/**
 * A function that returns `{[keys[0]]: values[0], [keys[1]]: values[1], …}` as an object
 * literal (fast properties, keys in this order). Null when `keys` holds `__proto__` or a
 * duplicate (callers then build the object field by field). Compiled with `new Function`
 * from the keys (JSON-quoted, so any key text is safe); build it once per key list.
 */
export function literalMaker(keys: readonly string[]): LiteralMaker | null {
  if (!literalSafe(keys) || new Set(keys).size !== keys.length) return null;
  const body = keys.map((k, i) => `${JSON.stringify(k)}: v[${i}]`).join(', ');
  return new Function('v', `return { ${body} };`) as LiteralMaker;
}

type Merger = (target: Record<string, unknown>, src: Record<string, unknown>) => Record<string, unknown>;

/** A compiled merger and the key lists (in enumeration order) it was compiled for. */
interface MergerEntry {
  targetKeys: string[];
  srcKeys: string[];
  /** Null: a key list cannot be a literal (`__proto__`); merged by copying. */
  fn: Merger | null;
}

/**
 * Compiled mergers by the first key of `src` (then checked key by key: no signature string
 * is built or hashed per call); the decoder sees a few dozen key-list pairs.
 */
const mergers = new Map<string, MergerEntry[]>();
let mergerCount = 0;
/** Past this many key-list pairs (malformed or hostile input varying them) new pairs are merged by copying, uncached. */
const MAX_MERGERS = 1024;

function compileMerger(targetKeys: readonly string[], srcKeys: readonly string[]): Merger | null {
  if (!literalSafe(targetKeys) || !literalSafe(srcKeys)) return null;
  const inSrc = new Set(srcKeys);
  const order = [...targetKeys];
  const inTarget = new Set(targetKeys);
  for (const k of srcKeys) if (!inTarget.has(k)) order.push(k);
  const body = order.map((k) => `${JSON.stringify(k)}: ${inSrc.has(k) ? 's' : 't'}[${JSON.stringify(k)}]`).join(', ');
  return new Function('t', 's', `return { ${body} };`) as Merger;
}

/** Whether `o`'s enumerable keys are exactly `keys`, in that order. */
function keysAre(o: Record<string, unknown>, keys: readonly string[]): boolean {
  let i = 0;
  for (const k in o) {
    if (k !== keys[i]) return false;
    i++;
  }
  return i === keys.length;
}

function copyMerge(t: Record<string, unknown>, s: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k in t) out[k] = t[k];
  for (const k in s) out[k] = s[k];
  return out;
}

/**
 * A new object equal to `{...target, ...src}` (own enumerable string keys; a key `target`
 * already has keeps its place and takes `src`'s value; undefined values are kept), built
 * as one object literal so it has fast properties. `target` and `src` are not changed.
 * The message builders use it where they used to copy event fields onto a message.
 */
export function merge<T extends object>(target: T, src: object): T {
  const t = target as Record<string, unknown>;
  const s = src as Record<string, unknown>;
  let first = '';
  for (const k in s) {
    first = k;
    break;
  }
  let list = mergers.get(first);
  if (list) {
    for (let i = 0; i < list.length; i++) {
      const e = list[i]!;
      if (keysAre(s, e.srcKeys) && keysAre(t, e.targetKeys)) return (e.fn ? e.fn(t, s) : copyMerge(t, s)) as T;
    }
  }
  const targetKeys: string[] = [];
  for (const k in t) targetKeys.push(k);
  const srcKeys: string[] = [];
  for (const k in s) srcKeys.push(k);
  const fn = compileMerger(targetKeys, srcKeys);
  if (mergerCount < MAX_MERGERS) {
    if (!list) mergers.set(first, (list = []));
    list.push({ targetKeys, srcKeys, fn });
    mergerCount++;
  }
  return (fn ? fn(t, s) : copyMerge(t, s)) as T;
}
