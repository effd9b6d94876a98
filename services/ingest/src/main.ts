/** ingest composition root. */
import { connectNats, createLogger, createRegistry, runMain, serve } from '@tradewind/lib';
import { loadIngestConfig } from './config.js';
import { createApp } from './app.js';
import { natsCheckpointStore } from './live/checkpoint.js';
import { createLiveSource } from './live/index.js';

runMain(async () => {
  const config = loadIngestConfig();
  const logger = createLogger({ service: 'ingest', level: config.LOG_LEVEL });
  const registry = createRegistry('ingest');
  const nc = await connectNats({ url: config.NATS_URL, credsFile: config.NATS_CREDS, name: 'ingest', logger });
  let live = {};
  if (config.INGEST_SOURCE !== 'replay') {
    const checkpoints = await natsCheckpointStore(nc, config.INGEST_SOURCE);
    const checkpoint = await checkpoints.load();
    logger.info({ source: config.INGEST_SOURCE, checkpoint, from_slot: config.LIVE_FROM_SLOT ?? null }, 'live source resume point');
    live = { source: createLiveSource(config, { logger, registry, checkpoint }), checkpoints };
  }
  const app = createApp(config, {
    logger,
    registry,
    nc,
    ...live,
    onFatal: () => {
      process.exitCode = 1;
      process.kill(process.pid, 'SIGTERM');
    },
  });
  await serve({
    logger,
    registry,
    adminPort: config.ADMIN_PORT,
    app,
    shutdown: config,
    checks: [
      { name: 'nats', check: () => !nc.isClosed() },
      { name: 'source', check: () => !app.failed() },
    ],
    close: [() => nc.drain()],
  });
});
