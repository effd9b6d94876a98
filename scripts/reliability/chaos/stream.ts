/**
 * Fault injection on the stream path (issue 24, docs/reliability.md): real nats-server processes in a
 * 3-node JetStream cluster (TRADES with 3 replicas), ingest as a real child process replaying the
 * bundled recording at a steady pace, connected to NATS through a loopback TCP proxy, and a native
 * JetStream subscriber (ordered consumer on TRADES, straight to the cluster) that counts every trade.
 *
 * Fault classes (one ReliabilityRow each):
 * 1. the TRADES stream leader SIGKILLed while trades flow, then started again (and caught up) before the next round;
 * 2. ingest SIGKILLed mid-stream and started again at once (a supervisor's restart);
 * 3. partition ingest↔NATS by stalling the proxy (bytes stop, sockets stay open) for longer than a publish timeout;
 * 4. partition ingest↔NATS by dropping every proxied socket (connection reset).
 *
 * Lost / duplicated are counted at the subscriber (stream-ledger.ts) after each class, as the change
 * since the previous class. Crashed counts processes that died on their own (ingest, a NATS node),
 * ingest's fatal log line, unhandled rejections here, and a recovery past RECOVERY_DEADLINE_MS.
 * Recovery: kills and drops, from the fault to the first trade received that was published after it;
 * stalls, from the heal to the first trade received after it.
 *
 * Replay and restarts: ingest's replay source has no resume point — a restarted ingest starts a new
 * replay run (new Nats-Msg-Ids `…:replay:<run>:<loop>`), so a trade in flight at the kill is not
 * re-published; each run's stored trades must still be a gap-free prefix of its replay order. The
 * live Yellowstone class (a fake node serving the recording) does resume from its checkpoint: every
 * recorded trade must be stored exactly once.
 *
 * CHAOS_DEBUG=1 prints the stream's and the subscriber's progress every second on stderr.
 */
import { resolve } from 'node:path';
import { jetstream, jetstreamManager, type JetStreamManager, DiscardPolicy, RetentionPolicy, StorageType } from '@nats-io/jetstream';
import { nanos } from '@nats-io/transport-node';
import { SLOTS_SUBJECT, TRADES_STREAM, TRADE_PUBLISHED_MS_HEADER, TRADE_SUBJECTS } from '@tradewind/contracts';
import { freePort } from '@tradewind/dev';
import { BUNDLED_RECORDING_DIR, loadRecording, messageId } from '@tradewind/ingest';
import { connectNats, createLogger, type NatsConnection } from '@tradewind/lib';
import type { ReliabilityRow, ReliabilityScale } from '../report.js';
import { nodeStreamStates, restartNode, startNatsCluster, waitForMetaGroup, type NatsCluster, type NatsClusterNode } from './nats-cluster.js';
import { clusterNatsServerBin } from '../../lib/cluster-nats-server.js';
import { startTcpProxy, type TcpProxy } from './proxy-tcp.js';
import { READER_STALL_MS, startResumableReader, type ResumableReader } from './resumable-reader.js';
import { spawnIngest, type IngestProcess } from './stream-ingest.js';
import { TradeLedger, type Delivery, type LedgerAudit } from './stream-ledger.js';
import { GeyserTestServer, loadRecordedGeyserTransactions } from '../../../services/ingest/test/support/geyser-server.js';
import {
  loadRecordedTransactions,
  produceChain,
  startSolanaRpcServer,
  type ChainProducer,
  type SolanaRpcServer,
} from '../../../services/ingest/test/support/solana-rpc-server.js';
import { metricSum } from '../../bench/prometheus-text.js';
import { brokerRecoveryMs, probeMessage, publisherRecoveryMs } from './broker-probe.js';
import { startRestartableRedis, type RestartableRedis } from './redis-server.js';
import { createApp as createTokenPrice, createRedisClient, TokenPriceConfigSchema } from '@tradewind/token-price';
import { Registry } from 'prom-client';

/** A fault whose trades do not flow again within this long counts as a hang (crashed), ms. */
export const RECOVERY_DEADLINE_MS = 30_000;
/**
 * Issue 31's bound on a leader kill: every client (publisher, subscriber) carries on within this of the time
 * the cluster itself needs before TRADES accepts a publish again, ms. Past it the kill counts as crashed.
 */
export const RECOVERY_OVER_BROKER_MS = 1_000;

/** Rounds per fault class and timings at each scale. */
const SIZES = {
  test: { leaderKills: 1, ingestKills: 0, liveKillsAt: [0.4], liveSlotMs: 120, stalls: [5_300], drops: 0, flowMs: 300, jitterMs: 300, tps: 40 },
  full: {
    leaderKills: 10,
    ingestKills: 4,
    liveKillsAt: [0.25, 0.5, 0.75],
    liveSlotMs: 500,
    stalls: [2_000, 6_000, 12_000],
    drops: 4,
    flowMs: 3_000,
    jitterMs: 1_000,
    tps: 60,
  },
} as const;

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** A small deterministic PRNG (mulberry32), for fault timing jitter from the seed. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Polls `probe` every `everyMs` until it returns a value that is not null/undefined/false. @throws Error after `deadlineMs` ms. */
export async function until<T>(what: string, deadlineMs: number, probe: () => Promise<T | null | undefined> | T | null | undefined, everyMs = 100): Promise<T> {
  const end = Date.now() + deadlineMs;
  let last: unknown;
  while (Date.now() < end) {
    try {
      const v = await probe();
      if (v !== null && v !== undefined && v !== false) return v;
    } catch (err) {
      last = err;
    }
    await sleep(everyMs);
  }
  throw new Error(`timed out after ${deadlineMs} ms waiting for ${what}${last ? ` (${String(last)})` : ''}`);
}

