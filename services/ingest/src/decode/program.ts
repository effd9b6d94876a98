import type { DecodedValue } from './borsh-tolerant.js';
import { decodeEvent } from './event-decode.js';
import type { DecodedEvent, LegacyLayout } from './event-decode.js';
import { collectCpiEvents, collectLogEventsForPrograms, flattenNodes, isEventCpi } from './events.js';
import type { RawEvent } from './events.js';
import { accountPosition, byDiscriminator } from './idl.js';
import type { LoadedIdl, ProgramCodec } from './idl.js';
import type { NormalizedInstruction, NormalizedTransaction } from './transaction.js';
import type { TokenNameCache } from './token-names.js';
import { TRADE_MESSAGE_SCHEMA_VERSION, type CommonMessageFields } from './types.js';

export { WSOL_MINT } from '@tradewind/contracts/subjects';
/** Decimals of SOL: 1 SOL = 10^9 lamports. */
export const SOL_DECIMALS = 9;

/**
 * Something of a known program the decoder does not know (a newer program version):
 * - `instruction`: an instruction whose 8-byte discriminator is not in the IDL (or data shorter
 *   than 8 bytes); skipped. `name` = the discriminator (hex).
 * - `event`: an event (log line or emit_cpi) whose discriminator is not in the IDL; skipped.
 *   `name` = the discriminator (hex).
 * - `event_fields`: an event with bytes after the IDL's last field (fields appended by a newer
 *   version); the known fields are decoded. `name` = the event name.
 * - `event_layout`: an event of a known discriminator that no known layout reads; skipped.
 *   `name` = the event name.
 * - `refused`: a message the transaction does not back (an event too short for its kind's required
 *   fields, or amounts that disagree with the balance changes: chain-check.ts); not published.
 *   `name` = `<KIND>: <reason>`.
 */
export interface UnknownItem {
  programId: string;
  kind: 'instruction' | 'event' | 'event_fields' | 'event_layout' | 'refused';
  /** What was not known: for an instruction, its 8-byte discriminator in hex (the data's first bytes when shorter). */
  name: string;
  /** Signature of the transaction it was found in. */
  signature: string;
}

/** Hooks a caller (ingest's metrics) passes to the decoder. */
export interface DecodeOptions {
  /**
   * Called for everything of a known program the decoder had to skip or could only partly read
   * (see {@link UnknownItem}): the rest of the transaction is still decoded. Ingest counts these in
   * `tradewind_ingest_decode_unknown_total{program,kind}` and logs the first of each kind.
   */
  onUnknown?: (item: UnknownItem) => void;
  /**
   * LaunchLab platform configs that are LetsBonk.fun (sets `is_letsbonk` on
   * basic.bonk messages). Default {@link DEFAULT_LETSBONK_PLATFORM_CONFIGS}.
   */
  letsbonkPlatformConfigs?: ReadonlySet<string>;
  /**
   * Token names and symbols from earlier CREATEs (ingest passes one cache for its lifetime, sized
   * by TOKEN_NAME_CACHE_MAX_ENTRIES). `decodeNormalized` adds every pump.fun CREATE it decodes and
   * pump.fun / PumpSwap trades read it when their transaction holds no CREATE of the mint. Without
   * it only a CREATE in the same transaction names a trade's token.
   */
  tokenNames?: TokenNameCache;
}

/**
 * LetsBonk.fun's LaunchLab PlatformConfig account. Source: the platform config
 * every LetsBonk.fun launch passes to LaunchLab's initialize/buy/sell (e.g.
 * recording/launchlab/3USu…, captured as a "bonk" trade), the `platformId` the
 * Raydium launchpad API uses for letsbonk.fun, and the LetsBonk address
 * constants of public trading bots (chainstacklabs/pumpfun-bonkfun-bot,
 * `LetsBonkAddresses.PLATFORM_CONFIG`).
 */
export const DEFAULT_LETSBONK_PLATFORM_CONFIGS: readonly string[] = ['FfYek5vEz23cMkWsdJwG2oa6EphsvXSHrGpdALN4g6W1'];

const defaultLetsbonk = new Set(DEFAULT_LETSBONK_PLATFORM_CONFIGS);

/** Whether `platformConfig` is LetsBonk.fun under `options`; null when unknown. */
export function isLetsbonk(platformConfig: string | null | undefined, options: DecodeOptions): boolean | null {
  if (!platformConfig) return null;
  return (options.letsbonkPlatformConfigs ?? defaultLetsbonk).has(platformConfig);
}

