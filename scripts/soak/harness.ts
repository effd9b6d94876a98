/**
 * The soak: the whole trade path — Yellowstone stand-in → ingest → JetStream TRADES (3-node operator-mode
 * cluster, R3) → ws-fanout and its workers → WebSocket clients, native NATS subscribers and token-price —
 * at a mainnet-shaped rate for as long as asked, measured per interval (scripts/soak/report.ts prints it).
 *
 * Set-up, in this order, so every subscriber sees the run from its first trade: the NATS cluster
 * (startLocalNats, clusterSize 3, fresh state directory), TRADES created with exactly the options ingest
 * derives from the environment it is given, ws-fanout and token-price (real entry points, Redis at
 * `redisUrl`, token-price under a private key prefix), the subscriber processes (scripts/soak/clients.ts)
 * connected and subscribed, the harness's reader of the stored stream (scripts/soak/stored.ts), then the
 * stand-in (scripts/soak/geyser-process.ts; its start is the run's time 0 and its rate profile's) and ingest
 * (INGEST_SOURCE=yellowstone at the stand-in, NATS_STREAM_REPLICAS=3, every node in NATS_URL).
 *
 * Measured: chain-to-client latency (the stand-in's `onSend` time of the transaction → a subscriber has the
 * trade; same clock, joined by signature), ingest lag (→ the JetStream store timestamp), sends and stored
 * trades, lost/duplicated/reordered/unexpected trades per subscriber by stream sequence against what the
 * stored stream owes it (scripts/soak/audit.ts), RSS and CPU of every process (/proc), TRADES bytes against
 * max_bytes, ingest's queue depth and reconnects, the stand-in's disconnects. After the run the stand-in
 * stops (its stats and ingest's reconnect counter are read first), ingest stores what it still holds,
 * and every subscriber gets what it is owed or the drain times out; then everything is stopped.
 *
 * Every child process is stopped at the end, on an error, and by {@link Soak.stop} (the CLI calls it on
 * SIGINT/SIGTERM); an `exit` handler SIGKILLs whatever is left if the process ends otherwise, and the reaper
 * process (scripts/soak/reaper.ts) does when this process is killed outright (SIGKILL).
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { jetstreamManager, type JetStreamManager } from '@nats-io/jetstream';
import { TRADES_STREAM, type PlanId } from '@tradewind/contracts';
import { issueUserCredentials } from '@tradewind/credential-issuer';
import { freePort, startLocalNats, type LocalNats, type MainnetGeyserStats } from '@tradewind/dev';
import { BUNDLED_RECORDING_DIR, listJsonFiles, loadIngestConfig, loadRecording, subjectOf } from '@tradewind/ingest';
import { connectNats, ensureTradesStream, type NatsConnection } from '@tradewind/lib';
import { createRedisClient } from '@tradewind/token-price';
import { legacyPlanUsers, type BenchUser } from '../bench/fanout-users.js';
import { addCounts, zeroCounts, type AuditCounts } from './audit.js';
import type { ClientRequest, ConnectOutcome, FinalReport, IntervalReport, Problem, SetupResult, StatusResult, SubscriberSpec } from './clients.js';
import type { TradeJson } from './filters.js';
import type { GeyserSends, GeyserStarted } from './geyser-process.js';
import { Histogram } from './histogram.js';
import type { SoakOptions } from './options.js';
import { buildSoakPlan, describeVariant, recordingMints, type SoakPlan } from './plan.js';
import { metricSum } from '../bench/prometheus-text.js';
import { IpcChild, ServiceProcess, type ServiceName } from './processes.js';
import { childPids, machineInfo, readMachineCpu, readProc, type MachineInfo, type ProcReading } from './procstat.js';
import { memoryFindings, verdictReasons, warmupMs, type MemoryFinding } from './rules.js';
import { StoredReader } from './stored.js';

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
/** How many times a service is started on fresh ports when it exits with EADDRINUSE. */
const PORT_ATTEMPTS = 3;

/** p50 / p99 / max of a histogram, ms (NaN when empty), and its count. */
export interface Quantiles {
  p50: number;
  p99: number;
  max: number;
  count: number;
}

export function quantiles(h: Histogram): Quantiles {
  return { p50: h.quantile(0.5), p99: h.quantile(0.99), max: h.quantile(1), count: h.count };
}

/** Latency of one kind by phase, and both together. */
export interface PhaseLatency {
  all: Quantiles;
  steady: Quantiles;
  burst: Quantiles;
}

function phaseLatency(steady: Histogram, burst: Histogram): PhaseLatency {
  return { all: quantiles(new Histogram().merge(steady).merge(burst)), steady: quantiles(steady), burst: quantiles(burst) };
}

/** One process's reading at an interval's end and its CPU use over the interval. */
export interface ProcessFigure {
  name: string;
  rssBytes: number | null;
  /** % of one core over the interval. */
  cpuPercent: number | null;
}

