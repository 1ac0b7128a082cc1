/**
 * The catalogue as CSV (DESIGN §9; docs/catalogue.md, "CSV"): one row per variant, rows sharing a `handle` being one
 * product whose columns are on its first row, as in Shopify's product CSV. Pure: the export's header and a product's
 * rows; for the import, a header read, rows grouped by handle with their line numbers, a group made a product input,
 * and the input's field paths led back to the `line N.column` cells they came from.
 */

import { compile } from 'html-to-text';
import {
  ATTRIBUTE_KEY_LENGTH_MAX,
  ATTRIBUTES_MAX,
  handleFrom,
  type ImageInput,
  PRICE_PATTERN,
  PRODUCT_IMAGES_MAX,
  PRODUCT_TAGS_MAX,
  PRODUCT_VARIANTS_MAX,
  type Product,
  type ProductInput,
  type ProductOption,
  type ProductPackage,
  type VariantInput,
} from '../../domain/index.js';
import type { FieldErrors } from '../../errors.js';

export const CSV_COLUMNS = [
  'handle',
  'title',
  'description',
  'brand',
  'tags',
  'currency',
  'option1_name',
  'option1_value',
  'option2_name',
  'option2_value',
  'option3_name',
  'option3_value',
  'sku',
  'price',
  'quantity',
  'barcode',
  'weight_grams',
  'length_mm',
  'width_mm',
  'height_mm',
  'image_urls',
] as const;
/**
 * Columns the import reads beyond the export's: Shopify's product CSV's HTML body, and its images, one a row, with
 * their position and alt text (`Image Src`, `Image Position`, `Image Alt Text`), and its weight a variant (`Variant Grams`).
 */
const IMPORT_ONLY_COLUMNS = ['body_html', 'image_src', 'image_position', 'image_alt', 'variant_grams'] as const;
export type CsvColumn = (typeof CSV_COLUMNS)[number] | (typeof IMPORT_ONLY_COLUMNS)[number];
const KNOWN_COLUMNS: readonly string[] = [...CSV_COLUMNS, ...IMPORT_ONLY_COLUMNS];
/**
 * Shopify's names of the catalogue's columns (its product CSV, by columnKey); `Handle`, `Title`, `Tags` and
 * `Option1 Name` … `Option3 Value` are the catalogue's own already. Its other columns (`Published`, `Variant Compare At
 * Price`, …) are ignored and named.
 */
const SHOPIFY_COLUMNS: Readonly<Record<string, CsvColumn>> = {
  'body_(html)': 'body_html',
  vendor: 'brand',
  variant_sku: 'sku',
  variant_price: 'price',
  variant_inventory_qty: 'quantity',
  variant_barcode: 'barcode',
  variant_grams: 'variant_grams',
  image_src: 'image_src',
  image_position: 'image_position',
  image_alt_text: 'image_alt',
};
export const ATTRIBUTE_PREFIX = 'attribute.';
/**
 * The one column every file needs: a stock file (`sku,quantity`) changes the products its skus belong to. A file that
 * makes products needs `handle` (rows with one handle are one product), `title` and `price` too (docs/catalogue.md).
 */
export const REQUIRED_COLUMNS: readonly CsvColumn[] = ['sku'];
/** The largest body the import reads; beyond it the answer is 413. */
export const CSV_IMPORT_BYTES_MAX = 50 * 1024 * 1024;
/** csv-parse's options: a UTF-8 byte order mark (Excel writes one) is dropped; rows may be short (missing cells are empty). */
export const CSV_PARSE_OPTIONS = { bom: true, relax_column_count: true } as const;

const SLOTS = [0, 1, 2] as const;
const MEASURES = ['weight_grams', 'length_mm', 'width_mm', 'height_mm'] as const;
/** Columns of the product rather than of one variant: on its first row, repeated or left empty on its others. */
const PRODUCT_COLUMNS: readonly CsvColumn[] = [
  'title',
  'description',
  'brand',
  'tags',
  'currency',
  'option1_name',
  'option2_name',
  'option3_name',
  ...MEASURES,
  'image_urls',
  'body_html',
];
const nameColumn = (slot: number) => `option${slot + 1}_name` as CsvColumn;
const valueColumn = (slot: number) => `option${slot + 1}_value` as CsvColumn;

/**
 * A cell a spreadsheet would run as a formula (CWE-1236; OWASP "CSV Injection"): its first character `=`, `+`, `-`,
 * `@`, a tab or a carriage return, after any apostrophes (so the escape below can be undone exactly).
 */
