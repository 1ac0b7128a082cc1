/**
 * Amazon's Listings Items API requests (listings.md §3.3–3.6), built without I/O: the marketplaces (their region, site,
 * currency and language), and a listing draft as Amazon's SKUs: each catalogue variant is one SKU, whose attributes
 * Storelink fills from the product (title, description, brand, barcode, images, price, stock) and the listing's own
 * attributes (the product type's, in Amazon's value shape `[{value, marketplace_id, language_tag?}]`); a product with
 * options is a variation family (DESIGN §15): a parent SKU without offer and a child SKU per variant; the PUT that
 * creates or replaces a SKU, the PATCH of its offer and stock, and the fingerprints of what a delivery sent.
 */
import type { AmazonRegion } from '../../domain/index.js';
import { type DraftVariant, type ListingDraft, PLATFORM_FULFILLED } from '../contracts/listings.js';
import { fingerprint } from '../fingerprint.js';
import type { Family } from './listing-themes.js';

/** A marketplace as the listings need it: its region's host, its site, its currency and its default language. */
export interface AmazonMarketplace {
  id: string;
  region: AmazonRegion;
  country: string;
  /** The storefront's host without `www.` (`amazon.co.uk`). */
  site: string;
  currency: string;
  /** The language tag of text attributes when the product type's schema names no default. */
  language: string;
}

const marketplace = (id: string, region: AmazonRegion, country: string, site: string, currency: string, language: string) =>
  [id, { id, region, country, site, currency, language }] as const;

/**
 * SP-API's marketplace ids (developer-docs "Marketplace IDs"; the sandbox serves US, CA, GB, DE, JP and AU). The
 * language tags are each storefront's main language (ASSUMPTION where a product type's schema does not say).
 */
export const MARKETPLACES: Readonly<Record<string, AmazonMarketplace>> = Object.fromEntries([
  marketplace('ATVPDKIKX0DER', 'NA', 'US', 'amazon.com', 'USD', 'en_US'),
  marketplace('A2EUQ1WTGCTBG2', 'NA', 'CA', 'amazon.ca', 'CAD', 'en_CA'),
  marketplace('A1AM78C64UM0Y8', 'NA', 'MX', 'amazon.com.mx', 'MXN', 'es_MX'),
  marketplace('A2Q3Y263D00KWC', 'NA', 'BR', 'amazon.com.br', 'BRL', 'pt_BR'),
  marketplace('A1F83G8C2ARO7P', 'EU', 'GB', 'amazon.co.uk', 'GBP', 'en_GB'),
  marketplace('A1PA6795UKMFR9', 'EU', 'DE', 'amazon.de', 'EUR', 'de_DE'),
  marketplace('A13V1IB3VIYZZH', 'EU', 'FR', 'amazon.fr', 'EUR', 'fr_FR'),
  marketplace('APJ6JRA9NG5V4', 'EU', 'IT', 'amazon.it', 'EUR', 'it_IT'),
  marketplace('A1RKKUPIHCS9HS', 'EU', 'ES', 'amazon.es', 'EUR', 'es_ES'),
  marketplace('A1805IZSGTT6HS', 'EU', 'NL', 'amazon.nl', 'EUR', 'nl_NL'),
  marketplace('AMEN7PMS3EDWL', 'EU', 'BE', 'amazon.com.be', 'EUR', 'fr_BE'),
  marketplace('A2NODRKZP88ZB9', 'EU', 'SE', 'amazon.se', 'SEK', 'sv_SE'),
  marketplace('A1C3SOZRARQ6R3', 'EU', 'PL', 'amazon.pl', 'PLN', 'pl_PL'),
  marketplace('A33AVAJ2PDY3EV', 'EU', 'TR', 'amazon.com.tr', 'TRY', 'tr_TR'),
  marketplace('A2VIGQ35RCS4UG', 'EU', 'AE', 'amazon.ae', 'AED', 'en_AE'),
  marketplace('A17E79C6D8DWNP', 'EU', 'SA', 'amazon.sa', 'SAR', 'ar_SA'),
  marketplace('ARBP9OOSHTCHU', 'EU', 'EG', 'amazon.eg', 'EGP', 'ar_EG'),
  marketplace('AE08WJ6YKNBMC', 'EU', 'ZA', 'amazon.co.za', 'ZAR', 'en_ZA'),
  marketplace('A21TJRUUN4KGV', 'EU', 'IN', 'amazon.in', 'INR', 'en_IN'),
  marketplace('A1VC38T7YXB528', 'FE', 'JP', 'amazon.co.jp', 'JPY', 'ja_JP'),
  marketplace('A39IBJ37TRP1C6', 'FE', 'AU', 'amazon.com.au', 'AUD', 'en_AU'),
  marketplace('A19VAU5U5O7RUS', 'FE', 'SG', 'amazon.sg', 'SGD', 'en_SG'),
]);

