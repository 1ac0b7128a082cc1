/**
 * updateListingInventory's body (listings.md §1.6): a full replace of the listing's products, each with its property
 * values (a value of the taxonomy's named by its id, whatever its text) and one offering, checked by Etsy's rules: at most two variation properties, a unique combination per
 * product, no parentheses in values, prices and quantities in range, the `*_on_property` lists consistent with what
 * varies, and some stock on a listing with variations.
 */

import { PRICE_MAX, PRICE_MIN, QUANTITY_MAX } from './listing-fields.js';
import type { Inventory, ProductPropertyValue } from './listing-store.js';
import { CUSTOM_PROPERTY_IDS, propertiesOf } from './taxonomy.js';

const MAX_VARIATION_PROPERTIES = 2;
const ON_PROPERTY = ['price_on_property', 'quantity_on_property', 'sku_on_property', 'readiness_state_on_property'] as const;
/** ASSUMPTION: Etsy's SKU limit of 32 characters, as its listing form shows. */
const SKU_MAX = 32;

interface OfferingInput {
  price: number;
  quantity: number;
  is_enabled: boolean;
  readiness_state_id: number;
}
export interface ProductInput {
  sku: string;
  property_values: ProductPropertyValue[];
  offering: OfferingInput;
}
export type InventoryInput = Omit<Inventory, 'products'> & { products: ProductInput[] };

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);
const isIdList = (value: unknown): value is number[] => Array.isArray(value) && value.every((id) => Number.isInteger(id));

class InventoryProblem extends Error {}
const refuse = (path: string, message: string): never => {
  throw new InventoryProblem(`There was a problem with ${path} : ${message}`);
};

/** One property value, named from the taxonomy (or by the caller for Etsy's custom properties). */
function readPropertyValue(raw: unknown, path: string, taxonomyId: number): ProductPropertyValue {
  if (!isObject(raw) || !Number.isInteger(raw.property_id)) return refuse(path, 'property_id is required');
  const id = raw.property_id as number;
  const property = propertiesOf(taxonomyId).find((candidate) => candidate.property_id === id && candidate.supports_variations);
  const custom = CUSTOM_PROPERTY_IDS.includes(id);
  if (!property && !custom) refuse(`${path}/property_id`, `${id} is not a variation property of taxonomy ${taxonomyId}`);
  const values = raw.values;
  if (!Array.isArray(values) || values.length !== 1 || typeof values[0] !== 'string' || values[0].trim() === '')
    return refuse(`${path}/values`, 'must hold one value');
  if (/[()]/.test(values[0])) refuse(`${path}/values`, 'cannot contain parentheses');
  // Etsy's OpenAPI document (and the SDKs generated from it) require `value_ids` of every property value: empty for a
  // custom property's text, the taxonomy's ids for its own (etsy/open-api#292 reports it refused when left out).
  if (raw.value_ids === undefined) return refuse(`${path}/value_ids`, 'is required');
  const valueIds = raw.value_ids;
  if (!isIdList(valueIds)) return refuse(`${path}/value_ids`, 'must be a list of integers');
  const chosen =
    property && property.possible_values.length > 0 ? valueIds.map((v) => property.possible_values.find((p) => p.value_id === v)) : [];
  if (chosen.some((value) => value === undefined)) refuse(`${path}/value_ids`, 'are not possible values of the property');
  // Observed (etsy/open-api#343, 2022): Etsy refuses neither of these. An id names the value whatever the text says
  // ("Made Up Colour" sent with Black's id was stored as Black); empty ids with a text on a property of possible values
  // are the seller's own value of it, the text kept (Etsy's staff advised it for a colour not in the list).
  const text = chosen[0]?.name ?? values[0];
  const name = property?.name ?? raw.property_name;
  if (typeof name !== 'string' || name.trim() === '') return refuse(`${path}/property_name`, 'is required for a custom property');
  const scaleId = Number.isInteger(raw.scale_id) ? (raw.scale_id as number) : null;
  const scale = property?.scales.find((candidate) => candidate.scale_id === scaleId);
  return {
    property_id: id,
    property_name: name,
    scale_id: scaleId,
    scale_name: scale?.display_name ?? null,
    value_ids: valueIds,
    values: [text],
  };
}

