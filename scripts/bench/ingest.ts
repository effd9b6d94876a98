/**
 * `npm run bench -- ingest`: ingest's publishing into JetStream TRADES against JetStream's own acknowledged
 * publish rate with the same messages, on the same servers, in one run.
 *
 * Two cases, one after the other, each on its own servers (startLocalNats: operator mode as deployed, free
 * ports, a fresh state directory): `r1`, one nats-server with TRADES at 1 replica, and `r3`, a local 3-node
 * cluster with TRADES at 3 replicas. TRADES is created as ingest creates it (ensureTradesStream with ingest's
 * default limits and NATS_STREAM_REPLICAS) and purged before every measurement. Measured per case, in
 * {@link DEFAULT_ROUNDS} rounds whose order alternates (ABBA: the second round runs the series backwards, so a
 * steady drift of the shared machine weighs on every series alike):
 *  - broker: a child process (scripts/bench/ingest-broker.ts) publishing exactly the messages ingest's replay
 *    publishes (scripts/bench/ingest-replay.ts: same JSON bytes, headers, subjects and per-mint copies, unique
 *    Nats-Msg-Id) with {@link BROKER_WINDOW} acknowledged publishes in flight, and with 1 for context;
 *  - ingest: its real entry point (`node --import tsx services/ingest/src/main.ts`) as a child process with
 *    INGEST_SOURCE=replay, REPLAY_TRANSACTIONS_PER_SECOND={@link REPLAY_PACE}, REPLAY_LOOP=true (and
 *    PUBLISH_MAX_IN_FLIGHT per `--publish-window` value, else unset: ingest's own default).
 * Every measurement starts its child on the empty stream, waits for the first stored message, lets it run the
 * warm-up ({@link DEFAULT_WARMUP_SECONDS} s), then counts the messages TRADES stored over `--seconds` (stream
 * sequence from `jsm.streams.info` before and after; ingest's figure is cross-checked with its
 * `tradewind_ingest_trades_published_total`), with the CPU time of the child and of the nats-server processes
 * over the same span (/proc/<pid>/stat, % of one core). After the child stopped, the last
 * {@link DEFAULT_ORDER_CHECK_MESSAGES} stored message ids are read back (headers only) and checked against
 * the replay order (scripts/bench/ingest-order.ts): reordered, duplicated, gaps.
 *
 * Headline: ingest's stored trades/s ÷ the broker's at {@link BROKER_WINDOW} in flight, per case; the target
 * is ≥ {@link TARGET_RATIO} at R3. Every child process and server is stopped at the end, on error, on
 * SIGINT/SIGTERM and on an uncaught exception; only a SIGKILL of this process can leave nats-server and
 * ingest running (the broker process exits when its IPC channel closes).
 */
import { fork, spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DeliverPolicy, jetstream, type JetStreamClient, type JetStreamManager } from '@nats-io/jetstream';
import { TRADES_STREAM } from '@tradewind/contracts';
import { connectNats, ensureTradesStream, tradesManager, type NatsConnection } from '@tradewind/lib';
import { freePort, startLocalNats, type LocalNats } from '@tradewind/dev';
import { IngestConfigSchema, replayCopy } from '@tradewind/ingest';
import type { BrokerMessage, BrokerReport, BrokerRequest } from './ingest-broker.js';
import { checkReplayOrder, type OrderCheck } from './ingest-order.js';
import { ingestDefaults, ingestStreamOptions, loadBenchReplay, type BenchReplay } from './ingest-replay.js';
import { cpuSeconds } from './proc-cpu.js';
import { bucketQuantile, histogramBuckets, metricSum, type HistogramBucket } from './prometheus-text.js';
import { stopChildrenOnExit } from './child-cleanup.js';

/** The cases: servers started and TRADES' replicas. */
export const INGEST_BENCH_CASES = {
  r1: { nodes: 1, replicas: 1, label: 'R1: one nats-server, TRADES 1 replica' },
  r3: { nodes: 3, replicas: 3, label: 'R3: 3-node cluster, TRADES 3 replicas' },
} as const;
export type IngestBenchCase = keyof typeof INGEST_BENCH_CASES;

/** Options of the suite (command line of scripts/bench.ts: `--seconds`, `--publish-window`, `--ingest-cpu-prof`). */
export interface IngestBenchOptions {
  /** `--seconds`: the measured span of each measurement, s. */
  seconds: number;
  /** `--publish-window N[,N…]`: PUBLISH_MAX_IN_FLIGHT values to sweep; undefined or empty = unset (ingest's default). */
  publishWindows?: readonly number[] | undefined;
  /** `--ingest-cpu-prof DIR`: ingest writes a V8 CPU profile (node --cpu-prof) per run into DIR. */
  cpuProfDir?: string | undefined;
  /** Run after the first stored message and before the span, s (default {@link DEFAULT_WARMUP_SECONDS}). */
  warmupSeconds?: number | undefined;
  /** Rounds per case (default {@link DEFAULT_ROUNDS}). */
  rounds?: number | undefined;
  /** Cases to run, in this order (default both: r1, r3). */
  cases?: readonly IngestBenchCase[] | undefined;
  /** Stored message ids read back for the order check, the last ones of each measurement (default {@link DEFAULT_ORDER_CHECK_MESSAGES}). */
  orderCheckMessages?: number | undefined;
}

