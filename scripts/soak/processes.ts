/**
 * The soak's child processes: the services from their real entry points (`node --import tsx
 * services/<name>/src/main.ts`, as npm start and scripts/bench/fanout.ts run them) and the forked helper
 * processes (subscribers, the Yellowstone stand-in) with a request/answer channel over IPC.
 */
import { fork, spawn, type ChildProcess } from 'node:child_process';
import { get } from 'node:http';
import { fileURLToPath } from 'node:url';
import { childReady } from '../bench/child-cleanup.js';

const repo = fileURLToPath(new URL('../..', import.meta.url));
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
/** Lines of a service's output kept for error messages. */
const TAIL_LINES = 30;
/** Grace after SIGTERM before SIGKILL, ms: longer than the services' SHUTDOWN_DEADLINE_MS default (10 s). */
const STOP_GRACE_MS = 15_000;

/** A forked helper with `{id, ...request}` → `{id, ok, result | error}` calls and unsolicited messages. */
export class IpcChild {
  private nextId = 0;
  private readonly pending = new Map<number, { resolve(v: unknown): void; reject(e: Error): void; timer: NodeJS.Timeout }>();
  private exitCode: number | string | null = null;
  private readonly stderrTail: string[] = [];

  private constructor(
    readonly name: string,
    readonly child: ChildProcess,
    onMessage: (m: Record<string, unknown>) => void,
  ) {
    child.on('message', (m: { id?: number; ok?: boolean; result?: unknown; error?: string } & Record<string, unknown>) => {
      const p = m.id === undefined ? undefined : this.pending.get(m.id);
      if (!p) {
        if (m.id === undefined && !m.ready) onMessage(m);
        return;
      }
      this.pending.delete(m.id!);
      clearTimeout(p.timer);
      if (m.ok) p.resolve(m.result);
      else p.reject(new Error(`${name}: ${m.error}`));
    });
    child.stderr?.on('data', (d: Buffer) => {
      process.stderr.write(d);
      keepTail(this.stderrTail, d);
    });
    child.once('exit', (code, signal) => {
      this.exitCode = signal ?? code;
      for (const p of this.pending.values()) {
        clearTimeout(p.timer);
        p.reject(new Error(`${name} exited (${this.exitCode}): ${this.stderrTail.slice(-5).join(' | ')}`));
      }
      this.pending.clear();
    });
  }

  /** Forks `entry` (a .ts file next to this one) under tsx; resolves after its `{ready: true}` (within `timeoutMs`). */
  static async start(name: string, entry: string, onMessage: (m: Record<string, unknown>) => void = () => undefined, timeoutMs = 60_000): Promise<IpcChild> {
    const child = fork(fileURLToPath(new URL(entry, import.meta.url)), [], {
      cwd: repo,
      execArgv: ['--import', 'tsx'],
      stdio: ['ignore', 'inherit', 'pipe', 'ipc'],
      serialization: 'advanced',
    });
    const proc = new IpcChild(name, child, onMessage);
    await childReady(child, name, timeoutMs);
    return proc;
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  get exited(): boolean {
    return this.exitCode !== null;
  }

  call<T>(req: { cmd: string } & Record<string, unknown>, timeoutMs: number): Promise<T> {
    if (this.exited) return Promise.reject(new Error(`${this.name} has exited`));
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new Error(`${this.name} did not answer ${req.cmd} within ${timeoutMs} ms`));
      }, timeoutMs);
      this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject, timer });
      this.child.send({ id, ...req });
    });
  }

  /** Sends a message that gets no answer (false when the channel is gone). */
  post(message: object): boolean {
    if (this.exited || !this.child.connected) return false;
    return this.child.send(message);
  }

  /** Closes the IPC channel (the child exits on it), SIGTERM after 3 s, SIGKILL after 3 more; resolves when it exited. */
  async stop(): Promise<void> {
    if (this.exited) return;
    const exit = new Promise<void>((r) => this.child.once('exit', () => r()));
    if (this.child.connected) this.child.disconnect();
    const term = setTimeout(() => this.child.kill('SIGTERM'), 3_000);
    const kill = setTimeout(() => this.child.kill('SIGKILL'), 6_000);
    await exit;
    clearTimeout(term);
    clearTimeout(kill);
  }
}

