/**
 * Fuzzing the transaction decoder (issue 24, helper A): byte-level mutations of every recorded
 * mainnet transaction (services/ingest/recording/**) and mutated / truncated instruction data and
 * `Program data:` event bytes. Property per input: `decodeTransaction` either refuses with its own
 * DecodeError or returns messages that (1) validate against their subject's JSON Schema
 * (packages/contracts/schemas) and (2) carry the amounts the chain moved. The chain oracle is the
 * unmutated transaction: its messages agree with the balances exactly (services/ingest/test/decode.test.ts,
 * decode-amm.test.ts, message-fields.test.ts), so when a mutation leaves the balances and account keys
 * as they were, every emitted message must have the amounts of the original message with the same
 * message id (and a message the original did not have may carry no amount). Any other throw, a decode
 * slower than HANG_MS, a schema-invalid message or a wrong amount is counted as `crashed`.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import fc from 'fast-check';
import {
  DecodeError,
  decodeNormalized,
  messageId,
  normalizeTransaction,
  subjectOf,
  type NormalizedTransaction,
  type TradeMessage,
  type TradeSubject,
} from '@tradewind/ingest/decode';
import bs58 from 'bs58';
import type { ReliabilityRow, ReliabilityScale } from '../report.js';

const ROOT = resolve(import.meta.dirname, '..', '..', '..');
/** The bundled recording: one getTransaction result per file, `<program>/<signature>.json`. */
export const RECORDING_DIR = join(ROOT, 'services', 'ingest', 'recording');
const SCHEMA_DIR = join(ROOT, 'packages', 'contracts', 'schemas');
/** A single decode slower than this (ms) counts as a hang. The slowest real transaction takes < 1 ms. */
export const HANG_MS = 2_000;
/** Programs whose instruction data is worth mutating (the decoder reads only theirs). */
const TRADE_PROGRAMS = new Set([
  '6EF8rrecthR5Dkzon8Nwu78hRvfCKubJ14M5uBEwF6P',
  'LanMV9sAd7wArD4vJFi2qDdfnVhFxYSUg6eADduJ3uj',
  'pAMMBay6oceH9fJKBRHGP5D4bD4sWpmSwMn52FMfXEA',
  'CPMMoo8L3F4NbTegBCKVNunggL7H1ZpdTHKxQB5qKP1C',
]);

/**
 * Message fields that state an amount the chain moved (raw decimal strings or derived UI numbers).
 * They are compared with the unmutated transaction's message of the same id. Other event fields
 * (reserves, balances before, fees split, timestamps) are not amounts moved and are not compared.
 */
export const AMOUNT_FIELDS = [
  'sol_amount',
  'token_amount',
  'quote_amount',
  'sol_amount_ui',
  'token_amount_ui',
  'quote_amount_ui',
  'base_amount_in',
  'base_amount_out',
  'quote_amount_in',
  'quote_amount_out',
  'user_quote_amount_in',
  'user_quote_amount_out',
  'quote_amount_in_with_lp_fee',
  'lp_token_amount_in',
  'lp_token_amount_out',
  'amountIn',
  'amountOut',
  'amount_in',
  'amount_out',
  'input_amount',
  'output_amount',
  'base_amount',
  'pool_base_amount',
  'pool_quote_amount',
] as const;

/** One recorded transaction and what the decoder makes of it unmutated (the oracle). */
export interface DecoderCorpusEntry {
  /** `<program>/<signature>.json` under RECORDING_DIR. */
  readonly file: string;
  readonly text: string;
  readonly json: unknown;
  readonly normalized: NormalizedTransaction;
  /** Messages of the unmutated transaction by messageId. */
  readonly original: ReadonlyMap<string, TradeMessage>;
}

