/** ingest composition root. */
import { connectNats, createLogger, createRegistry, installShutdown, runMain, startAdminServer } from '@tradewind/lib';
import { loadIngestConfig } from './config.js';
import { createApp } from './app.js';

runMain(async () => {
  const config = loadIngestConfig();
  const logger = createLogger({ service: 'ingest', level: config.LOG_LEVEL });
  const registry = createRegistry('ingest');
  const nc = await connectNats({ url: config.NATS_URL, credsFile: config.NATS_CREDS, name: 'ingest', logger });
  const app = createApp(config, { logger, registry, nc });
  const admin = await startAdminServer({ port: config.ADMIN_PORT, registry, logger, checks: [{ name: 'nats', check: () => app.isReady() }] });
  await app.start();
  installShutdown({
    logger,
    markNotReady: () => admin.markNotReady(),
    stop: async () => {
      await app.stop();
      await nc.drain();
      await admin.close();
    },
  });
});
