/** Imports of a site's existing listings (DESIGN §10). Transactions are the service's. */
import { and, desc, eq, sql } from 'drizzle-orm';
import { IMPORT_SKIPS_KEPT, type ImportSkip } from '../domain/index.js';
import type { Db } from './client.js';
import { listingImports } from './schema.js';

export type ListingImportRow = typeof listingImports.$inferSelect;

/** A new running import of the site; null when one is running already (the unique index on running imports). */
export async function startImport(
  db: Db,
  fields: { workspaceId: number; siteId: number; startedBy: number | null },
  now: Date,
): Promise<ListingImportRow | null> {
  const [row] = await db
    .insert(listingImports)
    .values({ ...fields, createdAt: now, updatedAt: now })
    .onConflictDoNothing()
    .returning();
  return row ?? null;
}

/** The site's latest import, running or not. */
export async function latestImport(db: Db, workspaceId: number, siteId: number): Promise<ListingImportRow | null> {
  const [row] = await db
    .select()
    .from(listingImports)
    .where(and(eq(listingImports.workspaceId, workspaceId), eq(listingImports.siteId, siteId)))
    .orderBy(desc(listingImports.id))
    .limit(1);
  return row ?? null;
}

export async function importById(db: Db, id: number, forUpdate = false): Promise<ListingImportRow | null> {
  const query = db.select().from(listingImports).where(eq(listingImports.id, id));
  const [row] = forUpdate ? await query.for('update') : await query;
  return row ?? null;
}

export interface PageOutcome {
  found: number;
  created: number;
  linked: number;
  updated: number;
  skips: ImportSkip[];
}

/** A page done: its counts added, the skips kept up to the first hundred, and where the next page starts (null: done). */
export async function recordPage(db: Db, id: number, outcome: PageOutcome, next: string | null, now: Date): Promise<ListingImportRow> {
  const [row] = await db
    .update(listingImports)
    .set({
      pages: sql`${listingImports.pages} + 1`,
      found: sql`${listingImports.found} + ${outcome.found}`,
      created: sql`${listingImports.created} + ${outcome.created}`,
      linked: sql`${listingImports.linked} + ${outcome.linked}`,
      updated: sql`${listingImports.updated} + ${outcome.updated}`,
      skipped: sql`${listingImports.skipped} + ${outcome.skips.length}`,
      skips: sql`(select coalesce(jsonb_agg(s), '[]'::jsonb) from (select s from jsonb_array_elements(${listingImports.skips} || ${JSON.stringify(outcome.skips)}::jsonb) as s limit ${IMPORT_SKIPS_KEPT}) as kept)`,
      cursor: next,
      ...(next === null ? { status: 'done' as const, finishedAt: now } : {}),
      updatedAt: now,
    })
    .where(eq(listingImports.id, id))
    .returning();
  return row!;
}

export async function failImport(db: Db, id: number, error: string, now: Date): Promise<ListingImportRow> {
  const [row] = await db
    .update(listingImports)
    .set({ status: 'failed', error, finishedAt: now, updatedAt: now })
    .where(eq(listingImports.id, id))
    .returning();
  return row!;
}