/** Acknowledged publishes in flight of the broker baseline the target compares with, and of its serial context run. */
export const BROKER_WINDOW = 256;
export const BROKER_WINDOW_SERIAL = 1;
/** Target (the publisher rewrite's): ingest ≥ this × the broker's {@link BROKER_WINDOW} rate at R3. */
export const TARGET_RATIO = 0.7;
/** REPLAY_TRANSACTIONS_PER_SECOND of the ingest child: the highest ingest's config accepts, so the publisher, not the pace, limits it. */
export const REPLAY_PACE = 100_000;
/** Warm-up after the first stored message, s: past tsx's compile and V8's first optimisations, and the stream's first blocks. */
export const DEFAULT_WARMUP_SECONDS = 2;
/** Rounds per case: 2, one forwards and one backwards (ABBA). */
export const DEFAULT_ROUNDS = 2;
/** Message ids read back per measurement for the order check (headers only, ~200 B each). */
export const DEFAULT_ORDER_CHECK_MESSAGES = 100_000;
/** A child must get its first message stored within this long of being started, ms (tsx compiles ingest first). */
const START_TIMEOUT_MS = 60_000;
/** A child must exit within this long of being asked to stop, ms (ingest's SHUTDOWN_DEADLINE_MS default is 10 s). */
const STOP_TIMEOUT_MS = 15_000;
/** The read-back ends when no message came for this long, ms. */
const READBACK_IDLE_MS = 5_000;
/** Polling of the stream while waiting for the first stored message, ms. */
const POLL_MS = 50;
/** /metrics request timeout, ms. */
const METRICS_TIMEOUT_MS = 2_000;

const repo = fileURLToPath(new URL('../..', import.meta.url));
const BROKER_ENTRY = fileURLToPath(new URL('./ingest-broker.ts', import.meta.url));
const INGEST_ENTRY = 'services/ingest/src/main.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const mean = (xs: readonly number[]) => (xs.length ? xs.reduce((a, x) => a + x, 0) / xs.length : Number.NaN);
const fmt = (x: number, digits = 0) => (Number.isFinite(x) ? x.toLocaleString('en', { maximumFractionDigits: digits, minimumFractionDigits: digits }) : '-');
const r3 = (x: number) => (Number.isFinite(x) ? Number(x.toFixed(3)) : -1);
const round = (x: number) => (Number.isFinite(x) ? Math.round(x) : -1);

/** One series of a case: the broker at a window, or ingest at a PUBLISH_MAX_IN_FLIGHT (undefined = unset). */
type Series = { kind: 'broker'; window: number } | { kind: 'ingest'; publishWindow: number | undefined };

const seriesLabel = (s: Series) =>
  s.kind === 'broker' ? `broker W=${s.window}` : `ingest PUBLISH_MAX_IN_FLIGHT=${s.publishWindow === undefined ? 'unset' : s.publishWindow}`;

/** Figures of one measurement. */
interface Measurement {
  series: Series;
  /**
   * ingest's acknowledgement time over the span (tradewind_ingest_publish_ack_seconds, bucket upper bounds, s):
   * what PUBLISH_ACK_TIMEOUT_MS is chosen from. undefined for the broker or without observations.
   */
  ackP99S?: number | undefined;
  ackP999S?: number | undefined;
  ackMaxS?: number | undefined;
  /** Messages TRADES stored per second over the span. */
  perS: number;
  /** The child's own count over the span per second (ingest: its published counter); NaN for the broker (its total is compared instead). */
  ownPerS: number;
  /** CPU of the child and of all nats-server processes over the span, % of one core. */
  childCpuPct: number;
  natsCpuPct: number;
  /** Stored bytes per message (stream state at the span's end). */
  bytesPerMsg: number;
  /** Stored since the purge, and the broker's acknowledged total (NaN for ingest: its counter cannot be read after it exits). */
  storedTotal: number;
  ownTotal: number;
  /** Failed publishes (broker), or ingest's window re-sends (tradewind_ingest_publish_resends_total; failed attempts, tradewind_ingest_publish_errors_total, before the rewrite) until it was stopped. */
  errors: number;
  /** From the child's start to the first stored message, s. */
  firstStoredS: number;
  order: OrderCheck;
  /** A note to print (a child's exit code, a first error). */
  note: string;
}

/** A started child: the broker process or ingest. */
interface Child {
  readonly pid: number;
  exitCode(): number | string | null;
  tail(): string;
  /** Current own count (ingest: /metrics), or undefined. */
  own(): Promise<{ total: number; errors: number; ack: HistogramBucket[] } | undefined>;
  /** Asks it to stop and waits; the broker's report, when it sent one. */
  stop(): Promise<BrokerReport | undefined>;
  /** SIGKILL if still running. */
  kill(): Promise<void>;
}

