/**
 * Runs a local nats-server in operator mode from the project's own state directory:
 * used by `npm start` and by every test that needs a real operator-mode server.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { freePort, isListening, waitForPort } from './testing/ports.js';
import { ensureNatsIdentities, type NatsIdentities } from '@tradewind/credential-issuer';
import { renderNatsServerConfig } from '@tradewind/credential-issuer';
import { connectNats } from '@tradewind/lib';

/** Path of the nats-server binary; override with NATS_SERVER_BIN. */
export const NATS_SERVER_BIN = process.env.NATS_SERVER_BIN ?? 'nats-server';

/** A running local server, or the nodes of a local cluster. */
export interface LocalNats {
  /** The first node's client URL (the one to show a user: `options.port`). */
  readonly url: string;
  /** Every node's client URL, comma-separated (a service's NATS_URL); equals `url` for a single server. */
  readonly urls: string;
  readonly monitorUrl: string;
  readonly identities: NatsIdentities;
  /** The first node's config file. */
  readonly configPath: string;
  /** The first node's process. */
  readonly process: ChildProcess;
  /** Every node's process, the first one first. */
  readonly processes: readonly ChildProcess[];
  /** SIGTERM to every node, then waits for them (SIGKILL after 5 s). */
  stop(): Promise<void>;
}

/** One node's ports and directories. */
interface NodePlan {
  name: string;
  port: number;
  monitorPort: number;
  routePort: number | null;
  dir: string;
  configPath: string;
  logFile: string;
}

/**
 * Creates identities (first run) and the server config under `<stateDir>/nats/`, starts
 * nats-server and waits until it accepts connections.
 * With `clusterSize` > 1 it starts that many operator-mode nodes clustered on loopback routes
 * instead (`npm start -- --nats-cluster`): the first on `port` / `monitorPort`, the others and every
 * route on free ports, each node with its own store and resolver under `<stateDir>/nats/cluster/<name>/`
 * (apart from the single server's, so switching does not mix the two).
 * @param options.host bind address (default 127.0.0.1).
 * @param options.port client port (docs/architecture.md §4: 4223); options.monitorPort (8223).
 * @param options.logFile where the (first) server logs (default `<stateDir>/nats/nats-server.log`).
 * @param options.clusterSize nodes to start (default 1: a single server).
 * @throws Error when the binary is missing, a port is taken or a server does not listen within 15 s
 * (the nodes already started are stopped first).
 */
