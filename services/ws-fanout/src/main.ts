/**
 * ws-fanout composition root: config → logger → metrics → startService (connections, createApp, start, shutdown hooks).
 *
 * With WS_WORKERS resolving to 1 the process serves everything itself, as every other service does. With more,
 * this process becomes the cluster primary (cluster.ts: admin port, worker supervision, no fan-out) and forks
 * that many workers, each running this file again as a worker: the whole fan-out on the shared PORT.
 */
import { readFile } from 'node:fs/promises';
import { createClient } from 'redis';
import type { Registry } from 'prom-client';
import { connectNats, createLogger, createRegistry, runMain, runStartup, startService, type Logger, type ReadinessCheck } from '@tradewind/lib';
import { loadWsFanoutConfig, type WsFanoutConfig } from './config.js';
import { createApp, type WsFanoutApp } from './app.js';
import { CredentialVerifier } from './domain/verifier.js';
import { ConnectionLimiter } from './domain/connection-limiter.js';
import { RequestRateLimiter } from './domain/request-rate-limiter.js';
import { resolverLookup } from './resolver-lookup.js';
import { clusterRole, enterWorkerMode, runClusterPrimary, runClusterWorker } from './cluster.js';
import { workerCountHere } from './worker-count.js';

/**
 * The fan-out with its connections: what a single process or each cluster worker runs. Called inside a
 * start-up (startService, or runStartup in a worker): connectNats retries until STARTUP_DEADLINE_MS.
 * @param onClose registers a close step as soon as its connection exists, so a shutdown during start-up closes it.
 */
async function connectFanout(config: Readonly<WsFanoutConfig>, logger: Logger, registry: Registry, onClose: (close: () => Promise<unknown>) => void) {
  const operatorJwt = config.NATS_OPERATOR_JWT.startsWith('eyJ') ? config.NATS_OPERATOR_JWT : await readFile(config.NATS_OPERATOR_JWT, 'utf8');

  const nc = await connectNats({ url: config.NATS_URL, credsFile: config.NATS_CREDS, name: 'ws-fanout', logger });
  onClose(() => nc.drain());
  // System account: resolver lookups, and the account updates that change live clients' plans.
  const sysNc = await connectNats({ url: config.NATS_URL, credsFile: config.NATS_SYSTEM_CREDS, name: 'ws-fanout-resolver', logger });
  onClose(() => sysNc.drain());
  // No offline queue: while Redis is down a login is refused at once with `unavailable` (4503) instead of
  // waiting for a reconnection; live connections need no Redis and keep streaming (docs/websocket.md §6).
  const redis = createClient({ url: config.REDIS_URL, disableOfflineQueue: true });
  redis.on('error', (err) => logger.warn({ err }, 'redis error'));
  await redis.connect();
  onClose(() => redis.quit());

  const limiter = new ConnectionLimiter(redis, config.CONNECTION_LEASE_MS);
  limiter.start((err) => logger.warn({ err }, 'renewing connection leases failed'));
  const verifier = new CredentialVerifier(operatorJwt, resolverLookup(sysNc), config.ACCOUNT_CACHE_TTL_MS);
  const rateLimiter = new RequestRateLimiter(redis, config.REQUEST_RATE_WINDOW_MS);
  const app: WsFanoutApp = createApp(config, { logger, registry, nc, sysNc, verifier, limiter, rateLimiter });
  const checks: ReadinessCheck[] = [
    { name: 'nats', check: () => !nc.isClosed() && !sysNc.isClosed() },
    { name: 'redis', check: async () => (await redis.ping()) === 'PONG' },
    { name: 'feeds', check: () => app.feedsReady() },
  ];
  return { app, checks };
}

runMain(async () => {
  const config = loadWsFanoutConfig();
  const baseLogger = createLogger({ service: 'ws-fanout', level: config.LOG_LEVEL });
  const role = clusterRole(workerCountHere(config.WS_WORKERS));

  if (role.kind === 'primary') {
    const logger = baseLogger.child({ role: 'primary' });
    const adminPort = await runClusterPrimary({
      logger,
      workers: role.workers,
      adminPort: config.ADMIN_PORT,
      shutdown: config,
      startupDeadlineMs: config.STARTUP_DEADLINE_MS,
    });
    logger.info({ admin_port: adminPort, workers: role.workers }, 'ws-fanout ready');
    return;
  }

  if (role.kind === 'worker') {
    const logger = baseLogger.child({ worker: role.slot });
    enterWorkerMode(logger);
    const registry = createRegistry('ws-fanout');
    const close: Array<() => Promise<unknown>> = [];
    // No admin port of its own: the primary's /readyz waits for this worker's status; past the deadline the
    // worker exits 1 and the primary restarts it (cluster.ts).
    await runStartup({ logger, deadlineMs: config.STARTUP_DEADLINE_MS }, async () => {
      const { app, checks } = await connectFanout(config, logger, registry, (c) => void close.push(c));
      await runClusterWorker({ logger, registry, app, checks, close });
    });
    return;
  }

  const logger = baseLogger;
  const registry = createRegistry('ws-fanout');
  const { adminPort } = await startService({
    logger,
    registry,
    adminPort: config.ADMIN_PORT,
    shutdown: config,
    startupDeadlineMs: config.STARTUP_DEADLINE_MS,
    setup: async (startup) => {
      const { app, checks } = await connectFanout(config, logger, registry, startup.onClose);
      return { app: { start: async () => logger.info({ port: (await app.start()).port }, 'ws-fanout listening'), stop: () => app.stop() }, checks };
    },
  });
  logger.info({ admin_port: adminPort }, 'ws-fanout ready');
});
