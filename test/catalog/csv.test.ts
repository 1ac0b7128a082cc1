/** The catalogue's CSV mapping (src/core/catalog/csv.ts): any valid catalogue exported, then read back, is itself again. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parse } from 'csv-parse/sync';
import { stringify } from 'csv-stringify/sync';
import fc from 'fast-check';
import {
  buildProduct,
  CSV_PARSE_OPTIONS,
  CSV_STRINGIFY_OPTIONS,
  createRowReader,
  csvHeader,
  escapeCell,
  handleOf,
  productRows,
  readHeader,
  sortedKeys,
  unescapeCell,
} from '../../src/core/catalog/csv.js';
import type { Product, ProductOption } from '../../src/domain/index.js';

// Fixed so a failure reproduces.
const SEED = 20261123;

/**
 * Text with everything CSV has to quote (commas, quotes, both line breaks, spaces at the ends), and what the export
 * escapes against spreadsheet formulas (=, +, -, @, and apostrophes before them).
 */
const text = (minLength: number, maxLength: number) =>
  fc.string({
    unit: fc.constantFrom('a', 'B', 'z', ' ', ',', '"', '\n', '\r', ';', 'é', '😀', '\t', '.', '=', '+', '-', '@', "'", '1'),
    minLength,
    maxLength,
  });
const nonBlank = (maxLength: number) => text(1, maxLength).filter((s) => /\S/.test(s));
/** What the export writes of a new product as it reads it back: no tag with a comma or spaces around it, no empty attribute. */
const plainTag = fc
  .string({ unit: fc.constantFrom('a', 'b', 'é', ' ', '-'), minLength: 1, maxLength: 8 })
  .map((s) => s.trim())
  .filter((s) => s !== '');

const price = fc.integer({ min: 1, max: 99_999_999 }).map((cents) => `${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, '0')}`);
const barcode = fc.option(fc.stringMatching(/^[0-9A-Za-z-]{1,32}$/), { nil: null });
const pack = fc.option(
  fc.record(
    {
      weight_grams: fc.integer({ min: 1, max: 1_000_000 }),
      length_mm: fc.integer({ min: 1, max: 10_000 }),
      width_mm: fc.integer({ min: 1, max: 10_000 }),
      height_mm: fc.integer({ min: 1, max: 10_000 }),
    },
    { noNullPrototype: true },
  ),
  { nil: null },
);

/** Options (distinct names, distinct values) and the variants' combinations: every combination once, at least one. */
const optionsAndCombinations = fc
  .uniqueArray(
    fc.record({ name: nonBlank(6), values: fc.uniqueArray(nonBlank(6), { minLength: 1, maxLength: 3 }) }, { noNullPrototype: true }),
    {
      maxLength: 3,
      selector: (option) => option.name.trim().toLowerCase(),
    },
  )
  .chain((options) => {
    const all = options.reduce<string[][]>((combos, option) => combos.flatMap((c) => option.values.map((v) => [...c, v])), [[]]);
    return fc.tuple(fc.constant(options), fc.shuffledSubarray(all, { minLength: 1, maxLength: Math.min(all.length, 6) }));
  });

/**
 * A valid product. `canonical`: as the import makes a new product from its rows (option values in the order rows name
 * them, every value used; plain tags; attributes of some text; images without alt). Otherwise anything the API stores.
 */