export const marketplaceOf = (id: unknown): AmazonMarketplace | null => (typeof id === 'string' ? (MARKETPLACES[id] ?? null) : null);

/** "Amazon.com (US)": a marketplace as a seller knows it. */
export function marketplaceLabel(id: string): string {
  const known = MARKETPLACES[id];
  if (!known) return id;
  return `${known.site.charAt(0).toUpperCase()}${known.site.slice(1)} (${known.country})`;
}

/**
 * A product page: the detail-page (`/dp/<ASIN>`) form of Amazon's storefront URLs (INFERENCE: the form storefronts
 * answer and the ASIN's public descriptions give; the SP-API answers no URL).
 */
export const productPageOf = (marketplaceId: string, asin: string | undefined): string | null => {
  const known = MARKETPLACES[marketplaceId];
  return known && asin ? `https://www.${known.site}/dp/${encodeURIComponent(asin)}` : null;
};

/** What a product type's schema says of an attribute a listing can give with one value (`[{value, …}]`). */
export interface AttributeShape {
  title: string;
  /** The JSON type of `value`. */
  valueType: 'string' | 'number' | 'integer' | 'boolean';
  /** The language tag the values carry (the schema's default), or null when they carry none. */
  languageTag: string | null;
  enum: string[] | null;
  enumNames: string[] | null;
  /** Whether the product type requires it (for the requirements the schema was read for). */
  required: boolean;
}

/** A variation family's attributes (amzn/selling-partner-api-models issue 5166: Amazon's own example of a child). */
export const PARENTAGE = 'parentage_level';
export const RELATIONSHIP = 'child_parent_sku_relationship';
export const THEME = 'variation_theme';

/** The attributes Storelink writes from the catalogue product itself: never offered as a listing's attributes. */
export const FILLED = new Set([
  'item_name',
  'product_description',
  'purchasable_offer',
  'fulfillment_availability',
  'main_product_image_locator',
  PARENTAGE,
  RELATIONSHIP,
]);
export const isImageAttribute = (name: string) =>
  name === 'main_product_image_locator' || /^other_product_image_locator_[0-9]+$/.test(name);
export const isFilled = (name: string) => FILLED.has(name) || isImageAttribute(name);

/**
 * Attributes Storelink fills from the product or the site when the listing does not give them: a listing's value wins
 * (brand: the product has none, or lists under another; condition: other than the site's; identifier: a product of
 * one variant without a barcode; an ASIN makes the listing an offer on Amazon's existing product).
 */
export const BRAND = 'brand';
export const CONDITION = 'condition_type';
export const IDENTIFIER = 'externally_assigned_product_identifier';
export const ASIN = 'merchant_suggested_asin';
export const BULLETS = 'bullet_point';
export const OVERRIDES = new Set([BRAND, CONDITION, IDENTIFIER, ASIN, BULLETS, THEME]);

/** The offer attributes, patched apart from the rest (a price or stock change is no new submission of the product). */
const OFFER = ['purchasable_offer', 'fulfillment_availability'] as const;