/** One report interval ("minute" at full size). */
export interface IntervalRow {
  index: number;
  /** Seconds since the run's time 0 at the interval's start and end. */
  fromS: number;
  toS: number;
  /** 'run', or 'drain' after the run (the stand-in stopped). */
  stage: 'run' | 'drain';
  /** Seconds of the interval the stand-in's profile was in its burst, and the rates it ran at. */
  burstSeconds: number;
  rates: string;
  sentTx: number;
  /** Transactions the stand-in's chain produced in the interval (its rate profile), whether or not it could hand them to ingest yet. */
  producedTx: number;
  /**
   * Produced since ingest subscribed and not yet written to its stream, at the interval's end: what the stand-in
   * holds because ingest's stream does not take it faster (HTTP/2 flow control). Null before ingest subscribed.
   */
  standInBacklog: number | null;
  storedTrades: number;
  storedTx: number;
  ingestLag: PhaseLatency;
  /** Highest `tradewind_ingest_source_queue_depth` sampled in the interval. */
  queueMax: number | null;
  ws: PhaseLatency;
  native: PhaseLatency;
  /** Trades received in the interval. */
  deliveries: { ws: number; native: number };
  /** Found in the interval (lost: gaps gone past; judged once the stored stream reached them). */
  integrity: AuditCounts;
  /** Owed, not received yet, at the report. */
  behind: { ws: number; native: number };
  reconnects: { ws: number; native: number };
  closes: Record<string, number>;
  tradesBytes: number | null;
  tradesMaxBytes: number | null;
  processes: ProcessFigure[];
  geyserLagged: number;
  /** Busy share of all the machine's cores over the interval (every process on it, not only the soak's), %. */
  machineBusyPercent: number | null;
  /** The soak's processes' CPU over the interval, % of all the machine's cores. */
  soakBusyPercent: number | null;
  /** 1-minute load average at the interval's end. */
  load1: number;
}

/** Everything a run measured. */
export interface SoakResult {
  options: SoakOptions;
  machine: MachineInfo;
  startedAt: Date;
  setupMs: number;
  drainMs: number;
  /** Whether every subscriber had what it was owed before the drain timed out. */
  drained: boolean;
  rows: IntervalRow[];
  latency: { ws: PhaseLatency; native: PhaseLatency; ingest: PhaseLatency };
  integrity: { ws: AuditCounts; native: AuditCounts };
  problems: Problem[];
  problemCount: number;
  connect: { ws: ConnectOutcome; native: ConnectOutcome };
  subscribers: { ws: number; native: number; filteredWs: number; perMintNative: number; processes: number };
  variants: string[];
  /**
   * Sends the stand-in reported; those without a stored trade; how many of those the recording explains
   * (its successful transactions that decode to no trade, `noTradeFiles`), and the rest.
   */
  sends: { reported: number; withoutStoredTrade: number; noTradeFiles: string[]; successfulTemplates: number; unstored: number };
  stored: { trades: number; transactions: number; withoutSend: number; skipped: number; lastSeq: number };
  geyser: MainnetGeyserStats | null;
  ingest: { reconnects: number | null; queueMax: number | null; publishErrors: number | null; duplicates: number | null };
  warmupMs: number | null;
  memory: MemoryFinding[] | null;
  processes: Array<{
    name: string;
    service: boolean;
    rssWarmup: number | null;
    rssEnd: number | null;
    rssMax: number | null;
    cpuAvg: number | null;
    cpuMax: number | null;
  }>;
  trades: { bytes: number; maxBytes: number; messages: number } | null;
  received: { ws: number; native: number };
  reconnects: { ws: number; native: number };
  closes: Record<string, number>;
  unmatchedNative: number;
  exited: string[];
  reasons: string[];
}

/** A process the soak watches: name, whether the memory rule applies, and its pid now. */
interface Watched {
  name: string;
  service: boolean;
  pid: () => number | undefined;
}

/** A soak run; {@link run} once, {@link stop} from a signal handler. */
export interface Soak {
  run(): Promise<SoakResult>;
  /** Stops every child process (idempotent). */
  stop(): Promise<void>;
}

/** Prints one line. */
export type Log = (line: string) => void;

export function createSoak(o: SoakOptions, log: Log, onRow: (row: IntervalRow) => void = () => undefined): Soak {
  const cleanups: Array<() => Promise<unknown>> = [];
  const killers: Array<() => void> = [];
  let cleaned: Promise<void> | undefined;
  const killAll = () => {
    for (const k of killers) k();
  };
  const stop = () =>
    (cleaned ??= (async () => {
      for (const c of cleanups.reverse()) await c().catch((err: unknown) => log(`soak cleanup: ${err instanceof Error ? err.message : String(err)}`));
      process.off('exit', killAll);
    })());
  return {
    stop,
    async run() {
      process.on('exit', killAll);
      try {
        return await runSoak(o, log, onRow, cleanups, killers);
      } finally {
        await stop();
      }
    },
  };
}

