/**
 * Listings as SP-API answers them (the Listings Items model's Item: `sku` and the `includedData` sets asked for, each
 * per marketplace), and as the sandbox's inspection shows them (DESIGN §10's `{id, title, state, skus}` plus the
 * marketplace, Amazon's status and issues).
 */
import {
  channelOf,
  handlingTimeOf,
  type ListingsStore,
  mainImageOf,
  priceOf,
  quantityOf,
  type StoredListing,
  textOf,
} from './listings-store.js';
import { parentSkuOf, themeOf } from './listings-submissions.js';
import { themeAttributes } from './product-types.js';

export const INCLUDED_DATA = [
  'summaries',
  'attributes',
  'issues',
  'offers',
  'fulfillmentAvailability',
  'procurement',
  'relationships',
  'productTypes',
] as const;
export type IncludedData = (typeof INCLUDED_DATA)[number];

const iso = (ms: number) => new Date(ms).toISOString();

/** A price as the model's Decimal (text): whole yen, cents elsewhere. */
export const decimalOf = (amount: number, currency: string) => amount.toFixed(currency === 'JPY' ? 0 : 2);

/** The item's name: its own `item_name`, or its catalogue item's title for an offer-only listing. */
export const itemNameOf = (store: ListingsStore, listing: StoredListing) =>
  textOf(listing.attributes, 'item_name') ?? store.catalogueItem(listing.asin)?.title ?? '';

function summaryOf(store: ListingsStore, listing: StoredListing) {
  const image = mainImageOf(store, listing);
  const condition = textOf(listing.attributes, 'condition_type');
  return {
    marketplaceId: listing.marketplaceId,
    asin: listing.asin,
    productType: listing.productType,
    ...(condition ? { conditionType: condition } : {}),
    status: store.verdictOf(listing).status,
    itemName: itemNameOf(store, listing),
    createdDate: iso(listing.createdAt),
    lastUpdatedDate: iso(listing.updatedAt),
    // ASSUMPTION: the sandbox never downloads an image, so every one is said to be 1000 x 1000 pixels.
    ...(image ? { mainImage: { link: image, height: 1000, width: 1000 } } : {}),
  };
}

/** The attributes of every marketplace's listing of the SKU, values of the same attribute together. */
function attributesOf(listings: readonly StoredListing[]) {
  const merged: Record<string, unknown[]> = {};
  for (const listing of listings)
    for (const [name, values] of Object.entries(listing.attributes)) {
      const known = new Set((merged[name] ?? []).map((value) => JSON.stringify(value)));
      const fresh = (Array.isArray(values) ? values : [values]).filter((value) => !known.has(JSON.stringify(value)));
      merged[name] = [...(merged[name] ?? []), ...fresh];
    }
  return merged;
}

const SECTIONS: Record<IncludedData, (store: ListingsStore, listings: readonly StoredListing[]) => unknown> = {
  summaries: (store, listings) => listings.map((listing) => summaryOf(store, listing)),
  attributes: (_store, listings) => attributesOf(listings),
  issues: (store, listings) => listings.flatMap((listing) => store.verdictOf(listing).issues),
  offers: (_store, listings) =>
    listings.flatMap((listing) => {
      const price = priceOf(listing);
      if (!price) return [];
      return [
        {
          marketplaceId: listing.marketplaceId,
          offerType: 'B2C',
          price: { currencyCode: price.currency, amount: decimalOf(price.amount, price.currency) },
          audience: { value: 'ALL', displayName: 'Sell on Amazon' },
        },
      ];
    }),
  // Fulfilment is per seller and channel, not per marketplace: the first marketplace's stands for all.
  fulfillmentAvailability: (_store, listings) =>
    listings
      .slice(0, 1)
      .flatMap((listing) =>
        listing.requirements === 'LISTING_PRODUCT_ONLY'
          ? []
          : [{ fulfillmentChannelCode: channelOf(listing), quantity: quantityOf(listing) }],
      ),
  // Vendors' cost prices: a seller account has none.
  procurement: () => [],
  relationships: (store, listings) =>
    listings.map((listing) => ({ marketplaceId: listing.marketplaceId, relationships: relationshipsOf(store, listing) })),
  productTypes: (_store, listings) =>
    listings.map((listing) => ({ marketplaceId: listing.marketplaceId, productType: listing.productType })),
};

