/**
 * TikTok Shop's error classes and product rules beyond a plain review (issue 36 item 8), end to end against the sandbox
 * TikTok Shop over real HTTP: a product TikTok pre-approves (`audit.status` PRE_APPROVED) stays in review with TikTok's
 * reason in words until the shop completes it; the daily upload limit (12052093) makes a publish wait for the next
 * day's allowance; and a SKU kept in several warehouses takes its stock with every warehouse sent (12019028).
 */
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { after, before, beforeEach, describe, test } from 'node:test';
import { READ_QUEUE } from '../../../src/core/listings/listing-watch.js';
import { LISTING_QUEUE } from '../../../src/core/listings/listing-work.js';
import { listingById } from '../../../src/db/listings.repo.js';
import { DEFAULT_TIKTOK_LIMITS, SANDBOX_CLIENTS } from '../../../src/sandbox/context.js';
import { setTikTokShopDailyUploads, setTikTokShopRateLimit } from '../../../src/sandbox/tiktok-shop/product-store.js';
import { databaseKinds } from '../../helpers/database.js';
import { PNG_640X480, SANDBOX_REVIEW_MS } from '../../helpers/fixtures.js';
import { heldListings, leafCategory, mugProduct, tiktokSeller } from '../../helpers/listings.js';
import { call, createTestApp, runDueJobs, type TestApp } from '../../helpers/test-app.js';
import { sandboxShopsOf, signedCall, uploadImage } from '../../helpers/tiktok-sandbox.js';

interface ShopProduct {
  id: string;
  title: string;
  state: string;
  status: string;
  audit?: string;
  pre_approved_reasons?: string[];
  skus: { sku: string; price: string; quantity: number; inventory?: { warehouse_id: string; quantity: number }[] }[];
}
interface Issue {
  severity: string;
  code: string;
  message: string;
  source: string;
}

const PNG = { bytes: PNG_640X480, type: 'image/png', name: 'mug.png' };