/** One invocation of the program's own (non-event) instruction with the events it emitted. */
export interface ProgramCall {
  ix: NormalizedInstruction;
  /** Position in execution order (for sorting messages). */
  order: number;
  def: LoadedIdl['instructions'][number];
  events: DecodedEvent[];
}

/**
 * Every instruction of `codec`'s program in the transaction (top-level and
 * CPI), identified by its IDL discriminator, with its decoded events: the
 * `Program data:` log lines when present, else the emit_cpi form. Memoised per
 * instruction tree and codec (the first call's legacy layouts and options hold).
 * The decoder itself does not use this: {@link indexProgramCalls} indexes the
 * four programs in one walk and hands each decoder its calls.
 */
export function programCalls(tx: NormalizedTransaction, codec: ProgramCodec, legacy: readonly LegacyLayout[] = [], options: DecodeOptions = {}): ProgramCall[] {
  let perCodec = callsCache.get(tx.instructions);
  if (!perCodec) callsCache.set(tx.instructions, (perCodec = new Map()));
  let calls = perCodec.get(codec);
  if (!calls) perCodec.set(codec, (calls = indexProgramCalls(tx, [{ codec, legacy }], options).get(codec) ?? []));
  return calls;
}

const callsCache = new WeakMap<NormalizedTransaction['instructions'], Map<ProgramCodec, ProgramCall[]>>();

/** A program the single-pass index looks for, with the older event layouts it accepts. */
export interface IndexedProgram {
  codec: ProgramCodec;
  legacy: readonly LegacyLayout[];
}

/** The calls of each indexed program's codec, in execution order (see {@link indexProgramCalls}). */
export type CallIndex = ReadonlyMap<ProgramCodec, ProgramCall[]>;

/**
 * The single pass over a transaction: walks its instructions once in execution
 * order, and for each instruction of one of `programs` (top-level or CPI) finds
 * its IDL instruction by discriminator and decodes the events it emitted (one
 * replay of the log for all programs; the emit_cpi form per program only when
 * an instruction has no log event). Instructions, events and event fields a
 * program's IDL does not know go to `options.onUnknown` (an instruction as kind
 * `instruction` named by its 8-byte discriminator in hex); the rest is still decoded.
 */
export function indexProgramCalls(tx: NormalizedTransaction, programs: readonly IndexedProgram[], options: DecodeOptions = {}): CallIndex {
  const index = new Map<ProgramCodec, ProgramCall[]>();
  const byId = new Map<string, { p: IndexedProgram; calls: ProgramCall[]; cpi: Map<number, RawEvent[]> | undefined }>();
  for (const p of programs) {
    const calls: ProgramCall[] = [];
    index.set(p.codec, calls);
    byId.set(p.codec.programId, { p, calls, cpi: undefined });
  }
  const flat = flattenNodes(tx.instructions);
  let log: Map<number, RawEvent[]> | undefined;
  for (let order = 0; order < flat.length; order++) {
    const ix = flat[order]!;
    const entry = byId.get(ix.programId);
    if (!entry) continue;
    const codec = entry.p.codec;
    const programId = codec.programId;
    // A one-account self-invocation below the top level is an emit_cpi event (anchor's
    // `emit_cpi!` passes only the event authority), never an instruction to decode; skipping it
    // here keeps its long base58 data undecoded unless the log lines lack the event.
    if (ix.accounts.length === 1 && ix.stackHeight !== 1) continue;
    const data = ix.data;
    if (data === null || isEventCpi(ix, programId)) continue;
    const def = byDiscriminator(codec.instructionsByDisc, data);
    if (!def) {
      const disc = Buffer.from(data.length < 8 ? data : data.subarray(0, 8)).toString('hex');
      options.onUnknown?.({ programId, kind: 'instruction', name: disc, signature: tx.signature });
      continue;
    }
    // Log lines first: they hold the same event bytes as the emit_cpi inner instructions but in
    // base64, while inner-instruction data is base58 (quadratic to decode: the decoder's largest
    // cost). An instruction the log replay attributes no event to (truncated logs, LaunchLab
    // 2025, which emits only via CPI) falls back to its emit_cpi events.
    log ??= collectLogEventsForPrograms(tx, programIdSet(programs), flat);
    const raw = log.get(order) ?? (entry.cpi ??= collectCpiEvents(tx, programId, flat)).get(order);
    const events: DecodedEvent[] = [];
    if (raw) {
      for (const e of raw) {
        const ev = decodeEvent(codec, e.bytes, entry.p.legacy);
        if (ev !== null) {
          events.push(ev);
          if (ev.trailingBytes > 0) options.onUnknown?.({ programId, kind: 'event_fields', name: ev.name, signature: tx.signature });
        } else if (options.onUnknown) {
          reportUnreadEvent(codec, e.bytes, tx.signature, options.onUnknown);
        }
      }
    }
    entry.calls.push({ ix, order, def, events });
  }
  return index;
}

