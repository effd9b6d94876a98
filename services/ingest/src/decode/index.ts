/**
 * Transaction decoder: Solana getTransaction results → trade messages
 * (docs/architecture.md §6) for pump.fun (subject `basic.pumpfun`), LetsBonk.fun /
 * Raydium LaunchLab (subject `basic.bonk`), PumpSwap (`premium.pumpswap`) and
 * Raydium CPMM (`premium.raydium`). See docs/decoding.md.
 */
import { backedByChain } from './chain-check.js';
import { DecodeError } from './errors.js';
import { launchlabCodec, pumpCodec, raydiumCpmmCodec } from './idl.js';
import { decodeLaunchlab, launchlabLegacyLayouts } from './launchlab.js';
import { decodePumpfun } from './pumpfun.js';
import { decodePumpswap, pumpswapCodec } from './pumpswap.js';
import { decodeRaydiumCpmm } from './raydium-cpmm.js';
import { indexProgramCalls, type DecodeOptions, type IndexedProgram, type UnknownItem } from './program.js';
import { DEFAULT_TOKEN_NAME_CACHE_MAX_ENTRIES, TokenNameCache, type TokenName } from './token-names.js';
import { normalizeTransaction, type NormalizedTransaction } from './transaction.js';
import { PUMPFUN_MESSAGE_TYPE, TRADE_MESSAGE_SCHEMA_VERSION } from './types.js';
import type { BonkMessage, PumpfunMessage, PumpfunTradeData, PumpswapMessage, RaydiumCpmmMessage, TradeMessage } from './types.js';

export { DecodeError, normalizeTransaction, TokenNameCache, DEFAULT_TOKEN_NAME_CACHE_MAX_ENTRIES, TRADE_MESSAGE_SCHEMA_VERSION, PUMPFUN_MESSAGE_TYPE };
/**
 * The Solana wire-format parser (legacy, v0, v1) and the base58 encoder: the local Geyser stand-in of
 * @tradewind/dev rebuilds base64 captures and names its synthetic signatures with them.
 */
export { parseWireTransaction, type WireTransaction } from './wire.js';
export { encodeBase58 } from './base58.js';
export type {
  BonkMessage,
  DecodeOptions,
  UnknownItem,
  NormalizedTransaction,
  PumpfunMessage,
  PumpfunTradeData,
  PumpswapMessage,
  RaydiumCpmmMessage,
  TokenName,
  TradeMessage,
};

/** NATS subjects of the TRADES stream (docs/architecture.md §5). */
export type TradeSubject = 'basic.pumpfun' | 'basic.bonk' | 'premium.pumpswap' | 'premium.raydium';

const SUBJECTS: Record<TradeMessage['source'], TradeSubject> = {
  pumpfun: 'basic.pumpfun',
  bonk: 'basic.bonk',
  pumpswap: 'premium.pumpswap',
  raydium_cpmm: 'premium.raydium',
};

/**
 * Decodes one getTransaction result (encoding json, jsonParsed or base64;
 * legacy, v0 or v1 wire format; a `{jsonrpc, result}` envelope is unwrapped)
 * into its pump.fun, LaunchLab, PumpSwap and Raydium CPMM messages, in
 * instruction execution order, one per create/buy/sell/swap/liquidity
 * instruction (top-level or CPI).
 *
 * Returns [] when the transaction failed (meta.err non-null) or has no such
 * trade. Throws {@link DecodeError} (code `invalid_argument`) with a reason
 * when `input` is not a readable transaction.
 */
export function decodeTransaction(input: unknown, options: DecodeOptions = {}): TradeMessage[] {
  return decodeNormalized(normalizeTransaction(input), options);
}

/**
 * Decodes an already normalised transaction (what live sources yield). Same
 * result as {@link decodeTransaction}; never throws for a well-formed
 * {@link NormalizedTransaction}. One pass: the calls of the four programs (with
 * their events) are indexed in one walk and each program's decoder gets its own.
 * What a known program's IDL lacks (a newer instruction, event or trailing event
 * fields) is reported through `options.onUnknown` and skipped; the rest is decoded. Every pump.fun
 * CREATE decoded is added to `options.tokenNames` (after this transaction's own
 * messages are built, which take names from the transaction itself first); a
 * failed transaction adds nothing.
 */
