/**
 * The workspace overview (issue 37, item 3; docs/dashboard.md "Overview"): each site's listings counted by status and
 * sync status, the listings that need the seller (rejected, in error, a change that failed to reach the platform), and
 * how many orders were oversold. Sites needing reauthorization are each site's `status`.
 */
import type { Db } from '../../db/client.js';
import * as overviewRepo from '../../db/overview.repo.js';
import { LISTING_STATUSES, type ListingStatus, SYNC_STATUSES, type SyncStatus } from '../../domain/index.js';

/** How many listings needing a fix are named one by one; the rest are counted. */
export const LISTINGS_TO_FIX_SHOWN = 20;

type Shown = Exclude<ListingStatus, 'deleted'>;
export const SHOWN_STATUSES = LISTING_STATUSES.filter((s): s is Shown => s !== 'deleted');

const zeros = <K extends string>(keys: readonly K[]) => Object.fromEntries(keys.map((k) => [k, 0])) as Record<K, number>;

/** Each site's counts from the grouped rows: every status and sync status present, at zero when none. */
export function buildSiteCounts(siteIds: readonly number[], rows: readonly overviewRepo.ListingCount[]) {
  const bySite = new Map(siteIds.map((id) => [id, { total: 0, by_status: zeros(SHOWN_STATUSES), by_sync: zeros(SYNC_STATUSES) }]));
  for (const row of rows) {
    const counts = bySite.get(row.siteId);
    if (!counts || row.status === 'deleted') continue;
    counts.total += row.count;
    counts.by_status[row.status] += row.count;
    counts.by_sync[row.syncStatus as SyncStatus] += row.count;
  }
  return bySite;
}

export type OverviewService = ReturnType<typeof createOverviewService>;

export function createOverviewService(deps: { db: Db }) {
  const { db } = deps;
  return {
    async overview(workspaceId: number) {
      const [sites, counts, toFix, oversold] = await Promise.all([
        overviewRepo.overviewSites(db, workspaceId),
        overviewRepo.countListings(db, workspaceId),
        overviewRepo.listingsToFix(db, workspaceId, LISTINGS_TO_FIX_SHOWN),
        overviewRepo.countOversoldOrders(db, workspaceId),
      ]);
      const bySite = buildSiteCounts(
        sites.map((s) => s.id),
        counts,
      );
      const fixTotal = counts
        .filter((c) => c.status === 'rejected' || c.status === 'error' || c.syncStatus === 'failed')
        .reduce((sum, c) => sum + c.count, 0);
      return { sites: sites.map((site) => ({ ...site, listings: bySite.get(site.id)! })), toFix, fixTotal, oversold };
    },
  };
}
