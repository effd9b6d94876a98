/** credential-issuer composition root: config → logger → metrics → connections → createApp → start → shutdown hooks. */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import {
  connectNats,
  createDb,
  createLogger,
  createRegistry,
  DEFAULT_EVENTS_STREAM,
  ensureEventsStreams,
  pingDb,
  runMain,
  serve,
  type Logger,
} from '@tradewind/lib';
import { loadCredentialIssuerConfig, type CredentialIssuerConfig } from './config.js';
import { loadNatsIdentities } from './domain/identities.js';
import { createSeedCipher, generateSeedKey, parseSeedKey } from './domain/seed-cipher.js';
import { CREDENTIAL_ISSUER_SCHEMA } from './db/migrations.js';
import type { CredentialIssuerDatabase } from './db/schema.js';
import { createApp } from './app.js';

/**
 * The seed encryption key: CREDENTIALS_ENCRYPTION_KEY, the file CREDENTIALS_ENCRYPTION_KEY_FILE,
 * or (outside production only) `<state dir>/credential-issuer/seed-encryption.key`, created once.
 */
async function seedKey(config: CredentialIssuerConfig, logger: Logger): Promise<Buffer> {
  if (config.CREDENTIALS_ENCRYPTION_KEY) return parseSeedKey(config.CREDENTIALS_ENCRYPTION_KEY);
  if (config.CREDENTIALS_ENCRYPTION_KEY_FILE) return parseSeedKey(await readFile(config.CREDENTIALS_ENCRYPTION_KEY_FILE, 'utf8'));
  const dir = join(config.TRADEWIND_STATE_DIR, 'credential-issuer');
  const file = join(dir, 'seed-encryption.key');
  try {
    return parseSeedKey(await readFile(file, 'utf8'));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  await mkdir(dir, { recursive: true, mode: 0o700 });
  await writeFile(file, `${generateSeedKey()}\n`, { mode: 0o600, flag: 'wx' }).catch((err: NodeJS.ErrnoException) => {
    if (err.code !== 'EEXIST') throw err;
  });
  logger.warn({ file }, 'no CREDENTIALS_ENCRYPTION_KEY: sealing seeds with a key generated for this machine (local development only)');
  return parseSeedKey(await readFile(file, 'utf8'));
}

runMain(async () => {
  const config = loadCredentialIssuerConfig();
  const logger = createLogger({ service: 'credential-issuer', level: config.LOG_LEVEL });
  const registry = createRegistry('credential-issuer');
  const identities = await loadNatsIdentities(config.TRADEWIND_STATE_DIR);
  const cipher = createSeedCipher(await seedKey(config, logger));
  const db = createDb<CredentialIssuerDatabase>({ url: config.DATABASE_URL, schema: CREDENTIAL_ISSUER_SCHEMA, maxConnections: config.DATABASE_POOL_SIZE });
  const nc = await connectNats({ url: config.NATS_URL, creds: identities.service_user_creds, name: 'credential-issuer', logger });
  const sysNc = await connectNats({ url: config.NATS_URL, creds: identities.system_user_creds, name: 'credential-issuer-sys', logger });
  const replayNc = await connectNats({ url: config.NATS_URL, creds: identities.replay_user_creds, name: 'credential-issuer-replay', logger });
  const jsm = await jetstreamManager(nc);
  await ensureEventsStreams(jsm, { ...DEFAULT_EVENTS_STREAM, replicas: config.NATS_STREAM_REPLICAS });
  const replayJsm = await jetstreamManager(replayNc);
  const app = createApp(config, { db, logger, registry, identities, cipher, js: jetstream(nc), jsm, sysNc, replayJsm });
  let httpPort = 0;
  const adminPort = await serve({
    logger,
    registry,
    adminPort: config.ADMIN_PORT,
    shutdown: config,
    app: {
      start: async () => {
        httpPort = (await app.start()).httpPort;
      },
      stop: () => app.stop(),
    },
    checks: [
      { name: 'nats', check: () => !nc.isClosed() && !sysNc.isClosed() && !replayNc.isClosed() },
      { name: 'postgres', check: () => pingDb(db) },
    ],
    close: [() => nc.drain(), () => sysNc.drain(), () => replayNc.drain(), () => db.destroy()],
  });
  logger.info({ http_port: httpPort, admin_port: adminPort }, 'credential-issuer ready');
});