const FORMULA_START = /^'*[=+\-@\t\r]/;
/** A cell that is a number and nothing else (`-5`, `+1.50`): a spreadsheet reads it as that number, which runs nothing. */
const PLAIN_NUMBER = /^[+-]?\d+(\.\d+)?$/;

/**
 * A cell as the export writes it: one that would start a formula gets a leading apostrophe, which spreadsheets read as
 * "this is text" and do not show. A cell already starting with apostrophes before a formula character gets one more,
 * so that unescapeCell gives every cell back exactly.
 */
export const escapeCell = (cell: string): string => (FORMULA_START.test(cell) && !PLAIN_NUMBER.test(cell) ? `'${cell}` : cell);

/** A cell as the import reads it: escapeCell undone (one apostrophe dropped where a formula character follows them). */
export const unescapeCell = (cell: string): string => (cell.startsWith("'") && FORMULA_START.test(cell) ? cell.slice(1) : cell);

/** csv-stringify's options for the export: every cell, the header's included, through escapeCell. */
export const CSV_STRINGIFY_OPTIONS = { cast: { string: escapeCell } } as const;

/** The export's handle of a product: its own (DESIGN §9). */
export const handleOf = (product: { handle: string }) => product.handle;
/** How the export writes tags; a cell that reads exactly so keeps the stored tags (a tag may hold a comma). */
export const tagsCell = (tags: readonly string[]) => tags.join(', ');

/** The export's header: the columns, then `attribute.<key>` for each key, keys in code-unit order. */
export function csvHeader(attributeKeys: readonly string[]): string[] {
  return [...CSV_COLUMNS, ...attributeKeys.map((key) => ATTRIBUTE_PREFIX + key)];
}

/** The attribute keys of an export's header: each once, in code-unit order. */
export const sortedKeys = (keys: Iterable<string>): string[] => [...new Set(keys)].sort();

/** A product's rows, one per variant; the product's own columns are on the first row only. */
export function productRows(product: Product, attributeKeys: readonly string[]): string[][] {
  const pack = product.package;
  return product.variants.map((variant, i) => {
    const own = (value: string) => (i === 0 ? value : '');
    const options = SLOTS.flatMap((slot) => {
      const option = product.options[slot];
      return option ? [own(option.name), variant.option_values[option.name] ?? ''] : ['', ''];
    });
    return [
      handleOf(product),
      own(product.title),
      own(product.description),
      own(product.brand ?? ''),
      own(tagsCell(product.tags)),
      own(product.currency),
      ...options,
      variant.sku,
      variant.price,
      String(variant.quantity),
      variant.barcode ?? '',
      ...MEASURES.map((measure) => own(pack?.[measure] == null ? '' : String(pack[measure]))),
      own(product.images.map((image) => image.url).join(' ')),
      ...attributeKeys.map((key) => own(Object.hasOwn(product.attributes, key) ? product.attributes[key]! : '')),
    ];
  });
}

/** Where the file's columns are. */
export interface CsvHeader {
  /** Each column's name: the catalogue's own for a column it knows, the file's for the others. */
  readonly names: readonly string[];
  readonly index: ReadonlyMap<string, number>;
  readonly attributeKeys: readonly string[];
  /** The file's columns the catalogue does not know, as the file names them: left out of the import. */
  readonly ignored: readonly string[];
}

/**
 * A column's name as the import matches it: without regard to case, surrounding spaces, or the spaces and hyphens
 * between words (`Option1 Name` is option1_name, `SKU` is sku).
 */
export const columnKey = (name: string) =>
  name
    .trim()
    .toLowerCase()
    .replace(/[\s-]+/g, '_');

const at = (line: number, column: string) => `line ${line}.${column}`;

export function addError(errors: FieldErrors, key: string, message: string): void {
  const list = (errors[key] ??= []);
  if (!list.includes(message)) list.push(message);
}

/**
 * The header row (line 1); `usable` when every required column is there. A column the catalogue does not know is
 * ignored (and named in the answer), not refused: a file from elsewhere carries columns of its own.
 */
