/**
 * What Create Product, Check Product Listing and Edit Product hold a product body to (listings.md §2.5): title length,
 * description, a leaf category, its required attributes and package rules, images TikTok hosts, SKUs with prices in the
 * market's currency and stock in the shop's warehouses, and the category's rules for the shop (Get Category Rules): its
 * required certifications, its size chart, and in the EU the seller's responsible persons and manufacturers. Pure: the
 * body in, the problems, warnings and the version out.
 */
import { attributesOf, BRANDS, categoryOf, rulesOf, warehousesOf } from './categories.js';
import { manufacturersOf, responsiblePersonsOf, sizeChartsOf } from './compliance.js';
import type { TikTokError } from './errors.js';
import { PRODUCT_ERRORS as E } from './product-errors.js';
import type { HostedFile, HostedImage, ProductStore, ProductVersion, Sku } from './product-store.js';
import { accountOf, isEuLocal, type SandboxShop } from './shops.js';

const TITLE_MAX = 255;
const DESCRIPTION_MAX = 10_000;
const MAIN_IMAGES_MAX = 9;
const SKUS_MAX = 300;
const SELLER_SKU_MAX = 50;
const QUANTITY_MAX = 99_999;
/** Currency and price ceiling per market (listings.md §2.5: US 7,600, UK 5,600, EU 6,300). */
const MARKETS: Record<string, { currency: string; maxPrice: number }> = {
  US: { currency: 'USD', maxPrice: 7_600 },
  GB: { currency: 'GBP', maxPrice: 5_600 },
  DE: { currency: 'EUR', maxPrice: 6_300 },
  FR: { currency: 'EUR', maxPrice: 6_300 },
  ES: { currency: 'EUR', maxPrice: 6_300 },
};

type Body = Record<string, unknown>;
const isObject = (value: unknown): value is Body => typeof value === 'object' && value !== null && !Array.isArray(value);
const DECIMAL = /^[0-9]{1,9}(\.[0-9]{1,2})?$/;
const WHOLE = /^[1-9][0-9]{0,5}$/;

export interface ShopFacts {
  id: string;
  region: string;
  seller_type: SandboxShop['seller_type'];
  /** The sandbox account whose responsible persons, manufacturers and size charts the shop may name. */
  account: number;
  images: ReadonlyMap<string, HostedImage>;
  /** Files uploaded with Upload Product File, by id (a certification's PDFs). */
  files: ReadonlyMap<string, HostedFile>;
  nextSkuId: () => string;
}

/** The facts about a shop the product checks need. */
export const shopFacts = (shop: SandboxShop, store: Pick<ProductStore, 'images' | 'files' | 'nextSkuId'>): ShopFacts => ({
  id: shop.id,
  region: shop.region,
  seller_type: shop.seller_type,
  account: accountOf(shop),
  images: store.images,
  files: store.files,
  nextSkuId: store.nextSkuId,
});

export interface Checked {
  problems: TikTokError[];
  warnings: { message: string }[];
  version: ProductVersion;
}

/** The problem with a SKU's price, or null. */
export function priceProblem(price: unknown, region: string): TikTokError | null {
  const market = MARKETS[region] ?? MARKETS.US!;
  if (!isObject(price) || typeof price.amount !== 'string' || !DECIMAL.test(price.amount)) return E.priceInvalid;
  if (Number(price.amount) < 0.01 || Number(price.amount) > market.maxPrice) return E.priceInvalid;
  return price.currency === market.currency ? null : E.currencyUnavailable;
}

/** The problem with a SKU's inventory, or null; `minimum` is 1 on create (listings.md §2.5) and 0 on updates. */
export function inventoryProblem(inventory: unknown, shopId: string, minimum: number): TikTokError | null {
  if (!Array.isArray(inventory) || inventory.length === 0) return E.fieldInvalid('skus.inventory', 'is required.');
  const known = new Set(warehousesOf(shopId, '').map((warehouse) => warehouse.id));
  for (const entry of inventory as unknown[]) {
    if (!isObject(entry) || typeof entry.warehouse_id !== 'string') return E.fieldInvalid('skus.inventory.warehouse_id', 'is required.');
    if (!known.has(entry.warehouse_id)) return E.warehouseUnknown(entry.warehouse_id);
    const quantity = entry.quantity;
    if (!Number.isInteger(quantity) || (quantity as number) < minimum || (quantity as number) > QUANTITY_MAX) return E.stockOutOfRange;
  }
  return null;
}

