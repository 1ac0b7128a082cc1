/**
 * Listings on Etsy end to end (DESIGN §10), against the sandbox Etsy over real HTTP: settings from the shop's own
 * choices, a category from the taxonomy, validate, publish, the listing's work as jobs, a price change that reaches the
 * shop alone, and what the simulated shop holds (its inspection endpoint) at every step.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { LISTING_QUEUE } from '../../../src/core/listings/listing-work.js';
import { connectEtsySite } from '../../helpers/connect.js';
import { databaseKinds } from '../../helpers/database.js';
import { PNG_640X480 } from '../../helpers/fixtures.js';
import { etsySeller, leafCategory, mugProduct, publishMug } from '../../helpers/listings.js';
import { API, call, createTestApp, errorBody, runDueJobs, type TestApp } from '../../helpers/test-app.js';

interface ShopListing {
  id: number;
  title: string;
  state: string;
  skus: {
    sku: string;
    price: string | number;
    quantity: number;
    variation?: { property_id: number; value_ids: number[]; values: string[] }[];
  }[];
  images?: number;
  image_ids?: number[];
  publishes?: number;
  properties: { property_id: number; value_ids: number[]; values: string[] }[];
}

for (const kind of databaseKinds()) {
  describe(`listings on Etsy [${kind}]`, () => {
    let t: TestApp;
    let base: string;
    before(async () => {
      t = await createTestApp(kind, { listen: true });
      base = t.deps.config.appUrl;
      // The sandbox's per-second budget is timed by the test's clock, which stands still here: rate limits have tests of their own.
      Object.assign(t.deps.sandbox.etsyLimits, { perSecond: 1_000_000, perDay: 1_000_000_000 });
    });
    after(() => t.close());

    const seller = (account: string) => etsySeller(t, account);

    const product = (me: Awaited<ReturnType<typeof seller>>, sku: string) => mugProduct(t, me, sku);
    const category = (me: Awaited<ReturnType<typeof seller>>, q: string) => leafCategory(t, me, q);
    const publish = (me: Awaited<ReturnType<typeof seller>>, sku: string) => publishMug(t, me, sku);

    const shop = async (account: string): Promise<ShopListing[]> => {
      const response = await fetch(`${base}/sandbox/etsy/accounts/${account}/listings`);
      assert.equal(response.status, 200);
      return response.json() as Promise<ShopListing[]>;
    };
    const listing = async (me: { as: object }, id: number) => (await call(t, 'GET', `/listings/${id}`, me.as)).json().data;
    const uploads = () => t.deps.sandbox.calls.get('etsy:uploadListingImage') ?? 0;

    test('validate, publish, and the shop holds the listing active, with its skus, prices and image, published once', async () => {
      const me = await seller('201');
      const productId = await product(me, 'M1');
      const { id: categoryId, attributes } = await category(me, 'mug');
      const body = { product_id: productId, category_id: categoryId, attributes };

      const validated = await call(t, 'POST', `/sites/${me.site}/listings`, { ...me.as, body: { ...body, mode: 'validate' } });
      assert.equal(validated.statusCode, 200, validated.body);
      assert.deepEqual(validated.json().data, { valid: true, issues: [] });
      assert.deepEqual(await shop(me.account), []);

      const published = await call(t, 'POST', `/sites/${me.site}/listings`, { ...me.as, body });
      assert.equal(published.statusCode, 202, published.body);
      const pending = published.json().data;
      assert.equal(pending.status, 'pending');
      assert.equal(pending.sync_status, 'syncing');
      assert.deepEqual(
        pending.variants.map((v: { sku: string; price: string; quantity: number }) => [v.sku, v.price, v.quantity]),
        [
          ['M1-W', '18.00', 4],
          ['M1-B', '19.50', 2],
        ],
      );

      await runDueJobs(t, LISTING_QUEUE);
      const live = await listing(me, pending.id);
      assert.equal(live.status, 'active', JSON.stringify(live));
      assert.equal(live.sync_status, 'synced');
      assert.equal(live.synced_version, 2);
      assert.equal(live.platform_status, 'active');
      assert.match(String(live.external_id), /^[0-9]+$/);
      const [held] = await shop(me.account);
      assert.equal(held?.id, Number(live.external_id));
      assert.equal(held?.state, 'active');
      assert.deepEqual(
        held?.skus.map((s) => [s.sku, Number(s.price), s.quantity]),
        [
          ['M1-W', 18, 4],
          ['M1-B', 19.5, 2],
        ],
      );
      // The Color option is the category's own variation property (Primary color, 200) by its values' ids, not a custom one.
      assert.deepEqual(
        held?.skus.map((s) => s.variation),
        [[{ property_id: 200, value_ids: [2], values: ['White'] }], [{ property_id: 200, value_ids: [4], values: ['Blue'] }]],
      );
      assert.equal(held?.images, 1);
      assert.equal(held?.publishes, 1);
      // The category's required attributes (each given its first choice) are the listing's properties on Etsy.
      assert.deepEqual(attributes, { 200: '1', 507: ['601'] });
      assert.deepEqual(held?.properties, [
        { property_id: 200, value_ids: [1], values: ['Black'] },
        { property_id: 507, value_ids: [601], values: ['Cotton'] },
      ]);

      const filtered = async (query: string) => (await call(t, 'GET', `/sites/${me.site}/listings?${query}`, me.as)).json().meta.total;
      assert.deepEqual(
        [
          await filtered(`product_id=${productId}`),
          await filtered(`product_id=${productId + 1000}`),
          await filtered('status=active'),
          await filtered('status=pending'),
        ],
        [1, 0, 1, 0],
      );

      const again = await call(t, 'POST', `/sites/${me.site}/listings`, { ...me.as, body });
      assert.deepEqual([again.statusCode, again.json()], [409, errorBody(409, 'Conflict')]);
      const removal = await call(t, 'DELETE', `/products/${productId}`, me.as);
      assert.equal(removal.statusCode, 409);
    });

    test("an option the category has no variation property for (or a value it has no id for) is Etsy's custom property 513", async () => {
      const me = await seller('231');
      const productId = await mugProduct(t, me, 'GZ', {
        options: [{ name: 'Glaze', values: ['Matte', 'Gloss'] }],
        variants: [
          { sku: 'GZ-M', option_values: { Glaze: 'Matte' }, price: '18.00', quantity: 2 },
          { sku: 'GZ-G', option_values: { Glaze: 'Gloss' }, price: '19.00', quantity: 3 },
        ],
      });
      const { id: categoryId, attributes } = await category(me, 'mug');
      assert.equal(
        (
          await call(t, 'POST', `/sites/${me.site}/listings`, {
            ...me.as,
            body: { product_id: productId, category_id: categoryId, attributes },
          })
        ).statusCode,
        202,
      );
      await runDueJobs(t, LISTING_QUEUE);
      const [held] = await shop(me.account);
      assert.deepEqual(
        held?.skus.map((s) => s.variation),
        [[{ property_id: 513, value_ids: [], values: ['Matte'] }], [{ property_id: 513, value_ids: [], values: ['Gloss'] }]],
      );
      // A colour Etsy's taxonomy does not name stays the seller's own text, on a custom property.
      const teal = await mugProduct(t, me, 'TL', {
        options: [{ name: 'Color', values: ['Teal', 'Black'] }],
        variants: [
          { sku: 'TL-T', option_values: { Color: 'Teal' }, price: '18.00', quantity: 2 },
          { sku: 'TL-K', option_values: { Color: 'Black' }, price: '18.00', quantity: 2 },
        ],
      });
      assert.equal(
        (await call(t, 'POST', `/sites/${me.site}/listings`, { ...me.as, body: { product_id: teal, category_id: categoryId, attributes } }))
          .statusCode,
        202,
      );
      await runDueJobs(t, LISTING_QUEUE);
      const tealHeld = (await shop(me.account)).find((l) => l.skus.some((s) => s.sku === 'TL-T'));
      assert.deepEqual(
        tealHeld?.skus.map((s) => s.variation?.[0]?.property_id),
        [513, 513],
      );
    });

    test('a price change reaches the shop as an inventory change alone: no new upload, no second publish', async () => {
      const me = await seller('202');
      const { productId, id } = await publish(me, 'M2');
      await runDueJobs(t, LISTING_QUEUE);
      const uploadsBefore = uploads();
      const current = (await call(t, 'GET', `/products/${productId}`, me.as)).json().data;
      const variants = current.variants.map((v: { id: number; sku: string; option_values: object; price: string; quantity: number }) => ({
        id: v.id,
        sku: v.sku,
        option_values: v.option_values,
        price: v.sku === 'M2-W' ? '21.00' : v.price,
        quantity: v.quantity,
      }));
      assert.equal((await call(t, 'PATCH', `/products/${productId}`, { ...me.as, body: { variants } })).statusCode, 200);
      const syncing = await listing(me, id);
      assert.equal(syncing.sync_status, 'syncing');

      await runDueJobs(t, LISTING_QUEUE);
      const synced = await listing(me, id);
      assert.equal(synced.sync_status, 'synced');
      assert.equal(synced.synced_version, current.version + 1);
      assert.equal(synced.variants[0].price, '21.00');
      const [held] = await shop(me.account);
      assert.equal(Number(held?.skus.find((s) => s.sku === 'M2-W')?.price), 21);
      assert.equal(held?.publishes, 1);
      assert.equal(uploads(), uploadsBefore);
    });

    test("an image added to the product is uploaded alone; a reorder in the catalogue reaches Etsy's order by one call", async () => {
      const me = await seller('212');
      const { productId, id } = await publish(me, 'M12');
      await runDueJobs(t, LISTING_QUEUE);
      const [first] = await shop(me.account);
      assert.equal(first?.image_ids?.length, 1);
      const form = new FormData();
      form.set('file', new Blob([PNG_640X480], { type: 'image/png' }), 'mug-side.png');
      const uploaded = await fetch(`${base}${API}/products/${productId}/images`, {
        method: 'POST',
        headers: { authorization: `Bearer ${me.session}`, 'x-workspace-id': String(me.workspace.id) },
        body: form,
      });
      assert.equal(uploaded.status, 201);
      const uploadsBefore = uploads();
      await runDueJobs(t, LISTING_QUEUE);
      assert.equal(uploads(), uploadsBefore + 1, 'the new image alone');
      const [two] = await shop(me.account);
      assert.equal(two?.image_ids?.length, 2);
      assert.equal(two?.image_ids?.[0], first?.image_ids?.[0], 'the first image stays first');

      const images = (await call(t, 'GET', `/products/${productId}`, me.as)).json().data.images as { id: number }[];
      const reversed = [...images].reverse().map((image) => ({ id: image.id }));
      assert.equal((await call(t, 'PATCH', `/products/${productId}`, { ...me.as, body: { images: reversed } })).statusCode, 200);
      await runDueJobs(t, LISTING_QUEUE);
      const [after] = await shop(me.account);
      assert.deepEqual(after?.image_ids, [...(two?.image_ids ?? [])].reverse());
      assert.equal(uploads(), uploadsBefore + 1, 'nothing uploaded again');
      assert.equal(after?.publishes, 1);
      assert.equal((await listing(me, id)).sync_status, 'synced');
    });

    test("a change of attributes sends the changed properties alone, removes a dropped one, and a refused value is the attribute's issue", async () => {
      const me = await seller('207');
      const { id } = await publish(me, 'M7');
      await runDueJobs(t, LISTING_QUEUE);
      const properties = async () => (await shop(me.account))[0]?.properties.map((p) => [p.property_id, p.values]);
      const puts = () => t.deps.sandbox.calls.get('etsy:updateListingProperty') ?? 0;
      // Mugs (1071): primary colour and material required; capacity is free text.
      const change = (attributes: object) => call(t, 'PATCH', `/listings/${id}`, { ...me.as, body: { attributes } });

      const before = puts();
      assert.equal((await change({ 200: '3', 507: ['601', '603'], 300: '350 ml' })).statusCode, 202);
      await runDueJobs(t, LISTING_QUEUE);
      assert.deepEqual(await properties(), [
        [200, ['Red']],
        [507, ['Cotton', 'Ceramic']],
        [300, ['350 ml']],
      ]);
      assert.equal(puts() - before, 3);

      assert.equal((await change({ 200: '3', 507: ['601', '603'] })).statusCode, 202);
      await runDueJobs(t, LISTING_QUEUE);
      assert.deepEqual(await properties(), [
        [200, ['Red']],
        [507, ['Cotton', 'Ceramic']],
      ]);
      assert.equal(puts() - before, 3, 'unchanged properties are not sent again');
      assert.equal((await listing(me, id)).sync_status, 'synced');

      // A value the shop refuses (here: more materials than Etsy takes, which Storelink does not count) is the attribute's issue.
      const many = ['601', '602', '603', '604', '605', '606'];
      assert.equal((await change({ 200: '3', 507: many })).statusCode, 202);
      await runDueJobs(t, LISTING_QUEUE);
      const refused = await listing(me, id);
      assert.deepEqual([refused.status, refused.sync_status], ['active', 'failed']);
      assert.deepEqual(
        refused.issues.map((issue: { field: string; source: string }) => [issue.field, issue.source]),
        [['attributes.507', 'platform']],
      );
      assert.match(refused.issues[0].message, /at most 5 values/);
    });

    test('deactivate, activate and delete reach the shop; a deleted listing keeps its record and frees its product', async () => {
      const me = await seller('206');
      const { productId, id } = await publish(me, 'M6');
      await runDueJobs(t, LISTING_QUEUE);

      const off = await call(t, 'POST', `/listings/${id}/deactivate`, me.as);
      assert.deepEqual([off.statusCode, off.json().data.sync_status], [202, 'syncing']);
      await runDueJobs(t, LISTING_QUEUE);
      assert.deepEqual([(await listing(me, id)).status, (await shop(me.account))[0]?.state], ['inactive', 'inactive']);

      assert.equal((await call(t, 'POST', `/listings/${id}/activate`, me.as)).statusCode, 202);
      await runDueJobs(t, LISTING_QUEUE);
      assert.deepEqual([(await listing(me, id)).status, (await shop(me.account))[0]?.state], ['active', 'active']);

      const removal = await call(t, 'DELETE', `/listings/${id}`, me.as);
      assert.equal(removal.statusCode, 202);
      await runDueJobs(t, LISTING_QUEUE);
      const gone = await listing(me, id);
      assert.deepEqual([gone.status, gone.sync_status], ['deleted', 'synced']);
      assert.deepEqual(await shop(me.account), []);
      const again = await call(t, 'POST', `/listings/${id}/activate`, me.as);
      assert.deepEqual([again.statusCode, again.json()], [409, errorBody(409, 'Conflict')]);
      assert.equal((await call(t, 'DELETE', `/products/${productId}`, me.as)).statusCode, 204);
      assert.equal((await call(t, 'GET', `/listings/${id}`, me.as)).statusCode, 404);
    });

    test('a create Etsy made but answered with a 500 is found again by the retry: one listing in the shop, published once', async () => {
      const me = await seller('204');
      const { id } = await publish(me, 'M4');
      t.deps.sandbox.faults.set('etsy', 'listings', 'ghost');
      try {
        // One run: its retry would be due at once by the database's clock, which runs ahead of the test's.
        assert.equal((await t.deps.jobs.runReady(LISTING_QUEUE, 1)).length, 1);
      } finally {
        t.deps.sandbox.faults.set('etsy', 'listings', null);
      }
      const waiting = await listing(me, id);
      assert.deepEqual([waiting.status, waiting.sync_status, waiting.external_id], ['pending', 'syncing', null]);
      assert.equal((await shop(me.account)).length, 1, 'Etsy made the draft although it answered 500');

      t.clock.advance(60_000);
      await runDueJobs(t, LISTING_QUEUE);
      const live = await listing(me, id);
      assert.equal(live.status, 'active', JSON.stringify(live));
      const held = await shop(me.account);
      assert.deepEqual(
        held.map((l) => [l.id, l.state, l.publishes]),
        [[Number(live.external_id), 'active', 1]],
      );
    });

    test('an image upload Etsy took but answered with a 500 is found again by the retry: one image, published once', async () => {
      const me = await seller('209');
      const { id } = await publish(me, 'M10');
      t.deps.sandbox.faults.set('etsy', 'images', 'ghost');
      try {
        assert.equal((await t.deps.jobs.runReady(LISTING_QUEUE, 1)).length, 1);
      } finally {
        t.deps.sandbox.faults.set('etsy', 'images', null);
      }
      assert.deepEqual(
        (await shop(me.account)).map((l) => [l.state, l.images]),
        [['draft', 1]],
        'Etsy took the image although it answered 500',
      );
      t.clock.advance(60_000);
      await runDueJobs(t, LISTING_QUEUE);
      assert.equal((await listing(me, id)).status, 'active');
      assert.deepEqual(
        (await shop(me.account)).map((l) => [l.state, l.images, l.publishes]),
        [['active', 1, 1]],
      );
    });

    test('a 429 storm: the work waits as Retry-After says, then publishes once; a storm past the retries is error, and activate tries again', async () => {
      const me = await seller('208');
      const events = await call(t, 'POST', '/webhooks', {
        ...me.as,
        body: { url: `${base}/nowhere`, events: ['listing.published', 'listing.error'] },
      });
      assert.equal(events.statusCode, 201, events.body);
      const rowsOf = async <T>(query: ReturnType<typeof sql>) => ((await t.database.db.execute(query)) as unknown as { rows: T[] }).rows;
      const sent = async () =>
        (
          await rowsOf<{ event_type: string }>(
            sql`select event_type from webhook_deliveries where endpoint_id = ${events.json().data.id} order by id`,
          )
        ).map((row) => row.event_type);
      const { id } = await publish(me, 'M8');
      /** One run of whatever is due by the test's clock (the database's runs ahead of it), then when the listing's next run is due. */
      const runOnce = async () => {
        await t.database.db.execute(
          sql`update pgboss.job set start_after = now() where name = ${LISTING_QUEUE} and state = 'created' and start_after <= ${t.clock.now().toISOString()}::timestamptz`,
        );
        const results = await t.deps.jobs.runReady(LISTING_QUEUE, 10);
        const [next] = await rowsOf<{ start_after: string | Date }>(
          sql`select start_after from pgboss.job where name = ${LISTING_QUEUE} and state = 'created' and data->>'listingId' = ${String(id)}`,
        );
        return { results, waitMs: next ? new Date(next.start_after).getTime() - t.clock.now().getTime() : null };
      };

      t.deps.sandbox.faults.set('etsy', 'listings', 'throttled', { retryAfterSeconds: 30 });
      try {
        for (let attempt = 1; attempt <= 3; attempt++) {
          const { results, waitMs } = await runOnce();
          assert.equal(results.length, 1);
          assert.match(results[0]!, /^retry at /);
          // The back-off (2, 4, 8 s) is never shorter than Etsy's Retry-After of 30 s.
          assert.ok(waitMs !== null && waitMs >= 30_000 && waitMs < 31_000, `next run in ${waitMs} ms`);
          const waiting = await listing(me, id);
          assert.deepEqual([waiting.status, waiting.sync_status, waiting.issues], ['pending', 'syncing', []]);
          t.clock.advance(30_000);
        }
      } finally {
        t.deps.sandbox.faults.set('etsy', 'listings', null);
      }
      assert.match((await runOnce()).results[0]!, /^active at version/);
      assert.deepEqual(
        (await shop(me.account)).map((l) => [l.state, l.publishes]),
        [['active', 1]],
      );

      // A storm that outlasts the eight attempts: the listing is given up as error, with an issue saying why.
      const second = await publish(me, 'M9');
      t.deps.sandbox.faults.set('etsy', 'listings', 'throttled', { retryAfterSeconds: 1 });
      try {
        for (let attempt = 1; attempt <= 8; attempt++) {
          await t.database.db.execute(sql`update pgboss.job set start_after = now() where name = ${LISTING_QUEUE} and state = 'created'`);
          assert.equal((await t.deps.jobs.runReady(LISTING_QUEUE, 10)).length, 1);
        }
      } finally {
        t.deps.sandbox.faults.set('etsy', 'listings', null);
      }
      const failed = await listing(me, second.id);
      assert.deepEqual([failed.status, failed.sync_status], ['error', 'failed']);
      assert.deepEqual(
        failed.issues.map((issue: { code: string; source: string }) => [issue.code, issue.source]),
        [['delivery_failed', 'storelink']],
      );
      assert.match(failed.issues[0].message, /after 8 attempts/);
      assert.equal((await shop(me.account)).length, 1, 'nothing of the second listing reached the shop');
      assert.deepEqual(await sent(), ['listing.published', 'listing.error']);

      // The storm over, the seller asks again: the listing is published, once.
      assert.equal((await call(t, 'POST', `/listings/${second.id}/activate`, me.as)).statusCode, 202);
      await runDueJobs(t, LISTING_QUEUE);
      assert.equal((await listing(me, second.id)).status, 'active');
      assert.deepEqual(
        (await shop(me.account)).map((l) => [l.state, l.publishes]),
        [
          ['active', 1],
          ['active', 1],
        ],
      );
      assert.deepEqual(await sent(), ['listing.published', 'listing.error', 'listing.published']);
    });

    test('a grant Etsy refuses turns the site reauthorization_required and holds the listing until the shop is connected again', async () => {
      const me = await seller('205');
      const { id } = await publish(me, 'M5');
      t.deps.sandbox.faults.set('etsy', 'listings', 'refused');
      try {
        await runDueJobs(t, LISTING_QUEUE);
      } finally {
        t.deps.sandbox.faults.set('etsy', 'listings', null);
      }
      const site = (await call(t, 'GET', `/sites/${me.site}`, me.as)).json().data;
      assert.equal(site.status, 'reauthorization_required');
      assert.deepEqual([(await listing(me, id)).status, (await listing(me, id)).sync_status], ['pending', 'syncing']);
      assert.deepEqual(await shop(me.account), []);

      // Connecting the shop again keeps the site's id and sends the held work again.
      assert.equal(await connectEtsySite(t, me, me.account), me.site);
      await runDueJobs(t, LISTING_QUEUE);
      assert.equal((await listing(me, id)).status, 'active');
      assert.equal((await shop(me.account)).length, 1);
    });

    test('what Storelink checks before anything is stored is a 422 on each field, and the shop holds nothing', async () => {
      const me = await seller('203');
      const created = await call(t, 'POST', '/products', {
        ...me.as,
        body: { title: 'Bare', currency: 'USD', variants: [{ sku: 'BARE-1', price: '0.10', quantity: 1 }] },
      });
      const { id: categoryId } = await category(me, 'mug');
      const refused = await call(t, 'POST', `/sites/${me.site}/listings`, {
        ...me.as,
        body: { product_id: created.json().data.id, category_id: categoryId, attributes: { nonsense: 'x' } },
      });
      assert.equal(refused.statusCode, 422, refused.body);
      const fields = Object.keys(refused.json().errors);
      for (const field of ['product.images', 'product.variants.0.price', 'attributes.nonsense'])
        assert.ok(fields.includes(field), `${field} in ${fields}`);
      const branch = (await call(t, 'GET', `/sites/${me.site}/categories`, me.as)).json().data.find((c: { leaf: boolean }) => !c.leaf);
      const notLeaf = await call(t, 'POST', `/sites/${me.site}/listings`, {
        ...me.as,
        body: { product_id: created.json().data.id, category_id: branch.id },
      });
      assert.ok(Object.keys(notLeaf.json().errors).includes('category_id'));
      const missing = await call(t, 'POST', `/sites/${me.site}/listings`, {
        ...me.as,
        body: { product_id: 999_999, category_id: categoryId },
      });
      assert.deepEqual(Object.keys(missing.json().errors), ['product_id']);
      assert.deepEqual(await shop(me.account), []);
      assert.deepEqual((await call(t, 'GET', `/sites/${me.site}/listings`, me.as)).json().meta.total, 0);
    });
  });
}
