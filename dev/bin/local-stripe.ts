/**
 * `npm start`'s stand-in for Stripe: the local Stripe of @tradewind/dev (dev/src/local-stripe) as a
 * process of its own, started only when STRIPE_SECRET_KEY is not given to npm start and NODE_ENV
 * is not production. It speaks the part of Stripe's v1 API billing uses, serves hosted Checkout
 * and billing-portal pages labelled "Test checkout — no real payment", and delivers signed
 * webhooks to billing. billing reaches it through STRIPE_API_URL with the same key and secret.
 *
 *   tsx dev/bin/local-stripe.ts
 *     LOCAL_STRIPE_PORT        port (default: deploy/services.json local-stripe.http), on 127.0.0.1
 *     LOCAL_STRIPE_PUBLIC_URL  origin browsers use for its pages (default http://localhost:<port>)
 *     STRIPE_SECRET_KEY        the test key billing sends (sk_test_…), required
 *     STRIPE_WEBHOOK_SECRET    the signing secret (whsec_…) of the webhooks, required
 *     STRIPE_WEBHOOK_URL       where events go (default http://127.0.0.1:<billing http port>/api/stripe/webhook)
 *
 * Logs pino JSON lines to stdout; SIGTERM/SIGINT stop it. Exits 1 with a message on bad settings.
 */
import { createLogger, defaultPort } from '@tradewind/lib';
import { startLocalStripe } from '../src/local-stripe/index.js';
import { stopOnSignal } from './stop-on-signal.js';

const logger = createLogger({ service: 'local-stripe', level: process.env.LOG_LEVEL ?? 'info' });

/** An environment variable that must be set; throws naming it otherwise. */
function required(name: string, pattern: RegExp, shape: string): string {
  const value = process.env[name];
  if (!value || !pattern.test(value)) throw new Error(`${name}: required, ${shape}${value ? `, got "${value.slice(0, 12)}…"` : ''}`);
  return value;
}

async function main(): Promise<void> {
  if (process.env.NODE_ENV === 'production') throw new Error('the local Stripe stand-in is refused when NODE_ENV=production: it takes no real payments');
  const raw = process.env.LOCAL_STRIPE_PORT ?? String(defaultPort('local-stripe', 'http'));
  const port = Number(raw);
  if (!/^\d+$/.test(raw) || port > 65535) throw new Error(`LOCAL_STRIPE_PORT: must be an integer 0-65535, got "${raw}"`);
  const secretKey = required('STRIPE_SECRET_KEY', /^sk_test_/, 'a test key sk_test_…');
  const webhookSecret = required('STRIPE_WEBHOOK_SECRET', /^whsec_/, 'a signing secret whsec_…');
  const webhookUrl = process.env.STRIPE_WEBHOOK_URL || `http://127.0.0.1:${defaultPort('billing', 'http')}/api/stripe/webhook`;
  const stripe = await startLocalStripe({
    port,
    host: '127.0.0.1',
    publicUrl: process.env.LOCAL_STRIPE_PUBLIC_URL || `http://localhost:${port}`,
    secretKey,
    webhookSecret,
    webhookUrl,
    logger,
  });
  logger.warn(
    { api_url: stripe.apiUrl, checkout_origin: stripe.publicUrl, webhook_url: webhookUrl },
    'LOCAL Stripe stand-in (test checkout, no real payment) listening',
  );

  stopOnSignal(logger, () => stripe.stop());
}

main().catch((err: unknown) => {
  logger.fatal({ err }, 'local Stripe stand-in failed to start');
  process.exit(1);
});