/** Loads every recorded transaction and decodes it once. @throws Error when a recording cannot be decoded (the corpus is broken). */
export function loadDecoderCorpus(dir: string = RECORDING_DIR): DecoderCorpusEntry[] {
  const out: DecoderCorpusEntry[] = [];
  for (const program of readdirSync(dir, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => d.name)
    .sort()) {
    for (const name of readdirSync(join(dir, program))
      .filter((f) => f.endsWith('.json'))
      .sort()) {
      const file = `${program}/${name}`;
      const text = readFileSync(join(dir, file), 'utf8');
      const json = JSON.parse(text) as unknown;
      const normalized = normalizeTransaction(json);
      const original = new Map(decodeNormalized(normalized).map((m) => [messageId(m), m] as const));
      out.push({ file, text, json, normalized, original });
    }
  }
  return out;
}

/** Compiled JSON Schemas of the four trade subjects. */
export function tradeSchemaValidators(): Record<TradeSubject, ValidateFunction> {
  const ajv = new Ajv2020({ allErrors: true, strict: true, strictRequired: false });
  const load = (subject: TradeSubject) => ajv.compile(JSON.parse(readFileSync(join(SCHEMA_DIR, `${subject}.schema.json`), 'utf8')) as object);
  return {
    'basic.pumpfun': load('basic.pumpfun'),
    'basic.bonk': load('basic.bonk'),
    'premium.pumpswap': load('premium.pumpswap'),
    'premium.raydium': load('premium.raydium'),
  };
}

/** A byte-level edit: flip a bit, overwrite, insert or delete a byte, or cut the buffer. `at` is taken modulo the length. */
export type ByteOp =
  | { readonly kind: 'flip'; readonly at: number; readonly bit: number }
  | { readonly kind: 'set'; readonly at: number; readonly byte: number }
  | { readonly kind: 'insert'; readonly at: number; readonly byte: number }
  | { readonly kind: 'delete'; readonly at: number }
  | { readonly kind: 'truncate'; readonly at: number };

/** Applies `ops` in order to a copy of `bytes`. */
export function mutateBytes(bytes: Uint8Array, ops: readonly ByteOp[]): Uint8Array {
  let b = Uint8Array.from(bytes);
  for (const op of ops) {
    const n = b.length;
    if (op.kind === 'insert') {
      const at = op.at % (n + 1);
      b = Uint8Array.from([...b.subarray(0, at), op.byte, ...b.subarray(at)]);
      continue;
    }
    if (n === 0) continue;
    const at = op.at % n;
    if (op.kind === 'flip') b[at] = (b[at] ?? 0) ^ (1 << op.bit);
    else if (op.kind === 'set') b[at] = op.byte;
    else if (op.kind === 'delete') b = Uint8Array.from([...b.subarray(0, at), ...b.subarray(at + 1)]);
    else b = b.slice(0, at);
  }
  return b;
}

const at = fc.nat({ max: 1 << 20 });
const pointOp: fc.Arbitrary<ByteOp> = fc.oneof(
  fc.record({ kind: fc.constant('flip' as const), at, bit: fc.integer({ min: 0, max: 7 }) }),
  fc.record({ kind: fc.constant('set' as const), at, byte: fc.integer({ min: 0, max: 255 }) }),
  fc.record({ kind: fc.constant('insert' as const), at, byte: fc.integer({ min: 0, max: 255 }) }),
  fc.record({ kind: fc.constant('delete' as const), at }),
);
/** 1–4 point edits. */
const mutationOps = fc.array(pointOp, { minLength: 1, maxLength: 4 });
/** One cut, sometimes followed by a point edit. */
const truncationOps = fc
  .tuple(fc.record({ kind: fc.constant('truncate' as const), at }), fc.option(pointOp, { nil: undefined }))
  .map(([t, p]) => (p ? [t, p] : [t]) as ByteOp[]);

const B58 = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
/** Base58 (Bitcoin alphabet) of any length (the decoder's own encoder stops at 128 bytes). */
export function encodeBase58Any(bytes: Uint8Array): string {
  let zeros = 0;
  while (zeros < bytes.length && bytes[zeros] === 0) zeros++;
  let n = 0n;
  for (const b of bytes) n = (n << 8n) | BigInt(b);
  let out = '';
  while (n > 0n) {
    out = B58[Number(n % 58n)] + out;
    n /= 58n;
  }
  return '1'.repeat(zeros) + out;
}