export function readHeader(cells: readonly string[]): { header: CsvHeader; errors: FieldErrors; usable: boolean } {
  const errors: FieldErrors = {};
  const index = new Map<string, number>();
  const attributeKeys: string[] = [];
  const ignored: string[] = [];
  // An attribute key is taken as it is after its prefix (it may end with a space); other names by columnKey.
  const isAttribute = (cell: string) => cell.trimStart().toLowerCase().startsWith(ATTRIBUTE_PREFIX);
  const names = cells.map((cell) => {
    if (isAttribute(cell)) return ATTRIBUTE_PREFIX + cell.trimStart().slice(ATTRIBUTE_PREFIX.length);
    const key = SHOPIFY_COLUMNS[columnKey(cell)] ?? columnKey(cell);
    return KNOWN_COLUMNS.includes(key) ? key : cell.trim();
  });
  names.forEach((name, i) => {
    const key = name.startsWith(ATTRIBUTE_PREFIX) ? name.slice(ATTRIBUTE_PREFIX.length) : null;
    if (name === '') addError(errors, at(1, `column ${i + 1}`), 'The column has no name: name it or delete it.');
    else if (index.has(name)) addError(errors, at(1, name), 'The column is given twice.');
    else if (key === null && !KNOWN_COLUMNS.includes(name)) {
      if (!ignored.includes(name)) ignored.push(name);
    } else if (key !== null && (key.length === 0 || key.length > ATTRIBUTE_KEY_LENGTH_MAX))
      addError(errors, at(1, name), `An attribute key has 1 to ${ATTRIBUTE_KEY_LENGTH_MAX} characters.`);
    else {
      index.set(name, i);
      if (key !== null) attributeKeys.push(key);
    }
  });
  const missing = REQUIRED_COLUMNS.filter((column) => !index.has(column));
  for (const column of missing) addError(errors, at(1, column), `The ${column} column is required.`);
  return { header: { names, index, attributeKeys, ignored }, errors, usable: missing.length === 0 };
}

/** A cell of a product column, and the line that gave it. */
interface ProductCell {
  readonly value: string;
  readonly line: number;
}

/** The rows of one handle: one product. */
export interface CsvGroup {
  /** The rows' handle; in a file without a handle column, the sku of its one row until groupBySku gathers a product's rows. */
  readonly handle: string;
  readonly line: number;
  /** Product and attribute columns: the first non-empty cell of each. */
  readonly product: Map<string, ProductCell>;
  readonly rows: { readonly line: number; readonly cells: readonly string[] }[];
}

/** A product column's cell of one of the product's rows: the first non-empty one counts, a different one is an error. */
function takeProductCell(group: CsvGroup, column: string, cell: ProductCell, errors: FieldErrors): void {
  const first = group.product.get(column);
  if (!first) group.product.set(column, cell);
  else if (first.value !== cell.value)
    addError(
      errors,
      at(cell.line, column),
      `The ${column} differs from line ${first.line} of the same product: repeat it or leave it empty.`,
    );
}

/** Takes the data rows one at a time, grouping them by handle, with what is wrong with a row by itself. */
export function createRowReader(header: CsvHeader) {
  const groups = new Map<string, CsvGroup>();
  const errors: FieldErrors = {};
  const ownColumns = [...PRODUCT_COLUMNS, ...header.attributeKeys.map((key) => ATTRIBUTE_PREFIX + key)].filter((c) => header.index.has(c));
  const handleAt = header.index.get('handle');
  const skuAt = header.index.get('sku')!;
  return {
    groups,
    errors,
    add(line: number, cells: readonly string[]): void {
      if (cells.every((cell) => cell === '')) return;
      if (cells.slice(header.names.length).some((cell) => cell !== ''))
        addError(errors, at(line, 'row'), `The row has ${cells.length} cells; the header names ${header.names.length} columns.`);
      cells.forEach((cell, i) => {
        if (cell.includes('\u0000') && i < header.names.length)
          addError(errors, at(line, header.names[i]!), 'The cell must not contain a NUL character.');
      });
      // Without a handle column each row is its sku's, gathered into its product once the skus are looked up.
      const handle = handleAt === undefined ? (cells[skuAt] ?? '') : (cells[handleAt] ?? '');
      if (handle === '') {
        if (handleAt === undefined)
          addError(errors, at(line, 'sku'), 'The sku field is required: without a handle column the sku names the product.');
        else addError(errors, at(line, 'handle'), 'The handle field is required: rows with the same handle are one product.');
        return;
      }
      let group = groups.get(handle);
      if (!group) groups.set(handle, (group = { handle, line, product: new Map(), rows: [] }));
      for (const column of ownColumns) {
        const value = cells[header.index.get(column)!] ?? '';
        if (value !== '') takeProductCell(group, column, { value, line }, errors);
      }
      group.rows.push({ line, cells });
    },
  };
}

