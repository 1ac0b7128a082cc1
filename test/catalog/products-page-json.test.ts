/**
 * GET /products is written by the database as JSON text (products.repo.ts, `listProductsJson`) while GET /products/{id}
 * is built in Node (`presentProduct`, then the response schema's serializer). Every product a page holds must be what
 * its own answer is: the same keys in the same order, the same values, whatever the text in it.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import fc from 'fast-check';
import { databaseKinds } from '../helpers/database.js';
import { call, createTestApp, registerUser, type TestApp } from '../helpers/test-app.js';

/** Text a seller may type, with what JSON has to escape: quotes, backslashes, controls, U+2028, astral characters. */
const text = (minLength: number, maxLength: number) =>
  fc.string({
    unit: fc.constantFrom(
      'a',
      'Z',
      '7',
      ' ',
      '"',
      '\\',
      '/',
      '\n',
      '\t',
      '\r',
      '\u0001',
      '\u001f',
      'é',
      '€',
      '😀',
      '\u2028',
      '<',
      '&',
      "'",
      '{',
      ':',
      ',',
    ),
    minLength,
    maxLength,
  });
const visible = (maxLength: number) => text(1, maxLength).filter((value) => /\S/.test(value));

/** A product body POST /products takes, for a sku: one option whose values name the variants, or a single plain variant. */
const productBody = fc
  .record({
    title: visible(40),
    description: text(0, 60),
    brand: fc.option(visible(20), { nil: null }),
    tags: fc.uniqueArray(visible(12), { maxLength: 4 }),
    attributes: fc.dictionary(visible(10), text(0, 20), { maxKeys: 4 }),
    currency: fc.constantFrom('USD', 'EUR', 'JPY'),
    values: fc.uniqueArray(visible(10), { minLength: 0, maxLength: 3, selector: (v) => v.trim().toLowerCase() }),
    prices: fc.array(fc.integer({ min: 1, max: 99_999_999 }), { minLength: 3, maxLength: 3 }),
    quantity: fc.integer({ min: 0, max: 10_000 }),
    barcode: fc.option(fc.constantFrom('0123456789012', '4006381333931'), { nil: undefined }),
    images: fc.array(
      fc.record({ path: fc.constantFrom('a.jpg', 'b%20c.png', 'x?y=1&z="2"'), alt: fc.option(text(0, 20), { nil: null }) }),
      {
        maxLength: 3,
      },
    ),
    package: fc.option(
      fc.record({
        weight_grams: fc.option(fc.integer({ min: 1, max: 50_000 }), { nil: null }),
        length_mm: fc.option(fc.integer({ min: 1, max: 3_000 }), { nil: null }),
        width_mm: fc.option(fc.integer({ min: 1, max: 3_000 }), { nil: null }),
        height_mm: fc.option(fc.integer({ min: 1, max: 3_000 }), { nil: null }),
      }),
      { nil: undefined },
    ),
  })
  .map(({ values, prices, quantity, barcode, images, ...fields }) => (sku: string) => {
    const price = (cents: number) => `${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, '0')}`;
    const variants =
      values.length === 0
        ? [{ sku, price: price(prices[0]!), quantity, ...(barcode ? { barcode } : {}) }]
        : values.map((value, i) => ({
            sku: `${sku}-${i}`,
            option_values: { Shade: value },
            price: price(prices[i]!),
            quantity: quantity + i,
          }));
    return {
      ...fields,
      ...(values.length > 0 ? { options: [{ name: 'Shade', values }] } : {}),
      variants,
      images: images.map(({ path, alt }) => ({ url: `https://img.example.com/${path}`, alt })),
    };
  });

for (const kind of databaseKinds()) {
  describe(`a page of products as the database writes it [${kind}]`, () => {
    let t: TestApp;
    let as: { token: string; workspace: number };
    before(async () => {
      t = await createTestApp(kind);
      const user = await registerUser(t);
      as = { token: user.session, workspace: user.workspace.id };
    });
    after(() => t.close());

    /** The product's own answer, and the same product as a page found by `q` shows it. */
    async function bothWays(id: number, q: string) {
      const own = await call(t, 'GET', `/products/${id}`, as);
      assert.equal(own.statusCode, 200, own.body);
      const page = await call(t, 'GET', `/products?q=${encodeURIComponent(q)}`, as);
      assert.equal(page.statusCode, 200, page.body);
      assert.match(String(page.headers['content-type']), /^application\/json; charset=utf-8$/);
      const { success, data, meta } = page.json();
      assert.deepEqual({ success, meta }, { success: true, meta: { page: 1, per_page: 25, total: 1 } });
      assert.equal(data.length, 1);
      return { own: own.json().data, listed: data[0] };
    }

    test('any product: its place on a page equals its own answer, key for key and in the same order', async () => {
      let n = 0;
      await fc.assert(
        fc.asyncProperty(productBody, async (bodyFor) => {
          const body = bodyFor(`PJ-${kind}-${++n}`);
          const created = await call(t, 'POST', '/products', { ...as, body });
          assert.equal(created.statusCode, 201, created.body);
          const id: number = created.json().data.id;
          const { own, listed } = await bothWays(id, body.variants[0]!.sku);
          // The same keys in the same order, at every depth (JSON.stringify keeps the order it parsed).
          assert.equal(JSON.stringify(listed), JSON.stringify(own));
        }),
        { numRuns: 40 },
      );
    });

    test('times are to the millisecond, cut as Date cuts them, and a package stored as JSON null reads as null', async () => {
      const created = await call(t, 'POST', '/products', {
        ...as,
        body: { title: 'Cut times', currency: 'USD', variants: [{ sku: `PJ-${kind}-TIME`, price: '1.00', quantity: 1 }] },
      });
      const id: number = created.json().data.id;
      // A time written by the database itself carries microseconds: .123999 is .123 in both answers, never .124.
      await t.database.db.execute(
        sql`update products set updated_at = '2026-12-02 10:00:00.123999+00', package = 'null'::jsonb where id = ${id}`,
      );
      const { own, listed } = await bothWays(id, `PJ-${kind}-TIME`);
      assert.equal(listed.updated_at, '2026-12-02T10:00:00.123Z');
      assert.equal(listed.package, null);
      assert.equal(JSON.stringify(listed), JSON.stringify(own));
    });

    test('pages of the whole catalogue hold every product once, in id order, each as its own answer', async () => {
      const ids: number[] = [];
      for (let page = 1; ; page++) {
        const response = await call(t, 'GET', `/products?per_page=7&page=${page}`, as);
        const { data, meta } = response.json();
        for (const product of data) {
          const own = await call(t, 'GET', `/products/${product.id}`, as);
          assert.equal(JSON.stringify(product), JSON.stringify(own.json().data));
          ids.push(product.id);
        }
        if (data.length < 7) {
          assert.equal(meta.total, ids.length);
          break;
        }
      }
      assert.ok(ids.length > 40);
      assert.deepEqual(
        ids,
        [...ids].sort((a, b) => a - b),
      );
    });
  });
}