/**
 * A SKU's variation relationships as the Listings Items model's ItemRelationship: a child's parent SKU, a parent's
 * children in the marketplace, each with the family's theme and the attributes it varies on.
 */
function relationshipsOf(store: ListingsStore, listing: StoredListing) {
  const level = textOf(listing.attributes, 'parentage_level');
  const theme = themeOf(listing.attributes);
  const variationTheme = theme ? { variationTheme: { attributes: themeAttributes(theme), theme } } : {};
  if (level === 'child' && parentSkuOf(listing.attributes))
    return [{ type: 'VARIATION', parentSkus: [parentSkuOf(listing.attributes)!], ...variationTheme }];
  if (level !== 'parent') return [];
  const children = childrenOf(store, listing).map((child) => child.sku);
  return [{ type: 'VARIATION', childSkus: children, ...variationTheme }];
}

/** A parent's children: the seller's SKUs in its marketplace that name it as their parent. */
export const childrenOf = (store: ListingsStore, parent: StoredListing) =>
  store
    .ofAccount(parent.account)
    .filter(
      (each) =>
        each.marketplaceId === parent.marketplaceId &&
        textOf(each.attributes, 'parentage_level') === 'child' &&
        parentSkuOf(each.attributes) === parent.sku,
    );

/** An Item of getListingsItem or searchListingsItems: one SKU's listings in the marketplaces asked for. */
export function presentItem(store: ListingsStore, listings: readonly StoredListing[], included: readonly IncludedData[]) {
  const item: Record<string, unknown> = { sku: listings[0]!.sku };
  for (const name of included) item[name] = SECTIONS[name](store, listings);
  return item;
}

/**
 * Storelink's plain word for what buyers see: `in_review` before the first processing, then the verdict's; a family's
 * parent, which is never buyable, is active once discoverable (its children are what buyers buy).
 */
function stateOf(store: ListingsStore, listing: StoredListing): string {
  const verdict = store.verdictOf(listing);
  if (verdict.issues.some((issue) => issue.enforcements?.actions.some((each) => each.action === 'LISTING_SUPPRESSED'))) return 'rejected';
  if (verdict.status.includes('BUYABLE')) return 'active';
  if (verdict.status.includes('DISCOVERABLE')) return textOf(listing.attributes, 'parentage_level') === 'parent' ? 'active' : 'inactive';
  return store.inReview(listing) ? 'in_review' : 'inactive';
}

/**
 * A listing as the inspection shows it: one entry per SKU and marketplace; a family's child names its `parent_sku`, its
 * parent its `variation_theme` (DESIGN §15), with no price of its own.
 */
export function presentInspected(store: ListingsStore, listing: StoredListing) {
  const price = priceOf(listing);
  const verdict = store.verdictOf(listing);
  const level = textOf(listing.attributes, 'parentage_level');
  return {
    id: listing.sku,
    title: itemNameOf(store, listing),
    state: stateOf(store, listing),
    ...(level === 'child' ? { parent_sku: parentSkuOf(listing.attributes) ?? null } : {}),
    ...(level === 'parent' ? { variation_theme: themeOf(listing.attributes) ?? null } : {}),
    skus: [{ sku: listing.sku, price: price ? decimalOf(price.amount, price.currency) : null, quantity: quantityOf(listing) }],
    handling_time: handlingTimeOf(listing),
    fulfillment_channel: channelOf(listing),
    marketplace_id: listing.marketplaceId,
    asin: listing.asin,
    product_type: listing.productType,
    requirements: listing.requirements,
    status: verdict.status,
    issues: verdict.issues,
    in_review: store.inReview(listing),
    created_at: iso(listing.createdAt),
    updated_at: iso(listing.updatedAt),
  };
}
