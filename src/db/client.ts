/** Opens the database: node-postgres when a URL is given, otherwise embedded PGlite; both run the same migrations. */
import { execFile } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { PGlite } from '@electric-sql/pglite';
import { sql } from 'drizzle-orm';
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres';
import { migrate as migratePg } from 'drizzle-orm/node-postgres/migrator';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import pg from 'pg';
import { type ConstructorOptions, fromPglite } from 'pg-boss';
import * as schema from './schema.js';

export type Schema = typeof schema;
/** The Drizzle handle both drivers share; repositories take it (or a transaction) as their first parameter. */
export type Db = PgDatabase<PgQueryResultHKT, Schema>;

export type DatabaseTarget = { kind: 'postgres'; url: string } | { kind: 'pglite'; dataDir: string | null };

export interface Database {
  readonly kind: DatabaseTarget['kind'];
  readonly db: Db;
  /** Applies the checked-in migrations; on PostgreSQL under an advisory lock so instances starting together take turns. */
  migrate(): Promise<void>;
  /** One round trip, for readiness checks; rejects when the database cannot answer. */
  ping(): Promise<void>;
  /**
   * Listens to a notification channel until the returned function is called. `up` is called each time the listener
   * is connected and `down` each time it is lost (PostgreSQL reconnects every second): notifications sent while it
   * was down are lost, so a listener must treat `up` as "anything may have changed".
   */
  subscribe(channel: string, handlers: ChannelHandlers): Promise<() => Promise<void>>;
  /** How the job engine reaches this database: pg-boss's PGlite adapter on the same instance, or a pool of its own. */
  readonly jobsConnection: Pick<ConstructorOptions, 'db' | 'connectionString' | 'max' | 'backend'>;
  close(): Promise<void>;
}

export interface ChannelHandlers {
  notify(payload: string): void;
  up(): void;
  down(): void;
}

export interface DatabaseOptions {
  /** Called once per statement sent, so tests and metrics can count round trips. */
  onQuery?: () => void;
}

const MIGRATIONS = fileURLToPath(new URL('./migrations', import.meta.url));
// Any constant works; it only has to be the same for every instance of this service.
const MIGRATION_LOCK_ID = 0x5703_e11c;

/** Connects to the target; for PostgreSQL, fails when the server cannot be reached. */
export async function openDatabase(target: DatabaseTarget, options: DatabaseOptions = {}): Promise<Database> {
  const logger = options.onQuery ? { logQuery: options.onQuery } : false;
  return target.kind === 'postgres' ? openPostgres(target.url, logger) : openPglite(target.dataDir, logger);
}

// PostgreSQL's default of 128 MB is sized for a server of its own; an embedded database shares the service's memory.
const PGLITE_SETTING = 'shared_buffers = 16MB';

async function openPglite(dataDir: string | null, logger: false | { logQuery: () => void }): Promise<Database> {
  if (dataDir) await preparePgliteDataDir(dataDir);
  const client = dataDir ? new PGlite(dataDir) : new PGlite();
  await client.waitReady;
  const db = drizzlePglite({ client, schema, logger });
  return {
    kind: 'pglite',
    db: db as unknown as Db,
    migrate: () => migratePglite(db, { migrationsFolder: MIGRATIONS }),
    ping: async () => void (await client.query('select 1')),
    // One process owns an embedded database, so the listener is never disconnected.
    subscribe: async (channel, handlers) => {
      const unlisten = await client.listen(channel, handlers.notify);
      handlers.up();
      // Closing the database ends every listener; unlistening after that would throw.
      return async () => void (client.closed || (await unlisten()));
    },
    jobsConnection: { db: fromPglite(client), backend: 'pglite' },
    close: () => client.close(),
  };
}

/**
 * Creates a new data directory in a child process: initdb touches about 600 MB of WebAssembly memory, which a
 * process never gives back, while opening an existing directory needs a fraction of it. Then sets PGLITE_SETTING.
 */
async function preparePgliteDataDir(dataDir: string): Promise<void> {
  if (!existsSync(join(dataDir, 'PG_VERSION'))) {
    mkdirSync(dataDir, { recursive: true });
    const script =
      'const { PGlite } = await import(process.argv[1]); const db = new PGlite(process.argv[2]); await db.waitReady; await db.close();';
    await promisify(execFile)(process.execPath, [
      '--input-type=module',
      '-e',
      script,
      import.meta.resolve('@electric-sql/pglite'),
      dataDir,
    ]);
  }
  // Appended, so initdb's other settings (time zone, locale) stay; the last value of a setting in the file wins.
  const configFile = join(dataDir, 'postgresql.conf');
  if (!readFileSync(configFile, 'utf8').includes(PGLITE_SETTING))
    appendFileSync(configFile, `\n# Storelink: the embedded database shares the service's memory.\n${PGLITE_SETTING}\n`);
}

async function openPostgres(url: string, logger: false | { logQuery: () => void }): Promise<Database> {
  const pool = new pg.Pool({ connectionString: url, max: 10, connectionTimeoutMillis: 5_000, idleTimeoutMillis: 30_000 });
  // An idle client losing its connection must not crash the process; the next query reports the outage.
  pool.on('error', () => {});
  const db = drizzlePg({ client: pool, schema, logger });
  await pool.query('select 1');
  return {
    kind: 'postgres',
    db: db as unknown as Db,
    migrate: async () => {
      const client = await pool.connect();
      try {
        await client.query('select pg_advisory_lock($1)', [MIGRATION_LOCK_ID]);
        await migratePg(drizzlePg({ client, schema }), { migrationsFolder: MIGRATIONS });
      } finally {
        await client.query('select pg_advisory_unlock($1)', [MIGRATION_LOCK_ID]).catch(() => {});
        client.release();
      }
    },
    ping: async () => void (await db.execute(sql`select 1`)),
    subscribe: (channel, handlers) => listenPostgres(url, channel, handlers),
    // Workers hold a connection only while they fetch or settle a job; a few are enough beside the API's ten.
    jobsConnection: { connectionString: url, max: 2 },
    close: () => pool.end(),
  };
}

const RELISTEN_DELAY_MS = 1_000;

/** A dedicated connection that LISTENs on a channel, and reconnects a second after it is lost until unsubscribed. */
async function listenPostgres(url: string, channel: string, handlers: ChannelHandlers): Promise<() => Promise<void>> {
  if (!/^[a-z_][a-z0-9_]*$/.test(channel)) throw new Error(`not a channel name: ${channel}`);
  let current: pg.Client | null = null;
  let stopped = false;
  let retry: NodeJS.Timeout | undefined;

  const lose = (client: pg.Client) => {
    if (current !== client) return;
    current = null;
    handlers.down();
    client.end().catch(() => {});
    if (!stopped) retry = setTimeout(connect, RELISTEN_DELAY_MS);
  };
  async function connect(): Promise<void> {
    const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5_000, keepAlive: true });
    client.on('notification', (message) => message.channel === channel && handlers.notify(message.payload ?? ''));
    client.on('error', () => lose(client));
    client.on('end', () => lose(client));
    current = client;
    try {
      await client.connect();
      await client.query(`listen ${channel}`);
      if (current === client && !stopped) handlers.up();
    } catch {
      lose(client);
    }
  }

  await connect();
  return async () => {
    stopped = true;
    clearTimeout(retry);
    const client = current;
    current = null;
    await client?.end().catch(() => {});
  };
}
