/**
 * The Etsy simulator's listings, in memory per app: what createDraftListing stores, the state machine of listings.md
 * §1.2 and DESIGN §10, and the `ShopListing` shape it answers (listings.md §1.4).
 */
import type { FastifyReply } from 'fastify';
import { refill, registerStatePart, type StateParts } from '../state.js';
import { shopIdOf } from './api-access.js';

/** Etsy's states (listings.md §1.2). The sandbox does not let listings expire after four months, so none is ever `expired`. */
export type ListingState = 'draft' | 'active' | 'inactive' | 'sold_out' | 'expired';
export const LISTING_STATES: readonly ListingState[] = ['active', 'inactive', 'sold_out', 'draft', 'expired'];

export interface Offering {
  offering_id: number;
  /** In cents: Etsy's Money has divisor 100 for USD (listings.md §1.4). */
  price: number;
  quantity: number;
  is_enabled: boolean;
  readiness_state_id: number;
}

export interface ProductPropertyValue {
  property_id: number;
  property_name: string;
  scale_id: number | null;
  scale_name: string | null;
  value_ids: number[];
  values: string[];
}

export interface Product {
  product_id: number;
  sku: string;
  property_values: ProductPropertyValue[];
  offering: Offering;
}

export interface Inventory {
  products: Product[];
  price_on_property: number[];
  quantity_on_property: number[];
  sku_on_property: number[];
  readiness_state_on_property: number[];
}

export interface ListingImage {
  listing_image_id: number;
  /** Where the image's sizes are served (the sandbox hosts them, as Etsy's CDN would). */
  url_base: string;
  listing_id: number;
  rank: number;
  alt_text: string | null;
  full_height: number | null;
  full_width: number | null;
  created_timestamp: number;
}

/** The fields createDraftListing takes and updateListing changes. */
export interface ListingFields {
  title: string;
  description: string;
  who_made: string;
  when_made: string;
  taxonomy_id: number;
  shipping_profile_id: number;
  return_policy_id: number | null;
  readiness_state_id: number;
  tags: string[];
  materials: string[];
  is_supply: boolean;
  should_auto_renew: boolean;
}

export interface StoredListing {
  listing_id: number;
  shop_id: number;
  user_id: number;
  state: ListingState;
  fields: ListingFields;
  inventory: Inventory;
  images: ListingImage[];
  /** The listing's properties (updateListingProperty), by property id. */
  properties: Map<number, ProductPropertyValue>;
  created: number;
  updated: number;
  /** Transitions into `active` from any other state (DESIGN §10: a listing must never be published twice by mistake). */
  publishes: number;
  /** The USD 0.20 listing fees those publishes cost (listings.md §1.1); see `activate`. */
  fees: number;
}

export type ListingStore = ReturnType<typeof createListingStore>;

/** Ids grow from fixed starts, so a run's ids are the same every time. `imageBase`: where the images are served. */
export function createListingStore(imageBase: string, parts: StateParts) {
  const listings = new Map<number, StoredListing>();
  const next = { listing: 1_000_000_000, image: 5_000_000_000, product: 7_000_000_000, offering: 9_000_000_000 };
  const nextId = (kind: keyof typeof next) => ++next[kind];
  const stocked = new Set<number>();
  registerStatePart(parts, 'etsy:listings', {
    save: () => ({ listings, next, stocked }),
    load: (state) => {
      const saved = state as { listings: typeof listings; next: typeof next; stocked: typeof stocked };
      refill(listings, saved.listings);
      Object.assign(next, saved.next);
      refill(stocked, saved.stocked);
    },
  });
  return {
    imageBase,
    nextId,
    /** Whether the shop is to be stocked now (the first time it is asked; stock.ts). */
    stock: (shopId: number) => !stocked.has(shopId) && Boolean(stocked.add(shopId)),
    add(listing: Omit<StoredListing, 'listing_id'>): StoredListing {
      const stored = { ...listing, listing_id: nextId('listing') };
      listings.set(stored.listing_id, stored);
      return stored;
    },
    get: (id: number) => listings.get(id),
    ofShop: (shopId: number) => [...listings.values()].filter((listing) => listing.shop_id === shopId),
    remove: (id: number) => listings.delete(id),
  };
}

