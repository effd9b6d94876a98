/**
 * One replica (pod) of a Tradewind service in the rolling-restart class (chaos/rolling.ts): the service's
 * real entry point run the way scripts/start.ts runs it (`node --import tsx services/<name>/src/main.ts`,
 * `web/server/main.ts` for the web server) on ports of its own, and stopped the way the kubelet stops a pod:
 * SIGTERM, then SIGKILL once the termination grace period has passed.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, mkdirSync, type WriteStream } from 'node:fs';
import { join, resolve } from 'node:path';
import { freePort } from '@tradewind/dev';

const ROOT = resolve(import.meta.dirname, '..', '..', '..');

/** The services of a rollout, in the order the class restarts them. */
export const COMPONENTS = ['ingest', 'ws-fanout', 'token-price', 'auth', 'billing', 'credential-issuer', 'web'] as const;
export type Component = (typeof COMPONENTS)[number];

/** Entry point of each component, relative to the repository root (scripts/start.ts). */
export const ENTRY_POINTS: Record<Component, string> = {
  ingest: 'services/ingest/src/main.ts',
  'ws-fanout': 'services/ws-fanout/src/main.ts',
  'token-price': 'services/token-price/src/main.ts',
  auth: 'services/auth/src/main.ts',
  billing: 'services/billing/src/main.ts',
  'credential-issuer': 'services/credential-issuer/src/main.ts',
  web: 'web/server/main.ts',
};

/** Ports of one replica on 127.0.0.1. */
export interface ReplicaPorts {
  readonly admin: number;
  /** The HTTP API or page server (the Ingress target); ws-fanout's WebSocket port is `ws`. */
  readonly http?: number;
  readonly ws?: number;
  readonly grpc?: number;
}

/** How a replica ended. */
export interface ReplicaExit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  /** True when it outlived its grace period and was SIGKILLed. */
  readonly killed: boolean;
  /** From SIGTERM to the exit, ms. */
  readonly tookMs: number;
}

/** A running (or exited) replica. */
export interface Replica {
  /** e.g. `auth-a.1`: component, slot, generation. */
  readonly name: string;
  readonly component: Component;
  readonly ports: ReplicaPorts;
  readonly adminUrl: string;
  readonly pid: number;
  /** The last 16,000 characters of its stdout and stderr (pino JSON lines). */
  output(): string;
  /** True while the process runs. */
  alive(): boolean;
  /** True when it exited without {@link terminate} or {@link kill} (a crash), once it has. */
  exitedUnexpectedly(): boolean;
  /** The exit status and when it happened (epoch ms), once exited. */
  exitStatus(): { code: number | null; signal: NodeJS.Signals | null; at: number } | undefined;
  /** SIGTERM, SIGKILL after `graceMs` ms; resolves at the exit. */
  terminate(graceMs: number): Promise<ReplicaExit>;
  /** SIGKILL (clean-up); resolves at the exit. Never throws. */
  kill(): Promise<void>;
}

/** Which ports a component listens on besides its admin port. */
const PORT_ROLES: Record<Component, ReadonlyArray<keyof Omit<ReplicaPorts, 'admin'>>> = {
  ingest: [],
  'ws-fanout': ['ws'],
  'token-price': ['http', 'grpc'],
  auth: ['http', 'grpc'],
  billing: ['http', 'grpc'],
  'credential-issuer': ['http'],
  web: ['http'],
};

/** Picks free ports for a new replica of `component`. */
export async function replicaPorts(component: Component): Promise<ReplicaPorts> {
  const ports: { admin: number; http?: number; ws?: number; grpc?: number } = { admin: await freePort() };
  for (const role of PORT_ROLES[component]) ports[role] = await freePort();
  return ports;
}

