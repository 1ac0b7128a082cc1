/**
 * The sandbox Amazon's listings, in memory per running sandbox (DESIGN §10 "Sandbox"): one record per seller, SKU and
 * marketplace, as Amazon keeps a listing's data per marketplace (a Listings Item's `summaries` has one entry each).
 * An accepted submission is processed `SANDBOX_REVIEW_SECONDS` later, settled lazily from the clock when read (no
 * timers), as the TikTok Shop audit is: until then buyers see what they saw before (nothing for a new SKU); after it,
 * BUYABLE and DISCOVERABLE, DISCOVERABLE alone without stock or offer, or suppressed with an issue when the item
 * name holds the word `prohibited` (listings.md §3.4: "ACCEPTED ≠ live"; issues found after acceptance appear on GET).
 */
import { createHash } from 'node:crypto';
import type { SandboxContext } from '../context.js';
import { refill, registerStatePart } from '../state.js';
import type { Issue } from './listings-validation.js';
import type { Requirements } from './product-types.js';

export type ListingStatus = 'BUYABLE' | 'DISCOVERABLE';
export type Attributes = Record<string, unknown>;

/** What buyers see of a listing: its statuses and the issues found in processing. */
export interface Verdict {
  status: ListingStatus[];
  issues: Issue[];
}

export interface StoredListing {
  account: number;
  marketplaceId: string;
  sku: string;
  productType: string;
  requirements: Requirements;
  attributes: Attributes;
  asin: string;
  createdAt: number;
  updatedAt: number;
  /** When the last accepted submission is processed. */
  reviewDueAt: number;
  /** The verdict buyers saw before the last submission, shown until it is processed. */
  previous: Verdict;
}

/** An item of the sandbox's Amazon catalogue, which an offer-only listing must name by its ASIN. */
export interface CatalogueItem {
  asin: string;
  title: string;
  productType: string;
  image: string;
}

const PROHIBITED = /\bprohibited\b/i;

/**
 * ASINs the sandbox catalogue has before any listing made one, to try LISTING_OFFER_ONLY (their images are hosted by
 * the sandbox). Any ASIN a LISTING made is in the catalogue too, for every seller, as on Amazon.
 */
export const CATALOGUE: ReadonlyArray<Omit<CatalogueItem, 'image'>> = [
  { asin: 'B0CATAL001', title: 'Stainless steel insulated water bottle, 750 ml', productType: 'KITCHEN' },
  { asin: 'B0CATAL002', title: 'Cotton canvas tote bag, natural', productType: 'LUGGAGE' },
  { asin: 'B0CATAL003', title: 'Scented soy candle, lavender, 200 g', productType: 'HOME' },
  { asin: 'B0CATAL004', title: 'Classic crew-neck T-shirt, black', productType: 'SHIRT' },
  { asin: 'B0CATAL005', title: 'Bamboo cutting board, large', productType: 'KITCHEN' },
];

/**
 * ASSUMPTION: the code and wording of the suppression a prohibited word brings (the shape, with LISTING_SUPPRESSED,
 * is the model's Issue; 99300 is the model example's "Product Detail Page Rules Violation").
 */
export const prohibitedIssue = (marketplaceId: string): Issue => ({
  code: '99300',
  message: 'Product Detail Page Rules Violation (The item name contains a prohibited word).',
  severity: 'ERROR',
  attributeNames: ['item_name'],
  categories: ['INVALID_ATTRIBUTE'],
  enforcements: { actions: [{ action: 'LISTING_SUPPRESSED' }], exemption: { status: 'NOT_EXEMPT' } },
  marketplaceIds: [marketplaceId],
});

/** The first value object of an attribute, or undefined. */
export function firstValue(attributes: Attributes, name: string): Record<string, unknown> | undefined {
  const values = attributes[name];
  const first = Array.isArray(values) ? values[0] : undefined;
  return typeof first === 'object' && first !== null ? (first as Record<string, unknown>) : undefined;
}

