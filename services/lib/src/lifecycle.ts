/**
 * Graceful shutdown on SIGTERM/SIGINT (docs/style.md §8): mark not ready, wait a short
 * delay so load balancers notice, run the service's stop steps, exit 0 — all
 * under a deadline; past the deadline the process exits 1.
 */
import type { Logger } from './logger.js';
import { startAdminServer, type MetricsSource, type ReadinessCheck } from './admin-server.js';

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
 * Runs a service's composition root and turns a startup failure (bad config,
 * unreachable dependency) into one clear line on stderr and exit code 1.
 */
export function runMain(main: () => Promise<void>): void {
  main().catch((err: unknown) => {
    const message = err instanceof Error ? err.message : String(err);
    process.stderr.write(`fatal: ${message}\n`);
    process.exit(1);
  });
}

/**
 * The tail every composition root shares: start the admin server (`/healthz`, `/readyz` with
 * `checks`, `/metrics`), start the app, and install graceful shutdown that marks the process
 * not ready, waits `shutdown.readinessDelayMs`, stops the app, runs `close` in order (drain NATS, quit
 * Redis…) and closes the admin server, all within `shutdown.deadlineMs`.
 * @param options.shutdown the service's config (its `SHUTDOWN_READINESS_DELAY_MS` / `SHUTDOWN_DEADLINE_MS`,
 *   CommonConfig); without it, no delay and a 10 s deadline.
 * @returns the admin server's port.
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
}): Promise<number> {
  let started = false;
  const checks = [{ name: 'started', check: () => started }, ...options.checks];
  const admin = await startAdminServer({ port: options.adminPort, registry: options.registry, logger: options.logger, checks });
  await options.app.start();
  started = true;
  installShutdown({
    logger: options.logger,
    ...(options.shutdown ? { readinessDelayMs: options.shutdown.SHUTDOWN_READINESS_DELAY_MS, deadlineMs: options.shutdown.SHUTDOWN_DEADLINE_MS } : {}),
    markNotReady: () => admin.markNotReady(),
    stop: async () => {
      await options.app.stop();
      for (const close of options.close) await close();
      await admin.close();
    },
  });
  return admin.port;
}
