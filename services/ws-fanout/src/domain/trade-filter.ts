/**
 * Server-side subscription filters (protocol v2 §3, /work/notes/protocol-v2.md):
 * `{"subject":"basic.pumpfun","filter":{"mints":[…],"accounts":[…],"types":["CREATE","BUY"],"min_sol":0.5}}`.
 *
 * Three steps, so the per-client cost on the trade path is a few Set lookups:
 * - `parseTradeFilter` once per subscribe request: validates and normalises the client's `filter`;
 * - `tradeFacts` once per trade message (shared by every filtered client of the subject): what a filter looks at;
 * - `matchesFilter` once per message per filtered client: no allocation.
 *
 * The message fields read here are those of the TRADES schemas, packages/contracts/schemas/<subject>.schema.json
 * (pubkeys base58 strings, u64 amounts decimal strings).
 */
import bs58 from 'bs58';
import { NATIVE_SOL, TRADE_MINT_FIELDS, WSOL_MINT, type TradeSubject } from '@tradewind/contracts';
import { WsProtocolError } from './errors.js';

/** A parsed, normalised subscription filter; every present key must match. */
export interface TradeFilter {
  /** Token mints; the trade matches when it touches any of them (see `tradeFacts`). Base58. */
  readonly mints?: ReadonlySet<string>;
  /** Trader, creator or pool accounts; the trade matches when any of its accounts is listed. Base58. */
  readonly accounts?: ReadonlySet<string>;
  /** `transaction_type` values of the subject; the trade matches when its type is listed. */
  readonly types?: ReadonlySet<string>;
  /** `min_sol` in lamports (1 SOL = 1_000_000_000 lamports): the trade's SOL amount must be ≥ it. */
  readonly minLamports?: bigint;
}

/** What a filter looks at in one trade message (the parsed JSON object as published on NATS). */
export interface TradeFacts {
  /** Token mints the trade touches (base and quote side; WSOL included when it is one side). */
  readonly mints: readonly string[];
  /** Trader, creator and pool accounts of the trade. */
  readonly accounts: readonly string[];
  /** `transaction_type`, undefined when the message lacks it. */
  readonly type: string | undefined;
  /** The SOL side of the trade in lamports; undefined when the trade has no SOL side or the field is absent. */
  readonly lamports: bigint | undefined;
}

/** The keys a filter may have, in the order they are reported and echoed. */
export const FILTER_KEYS = ['mints', 'accounts', 'types', 'min_sol'] as const;

/**
 * `transaction_type` values per subject, copied from `properties.transaction_type.enum` of
 * packages/contracts/schemas/<subject>.schema.json (a unit test checks they stay equal; this module reads no files).
 */
export const TRANSACTION_TYPES: Readonly<Record<TradeSubject, readonly string[]>> = {
  'basic.pumpfun': ['CREATE', 'BUY', 'SELL', 'COMPLETE', 'MIGRATE'],
  'basic.bonk': ['CREATE', 'BUY', 'SELL', 'MIGRATE'],
  'premium.pumpswap': ['BUY', 'SELL', 'CREATE_POOL', 'DEPOSIT', 'WITHDRAW'],
  'premium.raydium': ['SWAP', 'CREATE_POOL', 'DEPOSIT', 'WITHDRAW'],
};

const TYPE_SETS: Readonly<Record<TradeSubject, ReadonlySet<string>>> = {
  'basic.pumpfun': new Set(TRANSACTION_TYPES['basic.pumpfun']),
  'basic.bonk': new Set(TRANSACTION_TYPES['basic.bonk']),
  'premium.pumpswap': new Set(TRANSACTION_TYPES['premium.pumpswap']),
  'premium.raydium': new Set(TRANSACTION_TYPES['premium.raydium']),
};

