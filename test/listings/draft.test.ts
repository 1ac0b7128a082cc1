/** A product as one site lists it (DESIGN §10): the site's price adjustment and stock buffer applied, images keyed. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { draftOf, listedVariants } from '../../src/core/listings/draft.js';
import { pricingOf } from '../../src/core/listings/pricing.js';
import type { ProductRecord } from '../../src/db/products.repo.js';

const at = new Date('2026-11-23T12:00:00Z');
const product: ProductRecord = {
  id: 7,
  workspaceId: 1,
  title: 'Linen tote',
  handle: 'linen-tote',
  description: 'Sturdy.',
  brand: null,
  tags: ['tote'],
  attributes: {},
  currency: 'EUR',
  options: [{ name: 'Color', values: ['Natural'] }],
  package: null,
  version: 3,
  search: 'linen tote\ntote-nat',
  createdAt: at,
  updatedAt: at,
  variants: [
    {
      id: 1,
      productId: 7,
      workspaceId: 1,
      position: 0,
      sku: 'TOTE-NAT',
      optionValues: { Color: 'Natural' },
      price: '24.00',
      quantity: 5,
      barcode: null,
      createdAt: at,
      updatedAt: at,
    },
  ],
  images: [
    {
      id: 1,
      productId: 7,
      position: 0,
      url: 'https://shop.test/media/abc.jpg',
      alt: 'Front',
      mediaSha256: 'abc',
      createdAt: at,
      updatedAt: at,
    },
    { id: 2, productId: 7, position: 1, url: 'https://example.com/b.jpg', alt: null, mediaSha256: null, createdAt: at, updatedAt: at },
  ],
};

test('the site’s rules are applied to each variant, images are keyed by hash or URL, and the bytes of a stored one are read only when asked', async () => {
  const asked: string[] = [];
  const draft = draftOf(
    product,
    { categoryId: '1', attributes: { 200: '1' } },
    pricingOf('EUR', 'EUR', { price_adjustment_percent: 10, stock_buffer: 2 }).pricing,
    async (sha256) => {
      asked.push(sha256);
      return { bytes: Buffer.from('x'), contentType: 'image/jpeg', extension: 'jpg' };
    },
  );
  assert.deepEqual(
    draft.variants.map((v) => [v.sku, v.price, v.quantity]),
    [['TOTE-NAT', '26.40', 3]],
  );
  assert.deepEqual(
    draft.images.map((i) => [i.key, i.alt, i.stored]),
    [
      ['abc', 'Front', true],
      ['https://example.com/b.jpg', null, false],
    ],
  );
  assert.deepEqual(asked, []);
  await draft.images[0]!.bytes();
  assert.deepEqual(asked, ['abc']);
  await assert.rejects(draft.images[1]!.bytes());
  assert.deepEqual(listedVariants(draft, { 'TOTE-NAT': '991' }), [{ sku: 'TOTE-NAT', price: '26.40', quantity: 3, external_id: '991' }]);
});

test('a listing in another currency is priced by the rate, then the adjustment, and says its own currency', () => {
  const settings = { price_adjustment_percent: 10, stock_buffer: 0, exchange_rates: { EUR: '0.85' } };
  const draft = draftOf(product, { categoryId: '1', attributes: {} }, pricingOf('EUR', 'GBP', settings).pricing, async () => {
    throw new Error('no bytes are read');
  });
  // 24.00 EUR × 0.85 = 20.40 GBP, + 10 % = 22.44 GBP.
  assert.equal(draft.currency, 'GBP');
  assert.deepEqual(
    draft.variants.map((v) => v.price),
    ['22.44'],
  );
});
