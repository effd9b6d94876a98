/**
 * Resident memory and CPU time of processes, from Linux's /proc (proc(5)), and the machine the soak ran on.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { availableParallelism, totalmem } from 'node:os';
import { readCpuSeconds } from '../bench/proc-cpu.js';

/** One reading of a process. */
export interface ProcReading {
  /** Resident set size, bytes (`VmRSS` of /proc/<pid>/status). */
  rssBytes: number;
  /** User + system CPU time used so far, seconds (/proc/<pid>/stat fields 14 and 15). */
  cpuSeconds: number;
}

/** `pid`'s RSS and CPU time; null when it is gone (or /proc is unreadable). */
export function readProc(pid: number): ProcReading | null {
  try {
    const cpuSeconds = readCpuSeconds(pid);
    if (cpuSeconds === null) return null;
    const rss = /^VmRSS:\s+(\d+)\s+kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    if (!rss) return null;
    return { rssBytes: Number(rss[1]) * 1024, cpuSeconds };
  } catch {
    return null;
  }
}

/**
 * Pids of `pid`'s child processes whose command line contains `match` (ws-fanout's node:cluster workers run
 * its main.ts; other children, such as the esbuild service tsx starts and stops, do not), oldest first;
 * empty when `ps` fails.
 */
export function childPids(pid: number, match: string): number[] {
  try {
    return execFileSync('ps', ['-o', 'pid=', '--ppid', String(pid), '--sort=start_time'], { encoding: 'utf8' })
      .split('\n')
      .map((s) => Number(s.trim()))
      .filter((n) => n > 0 && commandLine(n).includes(match));
  } catch {
    return [];
  }
}

/** `pid`'s command line, arguments joined by spaces ('' when it is gone). */
function commandLine(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ');
  } catch {
    return '';
  }
}

/** Machine-wide CPU time so far, in clock ticks summed over every core (the `cpu` line of /proc/stat): busy and total. */
export interface MachineCpu {
  busy: number;
  total: number;
}

/** null when /proc/stat is unreadable (not Linux). */
export function readMachineCpu(): MachineCpu | null {
  try {
    const line = readFileSync('/proc/stat', 'utf8').split('\n')[0]!;
    // user nice system idle iowait irq softirq steal guest guest_nice (proc(5)); guest time is already in user.
    const f = line.trim().split(/\s+/).slice(1, 9).map(Number);
    const total = f.reduce((a, b) => a + b, 0);
    const idle = f[3]! + f[4]!;
    return { busy: total - idle, total };
  } catch {
    return null;
  }
}

/** The machine, as docs/performance.md states it: cores (`nproc`), CPU model (/proc/cpuinfo), RAM. */
export interface MachineInfo {
  cores: number;
  cpuModel: string;
  ramGiB: number;
  node: string;
}

export function machineInfo(): MachineInfo {
  let cpuModel = 'unknown';
  try {
    cpuModel = /^model name\s*:\s*(.+)$/m.exec(readFileSync('/proc/cpuinfo', 'utf8'))?.[1]?.trim() ?? cpuModel;
  } catch {
    // not Linux: left unknown
  }
  return { cores: availableParallelism(), cpuModel, ramGiB: Math.round((totalmem() / 2 ** 30) * 10) / 10, node: process.version };
}
