/**
 * Transaction decoder: Solana getTransaction results → trade messages
 * (ARCHITECTURE §6) for pump.fun (subject `basic.pumpfun`) and LetsBonk.fun /
 * Raydium LaunchLab (subject `basic.bonk`). See docs/decoding.md.
 */
import { DecodeError } from './errors.js';
import { decodeLaunchlab } from './launchlab.js';
import { decodePumpfun } from './pumpfun.js';
import type { DecodeOptions } from './program.js';
import { normalizeTransaction, type NormalizedTransaction } from './transaction.js';
import type { BonkMessage, PumpfunMessage, TradeMessage } from './types.js';

export { DecodeError, normalizeTransaction };
export type { BonkMessage, DecodeOptions, NormalizedTransaction, PumpfunMessage, TradeMessage };

/**
 * Decodes one getTransaction result (encoding json, jsonParsed or base64;
 * legacy, v0 or v1 wire format; a `{jsonrpc, result}` envelope is unwrapped)
 * into its pump.fun and LaunchLab trade messages, in instruction execution
 * order, one per create/buy/sell instruction (top-level or CPI).
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
 * {@link NormalizedTransaction}. Unknown instructions of a known program are
 * reported through `options.onUnknownInstruction` and skipped.
 */
export function decodeNormalized(tx: NormalizedTransaction, options: DecodeOptions = {}): TradeMessage[] {
  if (tx.err !== null) return [];
  const all: { order: number; message: TradeMessage }[] = [...decodePumpfun(tx, options), ...decodeLaunchlab(tx, options)];
  return all.sort((a, b) => a.order - b.order).map((x) => x.message);
}

/** NATS subject of a message (ARCHITECTURE §5): `basic.pumpfun` or `basic.bonk`. */
export function subjectOf(message: TradeMessage): 'basic.pumpfun' | 'basic.bonk' {
  return message.source === 'pumpfun' ? 'basic.pumpfun' : 'basic.bonk';
}

/**
 * Message id used as `Nats-Msg-Id` (ARCHITECTURE §5):
 * `${signature}:${instruction_path.join('.')}`, e.g. `5Ed…:3.0`.
 */
export function messageId(message: TradeMessage): string {
  return `${message.signature}:${message.instruction_path.join('.')}`;
}
