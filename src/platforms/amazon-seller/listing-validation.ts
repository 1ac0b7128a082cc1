/**
 * A listing checked before it is sent: Storelink's own rules, each SKU's body validated locally against its product
 * type's JSON Schema, and Amazon's VALIDATION_PREVIEW (a PUT that changes nothing), its issues in Amazon's words.
 */
import { type ListingIssue, storelinkIssue } from '../../domain/index.js';
import { ListingRefused } from '../contracts/errors.js';
import type { ListingDraft, ListingsAdapter, ListingsCall } from '../contracts/listings.js';
import { type AmazonMarketplace, isFamily, parentBody, putBody, requirementsOf, type SkuContext } from './listing-requests.js';
import { issuesOf } from './listing-responses.js';
import { checkAmazonDraft, checkFamily, familyTheme, schemaIssues, uniqueIssues } from './listing-rules.js';
import { AMAZON_SELLER_LISTING_SETTINGS } from './listing-settings.js';
import { type Family, parentSkuFor } from './listing-themes.js';
import type { ListingsItemsApi } from './listings-items-api.js';
import type { AmazonProductTypes, Schema } from './product-types.js';
import { marketplaceFor } from './sp-api.js';

/** What every SKU of the listing is built with: its marketplace, the site's condition, the schema's attributes. */
export const contextOf = (
  call: ListingsCall,
  marketplace: AmazonMarketplace,
  schema: Pick<Schema, 'shapes' | 'properties'>,
  off: boolean,
  family: Family | null = null,
): SkuContext => ({
  family,
  marketplace,
  condition: String(call.settings.condition_type ?? AMAZON_SELLER_LISTING_SETTINGS.defaults.condition_type),
  shapes: schema.shapes,
  properties: schema.properties,
  off,
});

/**
 * The family a draft lists as, or null for SKUs of their own: a product with options, its theme the product type's that
 * fits them (refused on `category_id` when none does), its parent SKU the one the listing's progress holds (named once).
 * A listing first delivered as SKUs of their own (before Storelink made families, or a product then without options)
 * keeps that shape; one delivered as a family cannot lose it (Amazon does not take a child's relationship away,
 * amzn/selling-partner-api-models issue 539): that is refused on `product.options`.
 */
export function familyOf(draft: ListingDraft, schema: Pick<Schema, 'themes'>, delivered: Readonly<Record<string, string>>): Family | null {
  const held = delivered.parent;
  const single = Object.keys(delivered).some((key) => key.startsWith('item.')) && !held;
  if (!isFamily(draft)) {
    if (!held) return null;
    const message =
      'This Amazon listing is a variation family: a product without options cannot take its place (delete the listing and publish the product again).';
    throw new ListingRefused([storelinkIssue('product.options', 'amazon_family_kept', message)]);
  }
  if (single) return null;
  const theme = familyTheme(draft, schema.themes);
  if (!theme) {
    const attributes = [
      {
        name: 'variation_theme',
        label: '',
        required: false,
        type: 'select' as const,
        values: schema.themes.map((value) => ({ value, label: value })),
      },
    ];
    throw new ListingRefused(checkFamily(draft, attributes));
  }
  return { ...theme, parentSku: held ?? parentSkuFor(draft.variants[0]!.sku) };
}

/** Each SKU's body (a family's parent first) validated against the schema; the issues, the same one of several SKUs once. */
export function localIssues(draft: ListingDraft, schema: Schema, context: SkuContext): ListingIssue[] {
  const parent = context.family ? parentBody(draft, context.family, context) : null;
  const parentIssues =
    parent && !schema.validate(parent.attributes) ? schemaIssues(schema.validate.errors ?? [], draft, 0, schema.titles) : [];
  const issues = draft.variants.flatMap((variant, i) =>
    schema.validate(putBody(draft, variant, context).attributes) ? [] : schemaIssues(schema.validate.errors ?? [], draft, i, schema.titles),
  );
  return uniqueIssues([...parentIssues, ...issues].map((issue) => onOption(draft, context.family, issue)));
}

/**
 * An issue on an attribute a family's children take from an option is the option's (the seller changes its values),
 * unless the listing gives the attribute itself (the parent carries the listing's).
 */
function onOption(draft: ListingDraft, family: Family | null | undefined, issue: ListingIssue): ListingIssue {
  const given = (name: string | undefined) => name !== undefined && name in draft.attributes;
  const index = family
    ? draft.options.findIndex((option) => `attributes.${family.varied[option.name]}` === issue.field && !given(family.varied[option.name]))
    : -1;
  return index < 0 ? issue : { ...issue, field: `product.options.${index}` };
}

/** What a SKU's issues start with: its SKU in a listing of several, nothing in a listing of one. */
export const skuPrefix = (skus: number, sku: string) => (skus > 1 ? `${sku}: ` : '');

/** The checks of one adapter. */
export function createListingValidation(productTypes: AmazonProductTypes, items: ListingsItemsApi) {
  return {
    check: (draft, attributes) => [...checkAmazonDraft(draft), ...checkFamily(draft, attributes)],

    /**
     * Each SKU's body validated locally against the product type's schema (nothing sent when it fails), then by
     * Amazon's VALIDATION_PREVIEW (a PUT that changes nothing): its INVALID issues in Amazon's words.
     */
    async validate(call, draft) {
      const marketplace = marketplaceFor(call);
      const schema = await productTypes.schemaFor(call, marketplace, draft.categoryId, requirementsOf(draft));
      const context = contextOf(call, marketplace, schema, false, familyOf(draft, schema, {}));
      const local = localIssues(draft, schema, context);
      if (local.length > 0) return local;
      const issues: ListingIssue[] = [];
      if (context.family) {
        const parentSku = context.family.parentSku;
        const submission = await items.putSku(call, marketplace, parentSku, parentBody(draft, context.family, context), true);
        issues.push(...issuesOf(submission.issues, `${parentSku}: `));
      }
      for (const variant of draft.variants) {
        const submission = await items.putSku(call, marketplace, variant.sku, putBody(draft, variant, context), true);
        issues.push(...issuesOf(submission.issues, skuPrefix(draft.variants.length, variant.sku)));
      }
      return issues;
    },
  } satisfies Pick<ListingsAdapter, 'check' | 'validate'>;
}