type Obj = Record<string, unknown>;
const isObj = (x: unknown): x is Obj => typeof x === 'object' && x !== null && !Array.isArray(x);

/** The getTransaction result inside an optional JSON-RPC envelope. */
function resultOf(json: unknown): Obj {
  return isObj(json) && isObj(json.result) ? json.result : (json as Obj);
}

/** Where one instruction's data sits in a getTransaction result: a base58 string, or the base64 wire transaction. */
type DataSite = { readonly kind: 'base58'; readonly path: (string | number)[] } | { readonly kind: 'wire' };

/** The instruction data a mutation can target: every base58 `data` of the four programs (outer and inner, incl. emit_cpi), and the wire bytes. */
function dataSites(json: unknown): DataSite[] {
  const r = resultOf(json);
  const prefix: (string | number)[] = isObj(json) && isObj(json.result) ? ['result'] : [];
  const tx = r.transaction;
  const meta = isObj(r.meta) ? r.meta : {};
  const sites: DataSite[] = [];
  let keys: string[] = [];
  if (Array.isArray(tx)) sites.push({ kind: 'wire' });
  else if (isObj(tx) && isObj(tx.message)) {
    const m = tx.message;
    keys = (Array.isArray(m.accountKeys) ? m.accountKeys : []).map((k) => (isObj(k) ? String(k.pubkey) : String(k)));
    const loaded = isObj(meta.loadedAddresses) ? meta.loadedAddresses : {};
    for (const part of [loaded.writable, loaded.readonly]) if (Array.isArray(part)) keys.push(...part.map(String));
    (Array.isArray(m.instructions) ? m.instructions : []).forEach((ix, i) => {
      if (isObj(ix) && typeof ix.data === 'string' && isTradeProgram(ix, keys))
        sites.push({ kind: 'base58', path: [...prefix, 'transaction', 'message', 'instructions', i, 'data'] });
    });
  }
  (Array.isArray(meta.innerInstructions) ? meta.innerInstructions : []).forEach((group, g) => {
    if (!isObj(group) || !Array.isArray(group.instructions)) return;
    group.instructions.forEach((ix, i) => {
      if (isObj(ix) && typeof ix.data === 'string' && (keys.length === 0 || isTradeProgram(ix, keys)))
        sites.push({ kind: 'base58', path: [...prefix, 'meta', 'innerInstructions', g, 'instructions', i, 'data'] });
    });
  });
  return sites;
}

function isTradeProgram(ix: Obj, keys: string[]): boolean {
  const id = typeof ix.programId === 'string' ? ix.programId : typeof ix.programIdIndex === 'number' ? keys[ix.programIdIndex] : undefined;
  return id !== undefined && TRADE_PROGRAMS.has(id);
}

/** Index of every `Program data: ` log line. */
function eventLines(json: unknown): number[] {
  const meta = resultOf(json).meta;
  const logs = isObj(meta) && Array.isArray(meta.logMessages) ? meta.logMessages : [];
  return logs.flatMap((l, i) => (typeof l === 'string' && l.startsWith('Program data: ') ? [i] : []));
}

function setPath(root: unknown, path: readonly (string | number)[], value: unknown): void {
  let o = root as Obj;
  for (const k of path.slice(0, -1)) o = o[k as string] as Obj;
  o[path[path.length - 1] as string] = value;
}
function getPath(root: unknown, path: readonly (string | number)[]): unknown {
  let o = root as Obj;
  for (const k of path) o = o[k as string] as Obj;
  return o;
}

/** What one decode of one input came to. */
export interface DecodeVerdict {
  /** 'ok': messages emitted and checked; 'refused': DecodeError (or unparsable JSON); 'crash': another throw; 'hang'; 'invalid': schema-invalid message; 'wrong-amount'. */
  readonly outcome: 'ok' | 'refused' | 'crash' | 'hang' | 'invalid' | 'wrong-amount';
  readonly detail?: string;
  readonly ms: number;
  /** Messages the decoder itself refused (onUnknown kind `refused`: incomplete or not backed by the balances). */
  readonly dropped?: number;
}

