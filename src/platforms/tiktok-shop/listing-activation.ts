/**
 * A product activated, deactivated and deleted by TikTok Shop's batch calls (listings.md §2.5), whose per-item failures
 * are read for the one product asked about.
 */
import { ListingRefused, PlatformError } from '../contracts/errors.js';
import type { ListingsAdapter, ListingsCall } from '../contracts/listings.js';
import type { TikTokListingReads } from './listing-reads.js';
import { BatchAnswer, batchFailure, PRODUCT_MISSING, platformIssue, platformListing, reader, WRONG_STATUS } from './listing-responses.js';
import { type OpenApi, PRODUCT_API } from './open-api.js';

/** The switches and removal of one adapter. */
export function createListingActivation({ send }: OpenApi, reads: Pick<TikTokListingReads, 'readProduct'>) {
  /** Activates or deactivates, reading the batch's answer for this product: its failure refuses the listing. */
  async function batch(call: ListingsCall, action: 'activate' | 'deactivate', externalId: string) {
    const json = { product_ids: [externalId] };
    const answer = await send(call, 'POST', `${PRODUCT_API}/products/${action}`, reader(BatchAnswer), { json });
    const failure = batchFailure(answer, externalId);
    if (failure) throw new ListingRefused([platformIssue(failure.code, failure.message, null)]);
  }

  return {
    async setActive(call, progress, active) {
      const externalId = progress.externalId!;
      await batch(call, active ? 'activate' : 'deactivate', externalId);
      const product = await reads.readProduct(call, externalId);
      if (!product) throw new PlatformError('unavailable', 'TikTok Shop no longer shows the product it just changed');
      return platformListing(product);
    },

    async remove(call, progress) {
      if (!progress.externalId) return;
      const json = { product_ids: [progress.externalId] };
      const answer = await send(call, 'DELETE', `${PRODUCT_API}/products`, reader(BatchAnswer), { json });
      const failure = batchFailure(answer, progress.externalId);
      if (!failure || failure.code === PRODUCT_MISSING) return;
      // Deleted already (a delete whose answer was lost, or the seller's on TikTok) is what was asked.
      if (failure.code === WRONG_STATUS && !(await reads.readProduct(call, progress.externalId))) return;
      throw new ListingRefused([platformIssue(failure.code, failure.message, null)]);
    },
  } satisfies Pick<ListingsAdapter, 'setActive' | 'remove'>;
}
