/**
 * A bulk edit of prices and stock: its dry run says what changes in the catalogue and on each channel as listed there
 * (Etsy's adjustment, TikTok Shop's exchange rate), writing nothing; then the edit is one change of each product, all
 * or none, and reaches the platforms. What the sandboxes hold is the proof.
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import { LISTING_QUEUE } from '../../src/core/listings/listing-work.js';
import { setTikTokShopRateLimit } from '../../src/sandbox/tiktok-shop/product-store.js';
import { connectEtsySite, connectTikTokShopSite } from '../helpers/connect.js';
import { databaseKinds } from '../helpers/database.js';
import { PNG_640X480 } from '../helpers/fixtures.js';
import { heldListings, leafCategory, mugProduct } from '../helpers/listings.js';
import { call, createTestApp, registerUser, runDueJobs, type TestApp } from '../helpers/test-app.js';

const PNG = { bytes: PNG_640X480, type: 'image/png', name: 'mug.png' };

for (const kind of databaseKinds()) {
  describe(`bulk edit [${kind}]`, () => {
    let t: TestApp;
    before(async () => {
      t = await createTestApp(kind, { listen: true });
      Object.assign(t.deps.sandbox.etsyLimits, { perSecond: 1_000_000, perDay: 1_000_000_000 });
    });
    after(() => t.close());
    beforeEach(() => setTikTokShopRateLimit(t.deps.sandbox, 1_000_000));

    /** Each sku's price and quantity on the sandbox platform. */
    const prices = async (slug: string, account: string) =>
      Object.fromEntries(
        (await heldListings(t, slug, account)).flatMap((item) => item.skus.map((s) => [s.sku, [Number(s.price), s.quantity]])),
      );

    test('the dry run shows each change in the catalogue and on each channel as listed there; the edit is one change a product', async () => {
      const user = await registerUser(t);
      const me = { ...user, as: { token: user.session, workspace: user.workspace.id } };
      const etsy = { ...me, site: await connectEtsySite(t, user, '921'), account: '921' };
      const tiktok = { ...me, site: await connectTikTokShopSite(t, user, '922'), account: '922' };
      const put = async (site: number, body: Record<string, unknown>) => {
        const current = (await call(t, 'GET', `/sites/${site}/listing-settings`, me.as)).json().data;
        assert.equal(
          (await call(t, 'PUT', `/sites/${site}/listing-settings`, { ...me.as, body: { ...current, ...body } })).statusCode,
          200,
        );
      };
      const options = (await call(t, 'GET', `/sites/${etsy.site}/listing-options`, me.as)).json().data;
      await put(etsy.site, {
        shipping_profile_id: options.shipping_profile_id[0].value,
        return_policy_id: options.return_policy_id[0].value,
        readiness_state_id: options.readiness_state_id[0].value,
        who_made: 'i_did',
        when_made: 'made_to_order',
        price_adjustment_percent: 10,
      });
      const warehouses = (await call(t, 'GET', `/sites/${tiktok.site}/listing-options`, me.as)).json().data.warehouse_id;
      await put(tiktok.site, { warehouse_id: warehouses[0].value, exchange_rates: { USD: '0.8' } });
      const productId = await mugProduct(t, etsy, 'BE', { image: PNG, packaged: true });
      for (const seller of [etsy, tiktok]) {
        const { id: categoryId, attributes } = await leafCategory(t, seller, 'mug');
        const body = { product_id: productId, category_id: categoryId, attributes };
        assert.equal((await call(t, 'POST', `/sites/${seller.site}/listings`, { ...me.as, body })).statusCode, 202);
      }
      await runDueJobs(t, LISTING_QUEUE);
      const before = { etsy: await prices('etsy', '921'), tiktok: await prices('tiktok-shop', '922') };
      assert.deepEqual(before.etsy, { 'BE-W': [19.8, 4], 'BE-B': [21.45, 2] });
      assert.deepEqual(before.tiktok, { 'BE-W': [14.4, 4], 'BE-B': [15.6, 2] });

      const edits = {
        variants: [
          { sku: 'BE-W', price: '20.00' },
          { sku: 'BE-B', quantity: 9 },
        ],
      };
      const preview = await call(t, 'POST', '/products/bulk-edit?dry_run=true', { ...me.as, body: edits });
      assert.equal(preview.statusCode, 200, preview.body);
      const { updated, changes, channels } = preview.json().data;
      assert.equal(updated, 1);
      assert.deepEqual(changes, [
        { product_id: productId, sku: 'BE-W', field: 'price', from: '18.00', to: '20.00' },
        { product_id: productId, sku: 'BE-B', field: 'quantity', from: 2, to: 9 },
      ]);
      assert.deepEqual(
        channels.map((c: Record<string, unknown>) => [c.platform, c.sku, c.field, c.from, c.to, c.blocked]),
        [
          ['etsy', 'BE-W', 'price', '19.80', '22.00', null],
          ['etsy', 'BE-B', 'quantity', 2, 9, null],
          ['tiktok-shop', 'BE-W', 'price', '14.40', '16.00', null],
          ['tiktok-shop', 'BE-B', 'quantity', 2, 9, null],
        ],
      );
      // A dry run writes nothing.
      assert.equal((await call(t, 'GET', `/products/${productId}`, me.as)).json().data.version, 2);
      await runDueJobs(t, LISTING_QUEUE);
      assert.deepEqual(await prices('etsy', '921'), before.etsy);

      // One sku nobody has: the whole edit is refused, nothing written.
      const refused = await call(t, 'POST', '/products/bulk-edit', {
        ...me.as,
        body: { variants: [...edits.variants, { sku: 'NOPE', quantity: 1 }] },
      });
      assert.equal(refused.statusCode, 422);
      assert.deepEqual(refused.json().errors, { 'variants.2.sku': ['No product has this sku.'] });
      assert.equal((await call(t, 'GET', `/products/${productId}`, me.as)).json().data.version, 2);

      const applied = await call(t, 'POST', '/products/bulk-edit', { ...me.as, body: edits });
      assert.equal(applied.statusCode, 200, applied.body);
      const product = (await call(t, 'GET', `/products/${productId}`, me.as)).json().data;
      assert.equal(product.version, 3);
      assert.deepEqual(
        product.variants.map((v: { sku: string; price: string; quantity: number }) => [v.sku, v.price, v.quantity]),
        [
          ['BE-W', '20.00', 4],
          ['BE-B', '19.50', 9],
        ],
      );
      await runDueJobs(t, LISTING_QUEUE);
      assert.deepEqual(await prices('etsy', '921'), { 'BE-W': [22, 4], 'BE-B': [21.45, 9] });
      assert.deepEqual(await prices('tiktok-shop', '922'), { 'BE-W': [16, 4], 'BE-B': [15.6, 9] });
      const movements = (await call(t, 'GET', '/products/stock-movements?sku=BE-B', me.as)).json().data;
      assert.deepEqual([movements[0].delta, movements[0].reason], [7, 'edit']);
    });
  });
}