/** Everything a SKU's attributes are built from besides the draft. */
export interface SkuContext {
  /** The family the SKU is a child of; null for a SKU of its own. */
  family?: Family | null;
  marketplace: AmazonMarketplace;
  /** The site's `condition_type`. */
  condition: string;
  /** The product type's attributes that take one value, by name. */
  shapes: Readonly<Record<string, AttributeShape>>;
  /** Every attribute the product type's schema names. */
  properties: ReadonlySet<string>;
  /** The listing is switched off (stock 0 on Amazon). */
  off: boolean;
  /** The SKUs Amazon fulfils (FBA), with their channel: their stock is Amazon's count, never written. */
  fba?: Readonly<Record<string, string>>;
  /** The handling time the seller set on their own channel, in days, by SKU (as reads and imports last found it). */
  handling?: Readonly<Record<string, number>>;
}

const given = (value: unknown) => value !== undefined && value !== null && value !== '';
const textOf = (value: unknown) => (typeof value === 'string' ? value.trim() : given(value) ? String(value) : '');

/** The ASIN the listing offers on (an offer on Amazon's existing product), or null for a product of its own. */
export function offeredAsin(draft: Pick<ListingDraft, 'attributes'>): string | null {
  const asin = textOf(draft.attributes[ASIN]);
  return asin === '' ? null : asin;
}

export const requirementsOf = (draft: Pick<ListingDraft, 'attributes'>) => (offeredAsin(draft) ? 'LISTING_OFFER_ONLY' : 'LISTING');

/** Whether the listing is a variation family on Amazon: a product with options, unless it offers on an existing ASIN. */
export const isFamily = (draft: Pick<ListingDraft, 'attributes' | 'options'>) => draft.options.length > 0 && !offeredAsin(draft);

/** A variant's item name: the title, and for a product of several variants its option values ("Stoneware mug — Blue"). */
export function itemNameOf(draft: ListingDraft, variant: DraftVariant): string {
  if (draft.variants.length < 2) return draft.title;
  const values = draft.options.map((option) => variant.optionValues[option.name]).filter((value): value is string => Boolean(value));
  return values.length > 0 ? `${draft.title} — ${values.join(', ')}` : draft.title;
}

/** A barcode as Amazon's external product id, by its length (8 or 13 digits EAN, 12 UPC, 14 GTIN); null for another. */
export function identifierOf(code: string | null | undefined): { type: string; value: string } | null {
  if (!code || !/^[0-9]{8}$|^[0-9]{12,14}$/.test(code)) return null;
  return { type: code.length === 12 ? 'upc' : code.length === 14 ? 'gtin' : 'ean', value: code };
}

/** A listing's value in Amazon's shape: a list of value objects given as such goes as it is (an import keeps Amazon's). */
const isRaw = (value: unknown): value is Record<string, unknown>[] =>
  Array.isArray(value) && value.length > 0 && value.every((each) => typeof each === 'object' && each !== null && !Array.isArray(each));

/** One value of an attribute the schema describes, as its `value` type takes it. */
function scalarOf(shape: AttributeShape | undefined, value: unknown): unknown {
  switch (shape?.valueType) {
    case 'number':
    case 'integer':
      return typeof value === 'number' ? value : Number(value);
    case 'boolean':
      return typeof value === 'boolean' ? value : value === 'true';
    default:
      return textOf(value);
  }
}

/** Text values of an attribute in Amazon's shape, with the schema's language tag (else the marketplace's). */
function valuesFor(context: Omit<SkuContext, 'off'>, name: string, list: unknown[]): Record<string, unknown>[] {
  const tag = name in context.shapes ? context.shapes[name]!.languageTag : context.marketplace.language;
  return list.map((value) => ({
    value: scalarOf(context.shapes[name], value),
    ...(tag ? { language_tag: tag } : {}),
    marketplace_id: context.marketplace.id,
  }));
}