function skuProblems(skus: unknown, shop: ShopFacts): TikTokError[] {
  if (!Array.isArray(skus) || skus.length === 0) return [E.fieldInvalid('skus', 'must have at least one SKU.')];
  if (skus.length > SKUS_MAX) return [E.tooManySkus];
  const problems: TikTokError[] = [];
  for (const sku of skus as unknown[]) {
    if (!isObject(sku)) return [E.fieldInvalid('skus', 'must be objects.')];
    const sellerSku = sku.seller_sku;
    if (sellerSku !== undefined && (typeof sellerSku !== 'string' || !/^\S{1,50}$/.test(sellerSku)))
      problems.push(E.fieldInvalid('skus.seller_sku', `must be 1 to ${SELLER_SKU_MAX} characters without spaces.`));
    const price = priceProblem(sku.price, shop.region);
    if (price) problems.push(price);
    const stock = inventoryProblem(sku.inventory, shop.id, 1);
    if (stock) problems.push(stock);
    // listings.md §2.5 [T14]: several SKUs are told apart by their sales attributes.
    if (skus.length > 1 && (!Array.isArray(sku.sales_attributes) || sku.sales_attributes.length === 0))
      problems.push(E.fieldInvalid('skus.sales_attributes', 'are required when a product has more than one SKU.'));
  }
  return problems;
}

function imageProblems(images: unknown, shop: ShopFacts): TikTokError[] {
  if (!Array.isArray(images) || images.length === 0) return [E.mainImageRequired];
  if (images.length > MAIN_IMAGES_MAX) return [E.fieldInvalid('main_images', `can hold at most ${MAIN_IMAGES_MAX} images.`)];
  const unhosted = (images as unknown[]).find((image) => !isObject(image) || !shop.images.has(String(image.uri)));
  return unhosted === undefined ? [] : [E.mainImageNotHosted(String(isObject(unhosted) ? unhosted.uri : unhosted))];
}

function packageProblems(body: Body, categoryId: string, shop: ShopFacts): TikTokError[] {
  const region = shop.region;
  const problems: TikTokError[] = [];
  const units = region === 'US' ? ['KILOGRAM', 'POUND'] : ['KILOGRAM'];
  const weight = body.package_weight;
  if (!isObject(weight) || typeof weight.value !== 'string' || !DECIMAL.test(weight.value) || Number(weight.value) <= 0)
    problems.push(E.packageWeightInvalid);
  else if (!units.includes(String(weight.unit))) problems.push(E.packageWeightInvalid);
  const size = body.package_dimensions;
  if (size === undefined) {
    if (categoryOf(categoryId)?.is_leaf && rulesOf(categoryId, shop).package_dimension.is_required) problems.push(E.packageSizeInvalid);
  } else if (
    !isObject(size) ||
    ![size.length, size.width, size.height].every((side) => typeof side === 'string' && WHOLE.test(side)) ||
    !(region === 'US' ? ['CENTIMETER', 'INCH'] : ['CENTIMETER']).includes(String(size.unit))
  )
    problems.push(E.packageSizeInvalid);
  return problems;
}

function attributeProblems(given: unknown, categoryId: string): TikTokError[] {
  const values = new Map<string, unknown[]>();
  for (const entry of Array.isArray(given) ? (given as unknown[]) : [])
    if (isObject(entry) && Array.isArray(entry.values)) values.set(String(entry.id), entry.values);
  return attributesOf(categoryId)
    .filter((attribute) => attribute.type === 'PRODUCT_PROPERTY' && attribute.is_requried && !(values.get(attribute.id)?.length ?? 0))
    .map((attribute) => E.attributeRequired(attribute.name));
}

