/**
 * A migrated, empty PGlite data directory made ahead of time (a PGlite `dumpDataDir` tarball): a first start on an
 * empty data directory loads it instead of running initdb, the migrations and pg-boss's install, which took 13.4 s on an
 * idle machine and over 50 s on a loaded one (issue 37). The server build makes it (`scripts/make-pglite-image.ts`, run
 * by `npm install` and `npm start`) under a name that changes with the migrations and with PGlite's and pg-boss's
 * versions, so an image is only ever loaded into the database it was made for; without one, the start makes the
 * database as before. The suite's in-memory databases start from an image of the same key (test/helpers/database.ts).
 */
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Where the made images are: `dist/pglite-image` of the package (this module is two levels below its root, built or not). */
export const PGLITE_IMAGE_DIR = fileURLToPath(new URL('../../dist/pglite-image/', import.meta.url));

/** What an image depends on: every migration file, and the installed PGlite and pg-boss. */
export async function pgliteImageKey(migrationsFolder: string): Promise<string> {
  const hash = createHash('sha256');
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

/** The image made for these migrations and versions, or null when there is none. */
export async function madePgliteImage(migrationsFolder: string): Promise<Blob | null> {
  const file = pgliteImageFile(await pgliteImageKey(migrationsFolder));
  return existsSync(file) ? new Blob([await readFile(file)]) : null;
}
