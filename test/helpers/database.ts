/** Fresh databases for tests: in-memory PGlite always, and a new PostgreSQL database per suite when TEST_DATABASE_URL is set. */
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { SQL } from 'drizzle-orm';
import pg from 'pg';
import { type Database, type DatabaseOptions, openDatabase } from '../../src/db/client.js';
import { writePgliteImage } from '../../src/db/make-pglite-image.js';

export type DatabaseKind = 'pglite' | 'postgres';

/** Every kind the suite runs on: PGlite, plus PostgreSQL when TEST_DATABASE_URL is set (CI sets it and fails if it is unreachable). */
export function databaseKinds(): DatabaseKind[] {
  return process.env.TEST_DATABASE_URL ? ['pglite', 'postgres'] : ['pglite'];
}

/**
 * The database the browser tests serve the dashboard from: PostgreSQL, the production one, when TEST_DATABASE_URL is set
 * (as in CI), else PGlite. One, not both: the dashboard reaches the database only through the API, whose every route
 * the rest of the suite runs on both, and the browser files were a third of the suite's time run twice (README, "Tests").
 */
export function dashboardDatabaseKinds(): DatabaseKind[] {
  return [process.env.TEST_DATABASE_URL ? 'postgres' : 'pglite'];
}

export interface TestDatabase extends Database {
  /** The PostgreSQL URL of this database, or null for PGlite. */
  readonly url: string | null;
}

/** A new, migrated, empty database; closing it also drops it. */
export async function createTestDatabase(kind: DatabaseKind, options: DatabaseOptions = {}): Promise<TestDatabase> {
  if (kind === 'pglite') {
    const database = await openDatabase({ kind: 'pglite', dataDir: null, image: await pgliteImage() }, options);
    // Applies nothing on a copy of the migrated image, and proves the image is current.
    await database.migrate();
    return { ...database, url: null };
  }
  const { url, drop } = await createPostgresDatabase();
  const database = await openDatabase({ kind: 'postgres', url }, options);
  await database.migrate();
  return {
    ...database,
    url,
    close: async () => {
      await database.close();
      await drop();
    },
  };
}

let image: Promise<Blob> | null = null;

/**
 * A migrated, empty PGlite database with pg-boss's schema installed, as a data directory to start each test database
 * from: PGlite's initdb, the migrations and pg-boss's install cost 3 s of CPU per database otherwise, most of the
 * suite's time on PGlite. It is the image a first start loads (src/db/pglite-image.ts), made by the build (npm ci) or
 * else by the first test process to need it, under a name that changes with the migrations and with PGlite's and
 * pg-boss's versions.
 */
function pgliteImage(): Promise<Blob> {
  image ??= writePgliteImage().then(async ({ file }) => new Blob([await readFile(file)]));
  return image;
}

/** An empty PostgreSQL database beside TEST_DATABASE_URL's, and how to drop it. */
export async function createPostgresDatabase(): Promise<{ url: string; drop: () => Promise<void> }> {
  const adminUrl = process.env.TEST_DATABASE_URL;
  if (!adminUrl) throw new Error('TEST_DATABASE_URL is not set');
  return createDatabaseOn(adminUrl, `storelink_test_${randomBytes(6).toString('hex')}`);
}

/** Creates database `name` on the server of `serverUrl`; returns its URL and how to drop it (connections closed by force). */
export async function createDatabaseOn(serverUrl: string, name: string): Promise<{ url: string; drop: () => Promise<void> }> {
  await asAdmin(serverUrl, `create database ${name}`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => asAdmin(serverUrl, `drop database if exists ${name} with (force)`) };
}

async function asAdmin(serverUrl: string, statement: string): Promise<void> {
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    await admin.query(statement);
  } finally {
    await admin.end();
  }
}

/** The rows of a raw SQL query, on either driver (both answer `{ rows }`). */
export async function selectRows<T = Record<string, unknown>>(database: Database, query: SQL): Promise<T[]> {
  const result = (await database.db.execute(query)) as unknown as { rows: T[] };
  return result.rows;
}
