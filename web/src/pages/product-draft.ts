/**
 * The product editor's state and its pure rules (DESIGN §9): the variant grid follows the options, and a draft becomes
 * the body of POST /products or PATCH /products/{id}, with ids kept so variants and images keep their identity.
 */
import type { paths } from '../api/schema';

export type Product = paths['/api/v1/products/{product_id}']['get']['responses'][200]['content']['application/json']['data'];
export type ProductBody = NonNullable<paths['/api/v1/products']['post']['requestBody']>['content']['application/json'];

/** DESIGN §9's limits the editor shows before the server would refuse. */
export const OPTIONS_MAX = 3;
export const IMAGES_MAX = 10;
export const TAGS_MAX = 13;

export interface OptionDraft {
  key: string;
  name: string;
  values: string[];
}

/** A variant row; `values[k]` is its value of option k, undefined for an option added since (it takes the first value). */
export interface VariantDraft {
  key: string;
  id?: number;
  values: (string | undefined)[];
  sku: string;
  price: string;
  quantity: string;
  barcode: string;
}

export interface ImageDraft {
  key: string;
  id?: number;
  url: string;
  alt: string;
  /** A file Storelink holds; false for an image given by URL (shown as such: Etsy and TikTok Shop take files only). */
  uploaded: boolean;
}

export const PACKAGE_FIELDS = [
  { name: 'weight_grams', label: 'Weight (g)' },
  { name: 'length_mm', label: 'Length (mm)' },
  { name: 'width_mm', label: 'Width (mm)' },
  { name: 'height_mm', label: 'Height (mm)' },
] as const;
export type PackageField = (typeof PACKAGE_FIELDS)[number]['name'];

export interface Draft {
  title: string;
  description: string;
  brand: string;
  currency: string;
  tags: string[];
  package: Record<PackageField, string>;
  options: OptionDraft[];
  variants: VariantDraft[];
  images: ImageDraft[];
}

let keys = 0;
/** A key for a row React keeps across reorders; ids are not enough, new rows have none. */
export const newKey = () => `k${++keys}`;

export function newVariant(values: (string | undefined)[], price = ''): VariantDraft {
  return { key: newKey(), values, sku: '', price, quantity: '0', barcode: '' };
}

/** The editor's state of a stored product, or of a new one (no options, one empty variant). */
export function draftOf(product: Product | null, currency = 'USD'): Draft {
  if (!product) {
    return {
      title: '',
      description: '',
      brand: '',
      currency,
      tags: [],
      package: { weight_grams: '', length_mm: '', width_mm: '', height_mm: '' },
      options: [],
      variants: [newVariant([])],
      images: [],
    };
  }
  const pkg = product.package;
  return {
    title: product.title,
    description: product.description,
    brand: product.brand ?? '',
    currency: product.currency,
    tags: [...product.tags],
    package: {
      weight_grams: pkg?.weight_grams == null ? '' : String(pkg.weight_grams),
      length_mm: pkg?.length_mm == null ? '' : String(pkg.length_mm),
      width_mm: pkg?.width_mm == null ? '' : String(pkg.width_mm),
      height_mm: pkg?.height_mm == null ? '' : String(pkg.height_mm),
    },
    options: product.options.map((o) => ({ key: newKey(), name: o.name, values: [...o.values] })),
    variants: product.variants.map((v) => ({
      key: newKey(),
      id: v.id,
      values: product.options.map((o) => v.option_values[o.name]),
      sku: v.sku,
      price: v.price,
      quantity: String(v.quantity),
      barcode: v.barcode ?? '',
    })),
    images: product.images.map((i) => ({ key: newKey(), id: i.id, url: i.url, alt: i.alt ?? '', uploaded: i.uploaded })),
  };
}

/** Every combination of the options' values, in order; an option without values yet is left open (undefined). */
export function combinations(options: OptionDraft[]): (string | undefined)[][] {
  return options.reduce<(string | undefined)[][]>(
    (combos, option) => combos.flatMap((combo) => (option.values.length ? option.values : [undefined]).map((value) => [...combo, value])),
    [[]],
  );
}

const fits = (row: VariantDraft, combo: (string | undefined)[]) =>
  combo.every((value, k) => value === undefined || row.values[k] === undefined || row.values[k] === value);
