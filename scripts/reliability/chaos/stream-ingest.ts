/**
 * ingest as a real child process (`node --import tsx services/ingest/src/main.ts`), as npm start runs
 * it, so a fault can SIGKILL it. Replay source (the bundled mainnet recording, looped).
 */
import { appendFileSync } from 'node:fs';
import { spawn, type ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';
import { freePort } from '@tradewind/dev';

const REPO_ROOT = resolve(import.meta.dirname, '..', '..', '..');

/** A running ingest process. */
export interface IngestProcess {
  readonly pid: number;
  /** Its ADMIN_PORT (/metrics, /healthz) on 127.0.0.1. */
  readonly adminPort: number;
  /** The last 64 KiB of its stdout+stderr (JSON log lines). */
  output(): string;
  /** True while the process runs. */
  running(): boolean;
  /** Whether it exited without kill()/stop() asking (a crash). */
  exitedUnexpectedly(): boolean;
  /** Sends `signal` (default SIGKILL) and waits for the exit. */
  kill(signal?: NodeJS.Signals): Promise<void>;
  /** SIGTERM, SIGKILL after `graceMs` (default 5000 ms); waits for the exit. Never throws. */
  stop(graceMs?: number): Promise<void>;
}

/**
 * Spawns ingest with the replay source against `natsUrl` (comma-separated URLs allowed).
 * @param options.transactionsPerSecond replay pace (REPLAY_TRANSACTIONS_PER_SECOND).
 * @param options.env extra environment (overrides the defaults).
 * @throws nothing: a process that fails to start shows as not running with its output.
 */
export async function spawnIngest(options: { natsUrl: string; transactionsPerSecond: number; env?: Record<string, string> }): Promise<IngestProcess> {
  const adminPort = await freePort();
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    NODE_ENV: 'production',
    LOG_LEVEL: process.env.CHAOS_INGEST_LOG ? 'info' : 'warn',
    ADMIN_PORT: String(adminPort),
    NATS_URL: options.natsUrl,
    INGEST_SOURCE: 'replay',
    REPLAY_LOOP: 'true',
    REPLAY_TRANSACTIONS_PER_SECOND: String(options.transactionsPerSecond),
    PUBLISH_MAX_BACKOFF_MS: '1000',
    TRADES_MAX_BYTES: String(256 * 1024 * 1024),
    // The chaos cluster has 3 servers: ingest's stream setting must say so, as the chart's does
    // (charts/tradewind NATS_STREAM_REPLICAS), else its start scales TRADES down to 1 replica and a
    // leader kill takes the stream away until that server returns.
    NATS_STREAM_REPLICAS: '3',
    ...options.env,
  };
  delete env.NATS_CREDS;
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', 'services/ingest/src/main.ts'], {
    cwd: REPO_ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  // CHAOS_INGEST_LOG=<file>: every ingest's whole output, appended (the kept tail is 64 KiB), for debugging a run.
  const logFile = process.env.CHAOS_INGEST_LOG;
  const append = (d: Buffer) => {
    if (logFile) appendFileSync(logFile, d);
    out += d.toString();
    if (out.length > 65_536) out = out.slice(-65_536);
  };
  child.stdout?.on('data', append);
  child.stderr?.on('data', append);
  child.once('error', (err) => append(Buffer.from(String(err))));
  let expected = false;
  let exited = false;
  const exit = new Promise<void>((r) =>
    child.once('exit', () => {
      exited = true;
      r();
    }),
  );
  const kill = async (signal: NodeJS.Signals = 'SIGKILL') => {
    expected = true;
    if (!exited) child.kill(signal);
    await exit;
  };
  return {
    pid: child.pid ?? -1,
    adminPort,
    output: () => out,
    running: () => !exited,
    exitedUnexpectedly: () => exited && !expected,
    kill,
    async stop(graceMs = 5000) {
      expected = true;
      if (exited) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      await exit;
      clearTimeout(timer);
    },
  };
}