/** The listing of a path's `{listing_id}` when it is of the token's shop; null once Etsy's 404 or 403 was answered. */
export function ownListingOf(store: ListingStore, reply: FastifyReply, listingId: string | undefined, account: number) {
  const listing = /^[0-9]{1,15}$/.test(listingId ?? '') ? store.get(Number(listingId)) : undefined;
  if (!listing) void reply.code(404).send({ error: `Could not find a listing with listing_id = ${listingId}` });
  else if (listing.shop_id !== shopIdOf(account))
    void reply.code(403).send({ error: 'The listing is not of the shop of the access token.' });
  else return listing;
  return null;
}

export const enabledOfferings = (listing: StoredListing) =>
  listing.inventory.products.map((product) => product.offering).filter((offering) => offering.is_enabled);

/** The listing's `quantity`: the sum of its enabled offerings' (listings.md §1.4). */
export const totalQuantity = (listing: StoredListing) => enabledOfferings(listing).reduce((sum, offering) => sum + offering.quantity, 0);

export const hasVariations = (inventory: Inventory) => inventory.products.some((product) => product.property_values.length > 0);

/**
 * Why the listing cannot become active, or null: an image, stock, and (every sandbox shop being a US shop selling
 * physical items) a return policy (listings.md §1.7, "What makes a draft publishable" 1 and 3). A sold-out listing's
 * stock is restored by `activate` itself.
 */
function activationProblem(listing: StoredListing, needsReturnPolicy: boolean): string | null {
  if (listing.images.length === 0) return 'Setting a draft listing to active requires that the listing have an image set.';
  if (listing.state !== 'sold_out' && totalQuantity(listing) === 0) return 'There was a problem with /quantity : must be greater than 0';
  // "Required for active physical listings... does not apply to listings of EU-based shops" (listings.md §1.4).
  if (listing.fields.return_policy_id === null && needsReturnPolicy) return 'A return_policy_id is required for active physical listings.';
  return null;
}

/**
 * `state=active`: a no-op on an active listing, else a publish. Renewing a sold-out listing sets its quantity to 1
 * (listings.md §1.2). Fees: a draft's first publish and every renewal cost USD 0.20 (listings.md §1.1);
 * ASSUMPTION (Etsy's help pages, not confirmed by a source here): reactivating a deactivated listing before it expires
 * is free, so it counts as a publish but not as a fee.
 */
export function activate(listing: StoredListing, needsReturnPolicy: boolean): string | null {
  if (listing.state === 'active') return null;
  const problem = activationProblem(listing, needsReturnPolicy);
  if (problem) return problem;
  if (listing.state === 'sold_out' && totalQuantity(listing) === 0) {
    const offering = listing.inventory.products[0]!.offering;
    Object.assign(offering, { quantity: 1, is_enabled: true });
  }
  if (listing.state !== 'inactive') listing.fees += 1;
  listing.publishes += 1;
  listing.state = 'active';
  return null;
}

/**
 * `state=inactive`: from active or sold out; a no-op when already inactive. ASSUMPTION: a draft or an expired
 * listing cannot be deactivated (listings.md §1.2 lists deactivation among the actions of an active listing only).
 */
export function deactivate(listing: StoredListing): string | null {
  if (listing.state === 'active' || listing.state === 'sold_out') listing.state = 'inactive';
  else if (listing.state !== 'inactive') return `A listing in state ${listing.state} cannot be deactivated.`;
  return null;
}

/**
 * An active listing whose stock ran out is `sold_out` (listings.md §1.2). ASSUMPTION: new stock does not make it
 * active again by itself; its renewal is `state=active`, which costs a fee (listings.md §1.1).
 */
export function settleStock(listing: StoredListing): void {
  if (listing.state === 'active' && totalQuantity(listing) === 0) listing.state = 'sold_out';
}