/** Keeps the last lines a child wrote. */
function tailOf(child: ChildProcess, keep = 20): () => string {
  const lines: string[] = [];
  const add = (d: Buffer) => {
    for (const line of d.toString().split('\n')) {
      if (!line.trim()) continue;
      lines.push(line.length > 400 ? `${line.slice(0, 400)}…` : line);
      if (lines.length > keep) lines.shift();
    }
  };
  child.stdout?.on('data', add);
  child.stderr?.on('data', add);
  child.once('error', (err) => lines.push(String(err)));
  return () => lines.join('\n');
}

function exitTracker(child: ChildProcess) {
  let code: number | string | null = null;
  const exited = new Promise<void>((r) =>
    child.once('exit', (c, signal) => {
      code = signal ?? c ?? 0;
      r();
    }),
  );
  return { exited, code: () => code };
}

async function killChild(child: ChildProcess, exited: Promise<void>, running: () => boolean): Promise<void> {
  if (!running()) return;
  child.kill('SIGKILL');
  await exited;
}

/** Longest wait for the broker process's answer to one request, ms (a stop waits for its publishes in flight: nats.js' 5 s ack timeout). */
const BROKER_CALL_TIMEOUT_MS = 15_000;

/** The broker baseline process (scripts/bench/ingest-broker.ts), one per case, and its request channel. */
class BrokerProcess {
  private replies: Array<(m: BrokerMessage) => void> = [];
  private readonly exit: ReturnType<typeof exitTracker>;
  readonly tail: () => string;

  private constructor(readonly child: ChildProcess) {
    this.tail = tailOf(child);
    this.exit = exitTracker(child);
    child.on('message', (m: BrokerMessage) => {
      if (m.type === 'reply') this.replies.shift()?.(m);
    });
  }

  /**
   * Forks it under tsx and waits until it has built the pass.
   * @throws Error when it exits first or takes longer than START_TIMEOUT_MS.
   */
  static async start(): Promise<BrokerProcess> {
    const child = fork(BROKER_ENTRY, [], { cwd: repo, execArgv: ['--import', 'tsx'], stdio: ['ignore', 'pipe', 'pipe', 'ipc'] });
    const proc = new BrokerProcess(child);
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`broker process not ready within ${START_TIMEOUT_MS / 1000} s`)), START_TIMEOUT_MS);
      child.on('message', (m: BrokerMessage) => {
        if (m.type === 'ready') {
          clearTimeout(timer);
          resolve();
        }
      });
      void proc.exit.exited.then(() => {
        clearTimeout(timer);
        reject(new Error(`broker process exited (${proc.exit.code()}) while starting; its output:\n${proc.tail()}`));
      });
    }).catch(async (err: unknown) => {
      await proc.kill();
      throw err;
    });
    return proc;
  }

  get pid(): number {
    return this.child.pid ?? -1;
  }

  exitCode(): number | string | null {
    return this.exit.code();
  }

  /** Sends `req` and waits for its reply. @throws Error on an error reply, an exit or BROKER_CALL_TIMEOUT_MS without one. */
  call(req: BrokerRequest): Promise<BrokerReport | undefined> {
    if (this.exit.code() !== null) return Promise.reject(new Error(`broker process has exited (${this.exit.code()}); its output:\n${this.tail()}`));
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`broker process did not answer ${req.cmd} within ${BROKER_CALL_TIMEOUT_MS / 1000} s`)),
        BROKER_CALL_TIMEOUT_MS,
      );
      const onExit = () => {
        clearTimeout(timer);
        reject(new Error(`broker process exited (${this.exit.code()}) during ${req.cmd}; its output:\n${this.tail()}`));
      };
      void this.exit.exited.then(onExit);
      this.replies.push((m) => {
        clearTimeout(timer);
        if (m.type === 'reply' && m.ok) resolve(m.result);
        else reject(new Error(`broker process: ${m.type === 'reply' && !m.ok ? m.error : 'unexpected answer'}`));
      });
      this.child.send(req);
    });
  }

  /** A measurement's view of it: publishing at `window` from the call on, until stop(). */
  async publish(window: number): Promise<Child> {
    await this.call({ cmd: 'publish', window, runId: randomUUID().slice(0, 8) });
    return {
      pid: this.pid,
      exitCode: () => this.exitCode(),
      tail: this.tail,
      own: async () => undefined,
      stop: () => this.call({ cmd: 'stop' }),
      // The process serves the whole case; the case's cleanup ends it.
      kill: async () => undefined,
    };
  }

  /** SIGKILL if still running (it holds no state worth a graceful end). */
  kill(): Promise<void> {
    return killChild(this.child, this.exit.exited, () => this.exit.code() === null);
  }
}

