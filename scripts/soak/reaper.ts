/**
 * The soak's reaper: a small process forked first by the harness (scripts/soak/harness.ts) that is told the
 * pid of every process the harness starts. When its IPC channel closes — the harness ended, however it ended,
 * SIGKILL included (then no `exit` handler of the harness runs) — it SIGKILLs those still running, so a killed
 * soak (e.g. a test runner tearing down its worker after a timeout) leaves no nats-server or service behind.
 *
 * Messages `{pid, match}`: watch `pid`, a process whose command line contains `match` (checked again before the
 * kill, so a pid the system has reused for another program is left alone); `{forget: pid}`: it was stopped;
 * `{dir}`: a temporary directory to remove after the kills (the NATS cluster's state).
 */
import { existsSync, readFileSync, rmSync } from 'node:fs';

/** How long the reaper waits for the killed processes to be gone before it removes the directories, ms. */
const GONE_WAIT_MS = 3_000;

const watched = new Map<number, string>();
const dirs = new Set<string>();

/** Whether `pid` is still the process registered with `match`. */
function isOurs(pid: number, match: string): boolean {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').includes(match);
  } catch {
    return false;
  }
}

if (process.send) {
  process.on('message', (m: { pid?: number; match?: string; forget?: number; dir?: string }) => {
    if (m.pid !== undefined && m.match) watched.set(m.pid, m.match);
    if (m.forget !== undefined) watched.delete(m.forget);
    if (m.dir) dirs.add(m.dir);
  });
  process.on('disconnect', () => {
    const killed: number[] = [];
    for (const [pid, match] of watched) {
      if (!isOurs(pid, match)) continue;
      try {
        process.kill(pid, 'SIGKILL');
        killed.push(pid);
      } catch {
        // already gone
      }
    }
    const deadline = Date.now() + GONE_WAIT_MS;
    const finish = () => {
      if (killed.some((pid) => existsSync(`/proc/${pid}`)) && Date.now() < deadline) return void setTimeout(finish, 50);
      for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
      process.exit(0);
    };
    finish();
  });
  process.send({ ready: true });
}