/** Classifies an event {@link decodeEvent} could not read: unknown discriminator or unknown layout. */
function reportUnreadEvent(codec: ProgramCodec, bytes: Uint8Array, signature: string, report: (item: UnknownItem) => void): void {
  const def = byDiscriminator(codec.eventsByDisc, bytes);
  if (def) report({ programId: codec.programId, kind: 'event_layout', name: def.name, signature });
  else report({ programId: codec.programId, kind: 'event', name: Buffer.from(bytes.subarray(0, Math.min(8, bytes.length))).toString('hex'), signature });
}

/** The program-id set of `programs`, cached per list (the decoder passes the same list each time). */
const programSets = new WeakMap<readonly IndexedProgram[], Set<string>>();
function programIdSet(programs: readonly IndexedProgram[]): Set<string> {
  let set = programSets.get(programs);
  if (!set) programSets.set(programs, (set = new Set(programs.map((p) => p.codec.programId))));
  return set;
}

/** The first event named `name` the call emitted (a loop, not a per-call closure). */
export function eventNamed(call: ProgramCall, name: string): DecodedEvent | undefined {
  for (const e of call.events) if (e.name === name) return e;
  return undefined;
}

/** The instruction account the IDL names `name`, or undefined when the instruction passed fewer accounts. */
export function account(call: ProgramCall, name: string): string | undefined {
  const i = accountPosition(call.def, name);
  return i < 0 ? undefined : call.ix.accounts[i];
}

/** Common message fields (docs/architecture.md §6). */
export function common(
  tx: NormalizedTransaction,
  call: ProgramCall,
  source: CommonMessageFields['source'],
  type: CommonMessageFields['transaction_type'],
): CommonMessageFields {
  return {
    source,
    transaction_type: type,
    signature: tx.signature,
    slot: tx.slot,
    commitment: tx.commitment,
    block_time_ms: tx.blockTimeMs,
    instruction_path: [...call.ix.path],
    program_id: call.ix.programId,
    schema_version: TRADE_MESSAGE_SCHEMA_VERSION,
  };
}

/** Decimals of `mint` from the transaction's token balances, if any account of that mint appears. */
export function mintDecimals(tx: NormalizedTransaction, mint: string): number | undefined {
  for (const b of tx.preTokenBalances) if (b.mint === mint) return b.decimals;
  for (const b of tx.postTokenBalances) if (b.mint === mint) return b.decimals;
  return undefined;
}

/** Raw integer (decimal string) → number of human units. */
export function ui(raw: DecodedValue | undefined, decimals: number): number | undefined {
  return typeof raw === 'string' ? Number(raw) / 10 ** decimals : undefined;
}

/**
 * Copies every own enumerable field of `src` (undefined values too) onto `target`, in `src`'s
 * order: the same result as `{...target, ...src}` (a key `target` already has keeps its place and
 * takes the new value) without building a new object. Message builders use it instead of object
 * spreads, which V8 runs ~20× slower when several follow one another in one literal.
 */
export function put<T extends object>(target: T, src: object | undefined): T {
  if (src === undefined) return target;
  const t = target as Record<string, unknown>;
  const o = src as Record<string, unknown>;
  for (const k in o) t[k] = o[k];
  return target;
}

/** {@link put} of only the defined values of `src` (= `...defined(src)`). */
export function putDefined<T extends object>(target: T, src: Record<string, unknown>): T {
  const t = target as Record<string, unknown>;
  for (const k in src) {
    const v = src[k];
    if (v !== undefined) t[k] = v;
  }
  return target;
}

/** Copies only defined values, so absent stays absent. */
export function defined(obj: Record<string, DecodedValue | undefined>): Record<string, DecodedValue> {
  const out: Record<string, DecodedValue> = {};
  for (const k in obj) {
    const v = obj[k];
    if (v !== undefined) out[k] = v;
  }
  return out;
}
