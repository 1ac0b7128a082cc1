/**
 * A product input (the API's body, or a CSV group) as the repository's rows, and whether those rows differ from the
 * stored product: one definition for POST/PATCH and the CSV import, so "unchanged" means the same everywhere.
 */

import type * as productsRepo from '../../db/products.repo.js';
import type { ProductRecord } from '../../db/products.repo.js';
import type { ImageInput, ProductInput, ProductOption, ProductPackage, VariantInput } from '../../domain/index.js';

const copyOption = (option: ProductOption): ProductOption => ({ name: option.name, values: [...option.values] });
/** A package as stored: every measure, null where not given; no measure at all is no package. */
const copyPackage = (p: Partial<ProductPackage>): ProductPackage | null => {
  const stored = {
    weight_grams: p.weight_grams ?? null,
    length_mm: p.length_mm ?? null,
    width_mm: p.width_mm ?? null,
    height_mm: p.height_mm ?? null,
  };
  return Object.values(stored).some((measure) => measure !== null) ? stored : null;
};

/** The product's own columns from a whole input (absent fields take their defaults). */
/** The `search` column of a product of this title and skus: lowercased here, as `?q=` is before it is looked for. */
export const searchText = (title: string, skus: readonly string[]): string => [title, ...skus].join('\n').toLowerCase();

/** The product's own columns; `handle` is the input's, or the one the service chose (made from the title). */
export function productFields(input: ProductInput & { handle: string }): productsRepo.ProductFields {
  return {
    title: input.title,
    handle: input.handle,
    description: input.description ?? '',
    brand: input.brand ?? null,
    tags: [...(input.tags ?? [])],
    attributes: { ...(input.attributes ?? {}) },
    currency: input.currency,
    options: (input.options ?? []).map(copyOption),
    package: input.package ? copyPackage(input.package) : null,
    search: searchText(
      input.title,
      (input.variants ?? []).map((v) => v.sku),
    ),
  };
}

/** The product columns a partial change gives, as rows. */
export function changeFields(change: Partial<ProductInput>): Partial<productsRepo.ProductFields> {
  const fields: Partial<productsRepo.ProductFields> = {};
  if (change.title !== undefined) fields.title = change.title;
  if (change.handle !== undefined) fields.handle = change.handle;
  if (change.description !== undefined) fields.description = change.description;
  if (change.brand !== undefined) fields.brand = change.brand;
  if (change.tags !== undefined) fields.tags = [...change.tags];
  if (change.attributes !== undefined) fields.attributes = { ...change.attributes };
  if (change.currency !== undefined) fields.currency = change.currency;
  if (change.options !== undefined) fields.options = change.options.map(copyOption);
  if (change.package !== undefined) fields.package = change.package ? copyPackage(change.package) : null;
  return fields;
}

const sortedEntries = (record: Readonly<Record<string, string>>) => Object.entries(record).sort(([a], [b]) => (a < b ? -1 : 1));

/** A field as text that is the same for the same value: jsonb keeps an object's keys in an order of its own. */
function comparable(fields: Partial<productsRepo.ProductFields>, key: keyof productsRepo.ProductFields): string {
  const { attributes, options, package: pack } = fields;
  if (key === 'attributes') return JSON.stringify(sortedEntries(attributes ?? {}));
  if (key === 'options') return JSON.stringify(options?.map((option) => [option.name, option.values]));
  if (key === 'package') return JSON.stringify(pack && [pack.weight_grams, pack.length_mm, pack.width_mm, pack.height_mm]);
  return JSON.stringify(fields[key]);
}

/** The fields of `next` whose values differ from the stored product's. */
export function changedFields(current: ProductRecord, next: Partial<productsRepo.ProductFields>): Partial<productsRepo.ProductFields> {
  // `search` follows the title and skus: never a change of its own.
  const keys = (Object.keys(next) as (keyof productsRepo.ProductFields)[]).filter((key) => key !== 'search');
  return Object.fromEntries(keys.filter((key) => comparable(current, key) !== comparable(next, key)).map((key) => [key, next[key]]));
}

/** Money as stored: two decimals ("19.9" is "19.90"), so an unchanged price compares equal. */
export function normalisePrice(price: string): string {
  const [whole, fraction = ''] = price.split('.');
  return `${BigInt(whole!)}.${fraction.padEnd(2, '0')}`;
}

export function variantFields(variant: VariantInput): productsRepo.VariantFields {
  return {
    ...(variant.id !== undefined ? { id: variant.id } : {}),
    sku: variant.sku,
    optionValues: { ...(variant.option_values ?? {}) },
    price: normalisePrice(variant.price),
    quantity: variant.quantity,
    barcode: variant.barcode ?? null,
  };
}

/** An image as a row; one given by id alone keeps the stored url and alt. */
export function imageFields(image: ImageInput, current: ProductRecord | null): productsRepo.ImageFields {
  const stored = image.id !== undefined ? current?.images.find((i) => i.id === image.id) : undefined;
  return {
    ...(image.id !== undefined ? { id: image.id } : {}),
    url: image.url ?? stored?.url ?? '',
    alt: image.alt !== undefined ? image.alt : (stored?.alt ?? null),
    // An uploaded image keeps its bytes while its url is Storelink's own.
    mediaSha256: stored && (image.url === undefined || image.url === stored.url) ? stored.mediaSha256 : null,
  };
}

export function sameVariants(current: ProductRecord, variants: readonly productsRepo.VariantFields[]): boolean {
  return (
    current.variants.length === variants.length &&
    current.variants.every((stored, i) => {
      const next = variants[i]!;
      return (
        next.id === stored.id &&
        next.sku === stored.sku &&
        next.price === stored.price &&
        next.quantity === stored.quantity &&
        next.barcode === stored.barcode &&
        JSON.stringify(sortedEntries(next.optionValues)) === JSON.stringify(sortedEntries(stored.optionValues))
      );
    })
  );
}

export function sameImages(current: ProductRecord, images: readonly productsRepo.ImageFields[]): boolean {
  return (
    current.images.length === images.length &&
    current.images.every((stored, i) => images[i]!.id === stored.id && images[i]!.url === stored.url && images[i]!.alt === stored.alt)
  );
}
