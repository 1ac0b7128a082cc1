/** The server-side half of OAuth states: written at authenticate-site, consumed exactly once by the callback. */
import { and, count, eq, gt, lt, min, sql } from 'drizzle-orm';
import type { Track } from '../domain/index.js';
import type { Db } from './client.js';
import { accessTokens, memberships, oauthStates } from './schema.js';

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

/** How many states of the workspace are unused and unexpired at `now`, and when the first of them expires. */
export async function countPendingOAuthStates(
  db: Db,
  workspaceId: number,
  now: Date,
): Promise<{ pending: number; firstExpiry: Date | null }> {
  const [row] = await db
    .select({ pending: count(), firstExpiry: min(oauthStates.expiresAt) })
    .from(oauthStates)
    .where(and(eq(oauthStates.workspaceId, workspaceId), gt(oauthStates.expiresAt, now)));
  return { pending: row?.pending ?? 0, firstExpiry: row?.firstExpiry ?? null };
}

/**
 * Whether what a consumed state stood for still holds: its user is still a member of its workspace, and the token
 * that asked for it (when recorded) is not revoked.
 */
export async function isStateStillAuthorized(db: Db, row: Pick<OAuthStateRow, 'userId' | 'workspaceId' | 'tokenJti'>): Promise<boolean> {
  const member = sql`exists (select 1 from ${memberships} where ${memberships.userId} = ${row.userId} and ${memberships.workspaceId} = ${row.workspaceId})`;
  const tokenLive =
    row.tokenJti === null
      ? sql`true`
      : sql`exists (select 1 from ${accessTokens} where ${accessTokens.jti} = ${row.tokenJti} and ${accessTokens.userId} = ${row.userId} and ${accessTokens.revokedAt} is null)`;
  const [result] = await db.select({ ok: sql<boolean>`${member} and ${tokenLive}` }).from(sql`(select 1) as one`);
  return result?.ok === true;
}