/** Lamports per SOL (Solana's native unit has 9 decimals). */
const SOL_DECIMALS = 9;
const LAMPORTS_PER_SOL = 10n ** BigInt(SOL_DECIMALS);
/** Size of an ed25519 public key, what a base58 Solana address decodes to. */
const PUBKEY_BYTES = 32;
/** 32 bytes are 32 to 44 base58 characters; checked before decoding so a huge string costs nothing. */
const BASE58_PUBKEY = /^[1-9A-HJ-NP-Za-km-z]{32,44}$/;
/** A u64 as the schemas write it: a decimal string. */
const U64_STRING = /^[0-9]{1,20}$/;
/** Invalid entries named in one error message; the rest are counted ("and 12 more"), so the reply stays small. */
const MAX_NAMED_ENTRIES = 20;
/** Longest excerpt of a client value quoted in an error message, characters. */
const MAX_QUOTED_CHARS = 48;

const bad = (message: string) => new WsProtocolError('invalid_argument', 'bad_filter', message);

/** A client value as quoted in an error message: JSON, cut to MAX_QUOTED_CHARS. */
function quote(value: unknown): string {
  let json: string;
  try {
    json = JSON.stringify(value) ?? String(value); // undefined, functions and symbols have no JSON
  } catch {
    json = typeof value === 'bigint' ? `${value}n` : kindOf(value); // bigint, cyclic objects
  }
  return json.length > MAX_QUOTED_CHARS ? `${json.slice(0, MAX_QUOTED_CHARS)}…` : json;
}

/** "an array", "a string", "null"… for "got …" in messages. */
function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  const type = typeof value;
  return type === 'object' ? 'an object' : `a ${type}`;
}

/** True when `value` is a base58 string that decodes to exactly 32 bytes (a Solana public key). */
function isPublicKey(value: unknown): value is string {
  if (typeof value !== 'string' || !BASE58_PUBKEY.test(value)) return false;
  return bs58.decodeUnsafe(value)?.length === PUBKEY_BYTES;
}

/** Checks the shape shared by the list keys: a non-empty array of at most `maxItems` entries. */
function listOf(key: string, value: unknown, maxItems: number, what: string): readonly unknown[] {
  if (!Array.isArray(value)) throw bad(`filter.${key} must be an array of ${what}; got ${kindOf(value)}`);
  if (value.length === 0) throw bad(`filter.${key} is an empty array: omit the key instead`);
  if (value.length > maxItems) throw bad(`filter.${key} has ${value.length} entries; at most ${maxItems} are allowed`);
  return value;
}

/** "[1] "abc", [4] 12 (and 3 more)" for the entries of `list` at `indexes`. */
function nameEntries(list: readonly unknown[], indexes: readonly number[]): string {
  const named = indexes
    .slice(0, MAX_NAMED_ENTRIES)
    .map((i) => `[${i}] ${quote(list[i])}`)
    .join(', ');
  const rest = indexes.length - MAX_NAMED_ENTRIES;
  return rest > 0 ? `${named} (and ${rest} more)` : named;
}

function parsePublicKeys(key: 'mints' | 'accounts', value: unknown, maxItems: number): ReadonlySet<string> {
  const list = listOf(key, value, maxItems, 'base58 Solana public keys');
  const invalid: number[] = [];
  list.forEach((entry, i) => {
    if (!isPublicKey(entry)) invalid.push(i);
  });
  if (invalid.length > 0) {
    throw bad(`filter.${key} has entries that are not base58 Solana public keys (32 bytes): ${nameEntries(list, invalid)}`);
  }
  return new Set(list as string[]);
}

function parseTypes(value: unknown, subject: TradeSubject, maxItems: number): ReadonlySet<string> {
  const list = listOf('types', value, maxItems, `transaction_type values of ${subject}`);
  const allowed = TYPE_SETS[subject];
  const invalid: number[] = [];
  list.forEach((entry, i) => {
    if (typeof entry !== 'string' || !allowed.has(entry)) invalid.push(i);
  });
  if (invalid.length > 0) {
    throw bad(
      `filter.types has entries that are not transaction_type values of ${subject}: ${nameEntries(list, invalid)}; ` +
        `types of ${subject}: ${TRANSACTION_TYPES[subject].join(', ')}`,
    );
  }
  return new Set(list as string[]);
}

/**
 * Converts an amount of SOL to lamports exactly, through the number's shortest decimal form (`String(sol)`:
 * "0.5", "1e-7", "1.5e+21"), never through float multiplication (0.29 × 1e9 = 289999999.99999994).
 * @param sol finite, ≥ 0.
 * @returns lamports, or undefined when the decimal form has more than 9 decimals (below 1 lamport).
 */
