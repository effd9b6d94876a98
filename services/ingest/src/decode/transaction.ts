import { DecodeError } from './errors.js';
import { decodeBase58 as fastDecodeBase58 } from './base58.js';
import { parseWireTransaction } from './wire.js';
import type { Commitment } from './types.js';

/**
 * Commitment {@link normalizeTransaction} gives a getTransaction result when its caller
 * does not name one: `confirmed`, the lowest level getTransaction (and blockSubscribe)
 * serves ("processed is not supported", https://solana.com/docs/rpc/http/gettransaction),
 * so it holds for any getTransaction result whatever commitment it was fetched with.
 */
export const GET_TRANSACTION_MIN_COMMITMENT: Commitment = 'confirmed';

/** An SPL token balance from meta.pre/postTokenBalances. `amount` is raw base units (decimal string). */
export interface TokenBalance {
  accountIndex: number;
  mint: string;
  owner: string | null;
  amount: string;
  decimals: number;
}

/**
 * One instruction (top-level or inner), with account indices already resolved
 * to base58 addresses. `data` is null for jsonParsed instructions that the RPC
 * replaced by a `parsed` object (System, SPL Token, ...): they still occupy
 * their index so instruction paths stay right.
 */
export interface NormalizedInstruction {
  programId: string;
  accounts: string[];
  data: Uint8Array | null;
  /** [outer] or [outer, inner]: position in the transaction / in meta.innerInstructions[outer]. */
  path: number[];
  /** Invocation depth: 1 for top-level, ≥ 2 for CPIs; null when the capture lacks it. */
  stackHeight: number | null;
}

/** A top-level instruction and the CPIs it made, in execution order. */
export interface InstructionNode {
  outer: NormalizedInstruction;
  inner: NormalizedInstruction[];
}

/**
 * A transaction in one shape whatever the getTransaction encoding
 * (json / jsonParsed / base64 legacy, v0 or v1).
 */
export interface NormalizedTransaction {
  signature: string;
  slot: number | null;
  /**
   * Commitment at which the source saw the transaction: the level of the subscription or
   * request that produced it (not carried by the transaction bytes themselves).
   */
  commitment: Commitment;
  /** blockTime × 1000 (ms since the Unix epoch), or null when absent. */
  blockTimeMs: number | null;
  /** Full account list: static keys, then loaded writable, then loaded readonly. */
  accountKeys: string[];
  instructions: InstructionNode[];
  /** meta.logMessages; null when the capture has none. */
  logs: string[] | null;
  /** meta.err; null on success. */
  err: unknown;
  /** Transaction fee in lamports. */
  fee: number | null;
  preBalances: number[];
  postBalances: number[];
  preTokenBalances: TokenBalance[];
  postTokenBalances: TokenBalance[];
}

type Obj = Record<string, unknown>;

/**
 * An instruction from the json/jsonParsed encodings whose base58 `data` is
 * decoded on first read. Most instructions of a transaction belong to other
 * programs (compute budget, token, system, routers) and are never read, and
 * base58 decoding is quadratic in length: doing it lazily is most of the
 * normaliser's speed. Invalid base58 raises {@link DecodeError} on that read.
 */
class Base58DataInstruction implements NormalizedInstruction {
  #encoded: string;
  #data: Uint8Array | undefined;
  constructor(
    readonly programId: string,
    readonly accounts: string[],
    encoded: string,
    readonly path: number[],
    public stackHeight: number | null,
  ) {
    this.#encoded = encoded;
  }

