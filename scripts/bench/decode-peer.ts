/**
 * The peer in `npm run bench -- decode`: the open-source `solana-dex-parser`
 * (`new DexParser().parseAll(tx, config)`), run on the same recorded transactions as our decoder.
 *
 * It is a different job, not the same one done by someone else: the peer returns one `ParseResult`
 * per transaction (trades as `TradeInfo` {type, inputToken, outputToken, user, programId, amm, idx,
 * ...}, pool events as `PoolEvent`, launchpad events as `MemeEvent`, plus transfers, fee, signer SOL
 * and token balance changes), where we return one flat trade message per instruction with pool
 * reserves, prices and names. Restricted to the same four programs with `programIds` and
 * `tryUnknowDEX: false` (see {@link PEER_CONFIG}).
 *
 * Peer input. solana-dex-parser takes what @solana/web3.js 1.x `connection.getTransaction(sig,
 * {maxSupportedTransactionVersion: 0})` or `getParsedTransaction` return, so a peer user pays
 * web3.js' conversion of the RPC JSON (PublicKey objects, Message classes). {@link peerInput}
 * rebuilds that shape from the raw RPC JSON with web3.js' own classes, as
 * services/ingest/test/peer-parser.test.ts does (copied from there: a test file cannot be
 * imported; keep the two in step):
 *  - json: `MessageV0` (version 0), `MessageV1` with the response's `transactionConfig` (version 1) or
 *    `Message` (legacy) from the compiled fields, as web3.js' `versionedMessageFromResponse` does;
 *  - base64: `VersionedTransaction.deserialize` of the wire bytes, signatures re-encoded base58;
 *  - jsonParsed: a `ParsedTransactionWithMeta` (PublicKey program ids and accounts).
 * web3.js and the peer are loaded through `require`, so the peer's `instanceof PublicKey` checks
 * see the same (CommonJS) web3.js instance as the objects built here.
 */
import bs58 from 'bs58';
import { createRequire } from 'node:module';
import type {
  CompiledInnerInstruction,
  ConfirmedTransactionMeta,
  LoadedAddresses,
  MessageHeader,
  ParsedInnerInstruction,
  ParsedInstruction,
  ParsedTransactionMeta,
  ParsedTransactionWithMeta,
  PartiallyDecodedInstruction,
  TokenBalance,
  TransactionConfig,
  TransactionError,
  TransactionVersion,
  VersionedMessage,
  VersionedTransactionResponse,
} from '@solana/web3.js';
import type { ParseConfig, ParseResult, SolanaTransaction } from 'solana-dex-parser';

const require = createRequire(import.meta.url);
// Both are CommonJS packages; `require` returns them untyped, the casts give them their own .d.ts types.
const web3 = require('@solana/web3.js') as typeof import('@solana/web3.js');
const peer = require('solana-dex-parser') as typeof import('solana-dex-parser');


// ---------------------------------------------------------------------------------------------
// Raw RPC JSON shapes (what the recording files hold)
// ---------------------------------------------------------------------------------------------

