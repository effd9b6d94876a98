/** ws-fanout composition root: config → logger → metrics → connections → createApp → start → shutdown hooks. */
import { readFile } from 'node:fs/promises';
import { createClient } from 'redis';
import { connectNats, createLogger, createRegistry, runMain, serve } from '@tradewind/lib';
import { loadWsFanoutConfig } from './config.js';
import { createApp } from './app.js';
import { CredentialVerifier } from './domain/verifier.js';
import { ConnectionLimiter } from './domain/connection-limiter.js';
import { RequestRateLimiter } from './domain/request-rate-limiter.js';
import { resolverLookup } from './resolver-lookup.js';

runMain(async () => {
  const config = loadWsFanoutConfig();
  const logger = createLogger({ service: 'ws-fanout', level: config.LOG_LEVEL });
  const registry = createRegistry('ws-fanout');
  const operatorJwt = config.NATS_OPERATOR_JWT.startsWith('eyJ') ? config.NATS_OPERATOR_JWT : await readFile(config.NATS_OPERATOR_JWT, 'utf8');

  const nc = await connectNats({ url: config.NATS_URL, credsFile: config.NATS_CREDS, name: 'ws-fanout', logger });
  // System account: resolver lookups, and the account updates that change live clients' plans.
  const sysNc = await connectNats({ url: config.NATS_URL, credsFile: config.NATS_SYSTEM_CREDS, name: 'ws-fanout-resolver', logger });
  const redis = createClient({ url: config.REDIS_URL });
  redis.on('error', (err) => logger.warn({ err }, 'redis error'));
  await redis.connect();

  const limiter = new ConnectionLimiter(redis, config.CONNECTION_LEASE_MS);
  limiter.start((err) => logger.warn({ err }, 'renewing connection leases failed'));
  const verifier = new CredentialVerifier(operatorJwt, resolverLookup(sysNc), config.ACCOUNT_CACHE_TTL_MS);
  const rateLimiter = new RequestRateLimiter(redis, config.REQUEST_RATE_WINDOW_MS);
  const app = createApp(config, { logger, registry, nc, sysNc, verifier, limiter, rateLimiter });

  const adminPort = await serve({
    logger, registry, adminPort: config.ADMIN_PORT,
    shutdown: config,
    app: { start: async () => logger.info({ port: (await app.start()).port }, 'ws-fanout listening'), stop: () => app.stop() },
    checks: [
      { name: 'nats', check: () => !nc.isClosed() && !sysNc.isClosed() },
      { name: 'redis', check: async () => (await redis.ping()) === 'PONG' },
    ],
    close: [() => nc.drain(), () => sysNc.drain(), () => redis.quit()],
  });
  logger.info({ admin_port: adminPort }, 'ws-fanout ready');
});