export async function startLocalNats(options: {
  stateDir: string;
  host?: string;
  port: number;
  monitorPort: number;
  maxFileStore?: string;
  logFile?: string;
  /** Run the server in its own process group, so a terminal's Ctrl-C does not reach it directly (npm start stops it last). */
  detached?: boolean;
  clusterSize?: number;
  /**
   * Ports the extra nodes and the routes must not take (a cluster's free ports come from the
   * ephemeral range, where e.g. npm start's gRPC ports 50051-50054 also lie).
   */
  reservedPorts?: readonly number[];
  /** The nats-server binary (default {@link NATS_SERVER_BIN}). */
  bin?: string;
}): Promise<LocalNats> {
  const identities = await ensureNatsIdentities(options.stateDir);
  const dir = join(options.stateDir, 'nats');
  const host = options.host ?? '127.0.0.1';
  const size = options.clusterSize ?? 1;
  if (!Number.isInteger(size) || size < 1) throw new Error(`clusterSize must be a whole number ≥ 1, got ${size}`);
  for (const port of [options.port, options.monitorPort]) {
    if (await isListening(port, host)) {
      throw new Error(`port ${port} on ${host} is already in use (another nats-server or Tradewind still running?)`);
    }
  }
  const taken = new Set([options.port, options.monitorPort, ...(options.reservedPorts ?? [])]);
  const spare = async (): Promise<number> => {
    for (;;) {
      const port = await freePort();
      if (!taken.has(port)) {
        taken.add(port);
        return port;
      }
    }
  };
  const plans: NodePlan[] = [];
  for (let i = 1; i <= size; i++) {
    const nodeDir = size === 1 ? dir : join(dir, 'cluster', `n${i}`);
    plans.push({
      name: size === 1 ? 'tradewind-local' : `tradewind-local-n${i}`,
      port: i === 1 ? options.port : await spare(),
      monitorPort: i === 1 ? options.monitorPort : await spare(),
      routePort: size === 1 ? null : await spare(),
      dir: nodeDir,
      configPath: join(nodeDir, 'nats-server.conf'),
      logFile: i === 1 ? (options.logFile ?? join(dir, size === 1 ? 'nats-server.log' : `nats-server-n${i}.log`)) : join(dir, `nats-server-n${i}.log`),
    });
  }
  const routes = plans.filter((p) => p.routePort !== null).map((p) => `nats-route://${host === '0.0.0.0' ? '127.0.0.1' : host}:${p.routePort}`);
  for (const plan of plans) {
    const jetstreamDir = join(plan.dir, 'jetstream');
    const resolverDir = join(plan.dir, 'resolver');
    await mkdir(jetstreamDir, { recursive: true });
    await mkdir(resolverDir, { recursive: true });
    await writeFile(
      plan.configPath,
      await renderNatsServerConfig(identities, {
        serverName: plan.name,
        host,
        port: plan.port,
        monitorPort: plan.monitorPort,
        jetstreamDir,
        resolverDir,
        maxFileStore: options.maxFileStore ?? '10GB',
        ...(plan.routePort === null ? {} : { cluster: { name: 'tradewind-local', host, port: plan.routePort, routes } }),
      }),
      { mode: 0o600 },
    );
  }
  const nodes: RunningNode[] = [];
  try {
    for (const plan of plans) nodes.push(await startNode(plan, host, options.detached ?? false, options.bin ?? NATS_SERVER_BIN));
  } catch (err) {
    await Promise.all(nodes.map((n) => n.stop()));
    throw err;
  }
  const displayHost = host === '0.0.0.0' ? 'localhost' : host;
  const first = plans[0]!;
  if (size > 1) {
    // A new cluster answers JetStream requests only once it has elected a meta leader (a few seconds), and
    // places a stream on every node only once all have joined: a service started earlier fails its first
    // stream request with a timeout or "insufficient resources".
    try {
      const loopback = host === '0.0.0.0' ? '127.0.0.1' : host;
      const deadline = Date.now() + CLUSTER_READY_TIMEOUT_MS;
      await waitForMetaGroup(
        plans.map((p) => `http://${loopback}:${p.monitorPort}`),
        CLUSTER_READY_TIMEOUT_MS,
      );
      await waitForStreamPlacement(
        plans.map((p) => `nats://${loopback}:${p.port}`).join(','),
        identities.service_user_creds,
        size,
        Math.max(1_000, deadline - Date.now()),
      );
    } catch (err) {
      await Promise.all(nodes.map((n) => n.stop()));
      throw err;
    }
  }
  return {
    url: `nats://${displayHost}:${first.port}`,
    urls: plans.map((p) => `nats://${displayHost}:${p.port}`).join(','),
    monitorUrl: `http://${displayHost}:${first.monitorPort}`,
    identities,
    configPath: first.configPath,
    process: nodes[0]!.child,
    processes: nodes.map((n) => n.child),
    async stop() {
      await Promise.all(nodes.map((n) => n.stop()));
    },
  };
}

/** Longest a new local cluster may take to form its JetStream meta group and place a first stream, ms. */
export const CLUSTER_READY_TIMEOUT_MS = 30_000;

/**
 * Polls every node's monitoring `/jsz` (https://docs.nats.io/running-a-nats-service/nats_admin/monitoring#jetstream-information)
 * every 200 ms until each reports a JetStream meta group of all `monitorUrls.length` nodes
 * (`meta_cluster.cluster_size`) with the same leader. A leader seen from one node is not enough: two
 * nodes elect one before the third has joined, and a node that has not caught up with the group yet
 * fails a stream placed on it ("error creating store for stream").
 * @throws Error after `timeoutMs` ms, naming what each node reported last.
 */
