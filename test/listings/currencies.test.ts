/**
 * One product in every currency (DESIGN §15), end to end on the three sandboxes: each site's currency read from its
 * platform, a product in another currency refused without a rate (422 on `exchange_rates`, naming both) with nothing
 * sent, and with one listed at price × rate, then the adjustment, to the cent; a rate taken away later fails the sync
 * and leaves the platform's price as it was. The figures are what each simulated platform holds.
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import { LISTING_QUEUE } from '../../src/core/listings/listing-work.js';
import { setAmazonSellerRateLimit } from '../../src/sandbox/amazon-seller/listings-rate-limits.js';
import { setTikTokShopRateLimit } from '../../src/sandbox/tiktok-shop/product-store.js';
import { databaseKinds } from '../helpers/database.js';
import { PNG_640X480 } from '../helpers/fixtures.js';
import { amazonSeller, etsySeller, heldListings, heldPrices, leafCategory, mugProduct, tiktokSeller } from '../helpers/listings.js';
import { call, createTestApp, runDueJobs, type TestApp } from '../helpers/test-app.js';

type Seller = Awaited<ReturnType<typeof etsySeller>>;

const PNG = { bytes: PNG_640X480, type: 'image/png', name: 'mug.png' };

for (const kind of databaseKinds()) {
  describe(`currencies [${kind}]`, () => {
    let t: TestApp;
    before(async () => {
      t = await createTestApp(kind, { listen: true });
      Object.assign(t.deps.sandbox.etsyLimits, { perSecond: 1_000_000, perDay: 1_000_000_000 });
    });
    after(() => t.close());
    beforeEach(() => {
      setTikTokShopRateLimit(t.deps.sandbox, 1_000_000);
      setAmazonSellerRateLimit(t.deps.sandbox, 1_000_000);
    });

    /** What the sandbox platform holds for the seller: each sku's price, as a number. */
    const prices = async (slug: string, account: string) => heldPrices(await heldListings(t, slug, account));
    const site = async (me: Seller) => (await call(t, 'GET', `/sites/${me.site}`, me.as)).json().data;
    const settings = (me: Seller) => call(t, 'GET', `/sites/${me.site}/listing-settings`, me.as).then((r) => r.json().data);
    const setRates = async (me: Seller, exchange_rates: Record<string, string>, more: Record<string, unknown> = {}) => {
      const body = { ...(await settings(me)), ...more, exchange_rates };
      const put = await call(t, 'PUT', `/sites/${me.site}/listing-settings`, { ...me.as, body });
      assert.equal(put.statusCode, 200, put.body);
    };
    const publish = (me: Seller, body: Record<string, unknown>) => call(t, 'POST', `/sites/${me.site}/listings`, { ...me.as, body });
    const listing = async (me: Seller, id: number) => (await call(t, 'GET', `/listings/${id}`, me.as)).json().data;

    test('Etsy: a euro product on a dollar shop is refused, naming both, until the rate is set; then it lists at price × rate + adjustment', async () => {
      const me = await etsySeller(t, '901');
      assert.equal((await site(me)).currency, 'USD');
      const productId = await mugProduct(t, me, 'FX-E', { currency: 'EUR' });
      const { id: categoryId, attributes } = await leafCategory(t, me, 'mug');
      const body = { product_id: productId, category_id: categoryId, attributes };

      const refused = await publish(me, body);
      assert.equal(refused.statusCode, 422, refused.body);
      assert.deepEqual(Object.keys(refused.json().errors), ['exchange_rates']);
      assert.match(refused.json().errors.exchange_rates[0], /priced in EUR and this site lists in USD/);
      const validated = await publish(me, { ...body, mode: 'validate' });
      assert.deepEqual(
        validated.json().data.issues.map((i: { field: string }) => i.field),
        ['exchange_rates'],
      );
      // A rate from another currency is not one from the product's.
      await setRates(me, { GBP: '1.27' });
      assert.equal((await publish(me, body)).statusCode, 422);
      assert.deepEqual(await prices('etsy', me.account), {});

      // 18.00 EUR × 1.08 = 19.44 USD, + 10 % = 21.384, listed at 21.38; 19.50 × 1.08 × 1.1 = 23.166, at 23.17.
      await setRates(me, { EUR: '1.08' }, { price_adjustment_percent: 10 });
      const published = await publish(me, body);
      assert.equal(published.statusCode, 202, published.body);
      const { id } = published.json().data;
      await runDueJobs(t, LISTING_QUEUE);
      const live = await listing(me, id);
      assert.equal(live.status, 'active', JSON.stringify(live.issues));
      assert.equal(live.currency, 'USD');
      assert.deepEqual(
        live.variants.map((v: { sku: string; price: string }) => [v.sku, v.price]),
        [
          ['FX-E-W', '21.38'],
          ['FX-E-B', '23.17'],
        ],
      );
      assert.deepEqual(await prices('etsy', me.account), { 'FX-E-W': 21.38, 'FX-E-B': 23.17 });

      // The rate taken away: a price change is never sent at the euro figure; the sync fails saying why.
      await setRates(me, {}, { price_adjustment_percent: 10 });
      const product = (await call(t, 'GET', `/products/${productId}`, me.as)).json().data;
      const variants = product.variants.map((v: { id: number; price: string }, i: number) => ({
        ...v,
        price: i === 0 ? '20.00' : v.price,
      }));
      assert.equal((await call(t, 'PATCH', `/products/${productId}`, { ...me.as, body: { variants } })).statusCode, 200);
      await runDueJobs(t, LISTING_QUEUE);
      const failed = await listing(me, id);
      assert.equal(failed.sync_status, 'failed');
      assert.equal(failed.status, 'active');
      assert.deepEqual(
        failed.issues.map((i: { code: string; field: string }) => [i.code, i.field]),
        [['exchange_rate_missing', 'exchange_rates']],
      );
      assert.deepEqual(await prices('etsy', me.account), { 'FX-E-W': 21.38, 'FX-E-B': 23.17 });
    });

    test("TikTok Shop: the shop's market decides its currency, and a dollar product lists in pounds by the rate", async () => {
      const me = await tiktokSeller(t, '902');
      // The sandbox's one-shop seller is in the UK market.
      assert.equal((await site(me)).currency, 'GBP');
      const productId = await mugProduct(t, me, 'FX-T', { image: PNG, packaged: true, currency: 'USD' });
      const { id: categoryId, attributes } = await leafCategory(t, me, 'mug');
      const body = { product_id: productId, category_id: categoryId, attributes };
      const refused = await publish(me, body);
      assert.equal(refused.statusCode, 422, refused.body);
      assert.match(refused.json().errors.exchange_rates[0], /priced in USD and this site lists in GBP/);

      await setRates(me, { USD: '0.79' });
      const published = await publish(me, body);
      assert.equal(published.statusCode, 202, published.body);
      await runDueJobs(t, LISTING_QUEUE);
      // 18.00 × 0.79 = 14.22; 19.50 × 0.79 = 15.405, listed at 15.41.
      assert.deepEqual(await prices('tiktok-shop', me.account), { 'FX-T-W': 14.22, 'FX-T-B': 15.41 });
      assert.equal((await listing(me, published.json().data.id)).currency, 'GBP');
    });

    test("Amazon: each marketplace says its currency in the options, and a listing is priced in its marketplace's", async () => {
      const me = await amazonSeller(t, '903');
      assert.equal((await site(me)).currency, null);
      const options = (await call(t, 'GET', `/sites/${me.site}/listing-options`, me.as)).json().data;
      assert.deepEqual(
        options.marketplace_id.map((m: { value: string; currency: string }) => [m.value, m.currency]),
        [
          ['ATVPDKIKX0DER', 'USD'],
          ['A2EUQ1WTGCTBG2', 'CAD'],
        ],
      );
      const productId = await mugProduct(t, me, 'FX-A', {
        currency: 'EUR',
        brand: 'Sandbox Pottery',
        barcodes: ['012345678905', '4006381333931'],
      });
      const body = { product_id: productId, category_id: 'KITCHEN', attributes: { material: 'Stoneware' } };
      const refused = await publish(me, body);
      assert.equal(refused.statusCode, 422, refused.body);
      assert.match(refused.json().errors.exchange_rates[0], /priced in EUR and this site lists in USD/);

      await setRates(me, { EUR: '1.1' }, { price_adjustment_percent: -5 });
      const published = await publish(me, body);
      assert.equal(published.statusCode, 202, published.body);
      await runDueJobs(t, LISTING_QUEUE);
      // 18.00 × 1.1 × 0.95 = 18.81; 19.50 × 1.1 × 0.95 = 20.3775, at 20.38.
      assert.deepEqual(await prices('amazon-seller', me.account), { 'FX-A-W': 18.81, 'FX-A-B': 20.38 });
    });
  });
}
