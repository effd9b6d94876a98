/**
 * A local JetStream cluster of real nats-server processes on loopback, for fault injection:
 * every node has its own client, route and monitoring port (all from freePort()) and its own
 * store under one temp dir, and can be SIGKILLed and started again on the same ports and store.
 *
 * Without `operatorConfig` the cluster has no authentication (account $G): replication, leader
 * failover and Nats-Msg-Id dedupe do not depend on accounts. With it, every node runs in operator
 * mode (what ws-fanout needs: it verifies customers' user JWTs against account JWTs it looks up
 * through the system account), each node with its own full-resolver directory.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { copyFile, mkdtemp, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, waitForPort } from '@tradewind/dev';
import { clusterNatsServerBin } from '../../lib/cluster-nats-server.js';

/** One node of a {@link NatsCluster}. */
export interface NatsClusterNode {
  /** server_name, e.g. `n1`. */
  readonly name: string;
  /** Client port on 127.0.0.1. */
  readonly port: number;
  /** `nats://127.0.0.1:<port>` */
  readonly url: string;
  /** `http://127.0.0.1:<monitor port>` (JSZ etc.). */
  readonly monitorUrl: string;
  /** True while the process runs. */
  running(): boolean;
  /** Exits that the cluster did not cause (crashes): 0 when every exit came from kill()/stop()/lameDuck(). */
  unexpectedExits(): number;
  /** The last lines of its nats-server log, joined with ` | ` (for notes). */
  logTail(lines?: number): Promise<string>;
}

/** How a node's process ended after {@link NatsCluster.lameDuck}. */
export interface NodeExit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  /** True when it had to be SIGKILLed (lame duck mode did not end within the grace). */
  readonly killed: boolean;
  /** From the ldm signal to the exit, ms. */
  readonly tookMs: number;
}

/** A running cluster; `stop()` kills every node and removes the temp dir. */
export interface NatsCluster {
  readonly nodes: readonly NatsClusterNode[];
  /** Every node's client URL, comma-separated (for NATS_URL / connectNats). */
  readonly urls: string;
  /** SIGKILLs node `name` and waits for the process to exit. @throws Error for an unknown name. */
  kill(name: string): Promise<void>;
  /**
   * Puts node `name` in lame duck mode the way the NATS chart's preStop hook does (`nats-server --signal
   * ldm=<pid>`) and waits for it to exit by itself; SIGKILLs it after `graceMs` (reported as `killed`).
   * What nats-server does then (server.go lameDuckMode): closes its client listener, hands off the leadership
   * of every raft group it leads and waits 1 s, waits `lame_duck_grace_period`, closes its clients spread over
   * the rest of `lame_duck_duration`, exits 0. @throws Error for an unknown or stopped node.
   */
  lameDuck(name: string, graceMs: number): Promise<NodeExit>;
  /**
   * True when the node's monitoring `/healthz` answers 200: since 2.9 it checks that JetStream is current with
   * the meta leader and every stream and consumer it holds (what the NATS Helm chart probes).
   */
  healthy(name: string): Promise<boolean>;
  /** Starts node `name` again on its ports and store; waits until it accepts clients (15 s). @throws Error when it does not. */
  restart(name: string): Promise<void>;
  /** Kills every node (SIGKILL) and removes the stores. Never throws. */
  stop(): Promise<void>;
}

interface NodeState {
  name: string;
  port: number;
  clusterPort: number;
  monitorPort: number;
  configPath: string;
  child: ChildProcess | null;
  expectingExit: boolean;
  unexpected: number;
  logPath: string;
}

/** Path of nats-server: the cluster binary (scripts/lib/cluster-nats-server.ts: Debian 13's 2.10), chosen by the run's set-up. */
function natsServerBin(): string {
  return clusterNatsServerBin();
}

/**
 * Starts `size` (default 3) clustered nats-server processes with JetStream and waits until each
 * accepts clients. @throws Error when a node does not listen within 15 s (everything started is stopped first).
 */
