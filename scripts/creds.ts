/**
 * `npm run -s creds -- --plan starter|plus|pro [--email you@example.com]` (`-s` keeps npm's
 * `> tradewind creds` banner off stdout, so `> file` or `| jq` gets only the JSON)
 *
 * Issues NATS credentials for one subscriber from the local operator state and prints
 * `{"nats_connection", "ws_url", "user_jwt", "user_nkey_seed"}` as one JSON object on stdout.
 * Configuration: TRADEWIND_STATE_DIR (default .tradewind), NATS_PUBLIC_URL, CREDENTIALS_TTL_SECONDS.
 */
import { parseArgs } from 'node:util';
import { isPlanId } from '@tradewind/contracts';
import { issueUserCredentials, loadCredentialIssuerConfig, loadNatsIdentities } from '@tradewind/credential-issuer';

const USAGE = 'usage: npm run -s creds -- --plan starter|plus|pro [--email you@example.com]\n';

async function main(): Promise<number> {
  let values: { plan?: string | undefined; email?: string | undefined; help?: boolean | undefined };
  try {
    ({ values } = parseArgs({ options: { plan: { type: 'string' }, email: { type: 'string' }, help: { type: 'boolean', short: 'h' } } }));
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n${USAGE}`);
    return 2;
  }
  if (values.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  if (!isPlanId(values.plan)) {
    process.stderr.write(`--plan must be starter, plus or pro (got ${values.plan === undefined ? 'nothing' : JSON.stringify(values.plan)})\n${USAGE}`);
    return 2;
  }
  // Only the keys and URLs are read here: the service's database is not needed (a placeholder satisfies the schema).
  const config = loadCredentialIssuerConfig({ DATABASE_URL: 'postgres://127.0.0.1/unused', ...process.env, ADMIN_PORT: process.env.ADMIN_PORT ?? '0' });
  const identities = await loadNatsIdentities(config.TRADEWIND_STATE_DIR);
  const creds = await issueUserCredentials(identities, {
    plan: values.plan,
    email: values.email,
    natsUrl: config.NATS_PUBLIC_URL,
    ttlSeconds: config.CREDENTIALS_TTL_SECONDS,
  });
  process.stdout.write(`${JSON.stringify(creds)}\n`);
  return 0;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`creds: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  },
);
