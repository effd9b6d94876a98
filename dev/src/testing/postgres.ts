/**
 * An isolated PostgreSQL database per test file on the machine's real server
 * (TEST_DATABASE_URL, default postgres://postgres@127.0.0.1:5432/test), so files run in parallel.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';

/** A scratch database; `drop()` removes it (terminating leftover connections). */
export interface TestDatabase {
  /** Connection URL of the new database. */
  url: string;
  name: string;
  drop(): Promise<void>;
}

/** The server tests use; override with TEST_DATABASE_URL. */
export const DEFAULT_TEST_DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/test';

/**
 * Creates `tw_<label>_<random>` on the test server.
 * @param label short lowercase name of the test file (letters, digits, underscore).
 * @throws the pg error when the server is unreachable.
 */
export async function createTestDatabase(label: string): Promise<TestDatabase> {
  const adminUrl = process.env.TEST_DATABASE_URL ?? DEFAULT_TEST_DATABASE_URL;
  const name = `tw_${label.replace(/[^a-z0-9_]/gi, '_').toLowerCase()}_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE "${name}"`);
  } finally {
    await admin.end();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    name,
    async drop() {
      const client = new pg.Client({ connectionString: adminUrl });
      await client.connect();
      try {
        await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      } finally {
        await client.end();
      }
    },
  };
}
