/**
 * The 3-node NATS cluster of the rolling-restart class (chaos/rolling.ts), restarted the way the NATS
 * StatefulSet's rollout does it: `nats-server --signal ldm=<pid>` (the chart's preStop hook), the node
 * exits by itself once lame duck mode is over, and a new process starts on the same ports and store
 * directory. chaos/nats-cluster.ts only SIGKILLs and hides the pid; this one owns the signal, the exit
 * status and the lame-duck settings.
 *
 * What nats-server 2.9.10 does on `ldm` (server/server.go lameDuckMode): it closes its client listener,
 * hands off the leadership of every Raft group it leads (meta, streams, replicated consumers) and waits
 * 1 s for that, sends a lame-duck INFO to its clients and routes, waits `lame_duck_grace_period`, closes
 * its clients spread over the rest of `lame_duck_duration`, then shuts down and exits 0. The grace period
 * must be strictly shorter than the duration (validateOptions refuses the config otherwise).
 *
 * Every node runs in operator mode with a full resolver in its own store, as chaos/nats-cluster.ts
 * configures it (deploy/nats/nats-server.conf.tmpl), and with `no_advertise`: clients are handed every
 * node's URL.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, waitForPort } from '@tradewind/dev';

/** How a node's process ended. */
export interface NodeExit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  /** True when the harness had to SIGKILL it (lame duck mode did not end within the grace). */
  readonly killed: boolean;
  /** From the ldm signal to the exit, ms. */
  readonly tookMs: number;
}

/** One node of a {@link RollingNatsCluster}. */
export interface RollingNatsNode {
  /** server_name, e.g. `n1`. */
  readonly name: string;
  /** Client port on 127.0.0.1. */
  readonly port: number;
  /** `nats://127.0.0.1:<port>` */
  readonly url: string;
  /** `http://127.0.0.1:<monitor port>` (/healthz, /jsz). */
  readonly monitorUrl: string;
  /** True while its process runs. */
  running(): boolean;
  /** Exits the harness did not ask for (crashes). */
  unexpectedExits(): number;
  /** The last lines of its log file (nats-server's own log), for the notes. */
  logTail(lines?: number): Promise<string>;
}

/** A running cluster. */
export interface RollingNatsCluster {
  readonly nodes: readonly RollingNatsNode[];
  /** Every node's client URL, comma-separated (NATS_URL). */
  readonly urls: string;
  /**
   * Puts node `name` in lame duck mode with `nats-server --signal ldm=<pid>` and waits for it to exit;
   * SIGKILLs it after `graceMs` ms (reported as `killed`). @throws Error for an unknown or stopped node.
   */
  lameDuck(name: string, graceMs: number): Promise<NodeExit>;
  /** Starts node `name` again on its ports and store; resolves once it accepts clients (15 s). @throws Error when it does not. */
  start(name: string): Promise<void>;
  /**
   * True when the node's monitoring `/healthz` answers 200: since 2.9 it checks that JetStream is current with
   * the meta leader and every stream and consumer it holds (what the NATS Helm chart probes).
   */
  healthy(name: string): Promise<boolean>;
  /** SIGKILLs every node and removes the stores. Never throws. */
  stop(): Promise<void>;
}

interface NodeState {
  name: string;
  port: number;
  clusterPort: number;
  monitorPort: number;
  configPath: string;
  logPath: string;
  child: ChildProcess | null;
  expectingExit: boolean;
  unexpected: number;
}

/** Path of nats-server: NATS_SERVER_BIN, else /usr/sbin/nats-server (as chaos/nats-cluster.ts). */
function natsServerBin(): string {
  return process.env.NATS_SERVER_BIN ?? '/usr/sbin/nats-server';
}

/**
 * Starts a cluster of `size` (default 3) JetStream nodes in operator mode and waits until each accepts clients.
 * @param options.operatorConfig credential-issuer's renderNatsAuthConfig output (operator, system account, preloads).
 * @param options.lameDuckDurationMs `lame_duck_duration`, ms.
 * @param options.lameDuckGracePeriodMs `lame_duck_grace_period`, ms; must be below the duration.
 * @throws Error when the grace is not below the duration or a node does not listen within 15 s (all stopped first).
 */
