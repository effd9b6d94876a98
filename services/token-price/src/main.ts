/** token-price composition root: config → logger → metrics → connections → createApp → start → shutdown hooks. */
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { connectNats, createLogger, createRegistry, runMain, serve } from '@tradewind/lib';
import { loadTokenPriceConfig } from './config.js';
import { createApp } from './app.js';
import { createRedisClient } from './redis-client.js';
import { createBirdeyeClient } from './birdeye/birdeye.js';
import { createRpcMetadataResolver } from './metadata/solana-metadata.js';

runMain(async () => {
  const config = loadTokenPriceConfig();
  const logger = createLogger({ service: 'token-price', level: config.LOG_LEVEL });
  const registry = createRegistry('token-price');
  const nc = await connectNats({ url: config.NATS_URL, credsFile: config.NATS_CREDS, name: 'token-price', logger });
  const redis = createRedisClient(config.REDIS_URL);
  redis.on('error', (err) => logger.warn({ err }, 'redis error'));
  await redis.connect();

  const app = createApp(config, {
    logger,
    registry,
    redis,
    js: jetstream(nc),
    jsm: await jetstreamManager(nc),
    birdeye: config.BIRDEYE_API_KEY
      ? createBirdeyeClient({
          apiKey: config.BIRDEYE_API_KEY,
          timeoutMs: config.BIRDEYE_TIMEOUT_MS,
          ...(config.BIRDEYE_API_URL ? { baseUrl: config.BIRDEYE_API_URL } : {}),
        })
      : undefined,
    metadata: config.SOLANA_RPC_URL ? createRpcMetadataResolver({ rpcUrl: config.SOLANA_RPC_URL, timeoutMs: config.METADATA_TIMEOUT_MS }) : undefined,
  });
  const adminPort = await serve({
    logger,
    registry,
    adminPort: config.ADMIN_PORT,
    shutdown: config,
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
    close: [() => nc.drain(), () => redis.quit()],
  });
  logger.info({ admin_port: adminPort }, 'token-price ready');
});