/**
 * The rows of a file without a handle column (a stock file) gathered by the product their skus belong to (`owners`:
 * sku → product id), in the file's order; a sku no product has is an error on its cell, since a new product needs a
 * handle to gather its rows and a title.
 */
export function groupBySku(groups: readonly CsvGroup[], owners: ReadonlyMap<string, number>) {
  const errors: FieldErrors = {};
  const byOwner = new Map<number, CsvGroup>();
  for (const group of groups) {
    const owner = owners.get(group.handle);
    if (owner === undefined) {
      for (const row of group.rows)
        addError(errors, at(row.line, 'sku'), 'No product has this sku: rows of a new product need a handle and a title column.');
      continue;
    }
    const gathered = byOwner.get(owner);
    if (!gathered) {
      byOwner.set(owner, { ...group, product: new Map(group.product), rows: [...group.rows] });
      continue;
    }
    gathered.rows.push(...group.rows);
    for (const [column, cell] of group.product) takeProductCell(gathered, column, cell, errors);
  }
  return { groups: [...byOwner.values()], errors };
}

/**
 * Which stored product each group updates, by its skus (`owners`: sku → product id); null creates one. A group whose
 * skus belong to two products, two groups reaching one product, or a sku on two groups are errors on the sku cell.
 */
export function matchGroups(
  groups: readonly CsvGroup[],
  header: CsvHeader,
  owners: ReadonlyMap<string, number>,
  handleOwners: ReadonlyMap<string, number> = new Map(),
) {
  const errors: FieldErrors = {};
  // Where each new product's handle (as stored: handleFrom) is first given.
  const newHandles = new Map<string, number>();
  const skuAt = header.index.get('sku')!;
  // Where each sku is first given; a sku given twice in one group is the product rules' to report.
  const skuLines = new Map<string, { line: number; group: CsvGroup }>();
  const claimed = new Map<number, number>();
  const matches = groups.map((group): number | null => {
    let match: { id: number; line: number } | null = null;
    for (const { line, cells } of group.rows) {
      const sku = cells[skuAt] ?? '';
      const earlier = skuLines.get(sku);
      if (sku !== '' && earlier && earlier.group !== group)
        addError(errors, at(line, 'sku'), `The sku is also given on line ${earlier.line}.`);
      if (!earlier) skuLines.set(sku, { line, group });
      const owner = owners.get(sku);
      if (owner === undefined) continue;
      if (!match) match = { id: owner, line };
      else if (owner !== match.id)
        addError(
          errors,
          at(line, 'sku'),
          `The sku has already been taken by another product than the one line ${match.line}'s sku belongs to.`,
        );
    }
    // Matched by sku first, then by handle (DESIGN §9); a sku of another product than the handle's is never moved.
    const named = header.index.has('handle') ? handleOwners.get(handleFrom(group.handle)) : undefined;
    if (match && named !== undefined && named !== match.id) {
      addError(errors, at(match.line, 'sku'), `The sku belongs to another product than the one the handle ${group.handle} names.`);
      return null;
    }
    if (!match && named !== undefined) match = { id: named, line: group.line };
    if (!match) {
      const handle = handleFrom(group.handle);
      const first = newHandles.get(handle);
      if (first !== undefined && header.index.has('handle'))
        addError(
          errors,
          at(group.line, 'handle'),
          `The handle is line ${first}'s as Storelink stores it (${handle}): give each product a handle of its own.`,
        );
      else newHandles.set(handle, group.line);
      return null;
    }
    const other = claimed.get(match.id);
    if (other !== undefined) {
      addError(errors, at(match.line, 'sku'), `The sku belongs to the product of line ${other}: give its rows one handle.`);
      return null;
    }
    claimed.set(match.id, match.line);
    return match.id;
  });
  return { matches, errors };
}

/** A group made a product input, with the problems of its cells by the input's field paths. */
export interface BuiltProduct {
  readonly input: ProductInput & {
    handle: string;
    options: ProductOption[];
    variants: (VariantInput & { option_values: Record<string, string> })[];
  };
  /** The line of each of the input's variants: null for a stored variant the file does not mention, kept as it is. */
  readonly lines: readonly (number | null)[];
  /** The stored variants the file does not mention and `remove_missing` drops, by sku. */
  readonly removed: readonly string[];
  readonly errors: FieldErrors;
  /** Problems found on a cell directly, by `line N.column`. */
  readonly cellErrors: FieldErrors;
  /** The `line N.column` cell of a field path of the input, and the message said of that cell. */
  locate(path: string, message: string): [key: string, message: string];
}

