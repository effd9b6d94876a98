/**
 * `npm start`'s stand-in for Google sign-in: the local OpenID Connect provider of
 * @tradewind/dev (dev/src/local-oidc.ts) as its own process, started only when
 * GOOGLE_CLIENT_ID is not set and NODE_ENV is not production. Its sign-in page is labelled
 * "Local sign-in — not Google"; any email works and always maps to the same account.
 *
 *   tsx dev/bin/local-oidc.ts         LOCAL_OIDC_PORT (default 8091), listens on 127.0.0.1,
 *                                      issuer http://localhost:<port>
 *
 * Logs pino JSON lines to stdout (the issuer on start); SIGTERM/SIGINT stop it.
 */
import { createLogger, defaultPort } from '@tradewind/lib';
import { startLocalOidcProvider } from '../src/local-oidc.js';
import { stopOnSignal } from './stop-on-signal.js';

const logger = createLogger({ service: 'local-oidc', level: process.env.LOG_LEVEL ?? 'info' });

async function main(): Promise<void> {
  if (process.env.NODE_ENV === 'production') throw new Error('the local OpenID Connect provider is refused when NODE_ENV=production');
  const raw = process.env.LOCAL_OIDC_PORT ?? String(defaultPort('local-oidc', 'http'));
  const port = Number(raw);
  if (!/^\d+$/.test(raw) || port > 65535) throw new Error(`LOCAL_OIDC_PORT: must be an integer 0-65535, got "${raw}"`);

  const provider = await startLocalOidcProvider({ port, host: '127.0.0.1', publicHost: 'localhost' });
  logger.info(
    { issuer: provider.issuer, authorization_url: provider.authorizationUrl, certs_url: provider.pemCertsUrl },
    'LOCAL OpenID Connect provider (not Google) listening; sign-in accepts any email',
  );

  stopOnSignal(logger, () => provider.stop());
}

main().catch((err: unknown) => {
  logger.fatal({ err }, 'local OpenID Connect provider failed to start');
  process.exit(1);
});