/**
 * Decodes `input` (a parsed getTransaction result) and judges it against `entry` (the unmutated
 * transaction). `balancesKept`: compare amounts with the original only when the normalised
 * transaction's balances and account keys equal the original's (the oracle then still holds).
 * `decode` is the function under test (the real decoder unless a negative control replaces it).
 */
export function judgeDecode(
  entry: DecoderCorpusEntry,
  input: unknown,
  validators: Record<TradeSubject, ValidateFunction>,
  decode?: (tx: NormalizedTransaction) => TradeMessage[],
): DecodeVerdict {
  let dropped = 0;
  const run = decode ?? ((tx: NormalizedTransaction) => decodeNormalized(tx, { onUnknown: (u) => u.kind === 'refused' && dropped++ }));
  const t0 = performance.now();
  let messages: TradeMessage[];
  let tx: NormalizedTransaction;
  try {
    tx = normalizeTransaction(input);
    messages = run(tx);
  } catch (e) {
    const ms = performance.now() - t0;
    if (e instanceof DecodeError) return { outcome: ms > HANG_MS ? 'hang' : 'refused', ms };
    return { outcome: 'crash', detail: e instanceof Error ? `${e.name}: ${e.message}` : String(e), ms };
  }
  const ms = performance.now() - t0;
  if (ms > HANG_MS) return { outcome: 'hang', detail: `${Math.round(ms)} ms`, ms };
  for (const m of messages) {
    let subject: TradeSubject;
    try {
      subject = subjectOf(m);
    } catch {
      return { outcome: 'invalid', detail: `no subject for source ${String(m.source)}`, ms };
    }
    const validate = validators[subject];
    if (!validate?.(JSON.parse(JSON.stringify(m))))
      return { outcome: 'invalid', detail: `${messageId(m)}: ${JSON.stringify(validate?.errors?.slice(0, 2) ?? 'no validator')}`, ms };
  }
  if (!sameChain(tx, entry.normalized)) return { outcome: 'ok', ms, dropped };
  for (const m of messages) {
    const id = messageId(m);
    const orig = entry.original.get(id);
    for (const f of AMOUNT_FIELDS) {
      const got = amount(m, f);
      const want = orig ? amount(orig, f) : undefined;
      if (got !== undefined && got !== want)
        return { outcome: 'wrong-amount', detail: `${id} ${m.transaction_type} ${f}=${got} (chain: ${want ?? 'no such trade'})`, ms };
    }
    const d = (m as { data?: { volume?: unknown } }).data;
    const od = (orig as { data?: { volume?: unknown } } | undefined)?.data;
    if (d && typeof d.volume === 'number' && d.volume !== od?.volume)
      return { outcome: 'wrong-amount', detail: `${id} data.volume=${d.volume} (chain: ${String(od?.volume ?? 'no such trade')})`, ms };
  }
  return { outcome: 'ok', ms, dropped };
}

function amount(m: TradeMessage, field: string): string | undefined {
  const v = (m as Record<string, unknown>)[field];
  return v === undefined || v === null ? undefined : String(v);
}

/** Whether two normalised transactions have the same signature, account keys and balances (so the original's amounts are still the chain's). */
function sameChain(a: NormalizedTransaction, b: NormalizedTransaction): boolean {
  return (
    a.signature === b.signature &&
    a.err === null &&
    b.err === null &&
    JSON.stringify(a.accountKeys) === JSON.stringify(b.accountKeys) &&
    JSON.stringify(a.preBalances) === JSON.stringify(b.preBalances) &&
    JSON.stringify(a.postBalances) === JSON.stringify(b.postBalances) &&
    JSON.stringify(a.preTokenBalances) === JSON.stringify(b.preTokenBalances) &&
    JSON.stringify(a.postTokenBalances) === JSON.stringify(b.postTokenBalances)
  );
}

/** One input class of the decoder fuzz: how a recorded transaction is turned into a mutated input. */
interface DecoderClass {
  readonly name: string;
  /** Share of the scale's total inputs. */
  readonly share: number;
  readonly arb: (corpus: readonly DecoderCorpusEntry[]) => fc.Arbitrary<{ entry: DecoderCorpusEntry; describe: string; build: () => unknown }>;
}

