/**
 * A local Yellowstone ("Dragon's Mouth") Geyser gRPC server for tests: service
 * `geyser.Geyser` over HTTP/2 with @grpc/grpc-js, messages (de)serialised with
 * the codecs `@triton-one/yellowstone-grpc` itself uses (ts-proto generated from
 * geyser.proto / solana-storage.proto on top of @bufbuild/protobuf's wire
 * reader/writer), so the client under test talks to it exactly as to a real node.
 *
 * It serves recorded mainnet transactions (getTransaction JSON, rebuilt into
 * protobuf `SubscribeUpdateTransactionInfo` by {@link geyserTransactionFromRpc})
 * as a short chain: per slot, the matching transaction updates, then the
 * BlockMeta, then the slot status, the order the real server uses at every
 * commitment (yellowstone-grpc-geyser: a bank's transactions stream as they
 * execute; BlockMeta and the slot status follow when the bank is done). It
 * honours the request's transaction filters (vote, failed, signature,
 * accountInclude/Exclude/Required), slots filter (filterByCommitment),
 * blocksMeta, commitment and `fromSlot` (replay from that slot, or INTERNAL
 * "broadcast from N is not available, last available: M" below
 * `firstAvailableSlot`), sends a ping every `pingIntervalMs` and answers client
 * pings with a pong, as the real server does.
 *
 * Clients connect through a TCP relay owned by the server, so a test can cut
 * every connection mid-stream ({@link GeyserTestServer.dropConnections},
 * {@link GeyserTestServer.dropAfterTransactions},
 * {@link GeyserTestServer.dropNextSubscribes}), take the server down
 * ({@link GeyserTestServer.stop}: connections refused) and bring it back on the
 * same port ({@link GeyserTestServer.restart}).
 */
import { once } from 'node:events';
import { readFile } from 'node:fs/promises';
import net from 'node:net';
import bs58 from 'bs58';
import * as grpc from '@grpc/grpc-js';
import {
  CommitmentLevel,
  GetBlockHeightRequest,
  GetBlockHeightResponse,
  GetLatestBlockhashRequest,
  GetLatestBlockhashResponse,
  GetSlotRequest,
  GetSlotResponse,
  GetVersionRequest,
  GetVersionResponse,
  IsBlockhashValidRequest,
  IsBlockhashValidResponse,
  PingRequest,
  PongResponse,
  SlotStatus,
  SubscribeReplayInfoRequest,
  SubscribeReplayInfoResponse,
  SubscribeRequest,
  SubscribeUpdate,
  SubscribeUpdateTransactionInfo,
  type SubscribeRequestFilterTransactions,
} from '@triton-one/yellowstone-grpc';
import { parseWireTransaction } from '../../src/decode/wire.js';
import { listJsonFiles } from '../../src/replay/recording.js';

type Obj = Record<string, unknown>;
type TransactionInfo = SubscribeUpdateTransactionInfo;
type Meta = NonNullable<TransactionInfo['meta']>;
type CompiledInstruction = NonNullable<NonNullable<TransactionInfo['transaction']>['message']>['instructions'][number];
type InnerInstruction = Meta['innerInstructions'][number]['instructions'][number];

const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

function need<T>(v: T | undefined | null, what: string): T {
  if (v === undefined || v === null) throw new Error(`recorded transaction: ${what} is missing`);
  return v;
}

function u64le(value: bigint | number | string): Uint8Array {
  const b = Buffer.alloc(8);
  b.writeBigUInt64LE(BigInt(value));
  return b;
}

/**
 * jsonParsed captures replace System / SPL Token instructions by a `parsed`
 * object; the node streams their real bytes, so they are re-encoded here from
 * the parsed fields (layouts: solana-system-interface `SystemInstruction`,
 * spl-token `TokenInstruction`). Only the kinds the recording holds are known;
 * any other kind fails loudly so a new capture cannot be served wrongly.
 */