/**
 * Waits until TRADES has a leader, the other `nodes - 1` replicas are current and online (a restarted node
 * caught up), and, given `stores`, every node's own store holds the leader's last sequence as it was once raft
 * said current ({@link nodeStreamStates}: raft's `current` is about the follower's log, not what its store
 * holds). Polls every 250 ms. @returns false when that takes more than `deadlineMs` (default 30 s).
 * @param stores the cluster's nodes (monitoring URLs) and the account owning TRADES (`$G` without accounts).
 */
export async function tradesReplicasCurrent(
  jsm: JetStreamManager,
  nodes: number,
  stores?: { nodes: readonly Pick<NatsClusterNode, 'name' | 'monitorUrl'>[]; account?: string },
  deadlineMs = 30_000,
): Promise<boolean> {
  let leaderLastSeq = 0;
  return until(
    'every TRADES replica current',
    deadlineMs,
    async () => {
      const info = await jsm.streams.info(TRADES_STREAM);
      const replicas = info.cluster?.replicas ?? [];
      if (!(info.cluster?.leader && replicas.length === nodes - 1 && replicas.every((r) => r.current && !r.offline))) return false;
      if (!stores) return true;
      leaderLastSeq ||= info.state.last_seq;
      const states = await nodeStreamStates(stores.nodes, TRADES_STREAM, stores.account);
      return states.every((st) => st.lastSeq !== null && st.lastSeq >= leaderLastSeq);
    },
    250,
  ).then(
    () => true,
    () => false,
  );
}

/** How long a node's TRADES store may stay behind while raft calls every replica current before {@link settleTradesReplicas} restarts it, ms. */
export const STUCK_REPLICA_RESTART_AFTER_MS = 15_000;

/**
 * The cluster healed before the next fault: {@link tradesReplicasCurrent} with the stores checked. A node whose
 * TRADES store stays behind the others for {@link STUCK_REPLICA_RESTART_AFTER_MS} while raft calls it current is
 * restarted (SIGKILL, start on its store: it catches up from the leader), the operator's remedy; each restart is
 * a note (29 Nov, 19:27 on 2.10.27: n2's store stopped at 1,979 while n1 and n3 went on to 6,178, raft calling it
 * current, and TRADES took no publish after the next kill). @returns false when it is still not healed 30 s later.
 */
export async function settleTradesReplicas(
  jsm: JetStreamManager,
  cluster: Pick<NatsCluster, 'nodes' | 'kill' | 'restart'>,
  notes: string[],
  account?: string,
): Promise<boolean> {
  const stores = { nodes: cluster.nodes, account };
  if (await tradesReplicasCurrent(jsm, cluster.nodes.length, stores, STUCK_REPLICA_RESTART_AFTER_MS)) return true;
  const states = await nodeStreamStates(cluster.nodes, TRADES_STREAM, account);
  const newest = Math.max(0, ...states.map((x) => x.lastSeq ?? 0));
  for (const st of states.filter((x) => x.lastSeq !== null && x.lastSeq < newest)) {
    notes.push(
      `broker remedy: ${st.node}'s TRADES store stayed at seq ${st.lastSeq} (newest ${newest}) for ${STUCK_REPLICA_RESTART_AFTER_MS / 1000} s; restarted`,
    );
    await restartNode(cluster, st.node);
  }
  return tradesReplicasCurrent(jsm, cluster.nodes.length, stores);
}

/**
 * {@link createReplicatedTrades} after asking every node, on a system-account connection, to broadcast its
 * statistics now (a ping without a reply subject, "$SYS.REQ.SERVER.PING.STATSZ", nats-server's `statszReq`).
 * The meta leader learns a peer, and its resources, from those statistics, which a node otherwise sends on a
 * timer (0.25 s after its start, doubling to every 10 s). Callers wait for the meta group first
 * ({@link waitForMetaGroup}); the ping is for the peers' resources. A fresh cluster under the full suite's load
 * refused R3 placement for 30 s three times on 29 Nov ("no suitable peers for placement").
 * @throws what {@link createReplicatedTrades} throws (the caller retries).
 */
export async function placeReplicatedTrades(jsm: JetStreamManager, sysNc: NatsConnection, replicas: number): Promise<void> {
  sysNc.publish('$SYS.REQ.SERVER.PING.STATSZ');
  await sysNc.flush();
  await createReplicatedTrades(jsm, replicas);
}

/** Creates TRADES with the ingest settings (services/lib ensureTradesStream) and `replicas` replicas. @throws JetStreamApiError when it cannot be placed. */
export async function createReplicatedTrades(jsm: JetStreamManager, replicas: number): Promise<void> {
  await jsm.streams.add({
    name: TRADES_STREAM,
    subjects: [...TRADE_SUBJECTS, SLOTS_SUBJECT],
    retention: RetentionPolicy.Limits,
    storage: StorageType.File,
    discard: DiscardPolicy.Old,
    max_age: nanos(3_600_000),
    duplicate_window: nanos(120_000),
    max_bytes: 256 * 1024 * 1024,
    num_replicas: replicas,
  });
}

/**
 * Starts the native subscriber on TRADES that records every message in `ledger`: the documented resumable
 * reader's recovery (chaos/resumable-reader.ts). Returns its stop() and restart counters.
 */
async function startObserver(nc: NatsConnection, ledger: TradeLedger): Promise<ResumableReader> {
  return startResumableReader(nc, {
    lastSeq: () => ledger.maxSeq(),
    deliver: (m) =>
      ledger.record({
        seq: m.seq,
        msgId: m.headers?.get('Nats-Msg-Id') ?? '',
        // A slot status message (subject `slots`) is stored in TRADES too: recorded (its sequence counts), never
        // taken as a trade that shows recovery.
        publishedMs: m.subject === SLOTS_SUBJECT ? Number.NaN : Number(m.headers?.get(TRADE_PUBLISHED_MS_HEADER) ?? Number.NaN),
        receivedMs: Date.now(),
      }),
    onRestart: (reason, detail) => {
      if (reason === 'stalled') process.stderr.write(`chaos(stream): subscriber ${detail}; re-creating it\n`);
    },
    debug: (line) => {
      if (process.env.CHAOS_DEBUG) process.stderr.write(`[debug ${new Date().toISOString()}] observer ${line}\n`);
    },
  });
}