export async function startRollingNatsCluster(options: {
  operatorConfig: string;
  lameDuckDurationMs: number;
  lameDuckGracePeriodMs: number;
  size?: number;
  name?: string;
}): Promise<RollingNatsCluster> {
  if (options.lameDuckGracePeriodMs >= options.lameDuckDurationMs) {
    throw new Error(`lame_duck_grace_period (${options.lameDuckGracePeriodMs} ms) must be below lame_duck_duration (${options.lameDuckDurationMs} ms)`);
  }
  const size = options.size ?? 3;
  const dir = await mkdtemp(join(tmpdir(), 'tw-chaos-rolling-nats-'));
  const states: NodeState[] = [];
  for (let i = 1; i <= size; i++) {
    states.push({
      name: `n${i}`,
      port: await freePort(),
      clusterPort: await freePort(),
      monitorPort: await freePort(),
      configPath: join(dir, `n${i}.conf`),
      logPath: join(dir, `n${i}.log`),
      child: null,
      expectingExit: false,
      unexpected: 0,
    });
  }
  const routes = states.map((s) => `nats-route://127.0.0.1:${s.clusterPort}`).join(', ');
  for (const s of states) {
    const store = join(dir, s.name);
    await mkdir(store, { recursive: true });
    await writeFile(
      s.configPath,
      [
        `server_name: ${s.name}`,
        `listen: 127.0.0.1:${s.port}`,
        `http: 127.0.0.1:${s.monitorPort}`,
        // Room for the reservations of every stream the services create: TRADES (256 MiB here) and credential-issuer's
        // REPLAY mirror of it (max_bytes 1 GiB, DEFAULT_TRADES_STREAM) on one node; limits, not disk actually used.
        `jetstream { store_dir: "${store}", max_memory_store: 256MB, max_file_store: 8GB }`,
        `cluster { name: ${options.name ?? 'tw-rolling'}, listen: 127.0.0.1:${s.clusterPort}, no_advertise: true, routes: [${routes}] }`,
        `lame_duck_duration: "${options.lameDuckDurationMs}ms"`,
        `lame_duck_grace_period: "${options.lameDuckGracePeriodMs}ms"`,
        options.operatorConfig,
        `resolver { type: full, dir: "${join(store, 'resolver')}", allow_delete: false, interval: "2m", timeout: "1.9s" }`,
        '',
      ].join('\n'),
    );
  }

  async function launch(s: NodeState): Promise<void> {
    const child = spawn(natsServerBin(), ['-c', s.configPath, '-l', s.logPath], { stdio: 'ignore' });
    s.child = child;
    s.expectingExit = false;
    child.once('exit', () => {
      if (!s.expectingExit) s.unexpected++;
      if (s.child === child) s.child = null;
    });
    child.once('error', () => undefined);
    await waitForPort(s.port, '127.0.0.1', 15_000, () => s.child === child);
  }

  async function killState(s: NodeState): Promise<void> {
    const child = s.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    s.expectingExit = true;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill('SIGKILL');
    await exited;
  }

  const stop = async (): Promise<void> => {
    for (const s of states) await killState(s).catch(() => undefined);
    await rm(dir, { recursive: true, force: true }).catch(() => undefined);
  };

  try {
    await Promise.all(states.map(launch));
  } catch (err) {
    // The nodes' own words (a port taken between freePort() and the bind, a bad config…), before the logs go.
    const logs = await Promise.all(
      states.map(async (x) => `${x.name}: ${(await readFile(x.logPath, 'utf8').catch(() => '')).trim().split('\n').slice(-3).join(' | ')}`),
    );
    await stop();
    throw new Error(`NATS cluster did not start: ${(err as Error).message}; ${logs.join('; ')}`);
  }

  const byName = (name: string): NodeState => {
    const s = states.find((x) => x.name === name);
    if (!s) throw new Error(`no node named ${name}`);
    return s;
  };

  const lameDuck = async (name: string, graceMs: number): Promise<NodeExit> => {
    const s = byName(name);
    const child = s.child;
    if (!child?.pid || child.exitCode !== null || child.signalCode !== null) throw new Error(`${name} is not running`);
    s.expectingExit = true;
    const started = Date.now();
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      child.once('exit', (code, signal) => resolve({ code, signal })),
    );
    // What the NATS chart's preStop hook runs (`nats-server -sl=ldm=<pid file>`): the binary sends SIGUSR2.
    const signaller = spawn(natsServerBin(), ['--signal', `ldm=${child.pid}`], { stdio: 'ignore' });
    await new Promise<void>((resolve) => {
      signaller.once('exit', () => resolve());
      signaller.once('error', () => {
        child.kill('SIGUSR2');
        resolve();
      });
    });
    let killed = false;
    const timer = setTimeout(() => {
      killed = true;
      child.kill('SIGKILL');
    }, graceMs);
    const { code, signal } = await exited;
    clearTimeout(timer);
    return { code, signal, killed, tookMs: Date.now() - started };
  };

  return {
    nodes: states.map((s) => ({
      name: s.name,
      port: s.port,
      url: `nats://127.0.0.1:${s.port}`,
      monitorUrl: `http://127.0.0.1:${s.monitorPort}`,
      running: () => s.child !== null,
      unexpectedExits: () => s.unexpected,
      logTail: async (lines = 8) => (await readFile(s.logPath, 'utf8').catch(() => '')).trimEnd().split('\n').slice(-lines).join(' | '),
    })),
    urls: states.map((s) => `nats://127.0.0.1:${s.port}`).join(','),
    lameDuck,
    start: (name) => launch(byName(name)),
    healthy: async (name) => {
      const s = byName(name);
      return fetch(`http://127.0.0.1:${s.monitorPort}/healthz`, { signal: AbortSignal.timeout(2_000) }).then(
        (r) => r.ok,
        () => false,
      );
    },
    stop,
  };
}
