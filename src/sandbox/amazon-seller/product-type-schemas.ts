/**
 * The JSON Schema of a product type, as getDefinitionsProductType links to it (listings.md §3.2): one per product
 * type, marketplace, requirements set and enforcement, in the shape of Amazon's (attribute values are arrays of
 * objects keyed by `marketplace_id` and, for text, `language_tag`; `selectors`, `editable`, `hidden` and `enumNames`
 * annotate them; "an identifier or an ASIN" is Amazon's pair of `if`/`then` rules). Its checksum is the Base64 MD5 of
 * the exact text served.
 *
 * ASSUMPTION: Amazon's schemas name Amazon's meta-schema in `$schema` (draft 2019-09 with its own vocabulary), which a
 * validator must be given first; these name draft 2019-09 itself, so `new Ajv2019({strict: false})` compiles them as
 * they are (the custom keywords are then ignored annotations). The meta-schema is served too, at `metaSchema`'s link.
 */
import { createHash } from 'node:crypto';
import type { SandboxMarketplace } from '../amazon-marketplaces.js';
import {
  type Enforcement,
  type ExtraAttribute,
  languageTagsOf,
  type ProductType,
  type Requirements,
  themeAttributes,
} from './product-types.js';

type Schema = Record<string, unknown>;

/** The condition values of Amazon's `condition_type` (the Listings Items model's ItemSummaryByMarketplace.conditionType). */
export const CONDITIONS: ReadonlyArray<readonly [value: string, name: string]> = [
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
  ['club_club', 'Club'],
];

const hiddenEnum = (title: string, values: string[], names: string[]) => ({
  title,
  type: 'string',
  enum: values,
  enumNames: names,
  default: values[0],
  editable: false,
  hidden: true,
});

/** An attribute: an array of value objects, each keyed by its selectors. */
/** Amazon's fulfilment channels (FBA), one a region: a SKU on one of them is stocked and counted by Amazon. */
export const FBA_CHANNELS = ['AMAZON_NA', 'AMAZON_EU', 'AMAZON_FE'] as const;

function attribute(title: string, description: string, selectors: string[], item: Schema, maxItems = 1): Schema {
  return {
    title,
    description,
    type: 'array',
    minItems: 1,
    maxItems,
    selectors,
    items: { type: 'object', additionalProperties: false, ...item },
  };
}

function builders(marketplace: SandboxMarketplace) {
  const tags = languageTagsOf(marketplace);
  const marketplaceId = hiddenEnum('Marketplace Id', [marketplace.id], [marketplace.name]);
  const languageTag = hiddenEnum('Language Tag', tags, tags);
  const text = (title: string, description: string, maxLength: number, options: { maxItems?: number; values?: readonly string[] } = {}) =>
    attribute(
      title,
      description,
      ['marketplace_id', 'language_tag'],
      {
        required: ['value', 'language_tag'],
        properties: {
          value: {
            title,
            description,
            editable: true,
            hidden: false,
            type: 'string',
            minLength: 1,
            maxLength,
            ...(options.values ? { enum: [...options.values], enumNames: [...options.values] } : {}),
          },
          language_tag: languageTag,
          marketplace_id: marketplaceId,
        },
      },
      options.maxItems,
    );
  const image = (title: string) =>
    attribute(title, 'The URL of an image of the product, publicly readable by Amazon', ['marketplace_id'], {
      required: ['media_location'],
      properties: {
        media_location: {
          title: 'Media Location',
          type: 'string',
          maxLength: 2000,
          pattern: '^(https?|s3)://\\S+$',
          editable: true,
          hidden: false,
        },
        marketplace_id: marketplaceId,
      },
    });
  return { marketplaceId, text, image };
}