/**
 * Splits the recording's trade-bearing transactions in slot order (`chain`) into two halves: the
 * Yellowstone class serves the first, the RPC class the second. Returns each half's message ids
 * (`messageId(trade)`, what ingest sends as Nats-Msg-Id) and the RPC half's file paths (resolved).
 */
function splitRecording(
  transactions: readonly { path: string; trades: readonly Parameters<typeof messageId>[0][] }[],
  chain: readonly { path: string }[],
): { yellowstone: Set<string>; rpc: Set<string>; rpcPaths: Set<string> } {
  const idsByPath = new Map(transactions.map((t) => [resolve(t.path), t.trades.map(messageId)]));
  const paths = chain.map((t) => resolve(t.path)).filter((p) => idsByPath.has(p));
  const half = Math.ceil(paths.length / 2);
  const idsOf = (ps: readonly string[]) => new Set(ps.flatMap((p) => idsByPath.get(p) ?? []));
  return { yellowstone: idsOf(paths.slice(0, half)), rpc: idsOf(paths.slice(half)), rpcPaths: new Set(paths.slice(half)) };
}

/** Sum of the samples of metric `name` on an ingest's /metrics (0 when unreachable). */
async function ingestMetric(p: IngestProcess | undefined, name: string): Promise<number> {
  if (!p) return 0;
  const text = await fetch(`http://127.0.0.1:${p.adminPort}/metrics`).then(
    (r) => r.text(),
    () => '',
  );
  return metricSum(text, name) ?? 0;
}

/** One leader kill's recoveries, ms after the kill (null: none within the deadline). */
export interface KillRecovery {
  /** TRADES accepted a publish again (what the publisher waits for). */
  readonly brokerMs: number | null;
  /** A consumer on TRADES could be created again (the meta leader; what a reader making a new consumer waits for too). */
  readonly consumerMs?: number | null;
  readonly publisherMs: number | null;
  readonly subscriberMs: number | null;
  /** token-price (its ordered consumer from the position in Redis) applied a trade stored after the kill's last one: it carries on. */
  readonly tokenPriceResumeMs?: number | null;
  /** token-price applied the first trade stored after the kill (and so the burst ingest stored before it). */
  readonly tokenPriceMs?: number | null;
}

/**
 * When a reader could carry on at the earliest: TRADES accepts publishes, consumers can be created, and the
 * first trade after the kill is stored (a reader cannot receive it sooner; the publisher is judged on its own).
 */
export function readerBaseline(k: KillRecovery): number | null {
  if (k.brokerMs === null) return null;
  return Math.max(k.brokerMs, k.consumerMs ?? 0, k.publisherMs ?? 0);
}

/** `broker a/b/c ms; ingest …; subscriber …; worst over the broker: …` for a row's notes. */
export function recoverySummary(kills: readonly KillRecovery[]): string {
  const list = (pick: (k: KillRecovery) => number | null | undefined) => kills.map((k) => pick(k) ?? '—').join('/');
  const over = (pick: (k: KillRecovery) => number | null | undefined, base: (k: KillRecovery) => number | null) => {
    const d = kills.flatMap((k) => {
      const b = base(k);
      const v = pick(k);
      return b !== null && v !== null && v !== undefined ? [v - b] : [];
    });
    return d.length > 0 ? Math.max(...d) : '—';
  };
  return (
    `per kill, ms after it: TRADES accepts a publish ${list((k) => k.brokerMs)}, a consumer can be created ${list((k) => k.consumerMs)}; ` +
    `ingest's first trade stored ${list((k) => k.publisherMs)}; subscriber's first new trade ${list((k) => k.subscriberMs)}; token-price resumed ${list((k) => k.tokenPriceResumeMs)}, applied the first trade stored after the kill ${list((k) => k.tokenPriceMs)}; ` +
    `worst over the broker: ingest ${over(
      (k) => k.publisherMs,
      (k) => k.brokerMs,
    )} ms (publish), subscriber ${over((k) => k.subscriberMs, readerBaseline)} ms, token-price ${over((k) => k.tokenPriceResumeMs, readerBaseline)} ms (resumed; caught up ${over((k) => k.tokenPriceMs, readerBaseline)} ms)`
  );
}

/**
 * token-price in-process on its own connection (every node in its URL list, as in production) and a
 * private Redis, with its shipped consumer settings: its TRADES consumer is what the leader kill
 * must not hold up. @returns its store (`position()` is how far it applied TRADES) and a stop().
 */
async function startTokenPrice(nc: NatsConnection, redisUrl: string) {
  const redis = createRedisClient(redisUrl);
  redis.on('error', () => undefined);
  await redis.connect();
  const config = TokenPriceConfigSchema.parse({
    PORT: '0',
    GRPC_PORT: '0',
    HOST: '127.0.0.1',
    TOKEN_PRICE_REDIS_PREFIX: 'chaos:stream:',
    SOL_USD_PRICE: '150',
  });
  const app = createTokenPrice(config, {
    logger: createLogger({ service: 'chaos-token-price', level: process.env.CHAOS_DEBUG ? 'info' : 'silent' }),
    registry: new Registry(),
    redis,
    // As main.ts builds them.
    js: jetstream(nc, { timeout: config.TOKEN_PRICE_API_TIMEOUT_MS }),
    jsm: await jetstreamManager(nc, { checkAPI: false, timeout: config.TOKEN_PRICE_API_TIMEOUT_MS }),
    nc,
  });
  await app.start();
  return {
    store: app.store,
    async stop() {
      await app.stop().catch(() => undefined);
      await redis.quit().catch(() => redis.destroy());
    },
  };
}

interface ClassTally {
  name: string;
  tried: number;
  crashed: number;
  recoveryMs: number | null;
  notes: string[];
  /** Losses found outside the ledger audit (e.g. live trades never stored). */
  lostExtra?: number;
}