function reencodeParsed(raw: Obj, keyIndex: (k: unknown) => number, what: string): { accounts: number[]; data: Uint8Array } {
  const parsed = raw.parsed;
  if (!isObj(parsed) || !isObj(parsed.info)) throw new Error(`${what}: parsed instruction without info`);
  const info = parsed.info;
  const kind = `${String(raw.program)}/${String(parsed.type)}`;
  switch (kind) {
    case 'system/transfer': {
      const data = Buffer.alloc(12);
      data.writeUInt32LE(2, 0);
      data.set(u64le(info.lamports as number), 4);
      return { accounts: [keyIndex(info.source), keyIndex(info.destination)], data };
    }
    case 'spl-token/transfer':
      return {
        accounts: [keyIndex(info.source), keyIndex(info.destination), keyIndex(info.authority ?? info.multisigAuthority)],
        data: Buffer.concat([Buffer.from([3]), u64le(info.amount as string)]),
      };
    case 'spl-token/transferChecked': {
      const amount = need(isObj(info.tokenAmount) ? info.tokenAmount : undefined, `${what}.tokenAmount`);
      return {
        accounts: [keyIndex(info.source), keyIndex(info.mint), keyIndex(info.destination), keyIndex(info.authority ?? info.multisigAuthority)],
        data: Buffer.concat([Buffer.from([12]), u64le(amount.amount as string), Buffer.from([amount.decimals as number])]),
      };
    }
    default:
      throw new Error(`${what}: cannot rebuild the bytes of jsonParsed instruction ${kind}; extend reencodeParsed`);
  }
}

/** One instruction of a json / jsonParsed capture → compiled (index-based) form. */
function compileJsonInstruction(raw: unknown, keys: string[], what: string): InnerInstruction {
  if (!isObj(raw)) throw new Error(`${what} is not an object`);
  const stackHeight = typeof raw.stackHeight === 'number' ? raw.stackHeight : undefined;
  if (typeof raw.programIdIndex === 'number') {
    return {
      programIdIndex: raw.programIdIndex,
      accounts: Uint8Array.from(raw.accounts as number[]),
      data: bs58.decode(raw.data as string),
      stackHeight,
    };
  }
  const keyIndex = (k: unknown): number => {
    const i = keys.indexOf(k as string);
    if (i < 0) throw new Error(`${what}: account ${String(k)} is not in the account list`);
    return i;
  };
  const programIdIndex = keyIndex(raw.programId);
  if ('parsed' in raw) {
    const { accounts, data } = reencodeParsed(raw, keyIndex, what);
    return { programIdIndex, accounts: Uint8Array.from(accounts), data, stackHeight };
  }
  return { programIdIndex, accounts: Uint8Array.from((raw.accounts as string[]).map(keyIndex)), data: bs58.decode(raw.data as string), stackHeight };
}

/**
 * bincode of a Solana `TransactionError` as Yellowstone puts it in meta.err
 * (enum variant index u32 LE, then fields). Only the shapes tests need:
 * `{InstructionError: [index, {Custom: code}]}` (variants 8 and 25 of
 * solana-transaction-error / solana-instruction-error) and unit variants by name.
 */
export function encodeTransactionError(err: unknown): Uint8Array {
  const UNIT = [
    'AccountInUse',
    'AccountLoadedTwice',
    'AccountNotFound',
    'ProgramAccountNotFound',
    'InsufficientFundsForFee',
    'InvalidAccountForFee',
    'AlreadyProcessed',
    'BlockhashNotFound',
  ];
  if (typeof err === 'string' && UNIT.includes(err)) return u32le(UNIT.indexOf(err));
  if (isObj(err) && Array.isArray(err.InstructionError)) {
    const [index, inner] = err.InstructionError as [number, unknown];
    if (isObj(inner) && typeof inner.Custom === 'number') {
      return Buffer.concat([u32le(8), Buffer.from([index]), u32le(25), u32le(inner.Custom)]);
    }
  }
  throw new Error(`encodeTransactionError: unsupported error ${JSON.stringify(err)}`);
}

function u32le(n: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32LE(n);
  return b;
}

function tokenBalances(v: unknown): Meta['preTokenBalances'] {
  if (!Array.isArray(v)) return [];
  return v.map((b: Obj) => {
    const ui = b.uiTokenAmount as Obj;
    return {
      accountIndex: b.accountIndex as number,
      mint: b.mint as string,
      uiTokenAmount: {
        uiAmount: (ui.uiAmount as number | null) ?? 0,
        decimals: ui.decimals as number,
        amount: ui.amount as string,
        uiAmountString: (ui.uiAmountString as string | undefined) ?? '',
      },
      owner: typeof b.owner === 'string' ? b.owner : '',
      programId: typeof b.programId === 'string' ? b.programId : '',
    };
  });
}

/**
 * Rebuilds the protobuf `SubscribeUpdateTransactionInfo` a Yellowstone node
 * streams for a transaction, from its getTransaction result (encodings json,
 * jsonParsed, base64; legacy, v0 and v1 messages; a `{jsonrpc, result}` envelope
 * is unwrapped): signatures, message header, static account keys, recent
 * blockhash, compiled instructions, address table lookups, and meta (err as
 * bincode, fee, balances, inner instructions with stack heights, logs, token
 * balances, loaded writable/readonly addresses, compute units).
 *
 * Not carried over: rewards and return data (no recorded trade has them) and the
 * v1 TransactionConfig values (the shared wire parser skips them; they do not
 * affect decoding). Returns the capture's slot and blockTime (seconds) too, null
 * when absent. Throws Error on input it cannot rebuild faithfully.
 */