/** A price in the marketplace's currency: whole yen in Japan, cents elsewhere. */
function priceSchema(marketplace: SandboxMarketplace): Schema {
  const whole = marketplace.currency === 'JPY';
  return { title: 'Your Price', type: 'number', minimum: whole ? 1 : 0.01, maximum: 10_000_000, ...(whole ? { multipleOf: 1 } : {}) };
}

/** Every attribute a product type's schema describes, in Amazon's order of groups. */
function propertiesOf(type: ProductType, marketplace: SandboxMarketplace): Record<string, Schema> {
  const { marketplaceId, text, image } = builders(marketplace);
  const extras = Object.fromEntries(
    Object.entries(type.extra).map(([name, extra]: [string, ExtraAttribute]) => [
      name,
      text(extra.title, extra.description, extra.maxLength, extra.values ? { values: extra.values } : {}),
    ]),
  );
  return {
    item_name: text('Item Name', 'Provide a title for the item that may be customer facing', 200),
    brand: text('Brand Name', 'Provide the brand name of the product', 100),
    externally_assigned_product_identifier: attribute(
      'External Product ID',
      'Provide the external ID (barcode) type and corresponding value that is being used to identify the product',
      ['marketplace_id', 'type'],
      {
        required: ['type', 'value'],
        properties: {
          type: { title: 'External Product ID Type', type: 'string', enum: ['ean', 'gtin', 'upc'], enumNames: ['EAN', 'GTIN', 'UPC'] },
          value: { title: 'External Product ID', type: 'string', pattern: '^[0-9]{8,14}$' },
          marketplace_id: marketplaceId,
        },
      },
    ),
    merchant_suggested_asin: attribute(
      'Merchant Suggested ASIN',
      'Provide an ASIN for your product if one exists. If a value is not provided, the system will attempt a match based on the External Product ID.',
      ['marketplace_id'],
      {
        required: ['value'],
        properties: {
          value: { title: 'ASIN', type: 'string', minLength: 10, maxLength: 10, pattern: '^[0-9A-Z]{10}$' },
          marketplace_id: marketplaceId,
        },
      },
    ),
    supplier_declared_has_product_identifier_exemption: attribute(
      'Product Exemption from GTIN',
      'Select if the brand has been granted an exemption from providing a product identifier (GTIN)',
      ['marketplace_id'],
      {
        required: ['value'],
        properties: {
          value: { title: 'Product Exemption from GTIN', type: 'boolean', enum: [false, true], enumNames: ['No', 'Yes'] },
          marketplace_id: marketplaceId,
        },
      },
    ),
    product_description: text('Product Description', 'Provide a text description of the product', 2000),
    bullet_point: text(
      'Bullet Point',
      'Brief descriptive text, called out via a bullet point, regarding a specific aspect of the product',
      500,
      {
        maxItems: 10,
      },
    ),
    manufacturer: text('Manufacturer', 'Provide the name of the company that manufactures the product', 100),
    ...extras,
    condition_type: attribute('Item Condition', 'Select the condition of the item', ['marketplace_id'], {
      required: ['value'],
      properties: {
        value: {
          title: 'Item Condition',
          type: 'string',
          enum: CONDITIONS.map(([value]) => value),
          enumNames: CONDITIONS.map(([, name]) => name),
        },
        marketplace_id: marketplaceId,
      },
    }),
    purchasable_offer: attribute(
      'Purchasable Offer',
      'The attribute indicates the Purchasable Offer of the product',
      ['marketplace_id', 'currency', 'audience'],
      {
        required: ['currency', 'our_price'],
        properties: {
          audience: hiddenEnum('Audience', ['ALL', 'B2B'], ['Sell on Amazon', 'Amazon Business (B2B)']),
          currency: hiddenEnum('Currency', [marketplace.currency], [marketplace.currency]),
          marketplace_id: marketplaceId,
          our_price: {
            title: 'Your Price',
            type: 'array',
            minItems: 1,
            maxItems: 1,
            items: {
              type: 'object',
              additionalProperties: false,
              required: ['schedule'],
              properties: {
                schedule: {
                  type: 'array',
                  minItems: 1,
                  maxItems: 1,
                  items: {
                    type: 'object',
                    additionalProperties: false,
                    required: ['value_with_tax'],
                    properties: { value_with_tax: priceSchema(marketplace) },
                  },
                },
              },
            },
          },
        },
      },
    ),
    fulfillment_availability: attribute(
      'Fulfillment Channel Code (Quantity)',
      'The quantity available for sale and who fulfils it',
      ['fulfillment_channel_code'],
      {
        required: ['fulfillment_channel_code'],
        // The seller's own channel states its quantity; Amazon's (FBA) is counted by Amazon, so none is required there.
        if: { properties: { fulfillment_channel_code: { const: 'DEFAULT' } } },
        // biome-ignore lint/suspicious/noThenProperty: JSON Schema's own if/then keywords, never awaited.
        then: { required: ['quantity'] },
        properties: {
          // The seller's own fulfilment, and Amazon's of each region (FBA: Amazon holds and counts the stock).
          fulfillment_channel_code: {
            title: 'Fulfillment Channel Code',
            type: 'string',
            enum: ['DEFAULT', ...FBA_CHANNELS],
            enumNames: [
              'Fulfilled by the seller',
              'Fulfilled by Amazon (North America)',
              'Fulfilled by Amazon (Europe)',
              'Fulfilled by Amazon (Far East)',
            ],
          },
          quantity: { title: 'Quantity', type: 'integer', minimum: 0, maximum: 99_999 },
          lead_time_to_ship_max_days: { title: 'Handling Time', type: 'integer', minimum: 0, maximum: 30 },
          // Not in Amazon's schemas; accepted because the offer-only examples people follow send it (listings.md §3.3).
          marketplace_id: marketplaceId,
        },
      },
    ),
    main_product_image_locator: image('Main Image Location'),
    other_product_image_locator_1: image('Other Image Location 1'),
    other_product_image_locator_2: image('Other Image Location 2'),
    other_product_image_locator_3: image('Other Image Location 3'),
    ...(type.themes.length > 0 ? variationProperties(type, marketplaceId) : {}),
  };
}