/**
 * Spawns ingest from its real entry point with the replay source at full pace. The inherited environment is
 * cleared of every ingest config key (and PUBLISH_MAX_IN_FLIGHT, known to ingest or not) first, so only what
 * is set here differs from ingest's defaults.
 */
async function startIngest(opts: {
  url: string;
  credsFile: string;
  replicas: number;
  publishWindow: number | undefined;
  cpuProfDir?: string | undefined;
}): Promise<Child> {
  const adminPort = await freePort();
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const key of [...Object.keys(IngestConfigSchema.shape), 'PUBLISH_MAX_IN_FLIGHT']) delete env[key];
  Object.assign(env, {
    INGEST_SOURCE: 'replay',
    REPLAY_TRANSACTIONS_PER_SECOND: String(REPLAY_PACE),
    REPLAY_LOOP: 'true',
    NATS_URL: opts.url,
    NATS_CREDS: opts.credsFile,
    NATS_STREAM_REPLICAS: String(opts.replicas),
    ADMIN_PORT: String(adminPort),
    LOG_LEVEL: 'warn',
  });
  if (opts.publishWindow !== undefined) env.PUBLISH_MAX_IN_FLIGHT = String(opts.publishWindow);
  const profile = opts.cpuProfDir ? ['--cpu-prof', '--cpu-prof-dir', opts.cpuProfDir] : [];
  const child = spawn(process.execPath, [...profile, '--import', 'tsx', INGEST_ENTRY], { cwd: repo, env, stdio: ['ignore', 'pipe', 'pipe'] });
  const tail = tailOf(child);
  const exit = exitTracker(child);
  const running = () => exit.code() === null;
  let last: { total: number; errors: number; ack: HistogramBucket[] } | undefined;
  return {
    pid: child.pid ?? -1,
    exitCode: exit.code,
    tail,
    async own() {
      try {
        const res = await fetch(`http://127.0.0.1:${adminPort}/metrics`, { signal: AbortSignal.timeout(METRICS_TIMEOUT_MS) });
        const text = await res.text();
        last = {
          total: metricSum(text, 'tradewind_ingest_trades_published_total') ?? 0,
          errors: metricSum(text, 'tradewind_ingest_publish_resends_total') ?? metricSum(text, 'tradewind_ingest_publish_errors_total') ?? 0,
          ack: histogramBuckets(text, 'tradewind_ingest_publish_ack_seconds'),
        };
      } catch {
        // Not up yet, or stopping: keep the last answer.
      }
      return last;
    },
    async stop() {
      if (running()) child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
      await exit.exited;
      clearTimeout(timer);
      return undefined;
    },
    kill: () => killChild(child, exit.exited, running),
  };
}

/** What a measurement works with. */
interface CaseContext {
  nats: LocalNats;
  jsm: JetStreamManager;
  js: JetStreamClient;
  /** The server URL both children connect to (the same node, so both see the same route to the stream leader). */
  clientUrl: string;
  credsFile: string;
  /** The case's broker baseline process, connected to clientUrl. */
  broker: BrokerProcess;
  replicas: number;
  replay: BenchReplay;
  seconds: number;
  warmupSeconds: number;
  orderCheckMessages: number;
  cpuProfDir: string | undefined;
}

/** Stream sequence and CPU readings at one moment. */
interface Snapshot {
  atMs: number;
  lastSeq: number;
  messages: number;
  bytes: number;
  childCpu: number;
  natsCpu: number;
}

async function snapshot(ctx: CaseContext, childPid: number): Promise<Snapshot> {
  const before = performance.now();
  const info = await ctx.jsm.streams.info(TRADES_STREAM);
  const atMs = (before + performance.now()) / 2;
  return {
    atMs,
    lastSeq: info.state.last_seq,
    messages: info.state.messages,
    bytes: info.state.bytes,
    childCpu: cpuSeconds(childPid),
    natsCpu: ctx.nats.processes.reduce((a, p) => a + (p.pid ? cpuSeconds(p.pid) : 0), 0),
  };
}

/**
 * Reads the `Nats-Msg-Id` of TRADES' messages `fromSeq` .. `toSeq` in order (an ordered consumer, headers only).
 * Stops early after READBACK_IDLE_MS without a message.
 */
export async function storedMsgIds(js: JetStreamClient, fromSeq: number, toSeq: number): Promise<string[]> {
  const ids: string[] = [];
  if (toSeq < fromSeq) return ids;
  const consumer = await js.consumers.get(TRADES_STREAM, { deliver_policy: DeliverPolicy.StartSequence, opt_start_seq: fromSeq, headers_only: true });
  const messages = await consumer.consume({ max_messages: 2_000 });
  const idle = setTimeout(() => void messages.close(), READBACK_IDLE_MS);
  try {
    for await (const m of messages) {
      idle.refresh();
      ids.push(m.headers?.get('Nats-Msg-Id') ?? '');
      if (m.seq >= toSeq) break;
    }
  } finally {
    clearTimeout(idle);
    await messages.close().catch(() => undefined);
  }
  return ids;
}

