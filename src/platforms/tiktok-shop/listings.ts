/**
 * TikTok Shop's listings capability (listings.md §2): the site's warehouses, categories with their attributes, brands
 * and the choices their rules ask for (category-rules.ts), the listing check behind `mode: "validate"`, and a product's
 * life: its images uploaded to TikTok (it shows only images it hosts), created once under an idempotency key, reviewed
 * by TikTok (`in_review` until its audit passes or fails), its price and stock updated without review, its content
 * changed by partial edit (back to review; a live product stays live on its earlier version meanwhile), activated,
 * deactivated and deleted by the batch calls, whose per-item failures are read for the one product asked about. Every
 * call is signed (listings.md §2.1).
 *
 * This file puts the adapter together; each part is a file of its own, made with what it needs.
 */
import type { ListingsAdapter } from '../contracts/listings.js';
import { createCategories } from './categories.js';
import { createCategoryRules } from './category-rules.js';
import type { TikTokShopConfig } from './connect.js';
import { createListingActivation } from './listing-activation.js';
import { createListingDelivery } from './listing-delivery.js';
import { createListingReads, reconcile } from './listing-reads.js';
import { createListingValidation } from './listing-validation.js';
import { createOpenApi, type TikTokListingsDeps } from './open-api.js';

export function createTikTokShopListingsAdapter(config: TikTokShopConfig, deps: TikTokListingsDeps) {
  const api = createOpenApi(config, deps);
  const rules = createCategoryRules(api.send, deps.clock);
  const categories = createCategories(api, rules, deps);
  const validation = createListingValidation(api, categories, rules, deps);
  const delivery = createListingDelivery(api, categories, validation, deps);
  const reads = createListingReads(api, categories);
  const activation = createListingActivation(api, reads);

  return {
    platform: 'tiktok-shop',
    listingOptions: categories.listingOptions,
    categories: categories.categories,
    category: categories.category,
    categoryAttributes: categories.categoryAttributes,
    readiness: validation.readiness,
    check: validation.check,
    validate: validation.validate,
    deliver: delivery.deliver,
    setActive: activation.setActive,
    remove: activation.remove,
    read: reads.read,
    readExisting: reads.readExisting,
    reconcile,
    existing: reads.existing,
    changes: reads.changes,
  } satisfies ListingsAdapter;
}
