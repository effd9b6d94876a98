import { BorshEventCoder, BorshInstructionCoder } from '@coral-xyz/anchor';
import type { Idl } from '@coral-xyz/anchor';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { typeMap } from './borsh-tolerant.js';
import type { IdlTypeDefEntry, IdlTypeRef } from './borsh-tolerant.js';

/** Anchor IDL (spec 0.1.0) fields this decoder reads. */
export interface LoadedIdl {
  address: string;
  metadata: { name: string; version: string; spec?: string };
  instructions: { name: string; discriminator: number[]; accounts: { name: string }[]; args: { name: string; type: IdlTypeRef }[] }[];
  events?: { name: string; discriminator: number[] }[];
  types?: IdlTypeDefEntry[];
}

/** Everything needed to decode one program: its IDL, anchor coders and lookup tables. */
export interface ProgramCodec {
  idl: LoadedIdl;
  /** Program id = IDL `address`. */
  programId: string;
  instructionCoder: BorshInstructionCoder;
  eventCoder: BorshEventCoder;
  types: Map<string, IdlTypeDefEntry>;
  /** Instruction by 8-byte discriminator (hex), from IDL `instructions[].discriminator`. */
  instructionsByDisc: Map<string, LoadedIdl['instructions'][number]>;
  /** Event name and struct fields by 8-byte discriminator (hex), from IDL `events[]` + `types[]`. */
  eventsByDisc: Map<string, { name: string; fields: { name: string; type: IdlTypeRef }[] }>;
}

const discIndexes = new WeakMap<ReadonlyMap<string, unknown>, Map<number, { hi: number; value: unknown }[]>>();

const u32le = (b: Uint8Array, o: number): number => (b[o]! | (b[o + 1]! << 8) | (b[o + 2]! << 16) | (b[o + 3]! << 24)) >>> 0;

/**
 * The entry of `byDisc` (a codec's `instructionsByDisc` / `eventsByDisc`, keyed by the hex of
 * the 8-byte discriminator) for the first 8 bytes of `data`, without building the hex string:
 * an index by the two little-endian u32 halves is built once per map. Undefined when `data` is
 * shorter than 8 bytes or the discriminator is not in the map.
 */
export function byDiscriminator<T>(byDisc: ReadonlyMap<string, T>, data: Uint8Array): T | undefined {
  if (data.length < 8) return undefined;
  let index = discIndexes.get(byDisc);
  if (!index) {
    index = new Map();
    for (const [h, value] of byDisc) {
      const b = Buffer.from(h, 'hex');
      if (b.length !== 8) continue;
      const lo = u32le(b, 0);
      const list = index.get(lo);
      const entry = { hi: u32le(b, 4), value };
      if (list) list.push(entry);
      else index.set(lo, [entry]);
    }
    discIndexes.set(byDisc, index);
  }
  const list = index.get(u32le(data, 0));
  if (!list) return undefined;
  const hi = u32le(data, 4);
  for (const e of list) if (e.hi === hi) return e.value as T;
  return undefined;
}

/** Instruction account positions by IDL account name, per instruction definition (built once). */
const accountPositions = new WeakMap<object, Map<string, number>>();

/** Position of the account the IDL names `name` in instruction `def`'s account list, or -1. */
export function accountPosition(def: { accounts: readonly { name: string }[] }, name: string): number {
  let m = accountPositions.get(def);
  if (!m) {
    m = new Map();
    // First position wins, like findIndex.
    for (let i = def.accounts.length - 1; i >= 0; i--) m.set(def.accounts[i]!.name, i);
    accountPositions.set(def, m);
  }
  return m.get(name) ?? -1;
}

function hex(bytes: ArrayLike<number>): string {
  return Buffer.from(Array.from(bytes)).toString('hex');
}

