/** Uploaded image bytes, stored once per content: the same bytes uploaded twice are one row. */
import { eq } from 'drizzle-orm';
import type { Db } from './client.js';
import { media } from './schema.js';

export type MediaRow = typeof media.$inferSelect;

/** Stores the bytes unless a row with their hash exists already. */
export async function storeMedia(db: Db, row: Omit<MediaRow, 'createdAt'>, now: Date): Promise<void> {
  await db
    .insert(media)
    .values({ ...row, createdAt: now })
    .onConflictDoNothing({ target: media.sha256 });
}

export async function findMedia(db: Db, sha256: string): Promise<MediaRow | null> {
  const [row] = await db.select().from(media).where(eq(media.sha256, sha256));
  return row ?? null;
}
