/** auth composition root. */
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { connectNats, createDb, createLogger, createRegistry, DEFAULT_EVENTS_STREAM, ensureEventsStreams, pingDb, runMain, serve } from '@tradewind/lib';
import { loadAuthConfig } from './config.js';
import { createApp } from './app.js';
import { AUTH_SCHEMA } from './db/migrations.js';
import type { AuthDatabase } from './db/schema.js';

runMain(async () => {
  const config = loadAuthConfig();
  const logger = createLogger({ service: 'auth', level: config.LOG_LEVEL });
  const registry = createRegistry('auth');
  const db = createDb<AuthDatabase>({ url: config.DATABASE_URL, schema: AUTH_SCHEMA, maxConnections: config.DATABASE_POOL_SIZE });
  const nc = await connectNats({ url: config.NATS_URL, credsFile: config.NATS_CREDS, name: 'auth', logger });
  const jsm = await jetstreamManager(nc);
  await ensureEventsStreams(jsm, { ...DEFAULT_EVENTS_STREAM, replicas: config.NATS_STREAM_REPLICAS });
  const app = createApp(config, { db, js: jetstream(nc), jsm, logger, registry });
  let ports = { httpPort: 0, grpcPort: 0 };
  const adminPort = await serve({
    logger,
    registry,
    adminPort: config.ADMIN_PORT,
    shutdown: config,
    app: {
      start: async () => {
        ports = await app.start();
      },
      stop: () => app.stop(),
    },
    checks: [
      { name: 'nats', check: () => !nc.isClosed() },
      { name: 'postgres', check: () => pingDb(db) },
    ],
    close: [() => nc.drain(), () => db.destroy()],
  });
  logger.info({ http_port: ports.httpPort, grpc_port: ports.grpcPort, admin_port: adminPort }, 'auth ready');
});