function keepTail(tail: string[], d: Buffer): void {
  for (const line of d.toString().split('\n')) {
    if (!line.trim()) continue;
    tail.push(line.length > 400 ? `${line.slice(0, 400)}…` : line);
    if (tail.length > TAIL_LINES) tail.shift();
  }
}

/** One HTTP GET on loopback: status and body ('' on error), within `timeoutMs`. */
export function httpGet(url: string, timeoutMs: number): Promise<{ status: number; body: string }> {
  return new Promise((resolve) => {
    const req = get(url, { agent: false, timeout: timeoutMs }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.once('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString() }));
      res.once('error', () => resolve({ status: 0, body: '' }));
    });
    req.once('timeout', () => req.destroy(new Error('timeout')));
    req.once('error', () => resolve({ status: 0, body: '' }));
  });
}

/** The services the soak runs. */
export type ServiceName = 'ingest' | 'ws-fanout' | 'token-price';

/** A service started from its real entry point. */
export class ServiceProcess {
  private readonly tailLines: string[] = [];
  private exitCode: number | string | null = null;
  private stopping = false;
  private readonly exitedPromise: Promise<void>;

  private constructor(
    readonly name: ServiceName,
    readonly child: ChildProcess,
    readonly adminPort: number,
  ) {
    child.stdout?.on('data', (d: Buffer) => keepTail(this.tailLines, d));
    child.stderr?.on('data', (d: Buffer) => keepTail(this.tailLines, d));
    this.exitedPromise = new Promise<void>((r) =>
      child.once('exit', (code, signal) => {
        this.exitCode = signal ?? code;
        r();
      }),
    );
    child.once('error', (err) => this.tailLines.push(String(err)));
  }

  /**
   * Spawns `services/<name>/src/main.ts` with `env` (ADMIN_PORT = `adminPort`), tells `onSpawn` its pid and
   * a command-line substring that identifies it, and waits until its `/readyz` answers 200. @throws Error with its last output lines when it exits first or is not ready within `timeoutMs`.
   */
  static async start(
    name: ServiceName,
    env: NodeJS.ProcessEnv,
    adminPort: number,
    timeoutMs: number,
    onSpawn: (pid: number, commandMatch: string) => void = () => undefined,
  ): Promise<ServiceProcess> {
    const entry = `services/${name}/src/main.ts`;
    const child = spawn(process.execPath, ['--import', 'tsx', entry], {
      cwd: repo,
      env: { ...env, ADMIN_PORT: String(adminPort) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    if (child.pid !== undefined) onSpawn(child.pid, entry);
    const svc = new ServiceProcess(name, child, adminPort);
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (svc.exited) throw new Error(`${name} exited (${svc.exitCode}) before it was ready:\n${svc.tail()}`);
      if (Date.now() > deadline) {
        await svc.stop();
        throw new Error(`${name} not ready within ${timeoutMs} ms:\n${svc.tail()}`);
      }
      if ((await httpGet(`http://127.0.0.1:${adminPort}/readyz`, 1_000)).status === 200) return svc;
      await sleep(200);
    }
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  get exited(): boolean {
    return this.exitCode !== null;
  }

  /** True when it exited without {@link stop} being called. */
  get died(): boolean {
    return this.exited && !this.stopping;
  }

  tail(): string {
    return this.tailLines.join('\n');
  }

  /** Its `/metrics` text, or null when it does not answer. */
  async metrics(timeoutMs = 2_000): Promise<string | null> {
    const r = await httpGet(`http://127.0.0.1:${this.adminPort}/metrics`, timeoutMs);
    return r.status === 200 ? r.body : null;
  }

  /** SIGTERM (graceful shutdown, docs/style.md §8), SIGKILL after {@link STOP_GRACE_MS}; resolves when it exited. */
  async stop(): Promise<void> {
    this.stopping = true;
    if (this.exited) return;
    this.child.kill('SIGTERM');
    const t = setTimeout(() => this.child.kill('SIGKILL'), STOP_GRACE_MS);
    await this.exitedPromise;
    clearTimeout(t);
  }

  /** SIGKILL now (the harness is exiting without a clean stop). */
  kill(): void {
    if (!this.exited) this.child.kill('SIGKILL');
  }
}
