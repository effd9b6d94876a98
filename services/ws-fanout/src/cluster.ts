/**
 * ws-fanout on every CPU of a pod (node:cluster). The primary forks WS_WORKERS workers that each run the
 * whole fan-out (own NATS and Redis connections) and share PORT; the primary itself runs no fan-out and
 * serves the admin port, so a probe is answered by an idle event loop however busy the workers are:
 * - `/healthz`: the primary is alive;
 * - `/readyz`: every worker reported ready (its own NATS, Redis and feed checks) within {@link WORKER_STATUS_STALE_MS},
 *   answered from the status each worker pushes every {@link WORKER_STATUS_INTERVAL_MS} — never by asking a worker;
 * - `/metrics`: the workers' registries aggregated with prom-client's `AggregatorRegistry.aggregate` (counters,
 *   histograms and gauges such as `tradewind_ws_fanout_connections` summed: the pod total the HPA reads), plus the
 *   primary's own `tradewind_ws_fanout_primary_*` process metrics and `tradewind_ws_fanout_cluster_*` per-worker series.
 *
 * Connection limits need nothing shared here: slots live in Redis (ConnectionLimiter), so they are exact across
 * workers exactly as across pods. A worker that dies is forked again after a backoff; one that dies more than
 * {@link MAX_WORKER_RESTARTS_PER_MINUTE} times a minute stops the pod (exit 1), so Kubernetes sees a crash loop.
 *
 * Scheduling stays round-robin by the primary (Node's default on Linux, set explicitly): connections are
 * long-lived, so accepts are rare and cheap for the primary, while the alternative (workers accepting from the
 * shared socket) leaves the kernel to pick and is documented by Node as very unbalanced — here that would put most
 * clients, and so most fan-out CPU, on a few workers.
 */
import cluster, { type Worker } from 'node:cluster';
import { setPriority } from 'node:os';
import { AggregatorRegistry, Counter, Gauge, Registry, collectDefaultMetrics } from 'prom-client';
import { DEFAULT_STARTUP_DEADLINE_MS, startService, type Logger, type ReadinessCheck } from '@tradewind/lib';

/** How often a worker pushes its status (readiness checks, client count) to the primary, ms. */
export const WORKER_STATUS_INTERVAL_MS = 1_000;
/** A worker whose last status is older than this counts as not ready (five missed reports: stuck, not merely busy), ms. */
export const WORKER_STATUS_STALE_MS = 5_000;
/**
 * Consecutive failed rounds of one readiness check before the worker reports not ready: a dependency that
 * is down is noticed within about three status intervals, one that was merely slow for a round is not.
 */
export const WORKER_CHECK_FAILURES_UNREADY = 3;
/** A worker's readiness check (NATS, Redis ping) that takes longer than this counts as failing, ms. */
export const WORKER_CHECK_TIMEOUT_MS = 2_000;
/**
 * How long a scrape waits for a worker's metrics before using that worker's previous snapshot, ms
 * (well inside Prometheus' default 10 s scrape timeout).
 */
export const WORKER_METRICS_TIMEOUT_MS = 2_000;
/** Restarts of one worker slot within a minute after which the primary gives up and stops the pod with exit 1. */
export const MAX_WORKER_RESTARTS_PER_MINUTE = 5;
/** Delay before re-forking a dead worker: doubles with each restart of the slot within a minute, ms. */
export const WORKER_RESTART_BACKOFF_MS = { first: 250, max: 8_000 } as const;
/**
 * Niceness of the workers (the primary keeps 0): the kernel then runs the primary first whenever it has a probe to
 * answer and the workers keep the pod's CPUs busy. Nice values weigh only against processes of the same cgroup (a
 * container's), so the workers lose nothing to other pods; when the primary idles they get every CPU. It does not help
 * against CFS quota throttling (a CPU limit throttles the whole container, primary included).
 */
