/**
 * Prints the Kubernetes Secrets Tradewind generates for itself, as YAML for `kubectl apply -f -`:
 *
 * - `tradewind-nats-identities`: identities.json (operator, accounts, signing keys: credential-issuer
 *   only), service.creds, sys.creds, operator.jwt (the chart projects each service the keys it needs);
 * - `tradewind-nats-auth`: auth.conf for the NATS servers (operator JWT, system account, preloaded
 *   account JWTs; included by the NATS chart's config);
 * - `tradewind-auth-signing-key`: private-key.pem, the ES256 key auth signs access tokens with;
 * - `tradewind-credentials-encryption-key`: key, the AES-256-GCM key sealing users' NKey seeds.
 *
 * Keys are created once in a state directory and re-printed unchanged on every later run: a new
 * operator key would invalidate every issued credential, a new sealing key every stored seed. Keep
 * that directory as you keep any root key (offline, backed up); it is git-ignored.
 *
 *   npx tsx scripts/k8s-secrets.ts [--state-dir DIR] [--namespace NS] | kubectl apply -f -
 *
 * --state-dir   default .tradewind/k8s (relative to the repository)
 * --namespace   metadata.namespace of every Secret (default: none, kubectl's current namespace)
 * --development also `tradewind-local-stripe` (secret-key sk_test_local_…, webhook-secret whsec_local_…)
 *               for the local Stripe stand-in of a developer cluster (the Tiltfile passes it)
 *
 * Google and Stripe secrets are not generated: create them from your provider's values
 * (docs/kubernetes.md). Exit 1 with the reason on a bad argument or an unreadable state directory.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ensureNatsIdentities, generateSeedKey, renderNatsAuthConfig } from '@tradewind/credential-issuer';
import { ensureAccessTokenKeyFile } from './lib/access-token-key.js';

/** Secret names the chart's values.yaml uses by default (`secrets.*`). */
export const SECRET_NAMES = {
  natsIdentities: 'tradewind-nats-identities',
  natsAuth: 'tradewind-nats-auth',
  authSigningKey: 'tradewind-auth-signing-key',
  credentialsEncryptionKey: 'tradewind-credentials-encryption-key',
  /** Only with --development: the local Stripe stand-in's test key and webhook secret (values.yaml development.localStripeSecret). */
  localStripe: 'tradewind-local-stripe',
} as const;

/** A Secret as `stringData`: key → text. */
export interface GeneratedSecret {
  readonly name: string;
  readonly data: Readonly<Record<string, string>>;
}

/** Reads `file`, or writes `create()` to it first (mode 0600, never overwriting). */
function once(file: string, create: () => string): string {
  if (!existsSync(file)) {
    mkdirSync(join(file, '..'), { recursive: true, mode: 0o700 });
    writeFileSync(file, create(), { mode: 0o600, flag: 'wx' });
  }
  return readFileSync(file, 'utf8');
}

/**
 * The generated Secrets, creating their keys in `stateDir` on first use.
 * @throws Error when the state directory cannot be read or written.
 */
export async function generateSecrets(stateDir: string, options: { development?: boolean } = {}): Promise<GeneratedSecret[]> {
  const identities = await ensureNatsIdentities(stateDir);
  const jwtKeyFile = join(stateDir, 'auth', 'private-key.pem');
  ensureAccessTokenKeyFile(jwtKeyFile);
  const jwtKey = readFileSync(jwtKeyFile, 'utf8');
  const sealingKey = once(join(stateDir, 'credential-issuer', 'seed-encryption.key'), () => `${generateSeedKey()}\n`);
  return [
    {
      name: SECRET_NAMES.natsIdentities,
      data: {
        'identities.json': JSON.stringify(identities, null, 2),
        'service.creds': identities.service_user_creds,
        'sys.creds': identities.system_user_creds,
        'operator.jwt': identities.operator.jwt,
      },
    },
    { name: SECRET_NAMES.natsAuth, data: { 'auth.conf': renderNatsAuthConfig(identities) } },
    { name: SECRET_NAMES.authSigningKey, data: { 'private-key.pem': jwtKey } },
    { name: SECRET_NAMES.credentialsEncryptionKey, data: { key: sealingKey.trim() } },
    ...(options.development
      ? [
          {
            name: SECRET_NAMES.localStripe,
            data: {
              'secret-key': once(join(stateDir, 'local-stripe', 'secret-key'), () => `sk_test_local_${randomBytes(12).toString('hex')}`),
              'webhook-secret': once(join(stateDir, 'local-stripe', 'webhook-secret'), () => `whsec_local_${randomBytes(18).toString('hex')}`),
            },
          },
        ]
      : []),
  ];
}

/** YAML for `kubectl apply -f -`: one Secret (type Opaque, stringData) per document; values as block scalars. */
export function secretsYaml(secrets: readonly GeneratedSecret[], namespace?: string): string {
  return secrets
    .map((s) => {
      const lines = [
        'apiVersion: v1',
        'kind: Secret',
        'metadata:',
        `  name: ${s.name}`,
        ...(namespace ? [`  namespace: ${namespace}`] : []),
        '  labels:',
        '    app.kubernetes.io/part-of: tradewind',
        'type: Opaque',
        'stringData:',
      ];
      for (const [key, value] of Object.entries(s.data)) {
        const body = value.endsWith('\n') ? value : `${value}\n`;
        lines.push(`  ${JSON.stringify(key)}: |${value.endsWith('\n') ? '' : '-'}`);
        for (const line of body.slice(0, -1).split('\n')) lines.push(line === '' ? '' : `    ${line}`);
      }
      return `---\n${lines.join('\n')}\n`;
    })
    .join('');
}

function parseArgs(argv: readonly string[]): { stateDir: string; namespace?: string; development: boolean } {
  let stateDir = resolve(import.meta.dirname, '..', '.tradewind', 'k8s');
  let namespace: string | undefined;
  let development = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--development') {
      development = true;
      continue;
    }
    const value = argv[i + 1];
    if ((arg === '--state-dir' || arg === '--namespace') && (value === undefined || value.startsWith('--'))) throw new Error(`${arg} needs a value`);
    if (arg === '--state-dir') stateDir = resolve(value!);
    else if (arg === '--namespace') {
      if (!/^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/.test(value!)) throw new Error(`--namespace: "${value}" is not a Kubernetes namespace name`);
      namespace = value;
    } else throw new Error(`unknown argument ${arg} (use --state-dir DIR, --namespace NS, --development)`);
    i++;
  }
  return namespace ? { stateDir, namespace, development } : { stateDir, development };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  try {
    const { stateDir, namespace, development } = parseArgs(process.argv.slice(2));
    process.stdout.write(secretsYaml(await generateSecrets(stateDir, { development }), namespace));
    process.stderr.write(`Secrets from ${stateDir} (keep this directory safe: it holds the operator and sealing keys).\n`);
  } catch (err) {
    process.stderr.write(`k8s-secrets: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  }
}
