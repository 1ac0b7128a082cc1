/** Products of a workspace. Listing only for now; writing products comes with deployments. */
import type { Db } from '../../db/client.js';
import * as productsRepo from '../../db/products.repo.js';

/** A product as the API presents it. */
export type Product = productsRepo.ProductRow;

export type ProductsService = ReturnType<typeof createProductsService>;

export function createProductsService(deps: { db: Db }) {
  return {
    list: (workspaceId: number, page: { limit: number; offset: number }) => productsRepo.listProducts(deps.db, workspaceId, page),
  };
}
