/**
 * On-chain token metadata (name, symbol, decimals, total supply) of a Solana mint, read with a
 * single JSON-RPC `getMultipleAccounts` call: the mint account and its Metaplex metadata PDA.
 *
 * Used for tokens first seen mid-life (no CREATE event on our stream), when an RPC URL is
 * configured. Where the names come from, in order of preference:
 *
 * 1. The Token-2022 `tokenMetadata` extension stored in the mint account itself (pump.fun
 *    `create_v2` mints, PYUSD, USDP, ...). The RPC node parses it for us under `jsonParsed`.
 * 2. The Metaplex Token Metadata account at PDA `["metadata", program id, mint]` (classic SPL
 *    mints, and some Token-2022 mints). The RPC node has no parser for it, so it comes back as
 *    `[base64, "base64"]` and is decoded here (borsh).
 * 3. Neither: name and symbol are null; decimals and supply are still known.
 *
 * Sources for the wire shapes and layouts (public repositories; revisions as read):
 * - getMultipleAccounts: https://solana.com/docs/rpc/http/getmultipleaccounts — `result.value`
 *   is an array parallel to the requested keys, `null` where the account does not exist, else
 *   `{lamports, owner, data, executable, rentEpoch, space}`; with `jsonParsed`, `data` is
 *   `{program, parsed, space}` when the node has a parser, else `[base64, "base64"]`.
 *   Confirmed in anza-xyz/agave `account-decoder/src/lib.rs` @300281c2ca37f562b2efb31d94d0238128fa3d76
 *   (`UiAccount::encode`: JsonParsed falls back to `UiAccountData::Binary(base64, Base64)`).
 * - Parsed mint: anza-xyz/agave `account-decoder/src/parse_token.rs`
 *   @4adeabf20f2818aa5557dd45ad9ae5376db11253 and `account-decoder-client-types/src/token.rs`
 *   @0fde215ab05d67de9a5dfa378d9f20f311a0b06b: `TokenAccountType` is serialized
 *   `{type: "mint"|"account"|"multisig", info}`; `UiMint` is `{mintAuthority, supply: string
 *   (u64), decimals: u8, isInitialized, freezeAuthority, extensions?}` (extensions omitted when
 *   empty); `UiExtension` is `{extension: "<camelCase>", state?}`; `UiTokenMetadata` is
 *   `{updateAuthority, mint, name, symbol, uri, additionalMetadata}`.
 * - Metaplex `Metadata` account: metaplex-foundation/mpl-token-metadata
 *   `programs/token-metadata/program/src/state/metadata.rs` @538f5b9776c279ed1ef2b4b66b225b96d5fb38b9
 *   (`key: Key, update_authority: Pubkey, mint: Pubkey, data: Data{name: String, symbol:
 *   String, uri: String, ...}, ...`; borsh, so `String` = u32 LE byte length + UTF-8 bytes;
 *   `MAX_NAME_LENGTH` 32, `MAX_SYMBOL_LENGTH` 10, `MAX_URI_LENGTH` 200; the program's
 *   `puff_out_data_fields` right-pads the strings with NUL bytes to those lengths), `state/mod.rs`
 *   @6b2e869d92c8aedcbe9c83b06396b7b32e73a679 (`enum Key { Uninitialized = 0, ..., MetadataV1 = 4, ... }`),
 *   `pda.rs` @dbb55a136cd8096ee008ae688ddfe06fb4812040 (`find_metadata_account`: seeds
 *   `[PREFIX = "metadata", program id, mint]`) and `lib.rs` @d4db9493d47abe4791f35b3d4e87ef8c21da1d20
 *   (`declare_id!("metaqbxxUerdq28cj1RbAWkYQm3ybzjb6a8bt518x1s")`).
 *
 * Limitation: a Token-2022 mint whose `metadataPointer` points at an account other than the
 * mint itself (and that has no Metaplex metadata) gets null names; following the pointer would
 * need a second call.
 */
import { PublicKey } from '@solana/web3.js';