const WHOLE = /^-?[0-9]+$/;

/**
 * The product input of a group. `current` is the stored product the group updates: a column the file does not have
 * keeps that field as stored, a variant with a stored sku keeps its id, an image with a stored url its id and alt, an
 * option whose values the rows name are all stored keeps its stored values in their order, and a cell that reads as the
 * export writes the stored value keeps that value (tags with a comma, attributes of empty text).
 *
 * A stored variant the rows do not mention is kept as it is (a stock file names the skus it counts, not the catalogue),
 * the stored variants in their order with the file's new ones after them; with `removeMissing` the rows are the whole
 * product, in their order, and the variants they leave out go. A file without a `currency` column makes its products in
 * `how.currency` and keeps the stored ones' as they are.
 */
export function buildProduct(
  group: CsvGroup,
  header: CsvHeader,
  current: Product | null,
  how: { removeMissing: boolean; currency: string } = { removeMissing: false, currency: 'USD' },
): BuiltProduct {
  const { removeMissing } = how;
  const errors: FieldErrors = {};
  const cellErrors: FieldErrors = {};
  const fail = (path: string, message: string) => addError(errors, path, message);
  const given = (column: string) => header.index.has(column);
  const own = (column: string) => (given(column) ? (group.product.get(column)?.value ?? '') : undefined);
  const cell = (row: CsvGroup['rows'][number], column: string) =>
    given(column) ? (row.cells[header.index.get(column)!] ?? '') : undefined;

  // A stock file leaves the stored product's title; a new product needs one.
  const title = own('title') ?? current?.title ?? '';
  if (title === '') fail('title', 'The title field is required.');
  const currency = own('currency') ?? current?.currency ?? how.currency;
  if (currency === '') fail('currency', 'The currency field is required.');
  const brand = own('brand');
  const tags = own('tags');
  const named = SLOTS.map((slot) => own(nameColumn(slot)) ?? current?.options[slot]?.name ?? '');
  // Shopify's rows of a product without variants name an option "Title" of value "Default Title": no option.
  const plainSlots = SLOTS.filter(
    (slot) => named[slot] === 'Title' && group.rows.every((row) => ['', 'Default Title'].includes(cell(row, valueColumn(slot)) ?? '')),
  );
  const names = named.map((name, slot) => (plainSlots.includes(slot as (typeof SLOTS)[number]) ? '' : name));
  const storedVariants = new Map(current?.variants.map((v) => [v.sku, v]));
  // Shopify's image rows (a handle and an image, nothing of a variant) add an image, not a variant.
  const variantRows = group.rows.filter((row) => !isImageRow(row, cell));

  const fromRows = variantRows.map((row, i) => {
    const sku = cell(row, 'sku')!;
    // A sku given twice keeps its variant on its first row only; the rules report the second.
    const stored = storedVariants.get(sku);
    storedVariants.delete(sku);
    const optionValues: [string, string][] = [];
    for (const slot of SLOTS) {
      const storedName = current?.options[slot]?.name;
      const given = plainSlots.includes(slot) ? '' : cell(row, valueColumn(slot));
      const value = given ?? (stored && storedName !== undefined ? (stored.option_values[storedName] ?? '') : '');
      if (value !== '' && names[slot] === '')
        addError(
          cellErrors,
          at(row.line, valueColumn(slot)),
          `A value of option ${slot + 1} is given, but the product has no ${nameColumn(slot)}.`,
        );
      if (value !== '' && names[slot] !== '') optionValues.push([names[slot]!, value]);
    }
    if (sku === '') fail(`variants.${i}.sku`, 'The sku field is required.');
    // A file without a price column (a stock file) keeps each stored price; a new variant needs one.
    const price = cell(row, 'price') ?? stored?.price ?? '';
    if (price === '') fail(`variants.${i}.price`, 'The price field is required.');
    else if (!PRICE_PATTERN.test(price))
      fail(`variants.${i}.price`, 'The price must be a number with at most two decimals, such as 19.99.');
    // Without a quantity column the stored stock stays, and a new variant starts with none.
    const counted = cell(row, 'quantity');
    const quantity = counted === undefined ? (stored?.quantity ?? 0) : wholeNumber(counted, `variants.${i}.quantity`, fail);
    const barcode = cell(row, 'barcode');
    return {
      ...(stored ? { id: stored.id } : {}),
      sku,
      option_values: Object.fromEntries(optionValues),
      price,
      quantity: quantity ?? 0,
      barcode: barcode === undefined ? (stored?.barcode ?? null) : barcode || null,
    };
  });
  // What the rows leave out of the stored product: kept, each value under its slot's name as the file names it.
  const unmentioned = [...storedVariants.values()];
  const kept = removeMissing
    ? []
    : unmentioned.map((stored) => {
        const optionValues: [string, string][] = [];
        for (const slot of SLOTS) {
          const storedName = current?.options[slot]?.name;
          const value = storedName === undefined ? '' : (stored.option_values[storedName] ?? '');
          if (value !== '' && names[slot] !== '') optionValues.push([names[slot]!, value]);
        }
        return {
          id: stored.id,
          sku: stored.sku,
          option_values: Object.fromEntries(optionValues),
          price: stored.price,
          quantity: stored.quantity,
          barcode: stored.barcode,
        };
      });
  // Stored variants in their order (each as its row has it), then the file's new ones; or the rows alone.
  const rowOf = new Map(fromRows.map((variant, i) => [variant, variantRows[i]!.line]));
  const mentioned = new Map(fromRows.filter((v) => v.id !== undefined).map((v) => [v.id!, v]));
  const keptById = new Map(kept.map((v) => [v.id, v]));
  const variants =
    removeMissing || !current
      ? fromRows
      : [
          ...current.variants.flatMap((stored) => mentioned.get(stored.id) ?? keptById.get(stored.id) ?? []),
          ...fromRows.filter((v) => v.id === undefined),
        ];
  const lines = variants.map((variant) => rowOf.get(variant) ?? null);
  if (variants.length > PRODUCT_VARIANTS_MAX) fail('variants', `A product has at most ${PRODUCT_VARIANTS_MAX} variants.`);

  const options: ProductOption[] = [];
  for (const slot of SLOTS) {
    const name = names[slot]!;
    if (name === '') continue;
    const used = [...new Set(variants.flatMap((v) => (Object.hasOwn(v.option_values, name) ? [v.option_values[name]!] : [])))];
    const stored = current?.options[slot];
    if (used.length === 0) fail(`options.${options.length}.values`, `Give a value of ${name} on every row of the product.`);
    options.push({ name, values: stored?.name === name && used.every((v) => stored.values.includes(v)) ? [...stored.values] : used });
  }

  const input = {
    title,
    // A stored product keeps its handle (matched by sku, a file does not rename it); a new one takes the file's.
    handle: current?.handle ?? handleFrom(group.handle),
    description: own('description') ?? textOf(own('body_html')) ?? current?.description ?? '',
    brand: brand === undefined ? (current?.brand ?? null) : brand || null,
    tags:
      tags === undefined ? [...(current?.tags ?? [])] : current && tags === tagsCell(current.tags) ? [...current.tags] : splitTags(tags),
    attributes: attributesOf(group, header, current),
    currency,
    options,
    variants,
    images: imagesOf(imageCells(group, own('image_urls'), cell), current),
    package: packageOf(own, current, fail, heaviest(variantRows, cell)),
  };
  if (input.tags.length > PRODUCT_TAGS_MAX) fail('tags', `A product has at most ${PRODUCT_TAGS_MAX} tags.`);
  if (input.images.length > PRODUCT_IMAGES_MAX) fail('images', `A product has at most ${PRODUCT_IMAGES_MAX} images.`);
  if (Object.keys(input.attributes).length > ATTRIBUTES_MAX) fail('attributes', `A product has at most ${ATTRIBUTES_MAX} attributes.`);
  // The options list only the slots that have a name: an option's index in the input is not always its slot.
  const slotOf = SLOTS.filter((slot) => names[slot] !== '');
  return {
    input,
    lines,
    removed: removeMissing ? unmentioned.map((v) => v.sku) : [],
    errors,
    cellErrors,
    locate: (path, message) => locateIn(group, header, input, lines, slotOf, path, message),
  };
}

