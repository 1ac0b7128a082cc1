/** A catalogue product as a listing should show it on one site (DESIGN §10): the site's rules applied, nothing sent yet. */
import type { ProductRecord } from '../../db/products.repo.js';
import type { ListedVariant, ListingOverrides } from '../../domain/index.js';
import type { DraftImage, ListingDraft } from '../../platforms/contracts/listings.js';
import { parseMediaName } from '../catalog/images.js';
import { type ListingPricing, listedPrice, listedQuantity } from './pricing.js';

/** The bytes of stored media (an uploaded image or file, by its hash); null where none is stored. */
export type ImageBytes = (sha256: string) => Promise<{ bytes: Buffer; contentType: string; extension: string } | null>;

/** A stored image's bytes; a product image keeps its media row (a foreign key), so a missing one is a broken database. */
async function storedBytes(imageBytes: ImageBytes, sha256: string) {
  const stored = await imageBytes(sha256);
  if (!stored) throw new Error(`the stored image ${sha256} is missing`);
  return stored;
}

/** What a draft is of: the listing's category and attributes, and what it shows instead of the product's. */
export interface DraftOf {
  readonly categoryId: string;
  readonly attributes: Readonly<Record<string, unknown>>;
  readonly overrides?: ListingOverrides | null;
}

/**
 * The product as the site lists it, priced by `pricing` (pricing.ts's pricingOf: in the listing's currency), with the
 * listing's overrides (DESIGN §15): its title, description, images (of the product's, in the override's order: one the
 * product no longer has is left out) and per-variant prices, as they are.
 */
export function draftOf(product: ProductRecord, listing: DraftOf, pricing: ListingPricing, imageBytes: ImageBytes): ListingDraft {
  const overrides = listing.overrides ?? {};
  const prices = new Map(overrides.variants?.map((v) => [v.sku, v.price]));
  const images = overrides.images ? overrides.images.flatMap((id) => product.images.filter((image) => image.id === id)) : product.images;
  return {
    title: overrides.title ?? product.title,
    description: overrides.description ?? product.description,
    tags: product.tags,
    brand: product.brand,
    currency: pricing.currency,
    categoryId: listing.categoryId,
    attributes: listing.attributes,
    options: product.options,
    variants: product.variants.map((variant) => ({
      sku: variant.sku,
      optionValues: variant.optionValues,
      price: prices.get(variant.sku) ?? listedPrice(variant.price, pricing.percent, pricing.rate),
      quantity: listedQuantity(variant.quantity, pricing.buffer),
      barcode: variant.barcode,
    })),
    images: images.map(
      (image): DraftImage => ({
        key: image.mediaSha256 ?? image.url,
        url: image.url,
        alt: image.alt,
        stored: image.mediaSha256 !== null,
        bytes: () =>
          image.mediaSha256 ? storedBytes(imageBytes, image.mediaSha256) : Promise.reject(new Error(`${image.url} is not stored`)),
      }),
    ),
    package: product.package,
    file: async (name) => {
      const parsed = parseMediaName(name);
      const stored = parsed && (await imageBytes(parsed.sha256));
      return parsed && stored?.extension === parsed.extension ? { ...parsed, name, ...stored } : null;
    },
  };
}

/** The listing record's `variants`: what is listed, with the platform's id of each where the work has it. */
export function listedVariants(draft: ListingDraft, variantIds: Readonly<Record<string, string>>): ListedVariant[] {
  return draft.variants.map((v) => ({ sku: v.sku, price: v.price, quantity: v.quantity, external_id: variantIds[v.sku] ?? null }));
}
