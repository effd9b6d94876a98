import { addressToBase58, encodeBase58 } from './base58.js';
import { ByteReader, EndOfBuffer } from './borsh-tolerant.js';

/** One compiled instruction as it appears on the wire: indices into the account list. */
export interface WireInstruction {
  programIdIndex: number;
  accounts: number[];
  data: Uint8Array;
}

/** A v0 address-table lookup (resolved by the RPC into meta.loadedAddresses). */
export interface WireLookup {
  accountKey: string;
  writableIndexes: number[];
  readonlyIndexes: number[];
}

/** A parsed wire transaction: legacy, v0 or v1 (SIMD-0385). */
export interface WireTransaction {
  version: 'legacy' | 0 | 1;
  /** base58 Ed25519 signatures; signatures[0] is the transaction id. */
  signatures: string[];
  header: { numRequiredSignatures: number; numReadonlySigned: number; numReadonlyUnsigned: number };
  /** Static account keys, base58. */
  staticAccountKeys: string[];
  recentBlockhash: string;
  instructions: WireInstruction[];
  addressTableLookups: WireLookup[];
}

/** Solana "compact-u16" (shortvec) length prefix. */
function shortvec(r: ByteReader): number {
  let value = 0;
  for (let shift = 0; shift < 21; shift += 7) {
    const b = r.u8();
    value |= (b & 0x7f) << shift;
    if ((b & 0x80) === 0) return value;
  }
  throw new Error('shortvec longer than 3 bytes');
}

function key(r: ByteReader): string {
  return addressToBase58(r.take(32));
}

function parseLegacyOrV0(bytes: Uint8Array): WireTransaction {
  const r = new ByteReader(bytes);
  const signatures: string[] = [];
  const nSig = shortvec(r);
  for (let i = 0; i < nSig; i++) signatures.push(encodeBase58(r.take(64)));
  let version: 'legacy' | 0 = 'legacy';
  const first = r.u8();
  let numRequiredSignatures = first;
  if (first & 0x80) {
    const v = first & 0x7f;
    if (v !== 0) throw new Error(`unsupported message version ${v}`);
    version = 0;
    numRequiredSignatures = r.u8();
  }
  const header = { numRequiredSignatures, numReadonlySigned: r.u8(), numReadonlyUnsigned: r.u8() };
  const staticAccountKeys: string[] = [];
  const nKeys = shortvec(r);
  for (let i = 0; i < nKeys; i++) staticAccountKeys.push(key(r));
  const recentBlockhash = key(r);
  const instructions: WireInstruction[] = [];
  const nIx = shortvec(r);
  for (let i = 0; i < nIx; i++) {
    const programIdIndex = r.u8();
    const accounts = Array.from(r.take(shortvec(r)));
    const data = r.take(shortvec(r)).slice();
    instructions.push({ programIdIndex, accounts, data });
  }
  const addressTableLookups: WireLookup[] = [];
  if (version === 0) {
    const nLookups = shortvec(r);
    for (let i = 0; i < nLookups; i++) {
      const accountKey = key(r);
      const writableIndexes = Array.from(r.take(shortvec(r)));
      const readonlyIndexes = Array.from(r.take(shortvec(r)));
      addressTableLookups.push({ accountKey, writableIndexes, readonlyIndexes });
    }
  }
  if (r.remaining !== 0) throw new Error(`${r.remaining} trailing bytes after the message`);
  return { version, signatures, header, staticAccountKeys, recentBlockhash, instructions, addressTableLookups };
}

/**
 * v1 (SIMD-0385): version byte 0x81, legacy header (3 × u8), then the message,
 * then the signatures LAST (num_required_signatures × 64 bytes, no length
 * prefix). Fixed-width counts replace shortvecs; instruction headers
 * (program index u8, account count u8, data length u16 LE) precede the payloads;
 * ConfigValues are 4 bytes per set bit of the config mask.
 *
 * Field order after the header: the SIMD text (solana-foundation/solana-improvement-documents
 * proposals/0385) lists NumInstructions before the u32 TransactionConfigMask, while
 * the 2026 mainnet bytes we hold (launchlab/1Dnj…) carry mask, LifetimeSpecifier,
 * NumInstructions, NumAddresses. Both orders are tried; the one that ends exactly
 * at the signatures wins.
 */
function parseV1(bytes: Uint8Array): WireTransaction {
  const errors: string[] = [];
  for (const order of ['mask-first', 'count-first'] as const) {
    try {
      return parseV1Order(bytes, order);
    } catch (err) {
      errors.push(`${order}: ${(err as Error).message}`);
    }
  }
  throw new Error(`not a v1 transaction (${errors.join('; ')})`);
}

function parseV1Order(bytes: Uint8Array, order: 'mask-first' | 'count-first'): WireTransaction {
  const r = new ByteReader(bytes);
  r.u8(); // 0x81
  const header = { numRequiredSignatures: r.u8(), numReadonlySigned: r.u8(), numReadonlyUnsigned: r.u8() };
  let numInstructions: number;
  let mask: number;
  let recentBlockhash: string;
  let numAddresses: number;
  if (order === 'mask-first') {
    mask = r.u32();
    recentBlockhash = key(r);
    numInstructions = r.u8();
    numAddresses = r.u8();
  } else {
    numInstructions = r.u8();
    mask = r.u32();
    recentBlockhash = key(r);
    numAddresses = r.u8();
  }
  const staticAccountKeys: string[] = [];
  for (let i = 0; i < numAddresses; i++) staticAccountKeys.push(key(r));
  let bits = 0;
  for (let m = mask >>> 0; m; m >>>= 1) bits += m & 1;
  r.take(4 * bits);
  const heads: { programIdIndex: number; nAccounts: number; nData: number }[] = [];
  for (let i = 0; i < numInstructions; i++) heads.push({ programIdIndex: r.u8(), nAccounts: r.u8(), nData: r.u16() });
  const instructions: WireInstruction[] = heads.map((h) => {
    if (h.programIdIndex >= numAddresses) throw new Error(`program index ${h.programIdIndex} ≥ ${numAddresses}`);
    const accounts = Array.from(r.take(h.nAccounts));
    return { programIdIndex: h.programIdIndex, accounts, data: r.take(h.nData).slice() };
  });
  if (r.remaining !== 64 * header.numRequiredSignatures) {
    throw new Error(`${r.remaining} bytes left for ${header.numRequiredSignatures} signatures`);
  }
  const signatures: string[] = [];
  for (let i = 0; i < header.numRequiredSignatures; i++) signatures.push(encodeBase58(r.take(64)));
  return { version: 1, signatures, header, staticAccountKeys, recentBlockhash, instructions, addressTableLookups: [] };
}

/**
 * Parses serialized transaction bytes (as in getTransaction encoding `base64`).
 * Legacy and v0 start with a shortvec signature count; v1 starts with 0x81.
 * Throws Error with a reason when the bytes are not a transaction.
 */
export function parseWireTransaction(bytes: Uint8Array): WireTransaction {
  if (bytes.length === 0) throw new Error('empty transaction bytes');
  try {
    // A legacy/v0 transaction never starts with 0x81: that would be a shortvec
    // continuation byte claiming ≥ 129 signatures.
    return bytes[0] === 0x81 ? parseV1(bytes) : parseLegacyOrV0(bytes);
  } catch (err) {
    if (err instanceof EndOfBuffer) throw new Error(`transaction bytes end early (${err.message})`, { cause: err });
    throw err;
  }
}