export function geyserTransactionFromRpc(input: unknown): { info: TransactionInfo; slot: number | null; blockTime: number | null } {
  if (!isObj(input)) throw new Error('recorded transaction is not an object');
  const root = isObj(input.result) && 'jsonrpc' in input ? input.result : input;
  const meta = need(isObj(root.meta) ? root.meta : undefined, 'meta');
  const tx = root.transaction;
  const loaded = isObj(meta.loadedAddresses) ? meta.loadedAddresses : { writable: [], readonly: [] };
  let loadedWritable = (loaded.writable as string[] | undefined) ?? [];
  let loadedReadonly = (loaded.readonly as string[] | undefined) ?? [];

  let signatures: string[];
  let header: { numRequiredSignatures: number; numReadonlySignedAccounts: number; numReadonlyUnsignedAccounts: number };
  let staticKeys: string[];
  let recentBlockhash: string;
  let versioned: boolean;
  let lookups: { accountKey: string; writableIndexes: number[]; readonlyIndexes: number[] }[];
  let outer: CompiledInstruction[];
  let allKeys: string[];

  if (Array.isArray(tx)) {
    const [payload, encoding] = tx as [string, string];
    if (encoding !== 'base64') throw new Error(`unsupported transaction encoding ${encoding}`);
    const wire = parseWireTransaction(Buffer.from(payload, 'base64'));
    signatures = wire.signatures;
    header = {
      numRequiredSignatures: wire.header.numRequiredSignatures,
      numReadonlySignedAccounts: wire.header.numReadonlySigned,
      numReadonlyUnsignedAccounts: wire.header.numReadonlyUnsigned,
    };
    staticKeys = wire.staticAccountKeys;
    recentBlockhash = wire.recentBlockhash;
    versioned = wire.version !== 'legacy';
    lookups = wire.addressTableLookups;
    outer = wire.instructions.map((ix) => ({ programIdIndex: ix.programIdIndex, accounts: Uint8Array.from(ix.accounts), data: ix.data }));
    allKeys = [...staticKeys, ...loadedWritable, ...loadedReadonly];
  } else if (isObj(tx) && isObj(tx.message)) {
    const msg = tx.message;
    signatures = tx.signatures as string[];
    recentBlockhash = msg.recentBlockhash as string;
    versioned = root.version !== undefined && root.version !== 'legacy';
    lookups = ((msg.addressTableLookups as typeof lookups | null | undefined) ?? []).map((l) => ({ ...l }));
    const keys = msg.accountKeys as unknown[];
    if (keys.every((k) => typeof k === 'string')) {
      staticKeys = keys as string[];
      header = need(msg.header as typeof header | undefined, 'message.header');
    } else {
      // jsonParsed: every account with its flags; lookup-table ones carry source "lookupTable".
      const parsed = keys as { pubkey: string; signer: boolean; writable: boolean; source?: string }[];
      const stat = parsed.filter((k) => k.source !== 'lookupTable');
      staticKeys = stat.map((k) => k.pubkey);
      loadedWritable = parsed.filter((k) => k.source === 'lookupTable' && k.writable).map((k) => k.pubkey);
      loadedReadonly = parsed.filter((k) => k.source === 'lookupTable' && !k.writable).map((k) => k.pubkey);
      header = {
        numRequiredSignatures: stat.filter((k) => k.signer).length,
        numReadonlySignedAccounts: stat.filter((k) => k.signer && !k.writable).length,
        numReadonlyUnsignedAccounts: stat.filter((k) => !k.signer && !k.writable).length,
      };
    }
    allKeys = [...staticKeys, ...loadedWritable, ...loadedReadonly];
    outer = (msg.instructions as unknown[]).map((raw, i) => {
      const { programIdIndex, accounts, data } = compileJsonInstruction(raw, allKeys, `instruction ${i}`);
      return { programIdIndex, accounts, data };
    });
  } else {
    throw new Error('"transaction" is neither an object nor [payload, encoding]');
  }

  const innerRaw = meta.innerInstructions;
  const innerInstructions: Meta['innerInstructions'] = Array.isArray(innerRaw)
    ? innerRaw.map((g: Obj) => ({
        index: g.index as number,
        instructions: (g.instructions as unknown[]).map((raw, j) => compileJsonInstruction(raw, allKeys, `inner instruction ${String(g.index)}.${j}`)),
      }))
    : [];
  const logs = meta.logMessages;
  const signature = need(signatures[0], 'signature');
  const info = SubscribeUpdateTransactionInfo.fromPartial({
    signature: bs58.decode(signature),
    isVote: false,
    transaction: {
      signatures: signatures.map((s) => bs58.decode(s)),
      message: {
        header,
        accountKeys: staticKeys.map((k) => bs58.decode(k)),
        recentBlockhash: bs58.decode(recentBlockhash),
        instructions: outer,
        versioned,
        addressTableLookups: lookups.map((l) => ({
          accountKey: bs58.decode(l.accountKey),
          writableIndexes: Uint8Array.from(l.writableIndexes),
          readonlyIndexes: Uint8Array.from(l.readonlyIndexes),
        })),
      },
    },
    meta: {
      err: meta.err === null || meta.err === undefined ? undefined : { err: encodeTransactionError(meta.err) },
      fee: String(meta.fee ?? 0),
      preBalances: ((meta.preBalances as number[] | undefined) ?? []).map(String),
      postBalances: ((meta.postBalances as number[] | undefined) ?? []).map(String),
      innerInstructions,
      innerInstructionsNone: !Array.isArray(innerRaw),
      logMessages: Array.isArray(logs) ? (logs as string[]) : [],
      logMessagesNone: !Array.isArray(logs),
      preTokenBalances: tokenBalances(meta.preTokenBalances),
      postTokenBalances: tokenBalances(meta.postTokenBalances),
      rewards: [],
      loadedWritableAddresses: loadedWritable.map((k) => bs58.decode(k)),
      loadedReadonlyAddresses: loadedReadonly.map((k) => bs58.decode(k)),
      returnDataNone: true,
      computeUnitsConsumed: typeof meta.computeUnitsConsumed === 'number' ? String(meta.computeUnitsConsumed) : undefined,
      costUnits: typeof meta.costUnits === 'number' ? String(meta.costUnits) : undefined,
    },
    index: String(typeof root.transactionIndex === 'number' ? root.transactionIndex : 0),
  });
  return { info, slot: typeof root.slot === 'number' ? root.slot : null, blockTime: typeof root.blockTime === 'number' ? root.blockTime : null };
}

