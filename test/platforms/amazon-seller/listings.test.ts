/**
 * Listings on Amazon end to end (DESIGN §10, listings.md §3), against the sandbox Amazon's SP-API over real HTTP: the
 * site's marketplaces and conditions, product types as categories with their schemas' attributes, validate (the schema
 * checked locally, then VALIDATION_PREVIEW), a publish of two SKUs processed before they are buyable, price and stock
 * patched without a new submission, deactivate and activate by stock, delete, a suppressed listing, an offer on an
 * existing ASIN, a lost PUT answer, and an import from the All Listings report that sends nothing until the catalogue
 * changes.
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import { IMPORT_QUEUE } from '../../../src/core/listings/listing-import.js';
import { READ_QUEUE } from '../../../src/core/listings/listing-watch.js';
import { LISTING_QUEUE } from '../../../src/core/listings/listing-work.js';
import { setAmazonSellerRateLimit } from '../../../src/sandbox/amazon-seller/listings-rate-limits.js';
import { databaseKinds } from '../../helpers/database.js';
import { SANDBOX_REVIEW_MS } from '../../helpers/fixtures.js';
import { amazonSeller, mugProduct } from '../../helpers/listings.js';
import { call, createTestApp, runDueJobs, type TestApp } from '../../helpers/test-app.js';

interface Held {
  id: string;
  title: string;
  state: string;
  skus: { sku: string; price: string | null; quantity: number }[];
  /** The handling time of the seller's own channel (`lead_time_to_ship_max_days`). */
  handling_time: number | null;
  /** Who fulfils the SKU: `DEFAULT` (the seller) or Amazon's channel (FBA). */
  fulfillment_channel: string;
  asin: string;
  requirements: string;
  status: string[];
  issues: { code: string; message: string }[];
  /** A family's child names its parent; a parent its theme (DESIGN §15). */
  parent_sku?: string | null;
  variation_theme?: string | null;
}

