/**
 * The fields of createDraftListing and updateListing (listings.md §1.4, §1.7), read from a form body (Etsy's OAS) or a
 * JSON one (sent by third-party code to updateListing, §1.1), and checked against Etsy's rules and the shop's own
 * profiles and policies. Problems come in the `[{path, type, message}]` shape Etsy's validator was seen to answer
 * (§1.11, E11c); the `type` names other than `array_too_short` are the sandbox's (ASSUMPTION).
 */
import type { ListingFields } from './listing-store.js';
import { isLeaf, taxonomyNode } from './taxonomy.js';

export interface Problem {
  path: string;
  type: string;
  message: string;
}

const WHO_MADE = ['i_did', 'someone_else', 'collective'];
/** Year buckets as observed in 2026 (listings.md §1.4: they move over time); the older ones as third-party code sends them. */
const WHEN_MADE = [
  'made_to_order',
  '2020_2026',
  '2010_2019',
  '2004_2009',
  '2000_2003',
  '1990s',
  '1980s',
  '1970s',
  '1960s',
  '1950s',
  '1940s',
  '1930s',
  '1920s',
  '1910s',
  '1900s',
  '1800s',
  '1700s',
  'before_1700',
];
/** Etsy's price range in USD: "must be above min price" (E11d, E11e) and "must be below max price $50,000.00 USD" (etsy/open-api#459). */
export const PRICE_MIN = 0.2;
export const PRICE_MAX = 50_000;
/** ASSUMPTION: Etsy's inventory editor caps a quantity at 999; the OAS says only "positive". */
export const QUANTITY_MAX = 999;
/** ASSUMPTION: 140 characters, the limit Etsy's listing form shows; listings.md §1.4 has it from third parties only. */
const TITLE_MAX = 140;
// Letters, marks, digits, punctuation, maths signs, spaces, and the trademark, copyright and registered signs.
const TITLE_CHARACTERS = /^[\p{L}\p{M}\p{N}\p{P}\p{Sm}\p{Zs}\u2122\u00a9\u00ae]+$/u;
const TITLE_ONCE = ['%', ':', '&', '+'];
/** ASSUMPTION: 13 tags of at most 20 characters and 13 materials of at most 45, as Etsy's listing form allows. */
const TAGS_MAX = 13;

/**
 * Parameters Etsy takes that the sandbox accepts without modelling (weights, dimensions, sections, processing days):
 * anything else is refused, so an adapter's misspelt parameter shows instead of being dropped the way Etsy was seen
 * to drop some (listings.md §1.11).
 */
const IGNORED = new Set([
  'item_weight',
  'item_weight_unit',
  'item_length',
  'item_width',
  'item_height',
  'item_dimensions_unit',
  'processing_min',
  'processing_max',
  'is_taxable',
  'shop_section_id',
  'styles',
  'production_partner_ids',
  'featured_rank',
  'legacy',
]);

/** A body's parameters as text: form values as sent, JSON numbers and booleans written out, arrays comma-joined (Etsy's form arrays, §1.1). */
export function readParameters(body: unknown): Record<string, string> {
  const parameters: Record<string, string> = {};
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return parameters;
  for (const [key, value] of Object.entries(body)) {
    if (Array.isArray(value)) parameters[key] = value.map(String).join(',');
    else if (['string', 'number', 'boolean'].includes(typeof value)) parameters[key] = String(value);
  }
  return parameters;
}

const list = (text: string) =>
  text
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);
const isInteger = (text: string) => /^[0-9]{1,15}$/.test(text);
const problem = (field: string, type: string, message: string): Problem => ({ path: `/${field}`, type, message });

export function titleProblem(title: string): Problem | null {
  if (title.trim() === '') return problem('title', 'required', 'is required');
  if ([...title].length > TITLE_MAX) return problem('title', 'string_too_long', `cannot be longer than ${TITLE_MAX} characters`);
  if (!TITLE_CHARACTERS.test(title))
    return problem('title', 'pattern', 'can only contain letters, numbers, punctuation, mathematical symbols, whitespace, ™, © and ®');
  const repeated = TITLE_ONCE.find((character) => title.split(character).length > 2);
  return repeated ? problem('title', 'pattern', `can contain ${repeated} only once`) : null;
}

