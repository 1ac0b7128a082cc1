/**
 * Listings on TikTok Shop end to end (DESIGN §10, listings.md §2), against the sandbox TikTok Shop over real HTTP:
 * the warehouse setting from the shop's own list, categories with their attributes and brands, the listing check
 * behind `mode: "validate"`, a publish that uploads the images and creates the product once, TikTok's review (`in_review`
 * until it passes, read at once when its webhook comes, or refused with its reasons), price and stock without review, an
 * edit back to review that keeps the live version live when it fails, deactivate, activate and delete.
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { READ_QUEUE } from '../../../src/core/listings/listing-watch.js';
import { LISTING_QUEUE } from '../../../src/core/listings/listing-work.js';
import { setTikTokShopRateLimit } from '../../../src/sandbox/tiktok-shop/product-store.js';
import { connectTikTokShopSite } from '../../helpers/connect.js';
import { databaseKinds } from '../../helpers/database.js';
import { PNG_640X480, SANDBOX_REVIEW_MS } from '../../helpers/fixtures.js';
import { heldListings, leafCategory, mugProduct, tiktokSeller } from '../../helpers/listings.js';
import { call, createTestApp, registerUser, runDueJobs, type TestApp } from '../../helpers/test-app.js';

interface ShopProduct {
  id: string;
  title: string;
  state: string;
  status: string;
  skus: { sku: string; price: string; quantity: number }[];
  audit_failed_reasons: { reasons: string[] }[];
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
  describe(`listings on TikTok Shop [${kind}]`, () => {
    let t: TestApp;
    let base: string;
    before(async () => {
      t = await createTestApp(kind, { listen: true });
      base = t.deps.config.appUrl;
    });
    after(() => t.close());
    beforeEach(() => setTikTokShopRateLimit(t.deps.sandbox, 1_000_000));

    type Seller = Awaited<ReturnType<typeof tiktokSeller>>;
    const shop = (account: string) => heldListings<ShopProduct>(t, 'tiktok-shop', account);
    const listing = async (me: Seller, id: number) => (await call(t, 'GET', `/listings/${id}`, me.as)).json().data;
    const product = (me: Seller, sku: string, title?: string) =>
      mugProduct(t, me, sku, { image: PNG, packaged: true, currency: 'GBP', ...(title ? { title } : {}) });
    const calls = (operation: string) => t.deps.sandbox.calls.get(`tiktok-shop:${operation}`) ?? 0;
    const events = async (me: Seller) => {
      const rows = await t.database.db.execute(
        sql`select event_type from webhook_deliveries d join webhook_endpoints e on e.id = d.endpoint_id where e.workspace_id = ${me.workspace.id} order by d.id`,
      );
      return (rows as unknown as { rows: { event_type: string }[] }).rows.map((row) => row.event_type);
    };
    const subscribe = async (me: Seller) => {
      const body = { url: `${base}/nowhere`, events: ['listing.published', 'listing.rejected', 'listing.sync_failed'] };
      assert.equal((await call(t, 'POST', '/webhooks', { ...me.as, body })).statusCode, 201);
    };
    /** Publishes a mug of `sku` in the mugs category with its required Material: the product's and the listing's ids. */
    const publish = async (me: Seller, sku: string, title?: string) => {
      const productId = await product(me, sku, title);
      const { id: categoryId, attributes } = await leafCategory(t, me, 'mug');
      const published = await call(t, 'POST', `/sites/${me.site}/listings`, {
        ...me.as,
        body: { product_id: productId, category_id: categoryId, attributes },
      });
      assert.equal(published.statusCode, 202, published.body);
      return { productId, id: published.json().data.id as number };
    };
    /** TikTok's review time passes: its webhook comes (the sandbox settles due audits each second), and the read it asked for runs. */
    const reviewed = async (me: Seller, id: number, status: string) => {
      t.clock.advance(SANDBOX_REVIEW_MS);
      return eventually(async () => {
        await runDueJobs(t, READ_QUEUE);
        const read = await listing(me, id);
        assert.equal(read.status, status);
        return read;
      });
    };

    test('settings, categories and attributes come from the shop: its warehouses, the tree, Material required, the brands', async () => {
      const me = await tiktokSeller(t, '401', { settings: false });
      const options = (await call(t, 'GET', `/sites/${me.site}/listing-options`, me.as)).json().data;
      assert.deepEqual(
        options.warehouse_id.map((w: { label: string }) => w.label),
        ['Main warehouse (default)', 'Second warehouse'],
      );
      const roots = (await call(t, 'GET', `/sites/${me.site}/categories`, me.as)).json().data;
      assert.deepEqual(
        roots.map((c: { name: string }) => c.name),
        ['Home & Kitchen', 'Fashion', 'Bags'],
      );
      const mugs = (await call(t, 'GET', `/sites/${me.site}/categories?q=mug`, me.as)).json().data;
      assert.deepEqual(mugs, [{ id: '600011', name: 'Mugs', path: ['Home & Kitchen', 'Drinkware', 'Mugs'], leaf: true }]);
      const attributes = (await call(t, 'GET', `/sites/${me.site}/categories/600011/attributes`, me.as)).json().data;
      const material = attributes.find((a: { label: string }) => a.label === 'Material');
      assert.deepEqual(material, {
        name: '100392',
        label: 'Material',
        required: true,
        type: 'select',
        values: [
          { value: '1001533', label: 'Ceramic' },
          { value: '1001534', label: 'Glass' },
          { value: '1001535', label: 'Stainless steel' },
        ],
      });
      // Sales properties are the product's options, not attributes; the brand is one.
      assert.equal(
        attributes.some((a: { label: string }) => a.label === 'Color'),
        false,
      );
      const brand = attributes.find((a: { name: string }) => a.name === 'brand_id');
      assert.deepEqual(
        brand.values.map((v: { label: string }) => v.label),
        ['Sandbox Home', 'Sandbox Threads'],
      );
      const unknown = await call(t, 'GET', `/sites/${me.site}/categories/999999/attributes`, me.as);
      assert.equal(unknown.statusCode, 404, unknown.body);

      // Nothing is published before the warehouse is set.
      const productId = await product(me, 'T0');
      const refused = await call(t, 'POST', `/sites/${me.site}/listings`, {
        ...me.as,
        body: { product_id: productId, category_id: '600011', attributes: { 100392: '1001533' } },
      });
      assert.equal(refused.statusCode, 422, refused.body);
      assert.match(JSON.stringify(refused.json()), /settings\.warehouse_id/);
    });

    test('a permission the seller refused at consent (105005) asks the seller to connect the shop again granting it', async () => {
      const user = await registerUser(t);
      const as = { token: user.session, workspace: user.workspace.id };
      const site = await connectTikTokShopSite(t, user, '412', { refuse: 'seller.product.basic' });
      const options = await call(t, 'GET', `/sites/${site}/listing-options`, as);
      assert.equal(options.statusCode, 422, options.body);
      assert.match(options.json().errors.site_id[0], /105005.*Connect the shop again and grant every permission/);
      const after = (await call(t, 'GET', `/sites/${site}`, as)).json().data;
      assert.equal(after.status, 'reauthorization_required');
    });

    test("a bad signature (106001) is Storelink's own: logged on /health, the seller told it is not theirs, never 'try again shortly'", async () => {
      const me = await tiktokSeller(t, '413');
      const productId = await product(me, 'T9');
      const body = { product_id: productId, category_id: '600011', attributes: { 100392: '1001533' }, mode: 'validate' };
      t.deps.sandbox.faults.set('tiktok-shop', 'listing', 'misconfigured');
      try {
        const validated = await call(t, 'POST', `/sites/${me.site}/listings`, { ...me.as, body });
        assert.equal(validated.statusCode, 500, validated.body);
        assert.doesNotMatch(validated.json().message, /try again/i);
        assert.match(validated.json().message, /not your shop's doing: the operator has been told/);
        const health = (await t.app.inject({ method: 'GET', url: '/api/v1/health' })).json().data;
        const problem = health.platforms.find((p: { platform: string }) => p.platform === 'tiktok-shop');
        assert.match(problem?.message ?? '', /106001/);
        assert.equal((await call(t, 'GET', `/sites/${me.site}`, me.as)).json().data.status, 'connected');
      } finally {
        t.deps.sandbox.faults.set('tiktok-shop', 'listing', null);
        t.deps.platformHealth.succeeded('tiktok-shop');
      }
    });

    test("validate runs TikTok's listing check and stores nothing; Storelink's own checks refuse what TikTok would", async () => {
      const me = await tiktokSeller(t, '402');
      const productId = await product(me, 'T1');
      const body = { product_id: productId, category_id: '600011', attributes: { 100392: '1001533' }, mode: 'validate' };
      const checks = calls('check_listing');
      const validated = await call(t, 'POST', `/sites/${me.site}/listings`, { ...me.as, body });
      assert.equal(validated.statusCode, 200, validated.body);
      const { valid, issues } = validated.json().data;
      assert.equal(valid, true);
      // TikTok's quality diagnoses are warnings: a short title, fewer than three images.
      assert.deepEqual(
        issues.map((i: { severity: string; code: string; source: string }) => [i.severity, i.code, i.source]),
        [
          ['warning', 'TITLE_TOO_SHORT', 'platform'],
          ['warning', 'FEW_MAIN_IMAGES', 'platform'],
        ],
      );
      assert.equal(calls('check_listing'), checks + 1);
      assert.deepEqual(await shop(me.account), []);
      assert.equal((await call(t, 'GET', `/sites/${me.site}/listings`, me.as)).json().data.length, 0);

      const missing = await call(t, 'POST', `/sites/${me.site}/listings`, {
        ...me.as,
        body: { ...body, attributes: {}, mode: 'publish' },
      });
      assert.equal(missing.statusCode, 422, missing.body);
      assert.match(JSON.stringify(missing.json()), /Material is required/);

      // A product without a package, and with an image TikTok cannot take (a 1x1 GIF), is refused before anything is sent.
      const bare = await mugProduct(t, me, 'T1X', { currency: 'GBP' });
      const unfit = await call(t, 'POST', `/sites/${me.site}/listings`, {
        ...me.as,
        body: { product_id: bare, category_id: '600011', attributes: { 100392: '1001533' } },
      });
      assert.equal(unfit.statusCode, 422, unfit.body);
      assert.match(JSON.stringify(unfit.json()), /product\.package/);
      // A weight alone is a package in the catalogue, but TikTok Shop needs its size too: the first side missing is named.
      const light = await mugProduct(t, me, 'T1W', { image: PNG, currency: 'GBP', package: { weight_grams: 350 } as never });
      const sizeless = await call(t, 'POST', `/sites/${me.site}/listings`, {
        ...me.as,
        body: { product_id: light, category_id: '600011', attributes: { 100392: '1001533' } },
      });
      assert.equal(sizeless.statusCode, 422, sizeless.body);
      assert.deepEqual(sizeless.json().errors['product.package.length_mm'], [
        "TikTok Shop needs the package's weight and its three sides: set the product's length, width, height.",
      ]);
      const blank = await mugProduct(t, me, 'T1Y', { image: PNG, packaged: true, currency: 'GBP' });
      assert.equal((await call(t, 'PATCH', `/products/${blank}`, { ...me.as, body: { description: '' } })).statusCode, 200);
      const undescribed = await call(t, 'POST', `/sites/${me.site}/listings`, {
        ...me.as,
        body: { product_id: blank, category_id: '600011', attributes: { 100392: '1001533' } },
      });
      assert.equal(undescribed.statusCode, 422, undescribed.body);
      assert.match(JSON.stringify(undescribed.json()), /needs a description/);
      assert.deepEqual(await shop(me.account), []);
    });

    test('publish: images uploaded, the product created once and in review, then live when the review passes (webhook read)', async () => {
      const me = await tiktokSeller(t, '403');
      await subscribe(me);
      const uploads = calls('upload_image');
      const { id } = await publish(me, 'T2');
      await runDueJobs(t, LISTING_QUEUE);
      const inReview = await listing(me, id);
      assert.equal(inReview.status, 'in_review', JSON.stringify(inReview));
      assert.equal(inReview.platform_status, 'PENDING');
      assert.equal(inReview.sync_status, 'synced');
      assert.match(inReview.external_id, /^[0-9]+$/);
      assert.deepEqual(
        inReview.variants.map((v: { sku: string; external_id: string | null }) => [v.sku, typeof v.external_id]),
        [
          ['T2-W', 'string'],
          ['T2-B', 'string'],
        ],
      );
      assert.equal(calls('upload_image'), uploads + 1);
      const [held] = await shop(me.account);
      assert.deepEqual(
        { id: held!.id, state: held!.state, skus: held!.skus },
        {
          id: inReview.external_id,
          state: 'in_review',
          skus: [
            { sku: 'T2-W', price: '18.00', quantity: 4 },
            { sku: 'T2-B', price: '19.50', quantity: 2 },
          ],
        },
      );
      // In review, the listing is not switched on: TikTok puts it live when its review passes.
      assert.equal(calls('activate_products'), 0);

      const live = await reviewed(me, id, 'active');
      assert.equal(live.platform_status, 'ACTIVATE');
      assert.equal((await shop(me.account))[0]!.status, 'ACTIVATE');
      assert.deepEqual(await events(me), ['listing.published']);
    });

    test('a price change reaches the live product without review; a title change goes to review and the live version stays live', async () => {
      const me = await tiktokSeller(t, '404');
      await subscribe(me);
      const { id, productId } = await publish(me, 'T3');
      await runDueJobs(t, LISTING_QUEUE);
      await reviewed(me, id, 'active');

      const variants = (await call(t, 'GET', `/products/${productId}`, me.as)).json().data.variants;
      variants[0].price = '21.00';
      const changed = await call(t, 'PATCH', `/products/${productId}`, { ...me.as, body: { variants } });
      assert.equal(changed.statusCode, 200, changed.body);
      const edits = calls('partial_edit_product');
      await runDueJobs(t, LISTING_QUEUE);
      assert.equal(calls('partial_edit_product'), edits, 'a price change is not an edit');
      const [priced] = await shop(me.account);
      assert.equal(priced!.status, 'ACTIVATE');
      assert.equal(priced!.skus[0]!.price, '21.00');
      assert.equal((await listing(me, id)).sync_status, 'synced');

      // A prohibited word fails the review: TikTok keeps the earlier version live, and the listing shows both.
      const retitled = await call(t, 'PATCH', `/products/${productId}`, { ...me.as, body: { title: 'Stoneware mug, prohibited glaze' } });
      assert.equal(retitled.statusCode, 200, retitled.body);
      await runDueJobs(t, LISTING_QUEUE);
      assert.equal(calls('partial_edit_product'), edits + 1);
      const failed = await reviewed(me, id, 'active');
      await eventually(async () => {
        await runDueJobs(t, READ_QUEUE);
        const read = await listing(me, id);
        assert.equal(read.sync_status, 'failed', JSON.stringify(read));
        assert.match(read.issues.map((i: { message: string }) => i.message).join(' '), /prohibited word/);
        assert.deepEqual(read.differences, [
          { field: 'title', platform: 'Stoneware mug T3', catalogue: 'Stoneware mug, prohibited glaze' },
        ]);
      });
      assert.equal(failed.status, 'active');
      const [kept] = await shop(me.account);
      assert.deepEqual([kept!.status, kept!.title], ['ACTIVATE', 'Stoneware mug T3']);
      assert.deepEqual(await events(me), ['listing.published', 'listing.sync_failed']);
    });

    test('a prohibited title is refused in review: rejected with TikTok’s reasons, never switched on', async () => {
      const me = await tiktokSeller(t, '405');
      await subscribe(me);
      const { id } = await publish(me, 'T4', 'Mug with a prohibited slogan');
      await runDueJobs(t, LISTING_QUEUE);
      const rejected = await reviewed(me, id, 'rejected');
      assert.equal(rejected.platform_status, 'FAILED');
      assert.deepEqual(
        rejected.issues.map((i: { severity: string; source: string; field: string }) => [i.severity, i.source, i.field]),
        [['error', 'platform', 'title']],
      );
      assert.equal(calls('activate_products'), 0);
      assert.deepEqual(await events(me), ['listing.rejected']);
    });

    test('deactivate, activate (back through review) and delete, each read from the batch answer for this product', async () => {
      const me = await tiktokSeller(t, '406');
      const { id } = await publish(me, 'T5');
      await runDueJobs(t, LISTING_QUEUE);
      await reviewed(me, id, 'active');

      assert.equal((await call(t, 'POST', `/listings/${id}/deactivate`, me.as)).statusCode, 202);
      await runDueJobs(t, LISTING_QUEUE);
      assert.equal((await listing(me, id)).status, 'inactive');
      assert.equal((await shop(me.account))[0]!.status, 'SELLER_DEACTIVATED');

      assert.equal((await call(t, 'POST', `/listings/${id}/activate`, me.as)).statusCode, 202);
      await runDueJobs(t, LISTING_QUEUE);
      assert.equal((await listing(me, id)).status, 'in_review');
      await reviewed(me, id, 'active');

      assert.equal((await call(t, 'DELETE', `/listings/${id}`, me.as)).statusCode, 202);
      await runDueJobs(t, LISTING_QUEUE);
      assert.equal((await listing(me, id)).status, 'deleted');
      assert.equal((await shop(me.account))[0]!.status, 'DELETED');
    });

    test('a shop TikTok says is not ready to list (no return warehouse) is refused on the site before anything is sent', async () => {
      const me = await tiktokSeller(t, '900408');
      const productId = await product(me, 'T7');
      const body = { product_id: productId, category_id: '600011', attributes: { 100392: '1001533' } };
      for (const mode of ['validate', 'publish']) {
        const refused = await call(t, 'POST', `/sites/${me.site}/listings`, { ...me.as, body: { ...body, mode } });
        if (mode === 'validate') {
          assert.equal(refused.statusCode, 200, refused.body);
          assert.equal(refused.json().data.valid, false);
          assert.match(JSON.stringify(refused.json().data.issues), /RETURN_WAREHOUSE/);
        } else {
          assert.equal(refused.statusCode, 422, refused.body);
          assert.match(refused.json().errors.site_id.join(' '), /no return warehouse/);
        }
      }
      assert.deepEqual(await shop(me.account), []);
      assert.equal((await call(t, 'GET', `/sites/${me.site}/listings`, me.as)).json().data.length, 0);
    });

    test('a create whose answer is lost (TikTok made it, then answered 500) is sent again with its key: one product', async () => {
      const me = await tiktokSeller(t, '407');
      const { id } = await publish(me, 'T6');
      t.deps.sandbox.faults.set('tiktok-shop', 'listings', 'ghost');
      await runDueJobs(t, LISTING_QUEUE);
      t.deps.sandbox.faults.set('tiktok-shop', 'listings', null);
      assert.equal((await listing(me, id)).status, 'pending');
      t.clock.advance(60_000);
      await runDueJobs(t, LISTING_QUEUE);
      const listed = await listing(me, id);
      assert.equal(listed.status, 'in_review', JSON.stringify(listed));
      const held = await shop(me.account);
      assert.equal(held.length, 1);
      assert.equal(held[0]!.id, listed.external_id);
    });
  });
}