async function waitForMetaGroup(monitorUrls: readonly string[], timeoutMs: number): Promise<void> {
  const end = Date.now() + timeoutMs;
  let seen: string[] = [];
  while (Date.now() < end) {
    const metas = await Promise.all(
      monitorUrls.map((url) =>
        fetch(`${url}/jsz`).then(
          async (r) => ((await r.json()) as { meta_cluster?: MetaCluster }).meta_cluster,
          () => undefined,
        ),
      ),
    );
    seen = metas.map((m, i) => `node ${i + 1}: ${m ? `cluster_size ${m.cluster_size ?? '?'}, leader ${m.leader ?? 'none'}` : 'no answer'}`);
    const leader = metas[0]?.leader;
    if (leader && metas.every((m) => m?.leader === leader && m.cluster_size === monitorUrls.length)) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(
    `the local NATS cluster did not form a ${monitorUrls.length}-node JetStream meta group within ${timeoutMs} ms (${seen.join('; ')}; see the nats-server logs)`,
  );
}

/**
 * Creates and deletes a `replicas`-replica memory stream (`TRADEWIND_READY_PROBE`) as the services'
 * user until the cluster accepts one, every 200 ms: even with the meta group formed, a new cluster
 * now and then answers the first creates with "error creating store for stream" (JetStream API
 * error 10049), which would stop a service at start. The check is the service account's own first
 * request, so nothing is assumed about why.
 * @throws Error after `timeoutMs` ms with the last error.
 */
async function waitForStreamPlacement(urls: string, creds: string, replicas: number, timeoutMs: number): Promise<void> {
  const end = Date.now() + timeoutMs;
  const nc = await connectNats({ url: urls, creds, name: 'tradewind-local-ready-probe' });
  let last = 'no answer';
  try {
    while (Date.now() < end) {
      const reply: { error?: { description?: string; err_code?: number } } = await nc
        .request(
          '$JS.API.STREAM.CREATE.TRADEWIND_READY_PROBE',
          JSON.stringify({ name: 'TRADEWIND_READY_PROBE', subjects: ['tradewind.ready-probe'], storage: 'memory', num_replicas: replicas }),
          { timeout: 5_000 },
        )
        .then(
          (m) => m.json<{ error?: { description?: string; err_code?: number } }>(),
          (err: unknown) => ({ error: { description: String(err) } }),
        );
      if (!reply.error) {
        await nc.request('$JS.API.STREAM.DELETE.TRADEWIND_READY_PROBE', '', { timeout: 5_000 });
        return;
      }
      last = `${reply.error.description ?? 'error'}${reply.error.err_code ? ` (${reply.error.err_code})` : ''}`;
      await new Promise((r) => setTimeout(r, 200));
    }
  } finally {
    await nc.close();
  }
  throw new Error(`the local NATS cluster placed no ${replicas}-replica stream within ${timeoutMs} ms (last answer: ${last})`);
}

/** The part of `/jsz`'s `meta_cluster` read here. */
interface MetaCluster {
  leader?: string;
  cluster_size?: number;
}

interface RunningNode {
  child: ChildProcess;
  stop(): Promise<void>;
}

/** Spawns one nats-server with `plan`'s config and waits (15 s) until it accepts clients. @throws Error when it does not. */
async function startNode(plan: NodePlan, host: string, detached: boolean, bin: string): Promise<RunningNode> {
  const child = spawn(bin, ['-c', plan.configPath, '-l', plan.logFile], { stdio: ['ignore', 'ignore', 'pipe'], detached });
  let exited = false;
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => {
    stderr += d.toString();
  });
  const exitPromise = new Promise<void>((resolve) =>
    child.once('exit', () => {
      exited = true;
      resolve();
    }),
  );
  child.once('error', (err) => {
    exited = true;
    stderr += String(err);
  });
  try {
    await waitForPort(plan.port, host, 15_000, () => !exited);
  } catch (err) {
    child.kill('SIGKILL');
    throw new Error(`nats-server did not start (${(err as Error).message}); see ${plan.logFile}${stderr ? `: ${stderr.trim()}` : ''}`);
  }
  return {
    child,
    async stop() {
      if (exited) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exitPromise;
      clearTimeout(timer);
    },
  };
}
