/**
 * Bulk changes as one JSON_LISTINGS_FEED (listings.md §3.10, docs/listings.md "Bulk changes as a feed"), against the
 * sandbox Amazon's Feeds API over real HTTP: a price change across many listings of a site goes as one feed, not one
 * patchListingsItem a SKU, and every listing is synced with the price Amazon then holds; a single change keeps its
 * PATCH; a listing changed again while a feed holds it waits for the feed and then sends its newest price; a message
 * Amazon refuses fails that listing's sync with Amazon's issue and no other.
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import { READ_QUEUE } from '../../../src/core/listings/listing-watch.js';
import { LISTING_QUEUE } from '../../../src/core/listings/listing-work.js';
import { FEED_MIN_LISTINGS, FEED_QUEUE } from '../../../src/core/listings/offer-feeds.js';
import { setAmazonSellerRateLimit } from '../../../src/sandbox/amazon-seller/listings-rate-limits.js';
import { databaseKinds } from '../../helpers/database.js';
import { amazonSeller, heldListings, heldPrices, mugProduct } from '../../helpers/listings.js';
import { call, createTestApp, runDueJobs, type TestApp } from '../../helpers/test-app.js';

for (const kind of databaseKinds()) {
  describe(`Amazon bulk changes as a feed [${kind}]`, () => {
    let t: TestApp;
    before(async () => {
      t = await createTestApp(kind, { listen: true });
    });
    after(() => t.close());
    beforeEach(() => {
      setAmazonSellerRateLimit(t.deps.sandbox, 1_000_000);
      t.deps.sandbox.faults.clear();
    });

    type Seller = Awaited<ReturnType<typeof amazonSeller>>;
    const calls = (operation: string) => t.deps.sandbox.calls.get(`amazon-seller:${operation}`) ?? 0;
    const listing = async (me: Seller, id: number) => (await call(t, 'GET', `/listings/${id}`, me.as)).json().data;

    /** `count` mugs (each a family of White and Blue) published and live on Amazon: their products' and listings' ids. */
    async function liveMugs(me: Seller, count: number, prefix: string) {
      const made: { productId: number; id: number; sku: string }[] = [];
      for (let i = 0; i < count; i++) {
        const sku = `${prefix}${i}`;
        const productId = await mugProduct(t, me, sku, { brand: 'Sandbox Pottery', barcodes: ['012345678905', '4006381333931'] });
        const body = { product_id: productId, category_id: 'KITCHEN', attributes: { material: 'Stoneware' } };
        const published = await call(t, 'POST', `/sites/${me.site}/listings`, { ...me.as, body });
        assert.equal(published.statusCode, 202, published.body);
        made.push({ productId, id: published.json().data.id, sku });
      }
      await runDueJobs(t, LISTING_QUEUE, 200);
      // Amazon's processing passes; the watch reads the listings live.
      t.clock.advance(61_000);
      await t.deps.listingWatch.sweep();
      await runDueJobs(t, READ_QUEUE, 200);
      for (const each of made) assert.equal((await listing(me, each.id)).status, 'active');
      return made;
    }

    /** Every variant of the product at `price`. */
    async function reprice(me: Seller, productId: number, price: string) {
      const current = (await call(t, 'GET', `/products/${productId}`, me.as)).json().data;
      const variants = current.variants.map((v: Record<string, unknown>) => ({ ...v, price }));
      const changed = await call(t, 'PATCH', `/products/${productId}`, { ...me.as, body: { variants } });
      assert.equal(changed.statusCode, 200, changed.body);
    }

    /** The feed jobs run as their time comes: gathered, submitted, and looked at once Amazon processed the feed. */
    async function feedsRun() {
      const outputs: Record<string, number> = {};
      for (let round = 0; round < 4; round++) {
        t.clock.advance(3_100);
        Object.assign(outputs, await runDueJobs(t, FEED_QUEUE, 50));
      }
      return Object.keys(outputs);
    }

    test('a price change across the catalogue goes as one feed; every listing is synced at the price Amazon holds', async () => {
      const me = await amazonSeller(t, '901');
      const mugs = await liveMugs(me, FEED_MIN_LISTINGS + 1, 'F');
      const patches = calls('patchListingsItem');
      for (const each of mugs) await reprice(me, each.productId, '23.00');
      const outputs = Object.keys(await runDueJobs(t, LISTING_QUEUE, 200));
      assert.ok(
        outputs.every((output) => output.startsWith("queued for the site's next feed")),
        `every listing's change waits for the feed: ${outputs}`,
      );
      assert.equal(calls('patchListingsItem'), patches, 'no SKU is patched on its own');
      assert.equal((await listing(me, mugs[0]!.id)).sync_status, 'syncing');

      const done = await feedsRun();
      assert.equal(calls('createFeed'), 1, `one feed: ${done}`);
      assert.ok(
        done.some((output) => /submitted \d+ \(21 listings, 42 messages\)/.test(output)),
        done.join('; '),
      );
      assert.ok(
        done.some((output) => / 21 of 21 listings taken/.test(output)),
        done.join('; '),
      );
      const prices = heldPrices(await heldListings(t, 'amazon-seller', me.account));
      for (const each of mugs) {
        assert.deepEqual([prices[`${each.sku}-W`], prices[`${each.sku}-B`]], [23, 23], each.sku);
        const read = await listing(me, each.id);
        assert.deepEqual([read.status, read.sync_status, read.issues], ['active', 'synced', []]);
        assert.deepEqual(
          read.variants.map((v: { price: string }) => v.price),
          ['23.00', '23.00'],
        );
      }
      assert.equal(calls('patchListingsItem'), patches);

      // One change alone is one PATCH a SKU, at once, as before.
      const feeds = calls('createFeed');
      await reprice(me, mugs[3]!.productId, '24.00');
      await runDueJobs(t, LISTING_QUEUE);
      assert.equal(calls('patchListingsItem'), patches + 2);
      assert.equal(calls('createFeed'), feeds);
      assert.equal(heldPrices(await heldListings(t, 'amazon-seller', me.account))[`${mugs[3]!.sku}-W`], 24);
      assert.equal((await listing(me, mugs[3]!.id)).sync_status, 'synced');
    });

    test('a listing changed again while a feed holds it waits for the feed, then sends its newest price', async () => {
      const me = await amazonSeller(t, '902');
      const mugs = await liveMugs(me, FEED_MIN_LISTINGS, 'G');
      for (const each of mugs) await reprice(me, each.productId, '30.00');
      await runDueJobs(t, LISTING_QUEUE, 200);
      // The feed is gathered and submitted; Amazon has not processed it yet.
      t.clock.advance(2_100);
      const submitted = Object.keys(await runDueJobs(t, FEED_QUEUE));
      assert.ok(
        submitted.some((output) => output.startsWith('submitted')),
        submitted.join('; '),
      );
      const [first] = mugs;
      await reprice(me, first!.productId, '31.00');
      const waited = Object.keys(await runDueJobs(t, LISTING_QUEUE));
      assert.deepEqual(waited, ['waiting: a feed the platform is processing holds this listing']);

      await feedsRun();
      await runDueJobs(t, LISTING_QUEUE);
      const prices = heldPrices(await heldListings(t, 'amazon-seller', me.account));
      assert.equal(prices[`${first!.sku}-W`], 31, 'the newest price, after the feed');
      assert.equal(prices[`${mugs[1]!.sku}-W`], 30);
      const read = await listing(me, first!.id);
      assert.deepEqual([read.sync_status, read.variants[0].price], ['synced', '31.00']);
    });

    test("a message Amazon refuses fails that listing's sync with Amazon's issue, and only that one", async () => {
      const me = await amazonSeller(t, '903');
      const mugs = await liveMugs(me, FEED_MIN_LISTINGS, 'H');
      // In Seller Central, the seller hands one SKU to Amazon's fulfilment: Amazon now counts its stock.
      const [handed] = mugs;
      const edited = await fetch(`${t.deps.config.appUrl}/sandbox/amazon-seller/accounts/${me.account}/listings/${handed!.sku}-W`, {
        method: 'PATCH',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ fulfillment_channel: 'AMAZON_NA' }),
      });
      assert.equal(edited.status, 200, await edited.text());
      for (const each of mugs) {
        const current = (await call(t, 'GET', `/products/${each.productId}`, me.as)).json().data;
        const variants = current.variants.map((v: Record<string, unknown>) => ({ ...v, price: '40.00', quantity: 9 }));
        assert.equal((await call(t, 'PATCH', `/products/${each.productId}`, { ...me.as, body: { variants } })).statusCode, 200);
      }
      await runDueJobs(t, LISTING_QUEUE, 200);
      const done = await feedsRun();
      assert.ok(
        done.some((output) => / 19 of 20 listings taken/.test(output)),
        done.join('; '),
      );
      const refused = await listing(me, handed!.id);
      assert.equal(refused.status, 'active');
      assert.equal(refused.sync_status, 'failed');
      assert.ok(
        refused.issues.some(
          (issue: { source: string; message: string }) => issue.source === 'platform' && issue.message.startsWith(`${handed!.sku}-W: `),
        ),
        JSON.stringify(refused.issues),
      );
      const other = await listing(me, mugs[1]!.id);
      assert.deepEqual([other.sync_status, other.variants.map((v: { quantity: number }) => v.quantity)], ['synced', [9, 9]]);
    });
  });
}