const likeness = (row: VariantDraft, combo: (string | undefined)[]) =>
  combo.filter((value, k) => value !== undefined && row.values[k] === value).length;

/**
 * The variant rows for the options: one per combination. A row that fits a combination keeps its id, sku, price,
 * quantity and barcode (an exact fit first, then one from before an option was added or removed); a new combination
 * takes the price of the row closest to it (most values in common) and no sku; rows whose combination is gone are dropped.
 */
export function followOptions(options: OptionDraft[], rows: VariantDraft[]): VariantDraft[] {
  const combos = combinations(options);
  const free = [...rows];
  const claimed = new Map<number, VariantDraft>();
  // Exact fits first, so a row that is exactly a combination is never taken by a looser one.
  combos.forEach((combo, c) => {
    const i = free.findIndex((row) => row.values.length === combo.length && row.values.every((value, k) => value === combo[k]));
    if (i >= 0) claimed.set(c, free.splice(i, 1)[0]!);
  });
  return combos.map((combo, c) => {
    let row = claimed.get(c);
    if (!row) {
      const i = free.findIndex((candidate) => fits(candidate, combo));
      if (i >= 0) row = free.splice(i, 1)[0]!;
    }
    if (row) return { ...row, values: combo };
    const closest = [...rows].sort((a, b) => likeness(b, combo) - likeness(a, combo))[0];
    return newVariant(combo, closest?.price ?? '');
  });
}

/** Option k removed: its column leaves every row, then the grid follows (rows that differed only by it merge). */
export function withoutOption(draft: Draft, k: number): Draft {
  const options = draft.options.filter((_, i) => i !== k);
  const rows = draft.variants.map((row) => ({ ...row, values: row.values.filter((_, i) => i !== k) }));
  return { ...draft, options, variants: followOptions(options, rows) };
}

/** The options changed (a value added or removed, an option added): the grid follows. */
export function withOptions(draft: Draft, options: OptionDraft[]): Draft {
  const rows = draft.variants.map((row) => ({ ...row, values: options.map((_, k) => row.values[k]) }));
  return { ...draft, options, variants: followOptions(options, rows) };
}

/** "Red / S", or "Default" for the one variant of a product without options. */
export const variantLabel = (row: VariantDraft) => row.values.filter((v) => v !== undefined).join(' / ') || 'Default';

/** Comma-separated or one-per-line text as trimmed values, without empties and repeats. */
export function splitValues(text: string): string[] {
  return [...new Set(text.split(/[,\n]/).map((v) => v.trim()))].filter((v) => v !== '');
}

// An empty number field is sent as null so the server names the field; the UI never guesses a number.
const integerOrNull = (text: string) => (text.trim() === '' ? null : Number(text.trim())) as number;

/** The body of POST /products or PATCH /products/{id}: every list whole, ids given so kept rows keep them. */
export function bodyOf(draft: Draft): ProductBody {
  const names = draft.options.map((o) => o.name.trim());
  const pkg = draft.package;
  const noPackage = PACKAGE_FIELDS.every((f) => pkg[f.name].trim() === '');
  return {
    title: draft.title.trim(),
    description: draft.description,
    brand: draft.brand.trim() === '' ? null : draft.brand.trim(),
    currency: draft.currency,
    tags: draft.tags,
    options: draft.options.map((o, k) => ({ name: names[k]!, values: o.values })),
    variants: draft.variants.map((row) => ({
      ...(row.id === undefined ? {} : { id: row.id }),
      sku: row.sku.trim(),
      option_values: Object.fromEntries(names.map((name, k) => [name, row.values[k] ?? ''])),
      price: row.price.trim(),
      quantity: integerOrNull(row.quantity),
      barcode: row.barcode.trim() === '' ? null : row.barcode.trim(),
    })),
    images: draft.images.map((image) => ({
      ...(image.id === undefined ? { url: image.url } : { id: image.id }),
      alt: image.alt.trim() === '' ? null : image.alt.trim(),
    })),
    package: noPackage
      ? null
      : {
          weight_grams: integerOrNull(pkg.weight_grams),
          length_mm: integerOrNull(pkg.length_mm),
          width_mm: integerOrNull(pkg.width_mm),
          height_mm: integerOrNull(pkg.height_mm),
        },
  };
}

