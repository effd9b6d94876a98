/** credential-issuer composition root: config → logger → metrics → startService (connections, streams, createApp, start, shutdown hooks). */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { createClient } from 'redis';
import {
  connectNats,
  createDb,
  createLogger,
  createRegistry,
  DEFAULT_EVENTS_STREAM,
  ensureEventsStreams,
  pingDb,
  runMain,
  startService,
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
  const { adminPort, started } = await startService({
    logger,
    registry,
    adminPort: config.ADMIN_PORT,
    shutdown: config,
    startupDeadlineMs: config.STARTUP_DEADLINE_MS,
    setup: async (startup) => {
      const db = createDb<CredentialIssuerDatabase>({ url: config.DATABASE_URL, schema: CREDENTIAL_ISSUER_SCHEMA, maxConnections: config.DATABASE_POOL_SIZE });
      const nc = await connectNats({ url: config.NATS_URL, creds: identities.service_user_creds, name: 'credential-issuer', logger });
      startup.onClose(() => nc.drain());
      const sysNc = await connectNats({ url: config.NATS_URL, creds: identities.system_user_creds, name: 'credential-issuer-sys', logger });
      startup.onClose(() => sysNc.drain());
      const replayNc = await connectNats({ url: config.NATS_URL, creds: identities.replay_user_creds, name: 'credential-issuer-replay', logger });
      startup.onClose(() => replayNc.drain());
      startup.onClose(() => db.destroy());
      const jsm = await startup.step('JetStream API', () => jetstreamManager(nc));
      await ensureEventsStreams(jsm, { ...DEFAULT_EVENTS_STREAM, replicas: config.NATS_STREAM_REPLICAS });
      const replayJsm = await startup.step('JetStream API of REPLAY', () => jetstreamManager(replayNc));
      // Only GET /api/usage's in-use figures read Redis: no offline queue (a read while it is down fails at once and
      // the figure is null), not awaited (the service starts and stays ready without it; node-redis reconnects).
      const redis = createClient({ url: config.REDIS_URL, disableOfflineQueue: true });
      redis.on('error', (err) => logger.warn({ err }, 'redis error'));
      void redis.connect().catch((err: unknown) => logger.warn({ err }, 'redis not reachable; usage in-use figures are null until it is'));
      startup.onClose(async () => {
        if (redis.isOpen) await redis.quit();
      });
      return {
        // start() creates the REPLAY mirror of TRADES (ensureReplayMirror) and the EVENTS consumer: start-up steps too.
        app: createApp(config, { db, logger, registry, identities, cipher, js: jetstream(nc), jsm, sysNc, replayJsm, redis }),
        checks: [
          { name: 'nats', check: () => !nc.isClosed() && !sysNc.isClosed() && !replayNc.isClosed() },
          { name: 'postgres', check: () => pingDb(db) },
        ],
      };
    },
  });
  logger.info({ http_port: started.httpPort, admin_port: adminPort }, 'credential-issuer ready');
});
