/**
 * PostgreSQL access through kysely + pg. Each service owns one schema (`auth`, `billing`, ...)
 * in a shared or separate database: the pool's `search_path` is that schema, so tables are
 * unqualified in queries, and migrations create the schema first.
 */
import { Kysely, Migrator, PostgresDialect, sql, type Migration, type MigrationProvider } from 'kysely';
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
  return new Kysely<DB>({ dialect: new PostgresDialect({ pool }) });
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
