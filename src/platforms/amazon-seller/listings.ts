/**
 * Amazon's listings capability (SP-API, listings.md §3): the site's marketplaces and conditions as its settings, product
 * types as categories with the attributes their JSON Schemas describe, each SKU validated locally against that schema
 * and by VALIDATION_PREVIEW, and a product's life as SKUs (one per catalogue variant; a product with options a variation
 * family under a parent SKU put first): put whole when its product
 * part changes (idempotent: a SKU put twice is one listing), its price and stock patched without a new submission,
 * switched off and on by its stock (Amazon has no inactive state, listings.md §3.5), deleted, read with its summaries
 * and issues, and imported from the All Listings report (searchListingsItems pages through 1,000 SKUs at most). Every
 * call goes to the listing's marketplace's region, with the LWA access token in `x-amz-access-token`.
 *
 * This file puts the adapter together; each part is a file of its own, made with what it needs.
 */
import type { ListingsAdapter } from '../contracts/listings.js';
import { createAllListingsReport } from './all-listings-report.js';
import { createCategories } from './categories.js';
import type { AmazonSellerConfig } from './connect.js';
import { createListingActivation } from './listing-activation.js';
import { createListingDelivery } from './listing-delivery.js';
import { createListingFeeds } from './listing-feeds.js';
import { createListingReads, reconcile } from './listing-reads.js';
import { createListingValidation } from './listing-validation.js';
import { createListingsItemsApi } from './listings-items-api.js';
import { createProductTypes } from './product-types.js';
import { type AmazonListingsDeps, createSpApi } from './sp-api.js';

export function createAmazonSellerListingsAdapter(config: AmazonSellerConfig, deps: AmazonListingsDeps) {
  const sp = createSpApi(config, deps.http);
  const items = createListingsItemsApi(sp);
  const productTypes = createProductTypes(sp, deps);
  const categories = createCategories(sp, productTypes);
  const validation = createListingValidation(productTypes, items);
  const delivery = createListingDelivery(productTypes, items, deps);
  const reads = createListingReads(productTypes, items, deps);
  const activation = createListingActivation(items, reads);
  const report = createAllListingsReport(sp, items, reads, deps);

  return {
    platform: 'amazon-seller',
    listingOptions: categories.listingOptions,
    categories: categories.categories,
    category: categories.category,
    categoryAttributes: categories.categoryAttributes,
    check: validation.check,
    validate: validation.validate,
    deliver: delivery.deliver,
    setActive: activation.setActive,
    remove: activation.remove,
    read: reads.read,
    readExisting: reads.readExisting,
    reconcile,
    existing: report.existing,
    feeds: createListingFeeds(sp, deps, delivery.offerChange),
    changes: reads.changes,
  } satisfies ListingsAdapter;
}
