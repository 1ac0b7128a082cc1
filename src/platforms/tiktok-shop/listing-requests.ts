/**
 * TikTok Shop's product API requests (listings.md §2.1–2.7), built without I/O: the signed URL of every call, and a
 * product's body in TikTok's terms from a listing draft: its content (title, HTML description, category, brand, images
 * TikTok hosts, attributes, package, the size chart template, the EU's responsible persons and manufacturers and the
 * certifications the category's rules ask for), its SKUs (seller sku, price, stock in the site's warehouse, sales attributes from
 * the product's options), and the price and stock updates.
 */

import type { ListingDraft } from '../contracts/listings.js';
import { fingerprint } from '../fingerprint.js';
import type { TikTokAttribute } from './listing-responses.js';
import { signRequest } from './requests.js';

/** The synthetic attribute a listing names its brand with: TikTok's `brand_id`, chosen from Get Brands. */
export const BRAND_ATTRIBUTE = 'brand_id';
/** A size chart template of the seller's (Search Size Charts), sent as `size_chart: {template: {id}}`. */
export const SIZE_CHART_ATTRIBUTE = 'size_chart';
/** The EU's responsible persons and manufacturers of the seller's (their searches), sent under TikTok's own names. */
export const RESPONSIBLE_PERSONS_ATTRIBUTE = 'responsible_person_ids';
export const MANUFACTURERS_ATTRIBUTE = 'manufacturer_ids';
/**
 * `certification:<id>`: the file (POST /files) of one of the category's certifications (Get Category Rules'
 * `product_certifications[].id`), sent in `certifications[{id, files|images}]`.
 */
export const CERTIFICATION_PREFIX = 'certification:';
/** The attributes that are fields of Create Product's body rather than product properties. */
const SYNTHETIC: ReadonlySet<string> = new Set([
  BRAND_ATTRIBUTE,
  SIZE_CHART_ATTRIBUTE,
  RESPONSIBLE_PERSONS_ATTRIBUTE,
  MANUFACTURERS_ATTRIBUTE,
]);
const isSynthetic = (name: string) => SYNTHETIC.has(name) || name.startsWith(CERTIFICATION_PREFIX);

/**
 * A certification as Create Product takes it (`certifications[{id, images[{uri}], files[{id, name, format}]}]`): a
 * PDF by the id Upload Product File gave, an image by the URI Upload Product Image gave at `CERTIFICATION_IMAGE`.
 */
export type TikTokCertification =
  | { id: string; files: { id: string; name: string; format: 'PDF' }[] }
  | { id: string; images: { uri: string }[] };

/** The certifications the listing names a file for, by id, with each file's name in the draft's attributes. */
export function certificationFiles(attributes: Readonly<Record<string, unknown>>): { id: string; file: string }[] {
  return Object.entries(attributes).flatMap(([name, value]) =>
    name.startsWith(CERTIFICATION_PREFIX) && typeof value === 'string' && value !== ''
      ? [{ id: name.slice(CERTIFICATION_PREFIX.length), file: value }]
      : [],
  );
}

/**
 * The name a PDF is uploaded under (Upload Product File wants its extension, no spaces, no other period, no symbol
 * first): made of its hash, so the same file has the same name in every upload.
 */
export const certificateName = (sha256: string) => `certificate-${sha256.slice(0, 16)}.pdf`;
/** Main images per product (listings.md §2.5). */
export const MAIN_IMAGES_MAX = 9;

/**
 * A call's URL: `app_key`, `timestamp`, `shop_cipher` (a shop's call; `cipher: null` for the seller's own, which TikTok
 * refuses one for) and the call's own parameters, signed over the path, the sorted parameters and the JSON body (a
 * multipart body is not signed, listings.md §2.1).
 */
export function signedUrl(input: {
  apiUrl: string;
  path: string;
  query?: Readonly<Record<string, string>>;
  body?: string;
  multipart?: boolean;
  appKey: string;
  appSecret: string;
  cipher: string | null;
  now: Date;
}): string {
  const query: Record<string, string> = {
    ...input.query,
    app_key: input.appKey,
    ...(input.cipher === null ? {} : { shop_cipher: input.cipher }),
    timestamp: String(Math.floor(input.now.getTime() / 1000)),
  };
  const sign = signRequest({
    path: input.path,
    query,
    body: input.body ?? '',
    contentType: input.multipart ? 'multipart/form-data' : 'application/json',
    appSecret: input.appSecret,
  });
  return `${input.apiUrl}${input.path}?${new URLSearchParams({ ...query, sign }).toString()}`;
}

const escapeHtml = (text: string) => text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');

