/** Etsy's listing writes (listings.md §1.4–1.7): the requests built without I/O (their answers are parsed in listing-responses.ts). */
import type { DraftVariant, ListingDraft } from '../contracts/listings.js';
import { fingerprint } from '../fingerprint.js';
import type { VariationProperty } from './listing-responses.js';

/**
 * Etsy's "custom" variation properties, for options a seller names: 513 and 514 (listings.md §1.6: a variation is a
 * property with `property_name` and `values`; the custom ids are the two Etsy's own listing form uses).
 */
export const CUSTOM_PROPERTY_IDS = [513, 514] as const;

/** The listing's fields createDraftListing takes (form-encoded, listings.md §1.4), from the draft and the site's settings. */
export function createListingForm(draft: ListingDraft, settings: Readonly<Record<string, unknown>>): Record<string, string> {
  return {
    quantity: String(
      Math.max(
        1,
        draft.variants.reduce((sum, v) => sum + v.quantity, 0),
      ),
    ),
    price: draft.variants[0]?.price ?? '0.20',
    who_made: String(settings.who_made),
    when_made: String(settings.when_made),
    is_supply: String(settings.is_supply === true),
    ...fieldsForm(draft, settings),
  };
}

/** What updateListing and createDraftListing share: the text, the tags and the shop's profiles (listings.md §1.7). */
export function fieldsForm(draft: ListingDraft, settings: Readonly<Record<string, unknown>>): Record<string, string> {
  const form: Record<string, string> = {
    title: draft.title,
    description: draft.description || draft.title,
    taxonomy_id: draft.categoryId,
    shipping_profile_id: String(settings.shipping_profile_id),
    readiness_state_id: String(settings.readiness_state_id),
  };
  // An EU shop's listings need none (listings.md §1.4): a return policy is sent only when the site names one.
  if (settings.return_policy_id !== null && settings.return_policy_id !== undefined)
    form.return_policy_id = String(settings.return_policy_id);
  if (draft.tags.length > 0) form.tags = draft.tags.join(',');
  return form;
}

const offering = (price: string, quantity: number, readinessStateId: string) => ({
  price: Number(price),
  quantity,
  is_enabled: quantity > 0,
  readiness_state_id: Number(readinessStateId),
});

/** Whether every variant of the draft is out of stock: Etsy refuses such an inventory (orders.md §1, "Inventory"). */
export const soldOut = (draft: Pick<ListingDraft, 'variants'>) => draft.variants.every((variant) => variant.quantity === 0);

/** What an option is called where the category calls it otherwise: a colour is Etsy's "Primary color". */
const OPTION_NAMES: Readonly<Record<string, readonly string[]>> = { color: ['primary color'], colour: ['primary color'] };

/**
 * Which property each option varies on (listings.md §1.6): the category's own variation property of the option's name
 * when it has an id for every value the variants give (`value_ids`, with its scale), else Etsy's custom properties
 * 513 and 514 (`property_name`, the values as text, `value_ids` empty: Etsy's own form sends them so).
 */
export function variationPropertiesOf(draft: Pick<ListingDraft, 'options' | 'variants'>, variations: readonly VariationProperty[]) {
  const taken = new Set<number>();
  let custom = 0;
  return draft.options.map((option) => {
    const name = option.name.trim().toLowerCase();
    const wanted = [name, ...(OPTION_NAMES[name] ?? [])];
    const valuesOf = (v: DraftVariant) => (v.optionValues[option.name] ?? '').trim().toLowerCase();
    const own = variations.find(
      (property) =>
        !taken.has(property.id) &&
        property.names.some((each) => wanted.includes(each)) &&
        draft.variants.every((variant) => property.valueIds.has(valuesOf(variant))),
    );
    if (own) {
      taken.add(own.id);
      return { id: own.id, name: option.name, scaleId: own.scaleId, valueIdOf: (v: DraftVariant) => [own.valueIds.get(valuesOf(v))!] };
    }
    return { id: CUSTOM_PROPERTY_IDS[custom++]!, name: option.name, scaleId: null, valueIdOf: (_: DraftVariant) => [] as number[] };
  });
}

/**
 * The inventory body (listings.md §1.6): one product per variant, its options as the category's variation properties
 * or custom ones (variationPropertiesOf), and each of price, quantity and sku varying on every property there is, so
 * each combination carries its own. A variant at 0 is a disabled offering (DESIGN §14). Etsy refuses an inventory with
 * no unit at all, so a sold-out draft keeps one unit of its first variant, sent only to a listing switched off first
 * (the adapter's `deliver`): nobody can buy it.
 */
export function inventoryBody(draft: ListingDraft, readinessStateId: string, variations: readonly VariationProperty[] = []) {
  const properties = variationPropertiesOf(draft, variations);
  const ids = properties.map((p) => p.id);
  const none = soldOut(draft);
  return {
    products: draft.variants.map((variant, i) => ({
      sku: variant.sku,
      property_values: properties.map((property) => ({
        property_id: property.id,
        property_name: property.name,
        ...(property.scaleId === null ? {} : { scale_id: property.scaleId }),
        value_ids: property.valueIdOf(variant),
        values: [variant.optionValues[property.name] ?? ''],
      })),
      offerings: [offering(variant.price, none && i === 0 ? 1 : variant.quantity, readinessStateId)],
    })),
    price_on_property: ids,
    quantity_on_property: ids,
    sku_on_property: ids,
    readiness_state_on_property: [],
  };
}

/**
 * What an inventory holds, whichever properties carry the options (the category's or custom ones, named as Etsy names
 * them): each variant's sku, its option values in order, and its offering. A listing read from Etsy (an import, a
 * drift's reconcile) is printed so, without the category's properties at hand, and matches what was sent.
 */
export function inventoryPrint(draft: ListingDraft, readinessStateId: string): string {
  const body = inventoryBody(draft, readinessStateId);
  return fingerprint({
    ...body,
    products: body.products.map(({ sku, property_values, offerings }) => ({
      sku,
      values: property_values.map((v) => v.values),
      offerings,
    })),
  });
}

/**
 * A shop-setup create's form (listings.md §1.3; Etsy takes these form-encoded): the input as the settings schema took
 * it (ETSY_SETTINGS_CREATES), each value as text; absent ones left out. A processing profile's unit defaults to days,
 * as Etsy's does, so a second ask with the same values is the same definition.
 */
export function shopSetupForm(name: string, input: Readonly<Record<string, unknown>>): Record<string, string> {
  const form: Record<string, string> = {};
  for (const [key, value] of Object.entries(input)) if (value !== undefined && value !== null) form[key] = String(value);
  if (name === 'new_processing_profile') form.processing_time_unit ??= 'days';
  return form;
}