/**
 * One measurement on an emptied TRADES: start the series' child, wait for its first stored message, warm up,
 * measure the span, stop it, read back and check the order.
 * @throws Error when the child does not start or exits during the span (with its output).
 */
async function measure(ctx: CaseContext, series: Series): Promise<Measurement> {
  await ctx.jsm.streams.purge(TRADES_STREAM);
  const base = (await ctx.jsm.streams.info(TRADES_STREAM)).state.last_seq;
  const startedAt = performance.now();
  const child =
    series.kind === 'broker'
      ? await ctx.broker.publish(series.window)
      : await startIngest({
          url: ctx.clientUrl,
          credsFile: ctx.credsFile,
          replicas: ctx.replicas,
          publishWindow: series.publishWindow,
          cpuProfDir: ctx.cpuProfDir,
        });
  try {
    const failIfExited = () => {
      if (child.exitCode() !== null) throw new Error(`${seriesLabel(series)} exited (${child.exitCode()}); its output:\n${child.tail()}`);
    };
    for (;;) {
      failIfExited();
      if ((await ctx.jsm.streams.info(TRADES_STREAM)).state.last_seq > base) break;
      if (performance.now() - startedAt > START_TIMEOUT_MS)
        throw new Error(`${seriesLabel(series)} stored nothing within ${START_TIMEOUT_MS / 1000} s; its output:\n${child.tail()}`);
      await sleep(POLL_MS);
    }
    const firstStoredS = (performance.now() - startedAt) / 1000;
    await sleep(ctx.warmupSeconds * 1000);
    const own0 = await child.own();
    const a = await snapshot(ctx, child.pid);
    const own0At = performance.now();
    await sleep(ctx.seconds * 1000);
    const b = await snapshot(ctx, child.pid);
    const own1 = await child.own();
    const own1At = performance.now();
    failIfExited();
    const ownLast = await child.own();
    const report = await child.stop();
    const spanS = (b.atMs - a.atMs) / 1000;
    const final = (await ctx.jsm.streams.info(TRADES_STREAM)).state;
    const from = Math.max(final.first_seq, final.last_seq - ctx.orderCheckMessages + 1);
    const ids = await storedMsgIds(ctx.js, from, final.last_seq);
    const order = checkReplayOrder(ids, ctx.replay.passOrder);
    const exitCode = child.exitCode();
    const notes: string[] = [];
    if (series.kind === 'ingest' && exitCode !== 0) notes.push(`ingest exited with ${exitCode}`);
    if (report?.firstError) notes.push(`first publish error: ${report.firstError}`);
    const ackSpan = own0 && own1 ? own1.ack.map((x, i) => ({ le: x.le, count: x.count - (own0.ack[i]?.count ?? 0) })) : [];
    return {
      series,
      ackP99S: bucketQuantile(ackSpan, 0.99),
      ackP999S: bucketQuantile(ackSpan, 0.999),
      ackMaxS: bucketQuantile(ackSpan, 1),
      perS: (b.lastSeq - a.lastSeq) / spanS,
      ownPerS: own0 && own1 ? (own1.total - own0.total) / ((own1At - own0At) / 1000) : Number.NaN,
      childCpuPct: ((b.childCpu - a.childCpu) / spanS) * 100,
      natsCpuPct: ((b.natsCpu - a.natsCpu) / spanS) * 100,
      bytesPerMsg: b.messages > 0 ? b.bytes / b.messages : Number.NaN,
      storedTotal: final.last_seq - base,
      ownTotal: report ? report.acked : Number.NaN,
      errors: report ? report.errors : (ownLast?.errors ?? 0),
      firstStoredS,
      order,
      note: notes.join('; '),
    };
  } finally {
    await child.kill();
  }
}

/** A bucket bound in seconds as text (`> 5 s` for the +Inf bucket, `—` for none). */
function fmtS(s: number | undefined): string {
  if (s === undefined) return '—';
  return Number.isFinite(s) ? (s < 1 ? `${s * 1000} ms` : `${s} s`) : 'past the largest bucket (5 s)';
}

/** The largest of the rounds' bucket bounds, ms (-1 for past the largest bucket; '—' without observations). */
function worstMs(values: readonly (number | undefined)[]): number | string {
  const known = values.filter((v): v is number => v !== undefined);
  if (known.length === 0) return '—';
  const worst = Math.max(...known);
  return Number.isFinite(worst) ? worst * 1000 : -1;
}