/** The environment keys that put a replica on `ports` (PORT is the WebSocket port for ws-fanout). */
export function portEnv(ports: ReplicaPorts): Record<string, string> {
  return {
    ADMIN_PORT: String(ports.admin),
    HOST: '127.0.0.1',
    ...(ports.http !== undefined ? { PORT: String(ports.http) } : {}),
    ...(ports.ws !== undefined ? { PORT: String(ports.ws) } : {}),
    ...(ports.grpc !== undefined ? { GRPC_PORT: String(ports.grpc) } : {}),
  };
}

/** This run's directory of whole replica logs (`$CHAOS_NATS_LOG_DIR/rolling-replicas-<time>/`), made on first use. */
let replicaLogDir: string | undefined;

/**
 * The whole log of replica `name` (stdout and stderr, appended), kept when `CHAOS_NATS_LOG_DIR` is set (`npm run
 * chaos` sets it) so a failed window can be read afterwards; undefined otherwise.
 */
function replicaLogFile(name: string): WriteStream | undefined {
  const root = process.env.CHAOS_NATS_LOG_DIR;
  if (!root) return undefined;
  replicaLogDir ??= join(root, `rolling-replicas-${new Date().toISOString().replace(/[:.]/g, '-')}`);
  mkdirSync(replicaLogDir, { recursive: true });
  return createWriteStream(join(replicaLogDir, `${name}.log`), { flags: 'a' });
}

/**
 * Spawns one replica: `node --import tsx <entry point>` from the repository root with `env` on top of this
 * process's environment. It is not waited for: readiness is the balancer's probe (rolling-lb.ts).
 * @throws nothing; a process that fails to start shows as exited with its output.
 */
export function spawnReplica(options: { name: string; component: Component; ports: ReplicaPorts; env: Record<string, string> }): Replica {
  const proc: ChildProcess = spawn(process.execPath, ['--import', 'tsx', ENTRY_POINTS[options.component]], {
    cwd: ROOT,
    env: { ...process.env, ...options.env, ...portEnv(options.ports) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const file = replicaLogFile(options.name);
  const keep = (d: Buffer) => {
    out = (out + d.toString()).slice(-16_000);
    file?.write(d);
  };
  proc.once('exit', () => file?.end());
  proc.stdout?.on('data', keep);
  proc.stderr?.on('data', keep);
  proc.once('error', (err) => keep(Buffer.from(String(err))));
  let expected = false;
  let status: { code: number | null; signal: NodeJS.Signals | null; at: number } | undefined;
  const exited = new Promise<void>((r) =>
    proc.once('exit', (code, signal) => {
      status = { code, signal, at: Date.now() };
      r();
    }),
  );
  return {
    name: options.name,
    component: options.component,
    ports: options.ports,
    adminUrl: `http://127.0.0.1:${options.ports.admin}`,
    pid: proc.pid ?? -1,
    output: () => out,
    alive: () => status === undefined,
    exitedUnexpectedly: () => status !== undefined && !expected,
    exitStatus: () => status,
    async terminate(graceMs) {
      expected = true;
      const started = Date.now();
      if (status) return { code: status.code, signal: status.signal, killed: false, tookMs: 0 };
      let killed = false;
      proc.kill('SIGTERM');
      const timer = setTimeout(() => {
        killed = true;
        proc.kill('SIGKILL');
      }, graceMs);
      await exited;
      clearTimeout(timer);
      return { code: status!.code, signal: status!.signal, killed, tookMs: Date.now() - started };
    },
    async kill() {
      expected = true;
      if (status) return;
      proc.kill('SIGKILL');
      await exited;
    },
  };
}

/** Log lines of `output` at level warn (40) or above, each shortened, for the notes (at most `max`). */
export function problemLines(output: string, max = 3): string[] {
  const lines: string[] = [];
  for (const line of output.split('\n')) {
    const level = /"level":(\d+)/.exec(line);
    if ((level && Number(level[1]) >= 40) || /^fatal:|Error:/.test(line)) lines.push(line.slice(0, 300));
  }
  return lines.slice(-max);
}
