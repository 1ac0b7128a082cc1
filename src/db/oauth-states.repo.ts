/** The server-side half of OAuth states: written at authenticate-site, consumed exactly once by the callback. */
import { and, eq, lt } from 'drizzle-orm';
import type { Track } from '../domain/index.js';
import type { Db } from './client.js';
import { oauthStates } from './schema.js';

export type OAuthStateRow = typeof oauthStates.$inferSelect;

export async function insertOAuthState(db: Db, row: typeof oauthStates.$inferInsert): Promise<void> {
  await db.insert(oauthStates).values(row);
}

/**
 * Deletes and returns the record in one statement, so of any number of concurrent callbacks carrying the same state,
 * exactly one gets it.
 */
export async function consumeOAuthState(db: Db, jti: string, track: Track): Promise<OAuthStateRow | null> {
  const [row] = await db
    .delete(oauthStates)
    .where(and(eq(oauthStates.jti, jti), eq(oauthStates.track, track)))
    .returning();
  return row ?? null;
}

/** Removes states that can no longer be used. */
export async function deleteExpiredOAuthStates(db: Db, now: Date): Promise<void> {
  await db.delete(oauthStates).where(lt(oauthStates.expiresAt, now));
}
