/**
 * What a platform shows for a listing that the catalogue does not (DESIGN §10's "changed on the platform"): the
 * platform's product as an import reads it, against the product as the site would list it. And the way back: the
 * catalogue change that takes the platform's values (the site's price adjustment and stock buffer undone).
 */
import type { ListingDifference, ProductInput } from '../../domain/index.js';
import type { ExistingListing, ListingDraft } from '../../platforms/contracts/listings.js';
import type { ProductRecord } from '../catalog/products.service.js';
import { cataloguePrice, type ListingPricing } from './pricing.js';

type PlatformProduct = ExistingListing['product'];

const sameSet = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((value) => b.includes(value));

export function differencesOf(platform: PlatformProduct, draft: ListingDraft): ListingDifference[] {
  const found: ListingDifference[] = [];
  const differ = (field: string, on: string | null, ours: string | null) => {
    if (on !== ours) found.push({ field, platform: on, catalogue: ours });
  };
  differ('title', platform.title, draft.title);
  // A product without a description is listed with its title as one (Etsy requires a description).
  if (draft.description !== '') differ('description', platform.description, draft.description);
  // A platform that holds no tags (null) shows no change of them: the catalogue's are never sent there.
  if (platform.tags !== null && !sameSet(platform.tags, draft.tags)) differ('tags', platform.tags.join(', '), draft.tags.join(', '));
  const listed = new Map(draft.variants.map((variant) => [variant.sku, variant]));
  const shown = new Set<string>();
  for (const variant of platform.variants) {
    if (!variant.sku) continue;
    shown.add(variant.sku);
    const ours = listed.get(variant.sku);
    if (!ours) {
      differ(`variants.${variant.sku}`, 'listed', null);
      continue;
    }
    differ(`variants.${variant.sku}.price`, variant.price, ours.price);
    differ(`variants.${variant.sku}.quantity`, String(variant.quantity), String(ours.quantity));
  }
  for (const sku of listed.keys()) if (!shown.has(sku)) differ(`variants.${sku}`, null, 'listed');
  differ('images', String(platform.images.length), String(draft.images.length));
  return found;
}

/**
 * The change of the product that takes the platform's values of `differences`: title, description, tags, and each
 * variant's price and quantity (a variant on one side only, and images, are left: they are the seller's to make).
 * Null when there is nothing to take.
 */
export function adoption(
  product: ProductRecord,
  differences: readonly ListingDifference[],
  rules: Pick<ListingPricing, 'percent' | 'rate' | 'buffer'>,
): Partial<ProductInput> | null {
  const change: Partial<ProductInput> = {};
  const value = (field: string) => differences.find((d) => d.field === field)?.platform ?? null;
  const title = value('title');
  if (title !== null) change.title = title;
  const description = value('description');
  if (description !== null) change.description = description;
  const tags = value('tags');
  if (tags !== null) change.tags = tags === '' ? [] : tags.split(', ');
  let variantsChanged = false;
  const variants = product.variants.map((variant) => {
    const price = value(`variants.${variant.sku}.price`);
    const quantity = value(`variants.${variant.sku}.quantity`);
    const kept = { id: variant.id, sku: variant.sku, option_values: variant.optionValues, barcode: variant.barcode };
    if (price === null && quantity === null) return { ...kept, price: variant.price, quantity: variant.quantity };
    variantsChanged = true;
    return {
      ...kept,
      price: price === null ? variant.price : cataloguePrice(price, rules.percent, rules.rate),
      // A listed quantity of 0 may hide any stock up to the buffer: the catalogue's is kept then, when it is within it.
      quantity:
        quantity === null
          ? variant.quantity
          : Number(quantity) === 0 && variant.quantity <= rules.buffer
            ? variant.quantity
            : Number(quantity) + rules.buffer,
    };
  });
  if (variantsChanged) change.variants = variants;
  return Object.keys(change).length > 0 ? change : null;
}