/** TikTok's signature of a multipart call (its body is not signed), computed here from TikTok's documented steps. */
function signOf(path: string, params: Record<string, string>): string {
  const { appSecret } = SANDBOX_CLIENTS.tiktokShop;
  const pairs = Object.entries(params).sort(([a], [b]) => (a < b ? -1 : 1));
  return createHmac('sha256', appSecret)
    .update(appSecret + path + pairs.map(([key, value]) => key + value).join('') + appSecret)
    .digest('hex');
}

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
    const shop = (account: string) => heldListings<ShopProduct>(t, 'tiktok-shop', account);
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

    test('a SKU the seller stocked in two warehouses takes its stock with both named: the whole pool in the site warehouse, 0 in the other', async () => {
      const me = await tiktokSeller(t, '473');
      const [main, second] = (await call(t, 'GET', `/sites/${me.site}/listing-options`, me.as))
        .json()
        .data.warehouse_id.map((w: { value: string }) => w.value);
      const { id, productId } = await publish(me, 'D1');
      await runDueJobs(t, LISTING_QUEUE);
      t.clock.advance(SANDBOX_REVIEW_MS);
      const live = await eventually(async () => {
        await runDueJobs(t, READ_QUEUE);
        const read = await listing(me, id);
        assert.equal(read.status, 'active');
        return read;
      });
      // In Seller Center, the seller moves two of the white mugs to the second warehouse: a multi-warehouse SKU.
      const moved = await fetch(`${base}/sandbox/tiktok-shop/accounts/${me.account}/listings/${live.external_id}`, {
        method: 'PATCH',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          skus: [
            {
              sku: 'D1-W',
              inventory: [
                { warehouse_id: main, quantity: 2 },
                { warehouse_id: second, quantity: 2 },
              ],
            },
          ],
        }),
      });
      assert.equal(moved.status, 200, await moved.text());

      // The catalogue's stock changes: the update names both warehouses, so TikTok takes it.
      const stockOf = async (quantities: Record<string, number>) => {
        const variants = (await call(t, 'GET', `/products/${productId}`, me.as)).json().data.variants;
        for (const variant of variants) if (quantities[variant.sku] !== undefined) variant.quantity = quantities[variant.sku];
        assert.equal((await call(t, 'PATCH', `/products/${productId}`, { ...me.as, body: { variants } })).statusCode, 200);
        await runDueJobs(t, LISTING_QUEUE);
      };
      const updates = calls('update_inventory');
      await stockOf({ 'D1-W': 9 });
      const synced = await listing(me, id);
      assert.equal(synced.sync_status, 'synced', JSON.stringify(synced));
      assert.deepEqual(synced.issues, []);
      const [held] = await shop(me.account);
      assert.deepEqual(held!.skus[0], {
        sku: 'D1-W',
        price: '18.00',
        quantity: 9,
        inventory: [
          { warehouse_id: main, quantity: 9 },
          { warehouse_id: second, quantity: 0 },
        ],
      });
      // The first update was refused (12019028) and sent again with both; the warehouses are kept, so the next is one call.
      assert.equal(calls('update_inventory'), updates + 2);
      await stockOf({ 'D1-W': 5 });
      assert.equal(calls('update_inventory'), updates + 3);
      const [again] = await shop(me.account);
      assert.deepEqual(again!.skus[0]!.inventory, [
        { warehouse_id: main, quantity: 5 },
        { warehouse_id: second, quantity: 0 },
      ]);
      assert.equal((await listing(me, id)).sync_status, 'synced');
    });

    test('the sandbox refuses a stock update that leaves out a warehouse of a multi-warehouse SKU (12019028), and takes one naming each', async () => {
      const [seller] = await sandboxShopsOf(t, 474);
      const who = { token: seller!.token, cipher: seller!.cipher };
      const uri = await uploadImage(t, seller!);
      const [main, second] = [`${seller!.id}001`, `${seller!.id}002`];
      const created = await signedCall(t, who, 'POST', '/product/202309/products', {
        title: 'Stoneware mug in two warehouses',
        description: '<p>A mug.</p>',
        category_id: '600011',
        main_images: [{ uri }],
        product_attributes: [{ id: '100392', values: [{ id: '1001533' }] }],
        package_weight: { value: '0.4', unit: 'KILOGRAM' },
        package_dimensions: { length: '12', width: '10', height: '10', unit: 'CENTIMETER' },
        skus: [
          {
            seller_sku: 'W2',
            price: { amount: '18.00', currency: 'GBP' },
            inventory: [
              { warehouse_id: main, quantity: 3 },
              { warehouse_id: second, quantity: 4 },
            ],
          },
        ],
      });
      assert.equal(created.body.code, 0, JSON.stringify(created.body));
      const productId = created.body.data.product_id as string;
      const skuId = (created.body.data.skus as { id: string }[])[0]!.id;
      t.clock.advance(SANDBOX_REVIEW_MS);
      const path = `/product/202309/products/${productId}/inventory/update`;
      const one = await signedCall(t, who, 'POST', path, { skus: [{ id: skuId, inventory: [{ warehouse_id: main, quantity: 7 }] }] });
      assert.equal(one.body.code, 12019028, JSON.stringify(one.body));
      const both = await signedCall(t, who, 'POST', path, {
        skus: [
          {
            id: skuId,
            inventory: [
              { warehouse_id: main, quantity: 7 },
              { warehouse_id: second, quantity: 0 },
            ],
          },
        ],
      });
      assert.equal(both.body.code, 0, JSON.stringify(both.body));
      const [held] = await shop('474');
      assert.equal(held!.skus[0]!.quantity, 7);
    });

    test("the shop's daily upload limit (12052093): the publish waits for the next day's allowance, says why, and sends nothing meanwhile", async () => {
      const me = await tiktokSeller(t, '475');
      setTikTokShopDailyUploads(t.deps.sandbox, 1);
      try {
        const first = await publish(me, 'Q1');
        await runDueJobs(t, LISTING_QUEUE);
        assert.equal((await listing(me, first.id)).status, 'in_review');
        const creates = calls('create_product');
        const second = await publish(me, 'Q2');
        await runDueJobs(t, LISTING_QUEUE);
        assert.equal(calls('create_product'), creates + 1, 'one create, refused');
        const waiting = await listing(me, second.id);
        assert.equal(waiting.status, 'pending', JSON.stringify(waiting));
        assert.notEqual(waiting.sync_status, 'failed');
        assert.deepEqual(
          waiting.issues.map((i: Issue) => [i.severity, i.code, i.source]),
          [['warning', '12052093', 'platform']],
        );
        assert.match(waiting.issues[0].message, /daily allowance of new products for this shop is spent/);
        const midnight = new Date(t.clock.now());
        midnight.setUTCHours(24, 0, 0, 0);
        assert.match(waiting.issues[0].message, new RegExp(`${midnight.toISOString().slice(0, 16).replace('T', ' ')} UTC`));

        // The shop's other publishes wait too, without a call; and nothing is tried again before the day turns.
        const third = await publish(me, 'Q3');
        await runDueJobs(t, LISTING_QUEUE);
        // Ten minutes on, or half the time left before the day turns when the clock (started at the real time) is near
        // midnight UTC.
        t.clock.advance(Math.min(10 * 60_000, (midnight.getTime() - t.clock.now().getTime()) / 2));
        await runDueJobs(t, LISTING_QUEUE);
        assert.equal(calls('create_product'), creates + 1, 'no create while the day is spent');
        assert.equal((await listing(me, third.id)).issues[0]?.code, '12052093');
        const uploads = (await (await fetch(`${base}/sandbox/tiktok-shop/accounts/${me.account}/uploads`)).json()) as { count: number }[];
        assert.equal(uploads[0]!.count, 1);
        assert.equal((await shop(me.account)).length, 1);

        // The next day opens: both are created, and read in review with nothing left of the wait.
        t.clock.advance(midnight.getTime() - t.clock.now().getTime() + 1_000);
        setTikTokShopDailyUploads(t.deps.sandbox, 2);
        await runDueJobs(t, LISTING_QUEUE);
        for (const { id } of [second, third]) {
          // A day on, the session has lapsed: the listing is read from the database.
          const created = await listingById(t.database.db, id);
          assert.equal(created?.status, 'in_review', JSON.stringify(created));
          assert.deepEqual(created!.issues, []);
        }
        assert.equal((await shop(me.account)).length, 3);
      } finally {
        setTikTokShopDailyUploads(t.deps.sandbox, DEFAULT_TIKTOK_LIMITS.uploadsPerDay);
      }
    });

    test("a new shop's daily allowance is TikTok's probation one, 100 new products; POST /sandbox/tiktok-shop/limits gives a graduated shop's 1,000", async () => {
      const me = await tiktokSeller(t, '477');
      const allowance = async () =>
        ((await (await fetch(`${base}/sandbox/tiktok-shop/accounts/${me.account}/uploads`)).json()) as { limit: number }[])[0]!.limit;
      const limits = (body: unknown) =>
        fetch(`${base}/sandbox/tiktok-shop/limits`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
      assert.equal(await allowance(), 100);
      try {
        assert.equal((await limits({ uploads_per_day: 1_000 })).status, 204);
        assert.equal(await allowance(), 1_000);
        assert.deepEqual(await (await fetch(`${base}/sandbox/tiktok-shop/limits`)).json(), {
          per_second: 1_000_000,
          uploads_per_day: 1_000,
        });
        for (const refused of [{}, { uploads_per_day: 0 }, { uploads_per_day: '1000' }, { per_second: 2.5 }])
          assert.equal((await limits(refused)).status, 400, JSON.stringify(refused));
      } finally {
        setTikTokShopDailyUploads(t.deps.sandbox, DEFAULT_TIKTOK_LIMITS.uploadsPerDay);
      }
    });

    test('the sandbox takes a certificate as TikTok does: a PDF by Upload Product File, an image by CERTIFICATION_IMAGE; a create without it is 12052105', async () => {
      const [seller] = await sandboxShopsOf(t, 476);
      const who = { token: seller!.token, cipher: seller!.cipher };
      const uri = await uploadImage(t, seller!);
      const bottle = (certifications?: unknown) => ({
        title: 'Glass baby bottle',
        description: '<p>A bottle.</p>',
        category_id: '600012',
        main_images: [{ uri }],
        package_weight: { value: '0.2', unit: 'KILOGRAM' },
        skus: [
          { seller_sku: 'BB1', price: { amount: '9.00', currency: 'GBP' }, inventory: [{ warehouse_id: `${seller!.id}001`, quantity: 3 }] },
        ],
        ...(certifications ? { certifications } : {}),
      });
      const create = (certifications?: unknown) => signedCall(t, who, 'POST', '/product/202309/products', bottle(certifications));
      const without = await create();
      assert.equal(without.body.code, 12052105, JSON.stringify(without.body));
      assert.match(without.body.message, /Baby feeding product safety test report/);
      const strange = await create([{ id: '700102', files: [{ id: 'v0', name: 'report.pdf', format: 'PDF' }] }]);
      assert.equal(strange.body.code, 36009004, JSON.stringify(strange.body));
      const linked = await create([{ id: '700102', images: [{ uri: 'tos-maliva-i-o3syd03w52-us/elsewhere' }] }]);
      assert.equal(linked.body.code, 36009004, JSON.stringify(linked.body));

      // Upload Product File: a PDF (not an image, not a name with a space), answered with its id, name and format.
      const multipart = async (path: string, parts: Record<string, string | Blob>) => {
        const params: Record<string, string> = {
          app_key: SANDBOX_CLIENTS.tiktokShop.appKey,
          timestamp: String(Math.floor(t.clock.now().getTime() / 1000)),
          shop_cipher: seller!.cipher,
        };
        const form = new FormData();
        for (const [name, value] of Object.entries(parts)) form.append(name, value);
        const response = await fetch(
          `${base}/sandbox/tiktok-shop${path}?${new URLSearchParams({ ...params, sign: signOf(path, params) })}`,
          {
            method: 'POST',
            headers: { 'x-tts-access-token': seller!.token },
            body: form,
          },
        );
        return (await response.json()) as { code: number; data: { id: string; name: string; format: string; url: string; uri: string } };
      };
      const upload = (bytes: Buffer, name: string) =>
        multipart('/product/202309/files/upload', { data: new Blob([new Uint8Array(bytes)], { type: 'application/pdf' }), name });
      const PDF = Buffer.from('%PDF-1.4\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n');
      assert.equal((await upload(PNG_640X480, 'report.pdf')).code, 36009004);
      assert.equal((await upload(PDF, 'safety report.pdf')).code, 36009004);
      const file = await upload(PDF, 'safety_report.pdf');
      assert.equal(file.code, 0, JSON.stringify(file));
      assert.deepEqual([file.data.name, file.data.format], ['safety_report.pdf', 'PDF']);
      const created = await create([{ id: '700102', files: [{ id: file.data.id, name: file.data.name, format: 'PDF' }] }]);
      assert.equal(created.body.code, 0, JSON.stringify(created.body));
      // A certificate image: uploaded with use_case CERTIFICATION_IMAGE (the product's main image is not one).
      const mainAsCertificate = await create([{ id: '700102', images: [{ uri }] }]);
      assert.equal(mainAsCertificate.body.code, 36009004, JSON.stringify(mainAsCertificate.body));
      const image = await multipart('/product/202309/images/upload', {
        data: new Blob([new Uint8Array(PNG_640X480)], { type: 'image/png' }),
        use_case: 'CERTIFICATION_IMAGE',
      });
      assert.equal(image.code, 0, JSON.stringify(image));
      const pictured = await create([{ id: '700102', images: [{ uri: image.data.uri }] }]);
      assert.equal(pictured.body.code, 0, JSON.stringify(pictured.body));
      const read = await signedCall(t, who, 'GET', `/product/202309/products/${created.body.data.product_id}`);
      assert.deepEqual((read.body.data as { certifications: unknown }).certifications, [
        {
          id: '700102',
          title: 'Baby feeding product safety test report',
          images: [],
          files: [{ id: file.data.id, name: 'safety_report.pdf', format: 'PDF' }],
        },
      ]);
    });
  });
}