export const WORKER_NICENESS = 10;
/** Environment variable through which the primary tells a forked worker its slot (0 … WS_WORKERS − 1); not an operator setting. */
export const WORKER_SLOT_ENV = 'TRADEWIND_WS_FANOUT_WORKER_SLOT';
/**
 * Metrics the HPA and dashboards read as pod totals: always summed across workers, whatever aggregator
 * the metric declares (prom-client's default is already `sum` for every metric type).
 */
export const SUMMED_ACROSS_WORKERS: readonly string[] = ['tradewind_ws_fanout_connections', 'tradewind_ws_fanout_replays'];

const RESTART_WINDOW_MS = 60_000;
const MSG = {
  status: 'tradewind:ws-fanout:status',
  metricsRequest: 'tradewind:ws-fanout:metrics-request',
  metrics: 'tradewind:ws-fanout:metrics',
  stop: 'tradewind:ws-fanout:stop',
} as const;

/** What a worker reports every {@link WORKER_STATUS_INTERVAL_MS}. */
interface WorkerStatus {
  readonly ready: boolean;
  /** Names of failing readiness checks. */
  readonly failing: readonly string[];
  /** WebSocket clients of the worker (app.clientCount()). */
  readonly clients: number;
  /** The WebSocket port it listens on (shared by every worker). */
  readonly port: number;
}

/** Metrics of one worker as `Registry.getMetricsAsJSON()` returns them. */
type MetricsJson = Awaited<ReturnType<Registry['getMetricsAsJSON']>>;

/** What this process is in the cluster, from WS_WORKERS and node:cluster. */
export type ClusterRole =
  | { readonly kind: 'single' }
  | { readonly kind: 'primary'; readonly workers: number }
  | { readonly kind: 'worker'; readonly slot: number };

/**
 * This process's role.
 * @param workers resolved worker count (see worker-count.ts); 1 = today's single process, serving the admin port itself.
 * @throws Error when a forked worker has no valid {@link WORKER_SLOT_ENV} (started by something other than the primary).
 */
export function clusterRole(workers: number, env: NodeJS.ProcessEnv = process.env): ClusterRole {
  if (cluster.isWorker) {
    const raw = env[WORKER_SLOT_ENV] ?? '';
    const slot = Number(raw);
    if (!/^\d{1,3}$/.test(raw)) throw new Error(`${WORKER_SLOT_ENV} must be the worker's slot number (got "${raw}")`);
    return { kind: 'worker', slot };
  }
  return workers > 1 ? { kind: 'primary', workers } : { kind: 'single' };
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null;

/** Sends `message` to the primary, dropping it when the IPC channel is closing (the primary is exiting). */
function sendToPrimary(message: unknown): void {
  if (!process.send || !process.connected) return;
  try {
    process.send(message, undefined, {}, () => undefined);
  } catch {
    // ERR_IPC_CHANNEL_CLOSED
  }
}

/** Sends `message` to a worker, dropping it when the worker is exiting (its 'exit' is handled elsewhere). */
function sendToWorker(worker: Worker, message: Record<string, unknown>): void {
  if (!worker.isConnected()) return;
  try {
    worker.send(message, undefined, () => undefined);
  } catch {
    // ERR_IPC_CHANNEL_CLOSED
  }
}

// ───────────────────────────── worker ─────────────────────────────

/** This worker's link to the primary, set up by {@link enterWorkerMode} before anything else runs. */
const link: { registry: Registry | undefined; stop: (() => Promise<void>) | undefined } = { registry: undefined, stop: undefined };

/**
 * First thing a worker does: lower its CPU priority ({@link WORKER_NICENESS}); ignore SIGINT/SIGTERM (the primary
 * orchestrates shutdown — readiness delay first, then the `stop` message — and a terminal's Ctrl-C reaches the whole
 * process group); and listen to the primary before the app exists, so a `stop` sent while the worker is still
 * connecting ends it at once (it has no clients yet). A worker whose primary dies exits on its own when the IPC
 * channel closes (node:cluster).
 */
export function enterWorkerMode(logger: Logger): void {
  try {
    setPriority(WORKER_NICENESS); // this thread, before the app starts any: threads it creates inherit it
  } catch (err) {
    logger.warn({ err, niceness: WORKER_NICENESS }, "could not lower the worker's CPU priority");
  }
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.on(signal, () => logger.debug({ signal }, 'signal ignored: the primary stops the workers'));
  }
  process.on('message', (message: unknown) => {
    if (!isRecord(message)) return;
    if (message.type === MSG.metricsRequest && typeof message.id === 'number') {
      const id = message.id;
      if (!link.registry) return sendToPrimary({ type: MSG.metrics, id, metrics: null });
      link.registry.getMetricsAsJSON().then(
        (metrics) => sendToPrimary({ type: MSG.metrics, id, metrics }),
        (err: unknown) => {
          logger.warn({ err }, 'collecting metrics failed');
          sendToPrimary({ type: MSG.metrics, id, metrics: null });
        },
      );
    } else if (message.type === MSG.stop) {
      if (link.stop) void link.stop();
      else {
        logger.info('stopped before listening');
        logger.flush?.();
        process.exit(0);
      }
    }
  });
}