/** The `value` of an attribute's first value object when it is text. */
export function textOf(attributes: Attributes, name: string): string | undefined {
  const value = firstValue(attributes, name)?.value;
  return typeof value === 'string' ? value : undefined;
}

/** The listing's price in its marketplace (`our_price` of the offer to all buyers), or null. */
export function priceOf(listing: StoredListing): { amount: number; currency: string } | null {
  const offers = Array.isArray(listing.attributes.purchasable_offer)
    ? (listing.attributes.purchasable_offer as Record<string, unknown>[])
    : [];
  const offer = offers.find(
    (each) => (each.marketplace_id ?? listing.marketplaceId) === listing.marketplaceId && (each.audience ?? 'ALL') === 'ALL',
  );
  const price = (offer?.our_price as { schedule?: { value_with_tax?: unknown }[] }[] | undefined)?.[0]?.schedule?.[0]?.value_with_tax;
  return typeof price === 'number' && typeof offer?.currency === 'string' ? { amount: price, currency: offer.currency } : null;
}

const availabilityOf = (listing: StoredListing) =>
  Array.isArray(listing.attributes.fulfillment_availability)
    ? (listing.attributes.fulfillment_availability as Record<string, unknown>[])
    : [];

/**
 * Who fulfils the SKU: `DEFAULT` (the seller), or Amazon's channel of its region (`AMAZON_NA` …) for a SKU the seller
 * sent to FBA in Seller Central (and has no `DEFAULT` entry).
 */
export function channelOf(listing: StoredListing): string {
  const entries = availabilityOf(listing);
  if (entries.some((each) => each.fulfillment_channel_code === 'DEFAULT')) return 'DEFAULT';
  const amazon = entries.find((each) => typeof each.fulfillment_channel_code === 'string' && each.fulfillment_channel_code !== 'DEFAULT');
  return (amazon?.fulfillment_channel_code as string | undefined) ?? 'DEFAULT';
}

/**
 * The quantity for sale: the seller's (channel DEFAULT), or for an FBA SKU Amazon's count (the sandbox keeps it as the
 * channel entry's `quantity`, ASSUMPTION: a stand-in for Amazon's warehouse count); 0 without either.
 */
export function quantityOf(listing: StoredListing): number {
  const channel = channelOf(listing);
  const quantity = availabilityOf(listing).find((each) => each.fulfillment_channel_code === channel)?.quantity;
  return typeof quantity === 'number' ? quantity : 0;
}

/** The handling time of the seller's own channel (`lead_time_to_ship_max_days`), or null where none is set. */
export function handlingTimeOf(listing: StoredListing): number | null {
  const entries = Array.isArray(listing.attributes.fulfillment_availability)
    ? (listing.attributes.fulfillment_availability as Record<string, unknown>[])
    : [];
  const days = entries.find((each) => each.fulfillment_channel_code === 'DEFAULT')?.lead_time_to_ship_max_days;
  return typeof days === 'number' ? days : null;
}

/** A stable fake ASIN for a seller's SKU: `B0` and eight characters, the same in every marketplace. */
export function asinFor(account: number, sku: string): string {
  const digest = createHash('sha256').update(`${account}:${sku}`).digest();
  const alphabet = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ';
  return `B0${Array.from(digest.subarray(0, 8), (byte) => alphabet[byte % alphabet.length]).join('')}`;
}

export type ListingsStore = ReturnType<typeof createListingsStore>;

