/**
 * Import of a TikTok shop's existing products (DESIGN §10, `POST /sites/{site_id}/listings/import`) and the watch of
 * what its seller changes there, against the sandbox TikTok Shop over HTTP: a shop stocked outside Storelink (the consent
 * page's `shop=stocked`), its products made into catalogue products (variants with their options, prices, stock, images
 * TikTok hosts) or linked by sku, listings with TikTok's statuses and attributes, nothing written by the import, a second
 * import that updates instead of doubling; then a catalogue price change sent as a price update alone (the import's
 * fingerprints are what a delivery computes), a seller's edit in Seller Center (the sandbox's seller edit) shown as
 * differences, sent back by a refresh or taken by adopt; and a shop of 256 products read 20 at a time.
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import { IMPORT_QUEUE } from '../../../src/core/listings/listing-import.js';
import { READ_QUEUE } from '../../../src/core/listings/listing-watch.js';
import { LISTING_QUEUE } from '../../../src/core/listings/listing-work.js';
import { setTikTokShopRateLimit } from '../../../src/sandbox/tiktok-shop/product-store.js';
import { databaseKinds } from '../../helpers/database.js';
import { SANDBOX_REVIEW_MS } from '../../helpers/fixtures.js';
import { heldListings, tiktokSeller } from '../../helpers/listings.js';
import { call, createTestApp, runDueJobs, type TestApp } from '../../helpers/test-app.js';

interface ShopProduct {
  id: string;
  title: string;
  state: string;
  status: string;
  skus: { sku: string; price: string; quantity: number }[];
  audit_failed_reasons: { reasons: string[] }[];
  updated_at: string;
}

interface Difference {
  field: string;
  platform: string | null;
  catalogue: string | null;
}

/** Every TikTok write the sandbox counts: an import makes none of them. */
const WRITES = [
  'upload_image',
  'create_product',
  'edit_product',
  'partial_edit_product',
  'update_prices',
  'update_inventory',
  'activate_products',
  'deactivate_products',
  'delete_products',
];
const SIX_HOURS = 6 * 3600_000;
/** The sandbox's first brand, which the stocked mug names. */
const SANDBOX_HOME = '7082427311584347905';

