/**
 * A full disk (issue 12, item 2; reliability review t8): writes refused for lack of space answer the seed's 503 with
 * Retry-After, never 500; GET /health answers 503 while the database cannot write, and 200 again once space returns,
 * with no restart.
 *
 * The PGlite case fills no real disk: an in-process PGlite on a real DATA_DIR goes through Node's `fs`, and this file
 * makes every write that would grow a file in DATA_DIR fail with ENOSPC, as a full file system does (writes inside a
 * file's current size still succeed). PostgreSQL inside PGlite then reports what it reports on a full tmpfs, checked by
 * hand on one: 53100 "could not extend file …: No space left on device".
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import { type SQL, sql } from 'drizzle-orm';
import type { LightMyRequestResponse } from 'fastify';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { type Database, openDatabase } from '../../src/db/client.js';
import { isDiskFull } from '../../src/db/storage-health.js';
import { createDeps, type Deps } from '../../src/deps.js';
import type { App } from '../../src/http/access.js';
import { createLogger } from '../../src/logger.js';
import type { ResolvedConfig } from '../../src/secrets.js';
import { notSeed503 } from '../helpers/answers.js';
import { databaseKinds } from '../helpers/database.js';
import { API, call, createTestApp, registerUser, TEST_APP_SECRET, TEST_ENCRYPTION_KEY, type TestApp } from '../helpers/test-app.js';

interface FullDisk {
  fill(): void;
  free(): void;
  /** How many writes were refused since the last fill. */
  readonly refused: number;
  restore(): void;
}

/** From now on, while filled, a write that would grow a file opened under `dir` throws ENOSPC. */
function emulateFullDisk(dir: string): FullDisk {
  const original = { openSync: fs.openSync, closeSync: fs.closeSync, writeSync: fs.writeSync };
  const inDir = new Set<number>();
  let full = false;
  let refused = 0;
  const patched = {
    openSync: (...args: Parameters<typeof fs.openSync>) => {
      const fd = original.openSync(...args);
      if (String(args[0]).startsWith(dir)) inDir.add(fd);
      return fd;
    },
    closeSync: (fd: number) => {
      inDir.delete(fd);
      original.closeSync(fd);
    },
    writeSync: (fd: number, data: NodeJS.ArrayBufferView | string, ...rest: unknown[]) => {
      if (full && inDir.has(fd) && typeof data !== 'string') {
        const offset = (rest[0] as number | undefined) ?? 0;
        const length = (rest[1] as number | undefined) ?? data.byteLength - offset;
        const position = rest[2] as number | null | undefined;
        if (typeof position !== 'number' || position + length > fs.fstatSync(fd).size) {
          refused++;
          throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC', errno: -28, syscall: 'write' });
        }
      }
      return (original.writeSync as (...args: unknown[]) => number)(fd, data, ...rest);
    },
  };
  Object.assign(fs, patched);
  return {
    fill: () => {
      full = true;
      refused = 0;
    },
    free: () => void (full = false),
    get refused() {
      return refused;
    },
    restore: () => void Object.assign(fs, original),
  };
}

/** An injected answer as `notSeed503` reads it. */
function answerOf(response: LightMyRequestResponse) {
  return {
    status: response.statusCode,
    retryAfter: (response.headers['retry-after'] as string | undefined) ?? null,
    body: response.json(),
  };
}

describe('a full disk under PGlite [pglite]', () => {
  let dataDir: string;
  let disk: FullDisk;
  let database: Database;
  let deps: Deps;
  let app: App;
  let session: string;
  const logs: string[] = [];

  const inject = (method: 'GET' | 'POST' | 'DELETE', path: string, payload?: object) =>
    app.inject({ method, url: `${API}${path}`, headers: { authorization: `Bearer ${session}` }, ...(payload ? { payload } : {}) });
  before(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'storelink-disk-full-'));
    disk = emulateFullDisk(dataDir);
    database = await openDatabase({ kind: 'pglite', dataDir });
    await database.migrate();
    const config = loadConfig({ APP_SECRET: TEST_APP_SECRET, ENCRYPTION_KEY: TEST_ENCRYPTION_KEY, LOG_LEVEL: 'info' }) as ResolvedConfig;
    const logger = createLogger(config, new Writable({ write: (chunk, _encoding, done) => (logs.push(String(chunk)), done()) }));
    deps = createDeps(config, { database, logger, scryptParams: { N: 1024, r: 8, p: 1 }, usageFlushIntervalMs: 3_600_000 });
    app = await buildApp(deps);
    await deps.start();
    const registered = await app.inject({
      method: 'POST',
      url: `${API}/auth/register`,
      payload: { email: 'full@example.com', name: 'Full', password: 'correct horse battery' },
    });
    assert.equal(registered.statusCode, 201, registered.body);
    session = registered.json().data.token;
  });

  after(async () => {
    disk?.free();
    await app?.close();
    await deps?.close();
    await database?.close();
    disk?.restore();
    await rm(dataDir, { recursive: true, force: true });
  });

  /** Creates and revokes PATs until a write is refused (at most 400 rounds); returns every answer. */
  async function writeUntilRefused() {
    const answers: ReturnType<typeof answerOf>[] = [];
    const refused = () => answers.some((a) => a.status !== 201 && a.status !== 200);
    for (let i = 0; i < 400 && !refused(); i++) {
      const created = answerOf(await inject('POST', '/personal-access-tokens', { name: `filler ${i}`, expires_in_days: 7 }));
      answers.push(created);
      // Revoked at once, so no cap on live tokens is reached; the revocation writes too.
      if (created.status === 201) answers.push(answerOf(await inject('DELETE', `/personal-access-tokens/${created.body.data.id}`)));
    }
    return answers;
  }

  test('a write refused for lack of space answers 503 with Retry-After in the seed’s shape', async () => {
    disk.fill();
    // Rows go to pages with room first; the write that needs a new page is the one a full disk refuses.
    const answers = await writeUntilRefused();
    assert.ok(disk.refused > 0, 'no write reached the full disk');
    const failed = answers.filter((a) => a.status !== 201 && a.status !== 200);
    assert.equal(failed.length, 1, `no write failed after ${answers.length} answers`);
    assert.equal(notSeed503(failed[0]!), null);
    assert.ok(
      logs.some((line) => line.includes('"code":"53100"') && line.includes('No space left on device')),
      'the refused write was PostgreSQL’s disk_full',
    );
  });

  test('GET /health answers 503 while the disk is full, and 200 again once space returns, with writes working and no restart', async () => {
    disk.fill();
    await writeUntilRefused();
    assert.equal(notSeed503(answerOf(await inject('GET', '/health'))), null, 'GET /health while the disk is full');
    assert.equal(answerOf(await inject('GET', '/health')).status, 503, 'GET /health again: its write probe fails too');

    disk.free();
    const recovered = await inject('GET', '/health');
    assert.equal(recovered.statusCode, 200, recovered.body);
    const created = await inject('POST', '/personal-access-tokens', { name: 'after the disk was freed', expires_in_days: 7 });
    assert.equal(created.statusCode, 201, created.body);
  });
});

