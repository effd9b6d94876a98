/**
 * A private embedded PostgreSQL for the edge chaos runs (dev/bin/local-postgres.ts, as
 * scripts/test-env.ts starts it): data in a temporary directory, a port chosen once, so it can be
 * stopped and started again on the same address while the services keep their URL.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { freePort } from '@tradewind/dev';
import { stopProcess } from './redis-server.js';

const ROOT = resolve(import.meta.dirname, '..', '..', '..');
/** initdb of a fresh directory included, ms. */
const START_TIMEOUT_MS = 180_000;

/** An embedded PostgreSQL that can be stopped and restarted on the same port with the same data. */
export interface RestartablePostgres {
  /** Admin URL of the `test` database (user postgres). */
  readonly url: string;
  /** True while the server runs. */
  running(): boolean;
  /** Stops the server (fast shutdown: SIGTERM to local-postgres; SIGKILL after 15 s). */
  stop(): Promise<void>;
  /** Starts it again on the same data. @throws Error when it is not ready within 180 s. */
  start(): Promise<void>;
  /** Stops the server and removes its data directory. */
  destroy(): Promise<void>;
}

/** Starts an embedded PostgreSQL on a free port. @throws Error when it is not ready within 180 s. */
export async function startRestartablePostgres(): Promise<RestartablePostgres> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'tw-chaos-pg-'));
  // As root the server runs as the `postgres` system user, which must enter the directory.
  chmodSync(dir, 0o755);
  let proc: ChildProcess | undefined;
  let url = '';
  const start = async () => {
    if (proc && proc.exitCode === null && proc.signalCode === null) return;
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', 'dev/bin/local-postgres.ts', '--data-dir', join(dir, 'data'), '--port', String(port), '--database', 'test', '--no-durability'],
      {
        cwd: ROOT,
        stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
      },
    );
    proc = child;
    let output = '';
    child.stdout?.on('data', (d: Buffer) => {
      output = (output + d.toString()).slice(-4000);
    });
    child.stderr?.on('data', (d: Buffer) => {
      output = (output + d.toString()).slice(-4000);
    });
    url = await new Promise<string>((ok, fail) => {
      const timer = setTimeout(() => fail(new Error(`embedded PostgreSQL not ready after ${START_TIMEOUT_MS / 1000} s:\n${output}`)), START_TIMEOUT_MS);
      child.on('message', (msg: { type?: string; url?: string }) => {
        if (msg.type === 'ready' && msg.url) {
          clearTimeout(timer);
          ok(msg.url);
        }
      });
      child.once('exit', (code) => {
        clearTimeout(timer);
        fail(new Error(`embedded PostgreSQL exited (${code}) before it was ready:\n${output}`));
      });
    }).catch(async (err: unknown) => {
      await stopProcess(child, 'SIGKILL');
      throw err;
    });
  };
  const stop = async () => {
    if (proc) await stopProcess(proc, 'SIGTERM', 15_000);
  };
  try {
    await start();
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  return {
    get url() {
      return url;
    },
    running: () => proc !== undefined && proc.exitCode === null && proc.signalCode === null,
    start,
    stop,
    async destroy() {
      await stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