/**
 * What on-chain metadata says about a mint.
 *
 * - `mint`: the mint address (base58), as requested.
 * - `name` / `symbol`: trimmed, NUL padding removed, capped at {@link MAX_NAME_CHARS} /
 *   {@link MAX_SYMBOL_CHARS} characters (code points); null when absent or empty.
 * - `decimals`: from the mint account (u8, 0..255).
 * - `supplyRaw`: total supply in base units (u64, as a bigint); divide by 10^decimals for whole tokens.
 */
export interface TokenMetadata {
  readonly mint: string;
  readonly name: string | null;
  readonly symbol: string | null;
  readonly decimals: number;
  readonly supplyRaw: bigint;
}

/** Resolves a mint's on-chain metadata. */
export interface MetadataResolver {
  /**
   * The metadata of `mint` (base58 address).
   * @returns null when the mint account does not exist or is not a token mint (a token account,
   *   a wallet, a program, ...).
   * @throws MetadataError when the RPC is unreachable, times out, answers an HTTP or JSON-RPC
   *   error or a malformed answer, or when `mint` is not a valid address.
   */
  resolve(mint: string): Promise<TokenMetadata | null>;
}

/** Why a {@link MetadataError} happened. */
export type MetadataErrorKind =
  /** `mint` is not a base58 32-byte address; no request was sent. */
  | 'invalid-mint'
  /** The connection failed (DNS, refused, reset, TLS). */
  | 'unreachable'
  /** No complete answer within `timeoutMs`. */
  | 'timeout'
  /** The RPC answered a non-2xx HTTP status. */
  | 'http'
  /** The RPC answered a JSON-RPC error object. */
  | 'rpc'
  /** The answer is not the documented shape (bad JSON, envelope, account data, base64 or borsh). */
  | 'malformed';

/**
 * Resolving metadata failed for a reason other than "there is no such mint". `kind` tells which;
 * `cause` holds the underlying error when there is one. Messages name the RPC host only, never
 * the full URL (RPC URLs often carry an API key in their path or query).
 */
export class MetadataError extends Error {
  constructor(
    readonly kind: MetadataErrorKind,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'MetadataError';
  }
}

/** Options of {@link createRpcMetadataResolver}. */
export interface RpcMetadataResolverOptions {
  /** Solana JSON-RPC HTTP(S) endpoint, e.g. `https://api.mainnet-beta.solana.com`. */
  rpcUrl: string;
  /** Abort the request (connect, headers and body) after this many milliseconds (> 0). */
  timeoutMs: number;
  /** fetch implementation (default `globalThis.fetch`). */
  fetch?: typeof fetch;
}

/**
 * Metaplex Token Metadata program id (mainnet and devnet), as declared in
 * metaplex-foundation/mpl-token-metadata `programs/token-metadata/program/src/lib.rs`
 * (`declare_id!("metaqbxxUerdq28cj1RbAWkYQm3ybzjb6a8bt518x1s")`).
 */
export const METAPLEX_TOKEN_METADATA_PROGRAM_ID = 'metaqbxxUerdq28cj1RbAWkYQm3ybzjb6a8bt518x1s';

/** Cap on `name`, in characters (code points), after trimming. */
export const MAX_NAME_CHARS = 64;
/** Cap on `symbol`, in characters (code points), after trimming. */
export const MAX_SYMBOL_CHARS = 16;

const METAPLEX_PROGRAM = new PublicKey(METAPLEX_TOKEN_METADATA_PROGRAM_ID);
/** PDA seed prefix, `PREFIX = "metadata"` in mpl-token-metadata `pda.rs`. */
const METADATA_SEED = Buffer.from('metadata', 'utf8');
/** `Key::MetadataV1` (mpl-token-metadata `state/mod.rs`). */
const KEY_METADATA_V1 = 4;
/** `Key::Uninitialized`; the program accepts it where a Metadata is expected (zeroed data). */
const KEY_UNINITIALIZED = 0;
/** Byte offset of `data.name` in a Metadata account: key (1) + update_authority (32) + mint (32). */
const METAPLEX_NAME_OFFSET = 1 + 32 + 32;
/** Names of the token programs in `jsonParsed` answers (agave `ParsableAccount::SplToken(2022)`). */
const TOKEN_PROGRAM_NAMES = new Set(['spl-token', 'spl-token-2022']);
const U64_MAX = (1n << 64n) - 1n;
/** How much of a non-2xx body to quote in the error message. */
const ERROR_BODY_CHARS = 200;