/** One transaction the server streams. */
export interface ServedTransaction {
  slot: number;
  /** Block time of the slot, Unix seconds; null = its BlockMeta carries none. */
  blockTime: number | null;
  info: TransactionInfo;
}

/** A recorded file, its parsed JSON and the transaction rebuilt from it. */
export interface RecordedGeyserTransaction extends ServedTransaction {
  path: string;
  raw: unknown;
  /** True when the capture had no slot and {@link ServedTransaction.slot} was made up. */
  syntheticSlot: boolean;
}

/**
 * Loads every getTransaction JSON under `dir` and rebuilds each as a streamed
 * transaction, sorted by slot. Captures without a slot (blockSubscribe copies)
 * get SYNTHETIC slots after the highest real one, one per file in path order,
 * and no block time: their real place on the chain is unknown.
 */
export async function loadRecordedGeyserTransactions(dir: string): Promise<RecordedGeyserTransaction[]> {
  const out: RecordedGeyserTransaction[] = [];
  for (const path of await listJsonFiles(dir)) {
    const raw: unknown = JSON.parse(await readFile(path, 'utf8'));
    const { info, slot, blockTime } = geyserTransactionFromRpc(raw);
    out.push({ path, raw, info, slot: slot ?? -1, blockTime, syntheticSlot: slot === null });
  }
  let next = Math.max(0, ...out.map((t) => t.slot)) + 1;
  for (const t of out) if (t.syntheticSlot) t.slot = next++;
  return out.sort((a, b) => a.slot - b.slot);
}

/** Options of {@link GeyserTestServer}. */
export interface GeyserTestServerOptions {
  /** What the chain holds; served in slot order (stable for equal slots). */
  transactions: readonly ServedTransaction[];
  /** The chain goes on, without trades, up to this slot (slot updates and BlockMetas only). */
  tipSlot?: number;
  /** Server ping period, ms. The real server pings every 10 s. Default 10 000. */
  pingIntervalMs?: number;
  /** Oldest slot `fromSlot` may name; older → INTERNAL "broadcast from N is not available". Default 0. */
  firstAvailableSlot?: number;
  /** Pause between slots, ms. Default 0 (yield to the event loop only). */
  slotIntervalMs?: number;
  /** Block time used for slots with none (Unix seconds); default none. */
  defaultBlockTime?: number;
}