async function runSoak(
  o: SoakOptions,
  log: Log,
  onRow: (row: IntervalRow) => void,
  cleanups: Array<() => Promise<unknown>>,
  killers: Array<() => void>,
): Promise<SoakResult> {
  const startedAt = new Date();
  const setupStart = Date.now();
  const say = log;
  log = (line: string) => say(`[+${((Date.now() - setupStart) / 1000).toFixed(1)} s] ${line}`);
  const machine = machineInfo();
  const runId = randomBytes(4).toString('hex');

  // --- the reaper first: whatever is started from here on dies with this process, however it ends ---
  const reaper = await IpcChild.start('reaper', './reaper.ts');
  cleanups.push(() => reaper.stop());
  const watch = (pid: number | undefined, match: string) => {
    if (pid !== undefined) reaper.post({ pid, match });
  };

  // --- in parallel: the NATS cluster, the helper processes, the plan ---
  const stateDir = await mkdtemp(join(tmpdir(), 'tw-soak-'));
  cleanups.push(() => rm(stateDir, { recursive: true, force: true }));
  reaper.post({ dir: stateDir });
  log(
    `soak ${runId}: starting a 3-node NATS cluster (operator mode, JetStream) in ${stateDir}, ${o.clientProcesses} subscriber processes and the stand-in's process`,
  );
  const procs: IpcChild[] = [];
  cleanups.push(() => Promise.all(procs.map((p) => p.stop())));
  killers.push(() => {
    for (const p of procs) p.child.kill('SIGKILL');
  });
  let onSends: (sends: GeyserSends) => void = () => undefined;
  let recording: RecordingShape = { successful: 0, withoutTrade: [] };
  const [nats, geyser, plan] = await Promise.all([
    (async () => {
      const n = await startLocalNats({ stateDir, port: await freePort(), monitorPort: await freePort(), clusterSize: 3, maxFileStore: '4GB' });
      for (const p of n.processes) watch(p.pid, stateDir);
      cleanups.push(() => n.stop());
      killers.push(() => {
        for (const p of n.processes) p.kill('SIGKILL');
      });
      return n;
    })(),
    (async () => {
      const g = await IpcChild.start('stand-in', './geyser-process.ts', (m) => {
        if (m.sends) onSends(m.sends as GeyserSends);
      });
      watch(g.pid, 'scripts/soak/geyser-process.ts');
      cleanups.push(() => g.stop());
      killers.push(() => g.child.kill('SIGKILL'));
      return g;
    })(),
    (async () => {
      const { transactions } = await loadRecording(BUNDLED_RECORDING_DIR);
      const recorded = transactions.flatMap((t) => t.trades.map((trade) => ({ subject: subjectOf(trade), trade: trade as unknown as TradeJson })));
      recording = await recordingShape(transactions.map((t) => t.path));
      return buildSoakPlan(o.wsClients, o.nativeClients, recordingMints(recorded));
    })(),
    ...Array.from({ length: o.clientProcesses }, async (_, i) => {
      procs[i] = await IpcChild.start(`subscribers ${i + 1}`, './clients.ts');
      watch(procs[i]!.pid, 'scripts/soak/clients.ts');
    }),
  ]);
  const natsDir = join(stateDir, 'nats');
  const nc: NatsConnection = await connectNats({ url: nats.urls, creds: nats.identities.service_user_creds, name: 'soak-harness' });
  cleanups.push(() => nc.close());
  const jsm: JetStreamManager = await jetstreamManager(nc);
  const common: NodeJS.ProcessEnv = { ...process.env, LOG_LEVEL: 'warn', NATS_URL: nats.urls, NATS_CREDS: join(natsDir, 'service.creds') };
  const ingestEnv: NodeJS.ProcessEnv = { ...common, NATS_STREAM_REPLICAS: '3', INGEST_SOURCE: 'yellowstone' };
  // TRADES exactly as ingest will ensure it (same environment), created first so ws-fanout's feeds and the
  // subscribers are in place before the first trade.
  const ingestConfig = loadIngestConfig({ ...ingestEnv, YELLOWSTONE_ENDPOINT: 'http://127.0.0.1:1' });
  await ensureTradesStream(jsm, {
    maxAgeMs: ingestConfig.TRADES_MAX_AGE_MS,
    duplicateWindowMs: ingestConfig.TRADES_DUPLICATE_WINDOW_MS,
    maxBytes: ingestConfig.TRADES_MAX_BYTES,
    replicas: ingestConfig.NATS_STREAM_REPLICAS,
  });

  // --- in parallel: the services that consume TRADES, the subscribers' credentials ---
  const services = new Map<ServiceName, ServiceProcess>();
  // `env` is built anew for each attempt: a port freePort() found free can still be taken before the service
  // binds it (another test's server), and the service then exits with EADDRINUSE; it is started again on new ports.
  const startService = async (name: ServiceName, env: () => Promise<NodeJS.ProcessEnv>) => {
    for (let attempt = 1; ; attempt++) {
      const attemptEnv = await env();
      try {
        const svc = await ServiceProcess.start(name, attemptEnv, await freePort(), o.serviceStartTimeoutMs, watch);
        services.set(name, svc);
        killers.push(() => svc.kill());
        return { svc, env: attemptEnv };
      } catch (err) {
        if (attempt >= PORT_ATTEMPTS || !String(err).includes('EADDRINUSE')) throw err;
        log(`soak: ${name} found a port taken (attempt ${attempt}/${PORT_ATTEMPTS}); starting it on other ports`);
      }
    }
  };
  const redisPrefix = `tradewind:soak:${runId}:token-price:`;
  cleanups.push(() => deleteRedisPrefix(o.redisUrl, redisPrefix));
  // The services stop together (each drains on SIGTERM), before their Redis keys are removed and NATS stops.
  cleanups.push(() => Promise.all([...services.values()].map((svc) => svc.stop())));
  const wsEnv = async (): Promise<NodeJS.ProcessEnv> => {
    const env: NodeJS.ProcessEnv = {
      ...common,
      PORT: String(await freePort()),
      HOST: '127.0.0.1',
      REDIS_URL: o.redisUrl,
      NATS_SYSTEM_CREDS: join(natsDir, 'sys.creds'),
      NATS_OPERATOR_JWT: join(natsDir, 'operator.jwt'),
    };
    if (o.wsWorkers === undefined) delete env.WS_WORKERS;
    else env.WS_WORKERS = String(o.wsWorkers);
    return env;
  };
  log('soak: starting ws-fanout and token-price from their entry points; issuing credentials');
  const [{ svc: wsFanout, env: wsStarted }, , wsSpecs, nativeSpecs] = await Promise.all([
    startService('ws-fanout', wsEnv),
    startService('token-price', async () => ({
      ...common,
      PORT: String(await freePort()),
      GRPC_PORT: String(await freePort()),
      HOST: '127.0.0.1',
      REDIS_URL: o.redisUrl,
      TOKEN_PRICE_REDIS_PREFIX: redisPrefix,
    })),
    wsUsers(plan, nats, o.userTtlSeconds),
    nativeUsers(plan, nats, o.userTtlSeconds),
  ]);
  const wsPort = Number(wsStarted.PORT);
  // Its node:cluster workers run the same entry point; the primary forks them before it is ready.
  const workerPids = childPids(wsFanout.pid ?? -1, 'services/ws-fanout/src/main.ts');
  for (const pid of workerPids) watch(pid, 'services/ws-fanout/src/main.ts');

  // --- subscribers ---
  const share = <T>(xs: T[], i: number) => xs.filter((_, j) => j % o.clientProcesses === i);
  log(`soak: connecting ${o.wsClients} WebSocket clients and ${o.nativeClients} native subscribers from ${o.clientProcesses} processes`);
  const setups = await Promise.all(
    procs.map((p, i) =>
      p.call<SetupResult>(
        {
          cmd: 'setup',
          wsUrl: `ws://127.0.0.1:${wsPort}`,
          natsServers: nats.urls.split(','),
          expectations: [...plan.expectations],
          ws: share(wsSpecs, i),
          native: share(nativeSpecs, i),
          options: {
            connectConcurrency: o.connectConcurrency,
            connectTimeoutMs: o.connectTimeoutMs,
            connectAttempts: o.connectAttempts,
            reconnectDelayMs: o.reconnectDelayMs,
            nativeStartMarginMs: o.nativeStartMarginMs,
            intervalMs: o.intervalMs,
            unmatchedAfterMs: o.unmatchedAfterMs,
            nativeIdRetention: o.nativeIdRetention,
          },
        } satisfies ClientRequest,
        o.callTimeoutMs,
      ),
    ),
  );
  const connect = { ws: mergeConnect(setups.map((s) => s.ws)), native: mergeConnect(setups.map((s) => s.native)) };
  log(
    `soak: connected ${connect.ws.connected}/${o.wsClients} WebSocket, ${connect.native.connected}/${o.nativeClients} native${failureText(connect.ws, connect.native)}`,
  );

  // --- the stored stream's reader ---
  const reader = new StoredReader(
    nc,
    plan.variants,
    { holdMs: o.sendJoinHoldMs, batchMs: o.recordBatchMs, sendRetentionMs: o.sendRetentionMs, intervalMs: o.intervalMs, batchMessages: o.storedBatchMessages },
    (batch) => {
      for (const p of procs) p.post({ records: batch });
    },
  );
  await reader.start();
  cleanups.push(() => reader.stop());

  // --- the stand-in and ingest ---
  // The run's time 0 is the first transaction the stand-in writes to ingest's stream: its chain runs from its
  // own start, and ingest subscribes once it is up, so a run of at least one rate cycle always holds a burst.
  const sentPerInterval = new Map<number, number>();
  let t0: number | undefined;
  let firstSend: () => void = () => undefined;
  const firstSent = new Promise<void>((resolve) => {
    firstSend = resolve;
  });
  onSends = (sends) => {
    if (t0 === undefined) {
      t0 = Math.min(...sends.sentMs);
      // Before the first record: a record is handed on only once its send is known (StoredReader).
      reader.setStart(t0);
      for (const p of procs) p.post({ start: t0 });
      firstSend();
    }
    reader.addSends(sends.signatures, sends.sentMs, sends.burst);
    for (const ms of sends.sentMs) {
      const i = Math.max(0, Math.floor((ms - t0) / o.intervalMs));
      sentPerInterval.set(i, (sentPerInterval.get(i) ?? 0) + 1);
    }
  };
  const started = await geyser.call<GeyserStarted>({ cmd: 'start', profile: o.profile, flushMs: o.sendFlushMs }, 60_000);
  log(`soak: Yellowstone stand-in at ${started.endpoint} (profile ${profileText(o)}); starting ingest`);
  const { svc: ingest } = await startService('ingest', async () => ({ ...ingestEnv, YELLOWSTONE_ENDPOINT: started.endpoint }));
  log('soak: ingest is ready; waiting for its first transaction from the stand-in');
  await Promise.race([
    firstSent,
    sleep(o.serviceStartTimeoutMs).then(() => {
      throw new Error(`the stand-in sent ingest no transaction within ${o.serviceStartTimeoutMs} ms of ingest being ready:\n${ingest.tail()}`);
    }),
  ]);
  if (t0 === undefined) throw new Error('no first send time');
  const runStart: number = t0;
  const chainOffsetMs = runStart - started.startedMs;
  const setupMs = Date.now() - setupStart;

  // --- watched processes ---
  const watched: Watched[] = [
    ...nats.processes.map((p, i) => ({ name: `nats-server n${i + 1}`, service: false, pid: () => p.pid })),
    { name: 'ingest', service: true, pid: () => ingest.pid },
    { name: 'ws-fanout primary', service: true, pid: () => wsFanout.pid },
    ...workerPids.map((pid, i) => ({ name: `ws-fanout worker ${i + 1}`, service: true, pid: () => pid })),
    { name: 'token-price', service: true, pid: () => services.get('token-price')?.pid },
    { name: 'stand-in', service: false, pid: () => geyser.pid },
    ...procs.map((p) => ({ name: p.name, service: false, pid: () => p.pid })),
    { name: 'harness', service: false, pid: () => process.pid },
  ];
  const sampleProcs = (): Map<string, ProcReading | null> =>
    new Map(
      watched.map((w) => [
        w.name,
        (() => {
          const pid = w.pid();
          return pid === undefined ? null : readProc(pid);
        })(),
      ]),
    );

  // --- ingest metrics, sampled in the background ---
  const queueMax = new Map<number, number>();
  let ingestMetrics: { reconnects: number | null; publishErrors: number | null; duplicates: number | null; queue: number | null } = {
    reconnects: null,
    publishErrors: null,
    duplicates: null,
    queue: null,
  };
  const scrapeIngest = async () => {
    const text = await ingest.metrics();
    if (text === null) return;
    // A labelled counter has no sample until it is first incremented: absent from a scraped text is 0.
    ingestMetrics = {
      reconnects: metricSum(text, 'tradewind_ingest_source_reconnects_total') ?? 0,
      publishErrors: metricSum(text, 'tradewind_ingest_publish_errors_total') ?? 0,
      duplicates: metricSum(text, 'tradewind_ingest_trades_duplicate_total') ?? 0,
      queue: metricSum(text, 'tradewind_ingest_source_queue_depth') ?? null,
    };
    if (ingestMetrics.queue !== null) {
      const i = Math.max(0, Math.floor((Date.now() - runStart) / o.intervalMs));
      queueMax.set(i, Math.max(queueMax.get(i) ?? 0, ingestMetrics.queue));
    }
  };
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      await scrapeIngest().catch(() => undefined);
      await sleep(o.metricsSampleMs);
    }
  })();
  cleanups.push(async () => {
    sampling = false;
    await sampler;
  });

  // --- the run ---
  const runEnd = runStart + o.runMs;
  const cycleMs = o.profile.steadyMs + o.profile.burstMs;
  const warmAt = warmupMs(o.runMs, cycleMs);
  let warmSample: Map<string, ProcReading | null> | null = null;
  const warmTimer =
    warmAt === null
      ? undefined
      : setTimeout(
          () => {
            warmSample = sampleProcs();
          },
          Math.max(0, runStart + warmAt - Date.now()),
        );
  cleanups.push(async () => clearTimeout(warmTimer));
  const phaseSeconds = new Map<number, { burst: number; rates: Set<number> }>();
  /** Chain production when ingest's subscription was first seen (what it produced before is never sent to it). */
  let producedAtSubscribe: number | null = null;
  const phaseTimer = setInterval(() => {
    void geyser.call<MainnetGeyserStats>({ cmd: 'stats' }, 5_000).then(
      (s) => {
        if (producedAtSubscribe === null && s.subscribers > 0) producedAtSubscribe = s.transactionsProduced - s.transactionsSent;
        const i = Math.max(0, Math.floor((Date.now() - runStart) / o.intervalMs));
        const p = phaseSeconds.get(i) ?? { burst: 0, rates: new Set<number>() };
        if (s.phase === 'burst') p.burst++;
        p.rates.add(s.targetTxPerSecond);
        phaseSeconds.set(i, p);
      },
      () => undefined,
    );
  }, 1_000);
  cleanups.push(async () => clearInterval(phaseTimer));

  log(
    `soak: running ${(o.runMs / 60_000).toFixed(2)} min from ingest's first transaction, ${(chainOffsetMs / 1000).toFixed(1)} s into the stand-in's rate profile (setup took ${(setupMs / 1000).toFixed(1)} s)`,
  );
  const rows: IntervalRow[] = [];
  const samples: Array<Map<string, ProcReading | null>> = [];
  let prevSample = sampleProcs();
  let prevMachineCpu = readMachineCpu();
  let prevAt = Date.now();
  let prevCum = zeroCounts();
  let prevReconnects = { ws: 0, native: 0 };
  let prevCloses: Record<string, number> = {};
  let prevLagged = 0;
  let prevProduced = 0;
  let geyserEnd: MainnetGeyserStats | null = null;
  let reconnectsAtEnd: number | null = null;
  const exited = new Set<string>();
  const noteExits = () => {
    for (const s of services.values()) if (s.died && !exited.has(s.name)) exited.add(s.name);
    for (const w of watched) if (w.name.startsWith('ws-fanout worker') && readProc(w.pid() ?? -1) === null && wsFanout.exited === false) exited.add(w.name);
  };

  /** Samples, waits for the receipts to settle and reports interval `index` (ending at `endMs`). */
  const reportInterval = async (index: number, endMs: number, stage: 'run' | 'drain', upToIndex = index) => {
    const sample = sampleProcs();
    const now = Date.now();
    const elapsedS = (now - prevAt) / 1000;
    const processes: ProcessFigure[] = watched.map((w) => {
      const cur = sample.get(w.name) ?? null;
      const prev = prevSample.get(w.name) ?? null;
      return {
        name: w.name,
        rssBytes: cur?.rssBytes ?? null,
        cpuPercent: cur && prev && elapsedS > 0 ? ((cur.cpuSeconds - prev.cpuSeconds) / elapsedS) * 100 : null,
      };
    });
    samples.push(sample);
    prevSample = sample;
    prevAt = now;
    const cpuNow = readMachineCpu();
    const machineBusyPercent =
      cpuNow && prevMachineCpu && cpuNow.total > prevMachineCpu.total
        ? ((cpuNow.busy - prevMachineCpu.busy) / (cpuNow.total - prevMachineCpu.total)) * 100
        : null;
    prevMachineCpu = cpuNow;
    const soakCpu = processes.reduce((n, p) => n + (p.cpuPercent ?? 0), 0);
    const info = await jsm.streams.info(TRADES_STREAM).catch(() => null);
    const geyserStats = stage === 'run' && !geyser.exited ? await geyser.call<MainnetGeyserStats>({ cmd: 'stats' }, 5_000).catch(() => geyserEnd) : geyserEnd;
    noteExits();
    await sleep(o.reportSettleMs);
    const reports: IntervalReport[] = [];
    for (let i = index; i <= upToIndex; i++)
      reports.push(...(await Promise.all(procs.map((p) => p.call<IntervalReport>({ cmd: 'interval', index: i }, o.callTimeoutMs)))));
    const last = reports.slice(-procs.length);
    const cum = addCounts(
      last.reduce((a, r) => addCounts(a, r.counts.ws), zeroCounts()),
      last.reduce((a, r) => addCounts(a, r.counts.native), zeroCounts()),
    );
    const reconnects = { ws: sumOf(last, (r) => r.reconnects.ws), native: sumOf(last, (r) => r.reconnects.native) };
    const closes: Record<string, number> = {};
    for (const r of last) for (const [k, v] of Object.entries(r.closes)) closes[k] = (closes[k] ?? 0) + v;
    const hist = (kind: 'ws' | 'native', phase: 'steady' | 'burst') => reports.reduce((h, r) => h.merge(r.latency[kind][phase]), new Histogram());
    const stored = [...Array(upToIndex - index + 1).keys()].map((k) => reader.interval(index + k));
    const lag = (phase: 'steady' | 'burst') => stored.reduce((h, s) => h.merge(s.lag[phase]), new Histogram());
    const ws = phaseLatency(hist('ws', 'steady'), hist('ws', 'burst'));
    const native = phaseLatency(hist('native', 'steady'), hist('native', 'burst'));
    const lagged = geyserStats?.lagged ?? prevLagged;
    const phases = [...Array(upToIndex - index + 1).keys()].map((k) => phaseSeconds.get(index + k));
    const fromS = (index * o.intervalMs) / 1000;
    const row: IntervalRow = {
      index,
      fromS,
      toS: Math.max(fromS, (endMs - runStart) / 1000),
      stage,
      burstSeconds: phases.reduce((n, p) => n + (p?.burst ?? 0), 0),
      rates: [...new Set(phases.flatMap((p) => [...(p?.rates ?? [])]))].sort((a, b) => a - b).join('/'),
      sentTx: [...Array(upToIndex - index + 1).keys()].reduce((n, k) => n + (sentPerInterval.get(index + k) ?? 0), 0),
      producedTx: Math.max(0, (geyserStats?.transactionsProduced ?? prevProduced) - prevProduced),
      standInBacklog:
        producedAtSubscribe === null || !geyserStats || stage === 'drain'
          ? null
          : geyserStats.transactionsProduced - producedAtSubscribe - geyserStats.transactionsSent,
      storedTrades: stored.reduce((n, s) => n + s.trades, 0),
      storedTx: stored.reduce((n, s) => n + s.transactions, 0),
      ingestLag: phaseLatency(lag('steady'), lag('burst')),
      queueMax: [...Array(upToIndex - index + 1).keys()].reduce<number | null>((m, k) => {
        const q = queueMax.get(index + k);
        return q === undefined ? m : Math.max(m ?? 0, q);
      }, null),
      ws,
      native,
      deliveries: { ws: ws.all.count, native: native.all.count },
      integrity: subCounts(cum, prevCum),
      behind: { ws: sumOf(last, (r) => r.pending.ws), native: sumOf(last, (r) => r.pending.native) },
      reconnects: { ws: reconnects.ws - prevReconnects.ws, native: reconnects.native - prevReconnects.native },
      closes: diffTally(closes, prevCloses),
      tradesBytes: info?.state.bytes ?? null,
      tradesMaxBytes: info?.config.max_bytes ?? null,
      processes,
      geyserLagged: lagged - prevLagged,
      machineBusyPercent,
      soakBusyPercent: soakCpu / machine.cores,
      load1: loadavg()[0]!,
    };
    prevCum = cum;
    prevReconnects = reconnects;
    prevCloses = closes;
    prevLagged = lagged;
    prevProduced = geyserStats?.transactionsProduced ?? prevProduced;
    rows.push(row);
    onRow(row);
  };

  const intervals = Math.ceil(o.runMs / o.intervalMs);
  for (let index = 0; index < intervals; index++) {
    const endMs = Math.min(runStart + (index + 1) * o.intervalMs, runEnd);
    await sleep(Math.max(0, endMs - Date.now()));
    if (endMs === runEnd) {
      // Read before the stand-in stops: its end is a disconnect for ingest, not one of the run's.
      await scrapeIngest().catch(() => undefined);
      reconnectsAtEnd = ingestMetrics.reconnects;
      geyserEnd = await geyser.call<MainnetGeyserStats>({ cmd: 'stop' }, 30_000).catch((err: unknown) => {
        log(`soak: stopping the stand-in failed: ${String(err)}`);
        return null;
      });
      clearInterval(phaseTimer);
    }
    await reportInterval(index, endMs, 'run');
  }
  const endSample = samples.at(-1)!;

  // --- drain: ingest stores what it holds, every subscriber gets what it is owed ---
  const drainStart = Date.now();
  const drainDeadline = drainStart + o.drainTimeoutMs;
  let lastSeq = -1;
  let stableSince = Date.now();
  while (Date.now() < drainDeadline) {
    await scrapeIngest().catch(() => undefined);
    const seq = (await jsm.streams.info(TRADES_STREAM).catch(() => null))?.state.last_seq ?? lastSeq;
    if (seq !== lastSeq) {
      lastSeq = seq;
      stableSince = Date.now();
    } else if ((ingestMetrics.queue ?? 0) === 0 && Date.now() - stableSince >= o.drainStableMs) break;
    await sleep(250);
  }
  while (reader.lastRead < lastSeq && Date.now() < drainDeadline) await sleep(100);
  reader.flush(true);
  let drained = false;
  while (Date.now() < drainDeadline) {
    const status = await Promise.all(procs.map((p) => p.call<StatusResult>({ cmd: 'status' }, o.callTimeoutMs)));
    if (status.every((s) => s.pending === 0 && s.held === 0 && s.watermark >= lastSeq)) {
      drained = true;
      break;
    }
    await sleep(250);
  }
  const drainMs = Date.now() - drainStart;
  const drainEnd = Date.now();
  await reportInterval(intervals, drainEnd, 'drain', Math.max(intervals, Math.floor((drainEnd - runStart) / o.intervalMs)));

  // --- final figures ---
  const finals = await Promise.all(procs.map((p) => p.call<FinalReport>({ cmd: 'final' }, o.callTimeoutMs)));
  // The subscribers leave first, so stopping the services is not seen as a disconnect to recover from.
  await Promise.all(procs.map((p) => p.call({ cmd: 'close' }, o.callTimeoutMs).catch(() => undefined)));
  const info = await jsm.streams.info(TRADES_STREAM).catch(() => null);
  const kindLatency = (kind: 'ws' | 'native') =>
    phaseLatency(
      finals.reduce((h, f) => h.merge(f.latency[kind].steady), new Histogram()),
      finals.reduce((h, f) => h.merge(f.latency[kind].burst), new Histogram()),
    );
  const ingestLag = phaseLatency(
    reader.intervalIndexes().reduce((h, i) => h.merge(reader.interval(i).lag.steady), new Histogram()),
    reader.intervalIndexes().reduce((h, i) => h.merge(reader.interval(i).lag.burst), new Histogram()),
  );
  const integrity = {
    ws: finals.reduce((a, f) => addCounts(a, f.counts.ws), zeroCounts()),
    native: finals.reduce((a, f) => addCounts(a, f.counts.native), zeroCounts()),
  };
  const processes = watched.map((w) => {
    const cpu = rows.filter((r) => r.stage === 'run').map((r) => r.processes.find((p) => p.name === w.name)?.cpuPercent ?? null);
    const cpus = cpu.filter((c): c is number => c !== null);
    const rss = samples.map((s) => s.get(w.name)?.rssBytes ?? null).filter((r): r is number => r !== null);
    return {
      name: w.name,
      service: w.service,
      rssWarmup: (warmSample as Map<string, ProcReading | null> | null)?.get(w.name)?.rssBytes ?? null,
      rssEnd: endSample.get(w.name)?.rssBytes ?? null,
      rssMax: rss.length ? Math.max(...rss) : null,
      cpuAvg: cpus.length ? cpus.reduce((a, b) => a + b, 0) / cpus.length : null,
      cpuMax: cpus.length ? Math.max(...cpus) : null,
    };
  });
  const memory =
    warmSample === null
      ? null
      : memoryFindings(
          processes.filter((p) => p.service).map((p) => ({ process: p.name, warmupBytes: p.rssWarmup, endBytes: p.rssEnd })),
          o.memoryGrowthLimit,
        );
  const connected = { ws: connect.ws.connected, native: connect.native.connected };
  const result: SoakResult = {
    options: o,
    machine,
    startedAt,
    setupMs,
    drainMs,
    drained,
    rows,
    latency: { ws: kindLatency('ws'), native: kindLatency('native'), ingest: ingestLag },
    integrity,
    problems: finals.flatMap((f) => f.problems).slice(0, 20),
    problemCount: sumOf(finals, (f) => f.problemCount),
    connect,
    subscribers: {
      ws: o.wsClients,
      native: o.nativeClients,
      filteredWs: plan.ws.filter((c) => c.filtered).length,
      perMintNative: plan.native.filter((c) => c.filtered).length,
      processes: o.clientProcesses,
    },
    variants: plan.variants.map(describeVariant),
    sends: {
      reported: reader.sendsReported,
      withoutStoredTrade: reader.unmatchedSends(),
      noTradeFiles: recording.withoutTrade,
      successfulTemplates: recording.successful,
      unstored: unstoredBeyondRecording(reader.unmatchedSends(), reader.sendsReported, recording),
    },
    stored: {
      trades: sumOf(reader.intervalIndexes(), (i) => reader.interval(i).trades),
      transactions: reader.transactionsStored,
      withoutSend: reader.withoutSend,
      skipped: reader.skipped,
      lastSeq: info?.state.last_seq ?? lastSeq,
    },
    geyser: geyserEnd,
    ingest: {
      reconnects: reconnectsAtEnd,
      queueMax: queueMax.size ? Math.max(...queueMax.values()) : null,
      publishErrors: ingestMetrics.publishErrors,
      duplicates: ingestMetrics.duplicates,
    },
    warmupMs: warmAt,
    memory,
    processes,
    trades: info ? { bytes: info.state.bytes, maxBytes: info.config.max_bytes, messages: info.state.messages } : null,
    received: { ws: sumOf(finals, (f) => f.received.ws), native: sumOf(finals, (f) => f.received.native) },
    reconnects: { ws: sumOf(finals, (f) => f.reconnects.ws), native: sumOf(finals, (f) => f.reconnects.native) },
    closes: finals.reduce<Record<string, number>>((acc, f) => {
      for (const [k, v] of Object.entries(f.closes)) acc[k] = (acc[k] ?? 0) + v;
      return acc;
    }, {}),
    unmatchedNative: sumOf(finals, (f) => f.unmatched),
    exited: [...exited],
    reasons: [],
  };
  result.reasons = verdictReasons({
    lost: integrity.ws.lost + integrity.native.lost,
    duplicated: integrity.ws.duplicated + integrity.native.duplicated,
    reordered: integrity.ws.reordered + integrity.native.reordered,
    unexpected: integrity.ws.unexpected + integrity.native.unexpected,
    geyserDisconnects: geyserEnd?.disconnects ?? 0,
    ingestReconnects: reconnectsAtEnd,
    memory,
    exited: result.exited,
    unconnected: o.wsClients - connected.ws + (o.nativeClients - connected.native),
    unstoredTransactions: result.sends.unstored,
  });
  if (geyserEnd === null) result.reasons.push("the stand-in's stats could not be read at the end of the run");
  return result;
}

