/**
 * A listing read back from its SKUs (listings.md §3.6–3.7): its state in Storelink's words, the listing as an import
 * reads it, and what Amazon holds recorded as delivered where a seller changed it in Seller Central.
 */
import {
  type ChangedListing,
  type ExistingListing,
  type ListingChanges,
  type ListingProgress,
  type ListingsAdapter,
  type ListingsCall,
  PLATFORM_FULFILLED,
  type PlatformListing,
} from '../contracts/listings.js';
import { existingFamily, existingListing } from './existing.js';
import { type AmazonMarketplace, ASIN, HANDLING, productPageOf } from './listing-requests.js';
import { type AmazonItem, childrenOfItem, issuesOf, listingStatus, recordChannels, skuState } from './listing-responses.js';
import { contextOf, skuPrefix } from './listing-validation.js';
import type { ListingsItemsApi } from './listings-items-api.js';
import type { AmazonProductTypes } from './product-types.js';
import { type AmazonListingsDeps, marketplaceFor } from './sp-api.js';

/**
 * The listing's state from its SKUs': active if one is, else in review, else rejected, else inactive; Amazon's word
 * the first SKU's; every SKU's issues (named by SKU in a product of several). The ASINs are recorded as variant ids.
 */
function stateOf(items: readonly AmazonItem[], marketplace: AmazonMarketplace, progress: ListingProgress, now: Date): PlatformListing {
  const states = items.map((item) => skuState(item, marketplace.id, now));
  recordChannels(progress.delivered, items);
  const issues = items.flatMap((item) => issuesOf(item.issues, skuPrefix(items.length, item.sku)));
  let asin: string | undefined;
  for (const item of items) {
    const found = item.summaries?.find((each) => each.marketplaceId === marketplace.id)?.asin;
    if (found) progress.variantIds[item.sku] = found;
    asin ??= found;
  }
  const externalUrl = productPageOf(marketplace.id, asin);
  if (externalUrl) progress.externalUrl = externalUrl;
  return { status: listingStatus(states.map((s) => s.status)), platformStatus: states[0]!.platformStatus, externalUrl, issues };
}

/** The SKUs of one listing, each read as an import reads it, as one product: the variants the SKUs, the title the first's. */
function oneListing(found: readonly [ExistingListing, ...ExistingListing[]], state: PlatformListing, progress: ListingProgress) {
  const [first] = found;
  return {
    ...first,
    externalId: progress.externalId ?? first.externalId,
    state,
    product: {
      ...first.product,
      // The product's own title: the item names of a product of several variants end with an em dash and their option values.
      title: found.length > 1 ? first.product.title.replace(/ \u2014 [^\u2014]*$/, '') : first.product.title,
      variants: found.flatMap((listing) => listing.product.variants),
    },
    progress: {
      ...first.progress,
      externalId: progress.externalId,
      delivered: Object.assign({}, ...found.map((listing) => listing.progress.delivered)),
      variantIds: Object.assign({}, ...found.map((listing) => listing.progress.variantIds)),
    },
  };
}

/**
 * What Amazon holds now, recorded as delivered where a seller edits it in Seller Central: each SKU's item name and
 * description, price and stock (the stock not while the listing is off), so the next delivery sends the catalogue's
 * again, and only there. The rest of a SKU's attributes is not compared: Amazon adds attributes of its own.
 */
export const reconcile: ListingsAdapter['reconcile'] = (progress, existing) => {
  const delivered = { ...progress.delivered };
  for (const [key, value] of Object.entries(existing.progress.delivered)) {
    if (!/^(text|offer|quantity)\./.test(key) || !(key in delivered)) continue;
    if (key.startsWith('quantity.') && delivered.off === '1') continue;
    if (key.startsWith('text.') && delivered[key] !== value) {
      // The item name or description changed on Amazon: the SKU is put whole again.
      delivered[`item.${key.slice('text.'.length)}`] = 'changed on Amazon';
    }
    delivered[key] = value;
  }
  // Which SKUs Amazon fulfils (FBA), and the handling time of the others, as Amazon says now: a SKU the seller sent to
  // FBA, or took back, or whose handling time they set, in Seller Central.
  const recorded = (key: string) => key.startsWith(PLATFORM_FULFILLED) || key.startsWith(HANDLING);
  for (const key of Object.keys(delivered)) if (recorded(key) && !(key in existing.progress.delivered)) delete delivered[key];
  for (const [key, value] of Object.entries(existing.progress.delivered)) if (recorded(key)) delivered[key] = value;
  return { ...progress, delivered, variantIds: { ...progress.variantIds, ...existing.progress.variantIds } };
};

