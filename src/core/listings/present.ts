/** A listing as the API, its webhook events and the dashboard show it (DESIGN §10). */
import type { ListingRow } from '../../db/listings.repo.js';
import { fulfilledByPlatform } from '../../platforms/contracts/listings.js';

export function presentListing(row: ListingRow) {
  const first = row.variants[0];
  const delivered = (row.progress as { delivered?: Record<string, unknown> }).delivered;
  return {
    id: row.id,
    site_id: row.siteId,
    product_id: row.productId,
    platform_id: row.platformId,
    status: row.status,
    sync_status: row.syncStatus,
    platform_status: row.platformStatus,
    external_id: row.externalId,
    external_url: row.externalUrl,
    title: row.title,
    overrides: row.overrides,
    category_id: row.categoryId,
    attributes: row.attributes,
    marketplace_id: row.marketplaceId,
    variants: row.variants.map((variant) => ({
      ...variant,
      fulfilled_by: fulfilledByPlatform(delivered, variant.sku) ? ('platform' as const) : ('seller' as const),
    })),
    price: first?.price ?? null,
    quantity: first?.quantity ?? null,
    currency: row.currency,
    synced_version: row.syncedVersion,
    issues: row.issues,
    differences: row.differences,
    read_at: row.readAt?.toISOString() ?? null,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

export type Listing = ReturnType<typeof presentListing>;
