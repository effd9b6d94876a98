/** ingest composition root: config → logger → registry → startService (NATS, checkpoint bucket, createApp, start). */
import { connectNats, createLogger, createRegistry, runMain, startService } from '@tradewind/lib';
import { loadIngestConfig } from './config.js';
import { createApp } from './app.js';
import { natsCheckpointStore, type Checkpoint } from './live/checkpoint.js';
import { createLiveSource } from './live/index.js';

runMain(async () => {
  const config = loadIngestConfig();
  const logger = createLogger({ service: 'ingest', level: config.LOG_LEVEL });
  const registry = createRegistry('ingest');
  await startService({
    logger,
    registry,
    adminPort: config.ADMIN_PORT,
    shutdown: config,
    startupDeadlineMs: config.STARTUP_DEADLINE_MS,
    setup: async (startup) => {
      const nc = await connectNats({ url: config.NATS_URL, credsFile: config.NATS_CREDS, name: 'ingest', logger });
      startup.onClose(() => nc.drain());
      let live = {};
      if (config.INGEST_SOURCE !== 'replay') {
        const checkpoints = await natsCheckpointStore(nc, config.INGEST_SOURCE, { replicas: config.NATS_STREAM_REPLICAS });
        const checkpoint = await startup.step('checkpoint', () => checkpoints.load());
        logger.info({ source: config.INGEST_SOURCE, checkpoint, from_slot: config.LIVE_FROM_SLOT ?? null }, 'checkpoint at start-up');
        // Each leader term builds its source from the checkpoint read when it wins the lease (src/leader-lease.ts):
        // a standby that takes over resumes where its predecessor stopped.
        live = { sourceFor: (from: Checkpoint | null) => createLiveSource(config, { logger, registry, checkpoint: from }), checkpoints };
      }
      // start() creates or updates TRADES (ensureTradesStream): a start-up step too.
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
      return {
        app,
        checks: [
          { name: 'nats', check: () => !nc.isClosed() },
          { name: 'source', check: () => !app.failed() },
        ],
      };
    },
  });
});
