/** What both drivers provide: the shape of an open database, apart from the code that opens either. */
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import type { ConstructorOptions } from 'pg-boss';
import type * as schema from './schema.js';
import type { StorageHealth } from './storage-health.js';

export type Schema = typeof schema;
/** The Drizzle handle both drivers share; repositories take it (or a transaction) as their first parameter. */
export type Db = PgDatabase<PgQueryResultHKT, Schema>;

/**
 * `image`, for an in-memory PGlite only, is a data directory from PGlite's `dumpDataDir()` to start from instead of a
 * new one: the tests copy one migrated database rather than run initdb and the migrations for each (3 s of CPU apiece).
 */
export type DatabaseTarget = { kind: 'postgres'; url: string } | { kind: 'pglite'; dataDir: string | null; image?: Blob };

export interface Database {
  readonly kind: DatabaseTarget['kind'];
  readonly db: Db;
  /** Applies the checked-in migrations; on PostgreSQL under an advisory lock so instances starting together take turns. */
  migrate(): Promise<void>;
  /** One round trip, for readiness checks; rejects when the database cannot answer. */
  ping(): Promise<void>;
  /** Whether the database can write: marked full by a statement refused for lack of space, until a probe write succeeds. */
  readonly storage: StorageHealth;
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

/**
 * The storage probe (storage-health.ts), run in a transaction that is rolled back: one row in a new temporary relation
 * needs a new page on disk at once, as the next row of a full table does, and leaves nothing behind.
 */
export const STORAGE_PROBE =
  "create temp table storelink_storage_probe (filler text) on commit drop; insert into storelink_storage_probe values (repeat('x', 100))";

export type QueryLogger = false | { logQuery: (query: string) => void };

/**
 * Drizzle's PostgreSQL dialect looks up a type hint for every parameter of every statement it builds (`prepareTyping`:
 * nine class checks each), which only the AWS Data API driver reads; node-postgres and PGlite send every parameter
 * untyped and never look at them. Unset, Drizzle skips the look-up. test/server/statements.test.ts keeps this honest.
 */
export function withoutTypeHints<T extends Db>(db: T): T {
  (db as unknown as { dialect: { prepareTyping?: unknown } }).dialect.prepareTyping = undefined;
  return db;
}