for (const kind of databaseKinds()) {
  describe(`import of a TikTok shop's products [${kind}]`, () => {
    let t: TestApp;
    let base: string;
    before(async () => {
      t = await createTestApp(kind, { listen: true });
      base = t.deps.config.appUrl;
    });
    after(() => t.close());
    beforeEach(() => setTikTokShopRateLimit(t.deps.sandbox, 1_000_000));

    type Seller = Awaited<ReturnType<typeof tiktokSeller>>;
    const seller = (account: string, shop = 'stocked') => tiktokSeller(t, account, { shop });
    const calls = (operation: string) => t.deps.sandbox.calls.get(`tiktok-shop:${operation}`) ?? 0;
    const writes = () => WRITES.reduce((sum, operation) => sum + calls(operation), 0);
    const shopOf = (account: string) => heldListings<ShopProduct>(t, 'tiktok-shop', account);
    const onTikTok = async (account: string, id: string) => (await shopOf(account)).find((p) => p.id === id)!;
    const listing = async (me: Seller, id: number) => (await call(t, 'GET', `/listings/${id}`, me.as)).json().data;
    const listingsOf = async (me: Seller) => (await call(t, 'GET', `/sites/${me.site}/listings?per_page=50`, me.as)).json().data;
    const productOf = async (me: Seller, id: number) => (await call(t, 'GET', `/products/${id}`, me.as)).json().data;
    const differences = (list: Difference[]) => list.map((d) => [d.field, d.platform, d.catalogue]);

    async function importAll(me: Seller) {
      const started = await call(t, 'POST', `/sites/${me.site}/listings/import`, me.as);
      assert.equal(started.statusCode, 202, started.body);
      assert.equal(started.json().data.status, 'running');
      await runDueJobs(t, IMPORT_QUEUE);
      const done = (await call(t, 'GET', `/sites/${me.site}/listings/import`, me.as)).json().data;
      assert.equal(done.id, started.json().data.id);
      return done;
    }

    /** The site's listing of the TikTok product titled `title`. */
    async function listingTitled(me: Seller, title: string) {
      const product = (await shopOf(me.account)).find((p) => p.title === title)!;
      return (await listingsOf(me)).find((l: { external_id: string }) => l.external_id === product.id);
    }

    /** The seller edits the product in Seller Center (the sandbox's seller edit). */
    async function editOnTikTok(account: string, productId: string, body: unknown) {
      const response = await fetch(`${base}/sandbox/tiktok-shop/accounts/${account}/listings/${productId}`, {
        method: 'PATCH',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      assert.equal(response.status, 200, await response.clone().text());
      return response.json() as Promise<ShopProduct>;
    }

    /** Six hours on: the sweep finds the live listings due, and their reads run. */
    async function readsLater() {
      t.clock.advance(SIX_HOURS + 1_000);
      await t.deps.listingWatch.sweep();
      return runDueJobs(t, READ_QUEUE);
    }

    /** A catalogue change of the product's variant prices: `prices` by sku. */
    async function reprice(me: Seller, productId: number, prices: Record<string, string>) {
      const variants = (await productOf(me, productId)).variants;
      for (const variant of variants) variant.price = prices[variant.sku] ?? variant.price;
      const changed = await call(t, 'PATCH', `/products/${productId}`, { ...me.as, body: { variants } });
      assert.equal(changed.statusCode, 200, changed.body);
    }

    test('a stocked shop: products made with their variants, images and attributes, one linked by sku, nothing written', async () => {
      const me = await seller('7301');
      const shop = await shopOf(me.account);
      assert.deepEqual(
        shop.map((p) => [p.title, p.status]),
        [
          ['Stoneware mug with a speckled glaze', 'ACTIVATE'],
          ['Organic cotton T-shirt', 'ACTIVATE'],
          ['Canvas tote bag', 'ACTIVATE'],
          ['Enamel camping mug', 'SELLER_DEACTIVATED'],
          ['Glass tumbler with a prohibited slogan', 'FAILED'],
          ['Jute market bag', 'ACTIVATE'],
        ],
      );
      // The catalogue already has the enamel mug's sku, on a product of its own (another title and price).
      const created = await call(t, 'POST', '/products', {
        ...me.as,
        body: { title: 'Catalogue enamel mug', currency: 'GBP', variants: [{ sku: 'MUG-ENAMEL', price: '12.00', quantity: 6 }] },
      });
      assert.equal(created.statusCode, 201, created.body);
      const enamel = created.json().data.id as number;
      const writesBefore = writes();
      const searches = calls('search_products');

      const done = await importAll(me);
      assert.deepEqual(
        {
          status: done.status,
          pages: done.pages,
          found: done.found,
          created: done.created,
          linked: done.linked,
          updated: done.updated,
          skipped: done.skipped,
        },
        { status: 'done', pages: 1, found: 6, created: 5, linked: 1, updated: 0, skipped: 0 },
      );
      assert.equal(calls('search_products') - searches, 1, 'one search page of 20');
      assert.equal(writes(), writesBefore, 'the import wrote nothing to the shop');

      // The listings hold TikTok's statuses: live, switched off by the seller, refused by the audit with its reasons.
      const listings = await listingsOf(me);
      assert.equal(listings.length, 6);
      const titleOf = new Map(shop.map((p) => [p.id, p.title]));
      const byTitle = new Map<string | undefined, any>(listings.map((l: { external_id: string }) => [titleOf.get(l.external_id), l]));
      assert.deepEqual(Object.fromEntries([...byTitle].map(([title, l]) => [title, [l.status, l.platform_status]])), {
        'Stoneware mug with a speckled glaze': ['active', 'ACTIVATE'],
        'Organic cotton T-shirt': ['active', 'ACTIVATE'],
        'Canvas tote bag': ['active', 'ACTIVATE'],
        'Enamel camping mug': ['inactive', 'SELLER_DEACTIVATED'],
        'Glass tumbler with a prohibited slogan': ['rejected', 'FAILED'],
        'Jute market bag': ['active', 'ACTIVATE'],
      });
      const glass = byTitle.get('Glass tumbler with a prohibited slogan');
      assert.deepEqual(
        glass.issues.map((i: { severity: string; code: string; field: string; source: string }) => [i.severity, i.code, i.field, i.source]),
        [['error', 'audit_failed', 'title', 'platform']],
      );
      assert.match(glass.issues[0].message, /prohibited word/);
      // The listing carries TikTok's attributes: Material (and Capacity) by the category's ids, the brand.
      const mugListing = byTitle.get('Stoneware mug with a speckled glaze');
      assert.equal(mugListing.category_id, '600011');
      assert.deepEqual(mugListing.attributes, { 100392: '1001533', 100393: '350 ml', brand_id: SANDBOX_HOME });
      assert.equal(byTitle.get('Canvas tote bag').attributes['100392'], '1001536');
      const tee = byTitle.get('Organic cotton T-shirt');
      assert.equal(tee.category_id, '601011');
      assert.deepEqual(tee.attributes, { 100410: '1002001' });
      assert.deepEqual(
        tee.variants.map((v: { sku: string; price: string; quantity: number; external_id: string }) => [
          v.sku,
          v.price,
          v.quantity,
          /^[0-9]+$/.test(v.external_id),
        ]),
        [
          ['TEE-BLACK', '15.00', 5, true],
          ['TEE-WHITE', '16.50', 3, true],
        ],
      );
      assert.equal(tee.currency, 'GBP');

      // The products made from TikTok's are what the shop holds, at their version, with nothing to show.
      for (const [title, made] of byTitle) {
        if (title === 'Enamel camping mug') continue;
        assert.deepEqual([made.sync_status, made.synced_version, made.differences], ['synced', 1, []], title);
      }
      const products = (await call(t, 'GET', '/products?per_page=50', me.as)).json().data;
      assert.equal(products.length, 6, '1 of the catalogue and 5 made');
      const teeProduct = await productOf(me, tee.product_id);
      assert.equal(teeProduct.title, 'Organic cotton T-shirt');
      assert.equal(teeProduct.description, 'Organic cotton T-shirt, made for the sandbox shop Sandbox TikTok Shop 7301.');
      assert.equal(teeProduct.currency, 'GBP');
      assert.deepEqual(teeProduct.options, [{ name: 'Color', values: ['Black', 'White'] }]);
      assert.deepEqual(
        teeProduct.variants.map((v: { sku: string; option_values: object; price: string; quantity: number }) => [
          v.sku,
          v.option_values,
          v.price,
          v.quantity,
        ]),
        [
          ['TEE-BLACK', { Color: 'Black' }, '15.00', 5],
          ['TEE-WHITE', { Color: 'White' }, '16.50', 3],
        ],
      );
      // A colour the category does not list comes as the seller named it.
      const tote = await productOf(me, byTitle.get('Canvas tote bag').product_id);
      assert.deepEqual(tote.options, [{ name: 'Color', values: ['Blue', 'Natural'] }]);
      // The images are TikTok's own links (the sandbox hosts its image CDN's): they load.
      const mug = await productOf(me, mugListing.product_id);
      assert.deepEqual(
        mug.variants.map((v: { sku: string; price: string; quantity: number }) => [v.sku, v.price, v.quantity]),
        [['MUG-SPECKLE', '18.00', 12]],
      );
      assert.equal(mug.images.length, 2);
      for (const image of mug.images) assert.match(image.url, new RegExp(`^${base}/sandbox/tiktok-shop/images/[0-9a-f]{32}$`));
      const picture = await fetch(mug.images[0].url);
      assert.equal(picture.status, 200);
      assert.equal(picture.headers.get('content-type'), 'image/png');

      // The linked product is left as the catalogue has it; the shop's product is left as the seller made it, and what
      // differs is shown.
      const linked = byTitle.get('Enamel camping mug');
      assert.equal(linked.product_id, enamel);
      assert.deepEqual([linked.sync_status, linked.synced_version], ['synced', null]);
      assert.deepEqual(differences(linked.differences), [
        ['title', 'Enamel camping mug', 'Catalogue enamel mug'],
        ['variants.MUG-ENAMEL.price', '14.00', '12.00'],
        ['images', '1', '0'],
      ]);
      assert.equal((await productOf(me, enamel)).title, 'Catalogue enamel mug', 'the linked product is not changed');

      assert.deepEqual(await runDueJobs(t, LISTING_QUEUE), {}, 'the import queued no listing work');
      assert.equal(writes(), writesBefore);
      assert.deepEqual(
        (await shopOf(me.account)).map((p) => p.updated_at),
        shop.map((p) => p.updated_at),
        'no product of the shop changed',
      );

      // A second import updates what the first took: no product, no listing twice.
      const again = await importAll(me);
      assert.deepEqual(
        { found: again.found, created: again.created, linked: again.linked, updated: again.updated, skipped: again.skipped },
        { found: 6, created: 0, linked: 0, updated: 6, skipped: 0 },
      );
      assert.equal((await call(t, 'GET', '/products?per_page=50', me.as)).json().data.length, 6);
      assert.equal((await listingsOf(me)).length, 6);
      assert.equal(writes(), writesBefore);
    });

    /**
     * The catalogue's price of `sku` changed on an imported product, and the listing's work run: what it sent to TikTok
     * (partial edits, price updates), the price TikTok's live product shows, and the listing then.
     */
    async function priceChange(me: Seller, title: string, sku: string) {
      const imported = await listingTitled(me, title);
      const [partialEdits, priceUpdates] = [calls('partial_edit_product'), calls('update_prices')];
      await reprice(me, imported.product_id, { [sku]: '21.00' });
      await runDueJobs(t, LISTING_QUEUE);
      const held = await onTikTok(me.account, imported.external_id);
      const read = await listing(me, imported.id);
      return {
        partial_edits: calls('partial_edit_product') - partialEdits,
        price_updates: calls('update_prices') - priceUpdates,
        live_price: held.skus.find((s) => s.sku === sku)!.price,
        listing: [read.status, read.sync_status, read.synced_version],
      };
    }
    const BY_PRICE_ALONE = { partial_edits: 0, price_updates: 1, live_price: '21.00', listing: ['active', 'synced', 2] };

    test('after an import, a catalogue price change reaches TikTok by a price update alone: no edit, no review', async () => {
      const me = await seller('7302');
      await importAll(me);
      // The jute bag has a package weight and no package size (tote bags need none).
      assert.deepEqual(await priceChange(me, 'Jute market bag', 'BAG-JUTE'), BY_PRICE_ALONE);
    });

    // An import makes the catalogue product with TikTok's package, as the recorded fingerprint holds it: without it, a
    // product's first change (a price here) would go out as a partial edit of the whole product (back to review).
    test('after an import, a price change of a product with a package size is a price update alone too', async () => {
      const me = await seller('7307');
      await importAll(me);
      const outcomes: Record<string, unknown> = {};
      for (const [title, sku] of [
        ['Stoneware mug with a speckled glaze', 'MUG-SPECKLE'],
        ['Organic cotton T-shirt', 'TEE-WHITE'],
        ['Canvas tote bag', 'TOTE-NATURAL'],
      ] as const)
        outcomes[title] = await priceChange(me, title, sku);
      assert.deepEqual(outcomes, {
        'Stoneware mug with a speckled glaze': BY_PRICE_ALONE,
        'Organic cotton T-shirt': BY_PRICE_ALONE,
        'Canvas tote bag': BY_PRICE_ALONE,
      });
    });

    test("a seller's edit in Seller Center is read as differences; a refresh sends the catalogue's values back", async () => {
      const me = await seller('7303');
      await importAll(me);
      const tee = await listingTitled(me, 'Organic cotton T-shirt');
      const edited = await editOnTikTok(me.account, tee.external_id, {
        title: 'Organic cotton tee, edited',
        skus: [{ sku: 'TEE-BLACK', price: '17.00', quantity: 9 }],
      });
      assert.deepEqual(
        { title: edited.title, status: edited.status, skus: edited.skus },
        {
          title: 'Organic cotton tee, edited',
          status: 'ACTIVATE',
          skus: [
            { sku: 'TEE-BLACK', price: '17.00', quantity: 9 },
            { sku: 'TEE-WHITE', price: '16.50', quantity: 3 },
          ],
        },
      );
      const reads = calls('get_product');
      await readsLater();
      assert.ok(calls('get_product') > reads, 'the watch read the shop');
      const shown = await listing(me, tee.id);
      assert.deepEqual(differences(shown.differences), [
        ['title', 'Organic cotton tee, edited', 'Organic cotton T-shirt'],
        ['variants.TEE-BLACK.price', '17.00', '15.00'],
        ['variants.TEE-BLACK.quantity', '9', '5'],
      ]);
      assert.deepEqual([shown.status, shown.sync_status], ['active', 'synced']);

      // The catalogue's values go back: the title by a partial edit with the SKUs whole (TikTok reviews it; the live
      // version stays live meanwhile).
      const uploads = calls('upload_image');
      const partialEdits = calls('partial_edit_product');
      assert.equal((await call(t, 'POST', `/listings/${tee.id}/refresh`, me.as)).statusCode, 202);
      await runDueJobs(t, LISTING_QUEUE);
      assert.equal(calls('partial_edit_product') - partialEdits, 1);
      assert.equal(calls('upload_image'), uploads, 'the images TikTok holds are not uploaded again');
      assert.equal((await onTikTok(me.account, tee.external_id)).title, 'Organic cotton tee, edited', 'live until the review passes');
      t.clock.advance(SANDBOX_REVIEW_MS);
      const back = await onTikTok(me.account, tee.external_id);
      assert.deepEqual(
        { title: back.title, status: back.status, skus: back.skus },
        {
          title: 'Organic cotton T-shirt',
          status: 'ACTIVATE',
          skus: [
            { sku: 'TEE-BLACK', price: '15.00', quantity: 5 },
            { sku: 'TEE-WHITE', price: '16.50', quantity: 3 },
          ],
        },
      );
      // The review's webhook asks for a read: the listing is live, synced, and shows nothing.
      await runDueJobs(t, READ_QUEUE);
      const read = await listing(me, tee.id);
      assert.deepEqual(
        [read.status, read.platform_status, read.sync_status, read.differences, read.issues],
        ['active', 'ACTIVATE', 'synced', [], []],
        JSON.stringify(read),
      );
    });

    test("the sandbox's seller edit: a product of the account's shops, its seller skus, TikTok's prices", async () => {
      const me = await seller('7306');
      const [mug] = await shopOf(me.account);
      const patch = (account: string, id: string, body: unknown) =>
        fetch(`${base}/sandbox/tiktok-shop/accounts/${account}/listings/${id}`, {
          method: 'PATCH',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
      assert.equal((await patch('7399', mug!.id, { price: '20.00' })).status, 404, "another account's product");
      assert.equal((await patch(me.account, '1', { price: '20.00' })).status, 404);
      assert.equal((await patch(me.account, mug!.id, { skus: [{ sku: 'NOPE', price: '20.00' }] })).status, 400);
      assert.equal((await patch(me.account, mug!.id, { price: '20' })).status, 200, 'a whole price, kept as 20.00');
      assert.equal((await patch(me.account, mug!.id, { price: '20.005' })).status, 400);
      assert.equal((await patch(me.account, mug!.id, { price: '6000.00' })).status, 400, "above the UK market's ceiling");
      assert.equal((await patch(me.account, mug!.id, { quantity: -1 })).status, 400);
      assert.equal((await patch(me.account, mug!.id, { title: '' })).status, 400);
      const edited = (await (await patch(me.account, mug!.id, { quantity: 0 })).json()) as ShopProduct;
      assert.deepEqual(edited.skus, [{ sku: 'MUG-SPECKLE', price: '20.00', quantity: 0 }]);
      assert.equal(edited.status, 'ACTIVATE');
    });

    test("adopt takes TikTok's values into the catalogue: the product changes, and nothing is sent back", async () => {
      const me = await seller('7304');
      await importAll(me);
      const bag = await listingTitled(me, 'Jute market bag');
      // A price and stock for every SKU.
      await editOnTikTok(me.account, bag.external_id, { price: '9.25', quantity: 30 });
      await readsLater();
      assert.deepEqual(differences((await listing(me, bag.id)).differences), [
        ['variants.BAG-JUTE.price', '9.25', '8.00'],
        ['variants.BAG-JUTE.quantity', '30', '15'],
      ]);
      const sent = () => calls('update_prices') + calls('update_inventory') + calls('partial_edit_product');
      const before = sent();
      const adopted = await call(t, 'POST', `/listings/${bag.id}/adopt`, me.as);
      assert.equal(adopted.statusCode, 202, adopted.body);
      const product = await productOf(me, bag.product_id);
      assert.deepEqual(
        product.variants.map((v: { sku: string; price: string; quantity: number }) => [v.sku, v.price, v.quantity]),
        [['BAG-JUTE', '9.25', 30]],
      );
      assert.equal(product.version, 2);
      await runDueJobs(t, LISTING_QUEUE);
      const read = await listing(me, bag.id);
      assert.deepEqual([read.sync_status, read.synced_version, read.differences], ['synced', 2, []]);
      assert.equal(sent(), before, 'TikTok holds the values already');
      assert.equal((await call(t, 'POST', `/listings/${bag.id}/adopt`, me.as)).statusCode, 409, 'nothing left to take');
    });

    test('a shop of 256 products is read 20 at a time and taken whole', async () => {
      const me = await seller('7305', 'stocked-large');
      assert.equal((await shopOf(me.account)).length, 256);
      const searches = calls('search_products');
      const started = await call(t, 'POST', `/sites/${me.site}/listings/import`, me.as);
      assert.equal(started.statusCode, 202, started.body);
      // A page at a time, the test's clock a second on between them as time would be: TikTok's pace (50 calls a second
      // per shop and API, 21 calls a page) is kept by that clock, which otherwise stands still while the calls wait.
      for (let page = 0; page < 20; page++) {
        const ran = await runDueJobs(t, IMPORT_QUEUE, 1);
        t.clock.advance(1_100);
        if (Object.keys(ran).length === 0) break;
      }
      const done = (await call(t, 'GET', `/sites/${me.site}/listings/import`, me.as)).json().data;
      assert.deepEqual(
        { status: done.status, pages: done.pages, found: done.found, created: done.created, skipped: done.skipped },
        { status: 'done', pages: 13, found: 256, created: 256, skipped: 0 },
      );
      assert.equal(calls('search_products') - searches, 13, '12 pages of 20, then one of 16');
      const page = (await call(t, 'GET', `/sites/${me.site}/listings?per_page=1`, me.as)).json();
      assert.equal(page.meta.total, 256);
    });
  });
}
