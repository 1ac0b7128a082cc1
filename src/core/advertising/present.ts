/** A listing's advertising as the API, its webhook events and the dashboard show it (DESIGN §13). */
import type { AdvertisingRow } from '../../db/advertising.repo.js';
import { type ListingIssue, storelinkIssue } from '../../domain/index.js';

/** The issue advertising shows while its site's advertising grant is gone: nothing is paused on Amazon, nothing changes. */
const RECONNECT: ListingIssue = storelinkIssue(
  null,
  'advertising_reauthorization_required',
  'Amazon Ads access was taken back or has lapsed: the ads run on Amazon as they were, but Storelink cannot change them or read their figures until advertising is connected again on the site.',
);

/** `connected`: whether the site's advertising is connected (else, unless it has ended, it must be reconnected). */
export function presentAdvertising(row: AdvertisingRow, connected = true) {
  return {
    id: row.id,
    listing_id: row.listingId,
    site_id: row.siteId,
    profile_id: row.profileId,
    marketplace_id: row.marketplaceId,
    currency: row.currency,
    campaign_id: row.campaignId,
    ad_group_id: row.adGroupId,
    ad_ids: Object.values(row.adIds),
    skus: row.adIds,
    state: row.state,
    sync_status: row.syncStatus,
    targeting: row.targeting,
    daily_budget: row.dailyBudget,
    default_bid: row.defaultBid,
    issues: connected || row.state === 'archived' ? row.issues : [RECONNECT, ...row.issues],
    metrics_read_at: row.metricsReadAt?.toISOString() ?? null,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

export type Advertising = ReturnType<typeof presentAdvertising>;