function printMeasurement(caseName: string, roundNo: number, m: Measurement): void {
  const unit = m.series.kind === 'broker' ? 'msg/s' : 'trades/s';
  const own = m.series.kind === 'ingest' ? `, its /metrics ${fmt(m.ownPerS)}/s` : '';
  const who = m.series.kind === 'broker' ? 'broker process' : 'ingest';
  const errors = m.series.kind === 'broker' ? `publish errors ${m.errors}` : `window re-sends/publish errors ${m.errors}`;
  const totals = m.series.kind === 'broker' ? `acked ${fmt(m.ownTotal)} / stored ${fmt(m.storedTotal)}` : `stored ${fmt(m.storedTotal)} in all`;
  console.log(
    `  ${caseName} round ${roundNo}  ${seriesLabel(m.series).padEnd(36)} ${fmt(m.perS).padStart(8)} ${unit}${own}; ${who} CPU ${fmt(m.childCpuPct)} %, nats-server CPU ${fmt(m.natsCpuPct)} %`,
  );
  if (m.series.kind === 'ingest' && m.ackMaxS !== undefined)
    console.log(
      `      acknowledgement time (ingest's tradewind_ingest_publish_ack_seconds over the measured span, bucket bounds): p99 ≤ ${fmtS(m.ackP99S)}, p99.9 ≤ ${fmtS(m.ackP999S)}, max ≤ ${fmtS(m.ackMaxS)}`,
    );
  console.log(
    `      first stored after ${fmt(m.firstStoredS, 1)} s; ${fmt(m.bytesPerMsg)} B stored per msg; ${totals}; ${errors}; order of the last ${fmt(m.order.checked)}: ${m.order.reordered} reordered, ${m.order.duplicated} duplicated, ${m.order.gaps} gaps, ${m.order.foreign} foreign${m.note ? `; ${m.note}` : ''}`,
  );
}

/** Per case and series: the rounds' measurements. */
type CaseResults = Map<string, Measurement[]>;

const seriesKey = (s: Series) => (s.kind === 'broker' ? `broker:${s.window}` : `ingest:${s.publishWindow ?? 'unset'}`);

async function runCase(
  name: IngestBenchCase,
  stateDir: string,
  replay: BenchReplay,
  series: readonly Series[],
  opts: { seconds: number; warmupSeconds: number; rounds: number; orderCheckMessages: number; cpuProfDir: string | undefined },
  cleanups: Array<() => Promise<unknown>>,
): Promise<CaseResults> {
  const spec = INGEST_BENCH_CASES[name];
  const setupStart = performance.now();
  // The broker process loads its module graph and the pass while the servers start.
  const brokerStarting = BrokerProcess.start();
  cleanups.push(() =>
    brokerStarting.then(
      (b) => b.kill(),
      () => undefined,
    ),
  );
  const nats = await startLocalNats({
    stateDir,
    port: await freePort(),
    monitorPort: await freePort(),
    clusterSize: spec.nodes,
    maxFileStore: '8GB',
  });
  cleanups.push(() => nats.stop());
  const broker = await brokerStarting;
  let nc: NatsConnection | undefined;
  try {
    // On the clients' node too, so its server_name says which node they use.
    nc = await connectNats({ url: nats.url, creds: nats.identities.service_user_creds, name: 'bench-ingest' });
    const jsm = await tradesManager(nc);
    await ensureTradesStream(jsm, ingestStreamOptions(spec.replicas));
    await broker.call({ cmd: 'connect', url: nats.url, creds: nats.identities.service_user_creds });
    const info = await jsm.streams.info(TRADES_STREAM);
    const leader = info.cluster?.leader ?? '-';
    const ctx: CaseContext = {
      nats,
      jsm,
      js: jetstream(nc),
      clientUrl: nats.url,
      broker,
      credsFile: join(stateDir, 'nats', 'service.creds'),
      replicas: spec.replicas,
      replay,
      seconds: opts.seconds,
      warmupSeconds: opts.warmupSeconds,
      orderCheckMessages: opts.orderCheckMessages,
      cpuProfDir: opts.cpuProfDir,
    };
    console.log(
      `${spec.label}: ${nats.processes.length} nats-server process${nats.processes.length === 1 ? '' : 'es'} (operator mode), TRADES leader ${leader}; both clients on ${ctx.clientUrl} (${nc.info?.server_name ?? '?'}); setup ${fmt((performance.now() - setupStart) / 1000, 1)} s`,
    );
    const results: CaseResults = new Map();
    for (let r = 0; r < opts.rounds; r++) {
      const order = r % 2 === 0 ? series : [...series].reverse();
      for (const s of order) {
        const m = await measure(ctx, s);
        printMeasurement(name.toUpperCase(), r + 1, m);
        const key = seriesKey(s);
        results.set(key, [...(results.get(key) ?? []), m]);
      }
    }
    return results;
  } finally {
    await broker.kill();
    await nc?.close().catch(() => undefined);
    await nats.stop();
  }
}

/**
 * Runs the suite and prints its lines.
 * @returns the figures for the final JSON line (`ingest_*` keys; -1 where a figure could not be measured).
 * @throws Error when a server or a child does not start, or a child exits during a measurement.
 */