/** What the stand-in sends of the recording: its successful transactions (failed ones are filtered out by ingest's request), and those of them that decode to no trade. */
interface RecordingShape {
  successful: number;
  withoutTrade: string[];
}

/** Reads every recorded transaction's `meta.err`; `withTrades` are the paths loadRecording decoded trades from. */
async function recordingShape(withTrades: readonly string[]): Promise<RecordingShape> {
  const traded = new Set(withTrades);
  const shape: RecordingShape = { successful: 0, withoutTrade: [] };
  for (const path of await listJsonFiles(BUNDLED_RECORDING_DIR)) {
    const tx = JSON.parse(await readFile(path, 'utf8')) as { meta?: { err?: unknown } | null; result?: { meta?: { err?: unknown } | null } };
    const err = (tx.result ?? tx).meta?.err;
    if (err !== null && err !== undefined) continue;
    shape.successful++;
    if (!traded.has(path)) shape.withoutTrade.push(relative(BUNDLED_RECORDING_DIR, path));
  }
  return shape;
}

/**
 * Transactions the stand-in sent that have no stored trade beyond those the recording decodes to nothing:
 * it cycles through the `successful` templates in order, so of `sent` sends at most
 * `withoutTrade × (⌈sent / successful⌉ + 1)` are of a no-trade template (a partial pass at each end).
 */