const pick = <T>(xs: readonly T[]) => fc.nat({ max: xs.length - 1 }).map((i) => xs[i] as T);

/** Byte mutations of the whole file text (unparsable JSON is a refusal). */
function textClass(ops: fc.Arbitrary<ByteOp[]>, name: string): DecoderClass {
  return {
    name,
    share: 0.3,
    arb: (corpus) =>
      fc.tuple(pick(corpus), ops).map(([entry, o]) => ({
        entry,
        describe: `${entry.file} text ops=${JSON.stringify(o)}`,
        build: () => {
          const bytes = mutateBytes(Buffer.from(entry.text, 'utf8'), o);
          try {
            return JSON.parse(Buffer.from(bytes).toString('utf8')) as unknown;
          } catch {
            return REFUSED;
          }
        },
      })),
  };
}

/** Mutations of one `Program data:` event (base64 bytes, re-encoded). */
function eventClass(ops: fc.Arbitrary<ByteOp[]>, name: string, share: number): DecoderClass {
  return {
    name,
    share,
    arb: (corpus) => {
      const withEvents = corpus.filter((e) => eventLines(e.json).length > 0);
      return fc.tuple(pick(withEvents), fc.nat(), ops).map(([entry, k, o]) => {
        const lines = eventLines(entry.json);
        const line = lines[k % lines.length] as number;
        return {
          entry,
          describe: `${entry.file} logMessages[${line}] ops=${JSON.stringify(o)}`,
          build: () => {
            const json = structuredClone(entry.json);
            const path = [...(isObj(json) && isObj(json.result) ? ['result'] : []), 'meta', 'logMessages', line];
            const bytes = Buffer.from((getPath(json, path) as string).slice('Program data: '.length), 'base64');
            setPath(json, path, `Program data: ${Buffer.from(mutateBytes(bytes, o)).toString('base64')}`);
            return json;
          },
        };
      });
    },
  };
}

/** Mutations of one instruction's data (base58 `data` of a trade program, outer or inner) or of the base64 wire bytes. */
function instructionClass(ops: fc.Arbitrary<ByteOp[]>, name: string, share: number): DecoderClass {
  return {
    name,
    share,
    arb: (corpus) => {
      const withSites = corpus.filter((e) => dataSites(e.json).length > 0);
      return fc.tuple(pick(withSites), fc.nat(), ops).map(([entry, k, o]) => {
        const sites = dataSites(entry.json);
        const site = sites[k % sites.length] as DataSite;
        return {
          entry,
          describe: `${entry.file} ${site.kind === 'wire' ? 'wire' : site.path.join('.')} ops=${JSON.stringify(o)}`,
          build: () => {
            const json = structuredClone(entry.json);
            const r = resultOf(json);
            if (site.kind === 'wire') {
              const tx = r.transaction as [string, string];
              tx[0] = Buffer.from(mutateBytes(Buffer.from(tx[0], 'base64'), o)).toString('base64');
            } else {
              setPath(json, site.path, encodeBase58Any(mutateBytes(bs58.decode(getPath(json, site.path) as string), o)));
            }
            return json;
          },
        };
      });
    },
  };
}

const REFUSED = Symbol('unparsable');

/** The decoder's input classes, in report order. */
export const DECODER_CLASSES: readonly DecoderClass[] = [
  textClass(mutationOps, 'decoder: recorded transaction JSON, random byte edits'),
  eventClass(mutationOps, 'decoder: `Program data:` event bytes, random byte edits', 0.2),
  eventClass(truncationOps, 'decoder: `Program data:` event bytes, truncated', 0.15),
  instructionClass(mutationOps, 'decoder: instruction data (base58 / base64 wire), random byte edits', 0.2),
  instructionClass(truncationOps, 'decoder: instruction data (base58 / base64 wire), truncated', 0.15),
];

/** Total decoder inputs per scale (split over the classes by share). */
export const DECODER_SIZES: Record<ReliabilityScale, number> = { test: 1_500, full: 62_000 };

