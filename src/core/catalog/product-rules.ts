/**
 * The rules of DESIGN §9 that the request's JSON Schema cannot say: how options and variants fit together, prices
 * above zero, currencies that exist, skus unique in the request, ids that belong to the product. Every rule reports on
 * the body's own field key, all problems at once; a field the schema already refused is not checked again.
 */
import type { ProductOption } from '../../domain/index.js';
import type { FieldErrors } from '../../errors.js';

/**
 * ISO 4217 codes this runtime knows (ICU's list): a currency that is not one is refused. Read on first use, as ICU's
 * data pages stay in the process once touched (docs/decisions.md, "ICU's data is touched on first use").
 */
let currencies: ReadonlySet<string> | undefined;
const isCurrency = (code: string) => (currencies ??= new Set(Intl.supportedValuesOf('currency'))).has(code);

/** The product as it would be after the request: the body's fields over the stored product's, for a change. */
export interface Candidate {
  readonly currency: string;
  readonly options: readonly ProductOption[];
  readonly variants: readonly {
    readonly id?: number;
    readonly sku: string;
    readonly option_values: Readonly<Record<string, string>>;
    readonly price: string;
  }[];
  readonly images: readonly { readonly id?: number; readonly url?: string }[];
}

/** Which of the candidate's lists the body gave: a rule about a list not given is reported on the field that was. */
export interface Given {
  readonly currency: boolean;
  readonly options: boolean;
  readonly variants: boolean;
  readonly images: boolean;
}

/** Every list given: a new product, or a whole one from a CSV group. */
export const ALL_GIVEN: Given = { currency: true, options: true, variants: true, images: true };

export interface Existing {
  readonly variantIds: ReadonlySet<number>;
  readonly imageIds: ReadonlySet<number>;
}

/** A JSON object (not an array, not null). Values the schema refused can be anything: rules read only what they can. */
export const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** A list the body gave, or an empty one where it gave something else (the schema has already said so). */
export const asList = <T>(value: unknown): T[] => (Array.isArray(value) ? value : []);

const add = (errors: FieldErrors, field: string, message: string) => {
  const list = (errors[field] ??= []);
  if (!list.includes(message)) list.push(message);
};

/** Whether the schema already refused the field or something inside it. */
const refused = (known: FieldErrors, field: string) => Object.keys(known).some((key) => key === field || key.startsWith(`${field}.`));

export function checkProduct(candidate: Candidate, given: Given, existing: Existing, known: FieldErrors): FieldErrors {
  const errors: FieldErrors = {};
  if (given.currency && !refused(known, 'currency') && !isCurrency(candidate.currency)) {
    add(errors, 'currency', 'The currency must be an ISO 4217 code, such as USD or EUR.');
  }
  // A list the schema refused as a whole (not an array, too long) is not checked; one with a bad element still is.
  if (given.options && !known.options) checkOptions(candidate.options, errors);
  // Variants are checked against the options only when every option is well formed.
  const optionsOk = !given.options || (!refused(known, 'options') && !refused(errors, 'options'));
  if (given.variants && !known.variants) {
    checkVariants(candidate, existing, known, errors, optionsOk);
  } else if (given.options && optionsOk && !given.variants) {
    // New options with the stored variants: they must still fit, or the variants must be given too.
    const problem = candidate.variants.some((v) => variantProblem(candidate, v) !== null);
    if (problem || duplicateCombination(candidate) !== null) {
      add(errors, 'options', 'The options no longer fit the variants: give the variants with the options.');
    }
  }
  if (given.images && !known.images) {
    candidate.images.forEach((image, i) => {
      if (!isObject(image)) return;
      if (image.id !== undefined && !existing.imageIds.has(image.id)) add(errors, `images.${i}.id`, 'The selected id is invalid.');
      if (image.id === undefined && image.url === undefined) add(errors, `images.${i}.url`, 'The url field is required.');
      if (typeof image.url === 'string' && !refused(known, `images.${i}.url`) && !isWellFormedHttpUrl(image.url))
        add(errors, `images.${i}.url`, 'The url must be a well-formed http or https URL, such as https://example.com/photo.jpg.');
    });
  }
  return errors;
}