export async function ingestSuite(options: IngestBenchOptions): Promise<Record<string, number | string>> {
  const suiteStart = performance.now();
  const warmupSeconds = options.warmupSeconds ?? DEFAULT_WARMUP_SECONDS;
  const rounds = options.rounds ?? DEFAULT_ROUNDS;
  const orderCheckMessages = options.orderCheckMessages ?? DEFAULT_ORDER_CHECK_MESSAGES;
  const cases = options.cases ?? (Object.keys(INGEST_BENCH_CASES) as IngestBenchCase[]);
  const windows: (number | undefined)[] = options.publishWindows?.length ? [...options.publishWindows] : [undefined];
  if (!(options.seconds > 0)) throw new Error('--seconds needs a positive number');
  if (!(warmupSeconds >= 0)) throw new Error('warmupSeconds must be ≥ 0');
  if (!Number.isInteger(rounds) || rounds < 1) throw new Error('rounds must be a whole number ≥ 1');
  if (!Number.isInteger(orderCheckMessages) || orderCheckMessages < 1) throw new Error('orderCheckMessages must be a whole number ≥ 1');
  for (const w of windows) if (w !== undefined && (!Number.isInteger(w) || w < 1)) throw new Error('--publish-window needs whole numbers ≥ 1');
  for (const c of cases) if (!(c in INGEST_BENCH_CASES)) throw new Error(`unknown ingest bench case ${c}`);

  // Whatever ends this run (its end, a signal, an uncaught error) stops the child processes first.
  const exit = stopChildrenOnExit('ingest bench');
  const cleanups = exit.steps;
  const cleanup = exit.run;

  // Children are tracked per measurement (measure() kills its own); the servers and temp dirs here.
  try {
    const replay = await loadBenchReplay();
    const bodyBytes = mean(replay.trades.map((t) => Buffer.byteLength(JSON.stringify(replayCopy(t, 'bench', 0, Date.now()).message))));
    const copies = mean(replay.mintSubjects.map((s) => s.length));
    // ingest's own default as the tree held it when this bench started (the ingest children load the tree anew).
    const ownDefault = (ingestDefaults() as Record<string, unknown>).PUBLISH_MAX_IN_FLIGHT;
    const defaultWindow = typeof ownDefault === 'number' ? ownDefault : 'none';
    const series: Series[] = [
      { kind: 'broker', window: BROKER_WINDOW },
      ...windows.map((publishWindow): Series => ({ kind: 'ingest', publishWindow })),
      { kind: 'broker', window: BROKER_WINDOW_SERIAL },
    ];
    console.log(
      `ingest: ingest's real entry point (replay at ${REPLAY_PACE.toLocaleString('en')} tx/s, looping) vs JetStream's acknowledged publish rate with the same messages (broker W=${BROKER_WINDOW} and W=${BROKER_WINDOW_SERIAL} in flight, child process)`,
    );
    console.log(
      `  ingest's PUBLISH_MAX_IN_FLIGHT default: ${defaultWindow === 'none' ? 'none (no such key: one acknowledgement awaited at a time)' : defaultWindow}; ${replay.trades.length} trades per replay pass (${replay.transactions} real transactions), avg ${fmt(bodyBytes)} B JSON body, ${fmt(copies, 2)} per-mint core copies per trade; span ${fmt(options.seconds, 1)} s after ${fmt(warmupSeconds, 1)} s warm-up; ${rounds} round${rounds === 1 ? '' : 's'} per case${rounds > 1 ? ' (ABBA order)' : ''}`,
    );
    const out: Record<string, number | string> = {
      ingest_publish_window_default: defaultWindow,
      ingest_trades_per_pass: replay.trades.length,
      ingest_message_bytes: round(bodyBytes),
      ingest_mint_copies_per_trade: r3(copies),
      ingest_span_s: options.seconds,
      ingest_warmup_s: warmupSeconds,
      ingest_rounds: rounds,
    };
    for (const name of cases) {
      const stateDir = await mkdtemp(join(tmpdir(), `tw-bench-ingest-${name}-`));
      cleanups.push(() => rm(stateDir, { recursive: true, force: true }));
      const results = await runCase(
        name,
        stateDir,
        replay,
        series,
        { seconds: options.seconds, warmupSeconds, rounds, orderCheckMessages, cpuProfDir: options.cpuProfDir },
        cleanups,
      );
      Object.assign(out, summarise(name, results, windows));
    }
    if (cases.includes('r3')) {
      const ratio = out.ingest_r3_ratio as number;
      out.ingest_target_r3 = ratio >= TARGET_RATIO ? 'met' : 'NOT met';
      console.log(`  target ingest ≥ ${TARGET_RATIO} × broker W=${BROKER_WINDOW} at R3: ${out.ingest_target_r3} (${fmt(ratio, 3)} ×)`);
    }
    out.ingest_suite_s = Number(((performance.now() - suiteStart) / 1000).toFixed(1));
    console.log(`  suite took ${fmt(out.ingest_suite_s, 1)} s`);
    return out;
  } finally {
    await cleanup();
  }
}