const idsOf = (value: unknown) => (Array.isArray(value) ? value.map(String) : []);

/** The value ids the body gives each product attribute, for the rules' `VALUE_ID_MATCH` conditions. */
function chosenValues(given: unknown): Map<string, Set<string>> {
  const chosen = new Map<string, Set<string>>();
  for (const entry of Array.isArray(given) ? (given as unknown[]) : [])
    if (isObject(entry) && Array.isArray(entry.values))
      chosen.set(
        String(entry.id),
        new Set((entry.values as unknown[]).flatMap((v) => (isObject(v) && v.id !== undefined ? [String(v.id)] : []))),
      );
  return chosen;
}

/** Certifications: one the category does not know is refused; a required one (always, or by a condition met) needs a file or image. */
function certificationProblems(body: Body, categoryId: string, shop: ShopFacts): TikTokError[] {
  const rules = rulesOf(categoryId, shop).product_certifications;
  const given = Array.isArray(body.certifications) ? (body.certifications as unknown[]).filter(isObject) : [];
  const unknown = given.find((entry) => !rules.some((rule) => rule.id === String(entry.id)));
  if (unknown) return [E.certificationUnknown(String(unknown.id))];
  // Create Product takes a certification's images by the URI Upload Product Image gave (`use_case=CERTIFICATION_IMAGE`)
  // and its files by the id Upload Product File gave, PDF only: anything else is no certificate TikTok holds.
  for (const entry of given) {
    const image = (Array.isArray(entry.images) ? (entry.images as unknown[]) : []).find(
      (each) => !isObject(each) || shop.images.get(String(each.uri))?.use_case !== 'CERTIFICATION_IMAGE',
    );
    if (image !== undefined) return [E.certificationImageNotHosted(String(isObject(image) ? image.uri : image))];
    const file = (Array.isArray(entry.files) ? (entry.files as unknown[]) : []).find(
      (each) => !isObject(each) || !shop.files.has(String(each.id)) || each.format !== 'PDF',
    );
    if (file !== undefined) return [E.certificationFileUnknown(String(isObject(file) ? file.id : file))];
  }
  const chosen = chosenValues(body.product_attributes);
  return rules
    .filter(
      (rule) =>
        rule.is_required ||
        rule.requirement_conditions.some((condition) => chosen.get(condition.attribute_id)?.has(condition.attribute_value_id)),
    )
    .filter((rule) => {
      const sent = given.find((entry) => String(entry.id) === rule.id);
      return !sent || (idsOf(sent.images).length === 0 && idsOf(sent.files).length === 0);
    })
    .map((rule) => E.certificationRequired(rule.name));
}

/** The size chart: a template of the seller's, or an image TikTok hosts; required where the rules say so. */
function sizeChartProblems(body: Body, categoryId: string, shop: ShopFacts): TikTokError[] {
  const rules = rulesOf(categoryId, shop).size_chart;
  const chart = isObject(body.size_chart) ? body.size_chart : null;
  // A category that takes no size chart ignores one ("the size chart will not be saved").
  if (!rules.is_supported) return [];
  const template = chart && isObject(chart.template) ? String(chart.template.id) : null;
  const image = chart && isObject(chart.image) ? String(chart.image.uri) : null;
  if (template !== null && !sizeChartsOf(shop.account).some((each) => each.template_id === template)) return [E.sizeChartMissing];
  if (template === null && image !== null && !shop.images.has(image)) return [E.sizeChartImage];
  return rules.is_required && template === null && image === null ? [E.sizeChartRequired] : [];
}