interface RawCompiledInstruction {
  programIdIndex: number;
  accounts: number[];
  data: string;
  stackHeight?: number | null;
}
interface RawParsedInstruction {
  programId: string;
  program?: string;
  parsed?: unknown;
  accounts?: string[];
  data?: string;
  stackHeight?: number | null;
}
interface RawLookup {
  accountKey: string;
  writableIndexes: number[];
  readonlyIndexes: number[];
}
interface RawJsonMessage {
  accountKeys: string[];
  header: MessageHeader;
  recentBlockhash: string;
  instructions: RawCompiledInstruction[];
  addressTableLookups?: RawLookup[] | null;
  /** v1 (SIMD-0385) json responses only. */
  transactionConfig?: TransactionConfig | null;
}
interface RawParsedMessage {
  accountKeys: { pubkey: string; signer: boolean; writable: boolean; source?: 'transaction' | 'lookupTable' }[];
  recentBlockhash: string;
  instructions: RawParsedInstruction[];
  addressTableLookups?: RawLookup[] | null;
}
interface RawMeta {
  err: TransactionError | null;
  fee: number;
  preBalances: number[];
  postBalances: number[];
  innerInstructions?: { index: number; instructions: (RawCompiledInstruction | RawParsedInstruction)[] }[] | null;
  logMessages?: string[] | null;
  preTokenBalances?: TokenBalance[] | null;
  postTokenBalances?: TokenBalance[] | null;
  loadedAddresses?: { writable: string[]; readonly: string[] } | null;
  computeUnitsConsumed?: number;
}
interface RawTransaction {
  slot?: number;
  blockTime?: number | null;
  version?: TransactionVersion;
  meta: RawMeta;
  transaction: [string, string] | { signatures: string[]; message: RawJsonMessage | RawParsedMessage };
}
const pk = (s: string): InstanceType<typeof web3.PublicKey> => new web3.PublicKey(s);

function loaded(l: RawMeta['loadedAddresses']): LoadedAddresses | undefined {
  return l ? { writable: l.writable.map(pk), readonly: l.readonly.map(pk) } : undefined;
}

function lookups(list: RawLookup[] | null | undefined): { accountKey: InstanceType<typeof web3.PublicKey>; writableIndexes: number[]; readonlyIndexes: number[] }[] {
  return (list ?? []).map((l) => ({ accountKey: pk(l.accountKey), writableIndexes: l.writableIndexes, readonlyIndexes: l.readonlyIndexes }));
}

/** getTransaction meta (json / base64 encodings): compiled inner instructions stay as the RPC sent them. */
function compiledMeta(m: RawMeta): ConfirmedTransactionMeta {
  return {
    ...m,
    innerInstructions: m.innerInstructions as CompiledInnerInstruction[] | null | undefined,
    loadedAddresses: loaded(m.loadedAddresses),
  };
}

/**
 * json encoding: as web3.js' versionedMessageFromResponse — MessageV0 for version 0, MessageV1 (with
 * the response's transactionConfig) for version 1, Message for legacy.
 */
function jsonMessage(version: TransactionVersion | undefined, m: RawJsonMessage): VersionedMessage {
  const compiled = {
    header: m.header,
    staticAccountKeys: m.accountKeys.map(pk),
    recentBlockhash: m.recentBlockhash,
    compiledInstructions: m.instructions.map((ix) => ({ programIdIndex: ix.programIdIndex, accountKeyIndexes: ix.accounts, data: bs58.decode(ix.data) })),
  };
  if (version === 0) return new web3.MessageV0({ ...compiled, addressTableLookups: lookups(m.addressTableLookups) });
  if (version === 1) {
    if (!m.transactionConfig) throw new Error('version 1 json message without transactionConfig');
    return new web3.MessageV1({ ...compiled, transactionConfig: m.transactionConfig });
  }
  return new web3.Message({ header: m.header, accountKeys: m.accountKeys, recentBlockhash: m.recentBlockhash, instructions: m.instructions });
}

function parsedInstruction(ix: RawParsedInstruction): ParsedInstruction | PartiallyDecodedInstruction {
  if ('parsed' in ix) return { ...ix, programId: pk(ix.programId), program: ix.program ?? '', parsed: ix.parsed } as ParsedInstruction;
  return { ...ix, programId: pk(ix.programId), accounts: (ix.accounts ?? []).map(pk), data: ix.data ?? '' };
}

function isParsedMessage(m: RawJsonMessage | RawParsedMessage): m is RawParsedMessage {
  return typeof m.accountKeys[0] === 'object';
}
/**
 * The web3.js response object solana-dex-parser expects, built from one getTransaction result
 * (a `{jsonrpc, result}` envelope is unwrapped). Throws Error on a version 1 json message without
 * `transactionConfig`, and whatever web3.js throws on malformed keys or wire bytes.
 */