function wholeNumber(text: string, path: string, fail: (path: string, message: string) => void): number | null {
  const label = path.split('.').at(-1)!;
  if (text === '') fail(path, `The ${label} field is required.`);
  else if (!WHOLE.test(text)) fail(path, `The ${label} must be a whole number.`);
  else return Number(text);
  return null;
}

const splitTags = (cell: string) =>
  cell
    .split(',')
    .map((tag) => tag.trim())
    .filter((tag) => tag !== '');

function attributesOf(group: CsvGroup, header: CsvHeader, current: Product | null): Record<string, string> {
  const attributes = new Map(Object.entries(current?.attributes ?? {}));
  for (const key of header.attributeKeys) {
    const value = group.product.get(ATTRIBUTE_PREFIX + key)?.value ?? '';
    // An empty cell is no attribute, unless the stored one is empty text: the export wrote it so.
    const storedEmpty = current !== null && Object.hasOwn(current.attributes, key) && current.attributes[key] === '';
    if (value !== '') attributes.set(key, value);
    else if (!storedEmpty) attributes.delete(key);
  }
  return Object.fromEntries(attributes);
}

/** A row's cell of a column, as buildProduct reads it: undefined when the file has no such column. */
type CellOf = (row: CsvGroup['rows'][number], column: string) => string | undefined;

