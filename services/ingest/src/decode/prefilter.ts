/**
 * A cheap test on the raw JSON text of a getTransaction result: could this
 * transaction touch one of the trade programs? It runs before JSON.parse, so a
 * source that sees unrelated traffic (whole blocks, an unfiltered stream) skips
 * most transactions for the cost of a few substring searches.
 *
 * It never rejects a transaction that touches a program (no false negatives);
 * it may accept one that does not (the decoder then finds no trade).
 */
import { parseWireTransaction } from './wire.js';

/** The four programs ingest decodes, by short name (also the metric label): each IDL's `address`. */
export const TRADE_PROGRAMS = {
  pumpfun: '6EF8rrecthR5Dkzon8Nwu78hRvfCKubJ14M5uBEwF6P', // Pump.fun
  launchlab: 'LanMV9sAd7wArD4vJFi2qDdfnVhFxYSUg6eADduJ3uj', // Raydium LaunchLab (LetsBonk.fun)
  pumpswap: 'pAMMBay6oceH9fJKBRHGP5D4bD4sWpmSwMn52FMfXEA', // PumpSwap
  raydium_cpmm: 'CPMMoo8L3F4NbTegBCKVNunggL7H1ZpdTHKxQB5qKP1C', // Raydium CPMM
} as const;

/** The four program ids, in the order of {@link TRADE_PROGRAMS}. */
export const TRADE_PROGRAM_IDS: readonly string[] = Object.values(TRADE_PROGRAMS);

const BASE64_TX = /"transaction"\s*:\s*\[\s*"([A-Za-z0-9+/=]*)"\s*,\s*"base64"/;

/**
 * True when the getTransaction result in `text` (encodings json, jsonParsed or
 * base64; any whitespace) may involve one of `programIds`.
 *
 * Why it is exact: with json/jsonParsed every account (static and lookup-table)
 * is a base58 string in the text. With base64 the static keys are binary, but
 * every invoked program leaves a `Program <id> invoke` log line and lookup-table
 * keys are base58 in meta.loadedAddresses; only when the logs are absent or
 * truncated are the wire bytes' static keys read.
 */
export function mayTouchPrograms(text: string, programIds: readonly string[] = TRADE_PROGRAM_IDS): boolean {
  for (const id of programIds) if (text.includes(id)) return true;
  const wire = BASE64_TX.exec(text);
  if (!wire) return false; // json / jsonParsed: every key is in the text as base58
  const logsComplete = text.includes('"logMessages"') && !text.includes('Log truncated') && !/"logMessages"\s*:\s*null/.test(text);
  if (logsComplete) return false;
  try {
    const keys = parseWireTransaction(Buffer.from(wire[1] ?? '', 'base64')).staticAccountKeys;
    return keys.some((k) => programIds.includes(k));
  } catch {
    return true; // unreadable: let the decoder report it
  }
}