export async function startNatsCluster(
  options: {
    size?: number;
    name?: string;
    /**
     * Operator-mode settings appended to every node's config (`operator`, `system_account`,
     * `resolver_preload`: credential-issuer's renderNatsAuthConfig). Each node then also gets a
     * full resolver in its own store directory, as deploy/nats/nats-server.conf.tmpl configures one.
     */
    operatorConfig?: string;
    /** `lame_duck_duration` / `lame_duck_grace_period`, ms (the grace must be below the duration; 2.9.10 refuses a duration under 30 s). */
    lameDuck?: { durationMs: number; gracePeriodMs: number };
    /** `max_file_store` per node (default `1GB`): reservations of every stream the services create must fit. */
    maxFileStore?: string;
    /** `max_memory_store` per node (default `64MB`). */
    maxMemoryStore?: string;
    /** The nats-server binary (default: the cluster binary, {@link natsServerBin}). */
    bin?: string;
  } = {},
): Promise<NatsCluster> {
  if (options.lameDuck && options.lameDuck.gracePeriodMs >= options.lameDuck.durationMs) {
    throw new Error(`lame_duck_grace_period (${options.lameDuck.gracePeriodMs} ms) must be below lame_duck_duration (${options.lameDuck.durationMs} ms)`);
  }
  const size = options.size ?? 3;
  const dir = await mkdtemp(join(tmpdir(), 'tw-chaos-nats-'));
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
        `jetstream { store_dir: "${store}", max_memory_store: ${options.maxMemoryStore ?? '64MB'}, max_file_store: ${options.maxFileStore ?? '1GB'} }`,
        // no_advertise: clients must not learn the other nodes' addresses, or a client behind a fault proxy
        // would reconnect around it straight to a node.
        `cluster { name: ${options.name ?? 'tw-chaos'}, listen: 127.0.0.1:${s.clusterPort}, no_advertise: true, routes: [${routes}] }`,
        ...(options.lameDuck
          ? [`lame_duck_duration: "${options.lameDuck.durationMs}ms"`, `lame_duck_grace_period: "${options.lameDuck.gracePeriodMs}ms"`]
          : []),
        ...(options.operatorConfig
          ? [options.operatorConfig, `resolver { type: full, dir: "${join(store, 'resolver')}", allow_delete: false, interval: "2m", timeout: "1.9s" }`]
          : []),
        '',
      ].join('\n'),
    );
  }

  async function launch(s: NodeState): Promise<void> {
    const child = spawn(options.bin ?? natsServerBin(), ['-c', s.configPath, '-l', s.logPath], { stdio: 'ignore' });
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
    await keepLogs(states, options.name ?? 'cluster').catch(() => undefined);
    await rm(dir, { recursive: true, force: true }).catch(() => undefined);
  };

  const logTail = async (s: NodeState, lines: number) => (await readFile(s.logPath, 'utf8').catch(() => '')).trimEnd().split('\n').slice(-lines).join(' | ');

  try {
    await Promise.all(states.map(launch));
  } catch (err) {
    // The nodes' own words (a port taken between freePort() and the bind, a bad config…), before the logs go.
    const logs = await Promise.all(states.map(async (x) => `${x.name}: ${await logTail(x, 3)}`));
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
    const signaller = spawn(options.bin ?? natsServerBin(), ['--signal', `ldm=${child.pid}`], { stdio: 'ignore' });
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
      logTail: (lines = 8) => logTail(s, lines),
    })),
    urls: states.map((s) => `nats://127.0.0.1:${s.port}`).join(','),
    kill: (name) => killState(byName(name)),
    restart: (name) => launch(byName(name)),
    lameDuck,
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

/**
 * Copies each node's log to `$CHAOS_NATS_LOG_DIR/<cluster name>-<time>/<node>.log` before the cluster's directory
 * goes (`npm run chaos` sets it: a failed run keeps the broker's own account of what happened). Nothing when unset.
 */
async function keepLogs(states: readonly Pick<NodeState, 'name' | 'logPath'>[], clusterName: string): Promise<void> {
  const root = process.env.CHAOS_NATS_LOG_DIR;
  if (!root) return;
  const dest = join(root, `${clusterName}-${new Date().toISOString().replace(/[:.]/g, '-')}`);
  await mkdir(dest, { recursive: true });
  for (const s of states) await copyFile(s.logPath, join(dest, `${s.name}.log`)).catch(() => undefined);
}

/** One node's own copy of a stream (its store, as its monitoring `/jsz` reports it). */
export interface NodeStreamState {
  readonly node: string;
  /** Its store's last sequence; null when the node did not answer or holds no copy. */
  readonly lastSeq: number | null;
  /** The leader it names for the stream, if any. */
  readonly leader: string | null;
}

/**
 * Every node's own copy of stream `stream` (account `account`: its public key in operator mode, `$G` without accounts): `/jsz?accounts=true&streams=true`
 * answered by each node from its store. Raft's `current` flag (stream info `cluster.replicas[].current`) says a
 * follower's log is current; this says what its store holds. Never throws (a node that does not answer: lastSeq null).
 */
export async function nodeStreamStates(
  nodes: readonly Pick<NatsClusterNode, 'name' | 'monitorUrl'>[],
  stream: string,
  account = '$G',
): Promise<NodeStreamState[]> {
  interface Jsz {
    account_details?: { name: string; id?: string; stream_detail?: { name: string; state?: { last_seq: number }; cluster?: { leader?: string } }[] }[];
  }
  return Promise.all(
    nodes.map(async (n) => {
      const jsz = (await fetch(`${n.monitorUrl}/jsz?accounts=true&streams=true&acc=${encodeURIComponent(account)}`, { signal: AbortSignal.timeout(2_000) })
        .then((r) => (r.ok ? r.json() : null))
        .catch(() => null)) as Jsz | null;
      // In operator mode `name` is the account JWT's name (e.g. TRADEWIND) and `id` its public key.
      const detail = jsz?.account_details?.find((a) => a.id === account || a.name === account)?.stream_detail?.find((d) => d.name === stream);
      return { node: n.name, lastSeq: detail?.state?.last_seq ?? null, leader: detail?.cluster?.leader ?? null };
    }),
  );
}

