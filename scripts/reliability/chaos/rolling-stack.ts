/**
 * The whole stack of the rolling-restart class (chaos/rolling.ts), started as a cluster runs it: a 3-node
 * operator-mode NATS cluster (rolling-nats.ts) with TRADES at 3 replicas, a private Redis, a scratch
 * PostgreSQL database, the local OpenID provider and Stripe stand-in, the load balancer (rolling-lb.ts), and
 * every service as replicas started from their real entry points (rolling-replica.ts) with the environment
 * scripts/start.ts gives them, each replica on ports of its own. Also the two rollout steps: a Deployment's
 * (surge one replacement, wait until the balancer finds it ready, SIGTERM the old one) and the NATS
 * StatefulSet's (lame duck mode, restart on the same ports and store, wait until current).
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jetstreamManager, type JetStreamManager } from '@nats-io/jetstream';
import { TRADES_STREAM } from '@tradewind/contracts';
import { ensureNatsIdentities, renderNatsAuthConfig } from '@tradewind/credential-issuer';
import { createTestDatabase, loadRouteTable, startLocalOidcProvider, startLocalStripe, type LocalOidcProvider, type TestDatabase } from '@tradewind/dev';
import { connectNats, type NatsConnection } from '@tradewind/lib';
import { ensureAccessTokenKeyFile } from '../../lib/access-token-key.js';
import { startRestartableRedis, type RestartableRedis } from './redis-server.js';
import { startLoadBalancer, type LoadBalancer, type ProbeSettings } from './rolling-lb.js';
import { startRollingNatsCluster, type RollingNatsCluster } from './rolling-nats.js';
import { restartNode, waitForMetaGroup } from './nats-cluster.js';
import { type Component, problemLines, type Replica, replicaPorts, spawnReplica } from './rolling-replica.js';
import { placeReplicatedTrades, tradesReplicasCurrent, until } from './stream.js';

/**
 * The balancer's readiness probe: every 1 s, 1 s timeout, out after 2 failures in a row (the chart's failureThreshold;
 * its period and timeout are 2 s). With a threshold of 1 and a 0.5 s timeout, one slow `/readyz` on a loaded machine
 * took both replicas of a service out at once: `npm run chaos` 30 Nov 02:30 counted three 503 "no ready replica"
 * answers from services that were not being restarted.
 */
export const PROBE: ProbeSettings = { periodMs: 1_000, timeoutMs: 1_000, failureThreshold: 2 };
/**
 * SHUTDOWN_READINESS_DELAY_MS of every replica: one probe period more than the probe needs to take a replica out
 * (period × failureThreshold), so the balancer has stopped routing to it before it closes its listeners (the chart
 * keeps the same relation to its probe: 2 s × 2 ≤ 5 s).
 */
export const READINESS_DELAY_MS = (PROBE.failureThreshold + 1) * PROBE.periodMs;
/** SHUTDOWN_DEADLINE_MS of every replica (lib CommonConfig's default). */
export const SHUTDOWN_DEADLINE_MS = 10_000;
/** The pod's termination grace period: delay + deadline + margin (charts/tradewind values.yaml `shutdown`), ms. */
export const TERMINATION_GRACE_MS = READINESS_DELAY_MS + SHUTDOWN_DEADLINE_MS + 2_000;
/**
 * NATS `lame_duck_duration` and `lame_duck_grace_period`, ms. 30 s is the least nats-server 2.9.10 accepts
 * ("invalid lame_duck_duration of 3s, minimum is 30 seconds"); a node closes its clients at most 1 s apart
 * within it, so with a dozen clients it is gone well before. The NATS Helm chart's defaults are 30 s and 10 s.
 */
export const LAME_DUCK = { durationMs: 30_000, gracePeriodMs: 1_000 } as const;
/** A node still running this long after the ldm signal is SIGKILLed and counted as a failure (the StatefulSet's grace), ms. */
export const LAME_DUCK_TERMINATION_MS = LAME_DUCK.durationMs + 10_000;
/** A replica or node that is not ready / current within this long after its start is a failure, ms. */
export const READY_DEADLINE_MS = 60_000;