function productArbitrary(canonical: boolean) {
  return fc
    .record(
      {
        title: nonBlank(20),
        description: text(0, 30),
        brand: fc.option(nonBlank(10), { nil: null }),
        tags: fc.array(canonical ? plainTag : nonBlank(8), { maxLength: 4 }),
        attributes: fc.dictionary(
          fc.string({ unit: fc.constantFrom('k', 'e', 'y', '.', ',', ' '), minLength: 1, maxLength: 5 }),
          canonical ? text(1, 10) : text(0, 10),
          { maxKeys: 4, noNullPrototype: true },
        ),
        currency: fc.constantFrom('USD', 'EUR', 'JPY'),
        optionsAndCombinations,
        variantFields: fc.array(fc.record({ price, quantity: fc.integer({ min: 0, max: 999_999 }), barcode }, { noNullPrototype: true }), {
          minLength: 6,
          maxLength: 6,
        }),
        images: fc.array(
          fc.record(
            { url: fc.stringMatching(/^https:\/\/example\.com\/[a-z0-9.,"%]{1,8}$/), alt: fc.option(text(0, 8), { nil: null }) },
            { noNullPrototype: true },
          ),
          { maxLength: 3 },
        ),
        package: pack,
      },
      { noNullPrototype: true },
    )
    .map(({ optionsAndCombinations: [options, combinations], variantFields, images, ...rest }) => ({
      rest,
      options: canonical ? usedInOrder(options, combinations) : options,
      combinations,
      variantFields,
      images: canonical ? images.map((image) => ({ ...image, alt: null })) : images,
    }));
}

function usedInOrder(options: ProductOption[], combinations: string[][]): ProductOption[] {
  return options.map((option, i) => ({ name: option.name, values: [...new Set(combinations.map((c) => c[i]!))] }));
}

/** Products with ids and skus unique across the catalogue. */
function catalogueArbitrary(canonical: boolean) {
  return fc.array(productArbitrary(canonical), { minLength: 1, maxLength: 5 }).map((drafts) => {
    let next = 1;
    return drafts.map((draft, p): Product => {
      const variants = draft.combinations.map((combination, v) => ({
        id: next++,
        sku: `SKU-${p}.${v}_x`,
        option_values: Object.fromEntries(draft.options.map((option, i) => [option.name, combination[i]!])),
        ...draft.variantFields[v]!,
      }));
      return {
        id: 100 + p,
        handle: `product-${100 + p}`,
        ...draft.rest,
        options: draft.options,
        variants,
        images: draft.images.map((image, position) => ({ id: next++, position, ...image, uploaded: false })),
        version: 1,
        price: variants[0]!.price,
        sku: variants[0]!.sku,
        quantity: variants[0]!.quantity,
        created_at: '2026-01-01T00:00:00.000Z',
        updated_at: '2026-01-01T00:00:00.000Z',
      };
    });
  });
}

/** The export's bytes of a catalogue, read back into groups. */
function roundTrip(catalogue: readonly Product[]) {
  const keys = sortedKeys(catalogue.flatMap((p) => Object.keys(p.attributes)));
  const csv = stringify([csvHeader(keys), ...catalogue.flatMap((product) => productRows(product, keys))], CSV_STRINGIFY_OPTIONS);
  const [head, ...rows] = (parse(csv, CSV_PARSE_OPTIONS) as string[][]).map((record) => record.map(unescapeCell));
  const read = readHeader(head!);
  assert.deepEqual(read.errors, {});
  const reader = createRowReader(read.header);
  rows.forEach((cells, i) => reader.add(i + 2, cells));
  assert.deepEqual(reader.errors, {});
  return { header: read.header, groups: [...reader.groups.values()] };
}

/** A stored product as the input that would leave it as it is. */
function inputOf(product: Product, withIds: boolean) {
  return {
    title: product.title,
    handle: product.handle,
    description: product.description,
    brand: product.brand,
    tags: product.tags,
    attributes: product.attributes,
    currency: product.currency,
    options: product.options,
    variants: product.variants.map(({ id, ...variant }) => (withIds ? { id, ...variant } : variant)),
    images: product.images.map((image) => (withIds ? { id: image.id, url: image.url, alt: image.alt } : { url: image.url })),
    package: product.package,
  };
}

test('any valid catalogue exported and read back against itself gives each product as it is stored, ids kept', () => {
  fc.assert(
    fc.property(catalogueArbitrary(false), (catalogue) => {
      const { header, groups } = roundTrip(catalogue);
      assert.deepEqual(
        groups.map((g) => g.handle),
        catalogue.map(handleOf),
      );
      groups.forEach((group, i) => {
        const built = buildProduct(group, header, catalogue[i]!);
        assert.deepEqual([built.errors, built.cellErrors], [{}, {}]);
        assert.deepEqual(built.input, inputOf(catalogue[i]!, true));
      });
    }),
    { seed: SEED, numRuns: 300 },
  );
});

test('any catalogue as the import makes new products, exported and read back as new, gives the same product inputs', () => {
  fc.assert(
    fc.property(catalogueArbitrary(true), (catalogue) => {
      const { header, groups } = roundTrip(catalogue);
      groups.forEach((group, i) => {
        const built = buildProduct(group, header, null);
        assert.deepEqual([built.errors, built.cellErrors], [{}, {}]);
        assert.deepEqual(built.input, inputOf(catalogue[i]!, false));
      });
    }),
    { seed: SEED, numRuns: 300 },
  );
});

test('any cell is escaped so that no spreadsheet runs it, and unescaped back to itself', () => {
  fc.assert(
    fc.property(text(0, 12), (cell) => {
      const escaped = escapeCell(cell);
      assert.equal(unescapeCell(escaped), cell);
      assert.ok(!/^[=+\-@\t\r]/.test(escaped) || /^[+-]?\d+(\.\d+)?$/.test(escaped), JSON.stringify(escaped));
    }),
    { seed: SEED, numRuns: 2_000 },
  );
});

test('a leading apostrophe is dropped on import only before a formula character', () => {
  assert.deepEqual(["'=1+1", "''@x", "'-A", "'plain", "'5", "'", '=x'].map(unescapeCell), ['=1+1', "'@x", '-A', "'plain", "'5", "'", '=x']);
});

test('a field path of a product input is led back to its cell, and its message speaks of the column', () => {
  const { header, groups } = roundTrip([
    {
      id: 7,
      title: 'Shirt',
      handle: 'shirt',
      description: '',
      brand: null,
      tags: [],
      attributes: { material: 'cotton' },
      currency: 'USD',
      options: [{ name: 'Size', values: ['S', 'M'] }],
      variants: [
        { id: 1, sku: 'S-1', option_values: { Size: 'S' }, price: '1.00', quantity: 1, barcode: null },
        { id: 2, sku: 'S-2', option_values: { Size: 'M' }, price: '1.00', quantity: 1, barcode: null },
      ],
      images: [],
      package: null,
      version: 1,
      price: '1.00',
      sku: 'S-1',
      quantity: 1,
      created_at: '',
      updated_at: '',
    },
  ]);
  const built = buildProduct(groups[0]!, header, null);
  assert.deepEqual(built.locate('variants.1.sku', 'The variants 1 sku field format is invalid.'), [
    'line 3.sku',
    'The sku field format is invalid.',
  ]);
  assert.deepEqual(built.locate('variants.1.option_values', 'The same option values as variant 0.'), [
    'line 3.option1_value',
    'The same option values as line 2.',
  ]);
  assert.deepEqual(built.locate('options.0.values.1', 'The value is given twice.'), ['line 3.option1_value', 'The value is given twice.']);
  assert.deepEqual(built.locate('attributes.material', 'The attributes material field must not be greater than 500 characters.'), [
    'line 2.attribute.material',
    'The attribute.material field must not be greater than 500 characters.',
  ]);
  assert.deepEqual(built.locate('currency', 'x'), ['line 2.currency', 'x']);
});
