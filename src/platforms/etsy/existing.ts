/**
 * A shop's listings as an import reads them (listings.md §1.9): getListingsByShop, one state at a time (it filters by
 * one `state`, listings.md §1.2), 100 listings a call with their images and inventory (`includes=Images,Inventory`), so
 * a shop of n listings costs about n / 100 calls. Pure: the adapter does the I/O.
 */
import { PRODUCT_IMAGES_MAX } from '../../domain/index.js';
import { type DraftImage, type ExistingListing, type ListingDraft, noFile } from '../contracts/listings.js';
import { fingerprint } from '../fingerprint.js';
import { fieldsForm, inventoryPrint } from './listing-requests.js';
import { type EtsyListing, platformListing } from './listing-responses.js';

/** Every state getListingsByShop lists, in the order an import reads them. */
const STATES = ['active', 'inactive', 'sold_out', 'draft', 'expired'] as const;
export const EXISTING_PAGE_SIZE = 100;

/** The cursor of a page: `<state>:<offset>`, e.g. `active:200`. An unreadable one starts again from the first page. */
function readCursor(cursor: string | null): { state: number; offset: number } {
  const [state, offset] = (cursor ?? '').split(':');
  const index = STATES.indexOf(state as (typeof STATES)[number]);
  return index >= 0 && /^[0-9]{1,9}$/.test(offset ?? '') ? { state: index, offset: Number(offset) } : { state: 0, offset: 0 };
}

/** The page's path after `/shops/{shop_id}`. */
export function existingPath(cursor: string | null): string {
  const { state, offset } = readCursor(cursor);
  return `/listings?state=${STATES[state]}&limit=${EXISTING_PAGE_SIZE}&offset=${offset}&includes=Images,Inventory`;
}

/** The cursor after the page at `cursor`, which answered `returned` of `count` listings; null after the last state's last page. */
export function nextCursor(cursor: string | null, count: number, returned: number): string | null {
  const { state, offset } = readCursor(cursor);
  if (returned > 0 && offset + returned < count) return `${STATES[state]}:${offset + returned}`;
  return state + 1 < STATES.length ? `${STATES[state + 1]}:0` : null;
}

/** Etsy's Money (`{amount, divisor}`) as decimal text to the cent. */
function decimal(money: { amount: number; divisor: number }): string {
  const cents = Math.round((money.amount * 100) / (money.divisor || 1));
  return `${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, '0')}`;
}

const unique = (values: readonly string[]) => [...new Set(values)];

/** One listing of the shop: the product it shows, and what the listing's work would have recorded delivering it. */
export function existingListing(listing: EtsyListing): ExistingListing {
  const products = (listing.inventory?.products ?? []).filter((product) => !product.is_deleted);
  const names = (products[0]?.property_values ?? []).map((value) => value.property_name ?? `Property ${value.property_id}`);
  const optionValue = (product: (typeof products)[number], i: number) => product.property_values[i]?.values[0] ?? '';
  const options = names.map((name, i) => ({ name, values: unique(products.map((product) => optionValue(product, i))) }));
  const fallback = listing.price && typeof listing.price === 'object' ? listing.price : { amount: 0, divisor: 100, currency_code: 'USD' };
  const variants = (products.length > 0 ? products : [null]).map((product) => {
    const offering = product?.offerings.find((o) => !o.is_deleted) ?? product?.offerings[0];
    return {
      sku: product?.sku || null,
      optionValues: Object.fromEntries(names.map((name, i) => [name, product ? optionValue(product, i) : ''])),
      price: decimal(offering?.price ?? fallback),
      quantity: offering?.is_enabled ? offering.quantity : 0,
    };
  });
  // A catalogue product holds at most 10 images, Etsy's listing 20: the first 10 are the product's, and the others stay on
  // Etsy untouched (out of the recorded progress, so no delivery ever removes them).
  const images = [...(listing.images ?? [])]
    .sort((a, b) => a.rank - b.rank)
    .slice(0, PRODUCT_IMAGES_MAX)
    .map((image) => ({ id: String(image.listing_image_id), url: image.url_fullxfull, alt: image.alt_text ?? null }));
  const product = {
    title: listing.title,
    description: listing.description ?? '',
    tags: listing.tags ?? [],
    currency: (products[0]?.offerings[0]?.price ?? fallback).currency_code,
    options,
    variants,
    images: images.map(({ url, alt }) => ({ url, alt })),
  };

  // The listing as a draft of the same product would make it, with the listing's own profiles for the site's settings.
  const held: ListingDraft = {
    ...product,
    brand: null,
    categoryId: String(listing.taxonomy_id ?? ''),
    attributes: {},
    variants: variants.map((v) => ({ ...v, sku: v.sku ?? '', barcode: null })),
    images: images.map(
      (image): DraftImage => ({
        key: image.url,
        url: image.url,
        alt: image.alt,
        stored: false,
        bytes: () => Promise.reject(new Error('an image Etsy holds is not uploaded again')),
      }),
    ),
    package: null,
    file: noFile,
  };
  const profiles = {
    shipping_profile_id: listing.shipping_profile_id,
    return_policy_id: listing.return_policy_id,
    readiness_state_id: listing.readiness_state_id,
  };
  return {
    externalId: String(listing.listing_id),
    state: platformListing(listing),
    categoryId: String(listing.taxonomy_id ?? ''),
    // Etsy's listing properties are not read back: an imported listing's attributes start empty.
    attributes: {},
    product,
    progress: {
      externalId: String(listing.listing_id),
      externalUrl: listing.url ?? null,
      createStartedAt: null,
      images: Object.fromEntries(images.map((image) => [image.url, image.id])),
      delivered: {
        fields: fingerprint(fieldsForm(held, profiles)),
        images: fingerprint(images.map((image) => image.url)),
        inventory: inventoryPrint(held, String(listing.readiness_state_id)),
      },
      variantIds: Object.fromEntries(products.flatMap((p) => (p.sku && p.product_id ? [[p.sku, String(p.product_id)]] : []))),
    },
  };
}
