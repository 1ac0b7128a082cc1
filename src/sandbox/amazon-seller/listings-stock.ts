/**
 * Seller accounts that already sell (an import of existing listings): the consent page's `listings=stocked` gives the
 * account six listings made outside Storelink in the region's first marketplace, in the states an Amazon account
 * holds (buyable, out of stock and so only discoverable, an offer on a catalogue ASIN, suppressed for a prohibited
 * word, used); `listings=stocked-large` adds 1,200 buyable ones, more than searchListingsItems can page through, so
 * an import needs the All Listings report. An account is stocked once, the first time it consents with either.
 * Their attributes are real ones (item_name, brand, product_description, bullet_point, identifiers, condition,
 * purchasable_offer, fulfillment_availability, main_product_image_locator with images the sandbox hosts).
 */
import type { SandboxMarketplace } from '../amazon-marketplaces.js';
import type { Attributes, ListingsStore } from './listings-store.js';
import { asinFor } from './listings-store.js';
import { languageTagsOf, type Requirements } from './product-types.js';

export const STOCK_CHOICES = ['stocked', 'stocked-large'] as const;
export type StockChoice = (typeof STOCK_CHOICES)[number];
/** The listings `stocked-large` adds to the six. */
export const LARGE_STOCK = 1200;

interface Seed {
  sku: string;
  productType: string;
  requirements: Requirements;
  title?: string;
  asin?: string;
  barcode?: [type: 'upc' | 'ean', value: string];
  condition: string;
  /** In the marketplace's currency (whole yen in Japan). */
  price: number;
  quantity: number;
  image?: string;
  bullets?: string[];
  /** The product type's own attributes (material, color, size …). */
  extra?: Record<string, string>;
}

const SIX: readonly Seed[] = [
  {
    sku: 'MUG-SPECKLE',
    productType: 'KITCHEN',
    requirements: 'LISTING',
    title: 'Stoneware mug with a speckled glaze, 350 ml',
    barcode: ['upc', '012345678905'],
    condition: 'new_new',
    price: 28,
    quantity: 12,
    image: 'mug-speckle.jpg',
    bullets: ['Hand-thrown stoneware with a speckled glaze', 'Holds 350 ml; dishwasher safe'],
    extra: { material: 'Stoneware', color: 'Speckled white' },
  },
  {
    sku: 'TEE-BLACK-M',
    productType: 'SHIRT',
    requirements: 'LISTING',
    title: 'Organic cotton T-shirt, black, medium',
    barcode: ['ean', '4006381333931'],
    condition: 'new_new',
    price: 22,
    quantity: 30,
    image: 'tee-black.jpg',
    extra: { color: 'Black', size: 'Medium', department: 'unisex-adult' },
  },
  {
    // Sold out: still discoverable, no longer buyable.
    sku: 'CANDLE-CEDAR',
    productType: 'HOME',
    requirements: 'LISTING',
    title: 'Soy candle, cedar, 200 g',
    barcode: ['upc', '036000291452'],
    condition: 'new_new',
    price: 16,
    quantity: 0,
    image: 'candle-cedar.jpg',
    extra: { material: 'Wax' },
  },
  {
    // An offer on an ASIN of Amazon's catalogue: no product facts of its own.
    sku: 'BOTTLE-OFFER',
    productType: 'PRODUCT',
    requirements: 'LISTING_OFFER_ONLY',
    asin: 'B0CATAL001',
    condition: 'new_new',
    price: 19.5,
    quantity: 8,
  },
  {
    // Suppressed after processing: the item name holds the word the sandbox refuses.
    sku: 'SIGN-TIN',
    productType: 'HOME',
    requirements: 'LISTING',
    title: 'Enamel tin sign (prohibited replica)',
    barcode: ['upc', '042100005264'],
    condition: 'new_new',
    price: 35,
    quantity: 3,
    image: 'sign-tin.jpg',
    extra: { material: 'Metal' },
  },
  {
    sku: 'BAG-WEEKENDER',
    productType: 'LUGGAGE',
    requirements: 'LISTING',
    title: 'Canvas weekender bag with leather handles',
    barcode: ['upc', '885909950805'],
    condition: 'used_like_new',
    price: 45,
    quantity: 1,
    image: 'bag-weekender.jpg',
    extra: { material: 'Canvas', color: 'Olive' },
  },
];

const large = (n: number): Seed => ({
  sku: `ITEM-${String(n).padStart(4, '0')}`,
  productType: 'KITCHEN',
  requirements: 'LISTING',
  title: `Sandbox item ${n}`,
  barcode: ['upc', String(100_000_000_000 + n)],
  condition: 'new_new',
  price: 10 + n / 100,
  quantity: (n % 10) + 1,
  image: 'item.jpg',
});

/** The attributes of a seed in a marketplace, as a seller would have sent them. */
function attributesOf(seed: Seed, marketplace: SandboxMarketplace, imageBase: string): Attributes {
  const marketplaceId = marketplace.id;
  const language = languageTagsOf(marketplace)[0]!;
  const text = (value: string) => [{ value, language_tag: language, marketplace_id: marketplaceId }];
  const price = marketplace.currency === 'JPY' ? Math.round(seed.price * 100) : seed.price;
  const offer: Attributes = {
    condition_type: [{ value: seed.condition, marketplace_id: marketplaceId }],
    purchasable_offer: [
      {
        marketplace_id: marketplaceId,
        currency: marketplace.currency,
        audience: 'ALL',
        our_price: [{ schedule: [{ value_with_tax: price }] }],
      },
    ],
    fulfillment_availability: [{ fulfillment_channel_code: 'DEFAULT', quantity: seed.quantity }],
  };
  if (seed.requirements === 'LISTING_OFFER_ONLY')
    return { merchant_suggested_asin: [{ value: seed.asin!, marketplace_id: marketplaceId }], ...offer };
  return {
    item_name: text(seed.title!),
    brand: text('Sandbox Goods'),
    ...(seed.barcode
      ? { externally_assigned_product_identifier: [{ type: seed.barcode[0], value: seed.barcode[1], marketplace_id: marketplaceId }] }
      : {}),
    product_description: text(`${seed.title}, listed on Amazon outside Storelink.`),
    ...(seed.bullets ? { bullet_point: seed.bullets.flatMap(text) } : {}),
    ...Object.fromEntries(Object.entries(seed.extra ?? {}).map(([name, value]) => [name, text(value)])),
    main_product_image_locator: [{ media_location: `${imageBase}/${seed.image}`, marketplace_id: marketplaceId }],
    ...offer,
  };
}

/** Gives the account its listings made outside Storelink, once, settled (an hour apart, the first made longest ago). */
export function stockAccount(
  store: ListingsStore,
  account: number,
  marketplace: SandboxMarketplace,
  choice: StockChoice,
  now: number,
): void {
  if (!store.stock(account)) return;
  const seeds = choice === 'stocked-large' ? [...SIX, ...Array.from({ length: LARGE_STOCK }, (_, i) => large(i + 1))] : SIX;
  seeds.forEach((seed, i) => {
    store.accept(
      {
        account,
        marketplaceId: marketplace.id,
        sku: seed.sku,
        productType: seed.productType,
        requirements: seed.requirements,
        attributes: attributesOf(seed, marketplace, store.imageBase),
        asin: seed.asin ?? asinFor(account, seed.sku),
      },
      { at: now - (seeds.length - i) * 3_600_000, settled: true },
    );
  });
}
