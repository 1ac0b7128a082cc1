/**
 * A listing checked before it is sent: Storelink's own rules, each SKU's body validated locally against its product
 * type's JSON Schema, and Amazon's VALIDATION_PREVIEW (a PUT that changes nothing), its issues in Amazon's words.
 */
import type { ListingIssue } from '../../domain/index.js';
import type { ListingDraft, ListingsAdapter, ListingsCall } from '../contracts/listings.js';
import { type AmazonMarketplace, putBody, requirementsOf, type SkuContext } from './listing-requests.js';
import { issuesOf } from './listing-responses.js';
import { checkAmazonDraft, schemaIssues, uniqueIssues } from './listing-rules.js';
import { AMAZON_SELLER_LISTING_SETTINGS } from './listing-settings.js';
import type { ListingsItemsApi } from './listings-items-api.js';
import type { AmazonProductTypes, Schema } from './product-types.js';
import { marketplaceFor } from './sp-api.js';

/** What every SKU of the listing is built with: its marketplace, the site's condition, the schema's attributes. */
export const contextOf = (
  call: ListingsCall,
  marketplace: AmazonMarketplace,
  schema: Pick<Schema, 'shapes' | 'properties'>,
  off: boolean,
): SkuContext => ({
  marketplace,
  condition: String(call.settings.condition_type ?? AMAZON_SELLER_LISTING_SETTINGS.defaults.condition_type),
  shapes: schema.shapes,
  properties: schema.properties,
  off,
});

/** Each SKU's body validated against the schema; the issues, the same one of several SKUs once. */
export function localIssues(draft: ListingDraft, schema: Schema, context: SkuContext): ListingIssue[] {
  const issues = draft.variants.flatMap((variant, i) =>
    schema.validate(putBody(draft, variant, context).attributes) ? [] : schemaIssues(schema.validate.errors ?? [], draft, i, schema.titles),
  );
  return uniqueIssues(issues);
}

/** What a SKU's issues start with: its SKU in a listing of several, nothing in a listing of one. */
export const skuPrefix = (skus: number, sku: string) => (skus > 1 ? `${sku}: ` : '');

/** The checks of one adapter. */
export function createListingValidation(productTypes: AmazonProductTypes, items: ListingsItemsApi) {
  return {
    check: (draft) => checkAmazonDraft(draft),

    /**
     * Each SKU's body validated locally against the product type's schema (nothing sent when it fails), then by
     * Amazon's VALIDATION_PREVIEW (a PUT that changes nothing): its INVALID issues in Amazon's words.
     */
    async validate(call, draft) {
      const marketplace = marketplaceFor(call);
      const schema = await productTypes.schemaFor(call, marketplace, draft.categoryId, requirementsOf(draft));
      const context = contextOf(call, marketplace, schema, false);
      const local = localIssues(draft, schema, context);
      if (local.length > 0) return local;
      const issues: ListingIssue[] = [];
      for (const variant of draft.variants) {
        const submission = await items.putSku(call, marketplace, variant.sku, putBody(draft, variant, context), true);
        issues.push(...issuesOf(submission.issues, skuPrefix(draft.variants.length, variant.sku)));
      }
      return issues;
    },
  } satisfies Pick<ListingsAdapter, 'check' | 'validate'>;
}