for (const kind of databaseKinds()) {
  describe(`a statement refused with disk_full or another lack of resources [${kind}]`, () => {
    let t: TestApp;
    let session: string;

    before(async () => {
      t = await createTestApp(kind);
      session = (await registerUser(t)).session;
    });
    after(() => t.close());

    const health = async () => answerOf(await call(t, 'GET', '/health'));

    /** From now on, until `allowRows`, a new row of access_tokens fails with the database's own error `code`. */
    const refuseRows = async (code: string) => {
      await t.database.db.execute(
        sql.raw(`create or replace function refuse_row_for_test() returns trigger language plpgsql as $$
          begin raise exception 'no resources for this row' using errcode = '${code}'; end $$`),
      );
      await t.database.db.execute(
        sql.raw('create trigger refuse_row_for_test before insert on access_tokens for each row execute function refuse_row_for_test()'),
      );
    };
    const allowRows = async () => {
      await t.database.db.execute(sql.raw('drop trigger refuse_row_for_test on access_tokens'));
      await t.database.db.execute(sql.raw('drop function refuse_row_for_test()'));
    };

    // What a full disk refuses, by the database's own errors: any new row of access_tokens, and any new table (the
    // health check's write probe creates one).
    const refuseWrites = async () => {
      await refuseRows('53100');
      await t.database.db.execute(
        sql.raw(`create or replace function refuse_table_for_test() returns event_trigger language plpgsql as $$
          begin raise exception 'could not extend file: No space left on device' using errcode = '53100'; end $$`),
      );
      await t.database.db.execute(
        sql.raw(`create event trigger refuse_table_for_test on ddl_command_start when tag in ('CREATE TABLE')
          execute function refuse_table_for_test()`),
      );
    };
    const allowWrites = async () => {
      await t.database.db.execute(sql.raw('drop event trigger refuse_table_for_test'));
      await t.database.db.execute(sql.raw('drop function refuse_table_for_test()'));
      await allowRows();
    };

    for (const [how, send] of [
      ['alone', (statement: SQL) => t.database.db.execute(statement)],
      ['in a transaction', (statement: SQL) => t.database.db.transaction((tx) => tx.execute(statement))],
    ] as const) {
      test(`a statement sent ${how} and refused with disk_full makes GET /health 503 while its write probe is refused, and 200 once it is not`, async () => {
        await refuseWrites();
        try {
          // Nothing has failed yet: the check does not probe, and answers 200.
          assert.equal((await health()).status, 200);
          await assert.rejects(send(sql`insert into access_tokens default values`), (error: unknown) => isDiskFull(error));
          assert.equal(notSeed503(await health()), null, 'GET /health after the refused statement');
          assert.equal(notSeed503(await health()), null, 'GET /health again: its probe is refused too');
        } finally {
          await allowWrites();
        }
        assert.equal((await health()).status, 200, 'GET /health once writes work again');
      });
    }

    for (const [code, name] of [
      ['53100', 'disk_full'],
      ['53200', 'out_of_memory'],
      ['53300', 'too_many_connections'],
    ] as const) {
      test(`${code} (${name}) from the database answers 503 with Retry-After, not 500`, async () => {
        // The database's own error, raised by a trigger on the table the request writes.
        await refuseRows(code);
        try {
          const response = await call(t, 'POST', '/personal-access-tokens', { token: session, body: { name: code, expires_in_days: 7 } });
          assert.equal(notSeed503(answerOf(response)), null);
        } finally {
          await allowRows();
        }
      });
    }
  });
}
