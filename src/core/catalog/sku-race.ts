/** The catalogue's writes against a sku another request takes between their check and their insert. */
import { isUniqueViolation } from '../../db/errors.js';

/**
 * Runs `write` (a whole transaction, checks included) again once when the workspace's unique constraint on skus refused
 * it: the second run's checks see the other request's commit, so the write meets what it would have met a moment later
 * (POST /products: 422 on the sku; an import: the group now matches the product that took the sku, and updates it).
 */
export async function skuRace<T>(write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (!isUniqueViolation(error)) throw error;
    return write();
  }
}
