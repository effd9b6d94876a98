/** credential-issuer composition root. */
import { connectNats, createLogger, createRegistry, runMain, serve } from '@tradewind/lib';
import { loadCredentialIssuerConfig } from './config.js';
import { loadNatsIdentities } from './domain/identities.js';
import { createApp } from './app.js';

runMain(async () => {
  const config = loadCredentialIssuerConfig();
  const logger = createLogger({ service: 'credential-issuer', level: config.LOG_LEVEL });
  const registry = createRegistry('credential-issuer');
  const identities = await loadNatsIdentities(config.TRADEWIND_STATE_DIR);
  const nc = await connectNats({ url: config.NATS_URL, creds: identities.service_user_creds, name: 'credential-issuer', logger });
  const sysNc = await connectNats({ url: config.NATS_URL, creds: identities.system_user_creds, name: 'credential-issuer-sys', logger });
  const app = createApp({ natsPublicUrl: config.NATS_PUBLIC_URL, ttlSeconds: config.CREDENTIALS_TTL_SECONDS }, { logger, registry, identities, nc, sysNc });
  const adminPort = await serve({
    logger, registry, adminPort: config.ADMIN_PORT, app,
    checks: [{ name: 'nats', check: () => !nc.isClosed() && !sysNc.isClosed() }],
    close: [() => nc.drain(), () => sysNc.drain()],
  });
  logger.info({ admin_port: adminPort }, 'credential-issuer ready');
});
