/**
 * A listing switched off and on by its stock (Amazon has no inactive state, listings.md §3.5; a family's parent has
 * none to switch), and removed: each of its SKUs deleted, a family's parent after its children.
 */
import { PlatformError } from '../contracts/errors.js';
import type { ListingsAdapter } from '../contracts/listings.js';
import type { ListingReads } from './listing-reads.js';
import { fbaOf, heldParent, heldSkus, stockPatch } from './listing-requests.js';
import type { ListingsItemsApi } from './listings-items-api.js';
import { marketplaceFor } from './sp-api.js';

/** The switches and removal of one adapter. */
export function createListingActivation(items: ListingsItemsApi, reads: Pick<ListingReads, 'read'>) {
  return {
    /**
     * Off is a stock of 0 on every SKU (listings.md §3.5, INFERENCE: the API has no inactive state); on is the stock as
     * last listed again. Either way the SKUs are read back and the listing is what Amazon says: a stock change is no
     * new submission of the product, so a listing Amazon shows buyable again is active at once (its ads resume, DESIGN
     * §13), and one whose stock Amazon is still processing reads `in_review` (the state rule) until the watch sees it.
     */
    async setActive(call, progress, active) {
      const marketplace = marketplaceFor(call, progress);
      const type = progress.delivered.type ?? 'PRODUCT';
      const fba = fbaOf(progress.delivered);
      for (const sku of heldSkus(progress.delivered, progress.externalId)) {
        // An FBA SKU's stock is Amazon's count: Storelink neither zeroes nor restores it.
        if (fba[sku]) continue;
        const quantity = active ? Number(progress.delivered[`quantity.${sku}`] ?? 0) : 0;
        await items.patchSku(call, marketplace, sku, stockPatch(type, quantity));
      }
      if (active) delete progress.delivered.off;
      else progress.delivered.off = '1';
      const read = await reads.read(call, progress);
      if (!read) throw new PlatformError('unavailable', 'Amazon no longer shows the SKUs it just changed');
      return read;
    },

    async remove(call, progress) {
      const marketplace = marketplaceFor(call, progress);
      for (const sku of heldSkus(progress.delivered, progress.externalId)) {
        await items.deleteSku(call, marketplace, sku);
      }
      // A family's parent last, once it has no children (deleting it first would break the family up under them).
      const parent = heldParent(progress.delivered);
      if (parent) await items.deleteSku(call, marketplace, parent);
    },
  } satisfies Pick<ListingsAdapter, 'setActive' | 'remove'>;
}
