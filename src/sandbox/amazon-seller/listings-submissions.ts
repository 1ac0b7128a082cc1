/**
 * What putListingsItem and patchListingsItem decide before anything is stored (listings.md §3.3–3.5): the attributes
 * with their selector defaults filled in (each value's `marketplace_id`, a price's `audience`, as Amazon's schemas
 * default them), checked against the product type's schema (ENFORCED for a PUT, NOT_ENFORCED for a PATCH), then the
 * suggested ASIN against the catalogue. No issues: VALID (VALIDATION_PREVIEW) or ACCEPTED; else INVALID, nothing
 * stored.
 */
import type { SandboxMarketplace } from '../amazon-marketplaces.js';
import type { Attributes, ListingsStore, StoredListing } from './listings-store.js';
import { asinFor, channelOf, firstValue, quantityOf, textOf } from './listings-store.js';
import { type Issue, validateAttributes } from './listings-validation.js';
import { schemaOf } from './product-type-schemas.js';
import type { ProductType, Requirements } from './product-types.js';

type Value = Record<string, unknown>;
interface PropertySchema {
  selectors?: string[];
  items?: { properties?: Record<string, { default?: unknown }> };
}

function propertiesOf(type: ProductType, marketplace: SandboxMarketplace): Record<string, PropertySchema> {
  return schemaOf(type, marketplace, 'LISTING', 'NOT_ENFORCED').schema.properties as Record<string, PropertySchema>;
}

/** The selectors of an attribute; an attribute the schema does not describe is keyed by marketplace and language. */
export function selectorsOf(type: ProductType, marketplace: SandboxMarketplace): (attribute: string) => readonly string[] {
  const properties = propertiesOf(type, marketplace);
  return (attribute) => properties[attribute]?.selectors ?? ['marketplace_id', 'language_tag'];
}

/** The attributes with each value's missing selectors set to the schema's defaults. */
export function withDefaults(type: ProductType, marketplace: SandboxMarketplace, attributes: Attributes): Attributes {
  const properties = propertiesOf(type, marketplace);
  const result: Attributes = structuredClone(attributes);
  for (const [name, values] of Object.entries(result)) {
    const property = properties[name];
    if (!property || !Array.isArray(values)) continue;
    for (const value of values) {
      if (typeof value !== 'object' || value === null) continue;
      for (const selector of property.selectors ?? []) {
        const fallback = property.items?.properties?.[selector]?.default;
        if ((value as Value)[selector] === undefined && fallback !== undefined) (value as Value)[selector] = fallback;
      }
    }
  }
  return result;
}

/**
 * ASSUMPTION: the code and wording for a suggested ASIN the catalogue does not have (8541 is what Amazon answers when
 * the data given contradicts the catalogue's ASIN; it documents no code for an ASIN that does not exist).
 */
export const unknownAsinIssue = (asin: string): Issue => ({
  code: '8541',
  message: `The merchant_suggested_asin '${asin}' does not match any ASIN in the Amazon catalog.`,
  severity: 'ERROR',
  attributeNames: ['merchant_suggested_asin'],
  categories: ['INVALID_ATTRIBUTE'],
});

/**
 * ASSUMPTION: Amazon's code and words for a quantity of the seller's own channel written to a SKU Amazon fulfils (the
 * sandbox refuses it rather than turning the SKU into one the seller ships, which is what integrators report Amazon
 * does): an FBA SKU's stock is Amazon's count, changed by shipments to its warehouses, not by the Listings Items API.
 */
const fbaIssue = (channel: string): Issue => ({
  code: '99022',
  message: `This SKU is fulfilled by Amazon (${channel}): Amazon counts its quantity. A quantity for the DEFAULT fulfillment channel cannot be set on it; change its fulfillment channel in Seller Central first.`,
  severity: 'ERROR',
  attributeNames: ['fulfillment_availability'],
  categories: ['INVALID_ATTRIBUTE'],
});

/** The issue of a submission that would put a `DEFAULT` quantity on a SKU the seller holds as FBA; else null. */
function fbaWriteIssue(existing: StoredListing | undefined, attributes: Attributes): Issue | null {
  if (!existing || channelOf(existing) === 'DEFAULT') return null;
  const entries = Array.isArray(attributes.fulfillment_availability)
    ? (attributes.fulfillment_availability as Record<string, unknown>[])
    : [];
  return entries.some((each) => each.fulfillment_channel_code === 'DEFAULT') ? fbaIssue(channelOf(existing)) : null;
}

/** A PUT that keeps an FBA SKU on Amazon's channel (no quantity given) keeps Amazon's count. */
function keepAmazonCount(existing: StoredListing, attributes: Attributes) {
  const channel = channelOf(existing);
  if (channel === 'DEFAULT' || !Array.isArray(attributes.fulfillment_availability)) return;
  const entries = attributes.fulfillment_availability as Record<string, unknown>[];
  attributes.fulfillment_availability = entries.map((each) =>
    each.fulfillment_channel_code === channel && each.quantity === undefined ? { ...each, quantity: quantityOf(existing) } : each,
  );
}