export function decodeNormalized(tx: NormalizedTransaction, options: DecodeOptions = {}): TradeMessage[] {
  if (tx.err !== null) return [];
  // The single pass: index the calls (and events) of all four programs in one walk; each
  // program decoder then reads its own calls from that index.
  const index = indexProgramCalls(tx, (programs ??= tradePrograms()), options);
  const all: { order: number; message: TradeMessage }[] = [];
  for (const part of [
    decodePumpfun(tx, options, index),
    decodeLaunchlab(tx, options, index),
    decodePumpswap(tx, options, index),
    decodeRaydiumCpmm(tx, options, index),
  ]) {
    for (const x of part) all.push(x);
  }
  if (all.length > 1) all.sort((a, b) => a.order - b.order);
  const decoded = new Array<TradeMessage>(all.length);
  for (let i = 0; i < all.length; i++) decoded[i] = all[i]!.message;
  // Only what the transaction backs: complete messages whose amounts equal the balance changes.
  // A trade instruction that yielded no message (its event lost, e.g. `Log truncated`) moved
  // balances no message states: sums over its accounts cannot be compared, so they are skipped.
  let unverifiable: Set<string> | undefined;
  if (decoded.length > 0) {
    const produced = new Set<number>();
    for (const x of all) produced.add(Math.floor(x.order));
    for (const calls of index.values()) {
      for (const c of calls) {
        if (produced.has(c.order) || !TRADE_INSTRUCTION.test(c.def.name)) continue;
        unverifiable ??= new Set();
        for (const a of c.ix.accounts) unverifiable.add(a);
      }
    }
  }
  const messages = backedByChain(tx, decoded, options.onUnknown, unverifiable);
  const names = options.tokenNames;
  if (names) {
    for (const m of messages) {
      if (m.source !== 'pumpfun' || m.transaction_type !== 'CREATE' || typeof m.mint !== 'string') continue;
      names.set(m.mint, { ...(typeof m.name === 'string' ? { name: m.name } : {}), ...(typeof m.symbol === 'string' ? { symbol: m.symbol } : {}) });
    }
  }
  return messages;
}

let programs: IndexedProgram[] | undefined;

/** Instructions that move a trade's amounts (IDL names of the four programs). */
const TRADE_INSTRUCTION = /^(buy|sell|swap|deposit|withdraw|create_pool)/;

/** The four programs the decoder indexes, with the codecs and older layouts their decoders use. */
function tradePrograms(): IndexedProgram[] {
  return [
    { codec: pumpCodec(), legacy: [] },
    { codec: launchlabCodec(), legacy: launchlabLegacyLayouts() },
    { codec: pumpswapCodec(), legacy: [] },
    { codec: raydiumCpmmCodec(), legacy: [] },
  ];
}

/**
 * NATS subject of a message (docs/architecture.md §5) by its `source`: pumpfun →
 * `basic.pumpfun`, bonk → `basic.bonk`, pumpswap → `premium.pumpswap`,
 * raydium_cpmm → `premium.raydium`.
 */
export function subjectOf(message: TradeMessage): TradeSubject {
  return SUBJECTS[message.source];
}

/**
 * Message id used as `Nats-Msg-Id` (docs/architecture.md §5):
 * `${signature}:${instruction_path.join('.')}`, e.g. `5Ed…:3.0`. A COMPLETE
 * comes from the same instruction as the BUY that filled the curve, so its id
 * gets a `:COMPLETE` suffix to stay distinct.
 */
export function messageId(message: TradeMessage): string {
  const base = `${message.signature}:${message.instruction_path.join('.')}`;
  return message.transaction_type === 'COMPLETE' ? `${base}:COMPLETE` : base;
}