/** Sizes that shape the stack. */
export interface StackSizes {
  /** Replicas of each service. */
  readonly replicas: Readonly<Record<Component, number>>;
  /** REPLAY_TRANSACTIONS_PER_SECOND of each ingest replica (≈ 1.5 trades per transaction in the bundled recording). */
  readonly ingestTransactionsPerSecond: number;
}

/** The outcome of one rollout step, for its row. */
export interface StepOutcome {
  /** Failures of the step itself (not ready, SIGKILLed, non-zero exit). */
  crashed: number;
  readonly notes: string[];
}

const STRIPE_SECRET_KEY = 'sk_test_tradewind_chaos_rolling';
const STRIPE_WEBHOOK_SECRET = 'whsec_tradewind_chaos_rolling';

/** A built web app is not part of this run: the real server serves a minimal build (as web/server/app.test.ts does). */
function minimalWebDist(dir: string): string {
  const dist = join(dir, 'web-dist');
  mkdirSync(dist, { recursive: true });
  writeFileSync(join(dist, 'index.html'), '<!doctype html><title>Tradewind</title>');
  writeFileSync(join(dist, 'app.html'), '<!doctype html><title>Tradewind app</title>');
  writeFileSync(join(dist, '404.html'), '<!doctype html><title>not found</title>');
  return dist;
}

/** The running stack; {@link startStack} builds it, {@link Stack.stop} takes it down. */
export class Stack {
  /** Every replica ever started, the replaced ones included (their exits are checked at the end). */
  readonly allReplicas: Replica[] = [];
  /** The current replicas of each service, by slot. */
  readonly replicas = new Map<Component, Replica[]>();
  private generation = new Map<string, number>();
  private readonly cleanup: Array<() => Promise<unknown>> = [];

  constructor(
    readonly stateDir: string,
    readonly nats: RollingNatsCluster,
    readonly nc: NatsConnection,
    readonly sysNc: NatsConnection,
    readonly jsm: JetStreamManager,
    readonly lb: LoadBalancer,
    readonly oidc: LocalOidcProvider,
    readonly identities: Awaited<ReturnType<typeof ensureNatsIdentities>>,
    private readonly envOf: Record<Component, Record<string, string>>,
  ) {}

  /** Runs `step` at {@link stop} (in reverse order of registration). */
  onStop(step: () => Promise<unknown>): void {
    this.cleanup.push(step);
  }

  /** Starts replica `slot` of `component` (its next generation) and registers it with the balancer. */
  async spawn(component: Component, slot: string): Promise<Replica> {
    const key = `${component}-${slot}`;
    const gen = (this.generation.get(key) ?? 0) + 1;
    this.generation.set(key, gen);
    const ports = await replicaPorts(component);
    const replica = spawnReplica({ name: `${key}.${gen}`, component, ports, env: this.envOf[component] });
    this.allReplicas.push(replica);
    this.lb.add(component, { name: replica.name, adminUrl: replica.adminUrl, ports: { http: ports.http, ws: ports.ws, grpc: ports.grpc } });
    return replica;
  }

  /** Waits until the balancer finds `replica` ready. @throws Error naming it, with its last log lines, when it is not within READY_DEADLINE_MS. */
  async ready(replica: Replica): Promise<void> {
    await this.lb.waitReady(replica.component, replica.name, READY_DEADLINE_MS, replica.alive).catch((err: unknown) => {
      throw new Error(`${(err as Error).message}: ${problemLines(replica.output(), 4).join(' | ') || replica.output().slice(-400)}`);
    });
  }