/**
 * The attributes of a variation family (the product type definition's "Variations" group, amzn/selling-partner-api-models
 * issues 1526 and 5166): `parentage_level` parent or child, a child's `child_parent_sku_relationship` naming its parent
 * SKU, and `variation_theme` (its `name` from the type's themes, with no marketplace: Amazon's answer in issue 5166).
 */
function variationProperties(type: ProductType, marketplaceId: Schema): Record<string, Schema> {
  return {
    parentage_level: attribute('Parentage Level', 'Specify whether the SKU is a parent or a child', ['marketplace_id'], {
      required: ['value'],
      properties: {
        value: { title: 'Parentage Level', type: 'string', enum: ['parent', 'child'], enumNames: ['Parent', 'Child'] },
        marketplace_id: marketplaceId,
      },
    }),
    child_parent_sku_relationship: attribute(
      'Child Parent SKU Relationship',
      'The parent SKU of a child and how they relate',
      ['marketplace_id'],
      {
        required: ['child_relationship_type', 'parent_sku'],
        properties: {
          child_relationship_type: { title: 'Child Relationship Type', type: 'string', enum: ['variation'], enumNames: ['Variation'] },
          parent_sku: { title: 'Parent SKU', type: 'string', minLength: 1, maxLength: 40 },
          marketplace_id: marketplaceId,
        },
      },
    ),
    variation_theme: attribute('Variation Theme', 'The attributes the family varies on', [], {
      required: ['name'],
      properties: { name: { title: 'Variation Theme Name', type: 'string', enum: [...type.themes], enumNames: [...type.themes] } },
    }),
  };
}