/** Means over the rounds, the summary lines and the case's JSON figures. */
function summarise(name: IngestBenchCase, results: CaseResults, windows: readonly (number | undefined)[]): Record<string, number | string> {
  const get = (key: string) => results.get(key) ?? [];
  const avg = (ms: readonly Measurement[], f: (m: Measurement) => number) => mean(ms.map(f));
  const sumOf = (ms: readonly Measurement[], f: (m: Measurement) => number) => ms.reduce((a, m) => a + f(m), 0);
  const broker = get(`broker:${BROKER_WINDOW}`);
  const serial = get(`broker:${BROKER_WINDOW_SERIAL}`);
  const brokerRate = avg(broker, (m) => m.perS);
  const serialRate = avg(serial, (m) => m.perS);
  const p = `ingest_${name}`;
  const out: Record<string, number | string> = {
    [`${p}_broker_per_s`]: round(brokerRate),
    [`${p}_broker_w1_per_s`]: round(serialRate),
    [`${p}_broker_client_cpu_pct`]: round(avg(broker, (m) => m.childCpuPct)),
    [`${p}_broker_nats_cpu_pct`]: round(avg(broker, (m) => m.natsCpuPct)),
    [`${p}_broker_w1_nats_cpu_pct`]: round(avg(serial, (m) => m.natsCpuPct)),
    [`${p}_broker_errors`]: sumOf([...broker, ...serial], (m) => m.errors),
    [`${p}_broker_reordered`]: sumOf([...broker, ...serial], (m) => m.order.reordered),
    [`${p}_broker_duplicated`]: sumOf([...broker, ...serial], (m) => m.order.duplicated),
    [`${p}_broker_gaps`]: sumOf([...broker, ...serial], (m) => m.order.gaps),
    [`${p}_broker_acked_minus_stored`]: sumOf([...broker, ...serial], (m) => m.ownTotal - m.storedTotal),
  };
  let best: { window: number | undefined; rate: number } | undefined;
  console.log(`  ${name.toUpperCase()} summary (mean of ${broker.length} round${broker.length === 1 ? '' : 's'}):`);
  console.log(
    `    broker W=${BROKER_WINDOW} ${fmt(brokerRate)} msg/s (nats-server CPU ${fmt(out[`${p}_broker_nats_cpu_pct`] as number)} %), W=${BROKER_WINDOW_SERIAL} ${fmt(serialRate)} msg/s`,
  );
  for (const w of windows) {
    const ms = get(`ingest:${w ?? 'unset'}`);
    const rate = avg(ms, (m) => m.perS);
    const sfx = windows.length > 1 || w !== undefined ? `_pw${w ?? 'unset'}` : '';
    const figures: Record<string, number | string> = {
      trades_per_s: round(rate),
      metrics_trades_per_s: round(avg(ms, (m) => m.ownPerS)),
      ratio: r3(rate / brokerRate),
      ratio_w1: r3(rate / serialRate),
      cpu_pct: round(avg(ms, (m) => m.childCpuPct)),
      nats_cpu_pct: round(avg(ms, (m) => m.natsCpuPct)),
      reordered: sumOf(ms, (m) => m.order.reordered),
      duplicated: sumOf(ms, (m) => m.order.duplicated),
      gaps: sumOf(ms, (m) => m.order.gaps),
      foreign: sumOf(ms, (m) => m.order.foreign),
      order_checked: sumOf(ms, (m) => m.order.checked),
      resends: sumOf(ms, (m) => m.errors),
      ack_p99_ms: worstMs(ms.map((m) => m.ackP99S)),
      ack_p999_ms: worstMs(ms.map((m) => m.ackP999S)),
      ack_max_ms: worstMs(ms.map((m) => m.ackMaxS)),
      publish_window: w ?? 'unset',
    };
    for (const [k, v] of Object.entries(figures)) out[`${p}${sfx}_${k}`] = v;
    console.log(
      `    ingest PUBLISH_MAX_IN_FLIGHT=${w ?? 'unset'}: ${fmt(rate)} trades/s (its /metrics ${fmt(figures.metrics_trades_per_s as number)}/s) = ${fmt(rate / brokerRate, 3)} × broker W=${BROKER_WINDOW}, ${fmt(rate / serialRate, 2)} × W=${BROKER_WINDOW_SERIAL}; ingest CPU ${figures.cpu_pct} %, nats-server CPU ${figures.nats_cpu_pct} %; ${figures.reordered} reordered / ${figures.duplicated} duplicated / ${figures.gaps} gaps of ${fmt(figures.order_checked as number)} checked`,
    );
    if (!best || rate > best.rate) best = { window: w, rate };
  }
  if (windows.length > 1 || windows[0] !== undefined) {
    // Headline figures: the best window's.
    const b = best!;
    const sfx = `_pw${b.window ?? 'unset'}`;
    for (const k of ['trades_per_s', 'ratio', 'ratio_w1', 'cpu_pct', 'nats_cpu_pct', 'reordered', 'duplicated', 'gaps'])
      out[`${p}_${k}`] = out[`${p}${sfx}_${k}`]!;
    out[`${p}_best_publish_window`] = b.window ?? 'unset';
  }
  return out;
}
