/** Listings (DESIGN §10), always scoped to a workspace. Transactions are the service's. */
import { and, asc, count, eq, inArray, ne, type SQL, sql } from 'drizzle-orm';
import type { ListingStatus, SitePlatform } from '../domain/index.js';
import type { Db } from './client.js';
import { listings, products, sites } from './schema.js';

export type ListingRow = typeof listings.$inferSelect;
export type NewListing = Pick<
  typeof listings.$inferInsert,
  | 'workspaceId'
  | 'siteId'
  | 'productId'
  | 'platformId'
  | 'categoryId'
  | 'attributes'
  | 'marketplaceId'
  | 'variants'
  | 'currency'
  | 'title'
  | 'overrides'
  | 'targetVersion'
>;

/** Whether the product has a listing on some site that is not `deleted` (its deletion is then refused, 409). */
export async function productIsListed(db: Db, productId: number): Promise<boolean> {
  const rows = await db
    .select({ one: sql<number>`1` })
    .from(listings)
    .where(and(eq(listings.productId, productId), ne(listings.status, 'deleted')))
    .limit(1);
  return rows.length > 0;
}

/** What an imported listing has from the start: where it stands on the platform, and what the platform holds. */
export type ImportedFields = Pick<
  typeof listings.$inferInsert,
  | 'status'
  | 'syncStatus'
  | 'platformStatus'
  | 'externalId'
  | 'externalUrl'
  | 'syncedVersion'
  | 'wants'
  | 'issues'
  | 'differences'
  | 'readAt'
  | 'progress'
>;

export async function insertListing(db: Db, listing: NewListing & Partial<ImportedFields>, now: Date): Promise<ListingRow> {
  const [row] = await db
    .insert(listings)
    .values({ ...listing, createdAt: now, updatedAt: now })
    .returning();
  return row!;
}

export async function findListing(db: Db, workspaceId: number, id: number, forUpdate = false): Promise<ListingRow | null> {
  const query = db
    .select()
    .from(listings)
    .where(and(eq(listings.id, id), eq(listings.workspaceId, workspaceId)));
  const [row] = forUpdate ? await query.for('update') : await query;
  return row ?? null;
}

/** What names a listing in the audit log: its product's title and its site's name. */
export async function namesOf(db: Db, listing: Pick<ListingRow, 'productId' | 'siteId'>): Promise<{ title: string; site: string }> {
  const [row] = await db
    .select({ title: products.title, site: sites.name })
    .from(products)
    .innerJoin(sites, eq(sites.id, listing.siteId))
    .where(eq(products.id, listing.productId));
  return row ?? { title: '', site: '' };
}

/** A listing by id alone, for its jobs; `forUpdate` locks it. */
export async function listingById(db: Db, id: number, forUpdate = false): Promise<ListingRow | null> {
  const query = db.select().from(listings).where(eq(listings.id, id));
  const [row] = forUpdate ? await query.for('update') : await query;
  return row ?? null;
}

export async function listListings(
  db: Db,
  workspaceId: number,
  siteId: number,
  page: { limit: number; offset: number },
  filter: { status?: ListingStatus; productId?: number } = {},
): Promise<{ rows: ListingRow[]; total: number }> {
  const where: SQL = and(
    eq(listings.workspaceId, workspaceId),
    eq(listings.siteId, siteId),
    filter.status ? eq(listings.status, filter.status) : undefined,
    filter.productId ? eq(listings.productId, filter.productId) : undefined,
  )!;
  const [rows, [totals]] = await Promise.all([
    db.select().from(listings).where(where).orderBy(asc(listings.id)).limit(page.limit).offset(page.offset),
    db.select({ total: count() }).from(listings).where(where),
  ]);
  return { rows, total: totals?.total ?? 0 };
}

