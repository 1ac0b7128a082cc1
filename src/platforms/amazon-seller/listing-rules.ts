/**
 * Amazon's rules a listing is checked against before anything is sent: Storelink's own (a brand and an image for a
 * product of its own, Amazon's title and SKU lengths), and the product type's JSON Schema
 * (listings.md §3.2), against which each SKU's attributes are validated locally with Ajv (draft 2019-09) as Amazon
 * validates them, each problem an issue on the field the seller changes to fix it.
 */
import { Ajv2019, type ErrorObject, type ValidateFunction } from 'ajv/dist/2019.js';
import { type CategoryAttribute, type ListingIssue, storelinkIssue } from '../../domain/index.js';
import type { ListingDraft } from '../contracts/listings.js';
import { ASIN, BRAND, BULLETS, CONDITION, IDENTIFIER, isFamily, isImageAttribute, offeredAsin, THEME } from './listing-requests.js';
import { PARENT_SUFFIX, themeFor } from './listing-themes.js';

/** Item names: the schemas' `item_name` maxLength (200 in the sandbox's; UNCONFIRMED for every real product type). */
const TITLE_MAX = 200;
/** Seller SKUs: UNCONFIRMED (the 40 characters Seller Central's flat files allow); the API's path takes any. */
const SKU_MAX = 40;

/**
 * The draft against Amazon's rules Storelink knows. Its prices are in the marketplace's currency already: a listing's
 * currency is its marketplace's, and the listing engine converts or refuses before a draft is made
 * (core/listings/pricing.ts).
 */
export function checkAmazonDraft(draft: ListingDraft): ListingIssue[] {
  const issues: ListingIssue[] = [];
  const issue = (field: string, code: string, message: string) => issues.push(storelinkIssue(field, code, message));
  const offerOnly = offeredAsin(draft) !== null;
  if (!offerOnly) {
    const brand = draft.attributes[BRAND];
    if (!draft.brand && (brand === undefined || brand === null || brand === ''))
      issue(
        'product.brand',
        'amazon_brand_required',
        'Amazon needs a brand to list a product: set the product’s brand (or offer on an existing ASIN).',
      );
    if (draft.images.length === 0)
      issue('product.images', 'amazon_image_required', 'Amazon needs at least one image to list a product (or offer on an existing ASIN).');
  }
  if (draft.title.length > TITLE_MAX)
    issue('product.title', 'amazon_title_length', `Amazon item names have at most ${TITLE_MAX} characters.`);
  draft.variants.forEach((variant, i) => {
    if (variant.sku.length > SKU_MAX)
      issue(`product.variants.${i}.sku`, 'amazon_sku_length', `Amazon takes seller SKUs of at most ${SKU_MAX} characters.`);
    if (variant.sku.toUpperCase().endsWith(PARENT_SUFFIX))
      issue(
        `product.variants.${i}.sku`,
        'amazon_sku_reserved',
        `Storelink names the parent SKUs of Amazon variation families "<sku>${PARENT_SUFFIX}": give this variant another SKU.`,
      );
  });
  if (draft.variants.length > 1 && draft.attributes[IDENTIFIER] !== undefined)
    issue(
      `attributes.${IDENTIFIER}`,
      'amazon_identifier_per_variant',
      'A product of several variants is identified by each variant’s barcode: set them on the variants instead.',
    );
  return issues;
}

/** The theme a given string names, or undefined. */
const chosenTheme = (draft: Pick<ListingDraft, 'attributes'>) => {
  const chosen = draft.attributes[THEME];
  return typeof chosen === 'string' && chosen.trim() !== '' ? chosen.trim() : undefined;
};

/** The family's theme for the draft among the product type's themes, or null when its options fit none. */
export const familyTheme = (draft: Pick<ListingDraft, 'attributes' | 'options'>, themes: readonly string[]) =>
  themeFor(draft.options, themes, chosenTheme(draft));

/**
 * A product with options lists as a variation family (DESIGN §15): its options must fit one of the product type's
 * themes (the category's `variation_theme` choices), else the product type is the wrong one: an issue on `category_id`
 * naming the options and the themes it offers.
 */
export function checkFamily(draft: ListingDraft, attributes: readonly CategoryAttribute[]): ListingIssue[] {
  if (!isFamily(draft)) return [];
  const themes = attributes.find((attribute) => attribute.name === THEME)?.values.map((value) => value.value) ?? [];
  if (familyTheme(draft, themes)) return [];
  const options = draft.options.map((option) => option.name).join(', ');
  const chosen = chosenTheme(draft);
  const message =
    themes.length === 0
      ? `Amazon's product type ${draft.categoryId} has no variation themes, so a product with options (${options}) cannot be listed in it as a family: choose another product type.`
      : `Amazon's product type ${draft.categoryId} has no variation theme ${chosen ? `${chosen} ` : ''}for the options ${options}: its themes are ${themes.join(', ')}. Choose another product type, or name the options after a theme's attributes.`;
  return [storelinkIssue(chosen ? `attributes.${THEME}` : 'category_id', 'amazon_variation_theme', message)];
}

/**
 * A product type's schema compiled (one Ajv per schema: Amazon's share one `$id` across requirements sets). Amazon's
 * schemas name its own meta-schema in `$schema`, draft 2019-09 with annotations (`selectors`, `editable`, `enumNames`…):
 * the `$schema` is set aside so Ajv validates them as draft 2019-09, its non-strict mode ignoring the annotations.
 */
