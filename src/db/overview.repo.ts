/** What the workspace overview reads (issue 37, item 3): listings counted by site and state, and those needing a fix. */
import { and, count, desc, eq, inArray, ne, or, sql } from 'drizzle-orm';
import type { ListingIssue, ListingStatus, SyncStatus } from '../domain/index.js';
import type { Db } from './client.js';
import { listings, orderLines, orders, sites } from './schema.js';

/** How many listings of a site are in a status and a sync status (deleted ones aside). */
export interface ListingCount {
  siteId: number;
  status: ListingStatus;
  syncStatus: SyncStatus;
  count: number;
}

export async function countListings(db: Db, workspaceId: number): Promise<ListingCount[]> {
  return db
    .select({ siteId: listings.siteId, status: listings.status, syncStatus: listings.syncStatus, count: count() })
    .from(listings)
    .where(and(eq(listings.workspaceId, workspaceId), ne(listings.status, 'deleted')))
    .groupBy(listings.siteId, listings.status, listings.syncStatus);
}

/** A listing the seller has to act on: refused by its platform, in error, or whose last change failed to reach it. */
export interface ListingToFix {
  id: number;
  siteId: number;
  productId: number;
  title: string;
  status: ListingStatus;
  syncStatus: SyncStatus;
  issues: ListingIssue[];
  updatedAt: Date;
}

const needsFixing = (workspaceId: number) =>
  and(
    eq(listings.workspaceId, workspaceId),
    ne(listings.status, 'deleted'),
    or(inArray(listings.status, ['rejected', 'error']), eq(listings.syncStatus, 'failed')),
  );

/** The most recently changed listings needing a fix, at most `limit`. */
export async function listingsToFix(db: Db, workspaceId: number, limit: number): Promise<ListingToFix[]> {
  return db
    .select({
      id: listings.id,
      siteId: listings.siteId,
      productId: listings.productId,
      title: listings.title,
      status: listings.status,
      syncStatus: listings.syncStatus,
      issues: listings.issues,
      updatedAt: listings.updatedAt,
    })
    .from(listings)
    .where(needsFixing(workspaceId))
    .orderBy(desc(listings.updatedAt), desc(listings.id))
    .limit(limit);
}

/** Orders not cancelled with a line the stock pool could not cover (an `oversold` issue on the line). */
export async function countOversoldOrders(db: Db, workspaceId: number): Promise<number> {
  const [row] = await db
    .select({ count: sql<number>`count(distinct ${orders.id})::int` })
    .from(orders)
    .innerJoin(orderLines, eq(orderLines.orderId, orders.id))
    .where(
      and(
        eq(orders.workspaceId, workspaceId),
        ne(orders.status, 'cancelled'),
        sql`${orderLines.issues} @> '[{"code": "oversold"}]'::jsonb`,
      ),
    );
  return row?.count ?? 0;
}

/** The workspace's sites (disconnected ones too, which keep their listings), in id order. */
export async function overviewSites(db: Db, workspaceId: number) {
  return db
    .select({ id: sites.id, name: sites.name, platform: sites.platform, platformId: sites.platformId, status: sites.status })
    .from(sites)
    .where(eq(sites.workspaceId, workspaceId))
    .orderBy(sites.id);
}