export async function updateListing(
  db: Db,
  id: number,
  fields: Partial<Omit<ListingRow, 'id' | 'createdAt'>>,
  now: Date,
): Promise<ListingRow> {
  const [row] = await db
    .update(listings)
    .set({ ...fields, updatedAt: now })
    .where(eq(listings.id, id))
    .returning();
  return row!;
}

/**
 * A listing's work done: `fields`, and `synced` if the listing still targets `version`, else `syncing` (a change that
 * arrived while the work ran is the next job's), decided in the one statement.
 */
export async function settleListing(
  db: Db,
  id: number,
  fields: Partial<Omit<ListingRow, 'id' | 'createdAt' | 'syncStatus'>>,
  version: number,
  now: Date,
): Promise<ListingRow> {
  const syncStatus = sql`case when ${listings.targetVersion} = ${version} then 'synced' else 'syncing' end`;
  const [row] = await db
    .update(listings)
    .set({ ...fields, syncStatus, updatedAt: now })
    .where(eq(listings.id, id))
    .returning();
  return row!;
}

/**
 * The products changed: each of their listings that is not deleted (nor being deleted) is to be brought to the product's
 * new version, `syncing` until it is (migration 0033's storelink_retarget_listings, which the order intake's take runs
 * too, leaving out the site that sold). Answers the listings, whose work the caller queues.
 */
export async function retargetListings(db: Db, productIds: readonly number[], now: Date): Promise<{ id: number; siteId: number }[]> {
  if (productIds.length === 0) return [];
  const result = await db.execute(
    sql`select id, site_id from storelink_retarget_listings(${JSON.stringify(productIds)}::jsonb, 0, '{}'::jsonb, ${now.toISOString()}::timestamptz)`,
  );
  return (result as unknown as { rows: { id: number; site_id: number }[] }).rows.map((r) => ({
    id: Number(r.id),
    siteId: Number(r.site_id),
  }));
}

/** The site's listings with work left (not synced), whose work a reconnection queues again. */
export async function unsyncedListingsOfSite(db: Db, siteId: number): Promise<{ id: number; siteId: number }[]> {
  return db
    .select({ id: listings.id, siteId: listings.siteId })
    .from(listings)
    .where(and(eq(listings.siteId, siteId), ne(listings.status, 'deleted'), ne(listings.syncStatus, 'synced')))
    .orderBy(asc(listings.id));
}

/** Whether a listing of the site other than `exceptId` holds the platform's id `externalId`. */
export async function externalIdClaimed(db: Db, siteId: number, externalId: string, exceptId: number): Promise<boolean> {
  const rows = await db
    .select({ one: sql<number>`1` })
    .from(listings)
    .where(and(eq(listings.siteId, siteId), eq(listings.externalId, externalId), ne(listings.id, exceptId)))
    .limit(1);
  return rows.length > 0;
}

/** The site's listings (not deleted) holding these platform ids, by platform id. */
export async function listingsOfExternalIds(db: Db, siteId: number, externalIds: readonly string[]): Promise<Map<string, ListingRow>> {
  if (externalIds.length === 0) return new Map();
  const rows = await db
    .select()
    .from(listings)
    .where(and(eq(listings.siteId, siteId), ne(listings.status, 'deleted'), inArray(listings.externalId, [...externalIds])));
  return new Map(rows.map((row) => [row.externalId!, row]));
}

/**
 * The site's listings (not deleted) that hold one of `ids` as their platform id or as a variant's sku (an Amazon
 * listing of several SKUs is named by any of them), each once.
 */
export async function listingsNamedBy(db: Db, siteId: number, ids: readonly string[]): Promise<ListingRow[]> {
  if (ids.length === 0) return [];
  const list = sql.join(
    ids.map((id) => sql`${id}`),
    sql`, `,
  );
  return db
    .select()
    .from(listings)
    .where(
      and(
        eq(listings.siteId, siteId),
        ne(listings.status, 'deleted'),
        sql`${listings.externalId} is not null`,
        sql`(${listings.externalId} in (${list}) or exists (select 1 from jsonb_array_elements(${listings.variants}) as v where v->>'sku' in (${list})))`,
      ),
    )
    .orderBy(asc(listings.id));
}