/**
 * Runs the app as a cluster worker (after {@link enterWorkerMode}): starts it, pushes its status to the primary
 * every {@link WORKER_STATUS_INTERVAL_MS}, answers the primary's metrics requests from `registry`, and on the
 * primary's `stop` runs `app.stop()` (clients closed with 1001) and `close` in order, then exits 0 (1 on failure).
 * @throws whatever `app.start()` throws (the caller's runMain exits 1 and the primary restarts the worker).
 */
export async function runClusterWorker(options: {
  logger: Logger;
  registry: Registry;
  app: { start(): Promise<{ port: number }>; stop(): Promise<void>; clientCount(): number };
  checks: readonly ReadinessCheck[];
  close: ReadonlyArray<() => Promise<unknown>>;
}): Promise<void> {
  const { logger, app } = options;
  let port = 0;
  let stopping = false;
  let reporting = false;
  let timer: NodeJS.Timeout | undefined;
  /** Consecutive failed rounds per check. */
  const failures = new Map<string, number>();
  link.registry = options.registry;

  const withTimeout = (check: ReadinessCheck): Promise<boolean> =>
    new Promise<boolean>((resolve) => {
      const t = setTimeout(() => resolve(false), WORKER_CHECK_TIMEOUT_MS);
      Promise.resolve()
        .then(() => check.check())
        .then(
          (ok) => resolve(ok === true),
          () => resolve(false),
        )
        .finally(() => clearTimeout(t));
    });
  const report = async () => {
    if (reporting || stopping) return; // a slow round (a hung Redis) must not pile up rounds behind it
    reporting = true;
    try {
      const results = await Promise.all(options.checks.map(async (c) => ({ name: c.name, ok: await withTimeout(c) })));
      for (const r of results) failures.set(r.name, r.ok ? 0 : (failures.get(r.name) ?? 0) + 1);
      // One slow round under a login storm (a PING queued behind a thousand slot scripts) is not an outage.
      const failing = results.filter((r) => (failures.get(r.name) ?? 0) >= WORKER_CHECK_FAILURES_UNREADY).map((r) => r.name);
      const status: WorkerStatus = { ready: failing.length === 0, failing, clients: app.clientCount(), port };
      if (!stopping) sendToPrimary({ type: MSG.status, ...status });
    } finally {
      reporting = false;
    }
  };

  ({ port } = await app.start());
  link.stop = async () => {
    if (stopping) return;
    stopping = true;
    clearInterval(timer);
    logger.info('stopping');
    try {
      await app.stop();
      for (const close of options.close) await close();
      logger.info('stopped');
      logger.flush?.();
      process.exit(0);
    } catch (err) {
      logger.error({ err }, 'stop failed');
      logger.flush?.();
      process.exit(1);
    }
  };
  logger.info({ port }, 'ws-fanout worker listening');
  timer = setInterval(() => void report(), WORKER_STATUS_INTERVAL_MS);
  await report();
}

// ───────────────────────────── primary ─────────────────────────────

