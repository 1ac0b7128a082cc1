/**
 * A stored product as the API, its webhook events and its CSV export show it (DESIGN §9). GET /products's pages are
 * written by the database in this shape (storelink_products_page, migration 0035): a change here is a change there.
 */
import type { ProductRecord } from '../../db/products.repo.js';
import type { Product } from '../../domain/index.js';

export function presentProduct(row: ProductRecord): Product {
  const variants = row.variants.map((v) => ({
    id: v.id,
    sku: v.sku,
    option_values: v.optionValues,
    price: v.price,
    quantity: v.quantity,
    barcode: v.barcode,
  }));
  const first = variants[0];
  return {
    id: row.id,
    title: row.title,
    handle: row.handle,
    description: row.description,
    brand: row.brand,
    tags: row.tags,
    attributes: row.attributes,
    currency: row.currency,
    options: row.options,
    variants,
    images: row.images.map((i) => ({ id: i.id, url: i.url, position: i.position, alt: i.alt, uploaded: i.mediaSha256 !== null })),
    package: row.package,
    version: row.version,
    price: first?.price ?? '0.00',
    sku: first?.sku ?? '',
    quantity: first?.quantity ?? 0,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}