/** The EU's responsible persons and manufacturers: the seller's own, and at least one of each where the rules require them. */
function euProblems(body: Body, categoryId: string, shop: ShopFacts): TikTokError[] {
  // Outside the EU the fields do not apply (Create Product: "Applicable only for the EU market").
  if (!isEuLocal(shop)) return [];
  const rules = rulesOf(categoryId, shop);
  const people = idsOf(body.responsible_person_ids);
  const makers = idsOf(body.manufacturer_ids);
  const strangePerson = people.find((id) => !responsiblePersonsOf(shop.account).some((each) => each.id === id));
  const strangeMaker = makers.find((id) => !manufacturersOf(shop.account).some((each) => each.id === id));
  return [
    ...(strangePerson !== undefined ? [E.responsiblePersonMissing(strangePerson)] : []),
    ...(rules.responsible_person.is_required && people.length === 0 ? [E.responsiblePersonRequired] : []),
    ...(strangeMaker !== undefined ? [E.manufacturerMissing(strangeMaker)] : []),
    ...(rules.manufacturer.is_required && makers.length === 0 ? [E.manufacturerRequired] : []),
  ];
}

/** The problems of the body's top-level fields in the order TikTok's answers name them; empty when it can be listed. */
function fieldProblems(body: Body, shop: ShopFacts): TikTokError[] {
  const title = body.title;
  if (typeof title !== 'string' || title.trim() === '') return [E.fieldInvalid('title', 'is required.')];
  if (title.length > TITLE_MAX) return [E.titleTooLong];
  if (typeof body.description !== 'string' || body.description.trim() === '') return [E.fieldInvalid('description', 'is required.')];
  if (body.description.length > DESCRIPTION_MAX) return [E.fieldInvalid('description', `must be at most ${DESCRIPTION_MAX} characters.`)];
  const category = categoryOf(body.category_id);
  if (!category) return [E.categoryMissing];
  if (!category.is_leaf) return [E.categoryNotLeaf];
  return [
    ...imageProblems(body.main_images, shop),
    ...skuProblems(body.skus, shop),
    ...packageProblems(body, category.id, shop),
    ...attributeProblems(body.product_attributes, category.id),
    ...certificationProblems(body, category.id, shop),
    ...sizeChartProblems(body, category.id, shop),
    ...euProblems(body, category.id, shop),
  ];
}

/** A stored SKU from a body's SKU; an edit keeps the id, price and stock of the SKU it names when they are omitted. */
function skuOf(sku: Body, previous: Sku[], nextSkuId: () => string, categoryId: string): Sku {
  const kept = previous.find((each) => each.id === sku.id || (sku.seller_sku !== undefined && each.seller_sku === sku.seller_sku));
  const price = isObject(sku.price) ? { amount: String(sku.price.amount), currency: String(sku.price.currency) } : kept?.price;
  const inventory = Array.isArray(sku.inventory)
    ? (sku.inventory as Body[]).map((entry) => ({ warehouse_id: String(entry.warehouse_id), quantity: Number(entry.quantity) }))
    : kept?.inventory;
  return {
    id: kept?.id ?? nextSkuId(),
    seller_sku: typeof sku.seller_sku === 'string' ? sku.seller_sku : '',
    external_sku_id: typeof sku.external_sku_id === 'string' ? sku.external_sku_id : '',
    price: price ?? { amount: '0.00', currency: '' },
    inventory: inventory ?? [],
    sales_attributes: Array.isArray(sku.sales_attributes) ? (sku.sales_attributes as Body[]).filter(isObject).map(named(categoryId)) : [],
  };
}

/** A sales attribute as Get Product shows it: the category's property and value by id and name, or the custom names. */
const named =
  (categoryId: string) =>
  (given: Body): Sku['sales_attributes'][number] => {
    const property = attributesOf(categoryId).find((each) => each.id === given.id);
    const value = property?.values.find((each) => each.id === given.value_id);
    return {
      ...(property ? { id: property.id, name: property.name } : { name: String(given.name ?? '') }),
      ...(value ? { value_id: value.id, value_name: value.name } : { value_name: String(given.value_name ?? '') }),
    };
  };

/**
 * Checks a Create/Edit Product body. An edit passes the SKUs it replaces: one that omits a SKU's price or inventory
 * keeps them (listings.md §2.7, "except price/inventory when omitted"), so only a new SKU must carry both.
 */