/**
 * Whether a URL the schema's pattern let through (http or https, a host part, no space) also parses, with a host:
 * the pattern alone takes `http://[::1` or `http://host:port`, which no platform or browser can fetch.
 */
function isWellFormedHttpUrl(raw: string): boolean {
  if (!URL.canParse(raw)) return false;
  const url = new URL(raw);
  return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
}

function checkOptions(options: readonly ProductOption[], errors: FieldErrors): void {
  const names = new Set<string>();
  options.forEach((option, i) => {
    if (!isObject(option) || typeof option.name !== 'string' || !Array.isArray(option.values)) return;
    const name = option.name.trim().toLowerCase();
    if (names.has(name)) add(errors, `options.${i}.name`, 'The option name is given twice.');
    names.add(name);
    const values = new Set<string>();
    option.values.forEach((value, j) => {
      if (values.has(value)) add(errors, `options.${i}.values.${j}`, 'The value is given twice.');
      values.add(value);
    });
  });
}

function checkVariants(candidate: Candidate, existing: Existing, known: FieldErrors, errors: FieldErrors, optionsKnown: boolean): void {
  const { options, variants } = candidate;
  if (options.length === 0 && variants.length > 1) add(errors, 'variants', 'A product without options has exactly one variant.');
  const skus = new Map<string, number>();
  const ids = new Set<number>();
  variants.forEach((variant, i) => {
    const at = `variants.${i}`;
    if (!isObject(variant)) return;
    if (typeof variant.sku === 'string' && !refused(known, `${at}.sku`)) {
      if (skus.has(variant.sku)) add(errors, `${at}.sku`, `The sku is also given to variant ${skus.get(variant.sku)}.`);
      else skus.set(variant.sku, i);
    }
    if (typeof variant.price === 'string' && !refused(known, `${at}.price`) && Number(variant.price) <= 0)
      add(errors, `${at}.price`, 'The price must be greater than 0.');
    if (typeof variant.id === 'number') {
      if (!existing.variantIds.has(variant.id) || ids.has(variant.id)) add(errors, `${at}.id`, 'The selected id is invalid.');
      ids.add(variant.id);
    }
    if (optionsKnown && isObject(variant.option_values) && !refused(known, `${at}.option_values`)) {
      const problem = variantProblem(candidate, variant);
      if (problem) add(errors, `${at}.option_values`, problem);
    }
  });
  if (optionsKnown && !Object.keys({ ...known, ...errors }).some((k) => k.startsWith('variants.'))) {
    const twice = duplicateCombination(candidate);
    if (twice) add(errors, `variants.${twice[1]}.option_values`, `The same option values as variant ${twice[0]}.`);
  }
}

/** What is wrong with a variant's option values against the options, or null. */
function variantProblem(candidate: Candidate, variant: Candidate['variants'][number]): string | null {
  const names = Object.keys(variant.option_values);
  if (candidate.options.length === 0) return names.length > 0 ? 'A product without options has no option values.' : null;
  const missing = candidate.options.filter((o) => !(o.name in variant.option_values));
  if (missing.length > 0) return `A value of every option is required: ${missing.map((o) => o.name).join(', ')}.`;
  const unknown = names.filter((name) => !candidate.options.some((o) => o.name === name));
  if (unknown.length > 0) return `Not an option of the product: ${unknown.join(', ')}.`;
  const unlisted = candidate.options.filter((o) => !o.values.includes(variant.option_values[o.name]!));
  if (unlisted.length > 0) return `Not a listed value of ${unlisted.map((o) => o.name).join(', ')}.`;
  return null;
}

/** The first two variants naming the same combination of option values, or null. */
function duplicateCombination(candidate: Candidate): [number, number] | null {
  if (candidate.options.length === 0) return null;
  const seen = new Map<string, number>();
  for (const [i, variant] of candidate.variants.entries()) {
    if (!isObject(variant) || !isObject(variant.option_values)) continue;
    const key = JSON.stringify(candidate.options.map((o) => variant.option_values[o.name] ?? null));
    if (seen.has(key)) return [seen.get(key)!, i];
    seen.set(key, i);
  }
  return null;
}
