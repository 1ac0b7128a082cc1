/**
 * Orders and one stock pool on Etsy (DESIGN §14), end to end against the sandbox over HTTP, with every worker running:
 * a buyer's order on one shop reaches Storelink by ORDER_PAID within seconds, takes the pool once, and its new
 * quantity reaches the other shop's listing while the shop that sold keeps what Etsy set; a poll of the same order
 * takes nothing more; a cancellation (which Etsy's `min_last_modified` does not return) gives back exactly what was
 * taken; two shops selling the last units at once leave the pool at 0 with the line that could not be covered marked
 * `oversold`; a sku outside the catalogue is `unknown_sku`; orders placed before the shop was connected are history.
 * No buyer's name, address or e-mail is stored, logged or answered.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { SANDBOX_BUYER } from '../../src/sandbox/etsy/orders.js';
import { connectEtsySite } from '../helpers/connect.js';
import { databaseKinds, selectRows } from '../helpers/database.js';
import { leafCategory, mugProduct } from '../helpers/listings.js';
import { syncOrders } from '../helpers/orders.js';
import { call, createTestApp, registerUser, type TestApp, within } from '../helpers/test-app.js';

interface ShopListing {
  id: number;
  state: string;
  skus: { sku: string; quantity: number }[];
  publishes: number;
  fees: number;
}

for (const kind of databaseKinds()) {
  describe(`orders and the stock pool on Etsy [${kind}]`, () => {
    let t: TestApp;
    let base: string;
    before(async () => {
      t = await createTestApp(kind, { listen: true, workers: true });
      base = t.deps.config.appUrl;
      Object.assign(t.deps.sandbox.etsyLimits, { perSecond: 1_000_000, perDay: 1_000_000_000 });
    });
    after(() => t.close());

    /** A workspace with two connected Etsy shops (sandbox accounts `a` and `b`), their listing settings set. */
    async function twoShops(a: string, b: string) {
      const user = await registerUser(t);
      const as = { token: user.session, workspace: user.workspace.id };
      const sites: number[] = [];
      for (const account of [a, b]) {
        const site = await connectEtsySite(t, user, account);
        const choices = (await call(t, 'GET', `/sites/${site}/listing-options`, as)).json().data;
        const first = (field: string) => choices[field][0].value;
        const body = {
          shipping_profile_id: first('shipping_profile_id'),
          return_policy_id: first('return_policy_id'),
          readiness_state_id: first('readiness_state_id'),
          who_made: 'i_did',
          when_made: 'made_to_order',
        };
        assert.equal((await call(t, 'PUT', `/sites/${site}/listing-settings`, { ...as, body })).statusCode, 200);
        sites.push(site);
      }
      return { ...user, as, sites: sites as [number, number], accounts: [a, b] as const };
    }
    type Seller = Awaited<ReturnType<typeof twoShops>>;

    /** The mug `<sku>-W` (4 in stock) and `<sku>-B` (2), live on both shops: the product's id and each shop's listing id there. */
    async function listedOnBoth(me: Seller, sku: string) {
      const productId = await mugProduct(t, { ...me, site: me.sites[0], account: me.accounts[0] }, sku);
      const externalIds: string[] = [];
      for (const site of me.sites) {
        const { id: categoryId, attributes } = await leafCategory(t, { ...me, site, account: '' }, 'mug');
        const body = { product_id: productId, category_id: categoryId, attributes };
        const published = await call(t, 'POST', `/sites/${site}/listings`, { ...me.as, body });
        assert.equal(published.statusCode, 202, published.body);
        const id = published.json().data.id;
        await within(20_000, async () => (await call(t, 'GET', `/listings/${id}`, me.as)).json().data.status === 'active');
        externalIds.push((await call(t, 'GET', `/listings/${id}`, me.as)).json().data.external_id);
      }
      return { productId, externalIds };
    }

    const shop = async (account: string) =>
      (await (await fetch(`${base}/sandbox/etsy/accounts/${account}/listings`)).json()) as ShopListing[];
    const onShop = async (account: string, externalId: string, sku: string) =>
      (await shop(account)).find((l) => String(l.id) === externalId)?.skus.find((s) => s.sku === sku)?.quantity ?? null;
    const buy = async (account: string, lines: { sku: string; quantity: number }[], extra: object = {}) => {
      const response = await fetch(`${base}/sandbox/etsy/accounts/${account}/orders`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ lines, ...extra }),
      });
      assert.equal(response.status, 201, await response.clone().text());
      return ((await response.json()) as { id: string }).id;
    };
    const sandboxPost = (path: string) => fetch(`${base}/sandbox/etsy${path}`, { method: 'POST' });
    const orders = async (me: Seller, query = '') => (await call(t, 'GET', `/orders${query}`, me.as)).json();
    const orderOf = async (me: Seller, externalId: string) =>
      (await orders(me)).data.find((o: { external_id: string }) => o.external_id === externalId);
    const pool = async (me: Seller, productId: number) =>
      Object.fromEntries(
        (await call(t, 'GET', `/products/${productId}`, me.as))
          .json()
          .data.variants.map((v: { sku: string; quantity: number }) => [v.sku, v.quantity]),
      );
    const movements = async (me: Seller, query: string) => (await call(t, 'GET', `/products/stock-movements${query}`, me.as)).json().data;

    test('a sale on one shop takes the pool once and reaches the other shop; the shop that sold keeps what Etsy set', async () => {
      const me = await twoShops('401', '402');
      const { productId, externalIds } = await listedOnBoth(me, 'SOLD');
      const hook = await call(t, 'POST', '/webhooks', {
        ...me.as,
        body: { url: `${base}/nowhere`, events: ['order.created', 'order.updated', 'order.cancelled', 'stock.oversold'] },
      });
      assert.equal(hook.statusCode, 201, hook.body);

      const receipt = await buy('401', [{ sku: 'SOLD-W', quantity: 3 }]);
      // ORDER_PAID brings it within seconds; the other shop's listing follows.
      await within(10_000, async () => (await orderOf(me, receipt)) !== undefined);
      await within(10_000, async () => (await onShop('402', externalIds[1]!, 'SOLD-W')) === 1);
      const order = await orderOf(me, receipt);
      assert.equal(order.site_id, me.sites[0]);
      assert.equal(order.status, 'open');
      assert.equal(order.platform_status, 'Paid');
      assert.equal(order.currency, 'USD');
      assert.equal(order.total, '54.00');
      assert.equal(order.history, false);
      assert.deepEqual(
        order.lines.map((l: Record<string, unknown>) => [l.sku, l.quantity, l.price, l.stock_taken, l.stock_returned, l.issues]),
        [['SOLD-W', 3, '18.00', 3, 0, []]],
      );
      assert.deepEqual(await pool(me, productId), { 'SOLD-W': 1, 'SOLD-B': 2 });
      assert.equal(await onShop('401', externalIds[0]!, 'SOLD-W'), 1, 'Etsy took the units off the listing that sold');
      const [movement] = await movements(me, '?sku=SOLD-W');
      assert.deepEqual(
        { delta: movement.delta, after: movement.quantity_after, reason: movement.reason, order: movement.order_id, actor: movement.actor },
        { delta: -3, after: 1, reason: 'order', order: order.id, actor: null },
      );
      assert.deepEqual((await call(t, 'GET', `/orders/${order.id}`, me.as)).json().data, order);

      // Read again by a poll: nothing more is taken.
      await syncOrders(t, me.as, me.sites[0]);
      assert.deepEqual(await pool(me, productId), { 'SOLD-W': 1, 'SOLD-B': 2 });
      assert.equal((await movements(me, '?sku=SOLD-W')).length, 2, 'the creation and the sale, nothing more');

      // Cancelled on Etsy: min_last_modified misses it, was_canceled finds it; exactly the 3 go back, once.
      assert.equal((await sandboxPost(`/accounts/401/orders/${receipt}/cancel`)).status, 204);
      await syncOrders(t, me.as, me.sites[0]);
      assert.equal((await orderOf(me, receipt)).status, 'cancelled');
      assert.deepEqual(await pool(me, productId), { 'SOLD-W': 4, 'SOLD-B': 2 });
      const cancelled = await orderOf(me, receipt);
      assert.deepEqual([cancelled.lines[0].stock_taken, cancelled.lines[0].stock_returned], [3, 3]);
      await within(10_000, async () => (await onShop('402', externalIds[1]!, 'SOLD-W')) === 4);
      await syncOrders(t, me.as, me.sites[0]);
      assert.deepEqual(await pool(me, productId), { 'SOLD-W': 4, 'SOLD-B': 2 }, 'a cancellation gives back once');
      const reasons = (await movements(me, '?sku=SOLD-W')).map((m: { reason: string; delta: number }) => [m.reason, m.delta]);
      assert.deepEqual(reasons, [
        ['cancellation', 3],
        ['order', -3],
        ['edit', 4],
      ]);

      const sent = await selectRows<{ event_type: string }>(
        t.database,
        sql`select event_type from webhook_deliveries where endpoint_id = ${hook.json().data.id} order by id`,
      );
      assert.deepEqual(
        sent.map((row) => row.event_type),
        ['order.created', 'order.cancelled'],
      );
      const audit = (await call(t, 'GET', '/audit-events?subject_type=order', me.as)).json().data;
      assert.deepEqual(audit.map((entry: { action: string; subject: { id: number } }) => [entry.action, entry.subject.id]).reverse(), [
        ['order.recorded', order.id],
        ['order.changed', order.id],
      ]);
    });

    test('the last units sold on both shops at once: the pool ends at 0, the line it could not cover is oversold', async () => {
      const me = await twoShops('403', '404');
      const { productId } = await listedOnBoth(me, 'LAST');
      const hook = await call(t, 'POST', '/webhooks', { ...me.as, body: { url: `${base}/nowhere`, events: ['stock.oversold'] } });
      const [first, second] = await Promise.all([
        buy('403', [{ sku: 'LAST-B', quantity: 2 }]),
        buy('404', [{ sku: 'LAST-B', quantity: 2 }]),
      ]);
      await within(10_000, async () => (await orderOf(me, first)) !== undefined && (await orderOf(me, second)) !== undefined);
      assert.deepEqual(await pool(me, productId), { 'LAST-W': 4, 'LAST-B': 0 });
      const lines = [(await orderOf(me, first)).lines[0], (await orderOf(me, second)).lines[0]];
      assert.deepEqual(lines.map((l) => l.stock_taken).sort(), [0, 2]);
      const short = lines.find((l) => l.stock_taken === 0);
      assert.deepEqual(
        short.issues.map((i: { code: string }) => i.code),
        ['oversold'],
      );
      const [event] = await selectRows<{ payload: { data: { short: number; sku: string } } }>(
        t.database,
        sql`select payload from webhook_deliveries where endpoint_id = ${hook.json().data.id}`,
      );
      assert.deepEqual([event!.payload.data.sku, event!.payload.data.short], ['LAST-B', 2]);
    });

    test('a sku outside the catalogue is kept as unknown_sku and takes nothing; orders from before connecting are history', async () => {
      // Shop 405 sells before it is connected: that order is history.
      await fetch(`${base}/sandbox/etsy/accounts/405/listings`);
      const earlier = await buy('405', [{ sku: 'BEFORE-1', quantity: 1 }]);
      t.clock.advance(1_000);
      const me = await twoShops('405', '406');
      await within(10_000, async () => (await orderOf(me, earlier)) !== undefined);
      const history = await orderOf(me, earlier);
      assert.equal(history.history, true);
      assert.deepEqual(
        history.lines.map((l: { stock_taken: number; issues: { code: string }[] }) => [l.stock_taken, l.issues.map((i) => i.code)]),
        [[0, ['unknown_sku']]],
      );

      const outside = await buy('406', [{ sku: 'NOT-IN-CATALOGUE', quantity: 2 }]);
      await within(10_000, async () => (await orderOf(me, outside)) !== undefined);
      const order = await orderOf(me, outside);
      assert.equal(order.history, false);
      assert.deepEqual(
        order.lines.map((l: { sku: string; product_id: null; stock_taken: number; issues: { code: string }[] }) => [
          l.sku,
          l.product_id,
          l.stock_taken,
          l.issues.map((i) => i.code),
        ]),
        [['NOT-IN-CATALOGUE', null, 0, ['unknown_sku']]],
      );
      // Filters.
      assert.deepEqual(
        (await orders(me, `?site_id=${me.sites[1]}`)).data.map((o: { external_id: string }) => o.external_id),
        [outside],
      );
      assert.equal((await orders(me, '?sku=NOT-IN-CATALOGUE')).meta.total, 1);
      assert.equal((await orders(me, '?status=cancelled')).meta.total, 0);
      assert.equal((await orders(me, `?since=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`)).meta.total, 0);
      assert.equal((await call(t, 'GET', '/orders?since=yesterday', me.as)).statusCode, 422);
      assert.equal((await call(t, 'GET', '/orders?status=lost', me.as)).statusCode, 422);
      const stranger = await registerUser(t);
      const theirs = await call(t, 'GET', `/orders/${order.id}`, { token: stranger.session, workspace: stranger.workspace.id });
      assert.equal(theirs.statusCode, 404);
    });

    test('no buyer name, address or e-mail is stored, logged or answered', async () => {
      const tables = await selectRows<{ table_name: string }>(
        t.database,
        sql`select table_name from information_schema.tables where table_schema = 'public' and table_type = 'BASE TABLE'`,
      );
      const everything: string[] = [...t.logs];
      for (const { table_name: table } of tables) {
        const rows = await selectRows(t.database, sql.raw(`select * from "${table}"`));
        everything.push(JSON.stringify(rows));
      }
      const jobs = await selectRows(t.database, sql`select data, output from pgboss.job`);
      everything.push(JSON.stringify(jobs));
      const text = everything.join('\n');
      assert.ok(text.includes('NOT-IN-CATALOGUE'), 'the dump holds the orders read above');
      for (const value of Object.values(SANDBOX_BUYER)) assert.ok(!text.includes(value), `${value} is nowhere`);
    });

    test('a sale read late, on a shop Storelink wrote to since, gets the pool too: no listing is left offering units sold', async () => {
      const me = await twoShops('409', '410');
      const { productId, externalIds } = await listedOnBoth(me, 'LATE');
      // Unpaid on the first shop: Etsy sends no ORDER_PAID, so Storelink learns of it at its next read.
      const late = await buy('409', [{ sku: 'LATE-W', quantity: 2 }], { status: 'open' });
      t.clock.advance(1_000);
      // Paid on the second: read at once, and the pool (not yet counting the first sale) goes to the first shop.
      await buy('410', [{ sku: 'LATE-W', quantity: 1 }]);
      await within(10_000, async () => (await onShop('409', externalIds[0]!, 'LATE-W')) === 3);
      // The first shop's own sale is read: the pool is sent there too, since Storelink's write undid Etsy's count.
      await syncOrders(t, me.as, me.sites[0]);
      assert.equal((await orderOf(me, late)).status, 'pending');
      assert.deepEqual(await pool(me, productId), { 'LATE-W': 1, 'LATE-B': 2 });
      await within(10_000, async () => (await onShop('409', externalIds[0]!, 'LATE-W')) === 1);
      await within(10_000, async () => (await onShop('410', externalIds[1]!, 'LATE-W')) === 1);
    });

    test('a sale read while a write of its own shop waits gets the pool too: the waiting write read the pool before the sale', async () => {
      const me = await twoShops('411', '412');
      const { externalIds } = await listedOnBoth(me, 'WAIT');
      // Unpaid: Etsy sends no ORDER_PAID, and takes the units off its listing at once.
      await buy('411', [{ sku: 'WAIT-W', quantity: 2 }], { status: 'open' });
      t.clock.advance(1_000);
      // The shop's listing has a write waiting (its pacer's turn), untouched since before the sale.
      const target = async () =>
        (
          await selectRows<{ target_version: number }>(
            t.database,
            sql`select target_version from listings where site_id = ${me.sites[0]} and external_id = ${externalIds[0]!}`,
          )
        )[0]!.target_version;
      await t.database.db.execute(
        sql`update listings set sync_status = 'syncing' where site_id = ${me.sites[0]} and external_id = ${externalIds[0]!}`,
      );
      const before = await target();
      await syncOrders(t, me.as, me.sites[0]);
      // Brought to the product's version that counts the sale, so the write that goes out carries the pool after it.
      assert.ok((await target()) > before);
      await within(10_000, async () => (await onShop('411', externalIds[0]!, 'WAIT-W')) === 2);
      await within(10_000, async () => (await onShop('412', externalIds[1]!, 'WAIT-W')) === 2);
    });

    test('the pool at 0: every Etsy listing is switched off with an out_of_stock issue, and live again, without a fee, when stock returns', async () => {
      const me = await twoShops('407', '408');
      const productId = await mugProduct(t, { ...me, site: me.sites[0], account: me.accounts[0] }, 'ZERO', {
        colours: false,
        currency: 'USD',
        title: 'Stoneware mug ZERO',
        description: 'Wheel-thrown, 350 ml.',
      });
      const listingIds: number[] = [];
      for (const site of me.sites) {
        const { id: categoryId, attributes } = await leafCategory(t, { ...me, site, account: '' }, 'mug');
        const published = await call(t, 'POST', `/sites/${site}/listings`, {
          ...me.as,
          body: { product_id: productId, category_id: categoryId, attributes },
        });
        assert.equal(published.statusCode, 202, published.body);
        listingIds.push(published.json().data.id);
      }
      const listing = async (id: number) => (await call(t, 'GET', `/listings/${id}`, me.as)).json().data;
      await within(20_000, async () => (await Promise.all(listingIds.map(listing))).every((l) => l.status === 'active'));
      const externalIds = await Promise.all(listingIds.map(async (id) => String((await listing(id)).external_id)));
      const onEtsy = async (i: 0 | 1) => (await shop(me.accounts[i])).find((l) => String(l.id) === externalIds[i])!;

      // The last 4 sell on the first shop: Etsy marks that listing sold out, and the pool at 0 reaches both.
      await buy('407', [{ sku: 'ZERO', quantity: 4 }]);
      await within(15_000, async () => (await Promise.all(listingIds.map(listing))).every((l) => l.status === 'inactive'));
      for (const id of listingIds) {
        const off = await listing(id);
        assert.equal(off.platform_status, 'inactive');
        assert.deepEqual(
          off.issues.map((i: { code: string }) => i.code),
          ['out_of_stock'],
        );
      }
      assert.deepEqual([(await onEtsy(0)).state, (await onEtsy(1)).state], ['inactive', 'inactive']);

      // Restocked: both go live again; reactivating an inactive listing is free, where renewing a sold-out one is not.
      const product = (await call(t, 'GET', `/products/${productId}`, me.as)).json().data;
      const restock = { variants: [{ ...product.variants[0], quantity: 5 }] };
      assert.equal((await call(t, 'PATCH', `/products/${productId}`, { ...me.as, body: restock })).statusCode, 200);
      await within(15_000, async () =>
        (await Promise.all(listingIds.map(listing))).every((l) => l.status === 'active' && l.issues.length === 0),
      );
      const live = [await onEtsy(0), await onEtsy(1)];
      assert.deepEqual(
        live.map((l) => [l.state, l.skus[0]?.quantity, l.fees]),
        [
          ['active', 5, 1],
          ['active', 5, 1],
        ],
      );
    });

    test('Etsy notifications: an unsigned or stale one is refused, a signed one reads the receipt', async () => {
      const body = JSON.stringify({ event_type: 'order.paid', resource_url: `${base}/x/shops/80000001/receipts/1`, shop_id: 80000001 });
      const unsigned = await fetch(`${base}/api/v1/platform-notifications/etsy`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'webhook-id': 'msg_1', 'webhook-timestamp': String(Math.floor(Date.now() / 1000)) },
        body,
      });
      assert.equal(unsigned.status, 401);
    });
  });

  describe(`a burst of ORDER_PAID read together [${kind}]`, () => {
    let t: TestApp;
    // No order worker runs: the test takes the notified reads itself, all at once, as a worker takes a burst.
    before(async () => (t = await createTestApp(kind, { listen: true })));
    after(() => t.close());

    test('ten receipts notified at once are found in one page of the newest changed, and one not there is read by itself; a second shop in the batch is read as its own', async () => {
      const user = await registerUser(t);
      const as = { token: user.session, workspace: user.workspace.id };
      const [account, other] = ['31', '32'];
      const site = await connectEtsySite(t, user, account);
      const otherSite = await connectEtsySite(t, user, other);
      const body = { title: 'Burst mug', currency: 'USD', variants: [{ sku: 'BURST-E', price: '9.00', quantity: 50 }] };
      assert.equal((await call(t, 'POST', '/products', { ...as, body })).statusCode, 201);
      const base = t.deps.config.appUrl;
      const sell = async (shop: string) => {
        const response = await fetch(`${base}/sandbox/etsy/accounts/${shop}/orders`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ lines: [{ sku: 'BURST-E', quantity: 1 }] }),
        });
        assert.equal(response.status, 201);
        return ((await response.json()) as { id: string }).id;
      };
      const sold: string[] = [];
      for (let i = 0; i < 10; i++) sold.push(await sell(account));
      const soldOther = [await sell(other), await sell(other)];
      // Each notification queues its order's read by the shop it names (the site's external id); the sites are found
      // when they are read.
      const shopOf = async (of: number) =>
        (await selectRows<{ id: string }>(t.database, sql`select external_id as id from sites where id = ${of}`))[0]!.id;
      const [shopId, otherShopId] = [await shopOf(site), await shopOf(otherSite)];
      const queued = async (shop: string) =>
        (
          await selectRows<{ n: number }>(
            t.database,
            sql`select count(*)::int as n from pgboss.job where name = 'order-read' and state = 'created' and data->>'accountId' = ${shop}`,
          )
        )[0]!.n;
      await within(10_000, async () => (await queued(shopId)) === 10 && (await queued(otherShopId)) === 2);
      // One more, as a notification of a receipt Etsy no longer has would queue it.
      await t.deps.orderReads.platformChanged('etsy', shopId, '99999999');
      const calls = async () => (await (await fetch(`${base}/sandbox/calls`)).json()) as Record<string, number>;
      const before = await calls();
      const [result] = await t.deps.jobs.runReady('order-read');
      const after = await calls();
      const spent = (operation: string) => (after[`etsy:${operation}`] ?? 0) - (before[`etsy:${operation}`] ?? 0);
      // The first shop's eleven: a page of its newest changed receipts, and the one not among them read by itself. The
      // second shop's two: each read by itself (fewer than three are not worth a page).
      assert.deepEqual([spent('getShopReceipts'), spent('getShopReceipt')], [1, 3], result);
      assert.match(result!, new RegExp(`site ${site}: 10 orders: 10 recorded; 10 taken`));
      assert.match(result!, new RegExp(`site ${otherSite}: 2 orders: 2 recorded; 2 taken`));
      assert.match(result!, /the platform has no order 99999999/);
      const recorded = async (of: number) =>
        ((await call(t, 'GET', `/orders?site_id=${of}&per_page=100`, as)).json().data as { external_id: string }[])
          .map((o) => o.external_id)
          .sort();
      assert.deepEqual(await recorded(site), [...sold].sort());
      assert.deepEqual(await recorded(otherSite), [...soldOther].sort());
      const product = (await call(t, 'GET', '/products?q=BURST-E', as)).json().data[0];
      assert.equal(product.variants[0].quantity, 38);
    });

    test('an order notified for an account no workspace has connected is read nowhere', async () => {
      await t.deps.orderReads.platformChanged('etsy', '39', '12345');
      const [result] = await t.deps.jobs.runReady('order-read');
      assert.equal(result, 'no site of the notified account(s)');
    });
  });
}