/** What a product of its own says of itself, a family's parent too: name, brand, description, bullets, attributes, images. */
function productFacts(draft: ListingDraft, itemName: string, context: Omit<SkuContext, 'off'>): Record<string, unknown[]> {
  const marketplaceId = context.marketplace.id;
  const values = (name: string, list: unknown[]) => valuesFor(context, name, list);
  const attributes: Record<string, unknown[]> = { item_name: values('item_name', [itemName]) };
  const brand = draft.attributes[BRAND];
  if (isRaw(brand)) attributes[BRAND] = brand;
  else if (given(brand) || draft.brand) attributes[BRAND] = values(BRAND, [given(brand) ? brand : draft.brand]);
  if (draft.description.trim() !== '') attributes.product_description = values('product_description', [draft.description]);
  const bullets = draft.attributes[BULLETS];
  if (isRaw(bullets)) attributes[BULLETS] = bullets;
  else if (given(bullets))
    attributes[BULLETS] = values(
      BULLETS,
      textOf(bullets)
        .split('\n')
        .map((line) => line.trim())
        .filter(Boolean),
    );
  for (const [name, value] of Object.entries(draft.attributes)) {
    if (OVERRIDES.has(name) || isFilled(name) || !given(value)) continue;
    attributes[name] = isRaw(value) ? value : values(name, [value]);
  }
  draft.images.forEach((image, i) => {
    const name = i === 0 ? 'main_product_image_locator' : `other_product_image_locator_${i}`;
    // Amazon's schemas name the other images up to a number of their own: one it has no place for is not sent.
    if (i === 0 || context.properties.has(name)) attributes[name] = [{ media_location: image.url, marketplace_id: marketplaceId }];
  });
  return attributes;
}

/** A child's family attributes: its parentage, its parent, the theme, and the option values of the attributes it varies on. */
function childAttributes(variant: DraftVariant, family: Family, context: Omit<SkuContext, 'off'>): Record<string, unknown[]> {
  const marketplaceId = context.marketplace.id;
  const attributes: Record<string, unknown[]> = {
    [PARENTAGE]: [{ value: 'child', marketplace_id: marketplaceId }],
    [RELATIONSHIP]: [{ child_relationship_type: 'variation', parent_sku: family.parentSku, marketplace_id: marketplaceId }],
    [THEME]: [{ name: family.theme }],
  };
  for (const [option, attribute] of Object.entries(family.varied)) {
    const value = variant.optionValues[option];
    if (value) attributes[attribute] = valuesFor(context, attribute, [value]);
  }
  return attributes;
}

/** The SKU's attributes, the offer included: what a PUT sends (`quantity`: as listed, 0 while the listing is off). */
export function skuAttributes(draft: ListingDraft, variant: DraftVariant, context: SkuContext): Record<string, unknown[]> {
  const marketplaceId = context.marketplace.id;
  const asin = offeredAsin(draft);
  const condition = textOf(draft.attributes[CONDITION]) || context.condition;
  let attributes: Record<string, unknown[]> = {};
  if (asin) attributes[ASIN] = [{ value: asin, marketplace_id: marketplaceId }];
  else {
    attributes = productFacts(draft, itemNameOf(draft, variant), context);
    const identifier = draft.attributes[IDENTIFIER];
    const barcode =
      identifierOf(variant.barcode) ?? (draft.variants.length === 1 && !isRaw(identifier) ? identifierOf(textOf(identifier)) : null);
    if (barcode) attributes[IDENTIFIER] = [{ ...barcode, marketplace_id: marketplaceId }];
    else if (draft.variants.length === 1 && isRaw(identifier)) attributes[IDENTIFIER] = identifier;
    if (context.family) Object.assign(attributes, childAttributes(variant, context.family, context));
  }
  attributes[CONDITION] = [{ value: condition, marketplace_id: marketplaceId }];
  return { ...attributes, ...offerAttributes(draft, variant, context, true) };
}

/**
 * A family's parent: the product's facts under its title, `parentage_level: parent` and the theme; no barcode, no
 * condition, no offer and no stock (a parent is no product a buyer buys).
 */
export function parentBody(draft: ListingDraft, family: Family, context: SkuContext) {
  const attributes = {
    ...productFacts(draft, draft.title, context),
    [PARENTAGE]: [{ value: 'parent', marketplace_id: context.marketplace.id }],
    [THEME]: [{ name: family.theme }],
  };
  return { productType: draft.categoryId, requirements: 'LISTING', attributes };
}

