/** Listings' advertising and its daily figures (DESIGN §13). Transactions are the service's. */
import { and, asc, desc, eq, gte, inArray, isNotNull, lte, ne, sql } from 'drizzle-orm';
import type { Db } from './client.js';
import { advertisingDays, listingAdvertising } from './schema.js';

export type AdvertisingRow = typeof listingAdvertising.$inferSelect;
export type NewAdvertising = Pick<
  typeof listingAdvertising.$inferInsert,
  | 'workspaceId'
  | 'listingId'
  | 'siteId'
  | 'profileId'
  | 'marketplaceId'
  | 'currency'
  | 'targeting'
  | 'dailyBudget'
  | 'defaultBid'
  | 'createdBy'
>;
export type AdvertisingDayRow = typeof advertisingDays.$inferSelect;

export async function insertAdvertising(db: Db, values: NewAdvertising, now: Date): Promise<AdvertisingRow> {
  const [row] = await db
    .insert(listingAdvertising)
    .values({ ...values, createdAt: now, updatedAt: now })
    .returning();
  return row!;
}

/** The listing's advertising: the one not archived, else the latest archived one; null if it was never advertised. */
export async function advertisingOfListing(db: Db, workspaceId: number, listingId: number): Promise<AdvertisingRow | null> {
  const [row] = await db
    .select()
    .from(listingAdvertising)
    .where(and(eq(listingAdvertising.workspaceId, workspaceId), eq(listingAdvertising.listingId, listingId)))
    .orderBy(sql`${listingAdvertising.wants} = 'archived'`, desc(listingAdvertising.id))
    .limit(1);
  return row ?? null;
}

/** The listing's advertising that is not archived nor being archived, whatever the workspace (the listing's work asks). */
export async function liveAdvertisingOfListing(db: Db, listingId: number): Promise<AdvertisingRow | null> {
  const [row] = await db
    .select()
    .from(listingAdvertising)
    .where(and(eq(listingAdvertising.listingId, listingId), ne(listingAdvertising.wants, 'archived')))
    .limit(1);
  return row ?? null;
}

/** The advertising; with `forUpdate`, locked until the caller's transaction ends. */
export async function advertisingById(db: Db, id: number, forUpdate = false): Promise<AdvertisingRow | null> {
  const query = db.select().from(listingAdvertising).where(eq(listingAdvertising.id, id)).limit(1);
  const [row] = forUpdate ? await query.for('update') : await query;
  return row ?? null;
}

export async function updateAdvertising(
  db: Db,
  id: number,
  fields: Partial<Omit<AdvertisingRow, 'id' | 'createdAt'>>,
  now: Date,
): Promise<AdvertisingRow> {
  const [row] = await db
    .update(listingAdvertising)
    .set({ ...fields, updatedAt: now })
    .where(eq(listingAdvertising.id, id))
    .returning();
  return row!;
}

/** The site's advertising whose work waits for a connection (advertising connected again sends it). */
export async function unsyncedAdvertisingOfSite(db: Db, siteId: number): Promise<Array<{ id: number; siteId: number }>> {
  return db
    .select({ id: listingAdvertising.id, siteId: listingAdvertising.siteId })
    .from(listingAdvertising)
    .where(and(eq(listingAdvertising.siteId, siteId), eq(listingAdvertising.syncStatus, 'syncing')));
}

/**
 * The profiles with advertising on Amazon whose figures may still change: every campaign made and not archived, and
 * those archived within `since` (their last days are reported late). One entry per site and profile.
 */
export async function reportedProfiles(db: Db, since: Date): Promise<Array<{ workspaceId: number; siteId: number; profileId: string }>> {
  return db
    .selectDistinct({
      workspaceId: listingAdvertising.workspaceId,
      siteId: listingAdvertising.siteId,
      profileId: listingAdvertising.profileId,
    })
    .from(listingAdvertising)
    .where(
      and(
        isNotNull(listingAdvertising.campaignId),
        sql`(${listingAdvertising.state} <> 'archived' or ${listingAdvertising.updatedAt} >= ${since.toISOString()})`,
      ),
    )
    .orderBy(asc(listingAdvertising.siteId), asc(listingAdvertising.profileId));
}

/** The advertising of a site's profile that has product ads, with them: a report's rows are matched by ad id. */
export async function advertisingOfProfile(db: Db, siteId: number, profileId: string): Promise<AdvertisingRow[]> {
  return db
    .select()
    .from(listingAdvertising)
    .where(
      and(eq(listingAdvertising.siteId, siteId), eq(listingAdvertising.profileId, profileId), isNotNull(listingAdvertising.campaignId)),
    );
}

/** Stores a report's days (a day reported again replaces the earlier figures: attribution keeps counting for a week). */
export async function saveDays(db: Db, days: AdvertisingDayRow[]): Promise<void> {
  if (days.length === 0) return;
  await db
    .insert(advertisingDays)
    .values(days)
    .onConflictDoUpdate({
      target: [advertisingDays.advertisingId, advertisingDays.date],
      set: {
        impressions: sql`excluded.impressions`,
        clicks: sql`excluded.clicks`,
        spend: sql`excluded.spend`,
        orders: sql`excluded.orders`,
        sales: sql`excluded.sales`,
      },
    });
}

export async function markMetricsRead(db: Db, ids: number[], now: Date): Promise<void> {
  if (ids.length === 0) return;
  await db.update(listingAdvertising).set({ metricsReadAt: now }).where(inArray(listingAdvertising.id, ids));
}

/** The days of every advertising of the listing (a listing advertised again adds up its campaigns) from `from` to `to`. */
export async function daysOfListing(db: Db, listingId: number, from: string, to: string) {
  return db
    .select({
      date: advertisingDays.date,
      impressions: sql<number>`sum(${advertisingDays.impressions})::int`,
      clicks: sql<number>`sum(${advertisingDays.clicks})::int`,
      spend: sql<string>`sum(${advertisingDays.spend})::text`,
      orders: sql<number>`sum(${advertisingDays.orders})::int`,
      sales: sql<string>`sum(${advertisingDays.sales})::text`,
    })
    .from(advertisingDays)
    .innerJoin(listingAdvertising, eq(listingAdvertising.id, advertisingDays.advertisingId))
    .where(and(eq(listingAdvertising.listingId, listingId), gte(advertisingDays.date, from), lte(advertisingDays.date, to)))
    .groupBy(advertisingDays.date)
    .orderBy(asc(advertisingDays.date));
}
