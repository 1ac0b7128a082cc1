/**
 * A migrated, empty PGlite data directory made ahead of time (a PGlite `dumpDataDir` tarball): a first start on an
 * empty data directory loads it instead of running initdb, the migrations and pg-boss's install, which took 13.4 s on an
 * idle machine and over 50 s on a loaded one (issue 37). The server build makes it (`scripts/make-pglite-image.ts`, run
 * by `npm install` and `npm start`) under a name that changes with the migrations, with PGlite's and pg-boss's
 * versions and with PGLITE_SETTINGS, so an image is only ever loaded into the database it was made for; without one,
 * the start makes the database as before. The suite's in-memory databases start from an image of the same key
 * (test/helpers/database.ts).
 *
 * The image is kept twice: as the tarball, which an in-memory database loads, and as the data directory PGlite made from
 * it (the build makes both). A first start takes that directory for its own, moving it into place: no file is written.
 * Copying it instead would create 1,200 files, and loading the tarball unpacks it through PGlite's emulated file system;
 * on this project's VMs each took 1 to 1.5 s, the start's largest step. A start that took the directory leaves a child
 * process making it again from the tarball, so the next new data directory finds one too; until it is there, a start
 * loads the tarball.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, rmSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { setPriority } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Where the made images are: `dist/pglite-image` of the package (this module is two levels below its root, built or not). */
export const PGLITE_IMAGE_DIR = fileURLToPath(new URL('../../dist/pglite-image/', import.meta.url));

/**
 * The embedded database's memory settings, which an image carries (postgresql.auto.conf) and every PGlite the service
 * opens is given (pglite.ts). PGlite touches its whole shared memory as it opens, so these are the service's memory:
 * PostgreSQL's defaults are sized for a server of its own (128 MB of buffers, 100 connections), where PGlite is one
 * backend whose files the operating system caches anyway (docs/decisions.md, "PGlite's memory").
 */
export const PGLITE_SETTINGS = { shared_buffers: '4MB', max_connections: '5' } as const;

/** What an image depends on: every migration file, the installed PGlite and pg-boss, and PGLITE_SETTINGS. */
export async function pgliteImageKey(migrationsFolder: string): Promise<string> {
  const hash = createHash('sha256').update(JSON.stringify(PGLITE_SETTINGS));
  for (const name of (await readdir(migrationsFolder, { recursive: true })).sort()) {
    if (name.endsWith('.sql') || name.endsWith('.json')) hash.update(name).update(await readFile(join(migrationsFolder, name)));
  }
  for (const name of ['@electric-sql/pglite', 'pg-boss']) {
    hash.update(await readFile(fileURLToPath(new URL('../package.json', import.meta.resolve(name)))));
  }
  return hash.digest('hex').slice(0, 16);
}

/** The file of the image for these migrations and versions. */
export const pgliteImageFile = (key: string, dir = PGLITE_IMAGE_DIR) => join(dir, `${key}.tar`);

/** The data directory made from that image. */
export const pgliteImageDirectory = (key: string, dir = PGLITE_IMAGE_DIR) => join(dir, key);

/** The image made for these migrations and versions, with its data directory when one is there; null when there is none. */
export async function madePgliteImage(
  migrationsFolder: string,
): Promise<{ key: string; directory: string | null; tarball: string } | null> {
  const key = await pgliteImageKey(migrationsFolder);
  const tarball = pgliteImageFile(key);
  if (!existsSync(tarball)) return null;
  const directory = pgliteImageDirectory(key);
  // The directory is renamed into place whole, PG_VERSION in it.
  return { key, directory: existsSync(join(directory, 'PG_VERSION')) ? directory : null, tarball };
}

/**
 * Removes what a process making one of this key's images aside left when it died (`<key>.<pid>`, `<key>.tar.<pid>`: a
 * build or a remaking child killed mid-way); a partial whose process is alive is left to it. Without this, each was kept
 * until the migrations changed: a data directory of 40 MB a crash.
 */
export function sweepAbandonedPartials(key: string, dir = PGLITE_IMAGE_DIR): void {
  let entries: string[];
  try {
    entries = readdirSync(dir);
  } catch {
    return;
  }
  for (const entry of entries) {
    const pid = new RegExp(`^${key}(?:\\.tar)?\\.(\\d+)$`).exec(entry)?.[1];
    if (pid !== undefined && !processAlive(Number(pid))) rmSync(join(dir, entry), { recursive: true, force: true });
  }
}

/** Whether a process of this id runs (one of another user's answers EPERM: it runs). */
function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The tarball's bytes, for PGlite's `loadDataDir`. */
export const readPgliteImage = async (tarball: string) => new Blob([await readFile(tarball)]);

/**
 * How long the child making the image's directory again waits first: its 1.5 s of work (PGlite unpacking the tarball,
 * 1,200 files written) slowed the start beside it by a second when done at once, so it starts once the server is up.
 */
const REMAKE_AFTER_MS = 10_000;

/**
 * Makes the image's data directory again from its tarball, in a child process of its own that outlives a short-lived
 * parent and runs at a lower priority than the server, REMAKE_AFTER_MS after the start that took it: aside, then
 * renamed into place (another process's made meanwhile is kept). PGlite's `pg_trgm` is loaded as every PGlite on the
 * schema loads it (pglite.ts). A new data directory opened before it is there loads the tarball. The child names its
 * partial by its own pid, so a sweep (sweepAbandonedPartials) tells a live one from one left by a kill.
 */
export function remakePgliteImageDirectory(key: string): void {
  const directory = pgliteImageDirectory(key);
  sweepAbandonedPartials(key);
  const script = `
    const [{ PGlite }, { pg_trgm }, { readFileSync, renameSync, rmSync }] = await Promise.all([
      import(process.argv[1]), import(process.argv[2]), import('node:fs'),
    ]);
    const [tarball, directory, wait] = process.argv.slice(3);
    await new Promise((resolve) => setTimeout(resolve, Number(wait)));
    const partial = directory + '.' + process.pid;
    const db = new PGlite(partial, { extensions: { pg_trgm }, loadDataDir: new Blob([readFileSync(tarball)]) });
    await db.waitReady;
    await db.close();
    try { renameSync(partial, directory); } catch { rmSync(partial, { recursive: true, force: true }); }`;
  const child = spawn(
    process.execPath,
    [
      '--input-type=module',
      '-e',
      script,
      import.meta.resolve('@electric-sql/pglite'),
      import.meta.resolve('@electric-sql/pglite/contrib/pg_trgm'),
      pgliteImageFile(key),
      directory,
      String(REMAKE_AFTER_MS),
    ],
    { detached: true, stdio: 'ignore' },
  );
  // Without it the next new data directory loads the tarball, as before the directory existed: nothing to report.
  child.on('error', () => {});
  // Below the server's priority; a system that refuses it runs the child at the server's.
  if (child.pid !== undefined) {
    try {
      setPriority(child.pid, 10);
    } catch {}
  }
  child.unref();
}