/**
 * Address of the Metaplex metadata account of `mint`: the PDA of seeds
 * `["metadata", METAPLEX_TOKEN_METADATA_PROGRAM_ID, mint]` under the Metaplex Token Metadata
 * program (mpl-token-metadata `metadata_seeds!`), found with `PublicKey.findProgramAddressSync`.
 * @param mint base58 mint address.
 * @returns the base58 PDA.
 * @throws TypeError when `mint` is not a base58-encoded 32-byte address.
 */
export function metaplexMetadataAddress(mint: string): string {
  let mintKey: PublicKey;
  try {
    mintKey = new PublicKey(mint);
  } catch (err) {
    throw new TypeError(`not a Solana address: ${JSON.stringify(String(mint).slice(0, 64))}`, { cause: err });
  }
  const [pda] = PublicKey.findProgramAddressSync([METADATA_SEED, METAPLEX_PROGRAM.toBuffer(), mintKey.toBuffer()], METAPLEX_PROGRAM);
  return pda.toBase58();
}

/**
 * A {@link MetadataResolver} over Solana JSON-RPC. Each `resolve(mint)` sends exactly one
 * `POST` of `{"jsonrpc":"2.0","id":n,"method":"getMultipleAccounts","params":[[mint,
 * metadataPda],{"encoding":"jsonParsed","commitment":"confirmed"}]}` and aborts it after
 * `timeoutMs` (`AbortSignal.timeout`). Nothing is cached; callers cache.
 * @throws TypeError when `rpcUrl` is not an http(s) URL or `timeoutMs` is not a positive number.
 */
export function createRpcMetadataResolver(options: RpcMetadataResolverOptions): MetadataResolver {
  let url: URL;
  try {
    url = new URL(options.rpcUrl);
  } catch (err) {
    throw new TypeError('rpcUrl is not a URL', { cause: err });
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new TypeError(`rpcUrl must be http(s), got ${url.protocol}`);
  }
  const { timeoutMs } = options;
  if (!Number.isFinite(timeoutMs) || timeoutMs <= 0) {
    throw new TypeError(`timeoutMs must be a positive number, got ${timeoutMs}`);
  }
  const doFetch = options.fetch ?? globalThis.fetch.bind(globalThis);
  const rpcUrl = options.rpcUrl;
  const host = url.host;
  let nextId = 1;

  async function call(id: number, keys: readonly [string, string]): Promise<unknown> {
    const body = JSON.stringify({
      jsonrpc: '2.0',
      id,
      method: 'getMultipleAccounts',
      params: [keys, { encoding: 'jsonParsed', commitment: 'confirmed' }],
    });
    const signal = AbortSignal.timeout(timeoutMs);
    let text: string;
    try {
      const res = await doFetch(rpcUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body,
        signal,
      });
      text = await res.text();
      if (!res.ok) {
        const snippet = text.slice(0, ERROR_BODY_CHARS).trim();
        throw new MetadataError('http', `RPC ${host} answered HTTP ${res.status}${snippet ? `: ${snippet}` : ''}`);
      }
    } catch (err) {
      if (err instanceof MetadataError) throw err;
      if (signal.aborted) {
        throw new MetadataError('timeout', `RPC ${host} did not answer getMultipleAccounts within ${timeoutMs} ms`, {
          cause: err,
        });
      }
      const reason = err instanceof Error ? ((err.cause as Error | undefined)?.message ?? err.message) : String(err);
      throw new MetadataError('unreachable', `RPC ${host} unreachable: ${reason}`, { cause: err });
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (err) {
      throw new MetadataError('malformed', `RPC ${host} answered invalid JSON`, { cause: err });
    }
    if (!isRecord(json) || json['jsonrpc'] !== '2.0') {
      throw new MetadataError('malformed', `RPC ${host} answered something other than a JSON-RPC 2.0 response`);
    }
    const error = json['error'];
    if (error !== undefined && error !== null) {
      if (!isRecord(error)) throw new MetadataError('malformed', `RPC ${host} answered a malformed JSON-RPC error`);
      const code = typeof error['code'] === 'number' ? error['code'] : '?';
      const message = typeof error['message'] === 'string' ? error['message'] : 'no message';
      throw new MetadataError('rpc', `RPC ${host} getMultipleAccounts failed: JSON-RPC error ${code}: ${message}`, {
        cause: error,
      });
    }
    if (json['id'] !== id) {
      throw new MetadataError('malformed', `RPC ${host} answered id ${JSON.stringify(json['id'])}, expected ${id}`);
    }
    if (!('result' in json)) throw new MetadataError('malformed', `RPC ${host} answered neither result nor error`);
    return json['result'];
  }

  return {
    async resolve(mint: string): Promise<TokenMetadata | null> {
      let pda: string;
      try {
        pda = metaplexMetadataAddress(mint);
      } catch (err) {
        throw new MetadataError('invalid-mint', (err as Error).message, { cause: err });
      }
      const id = nextId++;
      const result = await call(id, [mint, pda]);
      try {
        return interpret(mint, result);
      } catch (err) {
        if (err instanceof MalformedAnswer) {
          throw new MetadataError('malformed', `RPC ${host} getMultipleAccounts answer for ${mint}: ${err.message}`, {
            cause: err,
          });
        }
        throw err;
      }
    },
  };
}