/** Whether a row only adds an image (Shopify's image rows): an image, and no sku, price, quantity or option value. */
function isImageRow(row: CsvGroup['rows'][number], cell: CellOf): boolean {
  const empty = (column: string) => (cell(row, column) ?? '') === '';
  return !empty('image_src') && ['sku', 'price', 'quantity', 'barcode', ...SLOTS.map(valueColumn)].every(empty);
}

/**
 * The product's images as the file gives them: `image_urls` (space-separated, the export's), else one `image_src` a
 * row in `image_position` order (Shopify's, with `image_alt`); undefined when the file has neither column.
 */
function imageCells(group: CsvGroup, urls: string | undefined, cell: CellOf): { url: string; alt?: string }[] | undefined {
  if (urls !== undefined) return urls.split(/\s+/).flatMap((url) => (url === '' ? [] : [{ url }]));
  if (cell(group.rows[0]!, 'image_src') === undefined) return undefined;
  const found = group.rows.flatMap((row, order) => {
    const url = cell(row, 'image_src') ?? '';
    if (url === '') return [];
    const position = Number(cell(row, 'image_position') ?? '');
    return [{ url, alt: cell(row, 'image_alt') ?? '', at: Number.isFinite(position) && position > 0 ? position : order + 1_000 }];
  });
  // Each image once (Shopify repeats a variant's image on its row), in position order.
  const seen = new Set<string>();
  return found
    .sort((a, b) => a.at - b.at)
    .filter((image) => !seen.has(image.url) && seen.add(image.url))
    .map(({ url, alt }) => (alt === '' ? { url } : { url, alt }));
}

function imagesOf(given: { url: string; alt?: string }[] | undefined, current: Product | null): ImageInput[] {
  const stored = current?.images ?? [];
  if (given === undefined) return stored.map((image) => ({ id: image.id, url: image.url, alt: image.alt }));
  const used = new Set<number>();
  return given.map(({ url, alt }) => {
    const same = stored.find((image) => image.url === url && !used.has(image.id));
    if (!same) return alt === undefined ? { url } : { url, alt };
    used.add(same.id);
    return { id: same.id, url, alt: alt ?? same.alt };
  });
}

/**
 * An HTML body (Shopify's `Body (HTML)`) as the catalogue's plain text: paragraphs and list items kept, headings as
 * written, links' text only, images dropped. Compiled once: a file of 10,000 rows converts 10,000 bodies.
 */
const htmlToText = compile({
  wordwrap: false,
  selectors: [
    { selector: 'a', options: { ignoreHref: true } },
    { selector: 'img', format: 'skip' },
    ...['h1', 'h2', 'h3', 'h4', 'h5', 'h6'].map((selector) => ({ selector, options: { uppercase: false } })),
    { selector: 'table', format: 'dataTable', options: { uppercaseHeaderCells: false } },
  ],
});
const textOf = (html: string | undefined) => (html === undefined ? undefined : htmlToText(html).trim());

/**
 * The package of the product's measure cells, each kept as stored where the file has no column for it; an empty cell
 * is no measure (a weight alone is a package), none at all no package. Shopify's `Variant Grams` (a weight a variant)
 * is the package's weight when the file has no `weight_grams`: the heaviest variant's, so the package holds any of them.
 */
