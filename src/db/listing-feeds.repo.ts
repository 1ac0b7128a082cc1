/**
 * Listings' offer changes waiting for, or held by, a bulk feed of their site (core/listings/offer-feeds.ts). A change is
 * queued while no feed holds its listing, claimed by one feed job at once, marked with the platform's feed id once
 * submitted, and deleted when the feed's outcome is recorded.
 */
import { and, asc, count, eq, inArray, isNotNull, isNull, ne, sql } from 'drizzle-orm';
import type { Db } from './client.js';
import { listingFeedItems, listings } from './schema.js';

export type FeedItemRow = typeof listingFeedItems.$inferSelect;

/**
 * Queues the listing's change for its site's next feed, replacing one queued before it; false when a feed holds the
 * listing already (the change waits for that feed's outcome).
 */
export async function queueChange(
  db: Db,
  item: { listingId: number; siteId: number; targetVersion: number; change: Record<string, unknown> },
  now: Date,
): Promise<boolean> {
  const rows = await db
    .insert(listingFeedItems)
    .values({ ...item, createdAt: now })
    .onConflictDoUpdate({
      target: listingFeedItems.listingId,
      set: { targetVersion: item.targetVersion, change: item.change, createdAt: now },
      setWhere: isNull(listingFeedItems.claim),
    })
    .returning({ listingId: listingFeedItems.listingId });
  return rows.length > 0;
}

/** Drops the listing's change that no feed took yet (its own work sends it instead); whether a feed holds one. */
export async function dropUnclaimed(db: Db, listingId: number): Promise<boolean> {
  await db.delete(listingFeedItems).where(and(eq(listingFeedItems.listingId, listingId), isNull(listingFeedItems.claim)));
  const [held] = await db.select({ n: count() }).from(listingFeedItems).where(eq(listingFeedItems.listingId, listingId));
  return (held?.n ?? 0) > 0;
}

/** Takes every queued change of the site for the feed job `claim`, in one statement: no change is in two feeds. */
export async function claimChanges(db: Db, siteId: number, claim: string): Promise<void> {
  await db
    .update(listingFeedItems)
    .set({ claim })
    .where(and(eq(listingFeedItems.siteId, siteId), isNull(listingFeedItems.claim)));
}

/** The site's changes claimed but not submitted (a feed job that stopped between the two), by claim. */
export async function unsubmitted(db: Db, siteId: number): Promise<FeedItemRow[]> {
  return db
    .select()
    .from(listingFeedItems)
    .where(and(eq(listingFeedItems.siteId, siteId), isNotNull(listingFeedItems.claim), isNull(listingFeedItems.feedId)))
    .orderBy(asc(listingFeedItems.listingId));
}

/** The site's feeds submitted and not yet recorded: each feed's id and marketplace. */
export async function submittedFeeds(db: Db, siteId: number): Promise<{ feedId: string; marketplaceId: string }[]> {
  const rows = await db
    .selectDistinct({ feedId: listingFeedItems.feedId, marketplaceId: sql<string>`${listingFeedItems.change} ->> 'marketplaceId'` })
    .from(listingFeedItems)
    .where(and(eq(listingFeedItems.siteId, siteId), isNotNull(listingFeedItems.feedId)));
  return rows.map((row) => ({ feedId: row.feedId!, marketplaceId: row.marketplaceId }));
}

/** Records the platform's id of the feed the listings' changes went in. */
export async function markSubmitted(db: Db, listingIds: readonly number[], feedId: string): Promise<void> {
  if (listingIds.length === 0) return;
  await db
    .update(listingFeedItems)
    .set({ feedId })
    .where(inArray(listingFeedItems.listingId, [...listingIds]));
}

/** The changes a feed carries, in the order of its messages. */
export async function itemsOfFeed(db: Db, siteId: number, feedId: string): Promise<FeedItemRow[]> {
  return db
    .select()
    .from(listingFeedItems)
    .where(and(eq(listingFeedItems.siteId, siteId), eq(listingFeedItems.feedId, feedId)))
    .orderBy(asc(listingFeedItems.listingId));
}

/** The feed's outcome is recorded: its changes are done. */
export async function release(db: Db, listingId: number): Promise<void> {
  await db.delete(listingFeedItems).where(eq(listingFeedItems.listingId, listingId));
}

/** Whether at least `atLeast` of the site's listings wait for their work (`syncing`): a burst of changes. */
export async function manyAwaitWork(db: Db, siteId: number, atLeast: number): Promise<boolean> {
  const awaiting = db
    .select({ id: listings.id })
    .from(listings)
    .where(and(eq(listings.siteId, siteId), eq(listings.syncStatus, 'syncing'), ne(listings.status, 'deleted')))
    .limit(atLeast)
    .as('awaiting');
  const [row] = await db.select({ n: count() }).from(awaiting);
  return (row?.n ?? 0) >= atLeast;
}
