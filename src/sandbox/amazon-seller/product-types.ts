/**
 * The product types the sandbox Amazon defines (Product Type Definitions API 2020-09-01, listings.md §3.2): a handful
 * of Amazon's real names with their display names, the words a search matches them by, and each one's own attributes
 * beyond the common ones (product-type-schemas.ts builds the JSON Schema from them). Amazon has thousands of product
 * types; these are chosen so a catalogue of mugs, candles, shirts and bags finds one, and so a schema-driven form has
 * enum attributes to show (SHIRT's size and department, HOME/KITCHEN/LUGGAGE material).
 */
import { createHash } from 'node:crypto';
import { SANDBOX_MARKETPLACES, type SandboxMarketplace } from '../amazon-marketplaces.js';

export const REQUIREMENTS = ['LISTING', 'LISTING_PRODUCT_ONLY', 'LISTING_OFFER_ONLY'] as const;
export type Requirements = (typeof REQUIREMENTS)[number];
export const ENFORCEMENTS = ['ENFORCED', 'NOT_ENFORCED'] as const;
export type Enforcement = (typeof ENFORCEMENTS)[number];

/** An attribute a product type adds to the common ones: free text, or text from a closed list. */
export interface ExtraAttribute {
  title: string;
  description: string;
  maxLength: number;
  values?: readonly string[];
  /** Required for LISTING and LISTING_PRODUCT_ONLY (product facts), never for LISTING_OFFER_ONLY. */
  required: boolean;
}

export interface ProductType {
  name: string;
  displayName: string;
  /** Lower-case words a `keywords` or `itemName` search matches. */
  words: readonly string[];
  extra: Readonly<Record<string, ExtraAttribute>>;
  /**
   * The variation themes the type offers (its schema's `variation_theme` enum), each the attributes a family varies on
   * by name (`SIZE_NAME/COLOR_NAME` varies `size` and `color`); none for a type that has no variations.
   */
  themes: readonly string[];
}

// ASSUMPTION: Amazon's material attributes are free text with suggestions; closed lists here give a form an enum.
const MATERIALS = ['Ceramic', 'Cotton', 'Glass', 'Leather', 'Linen', 'Metal', 'Plastic', 'Stoneware', 'Wax', 'Wood'] as const;
const material = (values: readonly string[] = MATERIALS): ExtraAttribute => ({
  title: 'Material',
  description: 'Specify the primary material of the product',
  maxLength: 50,
  values,
  required: false,
});
const size: ExtraAttribute = { title: 'Size', description: 'Provide the size of the product', maxLength: 50, required: false };
const color = (required: boolean): ExtraAttribute => ({
  title: 'Color',
  description: "Provide the product's color as it appears to customers",
  maxLength: 50,
  required,
});

export const PRODUCT_TYPES: readonly ProductType[] = [
  // The generic type: Amazon's guide allows offer-only listings and partial updates with it for any product.
  { name: 'PRODUCT', displayName: 'Product', words: ['product', 'item', 'gift'], extra: {}, themes: [] },
  {
    name: 'HOME',
    displayName: 'Home',
    words: ['home', 'decor', 'candle', 'vase', 'pillow', 'cushion', 'blanket', 'frame', 'lamp'],
    extra: { material: material(), color: color(false) },
    themes: ['COLOR'],
  },
  {
    name: 'KITCHEN',
    displayName: 'Kitchen',
    words: ['kitchen', 'mug', 'cup', 'bowl', 'plate', 'cookware', 'kettle', 'teapot', 'jar', 'cutting', 'board'],
    extra: { material: material(), color: color(false), size },
    themes: ['COLOR', 'SIZE', 'SIZE/COLOR'],
  },
  {
    name: 'SHIRT',
    displayName: 'Shirt',
    words: ['shirt', 't-shirt', 'tee', 'tshirt', 'blouse', 'top', 'polo'],
    extra: {
      color: color(true),
      // ASSUMPTION: Amazon's SHIRT describes size with the structured `shirt_size` (size system, class, value); a
      // single closed list stands in for it here.
      size: {
        title: 'Size',
        description: 'Select the size of the shirt',
        maxLength: 20,
        values: ['X-Small', 'Small', 'Medium', 'Large', 'X-Large', 'XX-Large'],
        required: true,
      },
      department: {
        title: 'Department',
        description: 'Select the department the shirt is sold in',
        maxLength: 20,
        values: ['womens', 'mens', 'unisex-adult', 'girls', 'boys'],
        required: false,
      },
    },
    // Amazon's apparel types name their themes after the `_name` attributes (listings-items model: SIZE_NAME/COLOR_NAME).
    themes: ['SIZE_NAME', 'COLOR_NAME', 'SIZE_NAME/COLOR_NAME'],
  },
  {
    name: 'LUGGAGE',
    displayName: 'Luggage',
    words: ['luggage', 'suitcase', 'carry-on', 'bag', 'tote', 'backpack', 'duffel', 'travel'],
    extra: {
      material: material(['Aluminium', 'Canvas', 'Cotton', 'Leather', 'Nylon', 'Polycarbonate', 'Polyester']),
      color: color(false),
      size,
    },
    themes: ['COLOR', 'SIZE/COLOR'],
  },
];

