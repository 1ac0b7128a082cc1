/** The embedded database: PGlite in this process, with pg-boss's adapter on the same instance. */
import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, renameSync, rmdirSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { PGlite, type PGliteOptions } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import { fromPglite } from 'pg-boss';
import { lockDataDir } from './data-dir-lock.js';
import { type Database, type DatabaseTarget, type Db, type QueryLogger, STORAGE_PROBE, withoutTypeHints } from './database.js';
import { madePgliteImage, PGLITE_SETTINGS, readPgliteImage, remakePgliteImageDirectory } from './pglite-image.js';
import * as schema from './schema.js';
import { createStorageHealth } from './storage-health.js';

/**
 * The contrib modules the migrations create (pg_trgm: migration 0022, the product search's index). PGlite loads an
 * extension's files only when given it here, so every PGlite opened on Storelink's schema must be given these.
 */
const PGLITE_EXTENSIONS = { pg_trgm } satisfies PGliteOptions['extensions'];
/**
 * How every PGlite on Storelink's schema is opened: its extensions, and PGLITE_SETTINGS (its memory) on its command
 * line, which PostgreSQL puts above its configuration files, so a directory made before a setting changed gets it too.
 * Spread into each `new PGlite`, never passed itself: PGlite may write to the options object it is given.
 */
export const PGLITE_OPTIONS = {
  extensions: PGLITE_EXTENSIONS,
  startParams: [...PGlite.defaultStartParams, ...Object.entries(PGLITE_SETTINGS).flatMap(([name, value]) => ['-c', `${name}=${value}`])],
} satisfies PGliteOptions;

/** Opens PGlite in `dataDir` (in memory when null) after taking the directory's lock; close() releases it. */
export async function openPglite(
  { dataDir, image }: Extract<DatabaseTarget, { kind: 'pglite' }>,
  logger: QueryLogger,
  migrationsFolder: string,
  options: { warn?: (message: string) => void } = {},
): Promise<Database> {
  const lock = dataDir ? lockDataDir(dataDir, options) : null;
  let client: PGlite;
  try {
    if (dataDir && image) throw new Error('an image is for an in-memory database only');
    client = dataDir
      ? await openDataDir(dataDir, migrationsFolder)
      : new PGlite({ ...PGLITE_OPTIONS, ...(image ? { loadDataDir: image } : {}) });
    await client.waitReady;
  } catch (error) {
    lock?.release();
    throw error;
  }
  const storage = createStorageHealth(() => probeWrite(client));
  observeFailures(client, storage.observe);
  const db = withoutTypeHints(drizzlePglite({ client, schema, logger }));
  return {
    kind: 'pglite',
    db: db as unknown as Db,
    migrate: () => migratePglite(db, { migrationsFolder }),
    ping: async () => void (await client.query('select 1')),
    storage,
    // One process owns an embedded database, so the listener is never disconnected.
    subscribe: async (channel, handlers) => {
      const unlisten = await client.listen(channel, handlers.notify);
      handlers.up();
      // Closing the database ends every listener; unlistening after that would throw.
      return async () => void (client.closed || (await unlisten()));
    },
    jobsConnection: { db: fromPglite(client), backend: 'pglite' },
    close: async () => {
      try {
        await client.close();
      } finally {
        lock?.release();
      }
    },
  };
}

/** Lets `observe` see the error of every statement that fails, whoever sent it (Drizzle, a transaction, pg-boss). */
function observeFailures(client: PGlite, observe: (error: unknown) => void): void {
  for (const method of ['query', 'exec', 'transaction'] as const) {
    const original = client[method].bind(client) as (...args: unknown[]) => Promise<unknown>;
    Object.assign(client, {
      [method]: (...args: unknown[]) =>
        original(...args).catch((error: unknown) => {
          observe(error);
          throw error;
        }),
    });
  }
}

/** A row in a new relation, rolled back: the smallest write that needs new space on disk, as a row in a full table would. */
async function probeWrite(client: PGlite): Promise<void> {
  await client.transaction(async (tx) => {
    await tx.exec(STORAGE_PROBE);
    await tx.rollback();
  });
}

/**
 * PGlite in `dataDir`: a new directory is made from the image made for these migrations when there is one (a start in
 * a second or two: the image's data directory taken, or its tarball loaded), else made by initdb
 * (preparePgliteDataDir) and migrated by the caller.
 */
async function openDataDir(dataDir: string, migrationsFolder: string): Promise<PGlite> {
  if (!existsSync(join(dataDir, 'PG_VERSION'))) {
    const image = await madePgliteImage(migrationsFolder);
    if (image?.directory && takeImage(image.directory, dataDir)) {
      remakePgliteImageDirectory(image.key);
      return new PGlite(dataDir, { ...PGLITE_OPTIONS });
    }
    if (image) {
      mkdirSync(dataDir, { recursive: true });
      return new PGlite(dataDir, { ...PGLITE_OPTIONS, loadDataDir: await readPgliteImage(image.tarball) });
    }
  }
  await preparePgliteDataDir(dataDir);
  return new PGlite(dataDir, { ...PGLITE_OPTIONS });
}

/**
 * Moves the image's data directory into `dataDir` (which holds the lock already); false when another start took it
 * first. Claimed whole by one rename, so two starts never share it; PG_VERSION goes last, so a move cut short is not
 * taken for a database at the next start but made again. On another file system it is copied.
 */
function takeImage(image: string, dataDir: string): boolean {
  const taken = join(dataDir, `.image-${process.pid}`);
  try {
    renameSync(image, taken);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EXDEV') return false;
    for (const entry of readdirSync(image)) {
      if (entry !== 'PG_VERSION') cpSync(join(image, entry), join(dataDir, entry), { recursive: true });
    }
    cpSync(join(image, 'PG_VERSION'), join(dataDir, 'PG_VERSION'));
    return true;
  }
  for (const entry of readdirSync(taken)) if (entry !== 'PG_VERSION') renameSync(join(taken, entry), join(dataDir, entry));
  renameSync(join(taken, 'PG_VERSION'), join(dataDir, 'PG_VERSION'));
  rmdirSync(taken);
  return true;
}

/**
 * Creates a new data directory in a child process: initdb touches about 600 MB of WebAssembly memory, which a
 * process never gives back, while opening an existing directory needs a fraction of it.
 */
async function preparePgliteDataDir(dataDir: string): Promise<void> {
  if (existsSync(join(dataDir, 'PG_VERSION'))) return;
  mkdirSync(dataDir, { recursive: true });
  const script =
    'const { PGlite } = await import(process.argv[1]); const db = new PGlite(process.argv[2]); await db.waitReady; await db.close();';
  await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script, import.meta.resolve('@electric-sql/pglite'), dataDir]);
}