  /**
   * A Deployment's rolling update of one replica (maxSurge 1, maxUnavailable 0): start its replacement, wait
   * until the balancer finds it ready, SIGTERM the old one and wait for its exit within the termination grace
   * period (SIGKILL past it). A replacement never ready, a SIGKILL or an exit status other than 0 is a failure.
   */
  async rollReplica(component: Component, index: number): Promise<StepOutcome> {
    const out: StepOutcome = { crashed: 0, notes: [] };
    const list = this.replicas.get(component)!;
    const old = list[index]!;
    const slot = old.name.slice(component.length + 1).split('.')[0]!;
    const started = Date.now();
    const fresh = await this.spawn(component, slot);
    try {
      await this.ready(fresh);
    } catch (err) {
      out.crashed++;
      out.notes.push(`replacement ${fresh.name} never ready: ${(err as Error).message.slice(0, 400)}`);
      await fresh.kill();
      this.lb.remove(component, fresh.name);
      return out;
    }
    const readyMs = Date.now() - started;
    const unready = this.lb.waitUnready(component, old.name, READINESS_DELAY_MS + 5_000).then(
      () => Date.now(),
      () => undefined,
    );
    const termAt = Date.now();
    const exit = await old.terminate(TERMINATION_GRACE_MS);
    const unreadyAt = await unready;
    this.lb.remove(component, old.name);
    list[index] = fresh;
    const unreadyText = unreadyAt === undefined ? 'the balancer never saw it unready' : `unready at the balancer after ${unreadyAt - termAt} ms`;
    out.notes.push(
      `${old.name} → ${fresh.name}: replacement ready after ${readyMs} ms; old one ${unreadyText}, exited ${exit.code ?? exit.signal} ${exit.tookMs} ms after SIGTERM`,
    );
    if (exit.killed) {
      out.crashed++;
      out.notes.push(`${old.name} still running ${TERMINATION_GRACE_MS} ms after SIGTERM: SIGKILLed; ${problemLines(old.output()).join(' | ')}`);
    } else if (exit.code !== 0) {
      out.crashed++;
      out.notes.push(`${old.name} exited ${exit.code ?? exit.signal} after SIGTERM: ${problemLines(old.output()).join(' | ') || old.output().slice(-300)}`);
    }
    return out;
  }

  /**
   * The NATS StatefulSet's update of one node: lame duck mode (`nats-server --signal ldm=<pid>`), wait for the
   * exit, start it again on its ports and store, wait until its /healthz is ok and every TRADES replica is current.
   */
  async rollNatsNode(name: string): Promise<StepOutcome> {
    const out: StepOutcome = { crashed: 0, notes: [] };
    const leaderBefore = await this.jsm.streams.info(TRADES_STREAM).then(
      (i) => i.cluster?.leader ?? '?',
      () => '?',
    );
    const exit = await this.nats.lameDuck(name, LAME_DUCK_TERMINATION_MS);
    const leaderAfter = await until('a TRADES leader', 15_000, () => this.jsm.streams.info(TRADES_STREAM).then((i) => i.cluster?.leader)).catch(() => '?');
    if (exit.killed || exit.code !== 0) {
      out.crashed++;
      out.notes.push(
        `${name} ${exit.killed ? `still running ${LAME_DUCK_TERMINATION_MS} ms after ldm: SIGKILLed` : `exited ${exit.code ?? exit.signal} in lame duck mode`}`,
      );
    }
    const started = Date.now();
    await this.nats.start(name);
    const current =
      (await until(`${name} healthy`, READY_DEADLINE_MS, () => this.nats.healthy(name), 200).then(
        () => true,
        () => false,
      )) && (await tradesReplicasCurrent(this.jsm, this.nats.nodes.length, { nodes: this.nats.nodes, account: this.identities.tradewind.identity.public_key }));
    if (!current) {
      out.crashed++;
      out.notes.push(`${name} not current within ${READY_DEADLINE_MS} ms of its restart: ${await this.nats.nodes.find((n) => n.name === name)!.logTail(4)}`);
    }
    out.notes.push(
      `${name}: lame duck exit ${exit.code ?? exit.signal} after ${exit.tookMs} ms (TRADES leader ${leaderBefore} before, ${leaderAfter} after), restarted and current after ${Date.now() - started} ms`,
    );
    return out;
  }

