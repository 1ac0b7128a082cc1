/**
 * The embedded database's memory settings (PGLITE_SETTINGS, src/db/pglite-image.ts): PGlite touches its whole shared
 * memory as it opens, so its buffers and connection slots are the service's memory. Every way the service opens one
 * gets them: the suite's in-memory database, a server's new data directory, a data directory whose own files say
 * otherwise, and the image any other opener starts from.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { sql } from 'drizzle-orm';
import { type Database, openDatabase } from '../../src/db/client.js';
import { writePgliteImage } from '../../src/db/make-pglite-image.js';
import { createTestDatabase, selectRows } from '../helpers/database.js';

/** The settings measured (BENCHMARKS.md, "PGlite's shared memory"), in PostgreSQL's own spelling, as `SHOW` gives it. */
const expected = { shared_buffers: '4MB', max_connections: '5' };

const SETTINGS = `select name, current_setting(name) as setting from pg_settings where name in ('shared_buffers', 'max_connections')`;
const asObject = (rows: { name: string; setting: string }[]) => Object.fromEntries(rows.map((r) => [r.name, r.setting]));
const settingsOf = async (database: Database) => asObject(await selectRows(database, sql.raw(SETTINGS)));

test("the suite's in-memory database opens with them", async () => {
  const database = await createTestDatabase('pglite');
  try {
    assert.deepEqual(await settingsOf(database), expected);
  } finally {
    await database.close();
  }
});

test("a server's data directory opens with them, and keeps them when its own files say otherwise", async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'storelink-pglite-settings-'));
  try {
    const first = await openDatabase({ kind: 'pglite', dataDir });
    try {
      assert.deepEqual(await settingsOf(first), expected);
      // As a directory made by an earlier version may say (16 MB was the setting before), or an operator's edit.
      await first.db.execute(sql.raw(`alter system set shared_buffers = '16MB'`));
      await first.db.execute(sql.raw('alter system set max_connections = 100'));
    } finally {
      await first.close();
    }
    const again = await openDatabase({ kind: 'pglite', dataDir });
    try {
      assert.deepEqual(await settingsOf(again), expected);
    } finally {
      await again.close();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test('the image carries them, for a PGlite opened without them (the child that remakes its directory)', async () => {
  const { file } = await writePgliteImage();
  const client = new PGlite({ extensions: { pg_trgm }, loadDataDir: new Blob([await readFile(file)]) });
  try {
    assert.deepEqual(asObject((await client.query<{ name: string; setting: string }>(SETTINGS)).rows), expected);
  } finally {
    await client.close();
  }
});
