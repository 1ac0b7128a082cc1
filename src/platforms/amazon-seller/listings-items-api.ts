/**
 * Amazon's Listings Items API for one SKU (listings.md §3.3–3.6): put whole (or as a VALIDATION_PREVIEW that changes
 * nothing), patched, deleted, and read with its summaries, attributes, issues, offers and stock.
 */
import type { ListingProgress, ListingsCall } from '../contracts/listings.js';
import { type AmazonMarketplace, heldSkus, itemPath } from './listing-requests.js';
import {
  type AmazonItem,
  ITEM_DATA,
  Item,
  isNotFound,
  reader,
  readerOrGone,
  refusedSubmission,
  SearchResults,
  Submission,
} from './listing-responses.js';
import type { SpApi } from './sp-api.js';

/** The Listings Items calls of one adapter, through its SP-API caller. */
export function createListingsItemsApi({ send }: SpApi) {
  /** Puts the SKU whole; Amazon's submission answered (refused or not: the caller reads it). */
  async function putSku(call: ListingsCall, marketplace: AmazonMarketplace, sku: string, body: unknown, preview: boolean) {
    return send(call, marketplace, 'putListingsItem', 'PUT', itemPath(call.externalId, sku), reader(Submission, true), {
      query: { marketplaceIds: marketplace.id, includedData: 'issues,identifiers', ...(preview ? { mode: 'VALIDATION_PREVIEW' } : {}) },
      json: body,
    });
  }

  /** Patches the SKU (its offer, its stock); a refused patch throws. */
  async function patchSku(call: ListingsCall, marketplace: AmazonMarketplace, sku: string, body: unknown) {
    const path = itemPath(call.externalId, sku);
    const submission = await send(call, marketplace, 'patchListingsItem', 'PATCH', path, reader(Submission, true), {
      query: { marketplaceIds: marketplace.id, includedData: 'issues' },
      json: body,
    });
    const refused = refusedSubmission(submission, `${sku}: `);
    if (refused) throw refused;
  }

  /** Deletes one SKU; one deleted already (a delete whose answer was lost, or the seller's in Seller Central) is done. */
  async function deleteSku(call: ListingsCall, marketplace: AmazonMarketplace, sku: string) {
    const path = itemPath(call.externalId, sku);
    const submission = await send(call, marketplace, 'deleteListingsItem', 'DELETE', path, reader(Submission, true), {
      query: { marketplaceIds: marketplace.id },
    });
    const refused = !isNotFound(submission) && refusedSubmission(submission, `${sku}: `);
    if (refused) throw refused;
  }

  /** The SKU as Amazon holds it; null for one it does not have. */
  async function readItem(call: ListingsCall, marketplace: AmazonMarketplace, sku: string): Promise<AmazonItem | null> {
    return send(call, marketplace, 'getListingsItem', 'GET', itemPath(call.externalId, sku), readerOrGone(Item, true), {
      query: { marketplaceIds: marketplace.id, includedData: ITEM_DATA },
    });
  }

  /** The listing's SKUs as Amazon holds them (those it no longer has left out). */
  async function readItems(call: ListingsCall, marketplace: AmazonMarketplace, progress: ListingProgress) {
    const items: AmazonItem[] = [];
    for (const sku of heldSkus(progress.delivered, progress.externalId)) {
      const item = await readItem(call, marketplace, sku);
      if (item) items.push(item);
    }
    return items;
  }

  /**
   * The seller's SKUs updated after `since` in the marketplace, the latest first (searchListingsItems sorted by
   * lastUpdatedDate, listings.md §3.7), with their summaries alone: a page, and the token of the next one.
   */
  async function recentItems(call: ListingsCall, marketplace: AmazonMarketplace, since: Date, pageSize: number, pageToken: string | null) {
    const path = `/listings/2021-08-01/items/${encodeURIComponent(call.externalId)}`;
    return send(call, marketplace, 'searchListingsItems', 'GET', path, reader(SearchResults), {
      query: {
        marketplaceIds: marketplace.id,
        includedData: 'summaries',
        lastUpdatedAfter: since.toISOString(),
        sortBy: 'lastUpdatedDate',
        sortOrder: 'DESC',
        pageSize: String(pageSize),
        ...(pageToken ? { pageToken } : {}),
      },
    });
  }

  return { putSku, patchSku, deleteSku, readItem, readItems, recentItems };
}

export type ListingsItemsApi = ReturnType<typeof createListingsItemsApi>;