/** One worker position; its worker is replaced when it dies. */
interface Slot {
  readonly index: number;
  readonly label: string;
  worker: Worker | undefined;
  status: WorkerStatus | undefined;
  /** When the last status arrived (performance.now(), ms). */
  statusAt: number;
  /** The last metrics the worker sent; used when it does not answer a scrape in time. */
  metrics: MetricsJson | undefined;
  /** Times of this slot's restarts within the last minute (performance.now(), ms). */
  restarts: number[];
  restartTimer: NodeJS.Timeout | undefined;
  /** Whether the slot's current worker has reported once (it listens, and handles `stop`). */
  listening: boolean;
}

/**
 * Runs the cluster primary: forks `workers` workers (each gets {@link WORKER_SLOT_ENV}), serves the admin port
 * through lib's `startService()` (so SIGTERM follows the same SHUTDOWN_READINESS_DELAY_MS / SHUTDOWN_DEADLINE_MS
 * semantics: `/readyz` → 503, the delay, then every worker is told to stop and the primary exits 0 once all have
 * exited; during start-up, workers not listening yet are killed), and restarts dead workers with backoff.
 * @returns the admin server's port, once every worker listens.
 * @throws Error when a worker slot exceeds {@link MAX_WORKER_RESTARTS_PER_MINUTE} before all are up, or the admin port
 *   is taken; StartupFailedError when the workers do not all listen within `startupDeadlineMs`.
 */
