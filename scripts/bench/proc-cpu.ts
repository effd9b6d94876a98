/**
 * CPU time of a process from /proc (Linux), for the benches that report who was busy on the shared machine
 * (scripts/bench/fanout.ts, scripts/bench/ingest.ts, scripts/soak/procstat.ts).
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

/** Clock ticks per second of /proc/<pid>/stat times (`getconf CLK_TCK`; 100 on Linux). */
const CLK_TCK = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

/**
 * CPU seconds (user + system, `utime` + `stime`, fields 14 and 15 of proc(5)'s /proc/<pid>/stat) `pid` used so
 * far; null when unreadable (process gone, not Linux).
 */
export function readCpuSeconds(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name, which is in parentheses and may hold spaces.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / CLK_TCK;
  } catch {
    return null;
  }
}

/** {@link readCpuSeconds}, 0 when unreadable. */
export function cpuSeconds(pid: number): number {
  return readCpuSeconds(pid) ?? 0;
}
