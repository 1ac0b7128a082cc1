/**
 * Listings kept true to the platform (DESIGN §10, issue "status from the platforms") against the sandbox Etsy over
 * HTTP: a published listing is read again on its schedule; a seller's edit on etsy.com (the sandbox's seller edit) is
 * shown as the listing's differences, sent back by a refresh or taken into the catalogue by adopt; a listing switched
 * off on Etsy stays off (Storelink never publishes on its own).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { READ_QUEUE } from '../../../src/core/listings/listing-watch.js';
import { LISTING_QUEUE } from '../../../src/core/listings/listing-work.js';
import { databaseKinds } from '../../helpers/database.js';
import { etsySeller, publishMug } from '../../helpers/listings.js';
import { call, createTestApp, runDueJobs, type TestApp } from '../../helpers/test-app.js';

const SIX_HOURS = 6 * 3600_000;

interface ShopListing {
  id: number;
  title: string;
  state: string;
  skus: { sku: string; price: string; quantity: number }[];
  publishes: number;
}

for (const kind of databaseKinds()) {
  describe(`listings kept true to Etsy [${kind}]`, () => {
    let t: TestApp;
    let base: string;
    before(async () => {
      t = await createTestApp(kind, { listen: true });
      base = t.deps.config.appUrl;
      Object.assign(t.deps.sandbox.etsyLimits, { perSecond: 1_000_000, perDay: 1_000_000_000 });
    });
    after(() => t.close());

    const count = (operation: string) => t.deps.sandbox.calls.get(`etsy:${operation}`) ?? 0;

    /** A seller's shop with one published, active listing of a product (skus `<sku>-W` 18.00 and `<sku>-B` 19.50). */
    async function published(account: string, sku: string) {
      const me = await etsySeller(t, account);
      const { productId, id } = await publishMug(t, me, sku);
      await runDueJobs(t, LISTING_QUEUE);
      const listing = (await call(t, 'GET', `/listings/${id}`, me.as)).json().data;
      assert.equal(listing.status, 'active');
      return { ...me, productId, id, externalId: listing.external_id as string };
    }

    const get = async (me: { as: object }, id: number) => (await call(t, 'GET', `/listings/${id}`, me.as)).json().data;
    const shopListing = async (account: string, externalId: string) => {
      const shop = (await (await fetch(`${base}/sandbox/etsy/accounts/${account}/listings`)).json()) as ShopListing[];
      return shop.find((l) => String(l.id) === externalId)!;
    };
    /** The seller edits the listing on etsy.com (the sandbox's seller edit). */
    async function editOnEtsy(account: string, externalId: string, body: unknown) {
      const response = await fetch(`${base}/sandbox/etsy/accounts/${account}/listings/${externalId}`, {
        method: 'PATCH',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      assert.equal(response.status, 200, await response.clone().text());
    }
    /** Six hours on: the sweep finds the live listings due, and their reads run. */
    async function readsLater() {
      t.clock.advance(SIX_HOURS + 1_000);
      const swept = await t.deps.listingWatch.sweep();
      await runDueJobs(t, READ_QUEUE);
      return swept;
    }

    test('a listing is read on its schedule; as Etsy holds what Storelink sent, it shows no difference and nothing is written', async () => {
      const me = await published('7201', 'WATCH1');
      const before = await get(me, me.id);
      assert.ok(before.read_at, 'the delivery counts as a read');
      assert.equal(await t.deps.listingWatch.sweep(), '0 due', 'just published: not due');
      const writes = count('updateListing') + count('updateListingInventory');
      const reads = count('getListing');
      assert.equal(await readsLater(), '1 due');
      assert.equal(count('getListing'), reads + 1, 'one read');
      const after = await get(me, me.id);
      assert.deepEqual(after.differences, []);
      assert.equal(after.status, 'active');
      assert.notEqual(after.read_at, before.read_at);
      assert.equal(count('updateListing') + count('updateListingInventory'), writes);
    });

    test("a seller's edit on Etsy is shown; a refresh sends the catalogue's values back, only the parts that differ", async () => {
      const me = await published('7202', 'WATCH2');
      await editOnEtsy(me.account, me.externalId, { title: 'Edited on Etsy', skus: [{ sku: 'WATCH2-W', price: '25.00' }] });
      await readsLater();
      const shown = await get(me, me.id);
      assert.deepEqual(
        shown.differences.map((d: { field: string; platform: string; catalogue: string }) => [d.field, d.platform, d.catalogue]),
        [
          ['title', 'Edited on Etsy', 'Stoneware mug WATCH2'],
          ['variants.WATCH2-W.price', '25.00', '18.00'],
        ],
      );
      assert.equal(shown.sync_status, 'synced');

      const uploads = count('uploadListingImage');
      assert.equal((await call(t, 'POST', `/listings/${me.id}/refresh`, me.as)).statusCode, 202);
      await runDueJobs(t, LISTING_QUEUE);
      const onEtsy = await shopListing(me.account, me.externalId);
      assert.equal(onEtsy.title, 'Stoneware mug WATCH2');
      assert.deepEqual(
        onEtsy.skus.map((s) => [s.sku, s.price]),
        [
          ['WATCH2-W', '18.00'],
          ['WATCH2-B', '19.50'],
        ],
      );
      assert.equal(onEtsy.publishes, 1, 'not published again');
      assert.equal(count('uploadListingImage'), uploads, 'the image Etsy kept is not uploaded again');
      assert.deepEqual((await get(me, me.id)).differences, []);
    });

    test("adopt takes Etsy's values into the catalogue: the product changes, and nothing is sent back to this listing", async () => {
      const me = await published('7203', 'WATCH3');
      await editOnEtsy(me.account, me.externalId, { skus: [{ sku: 'WATCH3-B', price: '30.00', quantity: 9 }] });
      await readsLater();
      const shown = (await get(me, me.id)).differences;
      assert.deepEqual(
        shown.map((d: { field: string }) => d.field),
        ['variants.WATCH3-B.price', 'variants.WATCH3-B.quantity'],
        JSON.stringify(shown),
      );
      const inventoryPuts = count('updateListingInventory');
      const adopted = await call(t, 'POST', `/listings/${me.id}/adopt`, me.as);
      assert.equal(adopted.statusCode, 202, adopted.body);
      const product = (await call(t, 'GET', `/products/${me.productId}`, me.as)).json().data;
      assert.deepEqual(
        product.variants.map((v: { sku: string; price: string; quantity: number }) => [v.sku, v.price, v.quantity]),
        [
          ['WATCH3-W', '18.00', 4],
          ['WATCH3-B', '30.00', 9],
        ],
      );
      const before = (await get(me, me.id)).synced_version as number;
      assert.equal(product.version, before + 1);
      await runDueJobs(t, LISTING_QUEUE);
      const after = await get(me, me.id);
      assert.deepEqual([after.sync_status, after.synced_version, after.differences], ['synced', before + 1, []]);
      assert.equal(count('updateListingInventory'), inventoryPuts, 'Etsy holds the values already');
      assert.equal((await call(t, 'POST', `/listings/${me.id}/adopt`, me.as)).statusCode, 409, 'nothing left to take');
    });

    test('a listing switched off on Etsy stays off: a later product change is delivered without publishing it again', async () => {
      const me = await published('7204', 'WATCH4');
      await editOnEtsy(me.account, me.externalId, { state: 'inactive' });
      await readsLater();
      assert.equal((await get(me, me.id)).status, 'inactive');
      const changed = await call(t, 'PATCH', `/products/${me.productId}`, {
        ...me.as,
        body: {
          variants: [
            { sku: 'WATCH4-W', option_values: { Color: 'White' }, price: '21.00', quantity: 4 },
            { sku: 'WATCH4-B', option_values: { Color: 'Blue' }, price: '19.50', quantity: 2 },
          ],
        },
      });
      assert.equal(changed.statusCode, 200, changed.body);
      await runDueJobs(t, LISTING_QUEUE);
      const onEtsy = await shopListing(me.account, me.externalId);
      assert.equal(onEtsy.state, 'inactive');
      assert.equal(onEtsy.publishes, 1);
      assert.equal(onEtsy.skus.find((s) => s.sku === 'WATCH4-W')!.price, '21.00');
      assert.equal((await get(me, me.id)).status, 'inactive');
    });
  });
}