/** The catalogue's plain text as TikTok's HTML description: a paragraph per blank-line block, line breaks kept. */
export function htmlOf(text: string): string {
  const blocks = text.split(/\n\s*\n/).filter((block) => block.trim() !== '');
  return blocks.map((block) => `<p>${escapeHtml(block.trim()).replaceAll('\n', '<br>')}</p>`).join('');
}

/** TikTok's HTML description back to plain text (an import's product): paragraphs as blank lines, tags dropped. */
export function textOf(html: string): string {
  return html
    .replace(/<br\s*\/?>/gi, '\n')
    .replace(/<\/p>\s*<p[^>]*>/gi, '\n\n')
    .replace(/<[^>]+>/g, '')
    .replaceAll('&lt;', '<')
    .replaceAll('&gt;', '>')
    .replaceAll('&quot;', '"')
    .replaceAll('&#39;', "'")
    .replaceAll('&amp;', '&')
    .trim();
}

const sameName = (a: string, b: string) => a.trim().toLowerCase() === b.trim().toLowerCase();

/** An attribute's value: a choice of its by id, else (a customizable attribute) the text as a custom value's name. */
function attributeValues(attribute: TikTokAttribute | undefined, value: unknown) {
  return [value].flat().map((each) => {
    const text = String(each);
    const choice = attribute?.values?.find((v) => v.id === text || sameName(v.name, text));
    return choice ? { id: choice.id } : { name: text };
  });
}

/** Grams as TikTok's kilograms (two decimals at most, never below 0.01). */
const kilograms = (grams: number) => (Math.max(1, Math.round(grams / 10)) / 100).toFixed(2).replace(/\.?0+$/, '');
/** Millimetres as TikTok's whole centimetres, rounded up so the package fits. */
const centimetres = (mm: number) => String(Math.max(1, Math.ceil(mm / 10)));

/** A text or list attribute's values as ids, empty ones left out. */
const idsOf = (value: unknown) => [value].flat().filter((each): each is string => typeof each === 'string' && each !== '');

/** The size chart and the EU's entities the listing names, under Create Product's names; nothing for those it leaves out. */
function complianceBody(attributes: Readonly<Record<string, unknown>>) {
  const [template] = idsOf(attributes[SIZE_CHART_ATTRIBUTE]);
  const persons = idsOf(attributes[RESPONSIBLE_PERSONS_ATTRIBUTE]);
  const makers = idsOf(attributes[MANUFACTURERS_ATTRIBUTE]);
  return {
    ...(template ? { size_chart: { template: { id: template } } } : {}),
    ...(persons.length > 0 ? { responsible_person_ids: persons } : {}),
    ...(makers.length > 0 ? { manufacturer_ids: makers } : {}),
  };
}

/**
 * The product's content: everything but its SKUs. `images` are TikTok's URIs of the draft's images in order; `attributes`
 * are the category's, by which a listing's attribute values become TikTok's value ids; `certifications` the files
 * uploaded for the listing's `certification:<id>` attributes (none sends no `certifications`).
 */
export function contentBody(
  draft: ListingDraft,
  images: readonly string[],
  attributes: readonly TikTokAttribute[],
  certifications: readonly TikTokCertification[] = [],
) {
  const byId = new Map(attributes.map((attribute) => [attribute.id, attribute]));
  const given = Object.entries(draft.attributes).filter(
    ([name, value]) => !isSynthetic(name) && value !== null && value !== undefined && value !== '',
  );
  const brand = draft.attributes[BRAND_ATTRIBUTE];
  return {
    title: draft.title,
    description: htmlOf(draft.description),
    category_id: draft.categoryId,
    ...(typeof brand === 'string' && brand !== '' ? { brand_id: brand } : {}),
    main_images: images.slice(0, MAIN_IMAGES_MAX).map((uri) => ({ uri })),
    product_attributes: given.map(([id, value]) => ({ id, values: attributeValues(byId.get(id), value) })),
    ...(draft.package?.weight_grams ? { package_weight: { value: kilograms(draft.package.weight_grams), unit: 'KILOGRAM' } } : {}),
    ...(draft.package?.length_mm && draft.package.width_mm && draft.package.height_mm
      ? {
          package_dimensions: {
            length: centimetres(draft.package.length_mm),
            width: centimetres(draft.package.width_mm),
            height: centimetres(draft.package.height_mm),
            unit: 'CENTIMETER',
          },
        }
      : {}),
    ...complianceBody(draft.attributes),
    ...(certifications.length > 0 ? { certifications } : {}),
  };
}

