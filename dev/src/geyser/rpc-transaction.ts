/**
 * getTransaction JSON → the protobuf `SubscribeUpdateTransactionInfo` a Yellowstone (Geyser gRPC)
 * node streams for that transaction: the protocol-level builder shared by the local Geyser servers
 * (ingest's test server, services/ingest/test/support/geyser-server.ts, and the mainnet-shaped
 * stand-in, ./mainnet-server.ts). Messages use the codecs `@triton-one/yellowstone-grpc` itself
 * decodes with (ts-proto generated from geyser.proto / solana-storage.proto).
 *
 * Base64 captures hold the Solana wire bytes; their parser is ingest's (`parseWireTransaction` of
 * `@tradewind/ingest/decode`), passed in by the caller so that importing @tradewind/dev does not
 * load ingest's decoder.
 */
import bs58 from 'bs58';
import { SubscribeUpdateTransactionInfo } from '@triton-one/yellowstone-grpc';
import type { parseWireTransaction } from '@tradewind/ingest/decode';

/** ingest's Solana wire-format parser (`parseWireTransaction` of `@tradewind/ingest/decode`). */
export type WireTransactionParser = typeof parseWireTransaction;

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
 * when absent. `parseWire` reads base64 captures (ingest's `parseWireTransaction`).
 * Throws Error on input it cannot rebuild faithfully.
 */
export function geyserTransactionFromRpc(
  input: unknown,
  parseWire: WireTransactionParser,
): { info: TransactionInfo; slot: number | null; blockTime: number | null } {
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
    const wire = parseWire(Buffer.from(payload, 'base64'));
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
