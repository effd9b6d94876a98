/**
 * `npx tsx scripts/cluster-cold-starts.ts [runs]`: starts the whole local stack on a 3-node NATS cluster
 * (`npm start -- --nats-cluster`, scripts/start.ts) `runs` times in a row (default 3), each from a fresh state
 * directory (new operator keys, new JetStream stores) and a fresh scratch database on the test PostgreSQL
 * server (TEST_DATABASE_URL, default postgres://postgres@127.0.0.1:5432/test), and checks that every run comes
 * up ("Tradewind is running": a trade reached a WebSocket client) within RUN_TIMEOUT_MS and stops with exit 0.
 * Too slow for `npm test` (a minute or more per run); the suite's scripts/test/startup-cluster.int.test.ts does
 * three cold starts of the stream-creating services instead (docs/local-stack.md).
 *
 * Prints one line per run (seconds to running, how many start-up retries the services logged) and exits 1
 * after the first run that fails, with the tail of its output and its state directory kept for reading.
 * npm start's fixed ports (8080, 4223, …) must be free.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createTestDatabase } from '@tradewind/dev';

const ROOT = resolve(import.meta.dirname, '..');
/** Longest one run may take to print "Tradewind is running", ms (the web build of a first run included). */
const RUN_TIMEOUT_MS = 300_000;
/** Longest npm start may take to stop after SIGINT, ms. */
const STOP_TIMEOUT_MS = 60_000;

/** Start-up retries the services logged in `stateDir/logs` (lines with `startup_step` at warn). */
function startupRetries(stateDir: string): Record<string, number> {
  const counts: Record<string, number> = {};
  let files: string[] = [];
  try {
    files = readdirSync(join(stateDir, 'logs')).filter((f) => f.endsWith('.log'));
  } catch {
    return counts;
  }
  for (const file of files) {
    const n = readFileSync(join(stateDir, 'logs', file), 'utf8')
      .split('\n')
      .filter((line) => line.includes('"startup_step"') && line.includes('"level":40')).length;
    if (n > 0) counts[file.replace(/\.log$/, '')] = n;
  }
  return counts;
}

/** One `npm start -- --nats-cluster`. @returns seconds until it was running. @throws Error with the output's tail when it fails. */
async function oneRun(run: number): Promise<number> {
  const stateDir = mkdtempSync(join(tmpdir(), `tw-cold-start-${run}-`));
  const db = await createTestDatabase(`cold_start_${run}`);
  let out = '';
  const started = Date.now();
  const proc = spawn(process.execPath, ['--import', 'tsx', 'scripts/start.ts', '--nats-cluster'], {
    cwd: ROOT,
    env: { ...process.env, TRADEWIND_STATE_DIR: stateDir, DATABASE_URL: db.url },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  proc.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  proc.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | null>((r) => proc.once('exit', (code) => r(code)));
  let failure: string | undefined;
  let seconds = 0;
  while (!out.includes('Tradewind is running')) {
    if (proc.exitCode !== null) {
      failure = `npm start exited with ${proc.exitCode}`;
      break;
    }
    if (Date.now() - started > RUN_TIMEOUT_MS) {
      failure = `not running after ${RUN_TIMEOUT_MS / 1000} s`;
      break;
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  if (!failure) seconds = (Date.now() - started) / 1000;
  if (proc.exitCode === null) {
    proc.kill('SIGINT');
    const timer = setTimeout(() => proc.kill('SIGKILL'), STOP_TIMEOUT_MS);
    const code = await exited;
    clearTimeout(timer);
    if (!failure && code !== 0) failure = `npm start stopped with exit ${code}`;
  }
  await db.drop().catch(() => undefined);
  const retries = startupRetries(stateDir);
  if (failure) {
    throw new Error(`run ${run}: ${failure} (state and logs kept in ${stateDir}; start-up retries ${JSON.stringify(retries)}):\n${out.slice(-4000)}`);
  }
  rmSync(stateDir, { recursive: true, force: true });
  process.stdout.write(`run ${run}: running after ${seconds.toFixed(1)} s; start-up retries logged: ${JSON.stringify(retries)}\n`);
  return seconds;
}

const runs = Number(process.argv[2] ?? 3);
if (!Number.isInteger(runs) || runs < 1) {
  process.stderr.write(`cluster-cold-starts: runs must be a whole number ≥ 1 (got "${process.argv[2]}")\n`);
  process.exit(1);
}
try {
  const times: number[] = [];
  for (let run = 1; run <= runs; run++) times.push(await oneRun(run));
  process.stdout.write(`all ${runs} cold starts on a 3-node cluster came up (${times.map((t) => t.toFixed(1)).join(' s, ')} s)\n`);
} catch (err) {
  process.stderr.write(`${(err as Error).message}\n`);
  process.exit(1);
}
