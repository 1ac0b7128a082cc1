/**
 * Fresh databases for one bench run. PostgreSQL: a new database created on the server of BENCH_DATABASE_URL
 * (default the test server, postgres://postgres@127.0.0.1:5432/test) and dropped at the end, so the 1,000,000 seeded
 * PATs never land in a database someone uses. PGlite: a new temporary directory, removed at the end.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { createDatabaseOn } from '../test/helpers/database.js';

export const DEFAULT_SERVER_URL = 'postgres://postgres@127.0.0.1:5432/test';

export interface FreshPostgres {
  readonly url: string;
  readonly version: string;
  drop(): Promise<void>;
}

export async function createPostgresDatabase(serverUrl = process.env.BENCH_DATABASE_URL || DEFAULT_SERVER_URL): Promise<FreshPostgres> {
  const database = await createDatabaseOn(serverUrl, `storelink_bench_${process.pid}_${Date.now()}`);
  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  try {
    const {
      rows: [row],
    } = await client.query('show server_version');
    return { ...database, version: `PostgreSQL ${row.server_version}` };
  } finally {
    await client.end();
  }
}

export function createPgliteDir(): { dir: string; remove(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'storelink-bench-'));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}
