/**
 * A product with options on Amazon is a variation family (DESIGN §15), against the sandbox Amazon over real HTTP: a
 * parent SKU with the product type's theme that fits the options, put before a child SKU per variant; options that fit
 * no theme refused before anything is sent; a product of one variant without options a SKU of its own; variants added
 * and removed under the same parent; reads that see no difference on the parent, which has no price.
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import { IMPORT_QUEUE } from '../../../src/core/listings/listing-import.js';
import { READ_QUEUE } from '../../../src/core/listings/listing-watch.js';
import { LISTING_QUEUE } from '../../../src/core/listings/listing-work.js';
import { setAmazonSellerRateLimit } from '../../../src/sandbox/amazon-seller/listings-rate-limits.js';
import { amazonListingsOf } from '../../../src/sandbox/amazon-seller/listings-store.js';
import { databaseKinds } from '../../helpers/database.js';
import { SANDBOX_REVIEW_MS } from '../../helpers/fixtures.js';
import { amazonSeller, mugProduct } from '../../helpers/listings.js';
import { call, createTestApp, runDueJobs, type TestApp } from '../../helpers/test-app.js';

const US = 'ATVPDKIKX0DER';

interface Held {
  id: string;
  title: string;
  state: string;
  skus: { sku: string; price: string | null; quantity: number }[];
  parent_sku?: string | null;
  variation_theme?: string | null;
}

/** Two colours in two sizes, as a seller names them. */
const TEE = {
  title: 'Organic cotton tee',
  options: [
    { name: 'Size', values: ['Small', 'Large'] },
    { name: 'Colour', values: ['Black', 'White'] },
  ],
  variants: [
    { sku: 'TEE-S-BLK', option_values: { Size: 'Small', Colour: 'Black' }, price: '20.00', quantity: 5, barcode: '012345678905' },
    { sku: 'TEE-L-BLK', option_values: { Size: 'Large', Colour: 'Black' }, price: '20.00', quantity: 3, barcode: '4006381333931' },
    { sku: 'TEE-S-WHT', option_values: { Size: 'Small', Colour: 'White' }, price: '21.00', quantity: 2, barcode: '96385074' },
  ],
};