for (const kind of databaseKinds()) {
  describe(`listings on Amazon [${kind}]`, () => {
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
    /** Every SKU the account holds, a family's parent too. */
    const inspected = async (account: string): Promise<Held[]> => {
      const response = await fetch(`${base}/sandbox/amazon-seller/accounts/${account}/listings`);
      assert.equal(response.status, 200);
      return response.json() as Promise<Held[]>;
    };
    /** The SKUs a buyer buys: every one but a family's parent. */
    const held = async (account: string): Promise<Held[]> => (await inspected(account)).filter((each) => !each.variation_theme);
    const listing = async (me: Seller, id: number) => (await call(t, 'GET', `/listings/${id}`, me.as)).json().data;
    const calls = (operation: string) => t.deps.sandbox.calls.get(`amazon-seller:${operation}`) ?? 0;
    const mug = (me: Seller, sku: string, options: { title?: string; brand?: string | null } = {}) =>
      mugProduct(t, me, sku, {
        ...(options.brand === null ? {} : { brand: options.brand ?? 'Sandbox Pottery' }),
        barcodes: ['012345678905', '4006381333931'],
        ...(options.title ? { title: options.title } : {}),
      });
    const publish = async (me: Seller, sku: string, options: { title?: string; attributes?: Record<string, unknown> } = {}) => {
      const productId = await mug(me, sku, options);
      const body = { product_id: productId, category_id: 'KITCHEN', attributes: options.attributes ?? { material: 'Stoneware' } };
      const published = await call(t, 'POST', `/sites/${me.site}/listings`, { ...me.as, body });
      assert.equal(published.statusCode, 202, published.body);
      return { productId, id: published.json().data.id as number };
    };
    /** Amazon's processing time passes, then the watch's sweep reads the listings due (in review: every minute). */
    const watched = async () => {
      t.clock.advance(61_000);
      await t.deps.listingWatch.sweep();
      await runDueJobs(t, READ_QUEUE);
    };
    const published = async (me: Seller, sku: string) => {
      const made = await publish(me, sku);
      await runDueJobs(t, LISTING_QUEUE);
      await watched();
      assert.equal((await listing(me, made.id)).status, 'active');
      return made;
    };

    test("settings, product types and their schemas' attributes come from Amazon", async () => {
      const me = await amazonSeller(t, '701', { settings: false });
      const options = (await call(t, 'GET', `/sites/${me.site}/listing-options`, me.as)).json().data;
      assert.deepEqual(options.marketplace_id, [
        { value: 'ATVPDKIKX0DER', label: 'Amazon.com (US)', currency: 'USD' },
        { value: 'A2EUQ1WTGCTBG2', label: 'Amazon.ca (CA)', currency: 'CAD' },
      ]);
      assert.deepEqual(options.condition_type.slice(0, 2), [
        { value: 'new_new', label: 'New' },
        { value: 'new_open_box', label: 'New - Open Box' },
      ]);
      const all = (await call(t, 'GET', `/sites/${me.site}/categories`, me.as)).json().data;
      assert.deepEqual(
        all.map((c: { id: string }) => c.id),
        ['PRODUCT', 'HOME', 'KITCHEN', 'SHIRT', 'LUGGAGE'],
      );
      const mugs = (await call(t, 'GET', `/sites/${me.site}/categories?q=mug`, me.as)).json().data;
      assert.deepEqual(mugs, [{ id: 'KITCHEN', name: 'Kitchen', path: ['Kitchen'], leaf: true }]);

      const home = (await call(t, 'GET', `/sites/${me.site}/categories/HOME/attributes`, me.as)).json().data;
      const material = home.find((a: { name: string }) => a.name === 'material');
      assert.equal(material.type, 'select');
      assert.equal(material.required, false);
      assert.ok(material.values.some((v: { value: string }) => v.value === 'Stoneware'));
      const names = home.map((a: { name: string }) => a.name);
      for (const filled of [
        'item_name',
        'product_description',
        'purchasable_offer',
        'fulfillment_availability',
        'main_product_image_locator',
      ])
        assert.ok(!names.includes(filled), `${filled} is Storelink's to fill`);
      for (const own of ['brand', 'condition_type', 'bullet_point', 'merchant_suggested_asin', 'color', 'manufacturer'])
        assert.ok(names.includes(own), `${own} offered: ${names}`);
      const shirt = (await call(t, 'GET', `/sites/${me.site}/categories/SHIRT/attributes`, me.as)).json().data;
      const size = shirt.find((a: { name: string }) => a.name === 'size');
      // Size is what SHIRT's themes vary on: the schema requires it of every SKU but a family's parent (a rule of its
      // `allOf`, as Amazon's hold them), so the form does not mark it required; the schema check still asks for it.
      assert.deepEqual([size.type, size.required, size.values[0]], ['select', false, { value: 'X-Small', label: 'X-Small' }]);
      // The themes a product with options lists under: the product type's, as a choice; PRODUCT has none.
      const kitchen = (await call(t, 'GET', `/sites/${me.site}/categories/KITCHEN/attributes`, me.as)).json().data;
      const theme = kitchen.find((a: { name: string }) => a.name === 'variation_theme');
      assert.deepEqual(
        [theme.type, theme.required, theme.values.map((v: { value: string }) => v.value)],
        ['select', false, ['COLOR', 'SIZE', 'SIZE/COLOR']],
      );
      const generic = (await call(t, 'GET', `/sites/${me.site}/categories/PRODUCT/attributes`, me.as)).json().data;
      assert.ok(!generic.some((a: { name: string }) => a.name === 'variation_theme'));
      assert.equal((await call(t, 'GET', `/sites/${me.site}/categories/NOPE/attributes`, me.as)).statusCode, 404);

      const productId = await mug(me, 'A0');
      const refused = await call(t, 'POST', `/sites/${me.site}/listings`, {
        ...me.as,
        body: { product_id: productId, category_id: 'KITCHEN', attributes: {} },
      });
      assert.equal(refused.statusCode, 422, refused.body);
      assert.match(JSON.stringify(refused.json()), /settings\.marketplace_id/);
    });

    test('validate: the schema checked locally (nothing sent), then VALIDATION_PREVIEW per SKU; nothing stored', async () => {
      const me = await amazonSeller(t, '702');
      const productId = await mug(me, 'A1');
      const validate = (attributes: Record<string, unknown>, product = productId) =>
        call(t, 'POST', `/sites/${me.site}/listings`, {
          ...me.as,
          body: { product_id: product, category_id: 'KITCHEN', attributes, mode: 'validate' },
        });
      const puts = calls('putListingsItem');
      const local = await validate({ color: 'x'.repeat(60) });
      assert.equal(local.statusCode, 200, local.body);
      assert.equal(local.json().data.valid, false);
      assert.deepEqual(
        local.json().data.issues.map((i: { field: string; source: string }) => [i.field, i.source]),
        [['attributes.color', 'storelink']],
      );
      assert.match(local.json().data.issues[0].message, /Color must have at most 50 characters/);
      assert.equal(calls('putListingsItem'), puts, 'a listing the schema refuses is not sent');

      const preview = await validate({ material: 'Stoneware' });
      assert.equal(preview.statusCode, 200, preview.body);
      assert.deepEqual(preview.json().data, { valid: true, issues: [] });
      assert.equal(calls('putListingsItem'), puts + 3, "one VALIDATION_PREVIEW per SKU, the family's parent's too");
      assert.deepEqual(await inspected(me.account), []);

      // Amazon's own word on an ASIN its catalogue lacks: an offer refused in VALIDATION_PREVIEW.
      const unknownAsin = await validate({ merchant_suggested_asin: 'B0NOSUCH00' });
      assert.equal(unknownAsin.json().data.valid, false);
      assert.deepEqual(
        unknownAsin.json().data.issues.map((i: { code: string; source: string; field: string }) => [i.code, i.source, i.field]),
        [
          ['8541', 'platform', 'attributes.merchant_suggested_asin'],
          ['8541', 'platform', 'attributes.merchant_suggested_asin'],
        ],
      );

      // Storelink's own rules: a brand, and the marketplace's currency.
      const unbranded = await mug(me, 'A1X', { brand: null });
      const refused = await call(t, 'POST', `/sites/${me.site}/listings`, {
        ...me.as,
        body: { product_id: unbranded, category_id: 'KITCHEN', attributes: {} },
      });
      assert.equal(refused.statusCode, 422, refused.body);
      assert.match(JSON.stringify(refused.json().errors), /product\.brand/);
      const pounds = await call(t, 'PATCH', `/products/${productId}`, { ...me.as, body: { currency: 'GBP' } });
      assert.equal(pounds.statusCode, 200, pounds.body);
      // A pound product in the US marketplace: never offered at its pound figure, the missing rate named.
      const wrong = await validate({});
      assert.deepEqual(
        wrong.json().data.issues.map((i: { field: string; message: string }) => [i.field, i.message]),
        [
          [
            'exchange_rates',
            "The product is priced in GBP and this site lists in USD: set the site's exchange rate from GBP to USD in its listing settings.",
          ],
        ],
      );
      assert.deepEqual(await inspected(me.account), []);
    });

    test("ten validations at once of a product type not read before share one read of Amazon's definition", async () => {
      const me = await amazonSeller(t, '709');
      const products = [];
      for (let i = 0; i < 10; i++) products.push(await mug(me, `LUG${i}`));
      const definitions = calls('getDefinitionsProductType');
      const answers = await Promise.all(
        products.map((productId) =>
          call(t, 'POST', `/sites/${me.site}/listings`, {
            ...me.as,
            body: { product_id: productId, category_id: 'LUGGAGE', attributes: { material: 'Canvas' }, mode: 'validate' },
          }),
        ),
      );
      assert.deepEqual(
        answers.map((answer) => answer.statusCode),
        Array(10).fill(200),
      );
      assert.equal(calls('getDefinitionsProductType') - definitions, 1);
    });

    test('publish: a family, its parent and a child SKU per variant, ACCEPTED and in review, then active once buyable', async () => {
      const me = await amazonSeller(t, '703');
      const { id } = await publish(me, 'A2');
      await runDueJobs(t, LISTING_QUEUE);
      const inReview = await listing(me, id);
      assert.equal(inReview.status, 'in_review', JSON.stringify(inReview));
      assert.equal(inReview.platform_status, 'ACCEPTED');
      // A product with options is a variation family: the listing is its parent SKU (DESIGN §15).
      assert.equal(inReview.external_id, 'A2-W-PARENT');
      // The listing is in the site's marketplace (DESIGN §10: Amazon's; null on the other platforms).
      assert.equal(inReview.marketplace_id, 'ATVPDKIKX0DER');
      assert.deepEqual(
        inReview.variants.map((v: { sku: string; external_id: string | null }) => [v.sku, /^B0/.test(v.external_id ?? '')]),
        [
          ['A2-W', true],
          ['A2-B', true],
        ],
      );
      const skus = await held(me.account);
      assert.deepEqual(
        skus.map((s) => [s.id, s.title, s.state, s.skus[0]]),
        [
          ['A2-W', 'Stoneware mug A2 — White', 'in_review', { sku: 'A2-W', price: '18.00', quantity: 4 }],
          ['A2-B', 'Stoneware mug A2 — Blue', 'in_review', { sku: 'A2-B', price: '19.50', quantity: 2 }],
        ],
      );
      // The family as Amazon holds it: the parent (no price of its own) under the theme its Color option fits, each
      // variant a child of it.
      assert.deepEqual(
        (await inspected(me.account)).map((s) => [s.id, s.title, s.variation_theme ?? null, s.parent_sku ?? null, s.skus[0]!.price]),
        [
          ['A2-W-PARENT', 'Stoneware mug A2', 'COLOR', null, null],
          ['A2-W', 'Stoneware mug A2 — White', null, 'A2-W-PARENT', '18.00'],
          ['A2-B', 'Stoneware mug A2 — Blue', null, 'A2-W-PARENT', '19.50'],
        ],
      );
      // Still processing: the watch's read keeps it in review.
      await t.deps.listingWatch.sweep();
      t.clock.advance(1_000);
      const early = await watchedEarly(me, id);
      assert.equal(early.status, 'in_review');

      t.clock.advance(SANDBOX_REVIEW_MS);
      await watched();
      const live = await listing(me, id);
      assert.equal(live.status, 'active', JSON.stringify(live));
      assert.equal(live.platform_status, 'BUYABLE,DISCOVERABLE');
      assert.equal(live.external_url, `https://www.amazon.com/dp/${skus[0]!.asin}`);
      assert.deepEqual(
        (await held(me.account)).map((s) => s.state),
        ['active', 'active'],
      );
    });

    /** The read of a listing now (a refresh's work reads it back). */
    const watchedEarly = async (me: Seller, id: number) => {
      assert.equal((await call(t, 'POST', `/listings/${id}/refresh`, me.as)).statusCode, 202);
      await runDueJobs(t, LISTING_QUEUE);
      return listing(me, id);
    };

    test('a price change is one PATCH of the offer (no PUT); a title change puts the SKUs again', async () => {
      const me = await amazonSeller(t, '704');
      const { id, productId } = await published(me, 'A3');
      const variants = (await call(t, 'GET', `/products/${productId}`, me.as)).json().data.variants;
      variants[0].price = '21.00';
      variants[1].quantity = 7;
      const puts = calls('putListingsItem');
      const patches = calls('patchListingsItem');
      assert.equal((await call(t, 'PATCH', `/products/${productId}`, { ...me.as, body: { variants } })).statusCode, 200);
      await runDueJobs(t, LISTING_QUEUE);
      assert.equal(calls('putListingsItem'), puts, 'no PUT for a price');
      assert.equal(calls('patchListingsItem'), patches + 2, 'one PATCH per SKU changed');
      const [white, blue] = await held(me.account);
      assert.deepEqual([white!.skus[0]!.price, blue!.skus[0]!.quantity], ['21.00', 7]);
      const after = await listing(me, id);
      assert.deepEqual([after.status, after.sync_status], ['active', 'synced']);

      assert.equal((await call(t, 'PATCH', `/products/${productId}`, { ...me.as, body: { title: 'Speckled mug' } })).statusCode, 200);
      await runDueJobs(t, LISTING_QUEUE);
      assert.equal(calls('putListingsItem'), puts + 3, 'the parent and both children');
      assert.deepEqual(
        (await inspected(me.account)).map((s) => s.title),
        ['Speckled mug', 'Speckled mug — White', 'Speckled mug — Blue'],
      );
    });

    test('the handling time the seller set on Amazon survives a price and stock change, deactivate and activate, and a title change', async () => {
      const me = await amazonSeller(t, '712');
      const { id, productId } = await published(me, 'A11');
      const edit = await fetch(`${base}/sandbox/amazon-seller/accounts/${me.account}/listings/A11-W`, {
        method: 'PATCH',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ handling_time: 4 }),
      });
      assert.equal(edit.status, 200, await edit.text());
      const variants = (await call(t, 'GET', `/products/${productId}`, me.as)).json().data.variants;
      variants[0].price = '21.00';
      variants[0].quantity = 9;
      assert.equal((await call(t, 'PATCH', `/products/${productId}`, { ...me.as, body: { variants } })).statusCode, 200);
      await runDueJobs(t, LISTING_QUEUE);
      const [white] = await held(me.account);
      assert.deepEqual([white!.skus[0]!.price, white!.skus[0]!.quantity, white!.handling_time], ['21.00', 9, 4]);

      for (const action of ['deactivate', 'activate']) {
        assert.equal((await call(t, 'POST', `/listings/${id}/${action}`, me.as)).statusCode, 202);
        await runDueJobs(t, LISTING_QUEUE);
      }
      const [back] = await held(me.account);
      assert.deepEqual([back!.skus[0]!.quantity, back!.handling_time], [9, 4], 'the stock back, the handling time kept');

      // A title change puts the SKU whole (a PUT replaces its attributes): the handling time the reads found goes with it.
      const puts = calls('putListingsItem');
      assert.equal((await call(t, 'PATCH', `/products/${productId}`, { ...me.as, body: { title: 'Speckled mug' } })).statusCode, 200);
      await runDueJobs(t, LISTING_QUEUE);
      assert.ok(calls('putListingsItem') > puts, 'the title change is a PUT');
      const [renamed] = await held(me.account);
      assert.deepEqual(
        [renamed!.title, renamed!.skus[0]!.quantity, renamed!.handling_time],
        ['Speckled mug — White', 9, 4],
        'the title changed, the handling time kept',
      );
    });

    test('a SKU Amazon fulfils (FBA) is read as such: its price still changes, its stock is never written', async () => {
      const me = await amazonSeller(t, '714');
      const { id, productId } = await published(me, 'A13');
      // The seller sends the white mug to Amazon's warehouses in Seller Central: Amazon counts 40 of it.
      const edit = await fetch(`${base}/sandbox/amazon-seller/accounts/${me.account}/listings/A13-W`, {
        method: 'PATCH',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ fulfillment_channel: 'AMAZON_NA', quantity: 40 }),
      });
      assert.equal(edit.status, 200, await edit.text());
      await t.deps.listingWatch.read({ listingId: id });
      // The API says who ships each variant: Amazon the white one now, the seller the blue one.
      assert.deepEqual(
        (await listing(me, id)).variants.map((v: { sku: string; fulfilled_by: string }) => [v.sku, v.fulfilled_by]),
        [
          ['A13-W', 'platform'],
          ['A13-B', 'seller'],
        ],
      );

      const variants = (await call(t, 'GET', `/products/${productId}`, me.as)).json().data.variants;
      variants[0].price = '23.00';
      variants[0].quantity = 3;
      variants[1].quantity = 8;
      assert.equal((await call(t, 'PATCH', `/products/${productId}`, { ...me.as, body: { variants } })).statusCode, 200);
      await runDueJobs(t, LISTING_QUEUE);
      const after = await listing(me, id);
      assert.deepEqual([after.status, after.sync_status], ['active', 'synced'], JSON.stringify(after.issues));
      const [white, blue] = await held(me.account);
      assert.deepEqual(
        [white!.fulfillment_channel, white!.skus[0]!.price, white!.skus[0]!.quantity],
        ['AMAZON_NA', '23.00', 40],
        "the price changed, Amazon's count kept",
      );
      assert.deepEqual([blue!.fulfillment_channel, blue!.skus[0]!.quantity], ['DEFAULT', 8]);

      // Switching the listing off and on leaves Amazon's count alone: only the seller's own SKU goes to 0 and back.
      assert.equal((await call(t, 'POST', `/listings/${id}/deactivate`, me.as)).statusCode, 202);
      await runDueJobs(t, LISTING_QUEUE);
      assert.deepEqual(
        (await held(me.account)).map((s) => s.skus[0]!.quantity),
        [40, 0],
      );
    });

    test("an FBA SKU is imported as such: Amazon's count as its stock, and a stock change after it sends the price alone", async () => {
      const me = await amazonSeller(t, '715', { listings: 'stocked' });
      const edit = await fetch(`${base}/sandbox/amazon-seller/accounts/${me.account}/listings/MUG-SPECKLE`, {
        method: 'PATCH',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ fulfillment_channel: 'AMAZON_NA', quantity: 25 }),
      });
      assert.equal(edit.status, 200, await edit.text());
      assert.equal((await call(t, 'POST', `/sites/${me.site}/listings/import`, me.as)).statusCode, 202);
      await runDueJobs(t, IMPORT_QUEUE);
      const listings = (await call(t, 'GET', `/sites/${me.site}/listings?per_page=100`, me.as)).json().data;
      const mug = listings.find((l: { external_id: string }) => l.external_id === 'MUG-SPECKLE');
      assert.equal(mug.status, 'active');
      const product = (await call(t, 'GET', `/products/${mug.product_id}`, me.as)).json().data;
      assert.equal(product.variants[0].quantity, 25, "Amazon's count");
      product.variants[0].quantity = 2;
      product.variants[0].price = '31.00';
      assert.equal((await call(t, 'PATCH', `/products/${product.id}`, { ...me.as, body: { variants: product.variants } })).statusCode, 200);
      await runDueJobs(t, LISTING_QUEUE);
      assert.equal((await listing(me, mug.id)).sync_status, 'synced');
      const now = (await held(me.account)).find((s) => s.id === 'MUG-SPECKLE')!;
      assert.deepEqual([now.fulfillment_channel, now.skus[0]!.price, now.skus[0]!.quantity], ['AMAZON_NA', '31.00', 25]);
    });

    test('the handling time of an imported SKU survives a title change (a PUT of the whole SKU)', async () => {
      const me = await amazonSeller(t, '716', { listings: 'stocked' });
      const edit = await fetch(`${base}/sandbox/amazon-seller/accounts/${me.account}/listings/MUG-SPECKLE`, {
        method: 'PATCH',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ handling_time: 3 }),
      });
      assert.equal(edit.status, 200, await edit.text());
      assert.equal((await call(t, 'POST', `/sites/${me.site}/listings/import`, me.as)).statusCode, 202);
      await runDueJobs(t, IMPORT_QUEUE);
      const listings = (await call(t, 'GET', `/sites/${me.site}/listings?per_page=100`, me.as)).json().data;
      const mug = listings.find((l: { external_id: string }) => l.external_id === 'MUG-SPECKLE');
      const puts = calls('putListingsItem');
      assert.equal(
        (await call(t, 'PATCH', `/products/${mug.product_id}`, { ...me.as, body: { title: 'Speckled mug, large' } })).statusCode,
        200,
      );
      await runDueJobs(t, LISTING_QUEUE);
      assert.equal(calls('putListingsItem'), puts + 1, 'the title change is a PUT');
      const now = (await held(me.account)).find((s) => s.id === 'MUG-SPECKLE')!;
      assert.deepEqual([now.title, now.handling_time], ['Speckled mug, large', 3]);
    });

    test("a grant the seller revoked, which Amazon says in the 403's details, turns the site reauthorization_required", async () => {
      const me = await amazonSeller(t, '713');
      const { id, productId } = await published(me, 'A12');
      const revoked = await t.app.inject({ method: 'POST', url: '/sandbox/revoke', payload: { track: 'amazon-seller', account: 713 } });
      assert.equal(revoked.statusCode, 204);
      const variants = (await call(t, 'GET', `/products/${productId}`, me.as)).json().data.variants;
      variants[0].price = '22.00';
      assert.equal((await call(t, 'PATCH', `/products/${productId}`, { ...me.as, body: { variants } })).statusCode, 200);
      await runDueJobs(t, LISTING_QUEUE);
      const site = (await call(t, 'GET', `/sites/${me.site}`, me.as)).json().data;
      assert.equal(site.status, 'reauthorization_required', JSON.stringify(site));
      assert.equal((await listing(me, id)).sync_status, 'syncing', 'the change waits for the seller to reconnect');
    });

    test('deactivate is stock 0 on every SKU (inactive); activate puts the stock back, active at once (no new review); delete', async () => {
      const me = await amazonSeller(t, '705');
      const { id, productId } = await published(me, 'A4');
      assert.equal((await call(t, 'POST', `/listings/${id}/deactivate`, me.as)).statusCode, 202);
      await runDueJobs(t, LISTING_QUEUE);
      assert.equal((await listing(me, id)).status, 'inactive');
      assert.deepEqual(
        (await held(me.account)).map((s) => s.skus[0]!.quantity),
        [0, 0],
      );
      t.clock.advance(SANDBOX_REVIEW_MS);
      assert.deepEqual(
        (await held(me.account)).map((s) => s.state),
        ['inactive', 'inactive'],
      );
      // While off, a stock change in the catalogue keeps Amazon's at 0.
      const variants = (await call(t, 'GET', `/products/${productId}`, me.as)).json().data.variants;
      variants[0].quantity = 9;
      assert.equal((await call(t, 'PATCH', `/products/${productId}`, { ...me.as, body: { variants } })).statusCode, 200);
      await runDueJobs(t, LISTING_QUEUE);
      assert.equal((await held(me.account))[0]!.skus[0]!.quantity, 0);
      assert.equal((await listing(me, id)).status, 'inactive');

      assert.equal((await call(t, 'POST', `/listings/${id}/activate`, me.as)).statusCode, 202);
      await runDueJobs(t, LISTING_QUEUE);
      // A stock change is no new submission of the product: buyable again, read back at once, not sent to review.
      assert.deepEqual(
        (await held(me.account)).map((s) => [s.skus[0]!.quantity, s.state]),
        [
          [9, 'active'],
          [2, 'active'],
        ],
      );
      assert.deepEqual([(await listing(me, id)).status, (await listing(me, id)).platform_status], ['active', 'BUYABLE,DISCOVERABLE']);

      assert.equal((await call(t, 'DELETE', `/listings/${id}`, me.as)).statusCode, 202);
      await runDueJobs(t, LISTING_QUEUE);
      assert.equal((await listing(me, id)).status, 'deleted');
      assert.deepEqual(await inspected(me.account), [], "the children, then the family's parent");
    });

    test("a prohibited item name is suppressed: rejected with Amazon's issue", async () => {
      const me = await amazonSeller(t, '706');
      const { id } = await publish(me, 'A5', { title: 'Mug with a prohibited slogan' });
      await runDueJobs(t, LISTING_QUEUE);
      t.clock.advance(SANDBOX_REVIEW_MS);
      await watched();
      const rejected = await listing(me, id);
      assert.equal(rejected.status, 'rejected', JSON.stringify(rejected));
      assert.equal(rejected.platform_status, 'SUPPRESSED');
      assert.deepEqual(
        rejected.issues.map((i: { code: string; source: string; field: string; message: string }) => [
          i.code,
          i.source,
          i.field,
          i.message.slice(0, 6),
        ]),
        [
          ['99300', 'platform', 'attributes.item_name', 'A5-W: '],
          ['99300', 'platform', 'attributes.item_name', 'A5-B: '],
        ],
      );
    });

    test('an offer on an existing ASIN (merchant_suggested_asin) goes as LISTING_OFFER_ONLY', async () => {
      const me = await amazonSeller(t, '707');
      const productId = await mug(me, 'A6');
      // One SKU: an offer of one product on one ASIN.
      const one = (await call(t, 'GET', `/products/${productId}`, me.as)).json().data;
      const single = await call(t, 'PATCH', `/products/${productId}`, {
        ...me.as,
        body: { options: [], variants: [{ ...one.variants[0], option_values: {} }] },
      });
      assert.equal(single.statusCode, 200, single.body);
      const body = { product_id: productId, category_id: 'LUGGAGE', attributes: { merchant_suggested_asin: 'B0CATAL002' } };
      const made = await call(t, 'POST', `/sites/${me.site}/listings`, { ...me.as, body });
      assert.equal(made.statusCode, 202, made.body);
      await runDueJobs(t, LISTING_QUEUE);
      const [offer] = await held(me.account);
      assert.deepEqual(
        [offer!.id, offer!.asin, offer!.requirements, offer!.title],
        ['A6-W', 'B0CATAL002', 'LISTING_OFFER_ONLY', 'Cotton canvas tote bag, natural'],
      );
      t.clock.advance(SANDBOX_REVIEW_MS);
      await watched();
      assert.equal((await listing(me, made.json().data.id)).status, 'active');
    });

    test("a brand's GTIN exemption asks for no barcode: without it a barcode (or an ASIN) is required, with it neither", async () => {
      const me = await amazonSeller(t, '741');
      const attributes = (await call(t, 'GET', `/sites/${me.site}/categories/KITCHEN/attributes`, me.as)).json().data;
      const exemption = attributes.find((a: { name: string }) => a.name === 'supplier_declared_has_product_identifier_exemption');
      // A yes-or-no choice, as Amazon's schema gives it (enum false, true named No, Yes).
      assert.deepEqual(
        [exemption?.type, exemption?.required, exemption?.values.map((v: { label: string }) => v.label)],
        ['select', false, ['No', 'Yes']],
      );
      // The mug without barcodes: Amazon's schema asks for an identifier of each SKU. Offered by barcode (no ASIN
      // given), the barcode is asked for, in words, and the ASIN is not.
      const productId = await mugProduct(t, me, 'AX', { brand: 'Sandbox Pottery' });
      const body = { product_id: productId, category_id: 'KITCHEN', attributes: { material: 'Stoneware' } };
      const without = await call(t, 'POST', `/sites/${me.site}/listings`, { ...me.as, body: { ...body, mode: 'validate' } });
      assert.equal(without.json().data.valid, false);
      const issues: { field: string; message: string }[] = without.json().data.issues;
      assert.deepEqual([...new Set(issues.map((i) => i.field))], ['product.variants.0.barcode', 'product.variants.1.barcode']);
      for (const issue of issues) {
        assert.match(issue.message, /^Amazon needs a barcode \(UPC, EAN or GTIN\) on each variant of a new product/);
        assert.doesNotMatch(issue.message, /External Product ID|Merchant Suggested ASIN/);
      }
      const exempt = { ...body, attributes: { ...body.attributes, supplier_declared_has_product_identifier_exemption: 'true' } };
      const validated = await call(t, 'POST', `/sites/${me.site}/listings`, { ...me.as, body: { ...exempt, mode: 'validate' } });
      assert.deepEqual(validated.json().data, { valid: true, issues: [] });
      const made = await call(t, 'POST', `/sites/${me.site}/listings`, { ...me.as, body: exempt });
      assert.equal(made.statusCode, 202, made.body);
      await runDueJobs(t, LISTING_QUEUE);
      assert.deepEqual(
        (await held(me.account)).map((s) => [s.id, s.state]),
        [
          ['AX-W', 'in_review'],
          ['AX-B', 'in_review'],
        ],
      );
    });

    test('a PUT Amazon took but answered 500 is sent again to the same SKU: one listing', async () => {
      const me = await amazonSeller(t, '708');
      const { id } = await publish(me, 'A7');
      t.deps.sandbox.faults.set('amazon-seller', 'listing', 'ghost');
      await runDueJobs(t, LISTING_QUEUE);
      t.deps.sandbox.faults.set('amazon-seller', 'listing', null);
      assert.equal((await listing(me, id)).status, 'pending');
      assert.deepEqual(
        (await inspected(me.account)).map((s) => s.id),
        ['A7-W-PARENT'],
        "Amazon took the first SKU: the family's parent",
      );
      t.clock.advance(60_000);
      await runDueJobs(t, LISTING_QUEUE);
      const listed = await listing(me, id);
      assert.equal(listed.status, 'in_review', JSON.stringify(listed));
      assert.deepEqual(
        (await held(me.account)).map((s) => s.id),
        ['A7-W', 'A7-B'],
      );
    });

    test('import of a stocked account: statuses mapped, products made, a second import updates; a price change is a PATCH only', async () => {
      const me = await amazonSeller(t, '709', { listings: 'stocked' });
      assert.equal((await call(t, 'POST', `/sites/${me.site}/listings/import`, me.as)).statusCode, 202);
      await runDueJobs(t, IMPORT_QUEUE);
      const done = (await call(t, 'GET', `/sites/${me.site}/listings/import`, me.as)).json().data;
      assert.deepEqual([done.status, done.found, done.created, done.skipped], ['done', 6, 6, 0], JSON.stringify(done));
      const listings = (await call(t, 'GET', `/sites/${me.site}/listings?per_page=100`, me.as)).json().data;
      const bySku = Object.fromEntries(listings.map((l: { external_id: string }) => [l.external_id, l]));
      assert.deepEqual(Object.fromEntries(Object.entries(bySku).map(([sku, l]) => [sku, (l as { status: string }).status])), {
        'MUG-SPECKLE': 'active',
        'TEE-BLACK-M': 'active',
        'CANDLE-CEDAR': 'inactive',
        'BOTTLE-OFFER': 'active',
        'SIGN-TIN': 'rejected',
        'BAG-WEEKENDER': 'active',
      });
      assert.equal(bySku['SIGN-TIN'].issues[0].code, '99300');
      assert.equal(bySku['MUG-SPECKLE'].attributes.material, 'Stoneware');
      assert.equal(bySku['BAG-WEEKENDER'].attributes.condition_type, 'used_like_new');
      assert.equal(bySku['BOTTLE-OFFER'].attributes.merchant_suggested_asin, 'B0CATAL001');
      const products = (await call(t, 'GET', '/products?q=MUG-SPECKLE', me.as)).json().data;
      assert.equal(products[0].title, 'Stoneware mug with a speckled glaze, 350 ml');
      assert.equal(products[0].price, '28.00');

      assert.equal((await call(t, 'POST', `/sites/${me.site}/listings/import`, me.as)).statusCode, 202);
      await runDueJobs(t, IMPORT_QUEUE);
      const again = (await call(t, 'GET', `/sites/${me.site}/listings/import`, me.as)).json().data;
      assert.deepEqual([again.found, again.created, again.updated], [6, 0, 6]);

      // The prints an import records are a delivery's: a price change sends one PATCH, nothing else.
      const puts = calls('putListingsItem');
      const patches = calls('patchListingsItem');
      for (const sku of ['MUG-SPECKLE', 'BAG-WEEKENDER', 'BOTTLE-OFFER']) {
        const product = (await call(t, 'GET', `/products/${bySku[sku].product_id}`, me.as)).json().data;
        product.variants[0].price = '30.00';
        assert.equal(
          (await call(t, 'PATCH', `/products/${product.id}`, { ...me.as, body: { variants: product.variants } })).statusCode,
          200,
        );
      }
      await runDueJobs(t, LISTING_QUEUE);
      assert.equal(calls('putListingsItem'), puts, 'an imported listing is not put again for a price');
      assert.equal(calls('patchListingsItem'), patches + 3);
      const now = await held(me.account);
      for (const sku of ['MUG-SPECKLE', 'BAG-WEEKENDER', 'BOTTLE-OFFER'])
        assert.equal(now.find((s) => s.id === sku)!.skus[0]!.price, '30.00', sku);
      assert.equal((await listing(me, bySku['MUG-SPECKLE'].id)).sync_status, 'synced');
    });

    test("a seller's edit in Seller Central is a difference; a refresh sends the catalogue's values again", async () => {
      const me = await amazonSeller(t, '710');
      const { id } = await published(me, 'A8');
      const edit = await fetch(`${base}/sandbox/amazon-seller/accounts/${me.account}/listings/A8-W`, {
        method: 'PATCH',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ price: '25.00' }),
      });
      assert.equal(edit.status, 200, await edit.text());
      t.clock.advance(6 * 3600_000 + 1_000);
      await t.deps.listingWatch.sweep();
      await runDueJobs(t, READ_QUEUE);
      const seen = await listing(me, id);
      assert.deepEqual(seen.differences, [{ field: 'variants.A8-W.price', platform: '25.00', catalogue: '18.00' }]);
      const puts = calls('putListingsItem');
      assert.equal((await call(t, 'POST', `/listings/${id}/refresh`, me.as)).statusCode, 202);
      await runDueJobs(t, LISTING_QUEUE);
      assert.equal(calls('putListingsItem'), puts);
      assert.equal((await held(me.account))[0]!.skus[0]!.price, '18.00');
      assert.deepEqual((await listing(me, id)).differences, []);

      // An item name edited there: the SKU is put whole again by the refresh, the other SKU left alone.
      const renamed = await fetch(`${base}/sandbox/amazon-seller/accounts/${me.account}/listings/A8-W`, {
        method: 'PATCH',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ title: 'A mug renamed in Seller Central' }),
      });
      assert.equal(renamed.status, 200, await renamed.text());
      await t.deps.listingWatch.read({ listingId: id });
      assert.deepEqual((await listing(me, id)).differences, [
        { field: 'title', platform: 'A mug renamed in Seller Central', catalogue: 'Stoneware mug A8' },
      ]);
      assert.equal((await call(t, 'POST', `/listings/${id}/refresh`, me.as)).statusCode, 202);
      await runDueJobs(t, LISTING_QUEUE);
      assert.equal(calls('putListingsItem'), puts + 1);
      assert.deepEqual(
        (await held(me.account)).map((s) => s.title),
        ['Stoneware mug A8 — White', 'Stoneware mug A8 — Blue'],
      );
    });

    test('an account of more SKUs than searchListingsItems reaches is imported whole from the All Listings report', async () => {
      const me = await amazonSeller(t, '711', { listings: 'stocked-large' });
      assert.equal((await call(t, 'POST', `/sites/${me.site}/listings/import`, me.as)).statusCode, 202);
      for (let i = 0; i < 20; i++) await runDueJobs(t, IMPORT_QUEUE);
      const done = (await call(t, 'GET', `/sites/${me.site}/listings/import`, me.as)).json().data;
      assert.deepEqual([done.status, done.found, done.pages], ['done', 1206, 13], JSON.stringify(done));
      assert.equal(calls('searchListingsItems'), 0);
    });
  });
}
