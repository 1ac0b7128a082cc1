/** Opens the database: node-postgres when a URL is given, otherwise embedded PGlite; both run the same migrations. */
import { fileURLToPath } from 'node:url';
import { sql } from 'drizzle-orm';
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres';
import { migrate as migratePg } from 'drizzle-orm/node-postgres/migrator';
import pg from 'pg';
import {
  type ChannelHandlers,
  type Database,
  type DatabaseTarget,
  type Db,
  type QueryLogger,
  STORAGE_PROBE,
  withoutTypeHints,
} from './database.js';
import * as schema from './schema.js';
import { createStorageHealth } from './storage-health.js';

export type { ChannelHandlers, Database, DatabaseTarget, Db, QueryLogger, Schema } from './database.js';

export interface DatabaseOptions {
  /** Called once per statement sent, with its text, so tests and metrics can count round trips. */
  onQuery?: (query: string) => void;
  /**
   * PostgreSQL: the longest a statement may run, or wait on a lock, before it fails (then a request answers 503), and
   * the longest wait for a pooled connection (at least 5 s when unset). Unset: statements are not limited, for scripts
   * that run long ones; the server passes DATABASE_TIMEOUT_MS.
   */
  timeoutMs?: number;
  /** Where a lost PostgreSQL connection and a taken-over PGlite lock are reported. */
  warn?: (message: string, error?: unknown) => void;
}

/** The checked-in migrations, beside this module (the bundle carries a copy beside itself). */
export const MIGRATIONS = fileURLToPath(new URL('./migrations', import.meta.url));
// Any constant works; it only has to be the same for every instance of this service.
const MIGRATION_LOCK_ID = 0x5703_e11c;
const CONNECT_TIMEOUT_MS = 5_000;
// node-postgres's own deadline for an answer, past the server's statement_timeout: a backstop for a server that no
// longer answers at all (a network partition), which statement_timeout cannot end.
const QUERY_TIMEOUT_GRACE_MS = 2_000;

/** Connects to the target; for PostgreSQL, fails when the server cannot be reached. */
export async function openDatabase(target: DatabaseTarget, options: DatabaseOptions = {}): Promise<Database> {
  const logger = options.onQuery ? { logQuery: options.onQuery } : false;
  if (target.kind === 'postgres') return openPostgres(target.url, logger, options);
  // Loaded only when chosen: the embedded database's modules cost a server on PostgreSQL 5 MB of memory for nothing.
  const { openPglite } = await import('./pglite.js');
  return openPglite(target, logger, MIGRATIONS, { warn: options.warn });
}

async function openPostgres(url: string, logger: QueryLogger, options: DatabaseOptions): Promise<Database> {
  const { timeoutMs, warn = () => {} } = options;
  const pool = new pg.Pool({
    connectionString: url,
    max: 10,
    idleTimeoutMillis: 30_000,
    connectionTimeoutMillis: timeoutMs ?? CONNECT_TIMEOUT_MS,
    ...(timeoutMs ? { statement_timeout: timeoutMs, query_timeout: timeoutMs + QUERY_TIMEOUT_GRACE_MS } : {}),
  });
  const storage = createStorageHealth(() => probeWrite(pool));
  // pg-pool listens for a client's 'error' only while the client is idle in the pool. A connection lost while a
  // client is checked out (a transaction between two statements) would emit 'error' with no listener, an uncaught
  // exception that ends the process; the statement in flight fails by itself, and the pool drops the client on release.
  pool.on('connect', (client) => {
    let reported = false;
    client.on('error', (error) => {
      if (!reported) warn('a database connection was lost', error);
      reported = true;
    });
    observeFailures(client, storage.observe);
  });
  // An idle client losing its connection: pg-pool has already dropped it, and the next query reports the outage.
  pool.on('error', () => {});
  const db = withoutTypeHints(drizzlePg({ client: pool, schema, logger }));
  await pool.query('select 1');
  return {
    kind: 'postgres',
    db: db as unknown as Db,
    migrate: () => migratePostgres(url),
    ping: async () => void (await db.execute(sql`select 1`)),
    storage,
    subscribe: (channel, handlers) => listenPostgres(url, channel, handlers),
    // Workers hold a connection only while they fetch or settle a job; a few are enough beside the API's ten.
    jobsConnection: { connectionString: url, max: 2 },
    close: () => pool.end(),
  };
}

/**
 * Applies the migrations on a connection of its own, outside the pool's statement limits: a migration, or the wait for
 * another instance's migrations, may take longer than any request may.
 */
async function migratePostgres(url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: CONNECT_TIMEOUT_MS });
  // A lost connection fails the statement in flight; without a listener it would also end the process.
  client.on('error', () => {});
  await client.connect();
  try {
    await client.query('select pg_advisory_lock($1)', [MIGRATION_LOCK_ID]);
    await migratePg(drizzlePg({ client, schema }), { migrationsFolder: MIGRATIONS });
  } finally {
    await client.end().catch(() => {});
  }
}

/** Lets `observe` see the error of every statement that fails on `client`, in either of node-postgres's calling styles. */
function observeFailures(client: pg.PoolClient, observe: (error: unknown) => void): void {
  const query = client.query.bind(client) as (...args: unknown[]) => unknown;
  const observed = (...args: unknown[]) => {
    const callback = args.at(-1);
    if (typeof callback === 'function') {
      args[args.length - 1] = (error: unknown, result: unknown) => {
        if (error) observe(error);
        callback(error, result);
      };
    }
    const result = query(...args);
    // A side branch: the caller still gets, and handles, the same rejection.
    if (result instanceof Promise) result.catch(observe);
    return result;
  };
  Object.assign(client, { query: observed });
}

/** The storage probe (database.ts), on a pooled connection, rolled back. */
async function probeWrite(pool: pg.Pool): Promise<void> {
  const client = await pool.connect();
  let failed = false;
  try {
    await client.query(`begin; ${STORAGE_PROBE}`);
  } catch (error) {
    failed = true;
    throw error;
  } finally {
    await client.query('rollback').catch(() => (failed = true));
    client.release(failed);
  }
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
