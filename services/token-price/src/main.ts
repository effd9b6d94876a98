/** token-price composition root: config → logger → metrics → startService (connections, createApp, start, shutdown hooks). */
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { connectNats, createLogger, createRegistry, runMain, startService } from '@tradewind/lib';
import { loadTokenPriceConfig } from './config.js';
import { createApp } from './app.js';
import { createRedisClient } from './redis-client.js';
import { createBirdeyeClient } from './birdeye/birdeye.js';
import { createRpcMetadataResolver } from './metadata/solana-metadata.js';

runMain(async () => {
  const config = loadTokenPriceConfig();
  const logger = createLogger({ service: 'token-price', level: config.LOG_LEVEL });
  const registry = createRegistry('token-price');
  const { adminPort } = await startService({
    logger,
    registry,
    adminPort: config.ADMIN_PORT,
    shutdown: config,
    startupDeadlineMs: config.STARTUP_DEADLINE_MS,
    setup: async (startup) => {
      const nc = await connectNats({ url: config.NATS_URL, credsFile: config.NATS_CREDS, name: 'token-price', logger });
      startup.onClose(() => nc.drain());
      const redis = createRedisClient(config.REDIS_URL);
      redis.on('error', (err) => logger.warn({ err }, 'redis error'));
      await redis.connect();
      startup.onClose(() => redis.quit());
      const api = { timeout: config.TOKEN_PRICE_API_TIMEOUT_MS };
      const jsm = await startup.step('JetStream API', () => jetstreamManager(nc, api));
      const app = createApp(config, {
        logger,
        registry,
        redis,
        js: jetstream(nc, api),
        jsm,
        nc,
        birdeye: config.BIRDEYE_API_KEY
          ? createBirdeyeClient({
              apiKey: config.BIRDEYE_API_KEY,
              timeoutMs: config.BIRDEYE_TIMEOUT_MS,
              ...(config.BIRDEYE_API_URL ? { baseUrl: config.BIRDEYE_API_URL } : {}),
            })
          : undefined,
        metadata: config.SOLANA_RPC_URL ? createRpcMetadataResolver({ rpcUrl: config.SOLANA_RPC_URL, timeoutMs: config.METADATA_TIMEOUT_MS }) : undefined,
      });
      return {
        app: {
          start: async () =>
            logger.info(
              { ...(await app.start()), birdeye: Boolean(config.BIRDEYE_API_KEY), metadata_rpc: Boolean(config.SOLANA_RPC_URL) },
              'token-price listening',
            ),
          stop: () => app.stop(),
        },
        checks: [
          { name: 'nats', check: () => !nc.isClosed() },
          { name: 'redis', check: async () => (await redis.ping()) === 'PONG' },
        ],
      };
    },
  });
  logger.info({ admin_port: adminPort }, 'token-price ready');
});
