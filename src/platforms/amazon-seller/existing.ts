/**
 * An Amazon SKU as an import reads it (listings.md §3.7, getListingsItem): the catalogue product it shows (one variant:
 * Amazon lists SKUs, not products), the listing's attributes (the item's attributes but those Storelink fills from the
 * product: a text by its value, anything else in Amazon's own shape), and what the listing's work would have recorded
 * delivering it, built with the delivery's own builder, so that a product made from it sends nothing until it changes.
 * Pure: the adapter does the I/O.
 */
import { type DraftImage, type ExistingListing, type ListingDraft, noFile } from '../contracts/listings.js';
import {
  type AmazonMarketplace,
  type AttributeShape,
  BULLETS,
  CONDITION,
  deliveredPrints,
  IDENTIFIER,
  identifierOf,
  isFilled,
  isImageAttribute,
  parentPrint,
  productPageOf,
  type SkuContext,
  THEME,
} from './listing-requests.js';
import { type AmazonItem, issuesOf, listingStatus, recordChannels, skuState, stockOf } from './listing-responses.js';
import { themeAttributes } from './listing-themes.js';

type Value = Record<string, unknown>;

/** The item's image URLs, the main one first. */
function imagesOf(attributes: Readonly<Record<string, unknown>>): string[] {
  return Object.keys(attributes)
    .filter(isImageAttribute)
    .sort((a, b) =>
      a === 'main_product_image_locator' ? -1 : b === 'main_product_image_locator' ? 1 : a.localeCompare(b, 'en', { numeric: true }),
    )
    .flatMap((name) => {
      const location = valuesOf(attributes, name)[0]?.media_location;
      return typeof location === 'string' ? [location] : [];
    });
}

/** Images Amazon shows, as a draft's: keyed by their URLs, never uploaded. */
const draftImages = (urls: readonly string[]) =>
  urls.map(
    (url): DraftImage => ({
      key: url,
      url,
      alt: null,
      stored: false,
      bytes: () => Promise.reject(new Error('an image Amazon shows is not uploaded')),
    }),
  );
const valuesOf = (attributes: Readonly<Record<string, unknown>>, name: string): Value[] =>
  Array.isArray(attributes[name]) ? (attributes[name] as unknown[]).filter((v): v is Value => typeof v === 'object' && v !== null) : [];
const textOf = (attributes: Readonly<Record<string, unknown>>, name: string) => {
  const value = valuesOf(attributes, name)[0]?.value;
  return typeof value === 'string' ? value : undefined;
};

/** A value object Storelink would have built from one value: its value, the marketplace, the language tag alone. */
const isPlain = (value: Value, marketplaceId: string) =>
  Object.keys(value).every((key) => key === 'value' || key === 'language_tag' || key === 'marketplace_id') &&
  (value.marketplace_id === undefined || value.marketplace_id === marketplaceId);

/** The item's attributes as a listing's: a plain value as itself (bullets as lines), anything else as Amazon holds it. */
function listingAttributes(
  attributes: Readonly<Record<string, unknown>>,
  marketplace: AmazonMarketplace,
  shapes: Readonly<Record<string, AttributeShape>>,
  siteCondition: string,
): Record<string, unknown> {
  const result: Record<string, unknown> = {};
  for (const name of Object.keys(attributes)) {
    if (isFilled(name)) continue;
    const values = valuesOf(attributes, name);
    if (values.length === 0) continue;
    const plain = name in shapes && values.every((value) => isPlain(value, marketplace.id));
    if (name === CONDITION) {
      const condition = textOf(attributes, CONDITION);
      if (condition && condition !== siteCondition) result[name] = condition;
    } else if (plain && name === BULLETS) result[name] = values.map((value) => String(value.value)).join('\n');
    else if (plain && values.length === 1) result[name] = values[0]!.value;
    else result[name] = values;
  }
  return result;
}

/** Amazon's price of the offer to every buyer in the marketplace, as decimal text. */
function priceOf(item: AmazonItem, marketplaceId: string): string {
  const offer = item.offers?.find((each) => each.marketplaceId === marketplaceId && (each.audience?.value ?? 'ALL') === 'ALL');
  const attribute = valuesOf(item.attributes ?? {}, 'purchasable_offer').find((each) => (each.audience ?? 'ALL') === 'ALL');
  const scheduled = (attribute?.our_price as { schedule?: { value_with_tax?: unknown }[] }[] | undefined)?.[0]?.schedule?.[0]
    ?.value_with_tax;
  const amount = offer ? Number(offer.price.amount) : Number(scheduled);
  return Number.isFinite(amount) && amount > 0 ? amount.toFixed(2) : '0.00';
}