  get data(): Uint8Array {
    return (this.#data ??= decodeBase58(this.#encoded, `${whatOf(this.path)}.data`));
  }
}

/** How errors name the instruction at `path` ("instruction 3", "inner instruction 3.1"); built only when failing. */
function whatOf(path: readonly number[]): string {
  return path.length === 1 ? `instruction ${path[0]}` : `inner instruction ${path[0]}.${path[1]}`;
}

/** `list` itself when every entry is a string (the usual case: no copy), else a copy of its strings. */
function stringsOnly(list: unknown[]): string[] {
  for (const x of list) if (typeof x !== 'string') return list.filter((l): l is string => typeof l === 'string');
  return list as string[];
}

function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function fail(reason: string, cause?: unknown): never {
  throw new DecodeError(reason, cause === undefined ? undefined : { cause });
}

const BASE58_CHAR = new Uint8Array(128);
for (const c of '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz') BASE58_CHAR[c.charCodeAt(0)] = 1;

/** Whether `s` is `min`–`max` base58 characters (an address: 32–44; a signature: 64–90). */
function isBase58(s: string, min: number, max: number): boolean {
  if (s.length < min || s.length > max) return false;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 128 || BASE58_CHAR[c] === 0) return false;
  }
  return true;
}

/** Refuses a list of addresses with one that is not base58 (a message would carry it as a pubkey). */
function checkAddresses(list: readonly string[], what: string): void {
  for (let i = 0; i < list.length; i++) if (!isBase58(list[i]!, 32, 44)) fail(`${what} ${i} is not a base58 address`);
}

function numArray(v: unknown, what: string): number[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) fail(`${what} is not an array of numbers`);
  for (let i = 0; i < v.length; i++) if (typeof v[i] !== 'number') fail(`${what} is not an array of numbers`);
  return v as number[];
}

function decodeBase58(s: unknown, what: string): Uint8Array {
  if (typeof s !== 'string') fail(`${what} is not a base58 string`);
  try {
    return fastDecodeBase58(s);
  } catch (err) {
    return fail(`${what} is not valid base58`, err);
  }
}

function tokenBalances(v: unknown, what: string): TokenBalance[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) fail(`${what} is not an array`);
  const out = new Array<TokenBalance>(v.length);
  for (let i = 0; i < v.length; i++) {
    const b: unknown = v[i];
    if (!isObj(b) || typeof b.accountIndex !== 'number' || typeof b.mint !== 'string' || !isObj(b.uiTokenAmount)) {
      fail(`${what}[${i}] is not a token balance`);
    }
    const ui = b.uiTokenAmount;
    if (typeof ui.amount !== 'string' || typeof ui.decimals !== 'number') fail(`${what}[${i}].uiTokenAmount lacks amount/decimals`);
    out[i] = {
      accountIndex: b.accountIndex,
      mint: b.mint,
      owner: typeof b.owner === 'string' ? b.owner : null,
      amount: ui.amount,
      decimals: ui.decimals,
    };
  }
  return out;
}

function loadedAddresses(meta: Obj): string[] {
  const la = meta.loadedAddresses;
  if (!isObj(la)) return [];
  const out: string[] = [];
  pushStrings(out, la.writable);
  pushStrings(out, la.readonly);
  return out;
}

/** Appends the strings of `v` (when it is an array) to `out`: a loop, not a per-call closure. */
function pushStrings(out: string[], v: unknown): void {
  if (!Array.isArray(v)) return;
  for (let i = 0; i < v.length; i++) {
    const x: unknown = v[i];
    if (typeof x === 'string') out.push(x);
  }
}

/** Whether every entry of `list` is a string. */
function allStrings(list: unknown[]): boolean {
  for (let i = 0; i < list.length; i++) if (typeof list[i] !== 'string') return false;
  return true;
}

/** Resolves account index `i` (module level, not a per-call closure: this runs per instruction). */
function keyAt(keys: string[], i: unknown, path: readonly number[]): string {
  if (typeof i !== 'number') fail(`${whatOf(path)} has a non-numeric account index`);
  const k = keys[i];
  if (k === undefined) fail(`${whatOf(path)} refers to account ${i} but the transaction has ${keys.length}`);
  return k;
}

function keysAt(keys: string[], indices: unknown[], path: readonly number[]): string[] {
  const out = new Array<string>(indices.length);
  for (let j = 0; j < indices.length; j++) out[j] = keyAt(keys, indices[j], path);
  return out;
}

