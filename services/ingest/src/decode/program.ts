import type { DecodedValue } from './borsh-tolerant.js';
import { decodeEvent } from './event-decode.js';
import type { DecodedEvent, LegacyLayout } from './event-decode.js';
import { collectCpiEvents, collectLogEvents, flatten, isEventCpi } from './events.js';
import type { RawEvent } from './events.js';
import type { LoadedIdl, ProgramCodec } from './idl.js';
import type { NormalizedInstruction, NormalizedTransaction } from './transaction.js';
import type { TokenNameCache } from './token-names.js';
import { TRADE_MESSAGE_SCHEMA_VERSION, type CommonMessageFields } from './types.js';

export { WSOL_MINT } from '@tradewind/lib/subjects';
/** Decimals of SOL: 1 SOL = 10^9 lamports. */
export const SOL_DECIMALS = 9;

/** Hooks a caller (ingest's metrics) passes to the decoder. */
export interface DecodeOptions {
  /**
   * Called once per instruction of a known program whose 8-byte discriminator
   * (hex) is not in the program's IDL (a newer instruction, or data too short
   * to be an Anchor instruction). The instruction is skipped, never fatal.
   */
  onUnknownInstruction?: (programId: string, discriminatorHex: string) => void;
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
 * emit_cpi form when present, else the `Program data:` log lines.
 */
export function programCalls(
  tx: NormalizedTransaction,
  codec: ProgramCodec,
  legacy: readonly LegacyLayout[] = [],
  options: DecodeOptions = {},
): ProgramCall[] {
  // Memoised per instruction tree and codec: the PumpSwap decoder reads pump.fun's calls too
  // (token names), and unknown instructions must be reported once. One decode pass passes
  // the same legacy layouts and options for a codec, so the first call's result holds.
  let perCodec = callsCache.get(tx.instructions);
  if (!perCodec) callsCache.set(tx.instructions, (perCodec = new Map()));
  let calls = perCodec.get(codec);
  if (!calls) perCodec.set(codec, (calls = findProgramCalls(tx, codec, legacy, options)));
  return calls;
}

const callsCache = new WeakMap<NormalizedTransaction['instructions'], Map<ProgramCodec, ProgramCall[]>>();

function findProgramCalls(tx: NormalizedTransaction, codec: ProgramCodec, legacy: readonly LegacyLayout[], options: DecodeOptions): ProgramCall[] {
  const flat = flatten(tx.instructions);
  const programId = codec.programId;
  if (!flat.some((ix) => ix.programId === programId)) return [];
  // Events are looked up lazily, only once an instruction of this program is found.
  let cpi: Map<number, RawEvent[]> | undefined;
  let log: Map<number, RawEvent[]> | undefined;
  const out: ProgramCall[] = [];
  flat.forEach((ix, order) => {
    if (ix.programId !== programId) return;
    // A one-account self-invocation below the top level is an emit_cpi event (anchor's
    // `emit_cpi!` passes only the event authority), never an instruction to decode; skipping it
    // here keeps its long base58 data undecoded unless the log lines lack the event.
    if (ix.accounts.length === 1 && ix.stackHeight !== 1) return;
    if (ix.data === null || isEventCpi(ix, programId)) return;
    if (ix.data.length < 8) {
      options.onUnknownInstruction?.(codec.programId, Buffer.from(ix.data).toString('hex'));
      return;
    }
    const disc = Buffer.from(ix.data.subarray(0, 8)).toString('hex');
    const def = codec.instructionsByDisc.get(disc);
    if (!def) {
      options.onUnknownInstruction?.(codec.programId, disc);
      return;
    }
    // Log lines first: they hold the same event bytes as the emit_cpi inner instructions but in
    // base64, while inner-instruction data is base58 (quadratic to decode: the decoder's largest
    // cost). An instruction the log replay attributes no event to (truncated logs, LaunchLab
    // 2025, which emits only via CPI) falls back to its emit_cpi events.
    log ??= collectLogEvents(tx, programId);
    const raw = log.get(order) ?? (cpi ??= collectCpiEvents(tx, programId)).get(order) ?? [];
    const events = raw.map((e) => decodeEvent(codec, e.bytes, legacy)).filter((e): e is DecodedEvent => e !== null);
    out.push({ ix, order, def, events });
  });
  return out;
}

/** The instruction account the IDL names `name`, or undefined when the instruction passed fewer accounts. */
export function account(call: ProgramCall, name: string): string | undefined {
  const i = call.def.accounts.findIndex((a) => a.name === name);
  return i < 0 ? undefined : call.ix.accounts[i];
}

/** Common message fields (ARCHITECTURE §6). */
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
  return [...tx.preTokenBalances, ...tx.postTokenBalances].find((b) => b.mint === mint)?.decimals;
}

/** Raw integer (decimal string) → number of human units. */
export function ui(raw: DecodedValue | undefined, decimals: number): number | undefined {
  return typeof raw === 'string' ? Number(raw) / 10 ** decimals : undefined;
}

/** Copies only defined values, so absent stays absent. */
export function defined(obj: Record<string, DecodedValue | undefined>): Record<string, DecodedValue> {
  const out: Record<string, DecodedValue> = {};
  for (const [k, v] of Object.entries(obj)) if (v !== undefined) out[k] = v;
  return out;
}
