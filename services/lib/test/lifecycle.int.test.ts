/**
 * Graceful shutdown as a real process sees it: test/fixtures/serve-process.ts runs `serve()` with the
 * shutdown timings from its environment and gets a real SIGTERM.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const SERVE_PROCESS = fileURLToPath(new URL('./fixtures/serve-process.ts', import.meta.url));

interface Served {
  readonly proc: ChildProcess;
  readonly adminUrl: string;
  /** Everything printed on stdout so far. */
  stdout(): string;
  /** When `stopping` (the app's stop()) was printed, ms since the epoch. */
  stoppingAt(): number | undefined;
  exited: Promise<{ code: number | null; at: number }>;
}

const started: ChildProcess[] = [];

afterEach(() => {
  for (const proc of started.splice(0)) if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGKILL');
});

/** Starts the fixture with `env` and waits for its admin port. */
async function startServed(env: Record<string, string>): Promise<Served> {
  const proc = spawn(process.execPath, ['--import', 'tsx', SERVE_PROCESS], {
    cwd: ROOT,
    env: { PATH: process.env.PATH, ADMIN_PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  started.push(proc);
  let out = '';
  let err = '';
  let stoppingAt: number | undefined;
  const exited = new Promise<{ code: number | null; at: number }>((resolve) => proc.once('exit', (code) => resolve({ code, at: Date.now() })));
  const adminPort = await new Promise<number>((resolve, reject) => {
    proc.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      if (stoppingAt === undefined && out.includes('stopping\n')) stoppingAt = Date.now();
      const ready = /\{"adminPort":(\d+)\}/.exec(out);
      if (ready) resolve(Number(ready[1]));
    });
    proc.stderr!.on('data', (d: Buffer) => {
      err += d.toString();
    });
    void exited.then(({ code }) => reject(new Error(`serve-process exited with ${code}: ${err}`)));
  });
  return { proc, adminUrl: `http://127.0.0.1:${adminPort}`, stdout: () => out, stoppingAt: () => stoppingAt, exited };
}

const readyz = (s: Served) => fetch(`${s.adminUrl}/readyz`).then(async (r) => ({ status: r.status, body: (await r.json()) as Record<string, unknown> }));

describe('serve() shutdown', () => {
  it('when SIGTERM arrives with a readiness delay, then /readyz answers 503 during the delay while the app still runs, then the app stops and the process exits 0', async () => {
    const served = await startServed({ SHUTDOWN_READINESS_DELAY_MS: '1500', SHUTDOWN_DEADLINE_MS: '10000' });
    expect((await readyz(served)).status).toBe(200);
    const signalledAt = Date.now();
    served.proc.kill('SIGTERM');
    await expect.poll(async () => (await readyz(served)).status, { timeout: 1000, interval: 20 }).toBe(503);
    expect((await readyz(served)).body).toEqual({ ready: false, failing: ['shutting_down'] });
    // Well inside the 1.5 s delay: not ready, yet still serving.
    expect(served.stdout()).not.toContain('stopping');
    const { code } = await served.exited;
    expect(code).toBe(0);
    expect(served.stdout()).toContain('stopping');
    expect(served.stoppingAt()! - signalledAt).toBeGreaterThanOrEqual(1500 - 20);
  });

  it('when the app does not stop within SHUTDOWN_DEADLINE_MS, then the process exits 1 at the deadline', async () => {
    const served = await startServed({ SHUTDOWN_READINESS_DELAY_MS: '0', SHUTDOWN_DEADLINE_MS: '500', STOP_HANGS: '1' });
    const signalledAt = Date.now();
    served.proc.kill('SIGTERM');
    const { code, at } = await served.exited;
    expect(code).toBe(1);
    expect(served.stdout()).toContain('stopping');
    expect(at - signalledAt).toBeGreaterThanOrEqual(500 - 20);
    expect(at - signalledAt).toBeLessThan(5000);
  });
});
