/** ingest composition root. */
import { connectNats, createLogger, createRegistry, runMain, serve } from '@tradewind/lib';
import { loadIngestConfig } from './config.js';
import { createApp } from './app.js';

runMain(async () => {
  const config = loadIngestConfig();
  const logger = createLogger({ service: 'ingest', level: config.LOG_LEVEL });
  const registry = createRegistry('ingest');
  const nc = await connectNats({ url: config.NATS_URL, credsFile: config.NATS_CREDS, name: 'ingest', logger });
  const app = createApp(config, { logger, registry, nc });
  await serve({
    logger, registry, adminPort: config.ADMIN_PORT, app,
    checks: [{ name: 'nats', check: () => !nc.isClosed() }],
    close: [() => nc.drain()],
  });
});
