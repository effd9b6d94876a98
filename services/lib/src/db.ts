/**
 * PostgreSQL access through kysely + pg. Each service owns one schema (`auth`, `billing`, ...)
 * in a shared or separate database: the pool's `search_path` is that schema, so tables are
 * unqualified in queries, and migrations create the schema first.
 */
import { Kysely, Migrator, PostgresDialect, sql, type DatabaseConnection, type Driver, type Migration, type MigrationProvider } from 'kysely';
import pg from 'pg';
import { AppError } from '@tradewind/contracts';
import type { Logger } from './logger.js';

export { sql, type Kysely, type Migration, type Transaction, type Selectable, type Insertable, type Updateable, type Generated, type ColumnType } from 'kysely';

/** Options of {@link createDb}. */
export interface DbOptions {
  /** `postgres://user:pass@host:port/db`. */
  url: string;
  /** The service's schema; must be a lowercase identifier. */
  schema: string;
  /** Pool size (default 10). */
  maxConnections?: number;
  /** Statement timeout in ms (default 15 000); a query running longer fails instead of hanging. */
  statementTimeoutMs?: number;
}

const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

/** @throws AppError('invalid_argument') unless `schema` is a plain lowercase identifier (it goes into search_path unquoted). */
function assertSchemaName(schema: string): void {
  if (!SCHEMA_NAME.test(schema)) throw new AppError('invalid_argument', `schema "${schema}" must match ${SCHEMA_NAME}`);
}

/**
 * A kysely instance over a pg Pool whose connections use `search_path = <schema>, public`.
 * @throws AppError('invalid_argument') for a schema name that is not a plain lowercase identifier.
 */
export function createDb<DB>(options: DbOptions): Kysely<DB> {
  assertSchemaName(options.schema);
  const pool = new pg.Pool({
    connectionString: options.url,
    max: options.maxConnections ?? 10,
    options: `-c search_path=${options.schema},public -c statement_timeout=${options.statementTimeoutMs ?? 15_000}`,
    connectionTimeoutMillis: 10_000,
  });
  // An idle client losing its server (restart, failover) must not crash the process; the pool replaces it.
  pool.on('error', () => {});
  // pg-pool listens for errors only on idle clients: a checked-out client (a transaction waiting on
  // NATS, a query in flight) whose server goes away emits 'error' with no listener, which kills the
  // process. The query itself still fails (as AppError('unavailable'), below) and the pool drops the
  // broken client on release, so this listener only keeps the process alive.
  pool.on('connect', (client) => {
    client.on('error', () => {});
  });
  return new Kysely<DB>({ dialect: new UnavailablePostgresDialect({ pool }) });
}

/** SQLSTATEs and socket errors meaning "the server cannot be reached or is going away", not a bad query. */
const UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  '08000',
  '08001',
  '08003',
  '08004',
  '08006', // connection exceptions
  '57P01',
  '57P02',
  '57P03', // admin_shutdown, crash_shutdown, cannot_connect_now (starting up / shutting down)
  '53300', // too_many_connections
]);
const UNAVAILABLE_MESSAGES = /Connection terminated|timeout exceeded when trying to connect|not queryable|connection is closed|Connection closed/i;

/**
 * Whether `err` says PostgreSQL cannot be reached (stopped, restarting, network, pool exhausted
 * by connect timeouts) rather than that the query was wrong. Looks at `code` (SQLSTATE or socket
 * error code), the message, and an AggregateError's first error (pg's dual-stack connect).
 */
export function isDbUnavailable(err: unknown): boolean {
  if (typeof err !== 'object' || err === null) return false;
  const e = err as { code?: unknown; message?: unknown; errors?: unknown };
  if (typeof e.code === 'string' && UNAVAILABLE_CODES.has(e.code)) return true;
  if (typeof e.message === 'string' && UNAVAILABLE_MESSAGES.test(e.message)) return true;
  return Array.isArray(e.errors) && e.errors.length > 0 && isDbUnavailable(e.errors[0]);
}

/** `err` as AppError('unavailable') (HTTP 503, gRPC UNAVAILABLE) when it is a database outage; else `err` unchanged. */
export function asDbUnavailable(err: unknown): unknown {
  if (err instanceof AppError || !isDbUnavailable(err)) return err;
  return new AppError('unavailable', 'the database is unavailable right now; try again shortly', { cause: err });
}

/**
 * PostgresDialect whose failures to reach the server surface as AppError('unavailable'), so a
 * PostgreSQL outage is answered 503 with a clear body (never 500) by every service on createDb,
 * and retried by the outbox relay and event consumers like any other failure.
 */
class UnavailablePostgresDialect extends PostgresDialect {
  override createDriver(): Driver {
    const inner = super.createDriver();
    const patched = new WeakSet<DatabaseConnection>();
    const guard = (connection: DatabaseConnection): DatabaseConnection => {
      if (patched.has(connection)) return connection;
      patched.add(connection);
      const executeQuery = connection.executeQuery.bind(connection);
      connection.executeQuery = async (query) => {
        try {
          return await executeQuery(query);
        } catch (err) {
          throw asDbUnavailable(err);
        }
      };
      return connection;
    };
    const acquireConnection = async () => {
      try {
        return guard(await inner.acquireConnection());
      } catch (err) {
        throw asDbUnavailable(err);
      }
    };
    // Every other method (transactions, savepoints, release, destroy) is the inner driver's, bound to it.
    return new Proxy(inner, {
      get(target, prop) {
        if (prop === 'acquireConnection') return acquireConnection;
        const value: unknown = Reflect.get(target, prop, target);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
  }
}

/** Migrations by name; names sort in the order they run (`0001_users`, `0002_sessions`, ...). */
export type Migrations = Record<string, Migration>;

/**
 * Creates the schema if needed and applies pending `migrations` in name order, recording them in
 * `<schema>.kysely_migration`. Safe with several replicas starting at once (kysely takes an
 * advisory lock).
 * @returns names of the migrations applied by this call.
 * @throws AppError('unavailable') wrapping the first failing migration's error.
 */
export async function migrate(db: Kysely<any>, schema: string, migrations: Migrations, logger?: Logger): Promise<string[]> {
  assertSchemaName(schema);
  await sql`CREATE SCHEMA IF NOT EXISTS ${sql.id(schema)}`.execute(db);
  const provider: MigrationProvider = { getMigrations: async () => migrations };
  const migrator = new Migrator({ db, provider, migrationTableSchema: schema });
  const { error, results } = await migrator.migrateToLatest();
  const applied = (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
  for (const name of applied) logger?.info({ migration: name, schema }, 'migration applied');
  if (error) {
    const failed = results?.find((r) => r.status === 'Error')?.migrationName ?? 'unknown';
    throw new AppError('unavailable', `migration ${schema}/${failed} failed: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
  return applied;
}

/** Readiness probe: true when `SELECT 1` answers within the pool's timeouts. */
export async function pingDb(db: Kysely<any>): Promise<boolean> {
  try {
    await sql`SELECT 1`.execute(db);
    return true;
  } catch {
    return false;
  }
}
