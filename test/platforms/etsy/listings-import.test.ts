/**
 * Import of a shop's existing listings (DESIGN §10, `POST /sites/{site_id}/listings/import`) against the sandbox Etsy
 * over HTTP: a shop stocked outside Storelink (the consent page's `shop=stocked`), its listings linked by sku or made
 * into products, nothing written to the shop by the import, a linked product's difference then delivered alone, a
 * second import that updates instead of doubling, and a shop of 256 listings read 100 at a time.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { IMPORT_QUEUE } from '../../../src/core/listings/listing-import.js';
import { LISTING_QUEUE } from '../../../src/core/listings/listing-work.js';
import { databaseKinds } from '../../helpers/database.js';
import { etsySeller } from '../../helpers/listings.js';
import { call, createTestApp, runDueJobs, type TestApp } from '../../helpers/test-app.js';

interface ShopListing {
  id: number;
  title: string;
  state: string;
  skus: { sku: string; price: string; quantity: number; variation?: unknown[] }[];
  publishes: number;
  updated_at: string;
}

/** Every Etsy write the sandbox counts: an import makes none of them. */
const WRITES = [
  'createDraftListing',
  'updateListing',
  'deleteListing',
  'updateListingInventory',
  'uploadListingImage',
  'deleteListingImage',
  'updateListingProperty',
  'deleteListingProperty',
];

