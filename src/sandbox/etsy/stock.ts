/**
 * Shops that already sell (issue: import of existing listings): the consent page's `shop=stocked` gives the account's
 * shop six listings made outside Storelink, in every state a seller's shop holds (active with and without variations,
 * one without a SKU, inactive, a draft without an image, sold out); `shop=stocked-large` adds 250 active listings, so
 * an import pages through the shop. A shop is stocked once, the first time its account consents with either choice.
 */
import { shopIdOf, userIdOf } from './api-access.js';
import type { Inventory, ListingState, ListingStore, ProductPropertyValue } from './listing-store.js';
import { readinessStateIds, returnPolicyIds, shippingProfileIds } from './shop-setup.js';

export const STOCK_CHOICES = ['stocked', 'stocked-large'] as const;
export type StockChoice = (typeof STOCK_CHOICES)[number];
/** The listings `stocked-large` adds to the six. */
export const LARGE_STOCK = 250;

interface Offer {
  sku: string;
  /** In cents. */
  price: number;
  quantity: number;
  /** The value of the listing's one variation (Etsy's custom property 513), when it has one. */
  variation?: string;
}

interface Seed {
  title: string;
  state: ListingState;
  taxonomyId: number;
  tags: string[];
  images: number;
  variationName?: string;
  offers: Offer[];
}

const SIX: readonly Seed[] = [
  {
    title: 'Stoneware mug with a speckled glaze',
    state: 'active',
    taxonomyId: 1071,
    tags: ['mug', 'stoneware'],
    images: 2,
    offers: [{ sku: 'MUG-SPECKLE', price: 2800, quantity: 12 }],
  },
  {
    title: 'Canvas tote bag',
    state: 'active',
    taxonomyId: 1011,
    tags: ['tote', 'canvas'],
    images: 1,
    variationName: 'Color',
    offers: [
      { sku: 'TOTE-NATURAL', price: 2400, quantity: 7, variation: 'Natural' },
      { sku: 'TOTE-BLACK', price: 2600, quantity: 4, variation: 'Black' },
    ],
  },
  {
    // A listing made without a SKU, as many are on Etsy.
    title: 'Beeswax pillar candle',
    state: 'active',
    taxonomyId: 3021,
    tags: ['candle'],
    images: 1,
    offers: [{ sku: '', price: 1500, quantity: 20 }],
  },
  {
    title: 'Leather card case',
    state: 'inactive',
    taxonomyId: 1032,
    tags: ['leather'],
    images: 1,
    offers: [{ sku: 'CARD-TAN', price: 3500, quantity: 2 }],
  },
  {
    title: 'Hand-thrown vase',
    state: 'draft',
    taxonomyId: 3023,
    tags: [],
    images: 0,
    offers: [{ sku: 'VASE-01', price: 6000, quantity: 1 }],
  },
  {
    title: 'Soy candle, cedar',
    state: 'sold_out',
    taxonomyId: 3021,
    tags: ['candle', 'soy'],
    images: 1,
    offers: [{ sku: 'CANDLE-CEDAR', price: 1600, quantity: 0 }],
  },
];

const large = (n: number): Seed => ({
  title: `Sandbox item ${n}`,
  state: 'active',
  taxonomyId: 1071,
  tags: [],
  images: 1,
  offers: [{ sku: `ITEM-${String(n).padStart(4, '0')}`, price: 1000 + n, quantity: (n % 10) + 1 }],
});

/** Gives the account's shop its listings made outside Storelink, once (oldest first, so Etsy's newest-first order lists them last). */
export function stockShop(store: ListingStore, account: number, choice: StockChoice, now: number): void {
  const shopId = shopIdOf(account);
  if (!store.stock(shopId)) return;
  const seeds = choice === 'stocked-large' ? [...SIX, ...Array.from({ length: LARGE_STOCK }, (_, i) => large(i + 1))] : SIX;
  const readiness = readinessStateIds(shopId)[0]!;
  seeds.forEach((seed, i) => {
    // A day apart, the first made longest ago.
    const created = now - (seeds.length - i) * 86_400_000;
    const listing = store.add({
      shop_id: shopId,
      user_id: userIdOf(account),
      state: seed.state,
      fields: {
        title: seed.title,
        description: `${seed.title}, made in the sandbox shop ${account}.`,
        who_made: 'i_did',
        when_made: 'made_to_order',
        taxonomy_id: seed.taxonomyId,
        shipping_profile_id: shippingProfileIds(shopId)[0]!,
        return_policy_id: returnPolicyIds(shopId)[0]!,
        readiness_state_id: readiness,
        tags: seed.tags,
        materials: [],
        is_supply: false,
        should_auto_renew: false,
      },
      inventory: inventoryOf(store, seed, readiness),
      images: [],
      properties: new Map(),
      created,
      updated: created,
      publishes: seed.state === 'draft' ? 0 : 1,
      fees: seed.state === 'draft' ? 0 : 1,
    });
    listing.images = Array.from({ length: seed.images }, (_, rank) => ({
      listing_image_id: store.nextId('image'),
      url_base: store.imageBase,
      listing_id: listing.listing_id,
      rank: rank + 1,
      alt_text: null,
      full_height: 1000,
      full_width: 1000,
      created_timestamp: Math.floor(created / 1000),
    }));
  });
}

function inventoryOf(store: ListingStore, seed: Seed, readiness: number): Inventory {
  const varies = seed.variationName !== undefined;
  return {
    products: seed.offers.map((offer) => ({
      product_id: store.nextId('product'),
      sku: offer.sku,
      property_values: varies ? [variationValue(seed.variationName!, offer.variation!)] : [],
      offering: {
        offering_id: store.nextId('offering'),
        price: offer.price,
        quantity: offer.quantity,
        is_enabled: true,
        readiness_state_id: readiness,
      },
    })),
    price_on_property: varies ? [513] : [],
    quantity_on_property: varies ? [513] : [],
    sku_on_property: varies ? [513] : [],
    readiness_state_on_property: [],
  };
}

const variationValue = (name: string, value: string): ProductPropertyValue => ({
  property_id: 513,
  property_name: name,
  scale_id: null,
  scale_name: null,
  value_ids: [],
  values: [value],
});