/** Whether the site has a listing on its platform (not deleted). */
export async function siteHasListings(db: Db, siteId: number): Promise<boolean> {
  const rows = await db
    .select({ one: sql<number>`1` })
    .from(listings)
    .where(and(eq(listings.siteId, siteId), ne(listings.status, 'deleted'), sql`${listings.externalId} is not null`))
    .limit(1);
  return rows.length > 0;
}

/** The connected sites of `platforms` with a listing on their platform (not deleted): the sites whose changes are read. */
export async function sitesWithListings(db: Db, platforms: readonly SitePlatform[]): Promise<number[]> {
  if (platforms.length === 0) return [];
  const rows = await db
    .selectDistinct({ siteId: listings.siteId })
    .from(listings)
    .innerJoin(sites, eq(sites.id, listings.siteId))
    .where(
      and(
        ne(listings.status, 'deleted'),
        sql`${listings.externalId} is not null`,
        eq(sites.status, 'connected'),
        inArray(sites.platform, [...platforms]),
      ),
    )
    .orderBy(asc(listings.siteId));
  return rows.map((row) => row.siteId);
}

/** The products among `productIds` that have a listing on the site that is not deleted. */
export async function listedOnSite(db: Db, siteId: number, productIds: readonly number[]): Promise<Set<number>> {
  if (productIds.length === 0) return new Set();
  const rows = await db
    .select({ productId: listings.productId })
    .from(listings)
    .where(and(eq(listings.siteId, siteId), ne(listings.status, 'deleted'), inArray(listings.productId, [...productIds])));
  return new Set(rows.map((row) => row.productId));
}

/** The listing was read from its platform at `at` (or tried): its record's own time is left as it is. */
/** The listings of the products that are not deleted, in id order (a bulk edit's preview). */
export async function listingsOfProducts(db: Db, productIds: readonly number[]): Promise<ListingRow[]> {
  if (productIds.length === 0) return [];
  return db
    .select()
    .from(listings)
    .where(and(inArray(listings.productId, [...productIds]), ne(listings.status, 'deleted')))
    .orderBy(asc(listings.id));
}

export async function markRead(db: Db, id: number, at: Date): Promise<void> {
  await db.update(listings).set({ readAt: at }).where(eq(listings.id, id));
}

/**
 * Listings due for a read from their platform (listing-watch.ts): on the platform, not being deleted, no work on its way,
 * and unread for longer than their status's interval (`everySeconds`); the most overdue first, at most `limit`.
 */
export async function listingsDueForRead(
  db: Db,
  everySeconds: Readonly<Partial<Record<ListingStatus, number>>>,
  now: Date,
  limit: number,
): Promise<number[]> {
  const entries = Object.entries(everySeconds);
  if (entries.length === 0) return [];
  const interval = sql.join(
    entries.map(([status, seconds]) => sql`when ${status} then ${seconds}::int`),
    sql` `,
  );
  const rows = await db
    .select({ id: listings.id })
    .from(listings)
    .where(
      and(
        inArray(listings.status, entries.map(([status]) => status) as ListingStatus[]),
        // Said as the index says it (listings_read_idx), so the planner can use it.
        ne(listings.status, 'deleted'),
        ne(listings.wants, 'deleted'),
        ne(listings.syncStatus, 'syncing'),
        sql`${listings.externalId} is not null`,
        sql`(${listings.readAt} is null or ${listings.readAt} < ${now.toISOString()}::timestamptz - make_interval(secs => case ${listings.status} ${interval} end))`,
      ),
    )
    .orderBy(sql`${listings.readAt} asc nulls first`, asc(listings.id))
    .limit(limit);
  return rows.map((row) => row.id);
}
