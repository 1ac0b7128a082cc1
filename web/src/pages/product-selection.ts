/**
 * The Products page's selection for a bulk edit: single variants, picked one by one or a product (every variant of it)
 * at once, each kept with its product as last shown so the selection survives paging and searching.
 */
import type { Product } from './product-draft';

export type Variant = Product['variants'][number];

/** A variant picked for a bulk edit, with its product as the list showed it. */
export interface Picked {
  product: Product;
  variant: Variant;
}

/** The picked variants by variant id, in the order they were picked. */
export type Selection = ReadonlyMap<number, Picked>;

/** How much of a box's variants is picked: a product's box is mixed ("some") when only part of them are. */
export type BoxState = 'none' | 'some' | 'all';

/** The selection with the variants of the product picked (`on`) or let go. */
export function withVariants(selection: Selection, product: Product, variants: readonly Variant[], on: boolean): Map<number, Picked> {
  const next = new Map(selection);
  for (const variant of variants) {
    if (on) next.set(variant.id, { product, variant });
    else next.delete(variant.id);
  }
  return next;
}

/** How much of the products' variants the selection holds. */
export function boxState(selection: Selection, products: readonly Product[]): BoxState {
  const variants = products.flatMap((product) => product.variants);
  const picked = variants.filter((variant) => selection.has(variant.id)).length;
  return picked === 0 ? 'none' : picked === variants.length ? 'all' : 'some';
}

/** "Red / S": the variant's option values in the order of the product's options; its sku when it has none. */
export function variantName(product: Product, variant: Variant): string {
  const values = product.options.map((option) => variant.option_values[option.name]).filter(Boolean);
  return values.length > 0 ? values.join(' / ') : variant.sku;
}

/** "3 variants of 2 products". */
export function selectionSummary(picked: readonly Picked[]): string {
  const products = new Set(picked.map((p) => p.product.id)).size;
  return `${picked.length} ${picked.length === 1 ? 'variant' : 'variants'} of ${products} ${products === 1 ? 'product' : 'products'}`;
}
