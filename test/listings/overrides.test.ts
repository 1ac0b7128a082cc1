/**
 * Per-listing overrides (DESIGN §15): a listing's own title, description, images and prices, checked against the
 * platform's rules as a new listing is, shown on the record, sent to the platform, and `null` going back to the
 * product's. What each simulated platform holds is the proof.
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import { READ_QUEUE } from '../../src/core/listings/listing-watch.js';
import { LISTING_QUEUE } from '../../src/core/listings/listing-work.js';
import { setTikTokShopRateLimit } from '../../src/sandbox/tiktok-shop/product-store.js';
import { databaseKinds } from '../helpers/database.js';
import { PNG_640X480 } from '../helpers/fixtures.js';
import { etsySeller, type HeldListing, heldListings, heldPrices, leafCategory, mugProduct, tiktokSeller } from '../helpers/listings.js';
import { API, call, createTestApp, runDueJobs, type TestApp } from '../helpers/test-app.js';

type Seller = Awaited<ReturnType<typeof etsySeller>>;

const PNG = { bytes: PNG_640X480, type: 'image/png', name: 'mug.png' };

for (const kind of databaseKinds()) {
  describe(`listing overrides [${kind}]`, () => {
    let t: TestApp;
    before(async () => {
      t = await createTestApp(kind, { listen: true });
      Object.assign(t.deps.sandbox.etsyLimits, { perSecond: 1_000_000, perDay: 1_000_000_000 });
    });
    after(() => t.close());
    beforeEach(() => setTikTokShopRateLimit(t.deps.sandbox, 1_000_000));

    const held = (slug: string, account: string) => heldListings(t, slug, account);
    const pricesOf = (item: HeldListing | undefined) => heldPrices(item ? [item] : []);
    const listing = async (me: Seller, id: number) => (await call(t, 'GET', `/listings/${id}`, me.as)).json().data;
    const patch = (me: Seller, id: number, body: unknown) => call(t, 'PATCH', `/listings/${id}`, { ...me.as, body });
    const upload = async (me: Seller, productId: number) => {
      const form = new FormData();
      form.set('file', new Blob([PNG_640X480], { type: 'image/png' }), 'side.png');
      const uploaded = await fetch(`${t.deps.config.appUrl}${API}/products/${productId}/images`, {
        method: 'POST',
        headers: { authorization: `Bearer ${me.session}`, 'x-workspace-id': String(me.workspace.id) },
        body: form,
      });
      assert.equal(uploaded.status, 201);
      return ((await uploaded.json()) as { data: { id: number } }).data.id;
    };

    test('Etsy: a listing with its own title, prices and image order shows them, sends them, and goes back to the product’s on null', async () => {
      const me = await etsySeller(t, '911');
      const productId = await mugProduct(t, me, 'OV-E');
      const product = (await call(t, 'GET', `/products/${productId}`, me.as)).json().data;
      const first = product.images[0].id as number;
      const second = await upload(me, productId);
      const { id: categoryId, attributes } = await leafCategory(t, me, 'mug');
      const body = { product_id: productId, category_id: categoryId, attributes };

      // Checked as a new listing is: Etsy's 140 characters, the product's own images and skus.
      const refused = await call(t, 'POST', `/sites/${me.site}/listings`, {
        ...me.as,
        body: { ...body, overrides: { title: 'x'.repeat(141), images: [second, 999_999], variants: [{ sku: 'NOPE', price: '5.00' }] } },
      });
      assert.equal(refused.statusCode, 422, refused.body);
      assert.deepEqual(Object.keys(refused.json().errors).sort(), ['overrides.images.1', 'overrides.title', 'overrides.variants.0.sku']);
      assert.deepEqual(await held('etsy', me.account), []);

      const overrides = { title: 'Stoneware mug for the holidays', images: [second, first], variants: [{ sku: 'OV-E-B', price: '22.00' }] };
      const published = await call(t, 'POST', `/sites/${me.site}/listings`, { ...me.as, body: { ...body, overrides } });
      assert.equal(published.statusCode, 202, published.body);
      const { id } = published.json().data;
      await runDueJobs(t, LISTING_QUEUE);
      const live = await listing(me, id);
      assert.equal(live.status, 'active', JSON.stringify(live.issues));
      assert.equal(live.title, 'Stoneware mug for the holidays');
      assert.deepEqual(live.overrides, overrides);
      assert.deepEqual(
        live.variants.map((v: { sku: string; price: string }) => [v.sku, v.price]),
        [
          ['OV-E-W', '18.00'],
          ['OV-E-B', '22.00'],
        ],
      );
      const [shop] = await held('etsy', me.account);
      assert.equal(shop!.title, 'Stoneware mug for the holidays');
      assert.deepEqual(pricesOf(shop), { 'OV-E-W': 18, 'OV-E-B': 22 });
      assert.equal(shop!.image_ids?.length, 2);

      // One field back to the product's; the others stay.
      const reverted = await patch(me, id, { overrides: { title: null } });
      assert.equal(reverted.statusCode, 202, reverted.body);
      assert.deepEqual(reverted.json().data.overrides, { images: [second, first], variants: [{ sku: 'OV-E-B', price: '22.00' }] });
      await runDueJobs(t, LISTING_QUEUE);
      assert.equal((await held('etsy', me.account))[0]!.title, 'Stoneware mug OV-E');
      assert.equal((await listing(me, id)).title, 'Stoneware mug OV-E');

      // All of them: the product's prices again.
      const cleared = await patch(me, id, { overrides: null });
      assert.equal(cleared.statusCode, 202, cleared.body);
      await runDueJobs(t, LISTING_QUEUE);
      const plain = await listing(me, id);
      assert.equal(plain.overrides, null);
      assert.equal(plain.sync_status, 'synced');
      assert.deepEqual(pricesOf((await held('etsy', me.account))[0]), { 'OV-E-W': 18, 'OV-E-B': 19.5 });
      // A bad PATCH changes nothing.
      const bad = await patch(me, id, { overrides: { images: [999_999] } });
      assert.equal(bad.statusCode, 422);
      assert.equal((await listing(me, id)).overrides, null);
    });

    test("adopting a change made on Etsy to an overridden price takes it into the listing's override, not the product", async () => {
      const me = await etsySeller(t, '913');
      const productId = await mugProduct(t, me, 'OA');
      const { id: categoryId, attributes } = await leafCategory(t, me, 'mug');
      const overrides = { variants: [{ sku: 'OA-B', price: '22.00' }] };
      const body = { product_id: productId, category_id: categoryId, attributes, overrides };
      const { id } = (await call(t, 'POST', `/sites/${me.site}/listings`, { ...me.as, body })).json().data;
      await runDueJobs(t, LISTING_QUEUE);
      const [shop] = await held('etsy', me.account);
      // The seller raises the overridden price, and the white mug's, on etsy.com; six hours on, the read sees both.
      const edit = await fetch(`${t.deps.config.appUrl}/sandbox/etsy/accounts/${me.account}/listings/${shop!.id}`, {
        method: 'PATCH',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          skus: [
            { sku: 'OA-B', price: '25.00' },
            { sku: 'OA-W', price: '20.00' },
          ],
        }),
      });
      assert.equal(edit.status, 200, await edit.text());
      t.clock.advance(6 * 3600_000 + 1_000);
      await t.deps.listingWatch.sweep();
      await runDueJobs(t, READ_QUEUE);
      assert.deepEqual(
        (await listing(me, id)).differences.map((d: { field: string }) => d.field),
        ['variants.OA-W.price', 'variants.OA-B.price'],
      );
      const adopted = await call(t, 'POST', `/listings/${id}/adopt`, me.as);
      assert.equal(adopted.statusCode, 202, adopted.body);
      assert.deepEqual(adopted.json().data.overrides, { variants: [{ sku: 'OA-B', price: '25.00' }] });
      const product = (await call(t, 'GET', `/products/${productId}`, me.as)).json().data;
      assert.deepEqual(
        product.variants.map((v: { sku: string; price: string }) => [v.sku, v.price]),
        [
          ['OA-W', '20.00'],
          ['OA-B', '19.50'],
        ],
      );
      await runDueJobs(t, LISTING_QUEUE);
      const after = await listing(me, id);
      assert.deepEqual([after.sync_status, after.differences], ['synced', []]);
      assert.deepEqual(pricesOf((await held('etsy', me.account))[0]), { 'OA-W': 20, 'OA-B': 25 });
    });

    test('TikTok Shop: prices given for every variant in the market’s currency need no exchange rate', async () => {
      const me = await tiktokSeller(t, '912');
      const productId = await mugProduct(t, me, 'OV-T', { image: PNG, packaged: true, currency: 'USD' });
      const { id: categoryId, attributes } = await leafCategory(t, me, 'mug');
      const body = { product_id: productId, category_id: categoryId, attributes };
      // One variant priced, the other not: the rate is still needed.
      const half = await call(t, 'POST', `/sites/${me.site}/listings`, {
        ...me.as,
        body: { ...body, overrides: { variants: [{ sku: 'OV-T-W', price: '14.00' }] } },
      });
      assert.equal(half.statusCode, 422, half.body);
      assert.deepEqual(Object.keys(half.json().errors), ['exchange_rates']);
      const overrides = {
        variants: [
          { sku: 'OV-T-W', price: '14.00' },
          { sku: 'OV-T-B', price: '15.50' },
        ],
      };
      const published = await call(t, 'POST', `/sites/${me.site}/listings`, { ...me.as, body: { ...body, overrides } });
      assert.equal(published.statusCode, 202, published.body);
      await runDueJobs(t, LISTING_QUEUE);
      assert.deepEqual(pricesOf((await held('tiktok-shop', me.account))[0]), { 'OV-T-W': 14, 'OV-T-B': 15.5 });
      assert.equal((await listing(me, published.json().data.id)).currency, 'GBP');
    });
  });
}
