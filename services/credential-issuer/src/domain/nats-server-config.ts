/**
 * Renders the nats-server configuration from `deploy/nats/nats-server.conf.tmpl`
 * with the operator, the system account and every account JWT preloaded.
 */
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { operatorAccounts, type NatsIdentities } from './identities.js';

/** Path of the config template in the repository. */
export const NATS_CONFIG_TEMPLATE = fileURLToPath(new URL('../../../../deploy/nats/nats-server.conf.tmpl', import.meta.url));

/** Where and how the rendered server listens. Ports per ARCHITECTURE §4: 4223 clients, 8223 monitoring. */
export interface NatsServerSettings {
  serverName: string;
  host: string;
  port: number;
  monitorPort: number;
  jetstreamDir: string;
  resolverDir: string;
  /** JetStream file store cap, nats-server size syntax (e.g. `10GB`). */
  maxFileStore: string;
}

/** Returns the nats-server.conf text. */
export async function renderNatsServerConfig(identities: NatsIdentities, settings: NatsServerSettings): Promise<string> {
  const template = await readFile(NATS_CONFIG_TEMPLATE, 'utf8');
  const preload = operatorAccounts(identities).map((a) => `  ${a.identity.public_key}: ${a.jwt}`).join('\n');
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
  };
  return template.replace(/\$\{([A-Z_]+)\}/g, (_, key: string) => {
    const value = values[key];
    if (value === undefined) throw new Error(`nats config template: unknown placeholder ${key}`);
    return value;
  });
}