export function compileSchema(schema: Record<string, unknown>): ValidateFunction {
  const { $schema: _, $id: __, ...rest } = schema;
  return new Ajv2019({ strict: false, allErrors: true, validateFormats: false }).compile(rest);
}

/** The catalogue field behind an attribute Storelink fills; variants by their place. */
function productFieldOf(attribute: string, variantIndex: number): string | null {
  if (attribute === 'item_name') return 'product.title';
  if (attribute === 'product_description') return 'product.description';
  if (attribute === BRAND) return 'product.brand';
  if (attribute === IDENTIFIER) return `product.variants.${variantIndex}.barcode`;
  if (attribute === 'purchasable_offer') return `product.variants.${variantIndex}.price`;
  if (attribute === 'fulfillment_availability') return `product.variants.${variantIndex}.quantity`;
  if (attribute === CONDITION) return 'settings.condition_type';
  if (isImageAttribute(attribute)) return 'product.images';
  return null;
}

/** Attributes Storelink fills or asks for under its own names, said in the seller's words, not the schema's titles. */
const SELLER_WORDS: Readonly<Record<string, string>> = {
  [IDENTIFIER]: 'The barcode (UPC, EAN or GTIN)',
  [ASIN]: 'The ASIN to offer on',
};

/** A required attribute the seller's route does not take: a product of its own needs a barcode, never an ASIN. */
const offRoute = (attribute: string, draft: ListingDraft) => attribute === ASIN && offeredAsin(draft) === null;

/** The schema's "required" in a seller's words, for the attributes Storelink names itself. */
function requiredMessage(attribute: string, title: string): string {
  if (attribute === IDENTIFIER)
    return 'Amazon needs a barcode (UPC, EAN or GTIN) on each variant of a new product: set the variant’s barcode, or offer on an existing ASIN.';
  return `Amazon requires ${title} for this product type.`;
}

/** "1 character", "50 characters". */
const counted = (limit: unknown, noun: string) => `${limit} ${noun}${limit === 1 ? '' : 's'}`;

/** How many of a list's allowed values a message names before it says how many more there are. */
const NAMED_VALUES = 8;

/**
 * What a rule of Amazon's schema asks, in a seller's words: Ajv's own words where they are plain ("must NOT have more
 * than 50 characters"), and none of its regular expressions or keyword names where they are not.
 */
export function ruleInWords(error: Pick<ErrorObject, 'keyword' | 'params' | 'message'>): string {
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'pattern':
    case 'format':
      return 'is not written the way Amazon accepts for it';
    case 'enum': {
      const allowed = (params.allowedValues as unknown[] | undefined) ?? [];
      if (allowed.length === 0) return 'is not one of the values Amazon accepts';
      const named = allowed.slice(0, NAMED_VALUES).map((value) => `“${String(value)}”`);
      const more = allowed.length > NAMED_VALUES ? ` and ${allowed.length - NAMED_VALUES} more` : '';
      return `must be one of ${named.join(', ')}${more}`;
    }
    case 'maxLength':
      return `must have at most ${counted(params.limit, 'character')}`;
    case 'minLength':
      return `must have at least ${counted(params.limit, 'character')}`;
    case 'maxItems':
      return `must have at most ${counted(params.limit, 'value')}`;
    case 'minItems':
      return `must have at least ${counted(params.limit, 'value')}`;
    case 'maximum':
      return `must be at most ${params.limit}`;
    case 'minimum':
      return `must be at least ${params.limit}`;
    case 'type':
      return params.type === 'number' || params.type === 'integer' ? 'must be a number' : 'is not a value of the kind Amazon expects';
    default:
      return error.message ?? 'is not valid';
  }
}

/**
 * Ajv's errors on one SKU's attributes as issues: on `attributes.<name>` where the seller gives the attribute (or
 * Storelink does not fill it), else on the product's field Storelink fills it from. The same problem on several
 * SKUs is one issue. The schema requires a barcode or an ASIN, each without the other: only the route the seller
 * chose is asked for (a barcode unless the listing offers on an ASIN).
 */
export function schemaIssues(
  errors: readonly ErrorObject[],
  draft: ListingDraft,
  variantIndex: number,
  titles: Readonly<Record<string, string>>,
): ListingIssue[] {
  const issues: ListingIssue[] = [];
  for (const error of errors) {
    if (error.keyword === 'if') continue;
    const path = error.instancePath.split('/').slice(1);
    const attribute = path[0] ?? (error.keyword === 'required' ? String(error.params.missingProperty) : undefined);
    if (attribute === undefined) continue;
    if (path.length === 0 && error.keyword === 'required' && offRoute(attribute, draft)) continue;
    const title = SELLER_WORDS[attribute] ?? titles[attribute] ?? attribute;
    const byListing = attribute in draft.attributes || attribute === ASIN || attribute === BULLETS;
    const field = byListing ? `attributes.${attribute}` : (productFieldOf(attribute, variantIndex) ?? `attributes.${attribute}`);
    const message =
      path.length === 0 && error.keyword === 'required'
        ? requiredMessage(attribute, title)
        : `${title} ${ruleInWords(error)} (Amazon's schema for the product type).`;
    issues.push(storelinkIssue(field, `amazon_schema_${error.keyword}`, message));
  }
  return issues;
}

/** Issues without repeats (the same field and words from several SKUs). */
export function uniqueIssues(issues: readonly ListingIssue[]): ListingIssue[] {
  const seen = new Set<string>();
  return issues.filter((issue) => {
    const key = `${issue.field}|${issue.message}`;
    return !seen.has(key) && Boolean(seen.add(key));
  });
}