/** Kills node `name` of `cluster` (SIGKILL) and starts it again on its ports and store: {@link waitForMetaGroup}'s remedy. */
export async function restartNode(cluster: Pick<NatsCluster, 'kill' | 'restart'>, name: string): Promise<void> {
  await cluster.kill(name);
  await cluster.restart(name);
}

/** How long {@link waitForMetaGroup} lets the meta leader leave a node out before it restarts that node, ms. */
export const META_GROUP_RESTART_AFTER_MS = 15_000;

/** The JetStream meta group as a node's monitoring endpoint shows it (`/jsz`, `meta_cluster`). */
interface MetaCluster {
  leader?: string;
  cluster_size?: number;
  replicas?: Array<{ name: string; current?: boolean; offline?: boolean }>;
}

/**
 * Waits until the JetStream meta leader counts every other node of `nodes` as a current, online peer of the
 * meta group (its `/jsz` `meta_cluster.replicas`). Until then the meta leader can place no replicated stream
 * on all nodes: nats-server 2.10 answers a bare "no suitable peers for placement" (its peer selection never
 * saw enough peers), which a fresh cluster under the full suite's load gave for 30 s three times on 29 Nov.
 * Polls every 250 ms over HTTP (no credentials needed), calling `announce` before each poll: in operator mode a
 * ping on the system account that makes every node broadcast its statistics, from which the meta leader adds
 * a peer (`npm run chaos`, 29 Nov 15:20: a node left out of the meta group for 60 s while nobody pinged).
 * When the ping is not enough, or there is no system user to ping with (a cluster without accounts), `restart`
 * ({@link restartNode}) is called for
 * a node the meta leader has not counted for {@link META_GROUP_RESTART_AFTER_MS}, at most once per that
 * period; a restarted node announces itself to the meta leader as it joins (`npm run chaos`, 29 Nov 17:38: the
 * stream class's no-auth cluster formed with `cluster_size` 2 and left n3 out for the whole 60 s). When no node names
 * a meta leader for that period, one node is restarted per period, in turn.
 * @throws Error after `deadlineMs` naming each node's last view of the meta group.
 */
export async function waitForMetaGroup(
  nodes: readonly Pick<NatsClusterNode, 'name' | 'monitorUrl'>[],
  deadlineMs: number,
  announce: () => void = () => undefined,
  restart?: (name: string) => Promise<void>,
): Promise<void> {
  const end = Date.now() + deadlineMs;
  const leftOutSince = new Map<string, number>();
  let noLeaderSince: number | undefined;
  let noLeaderRestarts = 0;
  const view = async (n: Pick<NatsClusterNode, 'monitorUrl'>): Promise<MetaCluster | null> =>
    fetch(`${n.monitorUrl}/jsz`, { signal: AbortSignal.timeout(1_000) })
      .then((r) => r.json() as Promise<{ meta_cluster?: MetaCluster }>)
      .then((j) => j.meta_cluster ?? null)
      .catch(() => null);
  let views: Array<MetaCluster | null> = [];
  for (;;) {
    announce();
    views = await Promise.all(nodes.map(view));
    const leaderName = views.find((v) => v?.leader)?.leader;
    const leaderView = leaderName ? views[nodes.findIndex((n) => n.name === leaderName)] : undefined;
    const peers = leaderView?.replicas ?? [];
    if (leaderView && peers.length >= nodes.length - 1 && peers.every((p) => p.current && !p.offline)) return;
    if (Date.now() > end) break;
    if (restart && !leaderName) {
      // No node names a meta leader (the fresh-clone run at 00:16 on 30 Nov: three nodes with cluster_size 3 and no
      // leader for the whole 60 s): one node is restarted per period, in turn, until one is elected.
      noLeaderSince ??= Date.now();
      if (Date.now() - noLeaderSince >= META_GROUP_RESTART_AFTER_MS) {
        const n = nodes[noLeaderRestarts++ % nodes.length]!;
        process.stderr.write(`chaos: no JetStream meta leader for ${Date.now() - noLeaderSince} ms: restarting ${n.name}\n`);
        await restart(n.name);
        noLeaderSince = Date.now();
      }
    } else noLeaderSince = undefined;
    if (restart && leaderName) {
      const counted = new Set(peers.filter((p) => p.current && !p.offline).map((p) => p.name));
      for (const n of nodes) {
        if (n.name === leaderName || counted.has(n.name)) {
          leftOutSince.delete(n.name);
          continue;
        }
        const since = leftOutSince.get(n.name) ?? Date.now();
        leftOutSince.set(n.name, since);
        if (Date.now() - since >= META_GROUP_RESTART_AFTER_MS) {
          process.stderr.write(`chaos: ${n.name} left out of the JetStream meta group by ${leaderName} for ${Date.now() - since} ms: restarting it\n`);
          await restart(n.name);
          leftOutSince.set(n.name, Date.now());
        }
      }
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(
    `the JetStream meta group did not count every node as a current peer within ${deadlineMs} ms: ${nodes
      .map((n, i) => `${n.name} ${JSON.stringify(views[i])}`)
      .join('; ')}`,
  );
}