/** One Subscribe call as the server saw it. */
export interface SubscribeCallRecord {
  /** Every request the client wrote on the stream, in order (filters, pings). */
  requests: SubscribeRequest[];
  /** Transaction updates written on this call. */
  transactionsSent: number;
}

interface ChainSlot {
  slot: number;
  blockTime: number | null;
  transactions: { info: TransactionInfo; keys: Set<string>; signature: string; failed: boolean }[];
}

const BASE58_PUBKEY = /^[1-9A-HJ-NP-Za-km-z]{32,44}$/;

function filterError(filters: Record<string, SubscribeRequestFilterTransactions>): string | null {
  for (const [name, f] of Object.entries(filters)) {
    for (const k of [...f.accountInclude, ...f.accountExclude, ...f.accountRequired]) {
      if (!BASE58_PUBKEY.test(k) || bs58.decode(k).length !== 32) return `failed to create filter: invalid pubkey ${k} in transactions filter ${name}`;
    }
  }
  return null;
}

function transactionMatches(f: SubscribeRequestFilterTransactions, tx: ChainSlot['transactions'][number]): boolean {
  if (f.vote !== undefined && f.vote !== tx.info.isVote) return false;
  if (f.failed !== undefined && f.failed !== tx.failed) return false;
  if (f.signature !== undefined && f.signature !== tx.signature) return false;
  if (f.accountInclude.length > 0 && !f.accountInclude.some((k) => tx.keys.has(k))) return false;
  if (f.accountExclude.some((k) => tx.keys.has(k))) return false;
  if (!f.accountRequired.every((k) => tx.keys.has(k))) return false;
  return true;
}

const STATUS_OF: Record<number, SlotStatus> = {
  [CommitmentLevel.PROCESSED]: SlotStatus.SLOT_PROCESSED,
  [CommitmentLevel.CONFIRMED]: SlotStatus.SLOT_CONFIRMED,
  [CommitmentLevel.FINALIZED]: SlotStatus.SLOT_FINALIZED,
};

function unary<Req, Res>(
  name: string,
  req: { encode(m: Req): { finish(): Uint8Array }; decode(b: Uint8Array): Req },
  res: { encode(m: Res): { finish(): Uint8Array }; decode(b: Uint8Array): Res },
): grpc.MethodDefinition<Req, Res> {
  return {
    path: `/geyser.Geyser/${name}`,
    requestStream: false,
    responseStream: false,
    requestSerialize: (m: Req) => Buffer.from(req.encode(m).finish()),
    requestDeserialize: (b: Buffer) => req.decode(b),
    responseSerialize: (m: Res) => Buffer.from(res.encode(m).finish()),
    responseDeserialize: (b: Buffer) => res.decode(b),
  };
}

/** SubscribeRequest map fields (geyser.proto field number → property) and the default of their value message. */
const REQUEST_MAPS: Record<number, [keyof SubscribeRequest, () => unknown]> = {
  1: ['accounts', () => ({ account: [], owner: [], filters: [] })],
  2: ['slots', () => ({})],
  3: ['transactions', () => ({ accountInclude: [], accountExclude: [], accountRequired: [] })],
  4: ['blocks', () => ({ accountInclude: [] })],
  5: ['blocksMeta', () => ({})],
  8: ['entry', () => ({})],
  10: ['transactionsStatus', () => ({ accountInclude: [], accountExclude: [], accountRequired: [] })],
};

/**
 * Decodes a SubscribeRequest. The client's native layer re-encodes requests with
 * prost, which writes a map entry whose value is an empty message (`blocksMeta:
 * {name: {}}`, `slots: {name: {}}`) without the value field; ts-proto's decoder
 * then drops the entry, while proto3 (and the real server) read it as the
 * default message. Such keys are restored here with their default value.
 */
function decodeSubscribeRequest(bytes: Uint8Array): SubscribeRequest {
  const request = SubscribeRequest.decode(bytes);
  let pos = 0;
  const varint = (): number => {
    let v = 0;
    for (let shift = 0; ; shift += 7) {
      const b = bytes[pos++]!;
      v += (b & 0x7f) * 2 ** shift;
      if (b < 0x80) return v;
    }
  };
  while (pos < bytes.length) {
    const tag = varint();
    const field = Math.floor(tag / 8);
    const wire = tag & 7;
    if (wire === 0) varint();
    else if (wire === 1) pos += 8;
    else if (wire === 5) pos += 4;
    else if (wire === 2) {
      const len = varint();
      const end = pos + len;
      const map = REQUEST_MAPS[field];
      if (map) {
        let key = '';
        while (pos < end) {
          const t = varint();
          if (t === 10) {
            const l = varint();
            key = Buffer.from(bytes.subarray(pos, pos + l)).toString('utf8');
            pos += l;
          } else if ((t & 7) === 2) {
            const l = varint(); // (not `pos += varint()`: that reads pos before varint() moves it)
            pos += l;
          } else if ((t & 7) === 0) varint();
          else throw new Error(`SubscribeRequest: unexpected wire type in map entry of field ${field}`);
        }
        const target = request[map[0]] as Record<string, unknown>;
        if (!(key in target)) target[key] = map[1]();
      }
      pos = end;
    } else throw new Error(`SubscribeRequest: unsupported wire type ${wire}`);
  }
  return request;
}