export function checkProduct(raw: unknown, shop: ShopFacts, previous: Sku[] = []): Checked {
  const body = isObject(raw) ? raw : {};
  const filled = previous.length === 0 ? body : { ...body, skus: withKeptStock(body.skus, previous) };
  const problems = fieldProblems(filled, shop);
  const warnings: { message: string }[] = [];
  let brandId = typeof body.brand_id === 'string' && body.brand_id !== '' ? body.brand_id : null;
  if (brandId && !BRANDS.some((brand) => brand.id === brandId)) {
    warnings.push({
      message: `The [brand_id]:${brandId} field is incorrect and has been automatically cleared by the system. Reason: [Brand does not exist]. You can edit it later.`,
    });
    brandId = null;
  }
  const attributes = attributesOf(String(body.category_id));
  const version: ProductVersion = {
    title: String(body.title ?? ''),
    description: String(body.description ?? ''),
    category_id: String(body.category_id ?? ''),
    brand_id: brandId,
    main_images: (Array.isArray(body.main_images) ? (body.main_images as Body[]) : []).flatMap(
      (image) => shop.images.get(String(image?.uri)) ?? [],
    ),
    skus: (Array.isArray(body.skus) ? (body.skus as Body[]) : [])
      .filter(isObject)
      .map((sku) => skuOf(sku, previous, shop.nextSkuId, String(body.category_id ?? ''))),
    package_weight: isObject(body.package_weight)
      ? { value: String(body.package_weight.value), unit: String(body.package_weight.unit) }
      : { value: '', unit: '' },
    package_dimensions: isObject(body.package_dimensions) ? (body.package_dimensions as ProductVersion['package_dimensions']) : null,
    product_attributes: (Array.isArray(body.product_attributes) ? (body.product_attributes as Body[]) : [])
      .filter(isObject)
      .map((entry) => ({
        id: String(entry.id),
        name: attributes.find((each) => each.id === String(entry.id))?.name ?? '',
        values: Array.isArray(entry.values) ? (entry.values as { id?: string; name?: string }[]) : [],
      })),
    external_product_id: typeof body.external_product_id === 'string' ? body.external_product_id : '',
    ...complianceOf(body, shop),
  };
  return { problems, warnings, version };
}

/** What the version keeps of the body's certifications, size chart, responsible persons and manufacturers. */
function complianceOf(
  body: Body,
  shop: ShopFacts,
): Pick<ProductVersion, 'certifications' | 'size_chart' | 'responsible_person_ids' | 'manufacturer_ids'> {
  const categoryId = String(body.category_id ?? '');
  const leaf = categoryOf(categoryId)?.is_leaf === true;
  const chart = isObject(body.size_chart) ? body.size_chart : null;
  const template = chart && isObject(chart.template) ? { template: { id: String(chart.template.id) } } : {};
  const image = chart && isObject(chart.image) ? { image: { uri: String(chart.image.uri) } } : {};
  const eu = isEuLocal(shop);
  return {
    certifications: (Array.isArray(body.certifications) ? (body.certifications as unknown[]) : []).filter(isObject).map((entry) => ({
      id: String(entry.id),
      images: idsOf(entry.images).length > 0 ? (entry.images as Body[]).map((each) => ({ uri: String(each?.uri) })) : [],
      files: Array.isArray(entry.files)
        ? (entry.files as Body[]).map((each) => ({ id: String(each?.id), name: String(each?.name), format: String(each?.format) }))
        : [],
    })),
    size_chart: leaf && rulesOf(categoryId, shop).size_chart.is_supported && chart ? { ...template, ...image } : null,
    responsible_person_ids: eu ? idsOf(body.responsible_person_ids) : [],
    manufacturer_ids: eu ? idsOf(body.manufacturer_ids) : [],
  };
}

/** The body's SKUs with the price and inventory of the SKU each names filled in where omitted, for checking. */
function withKeptStock(skus: unknown, previous: Sku[]): unknown {
  if (!Array.isArray(skus)) return skus;
  return (skus as unknown[]).map((sku) => {
    if (!isObject(sku)) return sku;
    const kept = previous.find((each) => each.id === sku.id || (sku.seller_sku !== undefined && each.seller_sku === sku.seller_sku));
    return kept ? { price: kept.price, inventory: kept.inventory, ...sku } : sku;
  });
}