/** Counts of one class run. */
export interface DecoderClassResult {
  tried: number;
  refused: number;
  emitted: number;
  /** Inputs where the decoder refused at least one message as not backed by the chain. */
  droppedMessages: number;
  crashed: number;
  wrongAmounts: number;
  invalid: number;
  hangs: number;
  slowestMs: number;
  failures: string[];
}

/**
 * Runs one class with `numRuns` inputs from fast-check `seed`; never throws for what it finds.
 * `decode` replaces the decoder (negative controls).
 */
export function runDecoderClass(
  cls: DecoderClass,
  corpus: readonly DecoderCorpusEntry[],
  validators: Record<TradeSubject, ValidateFunction>,
  numRuns: number,
  seed: number,
  decode?: (tx: NormalizedTransaction) => TradeMessage[],
): DecoderClassResult {
  const r: DecoderClassResult = {
    tried: 0,
    refused: 0,
    emitted: 0,
    droppedMessages: 0,
    crashed: 0,
    wrongAmounts: 0,
    invalid: 0,
    hangs: 0,
    slowestMs: 0,
    failures: [],
  };
  fc.assert(
    fc.property(cls.arb(corpus), (c) => {
      r.tried++;
      const input = c.build();
      if (input === REFUSED) {
        r.refused++;
        return true;
      }
      const v = judgeDecode(c.entry, input, validators, decode);
      r.slowestMs = Math.max(r.slowestMs, v.ms);
      if (v.outcome === 'refused') r.refused++;
      else if (v.outcome === 'ok') {
        r.emitted++;
        if (v.dropped) r.droppedMessages++;
      } else {
        if (v.outcome === 'wrong-amount') r.wrongAmounts++;
        else if (v.outcome === 'invalid') r.invalid++;
        else if (v.outcome === 'hang') r.hangs++;
        else r.crashed++;
        if (r.failures.length < 5) r.failures.push(`[${v.outcome}] ${v.detail ?? ''} <- ${c.describe}`);
      }
      return true;
    }),
    { seed, numRuns },
  );
  return r;
}

/**
 * The decoder fuzz (`npm run fuzz`, and its 'test' size inside `npm test`): every class of
 * DECODER_CLASSES at DECODER_SIZES[scale] inputs in total, from fast-check `seed`. Returns one row per
 * class: `crashed` = throws other than DecodeError + hangs (> HANG_MS) + schema-invalid messages +
 * wrong amounts emitted as valid; lost / duplicated are 0 by construction (no delivery here);
 * recoveryMs null. Reproductions (seed, file, site, byte ops) go to stderr and the row's notes.
 * @throws Error only when the recording cannot be loaded.
 */
export async function runDecoderFuzz(scale: ReliabilityScale, seed: number): Promise<ReliabilityRow[]> {
  const corpus = loadDecoderCorpus();
  const validators = tradeSchemaValidators();
  const total = DECODER_SIZES[scale];
  const rows: ReliabilityRow[] = [];
  DECODER_CLASSES.forEach((cls, i) => {
    const numRuns = Math.max(1, Math.round(total * cls.share));
    const classSeed = seed + i;
    const r = runDecoderClass(cls, corpus, validators, numRuns, classSeed);
    for (const f of r.failures) process.stderr.write(`decoder fuzz (seed ${classSeed}): ${f}\n`);
    const crashed = r.crashed + r.hangs + r.invalid + r.wrongAmounts;
    rows.push({
      name: cls.name,
      tried: r.tried,
      lost: 0,
      duplicated: 0,
      crashed,
      recoveryMs: null,
      notes:
        `seed ${classSeed}, ${corpus.length} recorded txs; refused (DecodeError / bad JSON) ${r.refused}, decoded ${r.emitted} (of which with messages refused as unbacked ${r.droppedMessages}); throws ${r.crashed}, hangs ${r.hangs}, schema-invalid ${r.invalid}, wrong amounts ${r.wrongAmounts}; slowest ${r.slowestMs.toFixed(1)} ms` +
        (r.failures.length ? `; first: ${r.failures[0]}` : ''),
    });
  });
  return rows;
}
