/** Fresh databases for tests: in-memory PGlite always, and a new PostgreSQL database per suite when TEST_DATABASE_URL is set. */
import { createHash, randomBytes } from 'node:crypto';
import { readdir, readFile, rename, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { PGlite } from '@electric-sql/pglite';
import type { SQL } from 'drizzle-orm';
import pg from 'pg';
import { type Database, type DatabaseOptions, MIGRATIONS, openDatabase } from '../../src/db/client.js';
import { createJobs } from '../../src/lib/jobs.js';

export type DatabaseKind = 'pglite' | 'postgres';

/** Every kind the suite runs on: PGlite, plus PostgreSQL when TEST_DATABASE_URL is set (CI sets it and fails if it is unreachable). */
export function databaseKinds(): DatabaseKind[] {
  return process.env.TEST_DATABASE_URL ? ['pglite', 'postgres'] : ['pglite'];
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
 * suite's time on PGlite. The first test process to need it writes it to the temporary directory, under a name that
 * changes with the migrations and with PGlite's and pg-boss's versions; the others read it.
 */
function pgliteImage(): Promise<Blob> {
  image ??= (async () => {
    const file = join(tmpdir(), `storelink-pglite-image-${await imageKey()}.tar`);
    const stored = await readFile(file).catch(() => null);
    if (stored) return new Blob([stored]);
    const made = await makePgliteImage();
    // Written aside and renamed: a process reading at the same time sees the whole file or none.
    const partial = `${file}.${process.pid}`;
    await writeFile(partial, Buffer.from(await made.arrayBuffer()));
    await rename(partial, file);
    return made;
  })();
  return image;
}

async function makePgliteImage(): Promise<Blob> {
  const database = await openDatabase({ kind: 'pglite', dataDir: null });
  try {
    await database.migrate();
    const jobs = createJobs({ connection: database.jobsConnection, soleProcess: database.kind === 'pglite', onError: () => {} });
    await jobs.start();
    await jobs.stop(1_000);
    // Drizzle's documented handle on the driver's client; the Database interface has no use for a dump elsewhere.
    return await (database.db as unknown as { $client: PGlite }).$client.dumpDataDir('none');
  } finally {
    await database.close();
  }
}

/** What the image depends on: every migration file, and the installed PGlite and pg-boss. */
async function imageKey(): Promise<string> {
  const hash = createHash('sha256');
  for (const name of (await readdir(MIGRATIONS, { recursive: true })).sort()) {
    if (name.endsWith('.sql') || name.endsWith('.json')) hash.update(name).update(await readFile(join(MIGRATIONS, name)));
  }
  for (const name of ['@electric-sql/pglite', 'pg-boss']) {
    hash.update(await readFile(fileURLToPath(new URL('../package.json', import.meta.resolve(name)))));
  }
  return hash.digest('hex').slice(0, 16);
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
