/**
 * Renders the nats-server configuration from `deploy/nats/nats-server.conf.tmpl`
 * with the operator, the system account and every account JWT preloaded.
 */
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { operatorAccounts, type NatsIdentities } from './identities.js';

/** Path of the config template in the repository. */
export const NATS_CONFIG_TEMPLATE = fileURLToPath(new URL('../../../../deploy/nats/nats-server.conf.tmpl', import.meta.url));

/** Where and how the rendered server listens. Ports per docs/architecture.md §4: 4223 clients, 8223 monitoring. */
export interface NatsServerSettings {
  serverName: string;
  host: string;
  port: number;
  monitorPort: number;
  jetstreamDir: string;
  resolverDir: string;
  /** JetStream file store cap, nats-server size syntax (e.g. `10GB`). */
  maxFileStore: string;
  /**
   * Makes this server one node of a cluster: its route port and every node's route URL
   * (`nats-route://host:port`, its own included, which nats-server ignores). Omitted: a single server.
   * Config syntax: https://docs.nats.io/running-a-nats-service/configuration/clustering/cluster_config
   */
  cluster?: { name: string; host: string; port: number; routes: readonly string[] };
}

/** Returns the nats-server.conf text. */
export async function renderNatsServerConfig(identities: NatsIdentities, settings: NatsServerSettings): Promise<string> {
  const template = await readFile(NATS_CONFIG_TEMPLATE, 'utf8');
  const preload = operatorAccounts(identities)
    .map((a) => `  ${a.identity.public_key}: ${a.jwt}`)
    .join('\n');
  const values: Record<string, string> = {
    SERVER_NAME: settings.serverName,
    HOST: settings.host,
    PORT: String(settings.port),
    MONITOR_PORT: String(settings.monitorPort),
    OPERATOR_JWT: identities.operator.jwt,
    SYSTEM_ACCOUNT: identities.system.identity.public_key,
    JETSTREAM_DIR: settings.jetstreamDir,
    RESOLVER_DIR: settings.resolverDir,
    MAX_FILE_STORE: settings.maxFileStore,
    PRELOAD: preload,
    CLUSTER: settings.cluster
      ? `cluster {\n  name: ${settings.cluster.name}\n  listen: ${settings.cluster.host}:${settings.cluster.port}\n  routes: [${settings.cluster.routes.join(', ')}]\n}`
      : '',
  };
  return template.replace(/\$\{([A-Z_]+)\}/g, (_, key: string) => {
    const value = values[key];
    if (value === undefined) throw new Error(`nats config template: unknown placeholder ${key}`);
    return value;
  });
}

/**
 * The operator-mode part of a nats-server configuration, for a server whose other settings come
 * from elsewhere (the NATS Helm chart includes it with `$include`): `operator` (the operator JWT),
 * `system_account` (SYS's public key) and `resolver_preload` with every operator-owned account JWT
 * (SYS, TRADEWIND, REPLAY, the per-plan accounts). Public JWTs only: no seed is written.
 * Config syntax: https://docs.nats.io/running-a-nats-service/configuration/securing_nats/auth_intro/jwt/resolver
 */
export function renderNatsAuthConfig(identities: NatsIdentities): string {
  const preload = operatorAccounts(identities)
    .map((a) => `  ${a.identity.public_key}: ${a.jwt}`)
    .join('\n');
  return [
    '# Tradewind operator-mode identities (scripts/k8s-secrets.ts). Public JWTs only.',
    `operator: ${identities.operator.jwt}`,
    `system_account: ${identities.system.identity.public_key}`,
    'resolver_preload: {',
    preload,
    '}',
    '',
  ].join('\n');
}
