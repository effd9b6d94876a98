/**
 * Recorded getTransaction results → the web3.js objects the peer parser `solana-dex-parser` reads,
 * shared by ingest's peer comparison (services/ingest/test/peer-parser.test.ts) and the decode
 * bench's peer figure (scripts/bench/decode-peer.ts), both importing `@tradewind/dev/peer-input`.
 * A subpath of its own, not in `@tradewind/dev`'s index: it loads @solana/web3.js, which nothing
 * else of the development workspace needs (web3.js and the peer are devDependencies of
 * @tradewind/dev, so the stand-ins image, `npm ci --omit=dev --workspace dev`, holds neither). web3.js and the peer are CommonJS: both are loaded with
 * `require`, so the peer sees the same web3.js instance as the objects built here.
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
import type { SolanaTransaction } from 'solana-dex-parser';

const require = createRequire(import.meta.url);
const web3 = require('@solana/web3.js') as typeof import('@solana/web3.js');

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

/** The getTransaction result inside a `{jsonrpc, result}` envelope, or the value itself. */
function unwrapRaw(raw: unknown): RawTransaction {
  // The recording holds getTransaction results (or a {jsonrpc, result} envelope around one).
  const obj = raw as { result?: unknown };
  return (obj.result ?? raw) as RawTransaction;
}

// ---------------------------------------------------------------------------------------------
// Raw JSON → what web3.js' Connection would hand the peer
// ---------------------------------------------------------------------------------------------

const pk = (s: string): InstanceType<typeof web3.PublicKey> => new web3.PublicKey(s);

function loaded(l: RawMeta['loadedAddresses']): LoadedAddresses | undefined {
  return l ? { writable: l.writable.map(pk), readonly: l.readonly.map(pk) } : undefined;
}

function lookups(
  list: RawLookup[] | null | undefined,
): { accountKey: InstanceType<typeof web3.PublicKey>; writableIndexes: number[]; readonlyIndexes: number[] }[] {
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

/** What the peer parses, with how the capture was encoded and its first signature. */
export interface PeerInput {
  encoding: 'json' | 'jsonParsed' | 'base64';
  tx: SolanaTransaction;
  /** First signature of the rebuilt transaction (checked against the file name). */
  signature: string;
}

/**
 * The web3.js response object solana-dex-parser expects (what a web3.js `Connection` would hand
 * it), built from one getTransaction result in json, jsonParsed or base64 encoding (a `{jsonrpc,
 * result}` envelope is unwrapped). Throws Error on a version 1 json message without
 * `transactionConfig`, and whatever web3.js throws on malformed keys or wire bytes.
 */
export function peerInput(rawJson: unknown): PeerInput {
  const raw = unwrapRaw(rawJson);
  const common = { slot: raw.slot ?? 0 /* absent in some captures; unused for amounts */, blockTime: raw.blockTime ?? null, version: raw.version };
  const t = raw.transaction;
  if (Array.isArray(t)) {
    const vt = web3.VersionedTransaction.deserialize(Buffer.from(t[0], 'base64'));
    const signatures = vt.signatures.map((s) => bs58.encode(s));
    const tx: VersionedTransactionResponse = { ...common, meta: compiledMeta(raw.meta), transaction: { message: vt.message, signatures } };
    return { encoding: 'base64', tx, signature: signatures[0] ?? '' };
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
    return { encoding: 'jsonParsed', tx, signature: t.signatures[0] ?? '' };
  }
  const tx: VersionedTransactionResponse = {
    ...common,
    meta: compiledMeta(raw.meta),
    transaction: { signatures: t.signatures, message: jsonMessage(raw.version, m) },
  };
  return { encoding: 'json', tx, signature: t.signatures[0] ?? '' };
}
