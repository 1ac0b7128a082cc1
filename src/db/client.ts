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
// How long past the server's statement_timeout a statement may go unanswered before its connection is closed: a
// backstop for a server that no longer answers at all (a network partition), which statement_timeout cannot end.
const ANSWER_GRACE_MS = 2_000;
// How often the statements in flight are looked at for that deadline.
const ANSWER_SWEEP_MS = 1_000;

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
    ...(timeoutMs ? { statement_timeout: timeoutMs } : {}),
  });
  const storage = createStorageHealth(() => probeWrite(pool));
  const stopWatching = watchStatements(pool, {
    observe: storage.observe,
    answerWithinMs: timeoutMs ? timeoutMs + ANSWER_GRACE_MS : null,
    warn,
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
    close: () => {
      stopWatching();
      return pool.end();
    },
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

/**
 * Every statement on the pool, watched without a closure of its own around node-postgres's callback:
 * - `observe` sees the error of every statement that fails: on the promise of `pool.query` (Drizzle's statements
 *   outside a transaction; pg-pool sends them to a client with a callback of its own, left as it is) and on the promise
 *   of a checked-out client's `query` (a transaction's statements, the storage probe);
 * - a statement still unanswered `answerWithinMs` after it was sent (checked every second) has its connection closed,
 *   which fails it (node-postgres's "Connection terminated", a 503) and makes the pool drop the client.
 *
 * Both were done before by a closure around each statement's callback: node-postgres's own for `query_timeout`, and
 * ours for `observe`. With either, V8 moved every statement's result (the search's 10 KB page) to its old generation:
 * 8 to 12 KB promoted a search, against under 40 bytes without (`--trace-gc-nvp`), so the young generation's
 * collections took twice as long, the old one grew by 50 MB between full collections, and the search's load took the
 * process to 236 MB rather than 137. BENCHMARKS.md ("Catalogue search (g): the statements' callbacks") has the
 * measurements.
 *
 * Returns what stops the deadline's timer.
 */
function watchStatements(
  pool: pg.Pool,
  options: { observe: (error: unknown) => void; answerWithinMs: number | null; warn: (message: string, error?: unknown) => void },
): () => void {
  const { observe, answerWithinMs, warn } = options;
  /** The checked-out clients with a statement in flight, and when the last one was sent (performance.now()). */
  const sent = new Map<pg.PoolClient, number>();
  pool.on('connect', (client) => {
    // pg-pool listens for a client's 'error' only while the client is idle in the pool. A connection lost while a
    // client is checked out (a transaction between two statements) would emit 'error' with no listener, an uncaught
    // exception that ends the process; the statement in flight fails by itself, and the pool drops the client on release.
    let reported = false;
    client.on('error', (error) => {
      if (!reported) warn('a database connection was lost', error);
      reported = true;
    });
    // 'drain': every statement sent on the client is answered. After 'end', a statement fails at once, unsent.
    let open = true;
    client.on('drain', () => sent.delete(client));
    client.on('end', () => {
      open = false;
      sent.delete(client);
    });
    const query = client.query.bind(client) as (...args: unknown[]) => unknown;
    const watched = (...args: unknown[]) => {
      if (open) sent.set(client, performance.now());
      const result = query(...args);
      // A side branch: the caller still gets, and handles, the same rejection.
      if (result instanceof Promise) result.catch(observe);
      return result;
    };
    Object.assign(client, { query: watched });
  });
  const poolQuery = pool.query.bind(pool) as (...args: unknown[]) => unknown;
  const watchedPoolQuery = (...args: unknown[]) => {
    const result = poolQuery(...args);
    if (result instanceof Promise) result.catch(observe);
    return result;
  };
  Object.assign(pool, { query: watchedPoolQuery });

  if (answerWithinMs === null) return () => {};
  const sweep = setInterval(() => {
    const now = performance.now();
    for (const [client, since] of sent) {
      if (now - since <= answerWithinMs) continue;
      sent.delete(client);
      warn(`a statement had no answer from the database within ${answerWithinMs} ms: its connection is closed`);
      // With a statement in flight, end() closes the socket at once rather than waiting for the answer.
      client.end().catch(() => {});
    }
  }, ANSWER_SWEEP_MS);
  sweep.unref();
  return () => clearInterval(sweep);
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
