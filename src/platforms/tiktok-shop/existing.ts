/**
 * A TikTok Shop product as an import reads it (listings.md §2.7, Get Product): the catalogue product it shows, the
 * listing's attributes (its product properties by id, its brand, its size chart template and the EU's responsible
 * persons and manufacturers), and what the listing's work would have recorded
 * delivering it, so that a product made from it sends nothing until it changes. Pure: the adapter does the I/O.
 */
import { PRODUCT_IMAGES_MAX } from '../../domain/index.js';
import { type DraftImage, type ExistingListing, type ListingDraft, noFile } from '../contracts/listings.js';
import {
  BRAND_ATTRIBUTE,
  deliveredPrints,
  MANUFACTURERS_ATTRIBUTE,
  RESPONSIBLE_PERSONS_ATTRIBUTE,
  SIZE_CHART_ATTRIBUTE,
  textOf,
} from './listing-requests.js';
import { locationsOf, platformListing, type TikTokAttribute, type TikTokProduct } from './listing-responses.js';

const unique = (values: readonly string[]) => [...new Set(values)];

/** TikTok's package back in the catalogue's grams and millimetres (kilograms or pounds; centimetres or inches). */
function packageOf(product: TikTokProduct): ListingDraft['package'] {
  const weight = product.package_weight;
  const size = product.package_dimensions;
  if (!weight?.value || !size?.length || !size.width || !size.height) return null;
  const grams = Number(weight.value) * (weight.unit === 'POUND' ? 453.592 : weight.unit === 'GRAM' ? 1 : 1000);
  const mm = (side: string) => Number(side) * (size.unit === 'INCH' ? 25.4 : 10);
  const values = [grams, mm(size.length), mm(size.width), mm(size.height)].map(Math.round);
  if (values.some((value) => !Number.isFinite(value) || value <= 0)) return null;
  const [weight_grams, length_mm, width_mm, height_mm] = values as [number, number, number, number];
  return { weight_grams, length_mm, width_mm, height_mm };
}

/** A sales attribute's name and value, by whichever TikTok gave (its property's name, or a custom one). */
const optionName = (attribute: { id?: string; name?: string }) => attribute.name ?? attribute.id ?? '';
const optionValue = (attribute: { value_id?: string; value_name?: string }) => attribute.value_name ?? attribute.value_id ?? '';

export function existingListing(product: TikTokProduct, attributes: readonly TikTokAttribute[], warehouseId: string): ExistingListing {
  const skus = product.skus;
  const names = (skus[0]?.sales_attributes ?? []).map(optionName);
  const valueAt = (sku: (typeof skus)[number], i: number) => optionValue(sku.sales_attributes?.[i] ?? {});
  const options = names.map((name, i) => ({ name, values: unique(skus.map((sku) => valueAt(sku, i))) }));
  const variants = skus.map((sku) => ({
    sku: sku.seller_sku || null,
    optionValues: Object.fromEntries(names.map((name, i) => [name, valueAt(sku, i)])),
    price: sku.price.sale_price ?? sku.price.tax_exclusive_price ?? '0.00',
    quantity: sku.inventory.reduce((sum, entry) => sum + entry.quantity, 0),
  }));
  const images = (product.main_images ?? [])
    .slice(0, PRODUCT_IMAGES_MAX)
    .map((image) => ({ uri: image.uri, url: image.urls?.[0] ?? image.uri }));
  const listingAttributes: Record<string, unknown> = Object.fromEntries(
    (product.product_attributes ?? []).map((attribute) => {
      const values = attribute.values.map((value) => value.id ?? value.name ?? '');
      const multiple = attributes.find((a) => a.id === attribute.id)?.is_multiple_selection;
      return [attribute.id, multiple ? values : (values[0] ?? '')];
    }),
  );
  if (product.brand?.id) listingAttributes[BRAND_ATTRIBUTE] = product.brand.id;
  if (product.size_chart?.template?.id) listingAttributes[SIZE_CHART_ATTRIBUTE] = product.size_chart.template.id;
  if (product.responsible_person_ids?.length) listingAttributes[RESPONSIBLE_PERSONS_ATTRIBUTE] = product.responsible_person_ids;
  if (product.manufacturer_ids?.length) listingAttributes[MANUFACTURERS_ATTRIBUTE] = product.manufacturer_ids;
  const categoryId = product.category_chains?.at(-1)?.id ?? '';
  const currency = skus[0]?.price.currency ?? 'USD';
  const catalogue = {
    title: product.title,
    description: textOf(product.description ?? ''),
    // TikTok Shop's products have no tags: none are sent, so none is read back.
    tags: null,
    currency,
    options,
    variants,
    images: images.map(({ url }) => ({ url, alt: null })),
    package: packageOf(product),
  };

  // The product as a draft of the same catalogue product would make it: its images keyed by their URLs, as an import's are.
  const held: ListingDraft = {
    ...catalogue,
    tags: [],
    brand: null,
    categoryId,
    attributes: listingAttributes,
    variants: variants.map((v) => ({ ...v, sku: v.sku ?? '', barcode: null })),
    images: images.map(
      (image): DraftImage => ({
        key: image.url,
        url: image.url,
        alt: null,
        stored: false,
        bytes: () => Promise.reject(new Error('an image TikTok Shop hosts is not uploaded again')),
      }),
    ),
    package: packageOf(product),
    file: noFile,
  };
  const uris = images.map((image) => image.uri);
  return {
    externalId: product.id,
    state: platformListing(product),
    categoryId,
    attributes: listingAttributes,
    product: catalogue,
    progress: {
      externalId: product.id,
      externalUrl: null,
      createStartedAt: null,
      images: Object.fromEntries(images.map((image) => [image.url, image.uri])),
      delivered: deliveredPrints(held, uris, attributes, warehouseId),
      variantIds: Object.fromEntries(skus.flatMap((sku) => (sku.seller_sku ? [[sku.seller_sku, sku.id]] : []))),
      // The warehouses each SKU is stocked in: a stock update names every one (12019028).
      locations: locationsOf(product),
    },
  };
}