function packageOf(
  own: (column: string) => string | undefined,
  current: Product | null,
  fail: (path: string, message: string) => void,
  grams: string | undefined,
): ProductPackage | null {
  const stored = (measure: (typeof MEASURES)[number]) => {
    const value = current?.package?.[measure];
    return value == null ? '' : String(value);
  };
  const cells = MEASURES.map((measure) => own(measure) ?? (measure === 'weight_grams' ? grams : undefined) ?? stored(measure));
  if (cells.every((text) => text === '')) return null;
  const [weight_grams = null, length_mm = null, width_mm = null, height_mm = null] = MEASURES.map((measure, i) =>
    cells[i] === '' ? null : (wholeNumber(cells[i]!, `package.${measure}`, fail) ?? 1),
  );
  return { weight_grams, length_mm, width_mm, height_mm };
}

/** The heaviest of the rows' `variant_grams` (Shopify's), as text; undefined without the column or any weight above 0. */
function heaviest(rows: CsvGroup['rows'], cell: CellOf): string | undefined {
  const weights = rows.map((row) => Number(cell(row, 'variant_grams') ?? '')).filter((grams) => Number.isInteger(grams) && grams > 0);
  return weights.length > 0 ? String(Math.max(...weights)) : undefined;
}

/** The cell of a field path of a group's input (`variants.2.sku` → the third row's sku), and its message said of it. */
function locateIn(
  group: CsvGroup,
  header: CsvHeader,
  input: BuiltProduct['input'],
  lines: readonly (number | null)[],
  slotOf: readonly number[],
  path: string,
  message: string,
): [string, string] {
  const [head = '', index = '', field = ''] = path.split('.');
  const lineOf = (column: string) => group.product.get(column)?.line ?? group.line;
  // A kept variant has no row: its problem (an option the file adds that it has no value of) is the group's first line.
  const rowLine = (i: number) => lines[i] ?? group.line;
  const place = (line: number, column: string): [string, string] => [
    at(line, column),
    message
      .replace(path.replaceAll('_', ' ').replaceAll('.', ' '), () => column)
      .replace(/\bvariant (\d+)\b/, (_, n: string) => `line ${rowLine(Number(n))}`),
  ];
  switch (head) {
    case 'title':
    case 'description':
    case 'brand':
    case 'currency':
    case 'tags':
      return place(lineOf(head), head);
    case 'images':
      return place(lineOf('image_urls'), 'image_urls');
    case 'package': {
      const column = index || 'weight_grams';
      return place(lineOf(column), column);
    }
    case 'attributes': {
      const key = index ? path.slice('attributes.'.length) : (Object.keys(input.attributes ?? {})[ATTRIBUTES_MAX] ?? '');
      return place(lineOf(ATTRIBUTE_PREFIX + key), ATTRIBUTE_PREFIX + key);
    }
    case 'options': {
      const slot = slotOf[Number(index)] ?? 0;
      if (field !== 'values') return place(lineOf(nameColumn(slot)), nameColumn(slot));
      const value = input.options[Number(index)]?.values[Number(path.split('.')[3])];
      const row = group.rows.find((r) => header.index.has(valueColumn(slot)) && r.cells[header.index.get(valueColumn(slot))!] === value);
      return place(row?.line ?? group.line, valueColumn(slot));
    }
    case 'variants': {
      // Too many variants, or more than one without options: the first row too many.
      if (index === '') return place(rowLine(group.rows.length > PRODUCT_VARIANTS_MAX ? PRODUCT_VARIANTS_MAX : 1), 'handle');
      const i = Number(index);
      if (field === 'option_values') return place(rowLine(i), optionColumnOf(input, slotOf, i));
      return place(rowLine(i), ['sku', 'price', 'quantity', 'barcode'].includes(field) ? field : 'sku');
    }
    default:
      return place(group.line, 'handle');
  }
}

/** The option value cell a variant's problem is most likely in: one without its name, one missing, one not listed. */
function optionColumnOf(input: BuiltProduct['input'], slotOf: readonly number[], i: number): string {
  const values = input.variants[i]?.option_values ?? {};
  const missing = input.options.findIndex((option) => !Object.hasOwn(values, option.name));
  if (missing >= 0) return valueColumn(slotOf[missing]!);
  const unlisted = input.options.findIndex((option) => !option.values.includes(values[option.name]!));
  if (unlisted >= 0) return valueColumn(slotOf[unlisted]!);
  return valueColumn(slotOf[0] ?? 0);
}