/** A compiled (index-based) instruction from json/base64 encodings, or a jsonParsed one. */
function resolveInstruction(raw: unknown, keys: string[], path: number[]): NormalizedInstruction {
  if (!isObj(raw)) fail(`${whatOf(path)} is not an object`);
  const stackHeight = typeof raw.stackHeight === 'number' ? raw.stackHeight : null;
  if (typeof raw.programIdIndex === 'number') {
    const accounts = raw.accounts;
    if (!Array.isArray(accounts)) fail(`${whatOf(path)}.accounts is not an array`);
    if (typeof raw.data !== 'string') fail(`${whatOf(path)}.data is not a base58 string`);
    return new Base58DataInstruction(keyAt(keys, raw.programIdIndex, path), keysAt(keys, accounts, path), raw.data, path, stackHeight);
  }
  if (typeof raw.programId === 'string') {
    if ('parsed' in raw) return { programId: raw.programId, accounts: [], data: null, path, stackHeight };
    const accounts = raw.accounts;
    if (!Array.isArray(accounts) || !accounts.every((a) => typeof a === 'string' && isBase58(a, 32, 44)))
      fail(`${whatOf(path)}.accounts is not a list of addresses`);
    if (!isBase58(raw.programId, 32, 44)) fail(`${whatOf(path)}.programId is not a base58 address`);
    if (typeof raw.data !== 'string') fail(`${whatOf(path)}.data is not a base58 string`);
    return new Base58DataInstruction(raw.programId, accounts as string[], raw.data, path, stackHeight);
  }
  return fail(`${whatOf(path)} has neither programIdIndex nor programId`);
}

/** The top-level instructions of a json/jsonParsed message, resolved (a loop, not a per-call closure). */
function resolveAll(raw: unknown[], keys: string[]): NormalizedInstruction[] {
  const out = new Array<NormalizedInstruction>(raw.length);
  for (let i = 0; i < raw.length; i++) out[i] = resolveInstruction(raw[i], keys, [i]);
  return out;
}

/**
 * Normalises one getTransaction result (encodings json, jsonParsed, base64;
 * legacy, v0 and v1 messages) into a {@link NormalizedTransaction}. A JSON-RPC
 * envelope `{jsonrpc, result}` is unwrapped. `commitment`: the commitment the
 * result was fetched at (default {@link GET_TRANSACTION_MIN_COMMITMENT}; the result
 * itself does not say). Throws {@link DecodeError} with the reason when the input
 * is not a readable transaction.
 */
