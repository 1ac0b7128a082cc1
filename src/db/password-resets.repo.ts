/** Password-reset links (docs/e-mail.md), by the SHA-256 of their token. Transactions are the service's. */
import { and, eq, gt, lte } from 'drizzle-orm';
import type { Db } from './client.js';
import { passwordResets, users } from './schema.js';

/** Records a link for the user, and drops the user's links that have expired. */
export async function insertPasswordReset(db: Db, input: { userId: number; tokenHash: string; expiresAt: Date }, now: Date) {
  await db.delete(passwordResets).where(and(eq(passwordResets.userId, input.userId), lte(passwordResets.expiresAt, now)));
  await db.insert(passwordResets).values({ ...input, createdAt: now });
}

/** The account a link not yet used nor expired resets; null otherwise. */
export async function findResetAccount(db: Db, tokenHash: string, now: Date): Promise<{ userId: number; email: string } | null> {
  const [row] = await db
    .select({ userId: users.id, email: users.email })
    .from(passwordResets)
    .innerJoin(users, eq(users.id, passwordResets.userId))
    .where(and(eq(passwordResets.tokenHash, tokenHash), gt(passwordResets.expiresAt, now)));
  return row ?? null;
}

/**
 * Uses the link: deletes it and every other link of its user (a new password ends them all), if it was still valid
 * for that user. False when another request used it first or it expired meanwhile.
 */
export async function consumePasswordReset(db: Db, tokenHash: string, userId: number, now: Date): Promise<boolean> {
  const used = await db
    .delete(passwordResets)
    .where(and(eq(passwordResets.tokenHash, tokenHash), eq(passwordResets.userId, userId), gt(passwordResets.expiresAt, now)))
    .returning({ id: passwordResets.id });
  if (used.length === 0) return false;
  await db.delete(passwordResets).where(eq(passwordResets.userId, userId));
  return true;
}
