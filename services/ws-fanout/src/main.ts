/** ws-fanout composition root: config → logger → metrics → connections → createApp → start → shutdown hooks. */
import { readFile } from 'node:fs/promises';
import { createClient } from 'redis';
import { connectNats, createLogger, createRegistry, installShutdown, runMain, startAdminServer } from '@tradewind/lib';
import { loadWsFanoutConfig } from './config.js';
import { createApp } from './app.js';
import { CredentialVerifier } from './domain/verifier.js';
import { ConnectionLimiter } from './domain/connection-limiter.js';
import { resolverLookup } from './resolver-lookup.js';

runMain(async () => {
  const config = loadWsFanoutConfig();
  const logger = createLogger({ service: 'ws-fanout', level: config.LOG_LEVEL });
  const registry = createRegistry('ws-fanout');
  const operatorJwt = config.NATS_OPERATOR_JWT.startsWith('eyJ') ? config.NATS_OPERATOR_JWT : await readFile(config.NATS_OPERATOR_JWT, 'utf8');

  const nc = await connectNats({ url: config.NATS_URL, credsFile: config.NATS_CREDS, name: 'ws-fanout', logger });
  const sysNc = await connectNats({ url: config.NATS_URL, credsFile: config.NATS_SYSTEM_CREDS, name: 'ws-fanout-resolver', logger });
  const redis = createClient({ url: config.REDIS_URL });
  redis.on('error', (err) => logger.warn({ err }, 'redis error'));
  await redis.connect();

  const limiter = new ConnectionLimiter(redis, config.CONNECTION_LEASE_MS);
  limiter.start((err) => logger.warn({ err }, 'renewing connection leases failed'));
  const verifier = new CredentialVerifier(operatorJwt, resolverLookup(sysNc), config.ACCOUNT_CACHE_TTL_MS);
  const app = createApp(config, { logger, registry, nc, verifier, limiter });

  const admin = await startAdminServer({
    port: config.ADMIN_PORT, registry, logger,
    checks: [
      { name: 'nats', check: () => !nc.isClosed() && !sysNc.isClosed() },
      { name: 'redis', check: async () => (await redis.ping()) === 'PONG' },
    ],
  });
  const { port } = await app.start();
  logger.info({ port, admin_port: admin.port }, 'ws-fanout listening');

  installShutdown({
    logger,
    markNotReady: () => admin.markNotReady(),
    stop: async () => {
      await app.stop();
      await nc.drain();
      await sysNc.drain();
      await redis.quit();
      await admin.close();
    },
  });
});