export function unstoredBeyondRecording(unmatched: number, sent: number, shape: RecordingShape): number {
  if (shape.successful === 0) return unmatched;
  return Math.max(0, unmatched - shape.withoutTrade.length * (Math.ceil(sent / shape.successful) + 1));
}

/** WebSocket users: the bench's fast per-plan users (scripts/bench/fanout-users.ts), one per client. */
async function wsUsers(plan: SoakPlan, nats: LocalNats, ttlSeconds: number): Promise<SubscriberSpec[]> {
  const byPlan = new Map<PlanId, BenchUser[]>();
  for (const p of new Set(plan.ws.map((c) => c.plan))) {
    byPlan.set(p, await legacyPlanUsers(nats.identities, p, plan.ws.filter((c) => c.plan === p).length, ttlSeconds));
  }
  return plan.ws.map((client, i) => ({ id: `ws-${i}`, user: byPlan.get(client.plan)!.pop()!, client }));
}

/** Native users: credentials as `npm start` and `npm run creds` issue them (credential-issuer's issueUserCredentials). */
async function nativeUsers(plan: SoakPlan, nats: LocalNats, ttlSeconds: number): Promise<SubscriberSpec[]> {
  const out: SubscriberSpec[] = [];
  for (const [i, client] of plan.native.entries()) {
    const creds = await issueUserCredentials(nats.identities, { plan: client.plan, natsUrl: nats.url, email: `soak-native-${i}@localhost`, ttlSeconds });
    out.push({ id: `native-${i}`, user: { jwt: creds.user_jwt, seed: creds.user_nkey_seed }, client });
  }
  return out;
}

