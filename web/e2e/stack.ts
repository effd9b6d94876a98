/**
 * The real local stack for the end-to-end tests: `scripts/start.ts` (what `npm start` runs) in a
 * child process with its own state directory and a scratch database on the test PostgreSQL
 * server. Ports are npm start's fixed ones (8080, 9223, 4223, …): the e2e run needs them free.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createTestDatabase, isListening, type TestDatabase } from '@tradewind/dev';

const ROOT = resolve(import.meta.dirname, '../..');

export interface LocalStack {
  /** The public origin (local ingress proxy). */
  origin: string;
  /** True when the tests use a stack that was already running ({@link attachRunningStack}); it is not stopped. */
  attached?: boolean;
  stateDir: string;
  /** Everything the start script printed so far. */
  output(): string;
  stop(): Promise<void>;
}

/**
 * Starts the stack and resolves once it printed "Tradewind is running" (a trade reached a
 * WebSocket client). @throws Error with the script's output when it exits or takes longer than `timeoutMs`.
 */
export async function startLocalStack(timeoutMs = 240_000): Promise<LocalStack> {
  for (const port of [8080, 9223, 4223, 5173]) {
    if (await isListening(port)) throw new Error(`port ${port} is in use: stop the running npm start before the e2e tests`);
  }
  const stateDir = mkdtempSync(join(tmpdir(), 'tw-e2e-'));
  const db: TestDatabase = await createTestDatabase('e2e');
  let out = '';
  const proc: ChildProcess = spawn(process.execPath, ['--import', 'tsx', 'scripts/start.ts'], {
    cwd: ROOT,
    env: { ...process.env, TRADEWIND_STATE_DIR: stateDir, DATABASE_URL: db.url, NODE_ENV: 'development', CI: process.env.CI ?? '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  proc.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  proc.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | null>((ok) => proc.once('exit', (code) => ok(code)));

  const stop = async () => {
    if (proc.exitCode === null) {
      proc.kill('SIGINT');
      const timer = setTimeout(() => proc.kill('SIGKILL'), 30_000);
      await exited;
      clearTimeout(timer);
    }
    await db.drop().catch(() => undefined);
    // The services' logs of this run are kept in artifacts/e2e-logs/ (CI keeps artifacts/), so a
    // failure seen only in CI can be read afterwards.
    const keep = join(import.meta.dirname, '../../artifacts/e2e-logs');
    try {
      rmSync(keep, { recursive: true, force: true });
      cpSync(join(stateDir, 'logs'), keep, { recursive: true });
    } catch {
      // no logs written (the stack never started)
    }
    rmSync(stateDir, { recursive: true, force: true });
  };

  const deadline = Date.now() + timeoutMs;
  while (!out.includes('Tradewind is running')) {
    if (proc.exitCode !== null || Date.now() > deadline) {
      const logs = (() => {
        try {
          return readFileSync(join(stateDir, 'logs', 'web-build.log'), 'utf8').slice(-2000);
        } catch {
          return '';
        }
      })();
      await stop();
      throw new Error(`npm start did not come up (${proc.exitCode !== null ? `exit ${proc.exitCode}` : 'timeout'}):\n${out.slice(-4000)}\n${logs}`);
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  return { origin: 'http://localhost:8080', stateDir, output: () => out, stop };
}

/**
 * For working on the tests: the stack an `npm start` already runs on the fixed ports, used as is
 * and left running (`TRADEWIND_E2E_ATTACH=1 npx vitest run --project e2e`). Its state (users,
 * plans) carries over between runs, and its web build is whatever that `npm start` built.
 * @throws Error when nothing listens on the ingress port 8080.
 */
export async function attachRunningStack(): Promise<LocalStack> {
  if (!(await isListening(8080))) throw new Error('TRADEWIND_E2E_ATTACH is set but nothing listens on 8080: run npm start first');
  return { origin: 'http://localhost:8080', stateDir: '', attached: true, output: () => '', stop: async () => undefined };
}