/** Moves the item at `from` to `to`, keeping the others in order. */
export function move<T>(items: T[], from: number, to: number): T[] {
  const next = [...items];
  const [item] = next.splice(from, 1);
  next.splice(to, 0, item!);
  return next;
}

/** The id of the input a 422 key belongs to, so the error summary can link to it (`variants.2.sku`). */
export function fieldIdOf(key: string): string {
  const [head, index, field] = key.split('.');
  if (head === 'variants' && index !== undefined) {
    return `product-variants-${index}-${['price', 'quantity', 'barcode'].includes(field ?? '') ? field : 'sku'}`;
  }
  if (head === 'options' && index !== undefined) return `product-options-${index}-${field === 'name' ? 'name' : 'values'}`;
  if (head === 'images' && index !== undefined) return `product-images-${index}-alt`;
  if (head === 'package') return `product-package-${index ?? 'weight_grams'}`;
  if (head === 'options' || head === 'variants' || head === 'images') return `product-${head}-heading`;
  return `product-${head}`;
}

const FIELD_NAMES: Record<string, string> = {
  title: 'Title',
  description: 'Description',
  brand: 'Brand',
  currency: 'Currency',
  tags: 'Tags',
  options: 'Options',
  variants: 'Variants',
  images: 'Images',
  package: 'Package',
  sku: 'SKU',
  price: 'Price',
  quantity: 'Quantity',
  barcode: 'Barcode',
  option_values: 'option values',
  weight_grams: 'weight',
  length_mm: 'length',
  width_mm: 'width',
  height_mm: 'height',
  name: 'name',
  values: 'values',
  url: 'URL',
  alt: 'alt text',
};

/** A 422 key in words: `variants.2.sku` is "Variant Red / M: SKU". */
export function describeKey(key: string, draft: Draft): string {
  const [head = '', index, field, sub] = key.split('.');
  const name = (part: string | undefined) => (part === undefined ? '' : (FIELD_NAMES[part] ?? part));
  if (head === 'variants' && index !== undefined) {
    const row = draft.variants[Number(index)];
    return `Variant ${row ? variantLabel(row) : Number(index) + 1}${field ? `: ${name(field)}` : ''}`;
  }
  if (head === 'options' && index !== undefined) {
    const option = draft.options[Number(index)];
    const title = `Option ${option?.name.trim() || Number(index) + 1}`;
    if (field === 'values' && sub !== undefined) return `${title}: value “${option?.values[Number(sub)] ?? Number(sub) + 1}”`;
    return field ? `${title}: ${name(field)}` : title;
  }
  if (head === 'images' && index !== undefined) return `Image ${Number(index) + 1}${field ? `: ${name(field)}` : ''}`;
  if (head === 'tags' && index !== undefined) return `Tag “${draft.tags[Number(index)] ?? Number(index) + 1}”`;
  if (head === 'package' && index !== undefined) return `Package ${name(index)}`;
  return name(head) || key;
}

/**
 * The server's messages, with those about a field left empty said as what to do ("Enter a price, such as 19.99."):
 * its wording ("The variants 3 price field format is invalid.") counts from 0 and names no variant the user can see.
 */
export function plainErrors(errors: Record<string, string[]>, draft: Draft): Record<string, string[]> {
  const blank = (text: string | undefined) => text !== undefined && text.trim() === '';
  const variantField: Record<string, string> = {
    sku: 'Enter a SKU: letters, digits, dots, dashes or underscores.',
    price: 'Enter a price, such as 19.99.',
    quantity: 'Enter a quantity: 0 or more.',
  };
  return Object.fromEntries(
    Object.entries(errors).map(([key, messages]) => {
      const [head, index, field] = key.split('.');
      const i = Number(index);
      if (key === 'title' && blank(draft.title)) return [key, ['Enter a title.']];
      if (head === 'variants' && field && variantField[field] && blank(draft.variants[i]?.[field as 'sku' | 'price' | 'quantity']))
        return [key, [variantField[field]!]];
      if (head === 'options' && field === 'name' && blank(draft.options[i]?.name)) return [key, ['Name the option, such as Color.']];
      if (head === 'options' && key === `options.${index}.values` && draft.options[i]?.values.length === 0)
        return [key, ['Add at least one value.']];
      return [key, messages];
    }),
  );
}
