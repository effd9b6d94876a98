/** billing composition root: config → logger → registry → startService (connections, streams, createApp, start). */
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { connectNats, createDb, createLogger, createRegistry, DEFAULT_EVENTS_STREAM, ensureEventsStreams, pingDb, runMain, startService } from '@tradewind/lib';
import { loadBillingConfig } from './config.js';
import { createApp } from './app.js';
import { BILLING_SCHEMA } from './db/migrations.js';
import type { BillingDatabase } from './db/schema.js';

runMain(async () => {
  const config = loadBillingConfig();
  const logger = createLogger({ service: 'billing', level: config.LOG_LEVEL });
  const registry = createRegistry('billing');
  const { adminPort, started: ports } = await startService({
    logger,
    registry,
    adminPort: config.ADMIN_PORT,
    shutdown: config,
    startupDeadlineMs: config.STARTUP_DEADLINE_MS,
    setup: async (startup) => {
      const db = createDb<BillingDatabase>({ url: config.DATABASE_URL, schema: BILLING_SCHEMA, maxConnections: config.DATABASE_POOL_SIZE });
      const nc = await connectNats({ url: config.NATS_URL, credsFile: config.NATS_CREDS, name: 'billing', logger });
      startup.onClose(() => nc.drain());
      startup.onClose(() => db.destroy());
      const jsm = await startup.step('JetStream API', () => jetstreamManager(nc));
      await ensureEventsStreams(jsm, { ...DEFAULT_EVENTS_STREAM, replicas: config.NATS_STREAM_REPLICAS });
      return {
        app: createApp(config, { db, js: jetstream(nc), jsm, logger, registry }),
        checks: [
          { name: 'nats', check: () => !nc.isClosed() },
          { name: 'postgres', check: () => pingDb(db) },
        ],
      };
    },
  });
  logger.info({ http_port: ports.httpPort, grpc_port: ports.grpcPort, admin_port: adminPort }, 'billing ready');
});