/** Removes token-price's keys of this run from the shared Redis. */
async function deleteRedisPrefix(url: string, prefix: string): Promise<void> {
  const redis = createRedisClient(url);
  redis.on('error', () => undefined);
  await redis.connect();
  try {
    for await (const keys of redis.scanIterator({ MATCH: `${prefix}*`, COUNT: 1000 })) if ((keys as string[]).length) await redis.unlink(keys as string[]);
  } finally {
    await redis.quit().catch(() => undefined);
  }
}

function mergeConnect(outcomes: ConnectOutcome[]): ConnectOutcome {
  const failures: Record<string, number> = {};
  for (const o of outcomes) for (const [k, v] of Object.entries(o.failures)) failures[k] = (failures[k] ?? 0) + v;
  return { connected: sumOf(outcomes, (o) => o.connected), failures };
}

function failureText(ws: ConnectOutcome, native: ConnectOutcome): string {
  const all = [...Object.entries(ws.failures), ...Object.entries(native.failures)];
  return all.length ? ` (failures: ${all.map(([k, v]) => `${k} ×${v}`).join(', ')})` : '';
}

function profileText(o: SoakOptions): string {
  const p = o.profile;
  return `${p.steadyTxPerSecond} tx/s for ${p.steadyMs / 1000} s, then ${p.burstTxPerSecond} tx/s for ${p.burstMs / 1000} s`;
}

function sumOf<T>(xs: readonly T[], f: (x: T) => number): number {
  return xs.reduce((n, x) => n + f(x), 0);
}

function subCounts(a: AuditCounts, b: AuditCounts): AuditCounts {
  return {
    delivered: a.delivered - b.delivered,
    lost: a.lost - b.lost,
    duplicated: a.duplicated - b.duplicated,
    reordered: a.reordered - b.reordered,
    unexpected: a.unexpected - b.unexpected,
  };
}

function diffTally(cur: Record<string, number>, prev: Record<string, number>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [k, v] of Object.entries(cur)) if (v - (prev[k] ?? 0) > 0) out[k] = v - (prev[k] ?? 0);
  return out;
}