export function priceProblem(field: string, price: number): Problem | null {
  if (!Number.isFinite(price)) return problem(field, 'type', 'must be a number');
  if (price < PRICE_MIN) return problem(field, 'minimum', 'must be above min price $0.20 USD');
  return price > PRICE_MAX ? problem(field, 'maximum', 'must be below max price $50,000.00 USD') : null;
}

/** Checks one parameter; the value it sets on the listing's fields, or a problem. */
type Check = (text: string, shopId: number, shops: ShopIds) => { value: unknown } | Problem;

/** A shop's prerequisites' ids, as the shop holds them now (shop-setup.ts's `shopSetups`). */
export interface ShopIds {
  shippingIds(shopId: number): number[];
  returnIds(shopId: number): number[];
  readinessIds(shopId: number): number[];
}

const oneOf =
  (field: string, allowed: string[]): Check =>
  (text) =>
    allowed.includes(text) ? { value: text } : problem(field, 'enum', `must be one of ${allowed.join(', ')}`);
const shopId =
  (field: string, kind: keyof ShopIds): Check =>
  (text, shop, shops) =>
    isInteger(text) && shops[kind](shop).includes(Number(text))
      ? { value: Number(text) }
      : problem(field, 'not_found', `is not one of this shop's ids`);
const words =
  (field: string, maxLength: number): Check =>
  (text) => {
    const items = list(text);
    if (items.length > TAGS_MAX) return problem(field, 'array_too_long', `cannot be more than ${TAGS_MAX} items`);
    return items.some((item) => item.length > maxLength)
      ? problem(field, 'string_too_long', `items cannot be longer than ${maxLength} characters`)
      : { value: items };
  };
const flag =
  (field: string): Check =>
  (text) =>
    ['true', 'false', '1', '0'].includes(text) ? { value: text === 'true' || text === '1' } : problem(field, 'type', 'must be a boolean');

const FIELD_CHECKS: Record<keyof ListingFields, Check> = {
  title: (text) => titleProblem(text) ?? { value: text },
  description: (text) => (text.trim() === '' ? problem('description', 'required', 'is required') : { value: text }),
  who_made: oneOf('who_made', WHO_MADE),
  when_made: oneOf('when_made', WHEN_MADE),
  taxonomy_id: (text) => {
    if (!isInteger(text) || !taxonomyNode(Number(text))) return problem('taxonomy_id', 'not_found', 'is not a seller taxonomy id');
    return isLeaf(Number(text)) ? { value: Number(text) } : problem('taxonomy_id', 'invalid', 'must be a leaf of the seller taxonomy');
  },
  shipping_profile_id: shopId('shipping_profile_id', 'shippingIds'),
  readiness_state_id: shopId('readiness_state_id', 'readinessIds'),
  return_policy_id: shopId('return_policy_id', 'returnIds'),
  tags: words('tags', 20),
  materials: words('materials', 45),
  is_supply: flag('is_supply'),
  should_auto_renew: flag('should_auto_renew'),
};

/** The listing fields a body sets, with every problem found; `known` are the other parameters the route itself reads. */
export function readFields(parameters: Record<string, string>, shop: number, known: readonly string[], shops: ShopIds) {
  const fields: Partial<ListingFields> = {};
  const problems: Problem[] = [];
  for (const [name, text] of Object.entries(parameters)) {
    const check = FIELD_CHECKS[name as keyof ListingFields];
    if (check) {
      const result = check(text, shop, shops);
      if ('value' in result) Object.assign(fields, { [name]: result.value });
      else problems.push(result);
    } else if (!known.includes(name) && !IGNORED.has(name)) problems.push(problem(name, 'unknown', 'is not a parameter of this operation'));
  }
  return { fields, problems };
}

/** The error text of problems, for the routes that answer Etsy's `{error}` shape. */
export const errorText = (problems: Problem[]) => problems.map((p) => `There was a problem with ${p.path} : ${p.message}`).join('; ');
