/**
 * Shops that already sell (an import of existing listings, tried against TikTok Shop): the consent page's
 * `shop=stocked` gives each shop the seller authorizes six products made outside Storelink, as Seller Center leaves
 * them: live with one SKU and with two told apart by Color (a value of the category's and a custom one), one the seller
 * switched off, and one TikTok's audit refused with its reasons; `shop=stocked-large` adds 250 live ones, so an import
 * pages through the shop. Each product is a Create Product body held to the same rules (product-rules.ts) as one
 * Storelink sends: a leaf category with its required attributes, images TikTok hosts, prices in the shop's market
 * currency, stock in the shop's default warehouse, a package. A shop is stocked once, the first time its account
 * consents with either choice.
 */
import { createHash } from 'node:crypto';
import type { SandboxContext } from '../context.js';
import { BRANDS, MUGS, T_SHIRTS, TOTE_BAGS, warehousesOf } from './categories.js';
import { manufacturersOf, responsiblePersonsOf } from './compliance.js';
import type { Grant } from './open-api.js';
import { checkProduct, shopFacts } from './product-rules.js';
import type { HostedImage, ProductStore } from './product-store.js';
import { accountOf, isEuLocal, type SandboxShop, sandboxShops } from './shops.js';

export const STOCK_CHOICES = ['stocked', 'stocked-large'] as const;
export type StockChoice = (typeof STOCK_CHOICES)[number];
/** The products `stocked-large` adds to the six. */
export const LARGE_STOCK = 250;

/** The currency each sandbox shop's market sells in (shops.ts's regions); product-rules.ts refuses any other. */
const CURRENCIES: Readonly<Record<string, string>> = { GB: 'GBP', US: 'USD', DE: 'EUR', FR: 'EUR', ES: 'EUR' };
/** The currency a shop of the region sells in. */
export const currencyOf = (region: string) => CURRENCIES[region] ?? 'USD';
const COLOR = '100000';
const MATERIAL = '100392';

interface Offer {
  sku: string;
  price: string;
  quantity: number;
  /** The SKU's Color: a value id of the category's, or a custom value's name. */
  color?: { value_id: string } | { value_name: string };
}

interface Seed {
  title: string;
  status: 'ACTIVATE' | 'SELLER_DEACTIVATED' | 'FAILED';
  categoryId: string;
  /** Product properties: `[attribute id, values]`, a value by its id or (a customizable attribute) its name. */
  attributes: [string, ({ id: string } | { name: string })[]][];
  brand?: boolean;
  images: number;
  /** Kilograms, and the package's sides in centimetres (none: the category does not ask for them). */
  weight: string;
  sides: [string, string, string] | null;
  offers: Offer[];
}

const SIX: readonly Seed[] = [
  {
    title: 'Stoneware mug with a speckled glaze',
    status: 'ACTIVATE',
    categoryId: MUGS,
    attributes: [
      [MATERIAL, [{ id: '1001533' }]],
      ['100393', [{ name: '350 ml' }]],
    ],
    brand: true,
    images: 2,
    weight: '0.45',
    sides: ['12', '10', '10'],
    offers: [{ sku: 'MUG-SPECKLE', price: '18.00', quantity: 12 }],
  },
  {
    title: 'Organic cotton T-shirt',
    status: 'ACTIVATE',
    categoryId: T_SHIRTS,
    attributes: [['100410', [{ id: '1002001' }]]],
    images: 1,
    weight: '0.2',
    sides: ['30', '25', '2'],
    offers: [
      { sku: 'TEE-BLACK', price: '15.00', quantity: 5, color: { value_id: '1000001' } },
      { sku: 'TEE-WHITE', price: '16.50', quantity: 3, color: { value_id: '1000002' } },
    ],
  },
  {
    title: 'Canvas tote bag',
    status: 'ACTIVATE',
    categoryId: TOTE_BAGS,
    attributes: [[MATERIAL, [{ id: '1001536' }]]],
    images: 1,
    weight: '0.3',
    sides: ['40', '35', '2'],
    offers: [
      { sku: 'TOTE-BLUE', price: '12.00', quantity: 7, color: { value_id: '1000003' } },
      // A colour the category does not list: a custom value, named by the seller.
      { sku: 'TOTE-NATURAL', price: '12.00', quantity: 4, color: { value_name: 'Natural' } },
    ],
  },
  {
    title: 'Enamel camping mug',
    status: 'SELLER_DEACTIVATED',
    categoryId: MUGS,
    attributes: [[MATERIAL, [{ id: '1001535' }]]],
    images: 1,
    weight: '0.25',
    sides: ['10', '9', '9'],
    offers: [{ sku: 'MUG-ENAMEL', price: '14.00', quantity: 6 }],
  },
  {
    // The sandbox's audit refuses a title with the word "prohibited" (product-store.ts).
    title: 'Glass tumbler with a prohibited slogan',
    status: 'FAILED',
    categoryId: MUGS,
    attributes: [[MATERIAL, [{ id: '1001534' }]]],
    images: 1,
    weight: '0.3',
    sides: ['9', '9', '12'],
    offers: [{ sku: 'MUG-GLASS', price: '9.50', quantity: 10 }],
  },
  {
    // Tote bags need no package size (categories.ts), only its weight.
    title: 'Jute market bag',
    status: 'ACTIVATE',
    categoryId: TOTE_BAGS,
    attributes: [[MATERIAL, [{ id: '1001537' }]]],
    images: 1,
    weight: '0.2',
    sides: null,
    offers: [{ sku: 'BAG-JUTE', price: '8.00', quantity: 15 }],
  },
];

