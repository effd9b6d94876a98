/**
 * The report every reliability run ends with (issue 24; docs/reliability.md): one row per fault or
 * input class, the same table for `npm run chaos`, `npm run fuzz` and their small versions inside
 * `npm test`, and the exit status derived from it.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join, resolve } from 'node:path';

/** One fault (chaos) or input class (fuzz) and what happened to it. */
export interface ReliabilityRow {
  /** The fault or input class, e.g. "NATS stream leader killed (SIGKILL)" or "WebSocket: mutated frames before authentication". */
  readonly name: string;
  /** Faults injected or inputs tried. */
  readonly tried: number;
  /** Trades that never reached a subscriber (chaos), or effects lost (fuzz: e.g. a webhook applied 0 times). */
  readonly lost: number;
  /** Trades delivered more than once to one subscriber, or effects applied more than once. */
  readonly duplicated: number;
  /** Process crashes, unhandled rejections, 5xx answers, hangs past the class's deadline, or wrong values accepted as valid. */
  readonly crashed: number;
  /** Longest time from the fault to service restored, ms; null where the class has no recovery (input fuzzing). */
  readonly recoveryMs: number | null;
  /** Seed, sizes, what "recovered" means for this class; one line. */
  readonly notes?: string;
}

/** How large a run is: 'test' inside `npm test` (seconds), 'full' for `npm run chaos` / `npm run fuzz`. */
export type ReliabilityScale = 'test' | 'full';

/** The scale of this process: RELIABILITY_SCALE=full|test; default 'test'. @throws Error on another value. */
export function reliabilityScale(env: NodeJS.ProcessEnv = process.env): ReliabilityScale {
  const raw = env.RELIABILITY_SCALE ?? 'test';
  if (raw !== 'test' && raw !== 'full') throw new Error(`RELIABILITY_SCALE must be "test" or "full", got "${raw}"`);
  return raw;
}

/** The fast-check seed of this process: FUZZ_SEED (an integer), else `fallback`. @throws Error on a non-integer. */
export function fuzzSeed(fallback: number, env: NodeJS.ProcessEnv = process.env): number {
  const raw = env.FUZZ_SEED;
  if (raw === undefined || raw === '') return fallback;
  if (!/^-?\d+$/.test(raw)) throw new Error(`FUZZ_SEED must be an integer, got "${raw}"`);
  return Number(raw);
}

/** True when the row shows a failure: anything lost, duplicated or crashed. */
export function rowFailed(row: ReliabilityRow): boolean {
  return row.lost > 0 || row.duplicated > 0 || row.crashed > 0;
}

/** 0 when no row lost, duplicated or crashed anything, else 1 (the exit status of `npm run chaos|fuzz`). */
export function reliabilityExitCode(rows: readonly ReliabilityRow[]): 0 | 1 {
  return rows.some(rowFailed) ? 1 : 0;
}

/** The table of docs/reliability.md: Markdown, one row per class, plus a totals row. */
export function formatReliabilityTable(rows: readonly ReliabilityRow[]): string {
  const head = '| fault or input class | tried | lost | duplicated | crashed | recovery (ms) | notes |\n|---|---:|---:|---:|---:|---:|---|';
  const cell = (text: string) => text.replaceAll('|', '\\|').replaceAll('\n', ' ');
  const lines = rows.map(
    (r) =>
      `| ${cell(r.name)} | ${r.tried} | ${r.lost} | ${r.duplicated} | ${r.crashed} | ${r.recoveryMs === null ? '—' : Math.round(r.recoveryMs)} | ${cell(r.notes ?? '')} |`,
  );
  const sum = (pick: (r: ReliabilityRow) => number) => rows.reduce((n, r) => n + pick(r), 0);
  const worst = rows.reduce<number | null>((m, r) => (r.recoveryMs === null ? m : Math.max(m ?? 0, r.recoveryMs)), null);
  lines.push(
    `| **all** | **${sum((r) => r.tried)}** | **${sum((r) => r.lost)}** | **${sum((r) => r.duplicated)}** | **${sum((r) => r.crashed)}** | **${worst === null ? '—' : Math.round(worst)}** | |`,
  );
  return `${head}\n${lines.join('\n')}\n`;
}

/** Where reports are written: artifacts/reliability/ (git-ignored), beside the screenshots. */
export const REPORT_DIR = resolve(import.meta.dirname, '..', '..', 'artifacts', 'reliability');

/**
 * Prints the table with its date and machine to stdout and writes it as `<kind>.md` and
 * `<kind>.json` in `dir` (default REPORT_DIR). @returns the exit status (see reliabilityExitCode).
 */
export function writeReliabilityReport(
  kind: 'chaos' | 'fuzz',
  rows: readonly ReliabilityRow[],
  options: { dir?: string; scale?: ReliabilityScale; now?: Date } = {},
): 0 | 1 {
  const dir = options.dir ?? REPORT_DIR;
  const now = options.now ?? new Date();
  const cpu = cpus();
  const machine = `${cpu.length} × ${cpu[0]?.model.trim() ?? 'unknown CPU'}, Node ${process.version}`;
  const title = `${kind} (${options.scale ?? reliabilityScale()} size), ${now.toISOString().slice(0, 10)}, ${machine}`;
  const table = formatReliabilityTable(rows);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, `${kind}.md`), `${title}\n\n${table}`);
  writeFileSync(join(dir, `${kind}.json`), `${JSON.stringify({ kind, date: now.toISOString(), machine, rows }, null, 2)}\n`);
  process.stdout.write(`\n${title}\n\n${table}`);
  return reliabilityExitCode(rows);
}
