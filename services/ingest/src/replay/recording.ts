/**
 * Loading a recording: a directory of getTransaction results, decoded once at start and put
 * in chain order. Files that are not transactions are reported, never fatal.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { decodeNormalized, normalizeTransaction, type DecodeOptions, type TradeMessage } from '../decode/index.js';
import { GET_TRANSACTION_MIN_COMMITMENT } from '../decode/transaction.js';
import type { Commitment } from '../decode/types.js';

/**
 * Commitment stamped on the trades of a recording: `confirmed`. A recording is a directory
 * of getTransaction (or blockSubscribe) results, and neither method serves anything below
 * `confirmed`, so every such file is at least confirmed. Claiming more would need the
 * commitment each file was fetched at, which the files do not carry: of the bundled ones,
 * six are known to be `finalized`, two most likely `confirmed`, the rest unknown (recording/SOURCES.md).
 */
export const RECORDING_COMMITMENT: Commitment = GET_TRANSACTION_MIN_COMMITMENT;

/** One recorded transaction and the trades decoded from it (in instruction order). */
export interface RecordedTransaction {
  readonly path: string;
  readonly slot: number | null;
  readonly trades: readonly TradeMessage[];
}

/** A file that could not be used, with the reason. */
export interface RecordingProblem {
  readonly path: string;
  readonly reason: string;
}

/** Lists `*.json` files under `dir`, recursively, sorted by path. */
export async function listJsonFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  return entries
    .filter((e) => e.isFile() && e.name.endsWith('.json'))
    .map((e) => join(e.parentPath ?? (e as unknown as { path: string }).path, e.name))
    .sort();
}

/**
 * Reads and decodes every transaction under `dir`.
 * Order: by slot ascending; captures without a slot (blockSubscribe captures) keep their
 * relative file order and come after those with one, since their place in time is unknown.
 * Transactions without trades are dropped; unreadable files are returned in `problems`.
 * `options` are the decoder's (LetsBonk platform configs, unknown-instruction hook). Every
 * trade carries `commitment` = {@link RECORDING_COMMITMENT}.
 */
export async function loadRecording(dir: string, options: DecodeOptions = {}): Promise<{ transactions: RecordedTransaction[]; problems: RecordingProblem[] }> {
  const transactions: RecordedTransaction[] = [];
  const problems: RecordingProblem[] = [];
  for (const path of await listJsonFiles(dir)) {
    try {
      const trades = decodeNormalized(normalizeTransaction(JSON.parse(await readFile(path, 'utf8')), RECORDING_COMMITMENT), options);
      if (trades.length > 0) transactions.push({ path, slot: trades[0]!.slot, trades });
    } catch (err) {
      problems.push({ path, reason: err instanceof Error ? err.message : String(err) });
    }
  }
  transactions.sort((a, b) => (a.slot ?? Number.MAX_SAFE_INTEGER) - (b.slot ?? Number.MAX_SAFE_INTEGER));
  return { transactions, problems };
}
