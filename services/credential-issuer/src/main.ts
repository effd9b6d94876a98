/** credential-issuer composition root. */
import { connectNats, createLogger, createRegistry, installShutdown, runMain, startAdminServer } from '@tradewind/lib';
import { loadCredentialIssuerConfig } from './config.js';
import { ensureNatsIdentities } from './domain/identities.js';
import { createApp } from './app.js';

runMain(async () => {
  const config = loadCredentialIssuerConfig();
  const logger = createLogger({ service: 'credential-issuer', level: config.LOG_LEVEL });
  const registry = createRegistry('credential-issuer');
  const identities = await ensureNatsIdentities(config.TRADEWIND_STATE_DIR);
  const nc = await connectNats({ url: config.NATS_URL, creds: identities.service_user_creds, name: 'credential-issuer', logger });
  const sysNc = await connectNats({ url: config.NATS_URL, creds: identities.system_user_creds, name: 'credential-issuer-sys', logger });
  const app = createApp({ natsPublicUrl: config.NATS_PUBLIC_URL, ttlSeconds: config.CREDENTIALS_TTL_SECONDS }, { logger, registry, identities, nc, sysNc });
  const admin = await startAdminServer({
    port: config.ADMIN_PORT, registry, logger,
    checks: [{ name: 'nats', check: () => !nc.isClosed() && !sysNc.isClosed() }],
  });
  await app.start();
  logger.info({ admin_port: admin.port }, 'credential-issuer ready');
  installShutdown({
    logger,
    markNotReady: () => admin.markNotReady(),
    stop: async () => {
      await app.stop();
      await nc.drain();
      await sysNc.drain();
      await admin.close();
    },
  });
});
