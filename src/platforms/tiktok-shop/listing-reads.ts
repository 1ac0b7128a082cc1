/**
 * A product read back from TikTok Shop (listings.md §2.4, §2.7): its state in Storelink's words, the product as an
 * import reads it, the shop's products a search page at a time, and what TikTok holds recorded as delivered.
 */
import type { ChangedListing, ExistingListing, ListingChanges, ListingsAdapter, ListingsCall } from '../contracts/listings.js';
import type { TikTokCategories } from './categories.js';
import { existingListing } from './existing.js';
import { platformListing, productOrGone, reader, SearchPage } from './listing-responses.js';
import { type OpenApi, PRODUCT_API, warehouseOf } from './open-api.js';

/** Products a search page answers: each is then read whole (Get Product), so a page is 21 calls. */
const EXISTING_PAGE_SIZE = 20;

/**
 * How often a shop's recently updated products are read (docs/listings.md, "Live"): TikTok Shop pushes its product
 * webhooks (types 5, 15, 27), so this read is the safety net for one lost: every 30 s, one Search Products call of the
 * products updated since (`update_time_ge`), far inside 50 calls a second per shop and API (listings.md §2.8).
 */
export const TIKTOK_CHANGES_EVERY_SECONDS = 30;
/** Products a read of recent changes asks for, and the pages it reads at most. */
const CHANGES_PAGE_SIZE = 50;
const CHANGES_PAGES_MAX = 4;

/** The progress, told what TikTok holds: images it no longer has forgotten, its SKU ids and fingerprints taken. */
export const reconcile: ListingsAdapter['reconcile'] = (progress, existing) => {
  const held = new Set(Object.values(existing.progress.images));
  const images = Object.fromEntries(Object.entries(progress.images).filter(([, uri]) => held.has(uri)));
  return {
    ...progress,
    images,
    variantIds: { ...progress.variantIds, ...existing.progress.variantIds },
    ...(existing.progress.locations ? { locations: { ...progress.locations, ...existing.progress.locations } } : {}),
    delivered: { ...progress.delivered, ...existing.progress.delivered },
  };
};

/** The reads of one adapter. */
export function createListingReads({ send }: OpenApi, categories: Pick<TikTokCategories, 'rawAttributes'>) {
  /** The product as TikTok holds it; null for one it does not have. */
  async function readProduct(call: ListingsCall, externalId: string) {
    return send(call, 'GET', `${PRODUCT_API}/products/${encodeURIComponent(externalId)}`, productOrGone);
  }

  async function existingOf(call: ListingsCall, externalId: string): Promise<ExistingListing | null> {
    const product = await readProduct(call, externalId);
    if (!product) return null;
    const categoryId = product.category_chains?.at(-1)?.id ?? '';
    return existingListing(product, (await categories.rawAttributes(call, categoryId)) ?? [], warehouseOf(call));
  }

  const reads = {
    async read(call, progress) {
      if (!progress.externalId) return null;
      const product = await readProduct(call, progress.externalId);
      return product && platformListing(product);
    },

    async readExisting(call, progress) {
      return progress.externalId ? existingOf(call, progress.externalId) : null;
    },

    /** Search Products, every status but deleted, a page at a time; each product then read whole for its content. */
    async existing(call, cursor) {
      const query: Record<string, string> = { page_size: String(EXISTING_PAGE_SIZE), ...(cursor ? { page_token: cursor } : {}) };
      const page = await send(call, 'POST', `${PRODUCT_API}/products/search`, reader(SearchPage), { query, json: { status: 'ALL' } });
      const listings: ExistingListing[] = [];
      for (const summary of page.products) {
        if (summary.status === 'DELETED') continue;
        const listing = await existingOf(call, summary.id);
        if (listing) listings.push(listing);
      }
      return { listings, next: page.next_page_token ? page.next_page_token : null };
    },
  } satisfies Pick<ListingsAdapter, 'read' | 'readExisting' | 'existing'>;

  /** Search Products filtered by `update_time_ge` (seconds): exactly the products changed since, any status. */
  const changes: ListingChanges = {
    everySeconds: TIKTOK_CHANGES_EVERY_SECONDS,
    feeds: ['all'],
    async changedSince(call, _feed, since) {
      const changed: ChangedListing[] = [];
      let token: string | null = null;
      for (let page = 0; page < CHANGES_PAGES_MAX; page++) {
        const query: Record<string, string> = { page_size: String(CHANGES_PAGE_SIZE), ...(token ? { page_token: token } : {}) };
        const json = { status: 'ALL', update_time_ge: Math.floor(since.getTime() / 1000) };
        const answer = await send(call, 'POST', `${PRODUCT_API}/products/search`, reader(SearchPage), { query, json });
        for (const summary of answer.products)
          changed.push({ externalId: summary.id, updatedAt: summary.update_time ? new Date(summary.update_time * 1000) : since });
        token = answer.next_page_token ? answer.next_page_token : null;
        if (!token) break;
      }
      return changed;
    },
  };

  return { readProduct, ...reads, changes };
}

export type TikTokListingReads = ReturnType<typeof createListingReads>;