/**
 * How often a seller's recently updated SKUs are read (docs/listings.md, "Live"): every 30 s, one searchListingsItems
 * call (5 a second per seller, listings.md §3.11: this is 1 % of it), so a change made in Seller Central shows within a
 * minute once Amazon has processed it. A listing of several SKUs is named by any of them: core maps a SKU to its listing.
 */
export const AMAZON_CHANGES_EVERY_SECONDS = 30;
const CHANGES_PAGE_SIZE = 20;
const CHANGES_PAGES_MAX = 3;

/** The reads of one adapter. */
export function createListingReads(productTypes: AmazonProductTypes, items: ListingsItemsApi, deps: Pick<AmazonListingsDeps, 'clock'>) {
  /** What the item's product type's schema says of its attributes, as an import builds a listing with. */
  async function importContext(call: ListingsCall, marketplace: AmazonMarketplace, item: AmazonItem) {
    const summary = item.summaries?.find((each) => each.marketplaceId === marketplace.id) ?? item.summaries?.[0];
    const type = summary?.productType ?? 'PRODUCT';
    const offerOnly = ASIN in (item.attributes ?? {}) && !('item_name' in (item.attributes ?? {}));
    const definition = await productTypes.definitionOf(call, marketplace, type, offerOnly ? 'LISTING_OFFER_ONLY' : 'LISTING');
    const schema = definition ? await productTypes.schemaOf(call, definition) : null;
    const { off: _, family: __, ...context } = contextOf(call, marketplace, schema ?? { shapes: {}, properties: new Set<string>() }, false);
    return context;
  }

  /** A SKU as an import reads it, with what its product type's schema says of its attributes. */
  async function existingOf(call: ListingsCall, marketplace: AmazonMarketplace, item: AmazonItem): Promise<ExistingListing> {
    return existingListing(item, await importContext(call, marketplace, item), deps.clock.now());
  }

  /** A family's parent and the children its relationships name, read as one product; null for a parent without any. */
  async function existingFamilyOf(call: ListingsCall, marketplace: AmazonMarketplace, parent: AmazonItem) {
    const children: AmazonItem[] = [];
    for (const sku of childrenOfItem(parent, marketplace.id)) {
      const child = await items.readItem(call, marketplace, sku);
      if (child) children.push(child);
    }
    return existingFamily(parent, children, await importContext(call, marketplace, parent), deps.clock.now());
  }

  /** The listing as Amazon holds it now; null when it has none of its SKUs. */
  async function read(call: ListingsCall, progress: ListingProgress): Promise<PlatformListing | null> {
    const marketplace = marketplaceFor(call, progress);
    const found = await items.readItems(call, marketplace, progress);
    return found.length === 0 ? null : stateOf(found, marketplace, progress, deps.clock.now());
  }

  /** The listing's SKUs read as an import reads them, as one product. */
  async function readExisting(call: ListingsCall, progress: ListingProgress): Promise<ExistingListing | null> {
    const marketplace = marketplaceFor(call, progress);
    const found = await items.readItems(call, marketplace, progress);
    if (found.length === 0) return null;
    const listings: ExistingListing[] = [];
    for (const item of found) listings.push(await existingOf(call, marketplace, item));
    const state = stateOf(found, marketplace, progress, deps.clock.now());
    return oneListing(listings as [ExistingListing, ...ExistingListing[]], state, progress);
  }

  /** searchListingsItems, the SKUs of the site's marketplace updated since, the latest first (listings.md §3.7). */
  const changes: ListingChanges = {
    everySeconds: AMAZON_CHANGES_EVERY_SECONDS,
    feeds: ['all'],
    async changedSince(call, _feed, since) {
      const marketplace = marketplaceFor(call);
      const changed: ChangedListing[] = [];
      let token: string | null = null;
      for (let page = 0; page < CHANGES_PAGES_MAX; page++) {
        const answer = await items.recentItems(call, marketplace, since, CHANGES_PAGE_SIZE, token);
        for (const item of answer.items) {
          const summary = item.summaries?.find((each) => each.marketplaceId === marketplace.id) ?? item.summaries?.[0];
          const at = summary?.lastUpdatedDate ? Date.parse(summary.lastUpdatedDate) : Number.NaN;
          changed.push({ externalId: item.sku, updatedAt: Number.isNaN(at) ? since : new Date(at) });
        }
        token = answer.pagination?.nextToken ?? null;
        if (!token) break;
      }
      return changed;
    },
  };

  return { existingOf, existingFamilyOf, read, readExisting, changes };
}

export type ListingReads = ReturnType<typeof createListingReads>;