export function normalizeTransaction(input: unknown, commitment: Commitment = GET_TRANSACTION_MIN_COMMITMENT): NormalizedTransaction {
  if (Array.isArray(input)) fail('input is a JSON array, not a transaction object');
  if (!isObj(input)) fail(`input is ${input === null ? 'null' : typeof input}, not a transaction object`);
  const root = isObj(input.result) && 'jsonrpc' in input ? input.result : input;
  const tx = root.transaction;
  const meta = root.meta;
  if (tx === undefined) fail('input has no "transaction" field');
  if (!isObj(meta)) fail('input has no "meta" object (status, balances and inner instructions are needed)');

  const loaded = loadedAddresses(meta);
  let signature: string;
  let accountKeys: string[];
  let outerRaw: unknown[];
  let compiled = false;
  let wireIx: ReturnType<typeof parseWireTransaction>['instructions'] = [];

  if (Array.isArray(tx)) {
    const [payload, encoding] = tx;
    if (encoding !== 'base64' && encoding !== 'base58') fail(`unsupported transaction encoding ${JSON.stringify(encoding)}`);
    if (typeof payload !== 'string') fail('transaction payload is not a string');
    let bytes: Uint8Array;
    try {
      bytes = encoding === 'base64' ? Buffer.from(payload, 'base64') : fastDecodeBase58(payload);
    } catch (err) {
      fail(`transaction payload is not valid ${encoding}`, err);
    }
    let wire;
    try {
      wire = parseWireTransaction(bytes);
    } catch (err) {
      fail(`transaction bytes are not a Solana transaction: ${(err as Error).message}`, err);
    }
    const sig = wire.signatures[0];
    if (!sig) fail('transaction has no signature');
    signature = sig;
    checkAddresses(loaded, 'loaded address');
    accountKeys = [...wire.staticAccountKeys, ...loaded];
    wireIx = wire.instructions;
    compiled = true;
    outerRaw = [];
  } else if (isObj(tx)) {
    const msg = tx.message;
    if (!isObj(msg)) fail('transaction has no "message" object');
    const sigs = tx.signatures;
    if (!Array.isArray(sigs) || typeof sigs[0] !== 'string') fail('transaction has no signatures');
    signature = sigs[0];
    if (!isBase58(signature, 64, 90)) fail('the first signature is not base58');
    const keys = msg.accountKeys;
    if (!Array.isArray(keys)) fail('message.accountKeys is not an array');
    if (allStrings(keys)) {
      accountKeys = (keys as string[]).concat(loaded);
    } else if (keys.every((k) => isObj(k) && typeof k.pubkey === 'string')) {
      // jsonParsed lists every account, lookup-table ones included (source: "lookupTable").
      accountKeys = (keys as { pubkey: string }[]).map((k) => k.pubkey);
    } else {
      fail('message.accountKeys holds neither base58 strings nor {pubkey} objects');
    }
    checkAddresses(accountKeys, 'account');
    if (!Array.isArray(msg.instructions)) fail('message.instructions is not an array');
    outerRaw = msg.instructions;
  } else {
    fail('"transaction" is neither an object nor [payload, encoding]');
  }

  const outer: NormalizedInstruction[] = compiled
    ? wireIx.map((ix, i) => {
        const programId = accountKeys[ix.programIdIndex];
        if (programId === undefined) fail(`instruction ${i} refers to program account ${ix.programIdIndex} of ${accountKeys.length}`);
        const accounts = ix.accounts.map((a) => {
          const k = accountKeys[a];
          if (k === undefined) fail(`instruction ${i} refers to account ${a} of ${accountKeys.length}`);
          return k;
        });
        return { programId, accounts, data: ix.data, path: [i], stackHeight: 1 };
      })
    : resolveAll(outerRaw, accountKeys);

  const nodes = new Array<InstructionNode>(outer.length);
  for (let i = 0; i < outer.length; i++) {
    const o = outer[i]!;
    o.stackHeight ??= 1; // mutated, not spread: lazy instructions keep their `data` getter
    nodes[i] = { outer: o, inner: [] };
  }
  const innerRaw = meta.innerInstructions;
  if (innerRaw !== undefined && innerRaw !== null) {
    if (!Array.isArray(innerRaw)) fail('meta.innerInstructions is not an array');
    for (const group of innerRaw) {
      if (!isObj(group) || typeof group.index !== 'number' || !Array.isArray(group.instructions)) {
        fail('meta.innerInstructions entry lacks index/instructions');
      }
      const node = nodes[group.index];
      if (!node) fail(`meta.innerInstructions refers to instruction ${group.index} of ${nodes.length}`);
      const idx = group.index;
      const list = group.instructions as unknown[];
      for (let j = 0; j < list.length; j++) node.inner.push(resolveInstruction(list[j], accountKeys, [idx, j]));
    }
  }

  const logs = Array.isArray(meta.logMessages) ? stringsOnly(meta.logMessages) : null;
  const slot = typeof root.slot === 'number' ? root.slot : null;
  const blockTimeMs = typeof root.blockTime === 'number' ? root.blockTime * 1000 : null;
  return {
    signature,
    slot,
    commitment,
    blockTimeMs,
    accountKeys,
    instructions: nodes,
    logs,
    err: meta.err ?? null,
    fee: typeof meta.fee === 'number' ? meta.fee : null,
    preBalances: numArray(meta.preBalances, 'meta.preBalances'),
    postBalances: numArray(meta.postBalances, 'meta.postBalances'),
    preTokenBalances: tokenBalances(meta.preTokenBalances, 'meta.preTokenBalances'),
    postTokenBalances: tokenBalances(meta.postTokenBalances, 'meta.postTokenBalances'),
  };
}
