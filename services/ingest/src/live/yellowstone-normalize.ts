/**
 * Yellowstone `SubscribeUpdateTransaction` (geyser.proto, as decoded by
 * `@triton-one/yellowstone-grpc`: ts-proto objects, u64 as decimal strings,
 * bytes as Uint8Array) → {@link NormalizedTransaction}, the shape the decoder
 * reads.
 *
 * This runs once per streamed transaction, so it is written for speed: account
 * keys go through a fixed-size cache of their base58 form (program ids,
 * sysvars, pump.fun/LaunchLab global accounts and busy mints repeat from one
 * transaction to the next), base58 itself uses an encoder specialised for
 * 32/64-byte values (≈4× faster than `bs58`), and instruction data is handed
 * on as the protobuf's own byte views, not copied.
 */
import { txErrDecode, type SubscribeUpdateTransaction } from '@triton-one/yellowstone-grpc';
import { addressToBase58, encodeBase58 } from '../decode/base58.js';
import { DecodeError } from '../decode/errors.js';
import type { InstructionNode, NormalizedInstruction, NormalizedTransaction, TokenBalance } from '../decode/transaction.js';
import type { Commitment } from '../decode/types.js';

function fail(reason: string): never {
  throw new DecodeError(`yellowstone transaction update: ${reason}`);
}

/**
 * meta.err is a bincode `TransactionError` in a bytes field (empty or absent on
 * success). Decoded to the RPC's JSON form (e.g. `{InstructionError: [0, {Custom: 6003}]}`)
 * with the package's native decoder; when that fails, `{bincode: <base64>}`, still
 * non-null so the transaction stays failed.
 */
function transactionError(err: Uint8Array | undefined): unknown {
  if (err === undefined || err.length === 0) return null;
  try {
    return txErrDecode.decode(err);
  } catch {
    return { bincode: Buffer.from(err).toString('base64') };
  }
}

function u64List(values: string[]): number[] {
  const out = new Array<number>(values.length);
  for (let i = 0; i < values.length; i++) out[i] = Number(values[i]);
  return out;
}

type YellowstoneMeta = NonNullable<NonNullable<SubscribeUpdateTransaction['transaction']>['meta']>;

function tokenBalances(list: YellowstoneMeta['preTokenBalances'], what: string): TokenBalance[] {
  const out = new Array<TokenBalance>(list.length);
  for (let i = 0; i < list.length; i++) {
    const b = list[i]!;
    const ui = b.uiTokenAmount;
    if (ui === undefined) fail(`${what}[${i}] has no uiTokenAmount`);
    out[i] = { accountIndex: b.accountIndex, mint: b.mint, owner: b.owner === '' ? null : b.owner, amount: ui.amount, decimals: ui.decimals };
  }
  return out;
}

/**
 * Converts one Yellowstone transaction update into a {@link NormalizedTransaction}.
 *
 * - `signature`: base58 of the update's signature (= signatures[0]).
 * - `commitment`: the caller's argument, the commitment of the SubscribeRequest that
 *   streamed the update (the server holds a transaction back until its slot reaches that
 *   commitment; the update itself does not say).
 * - `slot`: the update's slot. `blockTimeMs`: the caller's argument — Yellowstone
 *   transaction updates carry no block time; the source passes the `blocksMeta`
 *   block time of the slot when it already has it (the server sends a slot's
 *   BlockMeta after the slot's transactions, so usually only for transactions
 *   that waited in the queue), else null.
 * - `accountKeys`: static keys, then meta.loadedWritableAddresses, then
 *   meta.loadedReadonlyAddresses: address lookup tables come resolved.
 * - instructions: compiled (index-based) outer instructions with paths `[i]` and
 *   stack height 1; meta.innerInstructions under their outer instruction with paths
 *   `[i, j]` and their stackHeight (null when the node did not record it).
 * - `logs`: meta.logMessages, null when meta.logMessagesNone.
 * - `err`: null on success, else the decoded TransactionError (see above).
 * - `fee`, balances: lamports as numbers (u64 strings; balances stay below 2^53).
 * - token balances: raw `amount` string and `decimals`; an empty owner becomes null.
 *
 * Instruction `data` is a view into the update's buffer (not copied).
 * Throws {@link DecodeError} (`invalid_argument`) when the update lacks the
 * transaction, message or meta, or an index points outside the account list.
 */
export function normalizeYellowstoneTransaction(
  update: SubscribeUpdateTransaction,
  commitment: Commitment,
  blockTimeMs: number | null = null,
): NormalizedTransaction {
  const info = update.transaction;
  if (info === undefined) fail('no transaction');
  const message = info.transaction?.message;
  const meta = info.meta;
  if (message === undefined) fail('no transaction message');
  if (meta === undefined) fail('no transaction meta (status, balances and inner instructions are needed)');

  const staticKeys = message.accountKeys;
  const writable = meta.loadedWritableAddresses;
  const readonly = meta.loadedReadonlyAddresses;
  const nStatic = staticKeys.length;
  const nWritable = writable.length;
  const accountKeys = new Array<string>(nStatic + nWritable + readonly.length);
  for (let i = 0; i < nStatic; i++) accountKeys[i] = addressToBase58(staticKeys[i]!);
  for (let i = 0; i < nWritable; i++) accountKeys[nStatic + i] = addressToBase58(writable[i]!);
  for (let i = 0; i < readonly.length; i++) accountKeys[nStatic + nWritable + i] = addressToBase58(readonly[i]!);
  const nKeys = accountKeys.length;

  const resolve = (programIdIndex: number, indices: Uint8Array, data: Uint8Array, path: number[], stackHeight: number | null): NormalizedInstruction => {
    if (programIdIndex >= nKeys) fail(`instruction ${path.join('.')} refers to program account ${programIdIndex} of ${nKeys}`);
    const accounts = new Array<string>(indices.length);
    for (let k = 0; k < indices.length; k++) {
      const a = indices[k]!;
      if (a >= nKeys) fail(`instruction ${path.join('.')} refers to account ${a} of ${nKeys}`);
      accounts[k] = accountKeys[a]!;
    }
    return { programId: accountKeys[programIdIndex]!, accounts, data, path, stackHeight };
  };

  const outer = message.instructions;
  const instructions = new Array<InstructionNode>(outer.length);
  for (let i = 0; i < outer.length; i++) {
    const ix = outer[i]!;
    instructions[i] = { outer: resolve(ix.programIdIndex, ix.accounts, ix.data, [i], 1), inner: [] };
  }
  if (!meta.innerInstructionsNone) {
    for (const group of meta.innerInstructions) {
      const node = instructions[group.index];
      if (node === undefined) fail(`meta.innerInstructions refers to instruction ${group.index} of ${outer.length}`);
      const list = group.instructions;
      for (let j = 0; j < list.length; j++) {
        const ix = list[j]!;
        node.inner.push(resolve(ix.programIdIndex, ix.accounts, ix.data, [group.index, j], ix.stackHeight ?? null));
      }
    }
  }

  return {
    signature: encodeBase58(info.signature),
    slot: Number(update.slot),
    commitment,
    blockTimeMs,
    accountKeys,
    instructions,
    logs: meta.logMessagesNone ? null : meta.logMessages,
    err: transactionError(meta.err?.err),
    fee: Number(meta.fee),
    preBalances: u64List(meta.preBalances),
    postBalances: u64List(meta.postBalances),
    preTokenBalances: tokenBalances(meta.preTokenBalances, 'meta.preTokenBalances'),
    postTokenBalances: tokenBalances(meta.postTokenBalances, 'meta.postTokenBalances'),
  };
}
