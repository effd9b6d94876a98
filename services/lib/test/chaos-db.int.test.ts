/**
 * createDb under a PostgreSQL outage (issue 24, chaos run scripts/reliability/chaos/edge.ts):
 * a connection killed by the server while checked out must not kill the process, and a server
 * that cannot be reached surfaces as AppError('unavailable') (HTTP 503), not as an internal error.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { AppError } from '@tradewind/contracts';
import { createTestDatabase, freePort, type TestDatabase } from '@tradewind/dev';
import { createDb, isDbUnavailable, sql, type Kysely } from '../src/db.js';

let database: TestDatabase;
let db: Kysely<Record<string, never>>;

beforeAll(async () => {
  database = await createTestDatabase('chaos_db');
  db = createDb<Record<string, never>>({ url: database.url, schema: 'chaos' });
  await sql`CREATE SCHEMA IF NOT EXISTS chaos`.execute(db);
});

afterAll(async () => {
  await db?.destroy();
  await database?.drop();
});

/** Resolves on the next uncaught exception (the pg 'error' event nobody listens to), or undefined after `ms`. */
function uncaughtWithin(ms: number): Promise<Error | undefined> {
  return new Promise((resolve) => {
    const onError = (err: Error) => {
      clearTimeout(timer);
      process.off('uncaughtException', onError);
      resolve(err);
    };
    const timer = setTimeout(() => {
      process.off('uncaughtException', onError);
      resolve(undefined);
    }, ms);
    process.prependListener('uncaughtException', onError);
  });
}

describe('createDb when PostgreSQL goes away', () => {
  it('when the server terminates a connection checked out by a transaction, then the process survives, the transaction fails as unavailable and the next query works', async () => {
    const admin = new pg.Client({ connectionString: database.url });
    await admin.connect();
    try {
      const uncaught = uncaughtWithin(1500);
      const outcome = db
        .transaction()
        .execute(async (trx) => {
          const { rows } = await sql<{ pid: number }>`SELECT pg_backend_pid() AS pid`.execute(trx);
          // The server ends this backend while the transaction holds it between two queries (as at a restart).
          await admin.query('SELECT pg_terminate_backend($1)', [rows[0]!.pid]);
          await new Promise((r) => setTimeout(r, 300));
          await sql`SELECT 1`.execute(trx);
        })
        .then(
          () => undefined,
          (err: unknown) => err,
        );
      const err = await outcome;
      expect(await uncaught).toBeUndefined();
      expect(err).toBeInstanceOf(AppError);
      expect((err as AppError).code).toBe('unavailable');
      const { rows } = await sql<{ one: number }>`SELECT 1 AS one`.execute(db);
      expect(rows[0]?.one).toBe(1);
    } finally {
      await admin.end();
    }
  });

  it('when nothing listens at the database address, then a query fails at once with AppError unavailable', async () => {
    const url = new URL(database.url);
    url.port = String(await freePort());
    const down = createDb<Record<string, never>>({ url: url.toString(), schema: 'chaos' });
    try {
      const started = Date.now();
      const err = await sql`SELECT 1`.execute(down).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(AppError);
      expect((err as AppError).code).toBe('unavailable');
      expect((err as AppError).message).toMatch(/database is unavailable/);
      expect(Date.now() - started).toBeLessThan(5000);
    } finally {
      await down.destroy();
    }
  });

  it('when a query is wrong, then its error is not taken for an outage', async () => {
    const err = await sql`SELECT * FROM no_such_table_here`.execute(db).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeDefined();
    expect(err).not.toBeInstanceOf(AppError);
    expect(isDbUnavailable(err)).toBe(false);
    expect(isDbUnavailable({ code: '57P01', message: 'terminating connection due to administrator command' })).toBe(true);
    expect(isDbUnavailable(Object.assign(new AggregateError([Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' })]), {}))).toBe(true);
  });
});