/**
 * Runs every stream-path fault class at `scale` (timing jitter from `seed`) and returns one row per class.
 * Starts a 3-node NATS cluster, a TCP proxy and ingest; stops all of them and removes their temp dirs before returning.
 * @throws Error only when the set-up cannot run (a server does not start, no trade flows within 60 s).
 */
export async function runStreamChaos(scale: ReliabilityScale, seed: number): Promise<ReliabilityRow[]> {
  const size = SIZES[scale];
  const random = prng(seed);
  const { transactions } = await loadRecording(BUNDLED_RECORDING_DIR);
  const ledger = new TradeLedger(transactions.flatMap((t) => t.trades.map(messageId)));
  let rejections = 0;
  const onRejection = (err: unknown) => {
    rejections++;
    process.stderr.write(`chaos(stream): unhandled rejection: ${String(err)}\n`);
  };
  process.on('unhandledRejection', onRejection);
  // One line per step on stderr, so a run cut short (a test timeout, a CI limit) still shows where it was.
  const startedMs = Date.now();
  const step = (what: string) => console.error(`chaos(stream) +${((Date.now() - startedMs) / 1000).toFixed(1)} s: ${what}`);

  let cluster: NatsCluster | undefined;
  let proxy: TcpProxy | undefined;
  let ingest: IngestProcess | undefined;
  let live: IngestProcess | undefined;
  let geyser: GeyserTestServer | undefined;
  let rpcNode: SolanaRpcServer | undefined;
  let nc: NatsConnection | undefined;
  let observer: ResumableReader | undefined;
  let redis: RestartableRedis | undefined;
  let tokenPriceNc: NatsConnection | undefined;
  let tokenPrice: Awaited<ReturnType<typeof startTokenPrice>> | undefined;
  const ingestCrashes = { count: 0, output: '' };
  const retire = (p: IngestProcess | undefined) => {
    if (!p) return;
    if (p.exitedUnexpectedly() || /ingest stopped on an error/.test(p.output())) {
      ingestCrashes.count++;
      ingestCrashes.output = p.output().slice(-2_000);
    }
  };
  const rows: ReliabilityRow[] = [];
  let debugTimer: NodeJS.Timeout | undefined;
  try {
    cluster = await startNatsCluster();
    const c = cluster;
    step(`3-node cluster started (${clusterNatsServerBin()})`);
    nc = await until('the cluster to accept clients', 20_000, () => connectNats({ url: c.urls, name: 'chaos-observer' }));
    const jsm = await jetstreamManager(nc, { checkAPI: false });
    // The meta group must know every node before an R3 stream or bucket can be placed on all of them (waitForMetaGroup).
    await waitForMetaGroup(c.nodes, 60_000, undefined, (name) => restartNode(c, name));
    await until(
      'JetStream meta leader and TRADES R3',
      30_000,
      async () => {
        await createReplicatedTrades(jsm, c.nodes.length);
        return true;
      },
      500,
    );
    step('TRADES R3 created');
    proxy = await startTcpProxy({ port: await freePort(), upstreams: cluster.nodes.map((n) => ({ host: '127.0.0.1', port: n.port })) });
    observer = await startObserver(nc, ledger);
    const restarts = observer.restarts;
    const natsUrl = `nats://127.0.0.1:${proxy.port}`;
    ingest = await spawnIngest({ natsUrl, transactionsPerSecond: size.tps });
    // The live ingest starts now too (its start overlaps the replay one's); its Yellowstone node only comes up in
    // class 2b, until then it retries the connection every ≤ 500 ms.
    const geyserPort = await freePort();
    const chain = await loadRecordedGeyserTransactions(BUNDLED_RECORDING_DIR);
    // The two live sources serve disjoint halves of the recording (Yellowstone the first, RPC the second, by
    // slot): a trade both published would carry the same Nats-Msg-Id and the second would be dropped as a duplicate.
    const liveHalves = splitRecording(transactions, chain);
    const geyserChain = chain.filter((t) => !liveHalves.rpcPaths.has(resolve(t.path)));
    const liveEnv = {
      INGEST_SOURCE: 'yellowstone',
      YELLOWSTONE_ENDPOINT: `http://127.0.0.1:${geyserPort}`,
      LIVE_FROM_SLOT: String(geyserChain[0]?.slot ?? 0),
      LIVE_CHECKPOINT_INTERVAL_MS: '1000',
      LIVE_RECONNECT_INITIAL_MS: '200',
      LIVE_RECONNECT_MAX_MS: '500',
    };
    live = await spawnIngest({ natsUrl, transactionsPerSecond: 1, env: liveEnv });
    const first = ingest;
    await until(
      'the first trade from ingest',
      60_000,
      () => ledger.count() > 0 || (!first.running() ? Promise.reject(new Error(`ingest exited: ${first.output().slice(-2_000)}`)) : null),
      100,
    ).catch((err: unknown) => {
      throw new Error(`chaos(stream) cannot run: ${(err as Error).message}`);
    });
    step('trades flow from ingest to the subscriber');
    await sleep(size.flowMs);
    if (process.env.CHAOS_DEBUG) {
      debugTimer = setInterval(() => {
        void jsm.streams.info(TRADES_STREAM).then(
          (i) =>
            process.stderr.write(
              `[debug ${new Date().toISOString()}] stream last_seq ${i.state.last_seq} leader ${i.cluster?.leader} | seen ${ledger.count()} max ${ledger.maxSeq()}\n`,
            ),
          (e: unknown) =>
            process.stderr.write(`[debug ${new Date().toISOString()}] info failed ${String(e)} | seen ${ledger.count()} max ${ledger.maxSeq()}\n`),
        );
      }, 1000);
    }

    let previous: LedgerAudit = { lost: 0, duplicated: 0, delivered: 0, unrecognised: 0, examples: [] };
    const settle = async (): Promise<{ lost: number; duplicated: number; examples: readonly string[] }> => {
      // Let trades flow past the fault, then wait until the subscriber holds everything the stream stored.
      await sleep(size.flowMs);
      const info = await until('TRADES info', 15_000, () => jsm.streams.info(TRADES_STREAM));
      await until(`the subscriber to reach seq ${info.state.last_seq}`, 15_000, () => ledger.maxSeq() >= info.state.last_seq).catch(() => undefined);
      const audit = ledger.audit({ firstSeq: info.state.first_seq, lastSeq: info.state.last_seq });
      const delta = {
        lost: audit.lost - previous.lost,
        duplicated: audit.duplicated - previous.duplicated,
        examples: audit.examples.slice(previous.examples.length),
      };
      previous = audit;
      return delta;
    };
    const recoveredAfter = async (t: ClassTally, faultMs: number, accept: (d: Delivery) => boolean): Promise<number | null> => {
      const at = await until('trades after the fault', RECOVERY_DEADLINE_MS, () => ledger.firstDeliveryAfter(faultMs, accept)).catch(() => null);
      if (at === null) {
        t.crashed++;
        // Who hung: the publisher (the stream stopped growing) or the subscriber (it stopped short of the stream)?
        const last = await jsm.streams.info(TRADES_STREAM).then(
          (i) => String(i.state.last_seq),
          (e: unknown) => `unknown (${String(e)})`,
        );
        t.notes.push(
          `no trade within ${RECOVERY_DEADLINE_MS} ms (hang): stream last_seq ${last}, subscriber at seq ${ledger.maxSeq()}, ingest ${ingest?.running() ? 'running' : 'exited'}: ${ingest?.output().replaceAll('\n', ' ').slice(-300) ?? ''}`,
        );
        return null;
      }
      t.recoveryMs = Math.max(t.recoveryMs ?? 0, at - faultMs);
      if (process.env.CHAOS_DEBUG)
        process.stderr.write(
          `[debug] ${t.name}: fault ${new Date(faultMs).toISOString()} recovered ${new Date(at).toISOString()} ${ledger.debugAfter(faultMs)}\n`,
        );
      return at - faultMs;
    };
    const finish = async (t: ClassTally, meaning: string): Promise<void> => {
      const d = await settle();
      const crashedNodes = c.nodes.reduce((n, x) => n + x.unexpectedExits(), 0);
      const crashed = t.crashed + ingestCrashes.count + crashedNodes + rejections;
      if (ingestCrashes.count > 0) t.notes.push(`ingest crashed: ${ingestCrashes.output.replaceAll('\n', ' ').slice(-400)}`);
      if (crashedNodes > 0) t.notes.push(`${crashedNodes} nats-server exit(s) not caused by the test`);
      if (restarts.ended + restarts.stalled + restarts.heartbeats + restarts.reconnect > 0)
        t.notes.push(
          `subscriber (nats.js ordered consumer) re-created from its last seq + 1: heartbeats missed ${restarts.heartbeats}×, reconnected ${restarts.reconnect}×, consume() ended ${restarts.ended}×, silent without ending ${restarts.stalled}× (the ${READER_STALL_MS / 1000} s backstop)`,
        );
      observer?.resetRestarts();
      ingestCrashes.count = 0;
      rejections = 0;
      if (d.examples.length > 0) {
        t.notes.push(`examples: ${d.examples.join('; ')}`);
        process.stderr.write(`chaos(stream) ${t.name}, seed ${seed}: ${d.examples.join('; ')}\n`);
      }
      rows.push({
        name: t.name,
        tried: t.tried,
        lost: d.lost + (t.lostExtra ?? 0),
        duplicated: d.duplicated,
        crashed,
        recoveryMs: t.recoveryMs,
        notes: [`seed ${seed}, ${size.tps} tx/s replay; ${meaning}`, ...t.notes].join('; '),
      });
    };

    // What the replay ingest counted so far: failed attempts (retried) and re-sends JetStream dropped (cumulative per process).
    const retryEvidence = async () => {
      const errors = await ingestMetric(ingest, 'tradewind_ingest_publish_errors_total');
      const dups = await ingestMetric(ingest, 'tradewind_ingest_trades_duplicate_total');
      return `ingest (this process so far): ${errors} failed publish attempt(s) retried, ${dups} re-send(s) dropped as duplicates`;
    };

    // 1. TRADES stream leader SIGKILLed, with token-price's consumer reading TRADES as in production.
    {
      redis = await startRestartableRedis();
      tokenPriceNc = await connectNats({ url: c.urls, name: 'chaos-token-price' });
      tokenPrice = await startTokenPrice(tokenPriceNc, redis.url);
      // Running and caught up before the first kill, as in production (not starting while a node dies).
      const tp = tokenPrice;
      const target = (await jsm.streams.info(TRADES_STREAM)).state.last_seq;
      await until(`token-price to apply TRADES up to seq ${target}`, 60_000, async () => ((await tp.store.position())?.seq ?? 0) >= target);
      step(`token-price caught up (seq ${target}); leader kills`);
      const t: ClassTally = { name: 'NATS TRADES stream leader killed (SIGKILL), 3-node cluster, R3', tried: 0, crashed: 0, recoveryMs: null, notes: [] };
      const kills: KillRecovery[] = [];
      for (let round = 0; round < size.leaderKills; round++) {
        await sleep(200 + random() * size.jitterMs);
        // Right before the kill, every node's store holds what the leader had a moment ago (the node restarted by the
        // last round included; a stuck one restarted), so the kill is one fault, not two nodes behind at once. Until
        // 30 Nov this was checked only right after each restart: at 03:00 (2.10.27) the stores were n1 10,717, n2 11,190
        // and n3 11,302 seconds later, when n3, the leader, was killed; the new leader's stream ended at 11,190 and 112
        // acknowledged trades were gone.
        if (!(await settleTradesReplicas(jsm, c, t.notes))) {
          const stores = await nodeStreamStates(c.nodes, TRADES_STREAM);
          t.notes.push(`round ${round}: replicas not current before the kill (stores: ${stores.map((x) => `${x.node} ${x.lastSeq}`).join(', ')})`);
        }
        const leader = await until('a TRADES leader', 15_000, async () => (await jsm.streams.info(TRADES_STREAM)).cluster?.leader);
        const probe = await until('a stored trade to probe with', 15_000, () => probeMessage(jsm));
        const seqBefore = (await jsm.streams.info(TRADES_STREAM)).state.last_seq;
        // token-price's applied position, sampled every 25 ms from just before the kill: its times are read off this
        // afterwards, so the harness's own waits (broker, subscriber) do not delay them.
        const positions: Array<{ atMs: number; seq: number }> = [];
        let sampling = true;
        const sampler = (async () => {
          while (sampling) {
            const seq = await tokenPrice!.store.position().then(
              (p) => p?.seq ?? 0,
              () => null,
            );
            if (seq !== null) positions.push({ atMs: Date.now(), seq });
            await sleep(25);
          }
        })();
        const tokenPriceAt = (seq: number): number | null => positions.find((p) => p.seq >= seq)?.atMs ?? null;
        const survivors = c.nodes.filter((n) => n.name !== leader).map((n) => n.url);
        const storesBefore = await nodeStreamStates(c.nodes, TRADES_STREAM);
        const killMs = Date.now();
        await c.kill(leader);
        t.tried++;
        if (process.env.CHAOS_DEBUG) process.stderr.write(`[debug] killed ${leader}\n`);
        const [broker, subscriberMs] = await Promise.all([
          brokerRecoveryMs(survivors, probe, killMs, RECOVERY_DEADLINE_MS),
          recoveredAfter(t, killMs, (d) => d.publishedMs >= killMs),
        ]);
        const firstAfter = await until('a trade stored after the kill', 15_000, () => publisherRecoveryMs(jsm, seqBefore, killMs)).catch(() => null);
        const publisherMs = firstAfter?.ms ?? null;
        // token-price resumed (applied a trade stored after the last one before the kill) and caught up (applied the
        // first trade stored after the kill: after a kill ingest stores its held-back trades at once, and token-price
        // applies each with a Redis round trip, so this adds the time to apply that burst).
        if (firstAfter) await until('token-price to apply it', RECOVERY_DEADLINE_MS, () => tokenPriceAt(firstAfter.seq) !== null, 25).catch(() => undefined);
        sampling = false;
        await sampler;
        const resumedAt = tokenPriceAt(seqBefore + 1);
        const tokenPriceResumeMs = resumedAt === null ? null : resumedAt - killMs;
        const caughtUpAt = firstAfter ? tokenPriceAt(firstAfter.seq) : null;
        const tokenPriceMs = caughtUpAt === null ? null : caughtUpAt - killMs;
        if (firstAfter && tokenPriceMs === null) {
          t.crashed++;
          t.notes.push(`round ${round}: token-price did not apply seq ${firstAfter.seq} within ${RECOVERY_DEADLINE_MS} ms (hang)`);
        }
        const kill: KillRecovery = {
          brokerMs: broker.publishMs,
          consumerMs: broker.consumerMs,
          publisherMs,
          subscriberMs,
          tokenPriceResumeMs,
          tokenPriceMs,
        };
        kills.push(kill);
        const brokerMs = broker.publishMs;
        for (const [who, ms, base] of [
          ['ingest (publisher)', publisherMs, brokerMs],
          ['subscriber', subscriberMs, readerBaseline(kill)],
        ] as const) {
          if (base !== null && ms !== null && ms - base > RECOVERY_OVER_BROKER_MS) {
            t.crashed++;
            t.notes.push(`round ${round}: ${who} recovered ${ms - base} ms after the broker (bound ${RECOVERY_OVER_BROKER_MS} ms)`);
          }
        }
        // token-price (the ticker, not the stream) is reported against the same bound, not held to it: its resume
        // was ≤ 0.85 s over the broker in a full run's 10 kills but 1.1 s in a fresh clone's one (29 Nov); it is
        // held to the hang deadline above.
        const tpBase = readerBaseline(kill);
        if (tpBase !== null && tokenPriceResumeMs !== null && tokenPriceResumeMs - tpBase > RECOVERY_OVER_BROKER_MS)
          t.notes.push(
            `round ${round}: token-price resumed ${tokenPriceResumeMs - tpBase} ms after the broker (target ${RECOVERY_OVER_BROKER_MS} ms, not held)`,
          );
        if (brokerMs === null) t.notes.push(`round ${round}: TRADES accepted no publish within ${RECOVERY_DEADLINE_MS} ms`);
        if (broker.stored) {
          const stores = await nodeStreamStates(c.nodes, TRADES_STREAM);
          t.notes.push(
            `round ${round}: the broker probe's re-publish of seq ${broker.stored.probeSeq} was stored at seq ${broker.stored.storedSeq} (one duplicate of the probe's making): the new TRADES leader had lost acknowledged messages; stores now ${stores.map((x) => `${x.node} ${x.lastSeq}`).join(', ')}`,
          );
        }
        step(
          `round ${round}: killed ${leader} (stores before: ${storesBefore.map((x) => `${x.node} ${x.lastSeq}`).join(', ')}); ms after the kill: broker ${broker.publishMs} (consumer ${broker.consumerMs}), ingest ${publisherMs}, subscriber ${subscriberMs}, token-price resumed ${tokenPriceResumeMs}, caught up ${tokenPriceMs}`,
        );
        // Current again before the next fault: the settling at the top of the next round.
        await c.restart(leader);
      }
      t.notes.push(recoverySummary(kills));
      await finish(
        t,
        `recovered = first trade received that was published after the kill; token-price (in-process, its own connection to every node, a private Redis) resumed = its stored position passed the last sequence before the kill, caught up = it reached the first trade stored after the kill; broker = on a connection to the surviving nodes, TRADES acknowledges a re-publish of a message stored seconds before the kill (duplicate, nothing stored) and a consumer on TRADES can be created (the meta leader: a reader that makes a new consumer needs it too); each killed node restarted and current before the next kill; bound: ingest ≤ publish + ${RECOVERY_OVER_BROKER_MS} ms, subscriber ≤ the latest of publish, consumer and the first trade stored after the kill + ${RECOVERY_OVER_BROKER_MS} ms, token-price's resume (a trade stored after the kill's last one applied) reported against the subscriber's bound, not held; its catch-up (the first trade stored after the kill applied, behind ingest's burst) reported`,
      );
    }

    // 2. ingest SIGKILLed and restarted (replay source; full size only: a restart starts a new replay run).
    if (size.ingestKills > 0) {
      const t: ClassTally = { name: 'ingest killed (SIGKILL) mid-stream and restarted (replay source)', tried: 0, crashed: 0, recoveryMs: null, notes: [] };
      for (let round = 0; round < size.ingestKills; round++) {
        await sleep(200 + random() * size.jitterMs);
        const killMs = Date.now();
        retire(ingest);
        await ingest.kill('SIGKILL');
        t.tried++;
        ingest = await spawnIngest({ natsUrl, transactionsPerSecond: size.tps });
        await recoveredAfter(t, killMs, (d) => d.publishedMs >= killMs);
      }
      await finish(
        t,
        "recovered = first trade of the restarted process received (includes node+tsx start and waiting out the killed process's leader lease, INGEST_LEASE_MS 5 s: with the chart's two replicas the standby takes over after the same wait); a restart begins a new replay run, the trade in flight at the kill is not re-sent (replay has no resume point)",
      );
    }

    /**
     * A live source's ingest SIGKILLed at `size.liveKillsAt` fractions of `expected` stored and started
     * again at once: it must resume from its checkpoint and store every trade of `expected` exactly once.
     */
    const liveSourceClass = async (source: {
      name: string;
      expected: ReadonlySet<string>;
      env: Record<string, string>;
      /** Starts the fake node (before the first kill; ingest may already be waiting for it). */
      start: () => Promise<void>;
      /** Stops the fake node. */
      close: () => Promise<void>;
      /** Called right after each SIGKILL, before the restart (a node holding transactions back for after a kill releases them). */
      killed?: () => void;
      meaning: string;
    }): Promise<void> => {
      const t: ClassTally = { name: source.name, tried: 0, crashed: 0, recoveryMs: null, notes: [] };
      step(source.name);
      const { expected } = source;
      const isThis = (msgId: string) => expected.has(msgId);
      live ??= await spawnIngest({ natsUrl, transactionsPerSecond: 1, env: source.env });
      await source.start();
      for (const fraction of size.liveKillsAt) {
        const want = Math.ceil(expected.size * fraction);
        const reached = await until(`${want} live trades stored`, 60_000, () => ledger.storedIds(isThis).size >= want).catch(() => false);
        if (!reached || !live) {
          t.crashed++;
          t.notes.push(
            `live ingest stored only ${ledger.storedIds(isThis).size} of ${expected.size} trades within 60 s: ${live?.output().replaceAll('\n', ' ').slice(-300)}`,
          );
          break;
        }
        // A kill after every trade of the source was stored can show no recovery: no new trade of it can come
        // (2c found "no trade within 30000 ms (hang)" so, with 0 lost). Reported as the harness's fault, not waited on.
        const storedAtKill = ledger.storedIds(isThis).size;
        if (storedAtKill >= expected.size) {
          t.crashed++;
          t.notes.push(
            `harness: all ${expected.size} trades of the source were stored before the kill at ${fraction * 100}%, so no new one could come (no recovery to measure; not an ingest hang)`,
          );
          break;
        }
        const killMs = Date.now();
        retire(live);
        await live.kill('SIGKILL');
        source.killed?.();
        t.tried++;
        if (process.env.CHAOS_DEBUG)
          process.stderr.write(`[debug ${new Date().toISOString()}] ${source.name}: killed at ${storedAtKill} of ${expected.size} seen by the subscriber\n`);
        // Restarted without LIVE_FROM_SLOT: only its checkpoint can bring it back to where it was (without
        // one it would start at the node's tip and the trades produced while it was down would be lost).
        const { LIVE_FROM_SLOT: _first, ...restartEnv } = source.env;
        live = await spawnIngest({ natsUrl, transactionsPerSecond: 1, env: restartEnv });
        const ms = await recoveredAfter(t, killMs, (d) => isThis(d.msgId) && d.publishedMs >= killMs);
        step(`killed live ingest at ${storedAtKill} of ${expected.size} trades; first new trade ${ms} ms after the kill`);
      }
      // Every trade of the chain stored, once (duplicates are counted by the ledger audit in finish()).
      await until('every live trade stored', 60_000, () => [...expected].every((id) => ledger.storedIds(isThis).has(id))).catch(() => undefined);
      const stored = ledger.storedIds(isThis);
      const missing = [...expected].filter((id) => !stored.has(id));
      if (missing.length > 0)
        t.notes.push(`live trades never stored: ${missing.slice(0, 5).join(', ')}${missing.length > 5 ? ` and ${missing.length - 5} more` : ''}`);
      t.lostExtra = missing.length;
      // Proof that the restart re-published from its checkpoint and JetStream dropped the repeats.
      const dropped = await ingestMetric(live, 'tradewind_ingest_trades_duplicate_total');
      t.notes.push(`the last restarted ingest re-published ${dropped} trade(s) that JetStream dropped as duplicates`);
      retire(live);
      await live?.stop();
      live = undefined;
      await source.close();
      await finish(
        t,
        `${source.meaning}, ${expected.size} trades; kills at ${size.liveKillsAt.map((f) => `${f * 100}%`).join(', ')} of them stored; checkpoint every 1 s, restarted without LIVE_FROM_SLOT; lost = trades it served never stored; recovered = first new trade of this source received after the kill (the restarted ingest first waits out the killed one's leader lease, INGEST_LEASE_MS 5 s, as the chart's standby replica would)`,
      );
    };

    // 2b. ingest on the live Yellowstone source SIGKILLed and restarted: it resumes from its checkpoint.
    await liveSourceClass({
      name: 'ingest killed (SIGKILL) mid-stream and restarted (live Yellowstone source, checkpoint resume)',
      expected: liveHalves.yellowstone,
      env: liveEnv,
      start: async () => {
        geyser = new GeyserTestServer({ transactions: geyserChain, pingIntervalMs: 1_000, slotIntervalMs: size.liveSlotMs });
        await geyser.start(geyserPort);
      },
      close: async () => {
        await geyser?.close();
        geyser = undefined;
      },
      meaning: `fake Yellowstone node (services/ingest/test/support/geyser-server.ts) serving the first half of the recording, ${size.liveSlotMs} ms per slot`,
    });

    // 2c. The same on the live RPC WebSocket source (logsSubscribe + getTransaction): it back-fills from its checkpoint.
    {
      const served = loadRecordedTransactions(BUNDLED_RECORDING_DIR).transactions.filter((x) => liveHalves.rpcPaths.has(resolve(x.file)));
      const node = await startSolanaRpcServer({ transactions: served });
      rpcNode = node;
      // The node produces while ingest is down, but the served half is a short chain (15 transactions, 7.5 s at
      // 500 ms): produced freely, it ran out while the first restarted ingest still waited out the lease (about
      // 6 s), whose back-fill then stored every trade at once, and the kills at 50% and 75% found nothing left to
      // publish ("no trade within 30000 ms (hang)", 0 lost). So it holds back OUTAGE transactions per kill to come
      // and releases them at each kill: they are produced while ingest is down (the back-fill must find them), and
      // every kill has trades after it.
      const OUTAGE = 2;
      let producer: ChainProducer | undefined;
      await liveSourceClass({
        name: 'ingest killed (SIGKILL) mid-stream and restarted (live RPC WebSocket source, checkpoint resume)',
        expected: liveHalves.rpc,
        env: {
          INGEST_SOURCE: 'rpc',
          SOLANA_RPC_URL: node.httpUrl,
          SOLANA_WS_URL: node.wsUrl,
          LIVE_FROM_SLOT: String(node.transactions[0]?.slot ?? 0),
          LIVE_CHECKPOINT_INTERVAL_MS: '1000',
          LIVE_RECONNECT_INITIAL_MS: '200',
          LIVE_RECONNECT_MAX_MS: '500',
        },
        // Once ingest subscribed to the four programs' logs, the node produces one recorded transaction per
        // slot interval, whether ingest runs or not (else it would find them all at its start, in one back-fill).
        start: async () => {
          await until('ingest to subscribe to the RPC node', 60_000, () => node.logSubscriptionCount() >= 4);
          producer = produceChain(node, { intervalMs: size.liveSlotMs, limit: node.transactions.length - OUTAGE * size.liveKillsAt.length });
        },
        killed: () => producer?.release(OUTAGE),
        close: async () => {
          producer?.stop();
          await node.close();
          rpcNode = undefined;
        },
        meaning: `fake Solana RPC node (services/ingest/test/support/solana-rpc-server.ts, HTTP JSON-RPC + PubSub WebSocket) producing the second half of the recording, one transaction per ${size.liveSlotMs} ms, whether ingest runs or not, holding back ${OUTAGE} transactions per kill to come until that kill (produced while ingest is down)`,
      });
    }

    // 3. Partition: stall.
    {
      const t: ClassTally = { name: 'partition ingest↔NATS: TCP stall (no bytes, sockets open)', tried: 0, crashed: 0, recoveryMs: null, notes: [] };
      step(t.name);
      for (const stallMs of size.stalls) {
        await sleep(200 + random() * size.jitterMs);
        if (proxy.openConnections() === 0) t.notes.push(`stall of ${stallMs} ms: ingest had no connection through the proxy`);
        proxy.stall();
        t.tried++;
        await sleep(stallMs);
        const healMs = Date.now();
        proxy.heal();
        await recoveredAfter(t, healMs, () => true);
      }
      t.notes.push(await retryEvidence());
      await finish(
        t,
        `stalls of ${size.stalls.join(', ')} ms (past ingest's PUBLISH_ACK_TIMEOUT_MS, 2 s, so ingest re-sends); recovered = first trade received after the heal`,
      );
    }

    // 4. Partition: sockets dropped (full size only; ingest re-sends at once on its reconnect).
    if (size.drops > 0) {
      const t: ClassTally = { name: 'partition ingest↔NATS: TCP connections dropped (reset)', tried: 0, crashed: 0, recoveryMs: null, notes: [] };
      for (let round = 0; round < size.drops; round++) {
        await sleep(200 + random() * size.jitterMs);
        const dropMs = Date.now();
        const cut = proxy.drop();
        if (cut === 0) t.notes.push(`round ${round}: no connection open to cut`);
        t.tried++;
        await recoveredAfter(t, dropMs, (d) => d.publishedMs >= dropMs);
      }
      t.notes.push(await retryEvidence());
      await finish(
        t,
        'recovered = first trade received that was published after the drop (ingest reconnects, reconnectTimeWait 250 ms, and re-sends its window at once on the reconnect)',
      );
    }
    return rows;
  } finally {
    clearInterval(debugTimer);
    process.off('unhandledRejection', onRejection);
    await ingest?.stop().catch(() => undefined);
    await live?.stop().catch(() => undefined);
    await geyser?.close().catch(() => undefined);
    await rpcNode?.close().catch(() => undefined);
    await observer?.stop().catch(() => undefined);
    await tokenPrice?.stop();
    await tokenPriceNc?.close().catch(() => undefined);
    await redis?.stop(true).catch(() => undefined);
    await nc?.close().catch(() => undefined);
    await proxy?.close().catch(() => undefined);
    await cluster?.stop().catch(() => undefined);
  }
}
