/**
 * Makes the PGlite image of src/db/pglite-image.ts: an in-memory database as a first start makes it (initdb, the
 * migrations, pg-boss's install) with the embedded database's memory setting, dumped as a tarball. The server build
 * writes it (scripts/make-pglite-image.ts); the suite starts its in-memory databases from it.
 */
import { mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { createJobs } from '../lib/jobs.js';
import { MIGRATIONS, openDatabase } from './client.js';
import { PGLITE_OPTIONS } from './pglite.js';
import {
  PGLITE_IMAGE_DIR,
  PGLITE_SETTINGS,
  pgliteImageDirectory,
  pgliteImageFile,
  pgliteImageKey,
  sweepAbandonedPartials,
} from './pglite-image.js';

export async function makePgliteImage(): Promise<Blob> {
  const database = await openDatabase({ kind: 'pglite', dataDir: null });
  try {
    await database.migrate();
    const jobs = createJobs({ connection: database.jobsConnection, soleProcess: true, onError: () => {} });
    await jobs.start();
    await jobs.stop(1_000);
    // Drizzle's documented handle on the driver's client; the Database interface has no use for a dump elsewhere.
    const client = (database.db as unknown as { $client: PGlite }).$client;
    // Into postgresql.auto.conf, which the dump carries: a directory made from it has the settings for any opener.
    for (const [name, value] of Object.entries(PGLITE_SETTINGS)) await client.exec(`ALTER SYSTEM SET ${name} = '${value}'`);
    return await client.dumpDataDir('none');
  } finally {
    await database.close();
  }
}

/**
 * Writes the image of the current migrations to `dir` unless it is there, and removes the images of other migrations;
 * answers its tarball. `withDirectory` (the build's) writes the data directory made from it too, unless it is there
 * (a start may have taken it: src/db/pglite.ts). Each is made aside and renamed into place: a process reading at the same
 * time sees the whole of it or none.
 */
export async function writePgliteImage(dir = PGLITE_IMAGE_DIR, { withDirectory = false } = {}): Promise<{ file: string; made: boolean }> {
  const key = await pgliteImageKey(MIGRATIONS);
  const file = pgliteImageFile(key, dir);
  const directory = pgliteImageDirectory(key, dir);
  sweepAbandonedPartials(key, dir);
  const present = await readdir(dir).catch(() => [] as string[]);
  const makeTarball = !present.includes(`${key}.tar`);
  const makeDirectory = withDirectory && !present.includes(key);
  if (!makeTarball && !makeDirectory) return { file, made: false };
  await mkdir(dirname(file), { recursive: true });
  const tarball = makeTarball ? await makePgliteImage() : new Blob([await readFile(file)]);
  if (makeTarball) {
    const partial = `${file}.${process.pid}`;
    await writeFile(partial, Buffer.from(await tarball.arrayBuffer()));
    await rename(partial, file);
  }
  if (makeDirectory) {
    const partial = `${directory}.${process.pid}`;
    const client = new PGlite(partial, { ...PGLITE_OPTIONS, loadDataDir: tarball });
    await client.waitReady;
    await client.close();
    // Another process may have put its own in place meanwhile: the same image, so either is kept.
    await rename(partial, directory).catch(() => rm(partial, { recursive: true, force: true }));
  }
  // Other migrations' images; what another process is making for these (`<key>….<pid>`) is left to it.
  for (const other of present) if (!other.startsWith(key)) await rm(`${dir}/${other}`, { recursive: true, force: true });
  return { file, made: true };
}