/** Internal: a shape check failed; turned into MetadataError('malformed') with host and mint. */
class MalformedAnswer extends Error {}

function malformed(message: string): never {
  throw new MalformedAnswer(message);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** An account entry of `result.value`: null or `{owner, data, ...}` (other fields unused). */
interface AccountEntry {
  readonly owner: string;
  readonly data: unknown;
}

function accountEntry(value: unknown, what: string): AccountEntry | null {
  if (value === null) return null;
  if (!isRecord(value)) malformed(`${what} is neither null nor an account object`);
  const owner = value['owner'];
  if (typeof owner !== 'string' || owner.length === 0) malformed(`${what} has no owner`);
  if (!('data' in value)) malformed(`${what} has no data`);
  return { owner, data: value['data'] };
}

/** The `{context, value: [mintAccount, metadataAccount]}` result → TokenMetadata | null. */
function interpret(mint: string, result: unknown): TokenMetadata | null {
  if (!isRecord(result)) malformed('result is not an object');
  const value = result['value'];
  if (!Array.isArray(value) || value.length !== 2) malformed('result.value is not an array of 2 entries');
  const mintAccount = accountEntry(value[0], 'mint account');
  const metadataAccount = accountEntry(value[1], 'metadata account');
  if (mintAccount === null) return null;

  const data = mintAccount.data;
  // Binary fallback (`[base64, "base64"]`, or a legacy base58 string): no parser applied, so
  // not a token-program account at all.
  if (Array.isArray(data) || typeof data === 'string') return null;
  if (!isRecord(data)) malformed('mint account data is neither parsed nor binary');
  const program = data['program'];
  const parsed = data['parsed'];
  if (typeof program !== 'string' || !isRecord(parsed)) malformed('mint account data lacks program/parsed');
  if (!TOKEN_PROGRAM_NAMES.has(program)) return null; // e.g. a stake or vote account
  if (parsed['type'] !== 'mint') return null; // a token account or multisig
  const info = parsed['info'];
  if (!isRecord(info)) malformed('parsed mint has no info');

  const decimals = info['decimals'];
  if (typeof decimals !== 'number' || !Number.isInteger(decimals) || decimals < 0 || decimals > 255) {
    malformed('mint decimals is not a u8');
  }
  const supplyText = info['supply'];
  if (typeof supplyText !== 'string' || !/^(0|[1-9][0-9]{0,19})$/.test(supplyText)) {
    malformed('mint supply is not a decimal string');
  }
  const supplyRaw = BigInt(supplyText);
  if (supplyRaw > U64_MAX) malformed('mint supply exceeds u64');

  let names = token2022Names(info['extensions']);
  if (names === null && metadataAccount !== null && metadataAccount.owner === METAPLEX_TOKEN_METADATA_PROGRAM_ID) {
    names = metaplexNames(mint, metadataAccount.data);
  }
  // An account at the PDA owned by anyone else (e.g. lamports sent to the address, leaving a
  // system account) carries no Metaplex metadata.
  return { mint, name: names?.name ?? null, symbol: names?.symbol ?? null, decimals, supplyRaw };
}

interface Names {
  readonly name: string | null;
  readonly symbol: string | null;
}

/** Names from the `tokenMetadata` extension; null when there is none or it has neither name nor symbol. */
function token2022Names(extensions: unknown): Names | null {
  if (extensions === undefined) return null;
  if (!Array.isArray(extensions)) malformed('mint extensions is not an array');
  for (const ext of extensions) {
    if (!isRecord(ext) || typeof ext['extension'] !== 'string') malformed('mint extension lacks its name');
    if (ext['extension'] !== 'tokenMetadata') continue;
    const state = ext['state'];
    if (!isRecord(state)) malformed('tokenMetadata extension has no state');
    const name = state['name'];
    const symbol = state['symbol'];
    if (typeof name !== 'string' || typeof symbol !== 'string') {
      malformed('tokenMetadata extension name/symbol are not strings');
    }
    const names = { name: clean(name, MAX_NAME_CHARS), symbol: clean(symbol, MAX_SYMBOL_CHARS) };
    return names.name === null && names.symbol === null ? null : names;
  }
  return null;
}

const STRICT_BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const utf8 = new TextDecoder('utf-8', { fatal: true });

/** Names from a Metaplex Metadata account's `[base64, "base64"]` data (borsh, see module doc). */
function metaplexNames(mint: string, data: unknown): Names | null {
  if (!Array.isArray(data) || data.length !== 2 || data[1] !== 'base64' || typeof data[0] !== 'string') {
    malformed('metadata account data is not [base64, "base64"]');
  }
  const encoded: string = data[0];
  if (!STRICT_BASE64.test(encoded)) malformed('metadata account data is not valid base64');
  const bytes = Buffer.from(encoded, 'base64');
  if (bytes.length === 0) malformed('metadata account data is empty');
  const key = bytes[0];
  if (key === KEY_UNINITIALIZED) return null;
  if (key !== KEY_METADATA_V1) malformed(`metadata account key is ${key}, not MetadataV1 (4)`);
  if (bytes.length < METAPLEX_NAME_OFFSET) malformed('metadata account shorter than its header');
  const recordedMint = new PublicKey(bytes.subarray(1 + 32, METAPLEX_NAME_OFFSET)).toBase58();
  if (recordedMint !== mint) malformed(`metadata account is for mint ${recordedMint}`);
  let offset = METAPLEX_NAME_OFFSET;
  const readString = (field: string): string => {
    if (offset + 4 > bytes.length) malformed(`metadata ${field} length runs past the data`);
    const length = bytes.readUInt32LE(offset);
    offset += 4;
    if (length > bytes.length - offset) malformed(`metadata ${field} (${length} bytes) runs past the data`);
    const slice = bytes.subarray(offset, offset + length);
    offset += length;
    try {
      return utf8.decode(slice);
    } catch {
      return malformed(`metadata ${field} is not UTF-8`);
    }
  };
  const name = readString('name');
  const symbol = readString('symbol');
  return { name: clean(name, MAX_NAME_CHARS), symbol: clean(symbol, MAX_SYMBOL_CHARS) };
}

/** Drops NUL padding, trims, caps at `max` code points; empty → null. */
function clean(raw: string, max: number): string | null {
  const trimmed = raw.replace(/\u0000/g, '').trim();
  if (trimmed.length === 0) return null;
  const chars = Array.from(trimmed);
  return chars.length <= max ? trimmed : chars.slice(0, max).join('').trimEnd();
}
