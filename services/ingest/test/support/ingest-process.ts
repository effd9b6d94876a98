/**
 * ingest as a real child process (`node --import tsx services/ingest/src/main.ts`, as `npm start` runs
 * it), so tests can SIGTERM or SIGKILL it and read its /metrics and /readyz.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';
import { freePort } from '@tradewind/dev';

const REPO_ROOT = resolve(import.meta.dirname, '..', '..', '..', '..');

/** A running ingest process. */
export interface IngestProcess {
  readonly name: string;
  readonly adminPort: number;
  /** Its stdout+stderr so far (JSON log lines), the last 256 KiB. */
  output(): string;
  /** True until the process exited. */
  running(): boolean;
  /** The value of an unlabelled sample, or the sum of a metric's samples whose labels include `labels`; null when the process does not answer. */
  metric(name: string, labels?: Record<string, string>): Promise<number | null>;
  /** True when /readyz answers 200. */
  ready(): Promise<boolean>;
  /** Sends `signal` and waits for the exit (SIGKILL after 20 s). */
  kill(signal: NodeJS.Signals): Promise<void>;
}

/**
 * Spawns ingest with `env` on top of a test environment (NODE_ENV production, a free ADMIN_PORT,
 * LOG_LEVEL info). Throws nothing: a process that fails shows as not running, with its output.
 */
export async function spawnIngestProcess(name: string, env: Record<string, string>): Promise<IngestProcess> {
  const adminPort = await freePort();
  const childEnv: NodeJS.ProcessEnv = { ...process.env, NODE_ENV: 'production', LOG_LEVEL: 'info', ADMIN_PORT: String(adminPort), ...env };
  delete childEnv.NATS_CREDS;
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', 'services/ingest/src/main.ts'], {
    cwd: REPO_ROOT,
    env: childEnv,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const append = (d: Buffer) => {
    out += d.toString();
    if (out.length > 262_144) out = out.slice(-262_144);
  };
  child.stdout?.on('data', append);
  child.stderr?.on('data', append);
  child.once('error', (err) => append(Buffer.from(String(err))));
  let exited = false;
  const exit = new Promise<void>((r) =>
    child.once('exit', () => {
      exited = true;
      r();
    }),
  );
  const base = `http://127.0.0.1:${adminPort}`;
  return {
    name,
    adminPort,
    output: () => out,
    running: () => !exited,
    async metric(metricName, labels = {}) {
      let text: string;
      try {
        text = await (await fetch(`${base}/metrics`, { signal: AbortSignal.timeout(2_000) })).text();
      } catch {
        return null;
      }
      let sum = 0;
      let found = false;
      for (const line of text.split('\n')) {
        const m = /^([a-zA-Z_:][\w:]*)(\{([^}]*)\})? (\S+)$/.exec(line);
        if (!m || m[1] !== metricName) continue;
        const have = Object.fromEntries([...(m[3] ?? '').matchAll(/(\w+)="([^"]*)"/g)].map((x) => [x[1], x[2]]));
        if (Object.entries(labels).every(([k, v]) => have[k] === v)) {
          sum += Number(m[4]);
          found = true;
        }
      }
      return found ? sum : 0;
    },
    async ready() {
      try {
        return (await fetch(`${base}/readyz`, { signal: AbortSignal.timeout(2_000) })).status === 200;
      } catch {
        return false;
      }
    },
    async kill(signal) {
      if (!exited) child.kill(signal);
      const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
      await exit;
      clearTimeout(timer);
    },
  };
}
