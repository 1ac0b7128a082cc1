/**
 * One listings contract (DESIGN §10), run against each platform's sandbox on both databases: the same steps and the
 * same observable outcomes for Etsy, TikTok Shop and Amazon. A publish is accepted as `pending` and ends on the
 * platform; it is live once the platform says so (at once on Etsy, after its review on TikTok Shop and Amazon, read by
 * the watch); a price change reaches the platform; deactivate, activate and delete do what they say there. The
 * platform's own suites (test/platforms/<platform>/listings.test.ts) cover each one's particulars.
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import { READ_QUEUE } from '../../src/core/listings/listing-watch.js';
import { LISTING_QUEUE } from '../../src/core/listings/listing-work.js';
import { setAmazonSellerRateLimit } from '../../src/sandbox/amazon-seller/listings-rate-limits.js';
import { setTikTokShopRateLimit } from '../../src/sandbox/tiktok-shop/product-store.js';
import { databaseKinds } from '../helpers/database.js';
import { PNG_640X480 } from '../helpers/fixtures.js';
import { amazonSeller, etsySeller, leafCategory, mugProduct, tiktokSeller } from '../helpers/listings.js';
import { call, createTestApp, runDueJobs, type TestApp } from '../helpers/test-app.js';

type Seller = Awaited<ReturnType<typeof etsySeller>>;

interface Held {
  id: string | number;
  state: string;
  skus: { sku: string; price: string | number | null; quantity: number }[];
  /** An Amazon family's parent. */
  variation_theme?: string | null;
}

/** What differs from one platform to the next: how a seller is made, what a product needs, where it is published. */
interface Platform {
  slug: 'etsy' | 'tiktok-shop' | 'amazon-seller';
  account: string;
  seller(t: TestApp, account: string): Promise<Seller>;
  product(t: TestApp, me: Seller, sku: string): Promise<number>;
  category(t: TestApp, me: Seller): Promise<{ id: string; attributes: Record<string, unknown> }>;
}

const PNG = { bytes: PNG_640X480, type: 'image/png', name: 'mug.png' };

const PLATFORMS: Platform[] = [
  {
    slug: 'etsy',
    account: '5101',
    seller: (t, account) => etsySeller(t, account),
    product: (t, me, sku) => mugProduct(t, me, sku),
    category: (t, me) => leafCategory(t, me, 'mug'),
  },
  {
    slug: 'tiktok-shop',
    account: '5102',
    seller: (t, account) => tiktokSeller(t, account),
    // The first sandbox shop sells in the UK; TikTok takes main images of 300 px and more, and needs a package.
    product: (t, me, sku) => mugProduct(t, me, sku, { image: PNG, packaged: true, currency: 'GBP' }),
    category: async () => ({ id: '600011', attributes: { 100392: '1001533' } }),
  },
  {
    slug: 'amazon-seller',
    account: '5103',
    seller: (t, account) => amazonSeller(t, account),
    // Amazon identifies a new product by a barcode and needs its brand.
    product: (t, me, sku) => mugProduct(t, me, sku, { brand: 'Sandbox Pottery', barcodes: ['012345678905', '4006381333931'] }),
    category: async () => ({ id: 'KITCHEN', attributes: { material: 'Stoneware' } }),
  },
];