/** The geyser.Geyser service definition (paths as in geyser.proto, package `geyser`). */
const GEYSER_SERVICE = {
  Subscribe: {
    path: '/geyser.Geyser/Subscribe',
    requestStream: true,
    responseStream: true,
    requestSerialize: (m: SubscribeRequest) => Buffer.from(SubscribeRequest.encode(m).finish()),
    requestDeserialize: (b: Buffer) => decodeSubscribeRequest(b),
    responseSerialize: (m: SubscribeUpdate) => Buffer.from(SubscribeUpdate.encode(m).finish()),
    responseDeserialize: (b: Buffer) => SubscribeUpdate.decode(b),
  } satisfies grpc.MethodDefinition<SubscribeRequest, SubscribeUpdate>,
  Ping: unary('Ping', PingRequest, PongResponse),
  GetLatestBlockhash: unary('GetLatestBlockhash', GetLatestBlockhashRequest, GetLatestBlockhashResponse),
  GetBlockHeight: unary('GetBlockHeight', GetBlockHeightRequest, GetBlockHeightResponse),
  GetSlot: unary('GetSlot', GetSlotRequest, GetSlotResponse),
  IsBlockhashValid: unary('IsBlockhashValid', IsBlockhashValidRequest, IsBlockhashValidResponse),
  GetVersion: unary('GetVersion', GetVersionRequest, GetVersionResponse),
  SubscribeReplayInfo: unary('SubscribeReplayInfo', SubscribeReplayInfoRequest, SubscribeReplayInfoResponse),
} satisfies grpc.ServiceDefinition;

/**
 * The test server. `start()` listens on 127.0.0.1 (port 0 → a free port; see
 * {@link endpoint}); `close()` ends everything. Counters and records
 * (`subscribeCalls`, `unaryCalls`, `pingReplies`) let tests assert what the
 * client did.
 */
export class GeyserTestServer {
  /** Every Subscribe call, in arrival order. */
  readonly subscribeCalls: SubscribeCallRecord[] = [];
  /** Names of the unary methods called, in order. */
  readonly unaryCalls: string[] = [];
  /** Ids of the client's ping requests (answers to server pings), in order. */
  readonly pingReplies: number[] = [];

  readonly #chain: ChainSlot[];
  readonly #options: GeyserTestServerOptions;
  readonly #grpc = new grpc.Server();
  readonly #sockets = new Set<net.Socket>();
  readonly #calls = new Set<grpc.ServerDuplexStream<SubscribeRequest, SubscribeUpdate>>();
  #relay: net.Server | null = null;
  #grpcPort = 0;
  #port = 0;
  /** Index in #chain of the first slot the chain has not produced yet ("now"). */
  #head = 0;
  #dropAfter: number | null = null;
  #dropSubscribes = 0;