const PRODUCT_FACTS = ['item_name', 'brand', 'product_description', 'main_product_image_locator'];
const SALES_TERMS = ['condition_type', 'purchasable_offer', 'fulfillment_availability'];

/** The attributes the type's themes vary on (a family's children carry them, its parent need not). */
const variedOf = (type: ProductType) => new Set(type.themes.flatMap(themeAttributes));

/** The attributes a requirements set requires of every SKU, a family's parent too (the rules below aside). */
export function requiredOf(type: ProductType, requirements: Requirements): string[] {
  const extra = Object.entries(type.extra)
    .filter(([name, attribute]) => attribute.required && !variedOf(type).has(name))
    .map(([name]) => name);
  if (requirements === 'LISTING_OFFER_ONLY') return ['merchant_suggested_asin', ...SALES_TERMS];
  return [...PRODUCT_FACTS, ...extra];
}

/** What a SKU that is not a family's parent requires besides: the varied attributes the type requires, and the sales terms. */
function requiredUnlessParent(type: ProductType, requirements: Requirements): string[] {
  const varied = Object.entries(type.extra)
    .filter(([name, attribute]) => attribute.required && variedOf(type).has(name))
    .map(([name]) => name);
  return requirements === 'LISTING' ? [...varied, ...SALES_TERMS] : varied;
}

/**
 * Amazon's rule for a new product: without a suggested ASIN a barcode is required, and without a barcode an ASIN,
 * unless the brand holds a GTIN exemption (`supplier_declared_has_product_identifier_exemption` true), which asks for
 * neither (Amazon's schemas put these conditions in `allOf`, as here).
 */
const EXEMPT = {
  required: ['supplier_declared_has_product_identifier_exemption'],
  properties: {
    supplier_declared_has_product_identifier_exemption: { contains: { required: ['value'], properties: { value: { const: true } } } },
  },
};
/** A value of `parentage_level` (Amazon's schemas test it with `contains`, as in the conditions of a real one). */
const parentage = (level: 'parent' | 'child') => ({
  required: ['parentage_level'],
  properties: { parentage_level: { contains: { required: ['value'], properties: { value: { enum: [level] } } } } },
});
const PARENT = parentage('parent');
const requiredWithout = (absent: string, needed: string) => ({
  // A family's parent is no product a buyer buys: it carries no identifier (nor offer).
  if: { not: { anyOf: [{ required: [absent] }, EXEMPT, PARENT] } },
  // biome-ignore lint/suspicious/noThenProperty: JSON Schema's own if/then keywords, never awaited.
  then: { required: [needed] },
});
const IDENTIFIER_OR_ASIN = [
  requiredWithout('merchant_suggested_asin', 'externally_assigned_product_identifier'),
  requiredWithout('externally_assigned_product_identifier', 'merchant_suggested_asin'),
];

/**
 * A family's rules, as Amazon's schemas hold them in `allOf`: a parent names its theme; a child names its parent and
 * theme, and carries each attribute its theme varies on (a real schema's `if variation_theme is one of … and the SKU is
 * not a parent then required: [color]`); only a SKU that is not a parent needs the sales terms.
 */
function familyRules(type: ProductType, requirements: Requirements): Schema[] {
  const rules: Schema[] = [];
  const unlessParent = requiredUnlessParent(type, requirements);
  // biome-ignore lint/suspicious/noThenProperty: JSON Schema's own if/then keywords, never awaited.
  if (unlessParent.length > 0) rules.push({ if: { not: PARENT }, then: { required: unlessParent } });
  if (type.themes.length === 0) return rules;
  // biome-ignore lint/suspicious/noThenProperty: JSON Schema's own if/then keywords, never awaited.
  rules.push({ if: PARENT, then: { required: ['variation_theme'] } });
  // biome-ignore lint/suspicious/noThenProperty: JSON Schema's own if/then keywords, never awaited.
  rules.push({ if: parentage('child'), then: { required: ['child_parent_sku_relationship', 'variation_theme'] } });
  for (const varied of variedOf(type)) {
    const themes = type.themes.filter((theme) => themeAttributes(theme).includes(varied));
    const named = {
      required: ['variation_theme'],
      properties: { variation_theme: { contains: { properties: { name: { enum: themes } } } } },
    };
    // biome-ignore lint/suspicious/noThenProperty: JSON Schema's own if/then keywords, never awaited.
    rules.push({ if: { allOf: [named, { not: PARENT }] }, then: { required: [varied] } });
  }
  return rules;
}

