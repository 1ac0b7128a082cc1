/** Etsy's rules checked before anything is sent (listings.md §1.4–1.7). */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type ListingDraft, noFile } from '../../../src/platforms/contracts/listings.js';
import { checkEtsyDraft } from '../../../src/platforms/etsy/listing-rules.js';

const image = {
  key: 'k',
  url: 'https://example.com/a.jpg',
  alt: null,
  stored: true,
  bytes: async () => ({ bytes: Buffer.alloc(0), contentType: 'image/jpeg' }),
};
const draft: ListingDraft = {
  title: 'Walnut coaster set',
  description: 'Four oiled walnut coasters',
  tags: [],
  brand: null,
  currency: 'USD',
  categoryId: '1',
  attributes: {},
  options: [{ name: 'Color', values: ['Red', 'Blue'] }],
  variants: [
    { sku: 'A', optionValues: { Color: 'Red' }, price: '24.00', quantity: 3, barcode: null },
    { sku: 'B', optionValues: { Color: 'Blue' }, price: '0.20', quantity: 0, barcode: null },
  ],
  images: [image],
  package: null,
  file: noFile,
};

test('a draft within every rule has no issue', () => {
  assert.deepEqual(checkEtsyDraft(draft), []);
});

test('each broken rule is one issue on the field that breaks it', () => {
  const broken: ListingDraft = {
    ...draft,
    title: '100% oak: 50% off: & more & more',
    options: [
      { name: 'A', values: ['x (big)'] },
      { name: 'B', values: ['y'] },
      { name: 'C', values: ['z'] },
    ],
    variants: [{ sku: 'A', optionValues: {}, price: '0.19', quantity: 0, barcode: null }],
    images: [],
  };
  const linked = { ...draft, images: [image, { ...image, stored: false }] };
  assert.deepEqual(
    checkEtsyDraft(linked).map((i) => [i.field, i.code]),
    [['product.images.1', 'etsy_image_file']],
  );
  assert.deepEqual(
    checkEtsyDraft(broken).map((i) => [i.field, i.code]),
    [
      ['product.options', 'etsy_too_many_options'],
      ['product.options.0.values', 'etsy_parentheses'],
      ['product.title', 'etsy_title_characters'],
      ['product.images', 'etsy_image_required'],
      ['product.variants.0.price', 'etsy_price_too_low'],
      ['product.variants', 'etsy_out_of_stock'],
    ],
  );
  assert.match(checkEtsyDraft(broken)[2]!.message, /repeated: % : &/);
});
