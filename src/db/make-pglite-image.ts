/**
 * Makes the PGlite image of src/db/pglite-image.ts: an in-memory database as a first start makes it (initdb, the
 * migrations, pg-boss's install) with the embedded database's memory setting, dumped as a tarball. The server build
 * writes it (scripts/make-pglite-image.ts); the suite starts its in-memory databases from it.
 */
import { mkdir, readdir, rename, rm, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { PGlite } from '@electric-sql/pglite';
import { createJobs } from '../lib/jobs.js';
import { MIGRATIONS, openDatabase } from './client.js';
import { PGLITE_SHARED_BUFFERS } from './pglite.js';
import { PGLITE_IMAGE_DIR, pgliteImageFile, pgliteImageKey } from './pglite-image.js';

export async function makePgliteImage(): Promise<Blob> {
  const database = await openDatabase({ kind: 'pglite', dataDir: null });
  try {
    await database.migrate();
    const jobs = createJobs({ connection: database.jobsConnection, soleProcess: true, onError: () => {} });
    await jobs.start();
    await jobs.stop(1_000);
    // Drizzle's documented handle on the driver's client; the Database interface has no use for a dump elsewhere.
    const client = (database.db as unknown as { $client: PGlite }).$client;
    // Into postgresql.auto.conf, which the dump carries: the directory made from it starts with the setting.
    await client.exec(`ALTER SYSTEM SET shared_buffers = '${PGLITE_SHARED_BUFFERS}'`);
    return await client.dumpDataDir('none');
  } finally {
    await database.close();
  }
}

/**
 * Writes the image of the current migrations to `dir` unless it is there, and removes the images of other migrations;
 * answers its file. Written aside and renamed: a process reading at the same time sees the whole file or none.
 */
export async function writePgliteImage(dir = PGLITE_IMAGE_DIR): Promise<{ file: string; made: boolean }> {
  const key = await pgliteImageKey(MIGRATIONS);
  const file = pgliteImageFile(key, dir);
  const present = await readdir(dir).catch(() => [] as string[]);
  if (present.includes(`${key}.tar`)) return { file, made: false };
  await mkdir(dirname(file), { recursive: true });
  const partial = `${file}.${process.pid}`;
  await writeFile(partial, Buffer.from(await (await makePgliteImage()).arrayBuffer()));
  await rename(partial, file);
  for (const other of present) if (other.endsWith('.tar')) await rm(`${dir}/${other}`, { force: true });
  return { file, made: true };
}