export const META_SCHEMA_ID = 'https://schemas.amazon.com/selling-partners/definitions/product-types/meta-schema/v1';

function buildSchema(type: ProductType, marketplace: SandboxMarketplace, requirements: Requirements, enforcement: Enforcement): Schema {
  const enforced = enforcement === 'ENFORCED';
  const needsIdentity = enforced && requirements !== 'LISTING_OFFER_ONLY';
  const rules = enforced && requirements !== 'LISTING_OFFER_ONLY' ? familyRules(type, requirements) : [];
  const allOf = [...(needsIdentity ? IDENTIFIER_OR_ASIN : []), ...rules];
  return {
    $schema: 'https://json-schema.org/draft/2019-09/schema',
    $id: `https://schemas.amazon.com/selling-partners/definitions/product-types/schema/v1/${type.name}`,
    $comment: `Amazon product type definition for ${type.name} (sandbox), ${marketplace.id}, ${requirements}, ${enforcement}`,
    type: 'object',
    ...(enforced ? { required: requiredOf(type, requirements) } : {}),
    ...(allOf.length > 0 ? { allOf } : {}),
    properties: propertiesOf(type, marketplace),
  };
}

export interface ServedSchema {
  schema: Schema;
  /** The exact text served at the schema's link. */
  text: string;
  /** Base64 MD5 of `text`. */
  checksum: string;
}

const served = new Map<string, ServedSchema>();

/** The schema of a product type for one marketplace, requirements set and enforcement, built once. */
export function schemaOf(
  type: ProductType,
  marketplace: SandboxMarketplace,
  requirements: Requirements,
  enforcement: Enforcement,
): ServedSchema {
  const key = schemaFileName(type.name, marketplace.id, requirements, enforcement);
  let found = served.get(key);
  if (!found) {
    const schema = buildSchema(type, marketplace, requirements, enforcement);
    const text = JSON.stringify(schema, null, 2);
    found = { schema, text, checksum: checksumOf(text) };
    served.set(key, found);
  }
  return found;
}

export const checksumOf = (text: string) => createHash('md5').update(text).digest('base64');

/** The file name a schema is served under: `HOME.ATVPDKIKX0DER.LISTING.ENFORCED.json`. */
export function schemaFileName(type: string, marketplaceId: string, requirements: Requirements, enforcement: Enforcement): string {
  return `${type}.${marketplaceId}.${requirements}.${enforcement}.json`;
}

/** The meta-schema Amazon's schemas name, served at `metaSchema`'s link: draft 2019-09 plus Amazon's annotations. */
export const META_SCHEMA_TEXT = JSON.stringify(
  {
    $schema: 'https://json-schema.org/draft/2019-09/schema',
    $id: META_SCHEMA_ID,
    $comment: 'Sandbox: the vocabulary Amazon adds to draft 2019-09, as annotations.',
    allOf: [{ $ref: 'https://json-schema.org/draft/2019-09/schema' }],
    properties: {
      selectors: { type: 'array', items: { type: 'string' } },
      editable: { type: 'boolean' },
      hidden: { type: 'boolean' },
      enumNames: { type: 'array', items: { type: 'string' } },
      maxUniqueItems: { type: 'integer', minimum: 0 },
      maxUtf8ByteLength: { type: 'integer', minimum: 0 },
    },
  },
  null,
  2,
);