  /** Stops everything (SIGKILL; the end of the run is not a restart) and removes the temporary state. Never throws. */
  async stop(): Promise<void> {
    await Promise.all(this.allReplicas.map((r) => r.kill()));
    for (const step of this.cleanup.reverse()) await step().catch(() => undefined);
  }
}

/**
 * Starts the stack and every replica, and waits until each is ready at the balancer and trades flow.
 * @throws Error when a server or replica cannot start (everything started is stopped first).
 */
export async function startStack(sizes: StackSizes): Promise<Stack> {
  const stateDir = mkdtempSync(join(tmpdir(), 'tw-chaos-rolling-'));
  const undo: Array<() => Promise<unknown>> = [async () => rmSync(stateDir, { recursive: true, force: true })];
  const rollback = async () => {
    for (const step of undo.reverse()) await step().catch(() => undefined);
  };
  try {
    const identities = await ensureNatsIdentities(stateDir);
    const startNats = () =>
      startRollingNatsCluster({
        operatorConfig: renderNatsAuthConfig(identities),
        lameDuckDurationMs: LAME_DUCK.durationMs,
        lameDuckGracePeriodMs: LAME_DUCK.gracePeriodMs,
      });
    // Nine ports come from freePort() before any node binds: another process can take one meanwhile. A second
    // start on fresh ports; the first failure is reported on stderr with the nodes' log lines.
    const nats = await startNats().catch((err: unknown) => {
      process.stderr.write(`chaos(rolling): ${String(err)}; starting the cluster again on fresh ports\n`);
      return startNats();
    });
    undo.push(() => nats.stop());
    const connect = (creds: string, name: string) => until(`the cluster to accept ${name}`, 20_000, () => connectNats({ url: nats.urls, creds, name }));
    const nc = await connect(identities.service_user_creds, 'chaos-rolling');
    undo.push(() => nc.close());
    const sysNc = await connect(identities.system_user_creds, 'chaos-rolling-sys');
    undo.push(() => sysNc.close());
    const jsm = await jetstreamManager(nc, { checkAPI: false });
    // The meta group must know every node before an R3 stream or bucket can be placed on all of them (waitForMetaGroup).
    // Pinged first; a node still left out after META_GROUP_RESTART_AFTER_MS is restarted (the fresh-clone test run at
    // 23:21 on 29 Nov: n2 left out of the meta group for the whole 60 s while pinged).
    await waitForMetaGroup(
      nats.nodes,
      60_000,
      () => sysNc.publish('$SYS.REQ.SERVER.PING.STATSZ'),
      (name) => restartNode({ kill: nats.kill, restart: nats.start }, name),
    );
    await until('JetStream meta leader and TRADES R3', 30_000, () => placeReplicatedTrades(jsm, sysNc, nats.nodes.length).then(() => true), 500);
    const redis: RestartableRedis = await startRestartableRedis();
    undo.push(() => redis.stop(true));
    const db: TestDatabase = await createTestDatabase('chaos_rolling');
    undo.push(() => db.drop());
    const oidc = await startLocalOidcProvider({ port: 0, host: '127.0.0.1', publicHost: '127.0.0.1' });
    undo.push(() => oidc.stop());
    const lb = await startLoadBalancer({ table: loadRouteTable(), wsService: 'ws-fanout', probe: PROBE });
    undo.push(() => lb.close());
    const stripe = await startLocalStripe({
      port: 0,
      secretKey: STRIPE_SECRET_KEY,
      webhookSecret: STRIPE_WEBHOOK_SECRET,
      webhookUrl: `${lb.httpUrl}/api/stripe/webhook`,
    });
    undo.push(() => stripe.stop());
    const authGrpc = await lb.tcpService('auth');
    const natsDir = join(stateDir, 'nats');
    const jwtKeyFile = join(stateDir, 'auth', 'jwt-es256.pem');
    ensureAccessTokenKeyFile(jwtKeyFile);
    const jwks = `${lb.httpUrl}/auth/.well-known/jwks.json`;
    const common = {
      NODE_ENV: 'development',
      LOG_LEVEL: 'warn',
      NATS_URL: nats.urls,
      NATS_STREAM_REPLICAS: String(nats.nodes.length),
      TRADEWIND_STATE_DIR: stateDir,
      SHUTDOWN_READINESS_DELAY_MS: String(READINESS_DELAY_MS),
      SHUTDOWN_DEADLINE_MS: String(SHUTDOWN_DEADLINE_MS),
      NATS_CREDS: join(natsDir, 'service.creds'),
    };
    const envOf: Record<Component, Record<string, string>> = {
      ingest: {
        ...common,
        INGEST_SOURCE: 'replay',
        REPLAY_LOOP: 'true',
        REPLAY_TRANSACTIONS_PER_SECOND: String(sizes.ingestTransactionsPerSecond),
        // TRADES as createReplicatedTrades made it (1 h, 256 MiB), so ingest's start does not change it.
        TRADES_MAX_AGE_MS: String(3_600_000),
        TRADES_MAX_BYTES: String(256 * 1024 * 1024),
      },
      'ws-fanout': {
        ...common,
        NATS_SYSTEM_CREDS: join(natsDir, 'sys.creds'),
        NATS_OPERATOR_JWT: join(natsDir, 'operator.jwt'),
        REDIS_URL: redis.url,
        WS_WORKERS: '1',
      },
      'token-price': { ...common, REDIS_URL: redis.url },
      auth: {
        ...common,
        DATABASE_URL: db.url,
        PUBLIC_URL: lb.httpUrl,
        AUTH_JWT_PRIVATE_KEY_FILE: jwtKeyFile,
        LOCAL_OIDC_ISSUER: oidc.issuer,
        GOOGLE_CLIENT_ID: '',
        GOOGLE_CLIENT_SECRET: '',
      },
      billing: {
        ...common,
        DATABASE_URL: db.url,
        PUBLIC_URL: lb.httpUrl,
        AUTH_JWKS_URL: jwks,
        AUTH_ADDR: authGrpc,
        STRIPE_SECRET_KEY,
        STRIPE_WEBHOOK_SECRET,
        STRIPE_API_URL: stripe.apiUrl,
      },
      'credential-issuer': {
        ...common,
        DATABASE_URL: db.url,
        PUBLIC_URL: lb.httpUrl,
        AUTH_JWKS_URL: jwks,
        NATS_PUBLIC_URL: nats.nodes[0]!.url,
        // One key for every replica (production requires it: each must open the seeds the others sealed).
        CREDENTIALS_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
      },
      web: { ...common, WEB_DIST_DIR: minimalWebDist(stateDir) },
    };
    const stack = new Stack(stateDir, nats, nc, sysNc, jsm, lb, oidc, identities, envOf);
    for (const step of undo) stack.onStop(step);
    undo.length = 0;
    undo.push(() => stack.stop());
    const slots = 'abcdefgh';
    const started: Replica[] = [];
    for (const [component, count] of Object.entries(sizes.replicas) as Array<[Component, number]>) {
      const list: Replica[] = [];
      for (let i = 0; i < count; i++) list.push(await stack.spawn(component, slots[i]!));
      stack.replicas.set(component, list);
      started.push(...list);
    }
    await Promise.all(started.map((r) => stack.ready(r)));
    await until('trades stored by ingest', 60_000, () => jsm.streams.info(TRADES_STREAM).then((i) => i.state.last_seq > 0));
    return stack;
  } catch (err) {
    await rollback();
    throw err;
  }
}