/** The print of a parent as sent (put again when it changes). */
export const parentPrint = (draft: ListingDraft, family: Family, context: SkuContext) =>
  fingerprint(canonical(parentBody(draft, family, context)));

/**
 * The SKU's price and stock: `purchasable_offer` in the marketplace and `fulfillment_availability` of the seller's own
 * channel. `whole`: the attributes replace the SKU's (a PUT), so the handling time the seller set goes with them, else
 * the PUT wipes it; a `merge` patch leaves it out and keeps Amazon's, which may be newer than Storelink's last read.
 */
export function offerAttributes(draft: ListingDraft, variant: DraftVariant, context: SkuContext, whole = false) {
  return {
    purchasable_offer: [
      {
        marketplace_id: context.marketplace.id,
        currency: draft.currency,
        our_price: [{ schedule: [{ value_with_tax: Number(variant.price) }] }],
      },
    ],
    fulfillment_availability: context.fba?.[variant.sku]
      ? // Amazon's channel alone, so a PUT keeps the SKU on FBA: its quantity is Amazon's count, not Storelink's.
        [{ fulfillment_channel_code: context.fba[variant.sku] }]
      : stockAttribute(context.off ? 0 : variant.quantity, whole ? context.handling?.[variant.sku] : undefined),
  };
}

/** The SKUs of a listing's progress that Amazon fulfils, with their channel (`fba.<sku>`, recorded by reads and imports). */
export const fbaOf = (delivered: Readonly<Record<string, string>>): Record<string, string> =>
  Object.fromEntries(
    Object.entries(delivered)
      .filter(([key]) => key.startsWith(PLATFORM_FULFILLED))
      .map(([key, channel]) => [key.slice(PLATFORM_FULFILLED.length), channel]),
  );

/**
 * `progress.delivered[HANDLING + sku]`: the handling time (`lead_time_to_ship_max_days`, days before the SKU ships) the
 * seller set on their own channel in Seller Central, as reads and imports found it. Storelink has no field of its own
 * for it: it sends it back with a PUT, which replaces the SKU's attributes whole (selling-partner-api-models#4406).
 */
export const HANDLING = 'handling.';

/** The handling times a listing's progress records, by SKU. */
export const handlingOf = (delivered: Readonly<Record<string, string>>): Record<string, number> =>
  Object.fromEntries(
    Object.entries(delivered)
      .filter(([key, days]) => key.startsWith(HANDLING) && /^[0-9]+$/.test(days))
      .map(([key, days]) => [key.slice(HANDLING.length), Number(days)]),
  );

/** The seller's own channel's entry: its quantity, and the handling time where one is known. */
export const stockAttribute = (quantity: number, handlingDays?: number) => [
  { fulfillment_channel_code: 'DEFAULT', quantity, ...(handlingDays === undefined ? {} : { lead_time_to_ship_max_days: handlingDays }) },
];

/** putListingsItem's body: the product type, the requirements (an offer on an ASIN is LISTING_OFFER_ONLY) and every attribute. */
export function putBody(draft: ListingDraft, variant: DraftVariant, context: SkuContext) {
  return { productType: draft.categoryId, requirements: requirementsOf(draft), attributes: skuAttributes(draft, variant, context) };
}

/**
 * How each offer attribute is patched. The price replaces the offer; the stock is merged into the seller's channel, so
 * what the seller set there beside the quantity (the handling time, `lead_time_to_ship_max_days`) stays: a `replace`
 * wipes it (amzn/selling-partner-api-models issue 4406; `merge` changes the fields it names, listings.md §3.5 [A11]).
 */
const OFFER_OPS = { purchasable_offer: 'replace', fulfillment_availability: 'merge' } as const satisfies Record<
  (typeof OFFER)[number],
  string
>;

