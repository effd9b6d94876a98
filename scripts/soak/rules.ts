/**
 * The soak's pass/fail rules, apart from the machinery that measures (scripts/soak/harness.ts): memory
 * that keeps growing after warm-up, and the verdict over a whole run. Latency has targets that are printed
 * beside the figures, never failed on (performance is measured, not asserted: docs/style.md §10).
 */

/** Warm-up of a full-length run, ms: RSS at minute 5 is the baseline of the memory rule. */
export const FULL_WARMUP_MS = 5 * 60_000;
/** Share of a run that is warm-up when the run is short: 5 of the full run's 30 minutes. */
export const WARMUP_SHARE = FULL_WARMUP_MS / (30 * 60_000);
/** Largest allowed RSS growth from the warm-up sample to the end of the run (10 %). */
export const DEFAULT_MEMORY_GROWTH_LIMIT = 0.1;

/**
 * When the memory baseline is taken, ms after the first transaction was sent: minute 5
 * ({@link FULL_WARMUP_MS}); a shorter run takes the same share of its length ({@link WARMUP_SHARE}, a sixth),
 * but never less than one rate cycle (steady + burst), so the baseline already holds what a burst leaves
 * allocated and the end is compared with a like moment. `null` when that is not before the end (the run is
 * too short for the rule).
 * @param runMs the measured run, ms.
 * @param cycleMs one steady + burst cycle of the rate profile, ms.
 */
export function warmupMs(runMs: number, cycleMs: number, fullWarmupMs: number = FULL_WARMUP_MS): number | null {
  const at = Math.min(fullWarmupMs, Math.max(runMs * WARMUP_SHARE, cycleMs));
  return at < runMs ? at : null;
}

/** One process's RSS at the warm-up mark and at the end, bytes (null: not sampled, e.g. it was not running). */
export interface RssPair {
  readonly process: string;
  readonly warmupBytes: number | null;
  readonly endBytes: number | null;
}

/** The memory rule's finding for one process. */
export interface MemoryFinding extends RssPair {
  /** (end − warm-up) / warm-up; null when either sample is missing. */
  readonly growth: number | null;
  /** True when growth > the limit, or the process was running at warm-up and gone at the end. */
  readonly failed: boolean;
}

/**
 * Applies the memory rule: a process whose RSS at the end is more than `limit` above its warm-up sample
 * fails, and so does one that was sampled at warm-up and not at the end (it died).
 */
export function memoryFindings(pairs: readonly RssPair[], limit: number = DEFAULT_MEMORY_GROWTH_LIMIT): MemoryFinding[] {
  return pairs.map((p) => {
    const growth = p.warmupBytes !== null && p.endBytes !== null && p.warmupBytes > 0 ? (p.endBytes - p.warmupBytes) / p.warmupBytes : null;
    const died = p.warmupBytes !== null && p.endBytes === null;
    return { ...p, growth, failed: died || (growth !== null && growth > limit) };
  });
}

/** What the verdict looks at. */
export interface VerdictInput {
  /** Summed over every subscriber, WebSocket and native. */
  readonly lost: number;
  readonly duplicated: number;
  readonly reordered: number;
  readonly unexpected: number;
  /** Stand-in `stats().disconnects` before it was stopped. */
  readonly geyserDisconnects: number;
  /** ingest's `tradewind_ingest_source_reconnects_total` before the stand-in was stopped (null: not read). */
  readonly ingestReconnects: number | null;
  /** null when the run was too short for the rule. */
  readonly memory: readonly MemoryFinding[] | null;
  /** Service processes that exited during the run, by name. */
  readonly exited: readonly string[];
  /** Subscribers that never got connected and subscribed. */
  readonly unconnected: number;
  /** Transactions the stand-in sent without a stored trade, beyond those the recording decodes to none. */
  readonly unstoredTransactions: number;
}

/** Why the run fails; empty when it passes. Latency is not judged here. */
export function verdictReasons(v: VerdictInput): string[] {
  const out: string[] = [];
  const integrity = { lost: v.lost, duplicated: v.duplicated, reordered: v.reordered, 'not owed (filter or subject mismatch)': v.unexpected };
  for (const [what, n] of Object.entries(integrity)) if (n > 0) out.push(`${n} trade(s) ${what}`);
  if (v.unstoredTransactions > 0) out.push(`${v.unstoredTransactions} transaction(s) sent by the stand-in never reached TRADES`);
  if (v.geyserDisconnects > 0) out.push(`the Yellowstone stand-in saw ${v.geyserDisconnects} disconnect(s)`);
  if (v.ingestReconnects === null) out.push("ingest's tradewind_ingest_source_reconnects_total could not be read");
  else if (v.ingestReconnects > 0) out.push(`ingest reconnected to Yellowstone ${v.ingestReconnects} time(s)`);
  for (const m of v.memory ?? []) {
    if (!m.failed) continue;
    out.push(
      m.growth === null
        ? `${m.process} was running at warm-up and not at the end`
        : `${m.process} RSS grew ${(m.growth * 100).toFixed(1)} % after warm-up (${mib(m.warmupBytes)} → ${mib(m.endBytes)} MiB)`,
    );
  }
  for (const name of v.exited) out.push(`${name} exited during the run`);
  if (v.unconnected > 0) out.push(`${v.unconnected} subscriber(s) never connected`);
  return out;
}

const mib = (bytes: number | null) => (bytes === null ? '-' : (bytes / 2 ** 20).toFixed(1));
