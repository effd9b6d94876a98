/**
 * A service process's life (docs/style.md §8, docs/architecture.md §9): {@link startService} brings the admin
 * server up first, then connects and starts the app inside a start-up that retries under STARTUP_DEADLINE_MS
 * (startup.ts); graceful shutdown on SIGTERM/SIGINT marks the process not ready, waits a short delay so load
 * balancers notice, runs the service's stop steps and exits 0 — all under a deadline; past the deadline the
 * process exits 1.
 */
import type { Logger } from './logger.js';
import { startAdminServer, type MetricsSource, type ReadinessCheck } from './admin-server.js';
import { DEFAULT_STARTUP_DEADLINE_MS } from './config.js';
import { runStartup, type StartupBackoff, type StartupHandle } from './startup.js';

/**
 * Installs signal handlers that call `stop` once.
 * @param options.readinessDelayMs pause between `/readyz` turning 503 and `stop` (default 0 locally; set in Kubernetes).
 * @param options.deadlineMs hard limit for the whole shutdown (default 10 000 ms, below Kubernetes' 30 s grace period).
 */
export function installShutdown(options: {
  logger: Logger;
  markNotReady?: () => void;
  stop: () => Promise<void>;
  readinessDelayMs?: number;
  deadlineMs?: number;
}): void {
  let started = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (started) return;
    started = true;
    options.logger.info({ signal, readiness_delay_ms: options.readinessDelayMs ?? 0 }, 'shutting down');
    const deadline = setTimeout(() => {
      options.logger.error('shutdown deadline passed, exiting');
      process.exit(1);
    }, options.deadlineMs ?? 10_000);
    deadline.unref();
    void (async () => {
      options.markNotReady?.();
      if (options.readinessDelayMs) await new Promise((r) => setTimeout(r, options.readinessDelayMs));
      try {
        await options.stop();
        options.logger.info('stopped');
        options.logger.flush?.();
        // A shutdown a component asked for after a fatal error keeps its non-zero exit code.
        process.exit(typeof process.exitCode === 'number' ? process.exitCode : 0);
      } catch (err) {
        options.logger.error({ err }, 'shutdown failed');
        process.exit(1);
      }
    })();
  };
  process.once('SIGTERM', onSignal);
  process.once('SIGINT', onSignal);
}

/**
 * Runs a service's composition root and turns a startup failure (bad config, a dependency still missing
 * at STARTUP_DEADLINE_MS, bad credentials: see startService) into one clear `fatal: <message>` line on
 * stderr and exit code 1.
 */
export function runMain(main: () => Promise<void>): void {
  main().catch((err: unknown) => {
    const message = err instanceof Error ? err.message : String(err);
    process.stderr.write(`fatal: ${message}\n`);
    process.exit(1);
  });
}

/**
 * The tail of a composition root whose app is already built and connected: {@link startService} with a
 * `setup` that returns `app` and `checks` and registers `close`. Prefer startService in a composition root,
 * so the connections and streams are made inside the start-up and retried (docs/architecture.md §9).
 * @param options.shutdown the service's config (its `SHUTDOWN_READINESS_DELAY_MS` / `SHUTDOWN_DEADLINE_MS`,
 *   CommonConfig); without it, no delay and a 10 s deadline.
 * @param options.startupDeadlineMs bound on `app.start()` (STARTUP_DEADLINE_MS; default DEFAULT_STARTUP_DEADLINE_MS), ms.
 * @returns the admin server's port.
 * @throws what startService throws.
 */
export async function serve(options: {
  logger: Logger;
  /** Usually the process's Registry; see {@link MetricsSource}. */
  registry: MetricsSource;
  adminPort: number;
  checks: readonly ReadinessCheck[];
  app: { start(): Promise<unknown>; stop(): Promise<void> };
  close: ReadonlyArray<() => Promise<unknown>>;
  shutdown?: { readonly SHUTDOWN_READINESS_DELAY_MS: number; readonly SHUTDOWN_DEADLINE_MS: number };
  startupDeadlineMs?: number;
}): Promise<number> {
  const { adminPort } = await startService({
    logger: options.logger,
    registry: options.registry,
    adminPort: options.adminPort,
    startupDeadlineMs: options.startupDeadlineMs ?? DEFAULT_STARTUP_DEADLINE_MS,
    ...(options.shutdown ? { shutdown: options.shutdown } : {}),
    setup: async (startup) => {
      for (const close of options.close) startup.onClose(close);
      return { app: options.app, checks: options.checks };
    },
  });
  return adminPort;
}

