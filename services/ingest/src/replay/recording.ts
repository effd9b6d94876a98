/**
 * Loading a recording: a directory of getTransaction results, decoded at start and put in chain
 * order (creates before their token's trades). Files that are not transactions are reported, never fatal.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { decodeNormalized, normalizeTransaction, TokenNameCache, type DecodeOptions, type NormalizedTransaction, type TradeMessage } from '../decode/index.js';
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
 * The order the replay publishes transactions in: by slot ascending; captures without a slot
 * (blockSubscribe captures) keep their relative file order and come after those with one, since
 * their place in time is unknown. Then every transaction holding a pump.fun CREATE is moved, if
 * needed, just before the first transaction that trades its mint (on chain a token's create comes
 * before its trades, so a create captured without a slot, or listed after a trade in the same slot,
 * is misplaced by slot order alone). Stable; returns a new array.
 */
export function replayOrder<T extends { readonly slot: number | null; readonly trades: readonly TradeMessage[] }>(items: readonly T[]): T[] {
  const ordered = [...items].sort((a, b) => (a.slot ?? Number.MAX_SAFE_INTEGER) - (b.slot ?? Number.MAX_SAFE_INTEGER));
  const created = (t: T): string[] =>
    t.trades.flatMap((m) => (m.source === 'pumpfun' && m.transaction_type === 'CREATE' && typeof m.mint === 'string' ? [m.mint] : []));
  const trades = (t: T, mint: string): boolean => t.trades.some((m) => m.transaction_type !== 'CREATE' && (m.mint === mint || m.base_mint === mint));
  for (const item of ordered.filter((t) => created(t).length > 0)) {
    const at = ordered.indexOf(item);
    const mints = created(item);
    const first = ordered.findIndex((t) => t !== item && mints.some((mint) => trades(t, mint)));
    if (first >= 0 && first < at) {
      ordered.splice(at, 1);
      ordered.splice(first, 0, item);
    }
  }
  return ordered;
}

/**
 * Reads and decodes every transaction under `dir`, in {@link replayOrder}.
 * Transactions without trades are dropped; unreadable files are returned in `problems`.
 * `options` are the decoder's (LetsBonk platform configs, unknown-instruction hook, token-name
 * cache). Token names: each transaction is decoded again in replay order with a token-name cache
 * (`options.tokenNames`, else a new default-sized one), so a trade carries the `symbol` of a
 * CREATE of its mint that the replay publishes before it, as live ingest would. Every trade
 * carries `commitment` = {@link RECORDING_COMMITMENT}.
 */
export async function loadRecording(dir: string, options: DecodeOptions = {}): Promise<{ transactions: RecordedTransaction[]; problems: RecordingProblem[] }> {
  const decoded: { path: string; tx: NormalizedTransaction; slot: number | null; trades: readonly TradeMessage[] }[] = [];
  const problems: RecordingProblem[] = [];
  // First pass without names: what each transaction holds decides the order.
  const { tokenNames, ...withoutNames } = options;
  for (const path of await listJsonFiles(dir)) {
    try {
      const tx = normalizeTransaction(JSON.parse(await readFile(path, 'utf8')), RECORDING_COMMITMENT);
      const trades = decodeNormalized(tx, withoutNames);
      if (trades.length > 0) decoded.push({ path, tx, slot: trades[0]!.slot, trades });
    } catch (err) {
      problems.push({ path, reason: err instanceof Error ? err.message : String(err) });
    }
  }
  const names = tokenNames ?? new TokenNameCache();
  // Second pass in replay order (instruction lookups are memoised per transaction, so unknown
  // instructions are reported once).
  const transactions = replayOrder(decoded).map(({ path, tx, slot }) => ({ path, slot, trades: decodeNormalized(tx, { ...withoutNames, tokenNames: names }) }));
  return { transactions, problems };
}
