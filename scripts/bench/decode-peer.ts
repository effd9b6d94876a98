/**
 * The peer in `npm run bench -- decode`: the open-source `solana-dex-parser`
 * (`new DexParser().parseAll(tx, config)`), run on the same recorded transactions as our decoder.
 *
 * It is a different job, not the same one done by someone else: the peer returns one `ParseResult`
 * per transaction (trades as `TradeInfo` {type, inputToken, outputToken, user, programId, amm, idx,
 * ...}, pool events as `PoolEvent`, launchpad events as `MemeEvent`, plus transfers, fee, signer SOL
 * and token balance changes), where we return one flat trade message per instruction with pool
 * reserves, prices and names. Restricted to the same four programs with `programIds` and
 * `tryUnknowDEX: false` (see {@link PEER_CONFIG}).
 *
 * Peer input. solana-dex-parser takes what @solana/web3.js 1.x `connection.getTransaction(sig,
 * {maxSupportedTransactionVersion: 0})` or `getParsedTransaction` return, so a peer user pays
 * web3.js' conversion of the RPC JSON (PublicKey objects, Message classes). {@link peerInput}
 * rebuilds that shape from the raw RPC JSON with web3.js' own classes, with the builder
 * services/ingest/test/peer-parser.test.ts uses too (`@tradewind/dev/peer-input`):
 *  - json: `MessageV0` (version 0), `MessageV1` with the response's `transactionConfig` (version 1) or
 *    `Message` (legacy) from the compiled fields, as web3.js' `versionedMessageFromResponse` does;
 *  - base64: `VersionedTransaction.deserialize` of the wire bytes, signatures re-encoded base58;
 *  - jsonParsed: a `ParsedTransactionWithMeta` (PublicKey program ids and accounts).
 * web3.js and the peer are loaded through `require`, so the peer's `instanceof PublicKey` checks
 * see the same (CommonJS) web3.js instance as the objects built here.
 */
import { createRequire } from 'node:module';
import type { ParseConfig, ParseResult, SolanaTransaction } from 'solana-dex-parser';
import { peerInput as toPeerInput } from '@tradewind/dev/peer-input';

const require = createRequire(import.meta.url);
// CommonJS; `require` returns it untyped, the cast gives it its own .d.ts types.
const peer = require('solana-dex-parser') as typeof import('solana-dex-parser');

/**
 * The web3.js response object solana-dex-parser expects, built from one getTransaction result
 * (`@tradewind/dev/peer-input`, dev/src/testing/peer-input.ts, shared with the peer comparison test).
 */
export function peerInput(rawJson: unknown): SolanaTransaction {
  return toPeerInput(rawJson).tx;
}

/**
 * The peer's parse restricted to our four programs (pump.fun, Raydium LaunchLab, PumpSwap,
 * Raydium CPMM, by the peer's own DEX_PROGRAMS ids): other programs' instructions are skipped and
 * no unknown-DEX heuristics run. One exception is the peer's own: a transaction routed through
 * Jupiter is answered by its Jupiter parser (checked before the programIds filter), as route trades.
 */
export const PEER_CONFIG: ParseConfig = {
  programIds: [peer.DEX_PROGRAMS.PUMP_FUN.id, peer.DEX_PROGRAMS.RAYDIUM_LCP.id, peer.DEX_PROGRAMS.PUMP_SWAP.id, peer.DEX_PROGRAMS.RAYDIUM_CPMM.id],
  tryUnknowDEX: false,
};

/** Installed solana-dex-parser version, printed beside its figure. */
export const PEER_VERSION = (require('solana-dex-parser/package.json') as { version: string }).version;

const parser = new peer.DexParser();

/** `parseAll` of the peer on a {@link peerInput} object with {@link PEER_CONFIG}. */
export function peerParse(tx: SolanaTransaction): ParseResult {
  return parser.parseAll(tx, PEER_CONFIG);
}

/**
 * JSON text of a peer result, for the bench's serialise step. The peer's results hold bigints
 * (launchpad event reserves and amounts; JSON.stringify throws on them) and a Map
 * (`tokenBalanceChange`, which JSON.stringify would write as `{}`), so a replacer writes bigints as
 * decimal strings and Maps as objects: the least a peer user must do to get JSON out.
 */
export function peerResultJson(res: ParseResult): string {
  return JSON.stringify(res, peerJsonReplacer);
}

function peerJsonReplacer(_key: string, v: unknown): unknown {
  return typeof v === 'bigint' ? v.toString() : v instanceof Map ? Object.fromEntries(v) : v;
}