export interface Checked {
  issues: Issue[];
  attributes: Attributes;
  /** The listing's ASIN: the suggested one, or a new one made for the seller's SKU. */
  asin: string;
}

/** The ASIN of the attributes, with the issue when a suggested one is not in the catalogue. */
function asinOf(store: ListingsStore, account: number, sku: string, attributes: Attributes): { asin: string; issue?: Issue } {
  const suggested = textOf(attributes, 'merchant_suggested_asin');
  if (suggested === undefined) return { asin: asinFor(account, sku) };
  return store.catalogueItem(suggested) ? { asin: suggested } : { asin: suggested, issue: unknownAsinIssue(suggested) };
}

/**
 * ASSUMPTION: the code and wording for a child whose family does not hold together (Amazon documents none; integrators
 * report children refused or left out of their family when the parent SKU is missing or its theme differs).
 */
const relationshipIssue = (attribute: string, message: string): Issue => ({
  code: 'INVALID_RELATIONSHIP',
  message,
  severity: 'ERROR',
  attributeNames: [attribute],
  categories: ['INVALID_ATTRIBUTE'],
});

/** The theme a SKU's `variation_theme` names. */
export const themeOf = (attributes: Attributes) => {
  const name = firstValue(attributes, 'variation_theme')?.name;
  return typeof name === 'string' ? name : undefined;
};

/** The parent SKU a child names. */
export const parentSkuOf = (attributes: Attributes) => {
  const sku = firstValue(attributes, 'child_parent_sku_relationship')?.parent_sku;
  return typeof sku === 'string' ? sku : undefined;
};

/**
 * A child's family: its parent SKU must be the seller's parent in the marketplace (put first, as Amazon asks parents
 * to be), with the child's theme; a SKU is never its own parent. ASSUMPTION: a VALIDATION_PREVIEW checks a child against
 * a parent Amazon holds, and takes one whose parent is not there yet (previewed in the same run, never stored).
 */
function familyIssues(
  store: ListingsStore,
  target: { account: number; sku: string; marketplace: SandboxMarketplace; preview?: boolean },
  attributes: Attributes,
) {
  if (textOf(attributes, 'parentage_level') !== 'child') return [];
  const parentSku = parentSkuOf(attributes) ?? '';
  const parent = parentSku === target.sku ? undefined : store.get(target.account, target.marketplace.id, parentSku);
  if (!parent && target.preview && parentSku !== target.sku) return [];
  if (!parent || textOf(parent.attributes, 'parentage_level') !== 'parent')
    return [
      relationshipIssue(
        'child_parent_sku_relationship',
        `The parent SKU '${parentSku}' is not a variation parent of this seller in marketplace ${target.marketplace.id}.`,
      ),
    ];
  const theme = themeOf(attributes);
  if (theme !== themeOf(parent.attributes))
    return [relationshipIssue('variation_theme', `The variation theme '${theme}' is not the theme of the parent SKU '${parentSku}'.`)];
  return [];
}

/** A PUT: the whole attributes, under the requirements' schema, ENFORCED. */
export function checkPut(
  store: ListingsStore,
  target: { account: number; sku: string; marketplace: SandboxMarketplace; preview?: boolean },
  type: ProductType,
  requirements: Requirements,
  raw: Attributes,
): Checked {
  const attributes = withDefaults(type, target.marketplace, raw);
  const schemaIssues = validateAttributes(type, target.marketplace, requirements, 'ENFORCED', attributes);
  const existing = store.get(target.account, target.marketplace.id, target.sku);
  const fba = fbaWriteIssue(existing, attributes);
  if (existing && !fba) keepAmazonCount(existing, attributes);
  const issues = schemaIssues.length > 0 ? schemaIssues : fba ? [fba] : familyIssues(store, target, attributes);
  const { asin, issue } = asinOf(store, target.account, target.sku, attributes);
  return { issues: issues.length > 0 ? issues : issue ? [issue] : [], attributes, asin };
}

/**
 * A PATCH of a stored listing: its attributes patched, under its own product type's schema NOT_ENFORCED (structure
 * only, as for partial updates). ASSUMPTION: the body's `productType` need not be the listing's (Amazon's guide has
 * partial updates sent as PRODUCT); the listing keeps its own.
 */
export function checkPatch(
  store: ListingsStore,
  listing: StoredListing,
  type: ProductType,
  marketplace: SandboxMarketplace,
  patched: Attributes,
): Checked {
  const attributes = withDefaults(type, marketplace, patched);
  const schemaIssues = validateAttributes(type, marketplace, listing.requirements, 'NOT_ENFORCED', attributes);
  const fba = fbaWriteIssue(listing, attributes);
  const issues = schemaIssues.length > 0 ? schemaIssues : fba ? [fba] : [];
  const suggested = textOf(attributes, 'merchant_suggested_asin');
  const unknown = suggested !== undefined && suggested !== listing.asin && !store.catalogueItem(suggested);
  const asin = suggested !== undefined && !unknown ? suggested : listing.asin;
  return { issues: issues.length > 0 ? issues : unknown ? [unknownAsinIssue(suggested)] : [], attributes, asin };
}
