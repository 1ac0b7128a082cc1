/**
 * What a publish form reads of Amazon: the site's marketplaces and the conditions as its settings' choices, product
 * types as categories (each a leaf: Amazon's types have no tree), and the attributes a product type's schema describes.
 */
import type { CategoryAttribute } from '../../domain/index.js';
import type { ListingsAdapter } from '../contracts/listings.js';
import {
  ASIN,
  type AttributeShape,
  BRAND,
  BULLETS,
  CONDITION,
  IDENTIFIER,
  isFilled,
  marketplaceLabel,
  marketplaceOf,
  THEME,
} from './listing-requests.js';
import { ProductTypes, reader } from './listing-responses.js';
import type { AmazonProductTypes } from './product-types.js';
import { marketplaceFor, type SpApi } from './sp-api.js';

/** The conditions a site can list in (the Listings Items model's condition values; the common ones). */
const CONDITIONS: readonly [string, string][] = [
  ['new_new', 'New'],
  ['new_open_box', 'New - Open Box'],
  ['new_oem', 'New - OEM'],
  ['refurbished_refurbished', 'Refurbished'],
  ['used_like_new', 'Used - Like New'],
  ['used_very_good', 'Used - Very Good'],
  ['used_good', 'Used - Good'],
  ['used_acceptable', 'Used - Acceptable'],
  ['collectible_like_new', 'Collectible - Like New'],
  ['collectible_very_good', 'Collectible - Very Good'],
  ['collectible_good', 'Collectible - Good'],
  ['collectible_acceptable', 'Collectible - Acceptable'],
];
const conditionChoices = () => CONDITIONS.map(([value, label]) => ({ value, label }));

/** An attribute the schema describes with one value: a choice from its enum, a text, a number, yes or no. */
const attributeOf = (name: string, shape: AttributeShape): CategoryAttribute => {
  const choices = shape.enum ?? [];
  return {
    name,
    label: shape.title,
    required: shape.required,
    type: choices.length > 0 ? 'select' : shape.valueType === 'boolean' ? 'boolean' : shape.valueType === 'string' ? 'text' : 'number',
    values: choices.map((value, i) => ({ value, label: shape.enumNames?.[i] ?? value })),
  };
};

/** Storelink's own attributes, which the listing's requests fill in their own way. */
const ownAttributes = (): CategoryAttribute[] => [
  { name: BRAND, label: 'Brand (when the product has none, or to list under another)', required: false, type: 'text', values: [] },
  { name: CONDITION, label: "Condition (instead of the site's)", required: false, type: 'select', values: conditionChoices() },
  { name: BULLETS, label: 'Bullet points (one a line)', required: false, type: 'text', values: [] },
  {
    name: IDENTIFIER,
    label: 'Barcode (UPC, EAN or GTIN) of a product of one variant without one',
    required: false,
    type: 'text',
    values: [],
  },
  { name: ASIN, label: 'ASIN to offer on (an existing Amazon product)', required: false, type: 'text', values: [] },
];

/**
 * What the product type's schema describes that Storelink does not fill from the product: each attribute a listing
 * gives with one value (required where the schema requires it), and Storelink's own: the brand, the condition, the
 * barcode, the bullet points and the ASIN to offer on. An attribute of a structure of its own (dimensions, say) is not
 * offered (see docs/listings.md).
 */
function offeredAttributes(schema: {
  shapes: Record<string, AttributeShape>;
  properties: Set<string>;
  themes: string[];
}): CategoryAttribute[] {
  const offered = Object.entries(schema.shapes)
    .filter(([name]) => !isFilled(name) && name !== BRAND && name !== CONDITION && name !== BULLETS && name !== ASIN)
    .map(([name, shape]) => attributeOf(name, shape));
  return [
    ...offered,
    ...ownAttributes().filter((attribute) => schema.properties.has(attribute.name) || attribute.name === BULLETS),
    ...(schema.themes.length > 0 ? [themeAttribute(schema.themes)] : []),
  ];
}

/**
 * The product type's variation themes, which a product with options lists as a family under: the theme that varies on
 * exactly its options is chosen when the listing names none (the check, listing-rules.ts, reads the choices from here).
 */
const themeAttribute = (themes: readonly string[]): CategoryAttribute => ({
  name: THEME,
  label: 'Variation theme (a product with options; chosen from its options when left empty)',
  required: false,
  type: 'select',
  values: themes.map((theme) => ({ value: theme, label: theme })),
});

/** The reads of one adapter a publish form makes. */
export function createCategories({ send }: SpApi, productTypes: AmazonProductTypes) {
  return {
    /** The site's own marketplaces (what connecting read from the Sellers API: no call) and the conditions. */
    async listingOptions(call) {
      const ids = Array.isArray(call.data.marketplace_ids) ? call.data.marketplace_ids.map(String) : [];
      return {
        marketplace_id: ids.map((id) => ({
          value: id,
          label: marketplaceLabel(id),
          ...(marketplaceOf(id) ? { currency: marketplaceOf(id)!.currency } : {}),
        })),
        condition_type: conditionChoices(),
      };
    },

    /** Product types by keywords (every one without a search): each a leaf, Amazon's types having no tree. */
    async categories(call, { q, parentId }) {
      if (parentId) return [];
      const marketplace = marketplaceFor(call);
      const query = { marketplaceIds: marketplace.id, ...(q?.trim() ? { keywords: q.trim() } : {}) };
      const path = '/definitions/2020-09-01/productTypes';
      const found = await send(call, marketplace, 'searchDefinitionsProductTypes', 'GET', path, reader(ProductTypes), { query });
      return found.productTypes.map((type) => {
        const name = type.displayName ?? type.name;
        return { id: type.name, name, path: [name], leaf: true };
      });
    },

    async category(call, categoryId) {
      const definition = await productTypes.definitionOf(call, marketplaceFor(call), categoryId, 'LISTING');
      if (!definition) return null;
      const name = definition.displayName ?? definition.productType;
      return { id: definition.productType, name, path: [name], leaf: true };
    },

    async categoryAttributes(call, categoryId) {
      const marketplace = marketplaceFor(call);
      const definition = await productTypes.definitionOf(call, marketplace, categoryId, 'LISTING');
      if (!definition) return null;
      return offeredAttributes(await productTypes.schemaOf(call, definition));
    },
  } satisfies Pick<ListingsAdapter, 'listingOptions' | 'categories' | 'category' | 'categoryAttributes'>;
}