export function solToLamports(sol: number): bigint | undefined {
  const match = /^(\d+)(?:\.(\d+))?(?:e([+-]\d+))?$/.exec(String(sol));
  if (match === null) return undefined; // not reached for finite sol ≥ 0
  const [, whole = '', fraction = '', exponent = '0'] = match;
  const digits = whole + fraction;
  const decimals = fraction.length - Number(exponent); // digits right of the decimal point, ≤ 0 for large values
  if (decimals > SOL_DECIMALS) return undefined;
  return BigInt(digits) * 10n ** BigInt(SOL_DECIMALS - decimals);
}

/** Lamports as a SOL decimal string without trailing zeros: 500000000n → "0.5", 1n → "0.000000001". */
function lamportsToSolString(lamports: bigint): string {
  const whole = lamports / LAMPORTS_PER_SOL;
  const fraction = (lamports % LAMPORTS_PER_SOL).toString().padStart(SOL_DECIMALS, '0').replace(/0+$/, '');
  return fraction === '' ? whole.toString() : `${whole}.${fraction}`;
}

function parseMinSol(value: unknown): bigint {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
    throw bad(`filter.min_sol must be a finite number ≥ 0 (an amount of SOL, such as 0.5); got ${typeof value === 'number' ? String(value) : quote(value)}`);
  }
  const lamports = solToLamports(value);
  if (lamports === undefined) {
    throw bad(`filter.min_sol ${String(value)} has more than ${SOL_DECIMALS} decimals (1 lamport = 0.000000001 SOL)`);
  }
  return lamports;
}

/**
 * Parses the client's `filter` value of a subscribe request.
 * @param raw the request's `filter`: `{"mints"?: string[], "accounts"?: string[], "types"?: string[], "min_sol"?: number}`,
 *   or null / undefined / `{}` for no filter. A key whose value is `undefined` counts as absent.
 * @param subject the subject being subscribed: `types` must be `transaction_type` values of it.
 * @param limits.maxItems most entries of each of mints / accounts / types (config WS_FILTER_MAX_ITEMS).
 * @returns the normalised filter (lists deduplicated, in the client's order; min_sol in lamports), or null for no filter.
 * @throws WsProtocolError('invalid_argument', 'bad_filter', message) without close code (the connection stays open) when
 *   `raw` is not an object; it has a key other than mints, accounts, types, min_sol; mints / accounts is not a
 *   non-empty array of at most maxItems base58 32-byte public keys (each bad entry is named); types is not a
 *   non-empty array of at most maxItems transaction_type values of `subject` (the allowed ones are listed); min_sol
 *   is not a finite number ≥ 0 or has more than 9 decimals.
 */
export function parseTradeFilter(raw: unknown, subject: TradeSubject, limits: { maxItems: number }): TradeFilter | null {
  if (raw === null || raw === undefined) return null;
  if (typeof raw !== 'object' || Array.isArray(raw)) {
    throw bad(`filter must be an object with any of the keys ${FILTER_KEYS.join(', ')} (or null for no filter); got ${kindOf(raw)}`);
  }
  const fields = raw as Record<string, unknown>;
  const unknown = Object.keys(fields).filter((key) => !(FILTER_KEYS as readonly string[]).includes(key));
  if (unknown.length > 0) {
    const names = unknown.slice(0, MAX_NAMED_ENTRIES).map(quote).join(', ');
    throw bad(`filter has unknown key${unknown.length > 1 ? 's' : ''} ${names}; allowed keys: ${FILTER_KEYS.join(', ')}`);
  }
  const filter: { mints?: ReadonlySet<string>; accounts?: ReadonlySet<string>; types?: ReadonlySet<string>; minLamports?: bigint } = {};
  if (fields.mints !== undefined) filter.mints = parsePublicKeys('mints', fields.mints, limits.maxItems);
  if (fields.accounts !== undefined) filter.accounts = parsePublicKeys('accounts', fields.accounts, limits.maxItems);
  if (fields.types !== undefined) filter.types = parseTypes(fields.types, subject, limits.maxItems);
  if (fields.min_sol !== undefined) filter.minLamports = parseMinSol(fields.min_sol);
  return Object.keys(filter).length === 0 ? null : Object.freeze(filter);
}

