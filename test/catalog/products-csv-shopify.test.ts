/**
 * Files from elsewhere (DESIGN §9): a Shopify product export imported as it is (HTML body to text, follow-up variant
 * rows, image rows, "Default Title"), and a stock file of skus and quantities that changes only what it names.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { stringify } from 'csv-stringify/sync';
import { catalogueUser } from '../helpers/catalogue.js';
import { databaseKinds } from '../helpers/database.js';
import { call, createTestApp, type TestApp } from '../helpers/test-app.js';

/** Shopify's product CSV header as its admin exports it (2025 onwards: with the "Linked To" columns). */
const SHOPIFY_HEADER = [
  'Handle',
  'Title',
  'Body (HTML)',
  'Vendor',
  'Product Category',
  'Type',
  'Tags',
  'Published',
  'Option1 Name',
  'Option1 Value',
  'Option1 Linked To',
  'Option2 Name',
  'Option2 Value',
  'Option2 Linked To',
  'Option3 Name',
  'Option3 Value',
  'Option3 Linked To',
  'Variant SKU',
  'Variant Grams',
  'Variant Inventory Tracker',
  'Variant Inventory Qty',
  'Variant Inventory Policy',
  'Variant Fulfillment Service',
  'Variant Price',
  'Variant Compare At Price',
  'Variant Requires Shipping',
  'Variant Taxable',
  'Variant Barcode',
  'Image Src',
  'Image Position',
  'Image Alt Text',
  'Gift Card',
  'SEO Title',
  'SEO Description',
  'Variant Image',
  'Variant Weight Unit',
  'Cost per item',
  'Status',
];

const CDN = 'https://cdn.example.com/s/files/1/0001/products';
const row = (cells: Record<string, string>) => SHOPIFY_HEADER.map((column) => cells[column] ?? '');
const variant = (sku: string, price: string, qty: string, more: Record<string, string> = {}) => ({
  'Variant SKU': sku,
  'Variant Grams': '180',
  'Variant Inventory Tracker': 'shopify',
  'Variant Inventory Qty': qty,
  'Variant Inventory Policy': 'deny',
  'Variant Fulfillment Service': 'manual',
  'Variant Price': price,
  'Variant Compare At Price': '',
  'Variant Requires Shipping': 'true',
  'Variant Taxable': 'true',
  'Variant Weight Unit': 'g',
  ...more,
});

/** Two products as Shopify exports them: a tee in sizes and colours (follow-up variant rows, an image row) and a plain mug. */
const SHOPIFY_EXPORT = stringify([
  SHOPIFY_HEADER,
  row({
    Handle: 'organic-tee',
    Title: 'Organic Cotton Tee',
    'Body (HTML)': '<p>Soft <strong>organic</strong> cotton &amp; a relaxed fit.</p><ul><li>Pre-shrunk</li><li>Made in Portugal</li></ul>',
    Vendor: 'Maomao',
    'Product Category': 'Apparel & Accessories > Clothing > Shirts & Tops',
    Type: 'T-Shirt',
    Tags: 'cotton, summer',
    Published: 'true',
    'Option1 Name': 'Size',
    'Option1 Value': 'S',
    'Option2 Name': 'Color',
    'Option2 Value': 'Black',
    ...variant('TEE-S-BLK', '24.00', '5', { 'Variant Barcode': '0123456789012' }),
    'Image Src': `${CDN}/tee-front.jpg?v=1700000000`,
    'Image Position': '1',
    'Image Alt Text': 'The tee, front',
    'Gift Card': 'false',
    Status: 'active',
  }),
  row({ Handle: 'organic-tee', 'Option1 Value': 'M', 'Option2 Value': 'Black', ...variant('TEE-M-BLK', '24.00', '3') }),
  row({
    Handle: 'organic-tee',
    'Option1 Value': 'L',
    'Option2 Value': 'White',
    ...variant('TEE-L-WHT', '26.50', '0', { 'Variant Grams': '220' }),
  }),
  row({ Handle: 'organic-tee', 'Image Src': `${CDN}/tee-back.jpg?v=1700000000`, 'Image Position': '2' }),
  row({
    Handle: 'enamel-mug',
    Title: 'Enamel Camp Mug',
    'Body (HTML)': '<p>Holds 350&nbsp;ml. <a href="https://maomao.example/care">Care guide</a></p>',
    Vendor: 'Maomao',
    Tags: 'mug',
    Published: 'true',
    'Option1 Name': 'Title',
    'Option1 Value': 'Default Title',
    ...variant('MUG-ENAMEL', '14.00', '7'),
    'Image Src': `${CDN}/mug.jpg?v=1700000000`,
    'Image Position': '1',
    'Gift Card': 'false',
    Status: 'active',
  }),
]);