export function peerInput(rawJson: unknown): SolanaTransaction {
  const obj = rawJson as { result?: unknown };
  const raw = (obj.result ?? rawJson) as RawTransaction;
  const common = { slot: raw.slot ?? 0 /* absent in some captures; unused for amounts */, blockTime: raw.blockTime ?? null, version: raw.version };
  const t = raw.transaction;
  if (Array.isArray(t)) {
    const vt = web3.VersionedTransaction.deserialize(Buffer.from(t[0], 'base64'));
    const signatures = vt.signatures.map((s) => bs58.encode(s));
    const tx: VersionedTransactionResponse = { ...common, meta: compiledMeta(raw.meta), transaction: { message: vt.message, signatures } };
    return tx;
  }
  const m = t.message;
  if (isParsedMessage(m)) {
    const meta: ParsedTransactionMeta = {
      ...raw.meta,
      innerInstructions: raw.meta.innerInstructions?.map(
        (g): ParsedInnerInstruction => ({ index: g.index, instructions: g.instructions.map((ix) => parsedInstruction(ix as RawParsedInstruction)) }),
      ),
      logMessages: raw.meta.logMessages ?? null,
      loadedAddresses: loaded(raw.meta.loadedAddresses),
    };
    const tx: ParsedTransactionWithMeta = {
      ...common,
      meta,
      transaction: {
        signatures: t.signatures,
        message: {
          accountKeys: m.accountKeys.map((k) => ({ ...k, pubkey: pk(k.pubkey) })),
          instructions: m.instructions.map(parsedInstruction),
          recentBlockhash: m.recentBlockhash,
          addressTableLookups: m.addressTableLookups ? lookups(m.addressTableLookups) : m.addressTableLookups,
        },
      },
    };
    return tx;
  }
  const tx: VersionedTransactionResponse = { ...common, meta: compiledMeta(raw.meta), transaction: { signatures: t.signatures, message: jsonMessage(raw.version, m) } };
  return tx;
}

/**
 * The peer's parse restricted to our four programs (pump.fun, Raydium LaunchLab, PumpSwap,
 * Raydium CPMM, by the peer's own DEX_PROGRAMS ids): other programs' instructions are skipped and
 * no unknown-DEX heuristics run. One exception is the peer's own: a transaction routed through
 * Jupiter is answered by its Jupiter parser (checked before the programIds filter), as route trades.
 */
export const PEER_CONFIG: ParseConfig = {
  programIds: [peer.DEX_PROGRAMS.PUMP_FUN.id, peer.DEX_PROGRAMS.RAYDIUM_LCP.id, peer.DEX_PROGRAMS.PUMP_SWAP.id, peer.DEX_PROGRAMS.RAYDIUM_CPMM.id],
  tryUnknowDEX: false,
};

/** Installed solana-dex-parser version, printed beside its figure. */
export const PEER_VERSION = (require('solana-dex-parser/package.json') as { version: string }).version;

const parser = new peer.DexParser();

/** `parseAll` of the peer on a {@link peerInput} object with {@link PEER_CONFIG}. */
export function peerParse(tx: SolanaTransaction): ParseResult {
  return parser.parseAll(tx, PEER_CONFIG);
}

/**
 * JSON text of a peer result, for the bench's serialise step. The peer's results hold bigints
 * (launchpad event reserves and amounts; JSON.stringify throws on them) and a Map
 * (`tokenBalanceChange`, which JSON.stringify would write as `{}`), so a replacer writes bigints as
 * decimal strings and Maps as objects: the least a peer user must do to get JSON out.
 */
export function peerResultJson(res: ParseResult): string {
  return JSON.stringify(res, peerJsonReplacer);
}

function peerJsonReplacer(_key: string, v: unknown): unknown {
  return typeof v === 'bigint' ? v.toString() : v instanceof Map ? Object.fromEntries(v) : v;
}