/**
 * The normalised filter as echoed to the client in `subscribed`:
 * `{"mints":[…],"accounts":[…],"types":[…],"min_sol":0.5}` with only the keys the filter has (min_sol in SOL,
 * a JSON number that reads back to the same lamports), or null for no filter.
 */
export function tradeFilterJson(filter: TradeFilter | null): Record<string, unknown> | null {
  if (filter === null) return null;
  const json: Record<string, unknown> = {};
  if (filter.mints !== undefined) json.mints = [...filter.mints];
  if (filter.accounts !== undefined) json.accounts = [...filter.accounts];
  if (filter.types !== undefined) json.types = [...filter.types];
  if (filter.minLamports !== undefined) json.min_sol = Number(lamportsToSolString(filter.minLamports));
  return json;
}

/** `message[key]` when it is a string, else undefined. */
function text(message: Record<string, unknown>, key: string): string | undefined {
  const value = message[key];
  return typeof value === 'string' ? value : undefined;
}

/** `message[key]` as a u64: a decimal string (the schemas' form) or a safe non-negative integer; else undefined. */
function u64(message: Record<string, unknown>, key: string): bigint | undefined {
  const value = message[key];
  if (typeof value === 'string') return U64_STRING.test(value) ? BigInt(value) : undefined;
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) return BigInt(value);
  return undefined;
}

/** The string values of `keys` present in `message`, in that order, without `skip`. */
function strings(message: Record<string, unknown>, keys: readonly string[], skip?: string): string[] {
  const out: string[] = [];
  for (const key of keys) {
    const value = text(message, key);
    if (value !== undefined && value !== skip) out.push(value);
  }
  return out;
}

/** The amount field paired with the first `[mintKey, amountKey]` whose mint is WSOL, as lamports. */
function wsolSide(message: Record<string, unknown>, pairs: readonly (readonly [string, string])[]): bigint | undefined {
  for (const [mintKey, amountKey] of pairs) {
    if (message[mintKey] === WSOL_MINT) return u64(message, amountKey);
  }
  return undefined;
}

/*
 * Fields per subject (schema field names). Each list reads only the fields a message of that type has;
 * absent fields are skipped.
 */
/** basic.pumpfun: `user` (trader; creator on CREATE), `creator` (coin creator), `bonding_curve` (the pool), `pool` (MIGRATE: the PumpSwap pool). */
const PUMPFUN_ACCOUNTS = ['user', 'creator', 'bonding_curve', 'pool'];
/** basic.bonk: `payer` (trader on BUY/SELL), `creator` (CREATE), `pool_state` (the curve), `amm_pool` (MIGRATE: the new Raydium pool). */
const BONK_ACCOUNTS = ['payer', 'creator', 'pool_state', 'amm_pool'];
/** premium.pumpswap: `user` (trader / liquidity provider), `creator` (CREATE_POOL), `coin_creator` (not NATIVE_SOL = none), `pool`. */
const PUMPSWAP_ACCOUNTS = ['user', 'creator', 'coin_creator', 'pool'];
/** premium.raydium: `payer` (SWAP trader), `owner` (DEPOSIT / WITHDRAW liquidity provider), `creator` (CREATE_POOL), `pool_state` (the pool). */
const RAYDIUM_ACCOUNTS = ['payer', 'owner', 'creator', 'pool_state'];
/** premium.raydium: the amount of the WSOL side: SWAP amount_in / amount_out, CREATE_POOL init_amount_0/1, DEPOSIT / WITHDRAW token_0/1_amount. */
const RAYDIUM_SOL_SIDES = [
  ['input_mint', 'amount_in'],
  ['output_mint', 'amount_out'],
  ['token_0_mint', 'init_amount_0'],
  ['token_1_mint', 'init_amount_1'],
  ['vault_0_mint', 'token_0_amount'],
  ['vault_1_mint', 'token_1_amount'],
] as const;