function readOffering(raw: unknown, path: string, readinessIds: number[], fallbackReadiness: number): OfferingInput {
  if (!Array.isArray(raw) || raw.length !== 1 || !isObject(raw[0])) return refuse(path, 'must hold exactly one offering');
  const { price, quantity, is_enabled: enabled, readiness_state_id: readiness } = raw[0];
  if (typeof price !== 'number' || price < PRICE_MIN) refuse(`${path}/0/price`, 'must be above min price $0.20 USD');
  if ((price as number) > PRICE_MAX) refuse(`${path}/0/price`, 'must be below max price $50,000.00 USD');
  if (!Number.isInteger(quantity) || (quantity as number) < 0 || (quantity as number) > QUANTITY_MAX)
    refuse(`${path}/0/quantity`, `must be an integer from 0 to ${QUANTITY_MAX}`);
  if (typeof enabled !== 'boolean') refuse(`${path}/0/is_enabled`, 'must be a boolean');
  if (readiness !== undefined && !readinessIds.includes(readiness as number))
    refuse(`${path}/0/readiness_state_id`, "is not one of this shop's");
  return {
    price: price as number,
    quantity: quantity as number,
    is_enabled: enabled as boolean,
    readiness_state_id: (readiness as number) ?? fallbackReadiness,
  };
}

function readProduct(raw: unknown, index: number, taxonomyId: number, readinessIds: number[], fallback: number): ProductInput {
  const path = `/products/${index}`;
  if (!isObject(raw)) return refuse(path, 'must be an object');
  const sku = raw.sku ?? '';
  if (typeof sku !== 'string' || sku.length > SKU_MAX) refuse(`${path}/sku`, `must be text of at most ${SKU_MAX} characters`);
  if (!Array.isArray(raw.property_values)) return refuse(`${path}/property_values`, 'is required');
  const propertyValues = raw.property_values.map((value, i) => readPropertyValue(value, `${path}/property_values/${i}`, taxonomyId));
  return {
    sku: sku as string,
    property_values: propertyValues,
    offering: readOffering(raw.offerings, `${path}/offerings`, readinessIds, fallback),
  };
}

const propertyKey = (product: ProductInput, ids: readonly number[]) =>
  JSON.stringify(ids.map((id) => product.property_values.find((value) => value.property_id === id)?.values[0]));

/** Every product has one value of each variation property, and no two products the same values. */
function checkVariations(products: ProductInput[]): number[] {
  const ids = [...new Set(products.flatMap((product) => product.property_values.map((value) => value.property_id)))];
  if (ids.length > MAX_VARIATION_PROPERTIES) refuse('/products', `cannot vary on more than ${MAX_VARIATION_PROPERTIES} properties`);
  products.forEach((product, i) => {
    const own = product.property_values.map((value) => value.property_id);
    if (own.length !== ids.length || ids.some((id) => !own.includes(id)))
      refuse(`/products/${i}/property_values`, 'must give a value for each variation property of the listing');
  });
  const seen = new Set(products.map((product) => propertyKey(product, ids)));
  if (seen.size !== products.length) refuse('/products', 'each product must have a unique combination of property values');
  return ids;
}

const READERS: Record<(typeof ON_PROPERTY)[number], (product: ProductInput) => unknown> = {
  price_on_property: (product) => product.offering.price,
  quantity_on_property: (product) => product.offering.quantity,
  sku_on_property: (product) => product.sku,
  readiness_state_on_property: (product) => product.offering.readiness_state_id,
};

/** A value may differ between products only as the properties of its `*_on_property` list do (listings.md §1.6). */
function checkOnProperty(input: Json, products: ProductInput[], ids: number[]) {
  const lists = {} as Record<(typeof ON_PROPERTY)[number], number[]>;
  for (const name of ON_PROPERTY) {
    const list = input[name] ?? [];
    if (!isIdList(list) || list.some((id) => !ids.includes(id)))
      return refuse(`/${name}`, 'must list variation properties of the products');
    const byKey = new Map<string, unknown>();
    for (const product of products) {
      const key = propertyKey(product, list);
      const value = READERS[name](product);
      if (byKey.has(key) && byKey.get(key) !== value) refuse(`/${name}`, 'is incompatible with the values of the products');
      byKey.set(key, value);
    }
    lists[name] = list;
  }
  return lists;
}

/** The inventory a body describes, or the Etsy-worded problem that refuses it. */
export function readInventory(
  body: unknown,
  listing: { taxonomyId: number; readinessIds: number[]; readinessStateId: number },
): InventoryInput | { error: string } {
  try {
    if (!isObject(body) || !Array.isArray(body.products) || body.products.length === 0) return refuse('/products', 'is required');
    const products = body.products.map((raw, i) => readProduct(raw, i, listing.taxonomyId, listing.readinessIds, listing.readinessStateId));
    const ids = checkVariations(products);
    const lists = checkOnProperty(body, products, ids);
    const stock = products.filter((product) => product.offering.is_enabled).reduce((sum, product) => sum + product.offering.quantity, 0);
    // Observed: Etsy refuses an inventory with no unit, with or without variations (listings.md §1.6, E11l; orders.md §1,
    // "Inventory": "One offering must have quantity greater than 0", #395, #560).
    if (stock === 0) refuse('/products', 'One offering must have quantity greater than 0');
    return { products, ...lists };
  } catch (error) {
    if (error instanceof InventoryProblem) return { error: error.message };
    throw error;
  }
}
