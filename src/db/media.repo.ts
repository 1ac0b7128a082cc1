/** Uploaded bytes (images, and the PDFs a listing names), stored once per content: the same bytes uploaded twice are one row. */
import { eq, inArray } from 'drizzle-orm';
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

/** Of the names (`<sha256>.<extension>`), those Storelink holds: the hash stored with that extension. */
export async function storedMediaNames(db: Db, names: readonly { sha256: string; extension: string }[]): Promise<Set<string>> {
  if (names.length === 0) return new Set();
  const rows = await db
    .select({ sha256: media.sha256, extension: media.extension })
    .from(media)
    .where(
      inArray(
        media.sha256,
        names.map((name) => name.sha256),
      ),
    );
  return new Set(rows.map((row) => `${row.sha256}.${row.extension}`));
}