/**
 * What a filter looks at in one trade message; call once per message and share the result among its clients.
 * Mapping (packages/contracts/schemas/<subject>.schema.json field names):
 * - basic.pumpfun: mints `mint`, `quote_mint` (unless NATIVE_SOL); accounts `user`, `creator`, `bonding_curve`, `pool`;
 *   lamports `sol_amount` when the curve is SOL-quoted (`quote_mint` absent, NATIVE_SOL or WSOL; on other quotes
 *   `sol_amount` is 0 and the trade has no SOL side).
 * - basic.bonk: mints `base_mint`, `quote_mint`; accounts `payer`, `creator`, `pool_state`, `amm_pool`; lamports when
 *   `quote_mint` is WSOL: `sol_amount` (BUY / SELL: the quote side) or `quote_amount` (MIGRATE).
 * - premium.pumpswap: mints `base_mint`, `quote_mint`; accounts `user`, `creator`, `coin_creator` (unless NATIVE_SOL),
 *   `pool`; lamports `user_quote_amount` (what the user paid / received / deposited / withdrew) when `quote_mint` is WSOL.
 * - premium.raydium: mints TRADE_MINT_FIELDS (lib), lamports RAYDIUM_SOL_SIDES; accounts `payer`, `owner`, `creator`, `pool_state`.
 * @param subject the subject the message was published on.
 * @param message the parsed trade message.
 * @returns the facts; absent or malformed fields are left out (lamports undefined), never thrown on.
 */
export function tradeFacts(subject: TradeSubject, message: Record<string, unknown>): TradeFacts {
  const type = text(message, 'transaction_type');
  switch (subject) {
    case 'basic.pumpfun': {
      const quote = message.quote_mint;
      const solQuoted = quote === undefined || quote === NATIVE_SOL || quote === WSOL_MINT;
      return {
        mints: strings(message, TRADE_MINT_FIELDS['basic.pumpfun'], NATIVE_SOL),
        accounts: strings(message, PUMPFUN_ACCOUNTS),
        type,
        lamports: solQuoted ? u64(message, 'sol_amount') : undefined,
      };
    }
    case 'basic.bonk':
      return {
        mints: strings(message, TRADE_MINT_FIELDS['basic.bonk']),
        accounts: strings(message, BONK_ACCOUNTS),
        type,
        lamports: message.quote_mint === WSOL_MINT ? (u64(message, 'sol_amount') ?? u64(message, 'quote_amount')) : undefined,
      };
    case 'premium.pumpswap':
      return {
        mints: strings(message, TRADE_MINT_FIELDS['premium.pumpswap']),
        accounts: strings(message, PUMPSWAP_ACCOUNTS, NATIVE_SOL),
        type,
        lamports: message.quote_mint === WSOL_MINT ? u64(message, 'user_quote_amount') : undefined,
      };
    case 'premium.raydium':
      return {
        mints: strings(message, TRADE_MINT_FIELDS['premium.raydium']),
        accounts: strings(message, RAYDIUM_ACCOUNTS),
        type,
        lamports: wsolSide(message, RAYDIUM_SOL_SIDES),
      };
  }
}

/** True when any of `values` is in `set` (indexed loop: no iterator allocated). */
function anyIn(set: ReadonlySet<string>, values: readonly string[]): boolean {
  for (let i = 0; i < values.length; i++) {
    if (set.has(values[i]!)) return true;
  }
  return false;
}

/**
 * Whether a trade passes a filter: every key the filter has must match (types ∋ type; mints ∩ facts.mints ≠ ∅;
 * accounts ∩ facts.accounts ≠ ∅; lamports ≥ minLamports). A trade whose fact is missing fails that key, except
 * min_sol 0, which every trade passes. Allocates nothing.
 */
export function matchesFilter(filter: TradeFilter, facts: TradeFacts): boolean {
  const { types, minLamports, mints, accounts } = filter;
  if (types !== undefined && (facts.type === undefined || !types.has(facts.type))) return false;
  if (minLamports !== undefined && minLamports > 0n && (facts.lamports === undefined || facts.lamports < minLamports)) return false;
  if (mints !== undefined && !anyIn(mints, facts.mints)) return false;
  if (accounts !== undefined && !anyIn(accounts, facts.accounts)) return false;
  return true;
}
