/**
 * TikTok Shop's error classes and product rules beyond a plain review (issue 36 item 8), end to end against the sandbox
 * TikTok Shop over real HTTP: a product TikTok pre-approves (`audit.status` PRE_APPROVED) stays in review with TikTok's
 * reason in words until the shop completes it; the daily upload limit (12052093) makes a publish wait for the next
 * day's allowance; and a SKU kept in several warehouses takes its stock with every warehouse sent (12019028).
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import { READ_QUEUE } from '../../../src/core/listings/listing-watch.js';
import { LISTING_QUEUE } from '../../../src/core/listings/listing-work.js';
import { setTikTokShopRateLimit } from '../../../src/sandbox/tiktok-shop/product-store.js';
import { databaseKinds } from '../../helpers/database.js';
import { PNG_640X480, SANDBOX_REVIEW_MS } from '../../helpers/fixtures.js';
import { leafCategory, mugProduct, tiktokSeller } from '../../helpers/listings.js';
import { call, createTestApp, runDueJobs, type TestApp } from '../../helpers/test-app.js';

interface ShopProduct {
  id: string;
  title: string;
  state: string;
  status: string;
  audit?: string;
  pre_approved_reasons?: string[];
  skus: { sku: string; price: string; quantity: number }[];
}
interface Issue {
  severity: string;
  code: string;
  message: string;
  source: string;
}

const PNG = { bytes: PNG_640X480, type: 'image/png', name: 'mug.png' };

/** `check` once it passes, within `ms` (what the sandbox sends comes over real HTTP, on its own time). */
async function eventually<T>(check: () => Promise<T>, ms = 10_000): Promise<T> {
  const start = performance.now();
  for (;;) {
    try {
      return await check();
    } catch (error) {
      if (performance.now() - start > ms) throw error;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}

for (const kind of databaseKinds()) {
  describe(`TikTok Shop error classes and product rules [${kind}]`, () => {
    let t: TestApp;
    let base: string;
    before(async () => {
      t = await createTestApp(kind, { listen: true });
      base = t.deps.config.appUrl;
    });
    after(() => t.close());
    beforeEach(() => setTikTokShopRateLimit(t.deps.sandbox, 1_000_000));

    type Seller = Awaited<ReturnType<typeof tiktokSeller>>;
    const shop = async (account: string): Promise<ShopProduct[]> => {
      const response = await fetch(`${base}/sandbox/tiktok-shop/accounts/${account}/listings`);
      assert.equal(response.status, 200);
      return response.json() as Promise<ShopProduct[]>;
    };
    const listing = async (me: Seller, id: number) => (await call(t, 'GET', `/listings/${id}`, me.as)).json().data;
    const calls = (operation: string) => t.deps.sandbox.calls.get(`tiktok-shop:${operation}`) ?? 0;
    /** Publishes a mug of `sku` in the mugs category with its required Material: the product's and the listing's ids. */
    const publish = async (me: Seller, sku: string) => {
      const productId = await mugProduct(t, me, sku, { image: PNG, packaged: true, currency: 'GBP' });
      const { id: categoryId, attributes } = await leafCategory(t, me, 'mug');
      const published = await call(t, 'POST', `/sites/${me.site}/listings`, {
        ...me.as,
        body: { product_id: productId, category_id: categoryId, attributes },
      });
      assert.equal(published.statusCode, 202, published.body);
      return { productId, id: published.json().data.id as number };
    };

    test('a product TikTok pre-approves (KYC pending) stays in review with the reason in words, and goes live once the shop completes it', async () => {
      const me = await tiktokSeller(t, '471', { choices: { pending: 'KYC_PENDING' } });
      const { id } = await publish(me, 'P1');
      await runDueJobs(t, LISTING_QUEUE);
      assert.equal((await listing(me, id)).status, 'in_review');
      // The review passes, but the shop's KYC is pending: TikTok's audit webhook (type 37) asks for the read.
      t.clock.advance(SANDBOX_REVIEW_MS);
      const held = await eventually(async () => {
        await runDueJobs(t, READ_QUEUE);
        const read = await listing(me, id);
        assert.ok(
          read.issues.some((i: Issue) => i.code === 'KYC_PENDING'),
          JSON.stringify(read),
        );
        return read;
      });
      assert.equal(held.status, 'in_review');
      assert.equal(held.platform_status, 'PENDING');
      const [reason] = held.issues as Issue[];
      assert.deepEqual([reason!.severity, reason!.source], ['warning', 'platform']);
      assert.match(reason!.message, /holds it back from sale until the shop's identity verification \(KYC\) is complete/);
      const [pending] = await shop(me.account);
      assert.deepEqual([pending!.status, pending!.audit, pending!.pre_approved_reasons], ['PENDING', 'PRE_APPROVED', ['KYC_PENDING']]);
      assert.equal(calls('activate_products'), 0, 'a pre-approved product is not switched on by Storelink');

      // The seller completes the KYC in Seller Center: TikTok puts the product on sale, and the listing reads it live.
      const done = await fetch(`${base}/sandbox/tiktok-shop/accounts/${me.account}/prerequisites/complete`, { method: 'POST' });
      assert.equal(done.status, 200);
      const live = await eventually(async () => {
        await runDueJobs(t, READ_QUEUE);
        const read = await listing(me, id);
        assert.equal(read.status, 'active', JSON.stringify(read));
        return read;
      });
      assert.deepEqual(live.issues, []);
    });

    test('a category the shop has no permission for (RESTRICTED_CATEGORY_PENDING) says where to apply', async () => {
      const me = await tiktokSeller(t, '472', { choices: { pending: 'RESTRICTED_CATEGORY_PENDING' } });
      const { id } = await publish(me, 'P2');
      await runDueJobs(t, LISTING_QUEUE);
      t.clock.advance(SANDBOX_REVIEW_MS);
      const held = await eventually(async () => {
        await runDueJobs(t, READ_QUEUE);
        const read = await listing(me, id);
        assert.equal(read.issues[0]?.code, 'RESTRICTED_CATEGORY_PENDING', JSON.stringify(read));
        return read;
      });
      assert.equal(held.status, 'in_review');
      assert.match(held.issues[0].message, /Qualification Center/);
    });
  });
}