function createListingsStore(context: SandboxContext) {
  const listings = new Map<string, StoredListing>();
  const stocked = new Set<number>();
  registerStatePart(context.stateParts, 'amazon-seller:listings', {
    save: () => ({ listings, stocked }),
    load: (state) => {
      const saved = state as { listings: typeof listings; stocked: typeof stocked };
      refill(listings, saved.listings);
      refill(stocked, saved.stocked);
    },
  });
  const key = (account: number, marketplaceId: string, sku: string) => `${account}|${marketplaceId}|${sku}`;
  const now = () => context.clock.nowMs();
  const imageBase = `${context.sandboxUrl}/amazon-seller/images`;

  const catalogueItem = (asin: string): CatalogueItem | undefined => {
    const builtIn = CATALOGUE.find((item) => item.asin === asin);
    if (builtIn) return { ...builtIn, image: `${imageBase}/catalog-${asin.toLowerCase()}.jpg` };
    const made = [...listings.values()].find((listing) => listing.asin === asin && listing.requirements !== 'LISTING_OFFER_ONLY');
    const title = made && textOf(made.attributes, 'item_name');
    const image = made && locationOf(made);
    return made && title ? { asin, title, productType: made.productType, image: image ?? '' } : undefined;
  };

  /** What processing made of the listing's current data. */
  const settledVerdict = (listing: StoredListing): Verdict => {
    const title = textOf(listing.attributes, 'item_name') ?? catalogueItem(listing.asin)?.title ?? '';
    if (PROHIBITED.test(title)) return { status: [], issues: [prohibitedIssue(listing.marketplaceId)] };
    const buyable = listing.requirements !== 'LISTING_PRODUCT_ONLY' && priceOf(listing) !== null && quantityOf(listing) > 0;
    return { status: buyable ? ['BUYABLE', 'DISCOVERABLE'] : ['DISCOVERABLE'], issues: [] };
  };

  return {
    imageBase,
    catalogueItem,
    /** What buyers see of the listing now. */
    verdictOf: (listing: StoredListing): Verdict => (now() >= listing.reviewDueAt ? settledVerdict(listing) : listing.previous),
    /** True while the last accepted submission is still being processed. */
    inReview: (listing: StoredListing) => now() < listing.reviewDueAt,
    get: (account: number, marketplaceId: string, sku: string) => listings.get(key(account, marketplaceId, sku)),
    /** Every listing of the account, in every marketplace, oldest first. */
    ofAccount: (account: number) => [...listings.values()].filter((listing) => listing.account === account),
    /**
     * Stores an accepted submission (a new SKU, or one fully replaced or patched), processed after the review time, or
     * at once (`settled`) for a seller's own edit or a listing made outside Storelink.
     */
    accept(
      entry: Omit<StoredListing, 'createdAt' | 'updatedAt' | 'reviewDueAt' | 'previous'>,
      options: { at?: number; settled?: boolean } = {},
    ) {
      const at = options.at ?? now();
      const existing = listings.get(key(entry.account, entry.marketplaceId, entry.sku));
      const previous: Verdict = existing
        ? at >= existing.reviewDueAt
          ? settledVerdict(existing)
          : existing.previous
        : { status: [], issues: [] };
      const listing: StoredListing = {
        ...entry,
        createdAt: existing?.createdAt ?? at,
        updatedAt: at,
        reviewDueAt: options.settled ? at : at + context.reviewSeconds * 1000,
        previous,
      };
      listings.set(key(entry.account, entry.marketplaceId, entry.sku), listing);
      return listing;
    },
    remove: (listing: StoredListing) => listings.delete(key(listing.account, listing.marketplaceId, listing.sku)),
    /** True the first time an account is stocked with listings made outside Storelink. */
    stock: (account: number) => !stocked.has(account) && Boolean(stocked.add(account)),
  };
}

/** The main image's location of a listing, if it has one. */
function locationOf(listing: StoredListing): string | undefined {
  const location = firstValue(listing.attributes, 'main_product_image_locator')?.media_location;
  return typeof location === 'string' ? location : undefined;
}

/** The main image's location of a listing, or of its catalogue item for an offer-only one. */
export function mainImageOf(store: ListingsStore, listing: StoredListing): string | undefined {
  return locationOf(listing) ?? store.catalogueItem(listing.asin)?.image;
}

// One store per running sandbox, shared by the three regions' simulators and the sandbox's own routes.
const stores = new WeakMap<SandboxContext, ListingsStore>();

/** The listings of a running sandbox. */
export function amazonListingsOf(context: SandboxContext): ListingsStore {
  let store = stores.get(context);
  if (!store) stores.set(context, (store = createListingsStore(context)));
  return store;
}