function buildCodec(idl: LoadedIdl): ProgramCodec {
  const types = typeMap(idl.types);
  const eventsByDisc = new Map<string, { name: string; fields: { name: string; type: IdlTypeRef }[] }>();
  for (const ev of idl.events ?? []) {
    const def = types.get(ev.name);
    const fields = def && def.type.kind === 'struct' ? ((def.type as { fields?: unknown[] }).fields ?? []) : [];
    eventsByDisc.set(hex(ev.discriminator), { name: ev.name, fields: fields as { name: string; type: IdlTypeRef }[] });
  }
  return {
    idl,
    programId: idl.address,
    instructionCoder: new BorshInstructionCoder(idl as unknown as Idl),
    eventCoder: new BorshEventCoder(idl as unknown as Idl),
    types,
    instructionsByDisc: new Map(idl.instructions.map((ix) => [hex(ix.discriminator), ix])),
    eventsByDisc,
  };
}

/**
 * Location of the official pump.fun IDL (`pump` 0.1.0, address 6EF8rrecthR5Dkzon8Nwu78hRvfCKubJ14M5uBEwF6P),
 * vendored in this repo as services/ingest/idl/pump.json: a byte-identical copy of
 * `src/idl/pump.json` of the npm package @pump-fun/pump-sdk 2.0.0 (MIT; see SOURCES.md there).
 */
export const pumpIdlPath = fileURLToPath(new URL('../../idl/pump.json', import.meta.url));

/**
 * Location of the official PumpSwap IDL (`pump_amm` 0.1.0, address pAMMBay6oceH9fJKBRHGP5D4bD4sWpmSwMn52FMfXEA),
 * vendored as services/ingest/idl/pump_amm.json: a byte-identical copy of @pump-fun/pump-sdk
 * 2.0.0 `src/idl/pump_amm.json` (MIT; see SOURCES.md there).
 */
export const pumpAmmIdlPath = fileURLToPath(new URL('../../idl/pump_amm.json', import.meta.url));

/** Location of the LaunchLab IDL kept in this repo (services/ingest/idl, see SOURCES.md there). */
export const launchlabIdlPath = fileURLToPath(new URL('../../idl/raydium_launchpad.json', import.meta.url));

/**
 * Location of the Raydium CPMM IDL kept in this repo (services/ingest/idl, see SOURCES.md there):
 * the official raydium-idl JSON with the 2026 SwapEvent fields appended.
 */
export const raydiumCpmmIdlPath = fileURLToPath(new URL('../../idl/raydium_cp_swap.json', import.meta.url));

let pump: ProgramCodec | undefined;
let launchlab: ProgramCodec | undefined;
let pumpAmm: ProgramCodec | undefined;
let raydiumCpmm: ProgramCodec | undefined;

/** pump.fun program codec (IDL `pump`, address 6EF8rrecthR5Dkzon8Nwu78hRvfCKubJ14M5uBEwF6P). Loaded once. */
export function pumpCodec(): ProgramCodec {
  pump ??= buildCodec(JSON.parse(readFileSync(pumpIdlPath, 'utf8')) as LoadedIdl);
  return pump;
}

/** Raydium LaunchLab codec (IDL `raydium_launchpad` 0.2.0, address LanMV9sAd7wArD4vJFi2qDdfnVhFxYSUg6eADduJ3uj). Loaded once. */
export function launchlabCodec(): ProgramCodec {
  launchlab ??= buildCodec(JSON.parse(readFileSync(launchlabIdlPath, 'utf8')) as LoadedIdl);
  return launchlab;
}

/** PumpSwap codec (IDL `pump_amm`, address pAMMBay6oceH9fJKBRHGP5D4bD4sWpmSwMn52FMfXEA). Loaded once. */
export function pumpAmmCodec(): ProgramCodec {
  pumpAmm ??= buildCodec(JSON.parse(readFileSync(pumpAmmIdlPath, 'utf8')) as LoadedIdl);
  return pumpAmm;
}

/** Raydium CPMM codec (IDL `raydium_cp_swap` 0.2.0 + 2026 SwapEvent fields, address CPMMoo8L3F4NbTegBCKVNunggL7H1ZpdTHKxQB5qKP1C). Loaded once. */
export function raydiumCpmmCodec(): ProgramCodec {
  raydiumCpmm ??= buildCodec(JSON.parse(readFileSync(raydiumCpmmIdlPath, 'utf8')) as LoadedIdl);
  return raydiumCpmm;
}