export function productTypeOf(name: unknown): ProductType | undefined {
  return PRODUCT_TYPES.find((type) => type.name === name);
}

/** One version for the whole set, shaped like Amazon's ("UHqSqmb4FNUk="): it changes only when the definitions do. */
export const PRODUCT_TYPE_VERSION = `U${createHash('md5').update(JSON.stringify(PRODUCT_TYPES)).digest('base64').slice(0, 11)}=`;

/** The attribute a theme's part names: `COLOR_NAME` and `COLOR` name `color` (the listings-items model's ItemVariationTheme). */
export const themeAttribute = (part: string) => part.toLowerCase().replace(/_name$/, '');

/** The attributes a theme varies on, in its order. */
export const themeAttributes = (theme: string) => theme.split('/').map(themeAttribute);

/** Words of a search text, lower case. */
const wordsOf = (text: string) =>
  text
    .toLowerCase()
    .split(/[^a-z0-9-]+/)
    .filter(Boolean);

/**
 * searchDefinitionsProductTypes: every type without a search; with `keywords`, the types one of them names; with
 * `itemName` (a title), Amazon's recommendation, here the types the title's words name, PRODUCT when none does.
 */
export function searchProductTypes(search: { keywords?: string[]; itemName?: string }): ProductType[] {
  if (search.keywords !== undefined) {
    const wanted = search.keywords.flatMap(wordsOf);
    return PRODUCT_TYPES.filter((type) => wanted.some((word) => type.words.includes(word) || type.name.toLowerCase() === word));
  }
  if (search.itemName !== undefined) {
    const words = wordsOf(search.itemName);
    const found = PRODUCT_TYPES.filter((type) => type.name !== 'PRODUCT' && words.some((word) => type.words.includes(word)));
    return found.length > 0 ? found : PRODUCT_TYPES.filter((type) => type.name === 'PRODUCT');
  }
  return [...PRODUCT_TYPES];
}

/** The sandbox marketplace with this id, in any region. */
export function marketplaceOf(id: string): SandboxMarketplace | undefined {
  return Object.values(SANDBOX_MARKETPLACES)
    .flat()
    .find((marketplace) => marketplace.id === id);
}

/** The language tags a marketplace's text attributes take, its default first (ASSUMPTION: the sandbox's choice per country). */
export function languageTagsOf(marketplace: SandboxMarketplace): string[] {
  const tags: Record<string, string[]> = {
    US: ['en_US', 'es_US'],
    CA: ['en_CA', 'fr_CA'],
    GB: ['en_GB'],
    DE: ['de_DE', 'en_GB'],
    JP: ['ja_JP', 'en_US'],
    AU: ['en_AU'],
  };
  return tags[marketplace.countryCode] ?? ['en_US'];
}
