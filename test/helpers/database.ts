/** Fresh databases for tests: in-memory PGlite always, and a new PostgreSQL database per suite when TEST_DATABASE_URL is set. */
import { createHash, randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { type SQL, sql } from 'drizzle-orm';
import pg from 'pg';
import { getConstructionPlans } from 'pg-boss';
import { type Database, type DatabaseOptions, MIGRATIONS, openDatabase } from '../../src/db/client.js';
import { writePgliteImage } from '../../src/db/make-pglite-image.js';
import { pgliteImageKey } from '../../src/db/pglite-image.js';

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
  const { url, drop } = await copyOfPostgresTemplate();
  const database = await openDatabase({ kind: 'postgres', url }, options);
  // Applies nothing on a copy of the migrated template, and proves the template is current.
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

/** A new PostgreSQL database beside TEST_DATABASE_URL's, empty or a copy of `template`, and how to drop it. */
export async function createPostgresDatabase(template?: string): Promise<{ url: string; drop: () => Promise<void> }> {
  return createDatabaseOn(adminUrl(), `storelink_test_${randomBytes(6).toString('hex')}`, template);
}

function adminUrl(): string {
  const url = process.env.TEST_DATABASE_URL;
  if (!url) throw new Error('TEST_DATABASE_URL is not set');
  return url;
}

let template: Promise<string> | null = null;

/** Names of templates: `storelink_template_<key>`, and `…_<key>_<random>` while one is being made. */
const TEMPLATE_PREFIX = 'storelink_template_';

/**
 * A copy of the migrated template (postgresTemplate). If the template is gone, dropped by the suite of another revision
 * on the same server as it made its own, it is made again, once.
 */
async function copyOfPostgresTemplate(): Promise<{ url: string; drop: () => Promise<void> }> {
  try {
    return await createPostgresDatabase(await postgresTemplate());
  } catch (error) {
    // invalid_catalog_name: `template database "…" does not exist`.
    if ((error as { code?: string }).code !== '3D000') throw error;
    template = null;
    return createPostgresDatabase(await postgresTemplate());
  }
}

/**
 * A migrated PostgreSQL database with pg-boss's schema installed, for each PostgreSQL test database to start as a copy
 * of, as each PGlite one starts from the image: a test app made on a copy and closed took 0.54 and 0.68 s of the
 * machine's CPU, against 0.75 and 0.91 s with the migrations and pg-boss's install run on an empty database (two rounds
 * of eight, interleaved). Made by the first test process to need it, under a key of the migrations (the PGlite
 * image's) and of the plan of pg-boss's install, and kept on the server for the next runs; the templates of other keys
 * are dropped when one is made.
 */
function postgresTemplate(): Promise<string> {
  template ??= makePostgresTemplate(adminUrl()).catch((error) => {
    template = null;
    throw error;
  });
  return template;
}

/**
 * Makes the template under a name of its own and renames it when complete, so that no copy is taken of half of one; a
 * process that loses the race to rename drops its own and takes the winner's.
 */
async function makePostgresTemplate(serverUrl: string): Promise<string> {
  const installPgBoss = getConstructionPlans();
  const key = createHash('sha256')
    .update(await pgliteImageKey(MIGRATIONS))
    .update(installPgBoss)
    .digest('hex')
    .slice(0, 16);
  const name = `${TEMPLATE_PREFIX}${key}`;
  const others = await adminRows(serverUrl, `select datname from pg_database where datname ~ '^${TEMPLATE_PREFIX}[0-9a-f]{16}$'`);
  if (others.includes(name)) return name;
  const partial = `${name}_${randomBytes(4).toString('hex')}`;
  const { url, drop } = await createDatabaseOn(serverUrl, partial);
  try {
    const database = await openDatabase({ kind: 'postgres', url });
    try {
      await database.migrate();
      // pg-boss's install as its published plan writes it, as a first start would, and not a start: one leaves its
      // timekeeping stamped (cron_on), and an app's first pass on a copy would take the time since as missed schedules.
      await database.db.execute(sql.raw(installPgBoss));
    } finally {
      await database.close();
    }
    // A connection just closed may still be ending on the server, and a database cannot be renamed while one is open.
    await retryWhileInUse(() => asAdmin(serverUrl, `alter database ${partial} rename to ${name}`));
  } catch (error) {
    await drop();
    if (!(await adminRows(serverUrl, `select datname from pg_database where datname = '${name}'`)).length) throw error;
    return name;
  }
  for (const other of others) await asAdmin(serverUrl, `drop database if exists ${other} with (force)`);
  return name;
}

/** Runs `step` again while PostgreSQL answers object_in_use (55006), for up to 5 s. */
async function retryWhileInUse(step: () => Promise<void>): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await step();
    } catch (error) {
      if ((error as { code?: string }).code !== '55006' || attempt === 50) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

/** The first column of each row `query` answers on the server's own database. */
async function adminRows(serverUrl: string, query: string): Promise<string[]> {
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    return (await admin.query({ text: query, rowMode: 'array' })).rows.map((row: unknown[]) => String(row[0]));
  } finally {
    await admin.end();
  }
}

/**
 * Creates database `name` on the server of `serverUrl`, empty or a copy of `template`; returns its URL and how to drop
 * it (connections closed by force).
 */
export async function createDatabaseOn(
  serverUrl: string,
  name: string,
  template?: string,
): Promise<{ url: string; drop: () => Promise<void> }> {
  await asAdmin(serverUrl, `create database ${name}${template ? ` template ${template}` : ''}`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => asAdmin(serverUrl, `drop database if exists ${name} with (force)`) };
}

async function asAdmin(serverUrl: string, statement: string): Promise<void> {
  await adminRows(serverUrl, statement);
}

/** The rows of a raw SQL query, on either driver (both answer `{ rows }`). */
export async function selectRows<T = Record<string, unknown>>(database: Database, query: SQL): Promise<T[]> {
  const result = (await database.db.execute(query)) as unknown as { rows: T[] };
  return result.rows;
}