/** What a service's `setup` returns to {@link startService}. */
export interface StartedService<R> {
  /** The app: `start()` runs inside the start-up (its own steps retry); `stop()` at shutdown. */
  app: { start(): Promise<R>; stop(): Promise<void> };
  /** Readiness checks added once the app started (NATS, PostgreSQL, Redis…). */
  checks: readonly ReadinessCheck[];
}

/** What `setup` gets: {@link StartupHandle} plus the shutdown steps of what it opened. */
export interface ServiceStartup extends StartupHandle {
  /**
   * Registers a close step (drain NATS, close the database, quit Redis), run in registration order at
   * shutdown after `app.stop()` — also when SIGTERM arrives while the service is still starting.
   */
  onClose(close: () => Promise<unknown>): void;
}

/**
 * The composition root's tail (docs/style.md §1, §8; docs/architecture.md §9): starts the admin server
 * first — `/healthz` 200 from now on, `/readyz` 503 with failing check `started` (and
 * `waiting_for:<step>` while a step retries) — installs graceful shutdown, then runs `setup` (connect,
 * create streams, build the app) and `app.start()` inside {@link runStartup} with `startupDeadlineMs`.
 * Once started, `/readyz` runs the returned checks. SIGTERM/SIGINT at any point marks the process not
 * ready, waits `SHUTDOWN_READINESS_DELAY_MS`, aborts a start-up still waiting, stops the app if it started,
 * runs the close steps in order and closes the admin server, all within `SHUTDOWN_DEADLINE_MS`; exit 0.
 * @param options.shutdown the service's config (its SHUTDOWN_* keys, CommonConfig); without it no delay and a 10 s deadline.
 * @param options.startupDeadlineMs the config's STARTUP_DEADLINE_MS, ms.
 * @returns the admin server's port and what `app.start()` resolved with.
 * @throws StartupFailedError past the deadline or for a non-retryable error (runMain prints `fatal: <message>`
 *   and exits 1); whatever `setup` or `app.start()` throw. Never settles once a shutdown aborted the start-up
 *   (the shutdown exits the process).
 */
export async function startService<R>(options: {
  logger: Logger;
  /** Usually the process's Registry; see {@link MetricsSource}. */
  registry: MetricsSource;
  adminPort: number;
  startupDeadlineMs: number;
  shutdown?: { readonly SHUTDOWN_READINESS_DELAY_MS: number; readonly SHUTDOWN_DEADLINE_MS: number };
  backoff?: StartupBackoff;
  setup(startup: ServiceStartup): Promise<StartedService<R>>;
}): Promise<{ adminPort: number; started: R }> {
  const abort = new AbortController();
  const closes: Array<() => Promise<unknown>> = [];
  let app: StartedService<R>['app'] | undefined;
  let handle: StartupHandle | undefined;
  let started = false;
  const startedCheck: ReadinessCheck = { name: 'started', check: () => started };
  const waitingCheck: ReadinessCheck = {
    get name() {
      return `waiting_for:${handle?.waitingFor()[0] ?? 'nothing'}`;
    },
    check: () => started || !handle || handle.waitingFor().length === 0,
  };
  // startAdminServer reads the array on every request: the service's own checks join it once started.
  const checks: ReadinessCheck[] = [startedCheck, waitingCheck];
  const admin = await startAdminServer({ port: options.adminPort, registry: options.registry, logger: options.logger, checks });
  let starting: Promise<unknown> = Promise.resolve();
  installShutdown({
    logger: options.logger,
    ...(options.shutdown ? { readinessDelayMs: options.shutdown.SHUTDOWN_READINESS_DELAY_MS, deadlineMs: options.shutdown.SHUTDOWN_DEADLINE_MS } : {}),
    markNotReady: () => admin.markNotReady(),
    stop: async () => {
      if (!started) {
        abort.abort();
        await starting.catch(() => undefined);
      }
      if (started && app) await app.stop();
      for (const close of closes) await close();
      await admin.close();
    },
  });
  const startup = runStartup(
    { logger: options.logger, deadlineMs: options.startupDeadlineMs, signal: abort.signal, ...(options.backoff ? { backoff: options.backoff } : {}) },
    async (h) => {
      handle = h;
      const service = await options.setup({ ...h, onClose: (close) => void closes.push(close) });
      app = service.app;
      const result = await service.app.start();
      checks.splice(0, checks.length, startedCheck, ...service.checks);
      started = true;
      return result;
    },
  );
  starting = startup;
  try {
    return { adminPort: admin.port, started: await startup };
  } catch (err) {
    if (abort.signal.aborted) return new Promise<never>(() => undefined);
    throw err;
  }
}