for (const kind of databaseKinds()) {
  describe(`CSV from elsewhere [${kind}]`, () => {
    let t: TestApp;
    before(async () => (t = await createTestApp(kind)));
    after(() => t.close());

    const owner = () => catalogueUser(t);
    /** What a product is, without its ids and times. */
    interface Content extends Record<string, unknown> {
      variants: Record<string, unknown>[];
      images: Record<string, unknown>[];
    }
    const contentOf = (p: Record<string, unknown>): Content => {
      const { id: _, created_at: _c, updated_at: _u, version: _v, ...rest } = p as Content;
      return {
        ...rest,
        variants: (rest.variants as Record<string, unknown>[]).map(({ id: _i, ...v }) => v),
        images: (rest.images as Record<string, unknown>[]).map(({ id: _i, ...image }) => image),
      };
    };

    /** Each product's content, by its title. */
    const contentsOf = (products: Record<string, unknown>[]): Record<string, Content> =>
      Object.fromEntries(products.map((p) => [p.title as string, contentOf(p)]));

    test("a Shopify export imports as it is: HTML made text, follow-up rows its variants, image rows its images, Shopify's other columns named", async () => {
      const me = await owner();
      const preview = await me.importCsv(SHOPIFY_EXPORT, '?dry_run=true&currency=EUR');
      assert.equal(preview.statusCode, 200, preview.body);
      assert.equal(preview.json().data.created, 2);
      assert.deepEqual(await me.products(), []);

      const imported = await me.importCsv(SHOPIFY_EXPORT, '?currency=EUR');
      assert.equal(imported.statusCode, 200, imported.body);
      const { created, updated, unchanged, removed, ignored } = imported.json().data;
      assert.deepEqual({ created, updated, unchanged, removed }, { created: 2, updated: 0, unchanged: 0, removed: 0 });
      assert.deepEqual(ignored, [
        'Product Category',
        'Type',
        'Published',
        'Option1 Linked To',
        'Option2 Linked To',
        'Option3 Linked To',
        'Variant Inventory Tracker',
        'Variant Inventory Policy',
        'Variant Fulfillment Service',
        'Variant Compare At Price',
        'Variant Requires Shipping',
        'Variant Taxable',
        'Gift Card',
        'SEO Title',
        'SEO Description',
        'Variant Image',
        'Variant Weight Unit',
        'Cost per item',
        'Status',
      ]);
      const byTitle = contentsOf(await me.products());
      const tee = byTitle['Organic Cotton Tee']!;
      assert.equal(tee.description, 'Soft organic cotton & a relaxed fit.\n\n * Pre-shrunk\n * Made in Portugal');
      assert.equal(tee.brand, 'Maomao');
      assert.deepEqual(tee.tags, ['cotton', 'summer']);
      assert.equal(tee.currency, 'EUR');
      // Shopify's weight a variant is the package's weight (the heaviest variant's); its size is not in the file.
      assert.deepEqual(tee.package, { weight_grams: 220, length_mm: null, width_mm: null, height_mm: null });
      assert.deepEqual(tee.options, [
        { name: 'Size', values: ['S', 'M', 'L'] },
        { name: 'Color', values: ['Black', 'White'] },
      ]);
      assert.deepEqual(
        tee.variants.map((v) => [v.sku, v.option_values, v.price, v.quantity, v.barcode]),
        [
          ['TEE-S-BLK', { Size: 'S', Color: 'Black' }, '24.00', 5, '0123456789012'],
          ['TEE-M-BLK', { Size: 'M', Color: 'Black' }, '24.00', 3, null],
          ['TEE-L-WHT', { Size: 'L', Color: 'White' }, '26.50', 0, null],
        ],
      );
      assert.deepEqual(
        tee.images.map((image) => [image.url, image.alt]),
        [
          [`${CDN}/tee-front.jpg?v=1700000000`, 'The tee, front'],
          [`${CDN}/tee-back.jpg?v=1700000000`, null],
        ],
      );
      const mug = byTitle['Enamel Camp Mug']!;
      // "Title" / "Default Title" is Shopify's way of saying the product has no options; a link keeps its text.
      assert.deepEqual(mug.options, []);
      assert.equal(mug.description, 'Holds 350\u00a0ml. Care guide');
      assert.deepEqual(
        mug.variants.map((v) => [v.sku, v.option_values, v.price, v.quantity]),
        [['MUG-ENAMEL', {}, '14.00', 7]],
      );
      assert.deepEqual(
        mug.images.map((image) => image.url),
        [`${CDN}/mug.jpg?v=1700000000`],
      );

      // The same file again changes nothing.
      const again = await me.importCsv(SHOPIFY_EXPORT, '?currency=EUR');
      assert.equal(again.statusCode, 200, again.body);
      assert.deepEqual([again.json().data.updated, again.json().data.unchanged], [0, 2]);
    });

    test('a stock file of skus and quantities changes those quantities alone, and gathers a product’s skus into one update', async () => {
      const me = await owner();
      assert.equal((await me.importCsv(SHOPIFY_EXPORT)).statusCode, 200);
      const before = contentsOf(await me.products());

      const stock = await me.importCsv(' SKU , Quantity \nTEE-S-BLK,2\nMUG-ENAMEL,0\nTEE-L-WHT,9\n');
      assert.equal(stock.statusCode, 200, stock.body);
      assert.deepEqual(stock.json().data, { created: 0, updated: 2, unchanged: 0, removed: 0, ignored: [] });
      const after = contentsOf(await me.products());
      const quantities = (p: { variants: Record<string, unknown>[] }) => p.variants.map((v) => [v.sku, v.quantity]);
      assert.deepEqual(quantities(after['Organic Cotton Tee']!), [
        ['TEE-S-BLK', 2],
        ['TEE-M-BLK', 3],
        ['TEE-L-WHT', 9],
      ]);
      assert.deepEqual(quantities(after['Enamel Camp Mug']!), [['MUG-ENAMEL', 0]]);
      // Everything else is as it was: title, description, options, prices, images.
      const withoutStock = (p: { variants: Record<string, unknown>[] }) => ({
        ...p,
        quantity: null,
        variants: p.variants.map((v) => ({ ...v, quantity: null })),
      });
      for (const title of Object.keys(before)) assert.deepEqual(withoutStock(after[title]!), withoutStock(before[title]!), title);
      const movements = (await call(t, 'GET', '/products/stock-movements?sku=TEE-L-WHT', me.as)).json().data;
      // Newest first: the stock file's, after the export's import made the variant with none.
      assert.deepEqual(
        movements.map((m: { delta: number; quantity_after: number; reason: string }) => [m.delta, m.quantity_after, m.reason])[0],
        [9, 9, 'import'],
      );

      // A price file too: only prices change.
      const prices = await me.importCsv('sku,price\nMUG-ENAMEL,15.50\n');
      assert.deepEqual(prices.json().data.updated, 1);
      const mug = (await me.products()).find((p: { title: string }) => p.title === 'Enamel Camp Mug');
      assert.deepEqual([mug.variants[0].price, mug.variants[0].quantity], ['15.50', 0]);
    });

    test('a stock file naming a sku no product has is a 422 on that line, and nothing changes', async () => {
      const me = await owner();
      assert.equal((await me.importCsv(SHOPIFY_EXPORT)).statusCode, 200);
      const before = await me.products();
      const refused = await me.importCsv('sku,quantity\nTEE-S-BLK,1\nNOT-A-SKU,4\n,2\n');
      assert.equal(refused.statusCode, 422, refused.body);
      assert.deepEqual(refused.json().errors, {
        'line 3.sku': ['No product has this sku: rows of a new product need a handle and a title column.'],
        'line 4.sku': ['The sku field is required: without a handle column the sku names the product.'],
      });
      assert.deepEqual(await me.products(), before);
    });
  });
}