const large = (n: number): Seed => ({
  title: `Sandbox mug ${n}`,
  status: 'ACTIVATE',
  categoryId: MUGS,
  attributes: [[MATERIAL, [{ id: '1001533' }]]],
  images: 1,
  weight: '0.4',
  sides: ['12', '10', '10'],
  offers: [{ sku: `ITEM-${String(n).padStart(4, '0')}`, price: ((1000 + n) / 100).toFixed(2), quantity: (n % 10) + 1 }],
});

/** An image TikTok hosts, as an upload would have left it (product-images.ts), its key fixed by shop, product and place. */
function hostedImage(context: SandboxContext, shopId: string, product: number, rank: number): HostedImage {
  const key = createHash('sha256').update(`stock:${shopId}:${product}:${rank}`).digest('hex').slice(0, 32);
  return {
    uri: `tos-maliva-i-o3syd03w52-us/${key}`,
    url: `${context.sandboxUrl}/tiktok-shop/images/${key}`,
    width: 800,
    height: 800,
    use_case: 'MAIN_IMAGE',
  };
}

/** The Create Product body a seller's product in the shop was made with. */
function bodyOf(seed: Seed, shop: SandboxShop, images: HostedImage[]) {
  const currency = currencyOf(shop.region);
  const warehouse = warehousesOf(shop.id, shop.region)[0]!.id;
  return {
    title: seed.title,
    description: `<p>${seed.title}, made for the sandbox shop ${shop.name}.</p>`,
    category_id: seed.categoryId,
    ...(seed.brand ? { brand_id: BRANDS[0].id } : {}),
    main_images: images.map(({ uri }) => ({ uri })),
    product_attributes: seed.attributes.map(([id, values]) => ({ id, values })),
    package_weight: { value: seed.weight, unit: 'KILOGRAM' },
    ...(seed.sides
      ? { package_dimensions: { length: seed.sides[0], width: seed.sides[1], height: seed.sides[2], unit: 'CENTIMETER' } }
      : {}),
    // A shop of a seller local to the EU names the seller's first responsible person and manufacturer, as it must.
    ...(isEuLocal(shop)
      ? {
          responsible_person_ids: [responsiblePersonsOf(accountOf(shop))[0]!.id],
          manufacturer_ids: [manufacturersOf(accountOf(shop))[0]!.id],
        }
      : {}),
    skus: seed.offers.map((offer) => ({
      seller_sku: offer.sku,
      price: { amount: offer.price, currency },
      inventory: [{ warehouse_id: warehouse, quantity: offer.quantity }],
      sales_attributes: offer.color ? [{ id: COLOR, ...offer.color }] : [],
    })),
  };
}

/**
 * Gives each shop of the grant its products made outside Storelink, once (oldest first, a day apart, so Search Products
 * lists them in the order above).
 */
export function stockShops(context: SandboxContext, store: ProductStore, grant: Grant, choice: StockChoice): void {
  const now = context.clock.nowMs();
  const seeds = choice === 'stocked-large' ? [...SIX, ...Array.from({ length: LARGE_STOCK }, (_, i) => large(i + 1))] : SIX;
  for (const shop of sandboxShops(grant.account, grant.shops, grant.market)) {
    if (!store.stock(shop.id)) continue;
    seeds.forEach((seed, i) => {
      const images = Array.from({ length: seed.images }, (_, rank) => hostedImage(context, shop.id, i, rank));
      for (const image of images) store.images.set(image.uri, image);
      const checked = checkProduct(bodyOf(seed, shop, images), shopFacts(shop, store));
      // A seed the product rules refuse is the sandbox's own mistake, not a seller's.
      if (checked.problems.length > 0) throw new Error(`sandbox stock "${seed.title}" is refused: ${checked.problems[0]![1]}`);
      store.place(shop.id, checked.version, seed.status, now - (seeds.length - i) * 86_400_000);
    });
  }
}