for (const kind of databaseKinds()) {
  describe(`import of a shop's listings [${kind}]`, () => {
    let t: TestApp;
    let base: string;
    before(async () => {
      t = await createTestApp(kind, { listen: true });
      base = t.deps.config.appUrl;
      Object.assign(t.deps.sandbox.etsyLimits, { perSecond: 1_000_000, perDay: 1_000_000_000 });
    });
    after(() => t.close());

    /** A seller whose sandbox shop `account` already sells (`shop`: the consent page's choice), its settings set or not. */
    const seller = (account: string, shop: string, settings = true) => etsySeller(t, account, { shop, settings });

    const shopOf = async (account: string) =>
      (await (await fetch(`${base}/sandbox/etsy/accounts/${account}/listings`)).json()) as ShopListing[];
    const writes = () => WRITES.reduce((sum, operation) => sum + (t.deps.sandbox.calls.get(`etsy:${operation}`) ?? 0), 0);
    const reads = () => t.deps.sandbox.calls.get('etsy:getListingsByShop') ?? 0;

    async function importAll(me: Awaited<ReturnType<typeof seller>>) {
      const started = await call(t, 'POST', `/sites/${me.site}/listings/import`, me.as);
      assert.equal(started.statusCode, 202, started.body);
      assert.equal(started.json().data.status, 'running');
      await runDueJobs(t, IMPORT_QUEUE);
      const done = (await call(t, 'GET', `/sites/${me.site}/listings/import`, me.as)).json().data;
      assert.equal(done.id, started.json().data.id);
      return done;
    }

    test('a stocked shop: listings linked by sku or made into products, none twice, nothing written by the import', async () => {
      const me = await seller('7101', 'stocked');
      const shop = await shopOf(me.account);
      assert.equal(shop.length, 6);
      // The catalogue already has the card case (at another price), and the tote's two skus on two products of its own.
      const product = async (sku: string, price: string) => {
        const body = { title: `Catalogue ${sku}`, currency: 'USD', variants: [{ sku, price, quantity: 2 }] };
        const created = await call(t, 'POST', '/products', { ...me.as, body });
        assert.equal(created.statusCode, 201, created.body);
        return created.json().data.id as number;
      };
      const card = await product('CARD-TAN', '30.00');
      await product('TOTE-NATURAL', '24.00');
      await product('TOTE-BLACK', '26.00');
      const writesBefore = writes();

      const done = await importAll(me);
      assert.deepEqual(
        {
          status: done.status,
          found: done.found,
          created: done.created,
          linked: done.linked,
          updated: done.updated,
          skipped: done.skipped,
        },
        { status: 'done', found: 6, created: 4, linked: 1, updated: 0, skipped: 1 },
      );
      assert.equal(done.pages, 5, 'one page per state the shop is read in');
      assert.equal(done.skips[0].title, 'Canvas tote bag');
      assert.match(done.skips[0].message, /2 different products/);
      assert.equal(writes(), writesBefore, 'the import wrote nothing to the shop');

      const listings = (await call(t, 'GET', `/sites/${me.site}/listings?per_page=50`, me.as)).json().data;
      assert.equal(listings.length, 5);
      const byTitle = new Map(shop.map((l) => [String(l.id), l.title]));
      const statusOf = Object.fromEntries(
        listings.map((l: { external_id: string; status: string }) => [byTitle.get(l.external_id), l.status]),
      );
      assert.deepEqual(statusOf, {
        'Stoneware mug with a speckled glaze': 'active',
        'Beeswax pillar candle': 'active',
        'Leather card case': 'inactive',
        'Hand-thrown vase': 'inactive',
        'Soy candle, cedar': 'active',
      });
      // The products made from listings are what the shop holds, at their version. The linked card case is left as the
      // shop has it, and said to differ from the catalogue's product.
      const linked = listings.find((l: { product_id: number }) => l.product_id === card);
      assert.equal(linked.sync_status, 'synced');
      assert.equal(linked.synced_version, null);
      // Each listing taken is logged as imported (not published), named by its product's title and its site's name.
      const siteName = (await call(t, 'GET', `/sites/${me.site}`, me.as)).json().data.name;
      const logged = async (action: string) =>
        (await call(t, 'GET', `/audit-events?action=${action}&per_page=50`, me.as)).json().data as {
          subject: { type: string; id: number };
          details: Record<string, unknown>;
        }[];
      assert.deepEqual(await logged('listing.created'), []);
      const imported = await logged('listing.imported');
      assert.deepEqual(
        imported.filter((e) => e.subject.type === 'site').map((e) => [e.subject.id, e.details.name]),
        [[me.site, siteName]],
      );
      const taken = imported.filter((e) => e.subject.type === 'listing');
      assert.equal(taken.length, 5);
      assert.ok(taken.every((e) => e.details.site === siteName));
      assert.equal(taken.find((e) => e.subject.id === linked.id)?.details.title, 'Catalogue CARD-TAN');
      assert.deepEqual(
        linked.differences.map((d: { field: string; platform: string; catalogue: string }) => [d.field, d.platform, d.catalogue]),
        [
          ['title', 'Leather card case', 'Catalogue CARD-TAN'],
          ['tags', 'leather', ''],
          ['variants.CARD-TAN.price', '35.00', '30.00'],
          ['images', '1', '0'],
        ],
      );
      for (const made of listings.filter((l: { product_id: number }) => l.product_id !== card)) {
        assert.equal(made.sync_status, 'synced');
        assert.equal(made.synced_version, 1);
        assert.deepEqual(made.differences, []);
      }

      const products = (await call(t, 'GET', '/products?per_page=50', me.as)).json().data;
      assert.equal(products.length, 7, '3 of the catalogue and 4 made');
      const mug = products.find((p: { title: string }) => p.title === 'Stoneware mug with a speckled glaze');
      assert.deepEqual(
        mug.variants.map((v: { sku: string; price: string; quantity: number }) => [v.sku, v.price, v.quantity]),
        [['MUG-SPECKLE', '28.00', 12]],
      );
      assert.equal(mug.images.length, 2);
      // The images are Etsy's own links (the sandbox hosts its CDN's): they load.
      assert.ok(mug.images[0].url.startsWith(`${base}/sandbox/etsy/images/il_fullxfull.`), mug.images[0].url);
      const image = await fetch(mug.images[0].url);
      assert.equal(image.status, 200);
      assert.equal(image.headers.get('content-type'), 'image/png');
      assert.deepEqual(mug.tags, ['mug', 'stoneware']);
      const candle = products.find((p: { title: string }) => p.title === 'Beeswax pillar candle');
      const candleListing = shop.find((l) => l.title === 'Beeswax pillar candle')!;
      assert.equal(candle.variants[0].sku, `ETSY-${candleListing.id}`, 'a listing without a sku gets one of its id');

      assert.deepEqual(await runDueJobs(t, LISTING_QUEUE), {}, 'the import queued no listing work');
      assert.equal(writes(), writesBefore, 'no listing work was queued by the import');

      // A refresh sends the catalogue's product where it differs: the title and the price; no publish, still inactive.
      assert.equal((await call(t, 'POST', `/listings/${linked.id}/refresh`, me.as)).statusCode, 202);
      await runDueJobs(t, LISTING_QUEUE);
      const cardOnEtsy = (await shopOf(me.account)).find((l) => String(l.id) === linked.external_id)!;
      assert.equal(cardOnEtsy.title, 'Catalogue CARD-TAN');
      assert.deepEqual(cardOnEtsy.skus, [{ sku: 'CARD-TAN', price: '30.00', quantity: 2, variation: [] }]);
      assert.equal(cardOnEtsy.state, 'inactive');
      assert.equal(cardOnEtsy.publishes, 1, 'never published again');
      const refreshed = (await call(t, 'GET', `/listings/${linked.id}`, me.as)).json().data;
      assert.equal(refreshed.sync_status, 'synced');
      assert.equal(refreshed.synced_version, 1);
      assert.deepEqual(refreshed.differences, []);
      const untouched = (await shopOf(me.account)).filter((l) => String(l.id) !== linked.external_id);
      assert.deepEqual(
        untouched.map((l) => l.updated_at),
        shop.filter((l) => String(l.id) !== linked.external_id).map((l) => l.updated_at),
        'the listings whose products were made from them are not written to',
      );

      // A second import updates what the first took: no product, no listing twice.
      const again = await importAll(me);
      assert.deepEqual(
        { found: again.found, created: again.created, linked: again.linked, updated: again.updated, skipped: again.skipped },
        { found: 6, created: 0, linked: 0, updated: 5, skipped: 1 },
      );
      assert.equal((await call(t, 'GET', '/products?per_page=50', me.as)).json().data.length, 7);
      assert.equal((await call(t, 'GET', `/sites/${me.site}/listings?per_page=50`, me.as)).json().data.length, 5);
    });

    test('a shop of 256 listings is read 100 at a time and taken whole', async () => {
      const me = await seller('7102', 'stocked-large');
      const readsBefore = reads();
      const done = await importAll(me);
      assert.deepEqual(
        { status: done.status, found: done.found, created: done.created, skipped: done.skipped, pages: done.pages },
        { status: 'done', found: 256, created: 256, skipped: 0, pages: 7 },
      );
      assert.equal(reads() - readsBefore, 7, '3 pages of active listings, then one for each other state');
      const page = (await call(t, 'GET', `/sites/${me.site}/listings?per_page=1`, me.as)).json();
      assert.equal(page.meta.total, 256);
    });

    test('an import needs the site connected with its settings; one running is answered again; a page run twice is taken once', async () => {
      const bare = await seller('7103', 'stocked', false);
      const refused = await call(t, 'POST', `/sites/${bare.site}/listings/import`, bare.as);
      assert.equal(refused.statusCode, 422, refused.body);
      assert.ok(refused.json().errors['settings.shipping_profile_id'], refused.body);
      const none = await call(t, 'GET', `/sites/${bare.site}/listings/import`, bare.as);
      assert.equal(none.statusCode, 200);
      assert.equal(none.json().data, null, 'nothing stored');
      assert.equal((await call(t, 'POST', '/sites/999999/listings/import', bare.as)).statusCode, 404);
      assert.equal((await call(t, 'GET', '/sites/999999/listings/import', bare.as)).statusCode, 404);

      const me = await seller('7104', 'stocked');
      const [first, second] = await Promise.all([
        call(t, 'POST', `/sites/${me.site}/listings/import`, me.as),
        call(t, 'POST', `/sites/${me.site}/listings/import`, me.as),
      ]);
      assert.equal(first.statusCode, 202);
      assert.equal(second.statusCode, 202);
      assert.equal(first.json().data.id, second.json().data.id);
      // The first page's job run twice at once (its first run presumed dead): the page is taken once.
      const handler = t.deps.listingImport.queue.handler as (data: { importId: number }) => Promise<string>;
      const runs = await Promise.all([handler({ importId: first.json().data.id }), handler({ importId: first.json().data.id })]);
      assert.equal(runs.filter((r) => r.startsWith('nothing to do')).length, 1, runs.join(' | '));
      await runDueJobs(t, IMPORT_QUEUE);
      const done = (await call(t, 'GET', `/sites/${me.site}/listings/import`, me.as)).json().data;
      assert.deepEqual([done.status, done.found, done.created], ['done', 6, 6]);
      assert.equal((await call(t, 'GET', `/sites/${me.site}/listings?per_page=50`, me.as)).json().meta.total, 6);
    });
  });
}
