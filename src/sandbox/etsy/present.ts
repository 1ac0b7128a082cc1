/** The simulator's stored listings in Etsy's answer shapes: `ShopListing`, `ListingImage`, `ListingInventory` (listings.md §1.4–1.6). */
import { enabledOfferings, hasVariations, type Inventory, type ListingImage, type StoredListing, totalQuantity } from './listing-store.js';

export const money = (cents: number) => ({ amount: cents, divisor: 100, currency_code: 'USD' });
const seconds = (ms: number) => Math.floor(ms / 1000);
const FOUR_MONTHS_S = 120 * 24 * 3600;

const slug = (title: string) =>
  title
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');

export function presentImage(image: ListingImage) {
  const url = (size: string) => `${image.url_base}/${size}.${image.listing_image_id}.jpg`;
  return {
    listing_id: image.listing_id,
    listing_image_id: image.listing_image_id,
    hex_code: null,
    red: null,
    green: null,
    blue: null,
    hue: null,
    saturation: null,
    brightness: null,
    is_black_and_white: null,
    creation_tsz: image.created_timestamp,
    created_timestamp: image.created_timestamp,
    rank: image.rank,
    url_75x75: url('il_75x75'),
    url_170x135: url('il_170x135'),
    url_570xN: url('il_570xN'),
    url_fullxfull: url('il_fullxfull'),
    full_height: image.full_height,
    full_width: image.full_width,
    alt_text: image.alt_text,
  };
}

export function presentInventory(inventory: Inventory) {
  return {
    products: inventory.products.map((product) => ({
      product_id: product.product_id,
      sku: product.sku,
      is_deleted: false,
      offerings: [{ ...product.offering, is_deleted: false, price: money(product.offering.price) }],
      property_values: product.property_values,
    })),
    price_on_property: inventory.price_on_property,
    quantity_on_property: inventory.quantity_on_property,
    sku_on_property: inventory.sku_on_property,
    readiness_state_on_property: inventory.readiness_state_on_property,
  };
}

/**
 * ASSUMPTION: a listing's `price` is its lowest enabled offering's, as a listing with variations shows its lowest
 * price; Etsy's documents do not say which offering's price the listing carries.
 */
function listingPrice(listing: StoredListing) {
  const offerings = enabledOfferings(listing);
  const prices = (offerings.length > 0 ? offerings : listing.inventory.products.map((product) => product.offering)).map((o) => o.price);
  return money(Math.min(...prices));
}

/** `includes` adds `images` and `inventory` (listings.md §1.9). */
export function presentListing(listing: StoredListing, includes: ReadonlySet<string> = new Set()) {
  const { fields } = listing;
  return {
    listing_id: listing.listing_id,
    user_id: listing.user_id,
    shop_id: listing.shop_id,
    title: fields.title,
    description: fields.description,
    state: listing.state,
    creation_timestamp: seconds(listing.created),
    created_timestamp: seconds(listing.created),
    ending_timestamp: seconds(listing.created) + FOUR_MONTHS_S,
    original_creation_timestamp: seconds(listing.created),
    last_modified_timestamp: seconds(listing.updated),
    updated_timestamp: seconds(listing.updated),
    state_timestamp: seconds(listing.updated),
    quantity: totalQuantity(listing),
    shop_section_id: null,
    featured_rank: -1,
    url: `https://www.etsy.com/listing/${listing.listing_id}/${slug(fields.title)}`,
    num_favorers: 0,
    non_taxable: false,
    is_taxable: true,
    is_customizable: false,
    is_personalizable: false,
    listing_type: 'physical',
    tags: fields.tags,
    materials: fields.materials,
    shipping_profile_id: fields.shipping_profile_id,
    return_policy_id: fields.return_policy_id,
    readiness_state_id: fields.readiness_state_id,
    processing_min: null,
    processing_max: null,
    who_made: fields.who_made,
    when_made: fields.when_made,
    is_supply: fields.is_supply,
    should_auto_renew: fields.should_auto_renew,
    language: 'en-US',
    price: listingPrice(listing),
    taxonomy_id: fields.taxonomy_id,
    has_variations: hasVariations(listing.inventory),
    views: 0,
    ...(includes.has('Images') ? { images: listing.images.map(presentImage) } : {}),
    ...(includes.has('Inventory') ? { inventory: presentInventory(listing.inventory) } : {}),
  };
}