export async function runClusterPrimary(options: {
  logger: Logger;
  workers: number;
  adminPort: number;
  shutdown: { readonly SHUTDOWN_READINESS_DELAY_MS: number; readonly SHUTDOWN_DEADLINE_MS: number };
  /** Bound on every worker listening (STARTUP_DEADLINE_MS; default DEFAULT_STARTUP_DEADLINE_MS), ms. Each worker has the same bound on its own connections. */
  startupDeadlineMs?: number;
}): Promise<number> {
  const { logger } = options;
  // Must be set before the first fork; round-robin is Linux's default, kept on purpose (see the file comment).
  cluster.schedulingPolicy = cluster.SCHED_RR;

  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'tradewind_ws_fanout_primary_' });
  const gauges = {
    ready: new Gauge({
      name: 'tradewind_ws_fanout_cluster_worker_ready',
      help: 'Whether the worker in this slot reported ready within the staleness bound (1/0)',
      labelNames: ['worker'],
      registers: [registry],
    }),
    clients: new Gauge({
      name: 'tradewind_ws_fanout_cluster_worker_clients',
      help: 'WebSocket clients of the worker in this slot at its last status report',
      labelNames: ['worker'],
      registers: [registry],
    }),
    statusAge: new Gauge({
      name: 'tradewind_ws_fanout_cluster_worker_status_age_seconds',
      help: 'Age of the last status report of the worker in this slot (a busy worker reports late)',
      labelNames: ['worker'],
      registers: [registry],
    }),
  };
  const restartsTotal = new Counter({
    name: 'tradewind_ws_fanout_cluster_worker_restarts_total',
    help: 'Workers forked again after dying, by slot',
    labelNames: ['worker'],
    registers: [registry],
  });

  const slots: Slot[] = Array.from({ length: options.workers }, (_, index) => ({
    index,
    label: String(index),
    worker: undefined,
    status: undefined,
    statusAt: 0,
    metrics: undefined,
    restarts: [],
    restartTimer: undefined,
    listening: false,
  }));
  for (const slot of slots) restartsTotal.inc({ worker: slot.label }, 0);
  let stopping = false;
  let started = false;
  let failStart: ((err: Error) => void) | undefined;
  let allListening: (() => void) | undefined;
  const stopWaiters = new Map<Worker, Promise<number | null>>();
  const pendingMetrics = new Map<number, (metrics: MetricsJson | undefined) => void>();
  let nextRequestId = 0;

  const isReady = (slot: Slot, now = performance.now()) =>
    slot.worker !== undefined && slot.status?.ready === true && now - slot.statusAt <= WORKER_STATUS_STALE_MS;

  /** A slot's worker crashed too often: stop the pod, non-zero, so Kubernetes restarts it with its own backoff. */
  const giveUp = (slot: Slot) => {
    const err = new Error(`ws-fanout worker ${slot.index} died ${MAX_WORKER_RESTARTS_PER_MINUTE + 1} times within a minute`);
    logger.error({ worker: slot.index }, `${err.message}; stopping`);
    if (!started) {
      failStart?.(err);
      return;
    }
    process.exitCode = 1;
    process.kill(process.pid, 'SIGTERM');
  };

  const onStatus = (slot: Slot, message: Record<string, unknown>) => {
    const status: WorkerStatus = {
      ready: message.ready === true,
      failing: Array.isArray(message.failing) ? message.failing.filter((f): f is string => typeof f === 'string') : [],
      clients: typeof message.clients === 'number' ? message.clients : 0,
      port: typeof message.port === 'number' ? message.port : 0,
    };
    const previous = slot.status;
    slot.status = status;
    slot.statusAt = performance.now();
    if (!slot.listening) {
      slot.listening = true;
      logger.info({ worker: slot.index, pid: slot.worker?.process.pid, port: status.port }, 'worker listening');
      if (slots.every((s) => s.listening)) allListening?.();
    }
    if (previous?.ready !== status.ready || previous.failing.join() !== status.failing.join()) {
      if (status.ready) logger.info({ worker: slot.index }, 'worker ready');
      else logger.warn({ worker: slot.index, failing: status.failing }, 'worker not ready');
    }
  };

  const fork = (slot: Slot) => {
    slot.restartTimer = undefined;
    slot.listening = false;
    const worker = cluster.fork({ [WORKER_SLOT_ENV]: slot.label });
    slot.worker = worker;
    const pid = worker.process.pid;
    logger.info({ worker: slot.index, pid }, 'worker forked');
    worker.on('message', (message: unknown) => {
      if (!isRecord(message) || slot.worker !== worker) return;
      if (message.type === MSG.status) onStatus(slot, message);
      else if (message.type === MSG.metrics && typeof message.id === 'number') {
        pendingMetrics.get(message.id)?.(Array.isArray(message.metrics) ? (message.metrics as MetricsJson) : undefined);
      }
    });
    worker.on('error', (err) => logger.warn({ err, worker: slot.index, pid }, 'worker IPC error'));
    stopWaiters.set(worker, new Promise((resolve) => worker.once('exit', (code) => resolve(code))));
    worker.once('exit', (code, signal) => {
      stopWaiters.delete(worker);
      if (slot.worker === worker) {
        slot.worker = undefined;
        slot.status = undefined;
        slot.metrics = undefined; // its gauges (connections) are gone with it
      }
      if (stopping) {
        logger.info({ worker: slot.index, pid, code, signal }, 'worker exited');
        return;
      }
      const now = performance.now();
      slot.restarts = slot.restarts.filter((t) => now - t < RESTART_WINDOW_MS);
      if (slot.restarts.length >= MAX_WORKER_RESTARTS_PER_MINUTE) {
        logger.error({ worker: slot.index, pid, code, signal }, 'worker died');
        giveUp(slot);
        return;
      }
      const delayMs = Math.min(WORKER_RESTART_BACKOFF_MS.max, WORKER_RESTART_BACKOFF_MS.first * 2 ** slot.restarts.length);
      slot.restarts.push(now);
      logger.error({ worker: slot.index, pid, code, signal, restart_in_ms: delayMs }, 'worker died; restarting');
      slot.restartTimer = setTimeout(() => {
        if (stopping) return;
        restartsTotal.inc({ worker: slot.label });
        fork(slot);
      }, delayMs);
    });
  };

  /** The worker's fresh metrics, its previous snapshot if it does not answer within the timeout, or undefined. */
  const metricsOf = (slot: Slot): Promise<MetricsJson | undefined> => {
    const worker = slot.worker;
    if (!worker?.isConnected()) return Promise.resolve(slot.metrics);
    const id = nextRequestId++;
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        pendingMetrics.delete(id);
        logger.warn({ worker: slot.index, timeout_ms: WORKER_METRICS_TIMEOUT_MS }, 'worker did not send its metrics in time; using its previous ones');
        resolve(slot.metrics);
      }, WORKER_METRICS_TIMEOUT_MS);
      pendingMetrics.set(id, (metrics) => {
        clearTimeout(timer);
        pendingMetrics.delete(id);
        if (metrics) slot.metrics = metrics;
        resolve(metrics ?? slot.metrics);
      });
      sendToWorker(worker, { type: MSG.metricsRequest, id });
    });
  };

  const renderMetrics = async (): Promise<string> => {
    const now = performance.now();
    for (const slot of slots) {
      const labels = { worker: slot.label };
      gauges.ready.set(labels, isReady(slot, now) ? 1 : 0);
      gauges.clients.set(labels, slot.worker && slot.status ? slot.status.clients : 0);
      if (slot.worker && slot.status) gauges.statusAge.set(labels, (now - slot.statusAt) / 1000);
      else gauges.statusAge.remove(labels);
    }
    const perWorker = (await Promise.all(slots.map(metricsOf))).filter((m): m is MetricsJson => m !== undefined);
    const summed = perWorker.map((metrics) => metrics.map((m) => (SUMMED_ACROSS_WORKERS.includes(m.name) ? { ...m, aggregator: 'sum' as const } : m)));
    return AggregatorRegistry.aggregate([await registry.getMetricsAsJSON(), ...summed]).metrics();
  };

  const checks: ReadinessCheck[] = slots.map((slot) => ({ name: `worker_${slot.label}`, check: () => isReady(slot) }));

  const start = async () => {
    await new Promise<void>((resolve, reject) => {
      failStart = reject;
      allListening = resolve;
      for (const slot of slots) fork(slot);
    });
    started = true;
    logger.info({ workers: slots.length, port: slots[0]?.status?.port, pids: slots.map((s) => s.worker?.process.pid) }, 'ws-fanout listening');
  };

  const stop = async () => {
    stopping = true;
    for (const slot of slots) if (slot.restartTimer) clearTimeout(slot.restartTimer);
    const running = slots.flatMap((slot) => {
      const exited = slot.worker && stopWaiters.get(slot.worker);
      return slot.worker && exited ? [{ slot, worker: slot.worker, exited }] : [];
    });
    for (const { slot, worker } of running) {
      // A worker still loading may not listen to IPC yet; it has no clients, so nothing is lost by killing it.
      if (slot.listening) sendToWorker(worker, { type: MSG.stop });
      else worker.process.kill('SIGKILL');
    }
    const codes = await Promise.all(running.map(async ({ slot, exited }) => ({ slot, code: await exited })));
    const failed = codes.filter(({ slot, code }) => slot.listening && code !== 0).map(({ slot, code }) => `worker ${slot.index} exited with ${code}`);
    if (failed.length > 0) throw new Error(`workers did not stop cleanly: ${failed.join(', ')}`);
  };

  /** Start-up failed or was aborted: take the workers down with us rather than leave them to notice the closed IPC channel. */
  const killWorkers = async () => {
    stopping = true;
    for (const slot of slots) {
      if (slot.restartTimer) clearTimeout(slot.restartTimer);
      slot.worker?.process.kill('SIGKILL');
    }
  };

  try {
    const { adminPort } = await startService({
      logger,
      registry: { contentType: registry.contentType, metrics: renderMetrics },
      adminPort: options.adminPort,
      shutdown: options.shutdown,
      startupDeadlineMs: options.startupDeadlineMs ?? DEFAULT_STARTUP_DEADLINE_MS,
      setup: async (startup) => {
        // After a clean stop() there is no worker left to kill; after SIGTERM during start-up there may be.
        startup.onClose(killWorkers);
        return { app: { start, stop }, checks };
      },
    });
    return adminPort;
  } catch (err) {
    await killWorkers();
    throw err;
  }
}