/** A variant's sales attributes: the category's sales property of the option's name where it has one, else custom. */
function salesAttributes(draft: ListingDraft, variant: ListingDraft['variants'][number], attributes: readonly TikTokAttribute[]) {
  return draft.options.map((option) => {
    const value = variant.optionValues[option.name] ?? '';
    const property = attributes.find((a) => a.type === 'SALES_PROPERTY' && sameName(a.name, option.name));
    const choice = property?.values?.find((v) => sameName(v.name, value));
    return {
      ...(property ? { id: property.id } : { name: option.name }),
      ...(choice ? { value_id: choice.id } : { value_name: value }),
    };
  });
}

/** A barcode as TikTok's identifier code, by its length (listings.md §2.5: GTIN/EAN/UPC). */
function identifierOf(barcode: string | null) {
  if (!barcode || !/^[0-9]{12,14}$/.test(barcode)) return {};
  return { identifier_code: { code: barcode, type: barcode.length === 12 ? 'UPC' : barcode.length === 13 ? 'EAN' : 'GTIN' } };
}

/** The SKUs as TikTok names them apart: seller sku and sales attributes (the part of a SKU that is content). */
export function skuShapes(draft: ListingDraft, attributes: readonly TikTokAttribute[]) {
  return draft.variants.map((variant) => ({
    seller_sku: variant.sku,
    sales_attributes: draft.options.length > 0 ? salesAttributes(draft, variant, attributes) : [],
  }));
}

/** A SKU's stock by the warehouses TikTok holds it in, as one pool maps onto them (docs/listings.md). */
type Locations = Readonly<Record<string, readonly string[]>>;

/**
 * A SKU's inventory: the whole quantity in the site's warehouse, and 0 in each other warehouse TikTok keeps the SKU in
 * (TikTok refuses a stock update that leaves out a warehouse of a multi-warehouse SKU, 12019028). Storelink's one stock
 * pool is what buyers may buy: the same units counted again in a second warehouse would be sold twice.
 */
export function inventoryOf(warehouseId: string, quantity: number, held: readonly string[] = []) {
  return [
    { warehouse_id: warehouseId, quantity },
    ...held.filter((other) => other !== warehouseId).map((other) => ({ warehouse_id: other, quantity: 0 })),
  ];
}

/** Every SKU whole, for a create or an edit that changes the SKUs: ids of those TikTok has, price and stock of each. */
export function skusBody(
  draft: ListingDraft,
  warehouseId: string,
  attributes: readonly TikTokAttribute[],
  skuIds: Readonly<Record<string, string>>,
  creating: boolean,
  locations: Locations = {},
) {
  const shapes = skuShapes(draft, attributes);
  return draft.variants.map((variant, i) => ({
    ...(skuIds[variant.sku] ? { id: skuIds[variant.sku] } : {}),
    ...shapes[i],
    price: { amount: variant.price, currency: draft.currency },
    inventory: inventoryOf(warehouseId, variant.quantity, locations[variant.sku]),
    ...(creating ? identifierOf(variant.barcode) : {}),
  }));
}

/** Update Price's body: every SKU TikTok has an id for. */
export function pricesBody(draft: ListingDraft, skuIds: Readonly<Record<string, string>>) {
  return {
    skus: draft.variants.flatMap((v) =>
      skuIds[v.sku] ? [{ id: skuIds[v.sku], price: { amount: v.price, currency: draft.currency } }] : [],
    ),
  };
}

/** Update Inventory's body: every SKU TikTok has an id for, its stock in the site's warehouse (0 in its others). */
export function inventoryBody(
  draft: ListingDraft,
  warehouseId: string,
  skuIds: Readonly<Record<string, string>>,
  locations: Locations = {},
) {
  return {
    skus: draft.variants.flatMap((v) =>
      skuIds[v.sku] ? [{ id: skuIds[v.sku], inventory: inventoryOf(warehouseId, v.quantity, locations[v.sku]) }] : [],
    ),
  };
}

/**
 * The parts a delivery sends apart, each with its fingerprint: the content (to review when it changes), the prices and
 * the stock (without review). `uris` are TikTok's URIs of the draft's images in order; `certifications` as contentBody's.
 */
export function deliveredPrints(
  draft: ListingDraft,
  uris: readonly string[],
  attributes: readonly TikTokAttribute[],
  warehouseId: string,
  certifications: readonly TikTokCertification[] = [],
) {
  return {
    fields: fingerprint({ content: contentBody(draft, uris, attributes, certifications), skus: skuShapes(draft, attributes) }),
    prices: fingerprint(draft.variants.map((v) => [v.sku, v.price, draft.currency])),
    inventory: fingerprint({ warehouseId, quantities: draft.variants.map((v) => [v.sku, v.quantity]) }),
  };
}