/** patchListingsItem's body changing the offer and the stock, one call (listings.md §3.5: no new review of the product). */
export function offerPatch(productType: string, draft: ListingDraft, variant: DraftVariant, context: SkuContext) {
  const offer = offerAttributes(draft, variant, context);
  // An FBA SKU's stock is Amazon's: its price alone is patched.
  const names = context.fba?.[variant.sku] ? (['purchasable_offer'] as const) : OFFER;
  return {
    productType,
    patches: names.map((name) => ({ op: OFFER_OPS[name], path: `/attributes/${name}`, value: offer[name] })),
  };
}

/** patchListingsItem's body changing the stock alone (switching a listing off and on), the handling time kept. */
export const stockPatch = (productType: string, quantity: number) => ({
  productType,
  patches: [{ op: OFFER_OPS.fulfillment_availability, path: '/attributes/fulfillment_availability', value: stockAttribute(quantity) }],
});

/** A value with every object's keys in order: a print of what the database gave back (jsonb orders keys its own way) is the same. */
function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((key) => [key, canonical((value as Record<string, unknown>)[key])]),
  );
}

/** The part of a SKU a PUT sends whole: its attributes but the offer, which is patched on its own. */
function productPart(draft: ListingDraft, variant: DraftVariant, context: SkuContext) {
  const { purchasable_offer: _, fulfillment_availability: __, ...rest } = skuAttributes(draft, variant, context);
  return { productType: draft.categoryId, requirements: requirementsOf(draft), attributes: rest };
}

/**
 * What a delivery records of a SKU it sent: the product part's print, its item name and description's apart (what a
 * seller edits in Seller Central, compared on a read), the offer's print, and the stock as listed (even while off).
 */
export function skuPrints(draft: ListingDraft, variant: DraftVariant, context: SkuContext): Record<string, string> {
  const part = productPart(draft, variant, context);
  const first = (name: string) => (part.attributes[name]?.[0] as { value?: unknown } | undefined)?.value ?? null;
  return {
    [`item.${variant.sku}`]: fingerprint(canonical(part)),
    [`text.${variant.sku}`]: fingerprint([first('item_name'), first('product_description')]),
    [`offer.${variant.sku}`]: fingerprint([variant.price, draft.currency]),
    [`quantity.${variant.sku}`]: String(variant.quantity),
  };
}

/** Every SKU's prints, with the listing's marketplace and product type (its later calls go there). */
export function deliveredPrints(draft: ListingDraft, context: SkuContext): Record<string, string> {
  const prints: Record<string, string> = { marketplace: context.marketplace.id, type: draft.categoryId };
  for (const variant of draft.variants) Object.assign(prints, skuPrints(draft, variant, context));
  if (context.off) prints.off = '1';
  return prints;
}

/** The SKUs a listing's progress says Amazon holds (a family's children), its first SKU (`externalId`) first. */
export function heldSkus(delivered: Readonly<Record<string, string>>, first: string | null): string[] {
  const skus = Object.keys(delivered)
    .filter((key) => key.startsWith('item.'))
    .map((key) => key.slice('item.'.length))
    .sort();
  // A family's id is its parent's SKU: its first child (the first variant when it was made) leads instead.
  const lead = first && skus.includes(first) ? first : delivered.child;
  return lead && skus.includes(lead) ? [lead, ...skus.filter((sku) => sku !== lead)] : skus;
}

/** The parent SKU a listing's progress says Amazon holds for its family, or null for a listing without one. */
export const heldParent = (delivered: Readonly<Record<string, string>>) => delivered.parent ?? null;

/** Forgets a SKU's prints (it was deleted from Amazon). */
export function forgetSku(delivered: Record<string, string>, sku: string) {
  for (const part of ['item', 'text', 'offer', 'quantity', 'fba', 'handling']) delete delivered[`${part}.${sku}`];
}

/** A Listings Items path: `/listings/2021-08-01/items/{sellerId}/{sku}` (the SKU URL-encoded). */
export const itemPath = (sellerId: string, sku: string) =>
  `/listings/2021-08-01/items/${encodeURIComponent(sellerId)}/${encodeURIComponent(sku)}`;