  constructor(options: GeyserTestServerOptions) {
    this.#options = options;
    const bySlot = new Map<number, ChainSlot>();
    for (const t of [...options.transactions].sort((a, b) => a.slot - b.slot)) {
      let s = bySlot.get(t.slot);
      if (!s) bySlot.set(t.slot, (s = { slot: t.slot, blockTime: t.blockTime ?? options.defaultBlockTime ?? null, transactions: [] }));
      const message = t.info.transaction?.message;
      const keys = new Set(
        [...(message?.accountKeys ?? []), ...(t.info.meta?.loadedWritableAddresses ?? []), ...(t.info.meta?.loadedReadonlyAddresses ?? [])].map((k) =>
          bs58.encode(k),
        ),
      );
      const failed = (t.info.meta?.err?.err.length ?? 0) > 0;
      s.transactions.push({ info: t.info, keys, signature: bs58.encode(t.info.signature), failed });
    }
    const last = Math.max(0, ...bySlot.keys());
    for (let slot = last + 1; options.tipSlot !== undefined && slot <= options.tipSlot; slot++) {
      bySlot.set(slot, { slot, blockTime: options.defaultBlockTime ?? null, transactions: [] });
    }
    this.#chain = [...bySlot.values()].sort((a, b) => a.slot - b.slot);
    this.#grpc.addService(GEYSER_SERVICE, {
      Subscribe: (call: grpc.ServerDuplexStream<SubscribeRequest, SubscribeUpdate>) => this.#subscribe(call),
      Ping: this.#unary('Ping', (r: PingRequest) => ({ count: r.count })),
      GetLatestBlockhash: this.#unary('GetLatestBlockhash', () => ({
        slot: String(this.#headSlot()),
        blockhash: bs58.encode(Buffer.alloc(32, 1)),
        lastValidBlockHeight: '0',
      })),
      GetBlockHeight: this.#unary('GetBlockHeight', () => ({ blockHeight: String(this.#headSlot()) })),
      GetSlot: this.#unary('GetSlot', () => ({ slot: String(this.#headSlot()) })),
      IsBlockhashValid: this.#unary('IsBlockhashValid', () => ({ slot: String(this.#headSlot()), valid: false })),
      GetVersion: this.#unary('GetVersion', () => ({ version: JSON.stringify({ version: { package: 'tradewind-geyser-test-server' } }) })),
      SubscribeReplayInfo: this.#unary('SubscribeReplayInfo', () => ({ firstAvailable: String(this.#options.firstAvailableSlot ?? 0) })),
    });
  }

  /** `http://127.0.0.1:<port>` (plaintext HTTP/2), valid after {@link start}. */
  get endpoint(): string {
    return `http://127.0.0.1:${this.#port}`;
  }

  /** The relay's port on 127.0.0.1 (kept across {@link stop} / {@link restart}). */
  get port(): number {
    return this.#port;
  }

  /** Transaction updates written so far, over all calls. */
  get transactionsSent(): number {
    return this.subscribeCalls.reduce((n, c) => n + c.transactionsSent, 0);
  }

  /** Binds the gRPC server on a private port and the relay on `port` (0 = any free port). */
  async start(port = 0): Promise<void> {
    this.#grpcPort = await new Promise<number>((resolve, reject) =>
      this.#grpc.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (err, p) => (err ? reject(err) : resolve(p))),
    );
    await this.#listen(port);
  }

  /** Cuts every client connection now (TCP reset of the relayed sockets); the server stays up. */
  dropConnections(): void {
    for (const s of this.#sockets) s.destroy();
    this.#sockets.clear();
  }

  /** Cuts every connection right after the `n`-th next transaction update is written (once). */
  dropAfterTransactions(n: number): void {
    this.#dropAfter = this.transactionsSent + n;
  }

  /** Cuts every connection as soon as each of the next `n` Subscribe calls has sent its filters (before any update). */
  dropNextSubscribes(n: number): void {
    this.#dropSubscribes = n;
  }

  /** Server down: stops listening (connections are refused) and cuts the open ones. */
  async stop(): Promise<void> {
    const relay = this.#relay;
    this.#relay = null;
    this.dropConnections();
    if (relay) await new Promise<void>((resolve) => relay.close(() => resolve()));
  }

  /** Server back up on the same port. */
  async restart(): Promise<void> {
    await this.#listen(this.#port);
  }

  /** Stops everything. */
  async close(): Promise<void> {
    await this.stop();
    for (const call of this.#calls) call.destroy();
    this.#grpc.forceShutdown();
  }

  async #listen(port: number): Promise<void> {
    const relay = net.createServer((client) => {
      const upstream = net.connect(this.#grpcPort, '127.0.0.1');
      const both = [client, upstream];
      for (const s of both) {
        this.#sockets.add(s);
        s.setNoDelay(true);
        s.on('error', () => undefined);
        s.on('close', () => {
          this.#sockets.delete(s);
          for (const o of both) o.destroy();
        });
      }
      client.pipe(upstream);
      upstream.pipe(client);
    });
    relay.listen(port, '127.0.0.1');
    await once(relay, 'listening');
    this.#port = (relay.address() as net.AddressInfo).port;
    this.#relay = relay;
  }

  #headSlot(): number {
    return this.#chain[Math.max(0, Math.min(this.#head, this.#chain.length) - 1)]?.slot ?? 0;
  }

  #unary<Req, Res>(name: string, answer: (req: Req) => Res): grpc.handleUnaryCall<Req, Res> {
    return (call, callback) => {
      this.unaryCalls.push(name);
      callback(null, answer(call.request));
    };
  }

  #subscribe(call: grpc.ServerDuplexStream<SubscribeRequest, SubscribeUpdate>): void {
    const record: SubscribeCallRecord = { requests: [], transactionsSent: 0 };
    this.subscribeCalls.push(record);
    this.#calls.add(call);
    let generation = 0;
    let closed = false;
    const send = (u: Partial<SubscribeUpdate>): Promise<void> | void => {
      if (closed) return;
      const ok = call.write(SubscribeUpdate.fromPartial({ filters: [], createdAt: new Date(), ...u }));
      if (!ok) return once(call, 'drain').then(() => undefined);
    };
    const ping = (): void => void send({ ping: {} });
    ping();
    const timer = setInterval(ping, this.#options.pingIntervalMs ?? 10_000);
    const end = (): void => {
      closed = true;
      generation++;
      clearInterval(timer);
      this.#calls.delete(call);
    };
    call.on('cancelled', end);
    call.on('close', end);
    call.on('error', end);
    call.on('data', (request: SubscribeRequest) => {
      record.requests.push(request);
      if (request.ping) {
        this.pingReplies.push(request.ping.id);
        void send({ pong: { id: request.ping.id } });
        return;
      }
      const invalid = filterError(request.transactions);
      if (invalid) {
        call.emit('error', { code: grpc.status.INVALID_ARGUMENT, details: invalid });
        return;
      }
      if (this.#dropSubscribes > 0) {
        this.#dropSubscribes--;
        this.dropConnections();
        return;
      }
      // A new filter replaces the previous one, as on the real server.
      const mine = ++generation;
      void this.#stream(call, record, request, send, () => closed || generation !== mine).catch(() => undefined);
    });
  }

  async #stream(
    call: grpc.ServerDuplexStream<SubscribeRequest, SubscribeUpdate>,
    record: SubscribeCallRecord,
    request: SubscribeRequest,
    send: (u: Partial<SubscribeUpdate>) => Promise<void> | void,
    stopped: () => boolean,
  ): Promise<void> {
    const commitment = request.commitment ?? CommitmentLevel.PROCESSED;
    const wantsBlockMeta = Object.keys(request.blocksMeta).length > 0;
    const txFilters = Object.entries(request.transactions);
    let idx = this.#head;
    if (request.fromSlot !== undefined) {
      const from = Number(request.fromSlot);
      const first = this.#options.firstAvailableSlot ?? 0;
      if (from < first) {
        const details = `broadcast from ${from} is not available, last available: ${first}`;
        call.emit('error', { code: grpc.status.INTERNAL, details });
        return;
      }
      idx = this.#chain.findIndex((s) => s.slot >= from);
      if (idx < 0) idx = this.#chain.length;
    }
    for (; idx < this.#chain.length; idx++) {
      const s = this.#chain[idx]!;
      for (const tx of s.transactions) {
        if (stopped()) return;
        const names = txFilters.filter(([, f]) => transactionMatches(f, tx)).map(([name]) => name);
        if (names.length === 0) continue;
        await send({ filters: names, transaction: { transaction: tx.info, slot: String(s.slot) } });
        record.transactionsSent++;
        if (this.#dropAfter !== null && this.transactionsSent >= this.#dropAfter) {
          this.#dropAfter = null;
          // Let the written bytes reach the relay before the cut, like a peer that vanishes mid-stream.
          setImmediate(() => this.dropConnections());
          return;
        }
      }
      if (stopped()) return;
      if (wantsBlockMeta) {
        await send({
          filters: Object.keys(request.blocksMeta),
          blockMeta: {
            slot: String(s.slot),
            blockhash: bs58.encode(Buffer.alloc(32, (s.slot % 255) + 1)),
            blockTime: s.blockTime === null ? undefined : { timestamp: String(s.blockTime) },
            blockHeight: { blockHeight: String(s.slot) },
            parentSlot: String(s.slot - 1),
            parentBlockhash: bs58.encode(Buffer.alloc(32, s.slot % 255 || 255)),
            executedTransactionCount: String(s.transactions.length),
            entriesCount: '0',
            rewards: undefined,
          },
        });
      }
      for (const [name, f] of Object.entries(request.slots)) {
        const statuses = f.filterByCommitment
          ? [STATUS_OF[commitment] ?? SlotStatus.SLOT_PROCESSED]
          : [SlotStatus.SLOT_PROCESSED, SlotStatus.SLOT_CONFIRMED, SlotStatus.SLOT_FINALIZED];
        for (const status of statuses) await send({ filters: [name], slot: { slot: String(s.slot), parent: String(s.slot - 1), status } });
      }
      if (idx >= this.#head) this.#head = idx + 1;
      const pause = this.#options.slotIntervalMs ?? 0;
      await (pause > 0 ? new Promise((r) => setTimeout(r, pause)) : new Promise((r) => setImmediate(r)));
    }
  }
}