for (const kind of databaseKinds()) {
  describe(`Amazon variation families [${kind}]`, () => {
    let t: TestApp;
    let base: string;
    before(async () => {
      t = await createTestApp(kind, { listen: true });
      base = t.deps.config.appUrl;
    });
    after(() => t.close());
    beforeEach(() => {
      setAmazonSellerRateLimit(t.deps.sandbox, 1_000_000);
      t.deps.sandbox.faults.clear();
    });

    type Seller = Awaited<ReturnType<typeof amazonSeller>>;
    const inspected = async (account: string): Promise<Held[]> => {
      const response = await fetch(`${base}/sandbox/amazon-seller/accounts/${account}/listings`);
      assert.equal(response.status, 200);
      return response.json() as Promise<Held[]>;
    };
    /** A SKU's attributes as the sandbox Amazon stores them. */
    const stored = (me: Seller, sku: string) => amazonListingsOf(t.deps.sandbox).get(Number(me.account), US, sku)?.attributes;
    const calls = (operation: string) => t.deps.sandbox.calls.get(`amazon-seller:${operation}`) ?? 0;
    const listing = async (me: Seller, id: number) => (await call(t, 'GET', `/listings/${id}`, me.as)).json().data;
    const product = (me: Seller, sku: string, overrides: Record<string, unknown> = {}) =>
      mugProduct(t, me, sku, { brand: 'Sandbox Pottery', barcodes: ['012345678905', '4006381333931'], ...overrides });
    const publish = (me: Seller, productId: number, categoryId: string, attributes: Record<string, unknown> = {}, mode = 'publish') =>
      call(t, 'POST', `/sites/${me.site}/listings`, {
        ...me.as,
        body: { product_id: productId, category_id: categoryId, attributes, mode },
      });

    test('a product whose options fit no theme of the product type is a 422 on category_id naming both, and sends nothing', async () => {
      const me = await amazonSeller(t, '751');
      const mug = await product(me, 'F1');
      const puts = calls('putListingsItem');
      const generic = await publish(me, mug, 'PRODUCT');
      assert.equal(generic.statusCode, 422, generic.body);
      assert.deepEqual(Object.keys(generic.json().errors), ['category_id']);
      assert.match(generic.json().errors.category_id[0], /product type PRODUCT has no variation themes.*\(Color\)/);

      const glazed = await product(me, 'F2', {
        options: [{ name: 'Glaze', values: ['Matte', 'Gloss'] }],
        variants: [
          { sku: 'F2-M', option_values: { Glaze: 'Matte' }, price: '18.00', quantity: 4, barcode: '012345678905' },
          { sku: 'F2-G', option_values: { Glaze: 'Gloss' }, price: '18.00', quantity: 4, barcode: '4006381333931' },
        ],
      });
      for (const mode of ['validate', 'publish']) {
        const refused = await publish(me, glazed, 'KITCHEN', { material: 'Stoneware' }, mode);
        const issues =
          mode === 'validate' ? refused.json().data.issues.map((i: { message: string }) => i.message) : refused.json().errors?.category_id;
        assert.equal(refused.statusCode, mode === 'validate' ? 200 : 422, refused.body);
        assert.deepEqual(issues, [
          "Amazon's product type KITCHEN has no variation theme for the options Glaze: its themes are COLOR, SIZE, SIZE/COLOR. Choose another product type, or name the options after a theme's attributes.",
        ]);
      }
      assert.equal(calls('putListingsItem'), puts, 'nothing sent, not even a VALIDATION_PREVIEW');
      assert.deepEqual(await inspected(me.account), []);
      // A theme the listing names must fit the options too.
      const named = await publish(me, mug, 'KITCHEN', { material: 'Stoneware', variation_theme: 'SIZE' });
      assert.equal(named.statusCode, 422, named.body);
      assert.deepEqual(Object.keys(named.json().errors), ['attributes.variation_theme']);
    });

    test('Size and Colour on SHIRT list under SIZE_NAME/COLOR_NAME: a parent without offer, each child its size and colour', async () => {
      const me = await amazonSeller(t, '752');
      const tee = await product(me, 'unused', TEE);
      const published = await publish(me, tee, 'SHIRT', { department: 'unisex-adult' });
      assert.equal(published.statusCode, 202, published.body);
      await runDueJobs(t, LISTING_QUEUE);
      const made = await listing(me, published.json().data.id);
      assert.equal(made.status, 'in_review', JSON.stringify(made));
      assert.equal(made.external_id, 'TEE-S-BLK-PARENT');
      // Only the children are the listing's variants: the parent is nothing a buyer buys, nor anything to advertise.
      assert.deepEqual(
        made.variants.map((v: { sku: string }) => v.sku),
        ['TEE-S-BLK', 'TEE-L-BLK', 'TEE-S-WHT'],
      );
      assert.deepEqual(
        (await inspected(me.account)).map((s) => [s.id, s.variation_theme ?? null, s.parent_sku ?? null]),
        [
          ['TEE-S-BLK-PARENT', 'SIZE_NAME/COLOR_NAME', null],
          ['TEE-S-BLK', null, 'TEE-S-BLK-PARENT'],
          ['TEE-L-BLK', null, 'TEE-S-BLK-PARENT'],
          ['TEE-S-WHT', null, 'TEE-S-BLK-PARENT'],
        ],
      );
      const parent = stored(me, 'TEE-S-BLK-PARENT')!;
      assert.deepEqual(parent.parentage_level, [{ value: 'parent', marketplace_id: US }]);
      assert.deepEqual(parent.variation_theme, [{ name: 'SIZE_NAME/COLOR_NAME' }]);
      for (const absent of ['purchasable_offer', 'fulfillment_availability', 'externally_assigned_product_identifier', 'condition_type'])
        assert.equal(parent[absent], undefined, `a parent has no ${absent}`);
      const child = stored(me, 'TEE-L-BLK')!;
      assert.deepEqual(child.child_parent_sku_relationship, [
        { child_relationship_type: 'variation', parent_sku: 'TEE-S-BLK-PARENT', marketplace_id: US },
      ]);
      assert.deepEqual(
        [child.size, child.color, child.department].map((values) => (values as { value: string }[])[0]!.value),
        ['Large', 'Black', 'unisex-adult'],
        'the varied attributes from the options; the rest asked once for the family',
      );
      assert.deepEqual((parent.department as { value: string }[])[0]!.value, 'unisex-adult');

      // Amazon made the children buyable: the watch reads them, and the parent's missing price is no difference.
      t.clock.advance(SANDBOX_REVIEW_MS + 61_000);
      await t.deps.listingWatch.sweep();
      await runDueJobs(t, READ_QUEUE);
      const live = await listing(me, made.id);
      assert.deepEqual([live.status, live.differences], ['active', []]);
    });

    test("a SHIRT size outside its list is the option's issue, refused by the schema before anything is sent", async () => {
      const me = await amazonSeller(t, '753');
      const tee = await product(me, 'unused', {
        ...TEE,
        options: [{ name: 'Size', values: ['Tiny'] }],
        variants: [{ sku: 'TEE-T', option_values: { Size: 'Tiny' }, price: '20.00', quantity: 5, barcode: '012345678905' }],
      });
      const puts = calls('putListingsItem');
      const refused = await publish(me, tee, 'SHIRT', {}, 'validate');
      assert.equal(refused.json().data.valid, false);
      assert.deepEqual(
        refused.json().data.issues.map((i: { field: string; source: string }) => [i.field, i.source]),
        [
          ['attributes.color', 'storelink'],
          ['product.options.0', 'storelink'],
        ],
        "SHIRT requires a colour (asked once for the family); the size comes from the product's Size option",
      );
      assert.equal(calls('putListingsItem'), puts);
    });

    test('a product of one variant without options stays a SKU of its own, with no parent', async () => {
      const me = await amazonSeller(t, '754');
      const plain = await product(me, 'F4', {
        options: [],
        variants: [{ sku: 'F4', option_values: {}, price: '12.00', quantity: 4, barcode: '012345678905' }],
      });
      const published = await publish(me, plain, 'KITCHEN', { material: 'Stoneware' });
      assert.equal(published.statusCode, 202, published.body);
      await runDueJobs(t, LISTING_QUEUE);
      assert.equal((await listing(me, published.json().data.id)).external_id, 'F4');
      assert.deepEqual(
        (await inspected(me.account)).map((s) => [s.id, s.parent_sku ?? null, s.variation_theme ?? null]),
        [['F4', null, null]],
      );
      for (const family of ['parentage_level', 'child_parent_sku_relationship', 'variation_theme'])
        assert.equal(stored(me, 'F4')![family], undefined);
    });

    test('a variant added is a new child of the same parent; one removed is deleted, the parent kept', async () => {
      const me = await amazonSeller(t, '755');
      const mug = await product(me, 'F5');
      const published = await publish(me, mug, 'KITCHEN', { material: 'Stoneware' });
      assert.equal(published.statusCode, 202, published.body);
      await runDueJobs(t, LISTING_QUEUE);
      const current = (await call(t, 'GET', `/products/${mug}`, me.as)).json().data;
      const green = { sku: 'F5-G', option_values: { Color: 'Green' }, price: '19.00', quantity: 1, barcode: '96385074' };
      const body = {
        options: [{ name: 'Color', values: ['Blue', 'Green'] }],
        variants: [current.variants[1], green],
      };
      const puts = calls('putListingsItem');
      const deletes = calls('deleteListingsItem');
      assert.equal((await call(t, 'PATCH', `/products/${mug}`, { ...me.as, body })).statusCode, 200);
      await runDueJobs(t, LISTING_QUEUE);
      assert.equal(calls('putListingsItem') - puts, 1, 'the new child alone: the parent and the blue child are as they were');
      assert.equal(calls('deleteListingsItem') - deletes, 1);
      assert.deepEqual(
        (await inspected(me.account)).map((s) => [s.id, s.parent_sku ?? null]),
        [
          ['F5-W-PARENT', null],
          ['F5-B', 'F5-W-PARENT'],
          ['F5-G', 'F5-W-PARENT'],
        ],
      );
      const after = await listing(me, published.json().data.id);
      assert.deepEqual([after.external_id, after.sync_status], ['F5-W-PARENT', 'synced']);
    });

    test('a family cannot lose its options: the change fails with the issue, and Amazon keeps the family', async () => {
      const me = await amazonSeller(t, '756');
      const mug = await product(me, 'F6');
      const published = await publish(me, mug, 'KITCHEN', { material: 'Stoneware' });
      await runDueJobs(t, LISTING_QUEUE);
      const current = (await call(t, 'GET', `/products/${mug}`, me.as)).json().data;
      const single = { options: [], variants: [{ ...current.variants[0], option_values: {} }] };
      assert.equal((await call(t, 'PATCH', `/products/${mug}`, { ...me.as, body: single })).statusCode, 200);
      const puts = calls('putListingsItem');
      await runDueJobs(t, LISTING_QUEUE);
      const failed = await listing(me, published.json().data.id);
      assert.equal(failed.sync_status, 'failed', JSON.stringify(failed));
      assert.deepEqual(
        failed.issues.map((i: { field: string; code: string }) => [i.field, i.code]),
        [['product.options', 'amazon_family_kept']],
      );
      assert.equal(calls('putListingsItem'), puts);
      assert.equal((await inspected(me.account)).length, 3);
    });

    test('an import takes a family made elsewhere as one product: the parent no product, each child a variant', async () => {
      // The family is made by one workspace; another, connected to the same Amazon account, imports it.
      const maker = await amazonSeller(t, '758');
      const mug = await product(maker, 'F8');
      assert.equal((await publish(maker, mug, 'KITCHEN', { material: 'Stoneware', bullet_point: 'Holds 350 ml' })).statusCode, 202);
      await runDueJobs(t, LISTING_QUEUE);
      t.clock.advance(SANDBOX_REVIEW_MS);
      const me = await amazonSeller(t, '758');
      assert.equal((await call(t, 'POST', `/sites/${me.site}/listings/import`, me.as)).statusCode, 202);
      await runDueJobs(t, IMPORT_QUEUE);
      const done = (await call(t, 'GET', `/sites/${me.site}/listings/import`, me.as)).json().data;
      assert.deepEqual([done.status, done.found, done.created, done.skipped], ['done', 1, 1, 0], JSON.stringify(done));
      const [imported] = (await call(t, 'GET', `/sites/${me.site}/listings`, me.as)).json().data;
      assert.deepEqual(
        [imported.external_id, imported.status, imported.attributes.variation_theme, imported.attributes.material],
        ['F8-W-PARENT', 'active', 'COLOR', 'Stoneware'],
      );
      const made = (await call(t, 'GET', `/products/${imported.product_id}`, me.as)).json().data;
      assert.deepEqual(
        [
          made.title,
          made.options,
          made.variants.map((v: { sku: string; option_values: object; barcode: string }) => [v.sku, v.option_values, v.barcode]),
        ],
        [
          'Stoneware mug F8',
          [{ name: 'Color', values: ['White', 'Blue'] }],
          [
            ['F8-W', { Color: 'White' }, '012345678905'],
            ['F8-B', { Color: 'Blue' }, '4006381333931'],
          ],
        ],
      );
      // What the import recorded is what a delivery sends: a price change is one PATCH, the parent left alone.
      const puts = calls('putListingsItem');
      const patches = calls('patchListingsItem');
      made.variants[1].price = '22.00';
      assert.equal((await call(t, 'PATCH', `/products/${made.id}`, { ...me.as, body: { variants: made.variants } })).statusCode, 200);
      await runDueJobs(t, LISTING_QUEUE);
      assert.deepEqual([calls('putListingsItem') - puts, calls('patchListingsItem') - patches], [0, 1]);
      const blue = (await inspected(me.account)).find((s) => s.id === 'F8-B')!;
      assert.equal(blue.skus[0]!.price, '22.00');
    });

    test("a family's parent SKU that Amazon holds already is not put over: the listing fails with the issue, Amazon's SKU untouched", async () => {
      // Another workspace on the same Amazon account listed a family whose first variant has the same SKU: Amazon holds
      // F9-W-PARENT as that family's parent.
      const other = await amazonSeller(t, '759');
      const theirs = await product(other, 'F9');
      assert.equal((await publish(other, theirs, 'KITCHEN', { material: 'Stoneware' })).statusCode, 202);
      await runDueJobs(t, LISTING_QUEUE);
      const before = JSON.stringify(stored(other, 'F9-W-PARENT'));
      assert.ok(stored(other, 'F9-W-PARENT'), 'the other family is on Amazon');

      const me = await amazonSeller(t, '759');
      const mine = await product(me, 'F9', { title: 'Another mug F9' });
      const puts = calls('putListingsItem');
      const published = await publish(me, mine, 'KITCHEN', { material: 'Stoneware', bullet_point: 'Another glaze' });
      assert.equal(published.statusCode, 202, published.body);
      await runDueJobs(t, LISTING_QUEUE);
      const refused = await listing(me, published.json().data.id);
      assert.equal(refused.sync_status, 'failed', JSON.stringify(refused));
      assert.deepEqual(
        refused.issues.map((i: { code: string; field: string }) => [i.code, i.field]),
        [['amazon_parent_sku_taken', 'product.variants.0.sku']],
      );
      assert.equal(calls('putListingsItem'), puts, 'nothing put over the SKU Amazon holds');
      assert.equal(JSON.stringify(stored(other, 'F9-W-PARENT')), before);
    });

    test('a variant SKU ending in -PARENT is refused on Amazon: Storelink names family parents so', async () => {
      const me = await amazonSeller(t, '757');
      const clash = await product(me, 'F7', {
        variants: [
          { sku: 'F7-W', option_values: { Color: 'White' }, price: '18.00', quantity: 4, barcode: '012345678905' },
          { sku: 'F7-W-PARENT', option_values: { Color: 'Blue' }, price: '18.00', quantity: 4, barcode: '4006381333931' },
        ],
      });
      const refused = await publish(me, clash, 'KITCHEN', { material: 'Stoneware' });
      assert.equal(refused.statusCode, 422, refused.body);
      assert.deepEqual(Object.keys(refused.json().errors), ['product.variants.1.sku']);
    });
  });
}