for (const kind of databaseKinds()) {
  for (const platform of PLATFORMS) {
    describe(`the listings contract on ${platform.slug} [${kind}]`, () => {
      let t: TestApp;
      before(async () => {
        t = await createTestApp(kind, { listen: true });
      });
      after(() => t.close());
      beforeEach(() => {
        Object.assign(t.deps.sandbox.etsyLimits, { perSecond: 1_000_000, perDay: 1_000_000_000 });
        setTikTokShopRateLimit(t.deps.sandbox, 1_000_000);
        setAmazonSellerRateLimit(t.deps.sandbox, 1_000_000);
      });

      /** What buyers buy on the platform: an Amazon family's parent, which has no price of its own, is left out (DESIGN §15). */
      const held = async (me: Seller): Promise<Held[]> => {
        const response = await fetch(`${t.deps.config.appUrl}/sandbox/${platform.slug}/accounts/${me.account}/listings`);
        assert.equal(response.status, 200);
        return ((await response.json()) as Held[]).filter((each) => !each.variation_theme);
      };
      const listing = async (me: Seller, id: number) => (await call(t, 'GET', `/listings/${id}`, me.as)).json().data;
      /** The listing's work, then the watch's reads while the platform's review lasts, until the listing is `status`. */
      const settles = async (me: Seller, id: number, status: string) => {
        await runDueJobs(t, LISTING_QUEUE);
        for (let round = 0; round < 5 && (await listing(me, id)).status !== status; round++) {
          // The review's time, and the watch's minute for a listing in review.
          t.clock.advance(61_000);
          await t.deps.listingWatch.sweep();
          await runDueJobs(t, READ_QUEUE);
          await runDueJobs(t, LISTING_QUEUE);
        }
        const read = await listing(me, id);
        assert.equal(read.status, status, JSON.stringify(read));
        return read;
      };

      test('publish, live, a price change, deactivate, activate, delete: each seen on the platform', async () => {
        const me = await platform.seller(t, platform.account);
        const productId = await platform.product(t, me, 'C1');
        const category = await platform.category(t, me);
        const published = await call(t, 'POST', `/sites/${me.site}/listings`, {
          ...me.as,
          body: { product_id: productId, category_id: category.id, attributes: category.attributes },
        });
        assert.equal(published.statusCode, 202, published.body);
        const { id } = published.json().data;
        assert.equal(published.json().data.status, 'pending');
        assert.equal(published.json().data.sync_status, 'syncing');

        const live = await settles(me, id, 'active');
        assert.equal(live.sync_status, 'synced');
        assert.ok(live.external_id);
        const prices = (listed: Held[]) =>
          listed.flatMap((l) => l.skus.map((s) => [s.sku, Number(s.price).toFixed(2)])).sort((a, b) => a[0]!.localeCompare(b[0]!));
        assert.deepEqual(prices(await held(me)), [
          ['C1-B', '19.50'],
          ['C1-W', '18.00'],
        ]);

        const current = (await call(t, 'GET', `/products/${productId}`, me.as)).json().data;
        const variants = current.variants.map((v: { sku: string; price: string }) => ({
          ...v,
          price: v.sku === 'C1-W' ? '21.00' : v.price,
        }));
        assert.equal((await call(t, 'PATCH', `/products/${productId}`, { ...me.as, body: { variants } })).statusCode, 200);
        assert.equal((await listing(me, id)).sync_status, 'syncing');
        await runDueJobs(t, LISTING_QUEUE);
        const repriced = await listing(me, id);
        assert.equal(repriced.sync_status, 'synced');
        assert.equal(repriced.price, '21.00');
        assert.deepEqual(prices(await held(me)), [
          ['C1-B', '19.50'],
          ['C1-W', '21.00'],
        ]);

        assert.equal((await call(t, 'POST', `/listings/${id}/deactivate`, me.as)).statusCode, 202);
        await settles(me, id, 'inactive');
        // Amazon shows a change of stock once it has processed it (the sandbox's review time).
        t.clock.advance(6_000);
        assert.ok(
          (await held(me)).every((l) => l.state === 'inactive'),
          JSON.stringify(await held(me)),
        );

        assert.equal((await call(t, 'POST', `/listings/${id}/activate`, me.as)).statusCode, 202);
        await settles(me, id, 'active');
        assert.ok(
          (await held(me)).every((l) => l.state === 'active'),
          JSON.stringify(await held(me)),
        );

        assert.equal((await call(t, 'DELETE', `/listings/${id}`, me.as)).statusCode, 202);
        await runDueJobs(t, LISTING_QUEUE);
        assert.equal((await listing(me, id)).status, 'deleted');
        assert.ok(
          (await held(me)).every((l) => l.state === 'deleted'),
          JSON.stringify(await held(me)),
        );
      });
    });
  }
}