export function existingListing(
  item: AmazonItem,
  context: Omit<SkuContext, 'off'> & { titles?: Readonly<Record<string, string>> },
  now: Date,
): ExistingListing {
  const { marketplace } = context;
  const attributes = item.attributes ?? {};
  const summary = item.summaries?.find((each) => each.marketplaceId === marketplace.id) ?? item.summaries?.[0];
  const categoryId = summary?.productType ?? 'PRODUCT';
  const state = skuState(item, marketplace.id, now);
  const images = imagesOf(attributes);
  const offer = valuesOf(attributes, 'purchasable_offer')[0];
  const currency =
    item.offers?.find((each) => each.marketplaceId === marketplace.id)?.price.currencyCode ??
    String(offer?.currency ?? marketplace.currency);
  const variant = { sku: item.sku, optionValues: {}, price: priceOf(item, marketplace.id), quantity: stockOf(item) };
  const catalogue = {
    title: textOf(attributes, 'item_name') ?? summary?.itemName ?? item.sku,
    description: textOf(attributes, 'product_description') ?? '',
    // Amazon holds no tags of Storelink's: none are sent (listing-requests.ts), so none is read back.
    tags: null,
    currency,
    options: [],
    variants: [variant],
    images: images.map((url) => ({ url, alt: null })),
  };
  const listing = listingAttributes(attributes, marketplace, context.shapes, context.condition);
  // The product as a draft of the catalogue product made from it would show it: its images keyed by their URLs.
  const held: ListingDraft = {
    ...catalogue,
    tags: [],
    brand: null,
    categoryId,
    attributes: listing,
    variants: [{ ...variant, barcode: null }],
    images: draftImages(images),
    package: null,
    file: noFile,
  };
  // A SKU without stock is off (Amazon has no other "inactive", listings.md §3.5): switching it on restores its stock.
  const off = state.status === 'inactive';
  const externalUrl = productPageOf(marketplace.id, summary?.asin);
  return {
    externalId: item.sku,
    state: { ...state, externalUrl, issues: issuesOf(item.issues) },
    categoryId,
    attributes: listing,
    product: catalogue,
    progress: {
      externalId: item.sku,
      externalUrl,
      createStartedAt: null,
      images: {},
      // An FBA SKU is imported as such: recorded with its channel, its stock Amazon's count and never written.
      delivered: { ...deliveredPrints(held, { ...context, off }), ...fbaRecorded([item]) },
      variantIds: summary?.asin ? { [item.sku]: summary.asin } : {},
    },
  };
}

/** An option's name from the attribute a theme varies on: `color` is Color, `item_package_quantity` Item package quantity. */
const optionName = (attribute: string) => `${attribute.charAt(0).toUpperCase()}${attribute.slice(1).replaceAll('_', ' ')}`;

/**
 * A variation family as an import reads it (DESIGN §15): one catalogue product, not a product per SKU. The parent gives
 * the title, description, images and the listing's attributes (asked once for the family; the theme kept as the
 * listing's `variation_theme`); each child is a variant, its option values the attributes the theme varies on, its
 * barcode its own; the listing's state is the children's. What it records as delivered is what the delivery's builder
 * would send for the product made from it, the parent's part too, so it sends nothing until the catalogue changes.
 * Null for a parent without a theme or children: a parent alone is nothing a buyer buys.
 */
export function existingFamily(
  parent: AmazonItem,
  children: readonly AmazonItem[],
  context: Omit<SkuContext, 'off' | 'family'>,
  now: Date,
): ExistingListing | null {
  const theme = (valuesOf(parent.attributes ?? {}, THEME)[0]?.name as string | undefined) ?? null;
  if (!theme || children.length === 0) return null;
  const { marketplace } = context;
  const varied = themeAttributes(theme);
  const singles = children.map((child) => existingListing(child, context, now));
  const variants = children.map((child, i) => {
    const single = singles[i]!.product.variants[0]!;
    const optionValues = Object.fromEntries(
      varied.map((attribute) => [optionName(attribute), textOf(child.attributes ?? {}, attribute) ?? '']),
    );
    const code = valuesOf(child.attributes ?? {}, IDENTIFIER)[0]?.value;
    const barcode = identifierOf(typeof code === 'string' ? code : null)?.value ?? null;
    return { sku: child.sku, optionValues, price: single.price, quantity: single.quantity, barcode };
  });
  const options = varied.map((attribute) => {
    const name = optionName(attribute);
    return { name, values: [...new Set(variants.map((variant) => variant.optionValues[name]!))] };
  });
  const attributes = parent.attributes ?? {};
  const summary = parent.summaries?.find((each) => each.marketplaceId === marketplace.id) ?? parent.summaries?.[0];
  const categoryId = summary?.productType ?? 'PRODUCT';
  const shared = listingAttributes(attributes, marketplace, context.shapes, context.condition);
  const condition = singles[0]!.attributes[CONDITION];
  const listing = { ...shared, [THEME]: theme, ...(condition ? { [CONDITION]: condition } : {}) };
  const images = imagesOf(attributes);
  const product = {
    title: textOf(attributes, 'item_name') ?? summary?.itemName ?? parent.sku,
    description: textOf(attributes, 'product_description') ?? '',
    // Amazon holds no tags of Storelink's: none are sent (listing-requests.ts), so none is read back.
    tags: null,
    currency: singles[0]!.product.currency,
    options,
    variants,
    images: images.map((url) => ({ url, alt: null })),
  };
  const held: ListingDraft = {
    ...product,
    tags: [],
    brand: null,
    categoryId,
    attributes: listing,
    images: draftImages(images),
    package: null,
    file: noFile,
  };
  const states = singles.map((single) => single.state);
  const off = states.every((state) => state.status === 'inactive');
  const family = { parentSku: parent.sku, theme, varied: Object.fromEntries(options.map((option, i) => [option.name, varied[i]!])) };
  const skuContext = { ...context, off, family };
  const delivered = {
    ...deliveredPrints(held, skuContext),
    parent: parent.sku,
    family: parentPrint(held, family, skuContext),
    child: children[0]!.sku,
    ...fbaRecorded(children),
  };
  const state = {
    ...singles[0]!.state,
    status: listingStatus(states.map((each) => each.status)),
    issues: states.flatMap((each) => each.issues),
  };
  return {
    externalId: parent.sku,
    state,
    categoryId,
    attributes: listing,
    product,
    progress: {
      externalId: parent.sku,
      externalUrl: state.externalUrl,
      createStartedAt: null,
      images: {},
      delivered,
      variantIds: Object.assign({}, ...singles.map((single) => single.progress.variantIds)),
    },
  };
}

/** The `fba.<sku>` records of the items Amazon fulfils. */
function fbaRecorded(items: readonly AmazonItem[]): Record<string, string> {
  const recorded: Record<string, string> = {};
  recordChannels(recorded, items);
  return recorded;
}
