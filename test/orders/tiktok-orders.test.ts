/**
 * Orders and one stock pool on TikTok Shop (DESIGN §14, orders.md §2), end to end against the sandbox over HTTP, with
 * every worker running: a buyer's order on one shop reaches Storelink by ORDER_STATUS_CHANGE within seconds as a line
 * per unit, takes the pool once, and its new quantity reaches the other shop's listing while the shop that sold keeps
 * what TikTok set; a poll takes nothing more; a cancellation gives back exactly what was taken, once; an UNPAID order
 * takes stock as pending; a sku outside the catalogue is `unknown_sku`. The simulator's protocol is pinned too (paging
 * by page_token, the search's time filters, Get Order Detail's 50 ids, 429 over the rate limit), and so is the adapter's
 * reading of TikTok's statuses. No buyer's name, address, e-mail or phone is stored, logged or answered.
 */
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { createTikTokShopNotificationsAdapter } from '../../src/platforms/tiktok-shop/notifications.js';
import {
  createTikTokShopOrdersAdapter,
  ORDER_DETAIL_PATH,
  ORDERS_PAGE_SIZE,
  TIKTOK_ORDER_STATUSES,
  tiktokOrder,
} from '../../src/platforms/tiktok-shop/orders.js';
import { SANDBOX_CLIENTS } from '../../src/sandbox/context.js';
import { SANDBOX_BUYER } from '../../src/sandbox/tiktok-shop/order-store.js';
import { ORDER_IDS_MAX } from '../../src/sandbox/tiktok-shop/orders.js';
import { setTikTokShopRateLimit } from '../../src/sandbox/tiktok-shop/product-store.js';
import { createManualClock } from '../helpers/clock.js';
import { connectTikTokShopSite } from '../helpers/connect.js';
import { databaseKinds, selectRows } from '../helpers/database.js';
import { PNG_640X480, SANDBOX_REVIEW_MS } from '../helpers/fixtures.js';
import { mugProduct } from '../helpers/listings.js';
import { syncOrders } from '../helpers/orders.js';
import { fakeHttp, rejects } from '../helpers/platform-http.js';
import { call, createTestApp, registerUser, type TestApp, within } from '../helpers/test-app.js';
import { sandboxShopsOf, signedCall } from '../helpers/tiktok-sandbox.js';

interface ShopProduct {
  id: string;
  state: string;
  skus: { sku: string; quantity: number }[];
}

const PNG = { bytes: PNG_640X480, type: 'image/png', name: 'mug.png' };

describe('TikTok Shop order facts the adapter keeps (orders.md §2)', () => {
  test('statuses: UNPAID is pending, paid and unshipped ones open, IN_TRANSIT shipped, DELIVERED and COMPLETED completed', () => {
    assert.deepEqual(TIKTOK_ORDER_STATUSES, {
      UNPAID: 'pending',
      ON_HOLD: 'open',
      AWAITING_SHIPMENT: 'open',
      AWAITING_COLLECTION: 'open',
      PARTIALLY_SHIPPING: 'open',
      IN_TRANSIT: 'shipped',
      DELIVERED: 'completed',
      COMPLETED: 'completed',
      CANCELLED: 'cancelled',
    });
    assert.ok(ORDERS_PAGE_SIZE >= 1 && ORDERS_PAGE_SIZE <= 100, 'page_size is 1 to 100');
    assert.equal(ORDER_DETAIL_PATH, '/order/202507/orders');
  });

  test('a line item is one unit; one cancelled alone sells 0, while a cancelled order keeps its lines at 1', () => {
    const item = (id: string, display_status: string) => ({ id, product_id: '9', seller_sku: 'S', sale_price: '5.00', display_status });
    const order = (status: string, items: ReturnType<typeof item>[]) =>
      tiktokOrder({
        id: '1',
        status,
        create_time: 1,
        update_time: 2,
        payment: { currency: 'GBP', total_amount: '5.00' },
        line_items: items,
      });
    const partial = order('AWAITING_SHIPMENT', [item('a', 'AWAITING_SHIPMENT'), item('b', 'CANCELLED')]);
    assert.deepEqual(
      partial.lines.map((l) => [l.externalId, l.quantity, l.sku, l.externalListingId]),
      [
        ['a', 1, 'S', '9'],
        ['b', 0, 'S', '9'],
      ],
    );
    assert.deepEqual(
      order('CANCELLED', [item('a', 'CANCELLED')]).lines.map((l) => l.quantity),
      [1],
    );
  });

  test('the adapter searches by update_time_ge, oldest change first, 100 a page by page_token, and reads orders by ids, 50 a call', async () => {
    const envelope = (data: object) => ({ status: 200, body: { code: 0, message: 'Success', data, request_id: 'r' } });
    const sample = { id: '576461413038785752', status: 'UNPAID', create_time: 100, update_time: 200, payment: { currency: 'USD' } };
    const ids = Array.from({ length: 51 }, (_, i) => `5764614130387857${String(i).padStart(2, '0')}`);
    const { http, sent } = fakeHttp(
      envelope({ next_page_token: 'b2Zmc2V0', total_count: 1, orders: [{ ...sample, line_items: [] }] }),
      // The first call's answer holds two of its orders and one nobody asked for, which is not taken.
      envelope({ orders: [ids[0], ids[49], '1'].map((id) => ({ ...sample, id, line_items: [] })) }),
      envelope({ orders: [{ ...sample, id: ids[50], line_items: [] }] }),
      { status: 429, body: { code: 36_009_002, message: 'Too many requests', data: null }, retryAfterMs: 1_000 },
    );
    const config = { ...SANDBOX_CLIENTS.tiktokShop, authorizeUrl: 'x', authUrl: 'x', apiUrl: 'https://open-api.test' };
    const adapter = createTikTokShopOrdersAdapter(config, { http, clock: createManualClock(new Date(1_700_000_000_000)) });
    const call = { externalId: '70', data: { cipher: 'GCP_X' }, settings: {}, accessToken: 'TTP_a' };
    assert.equal(adapter.pollEverySeconds, 60);
    const page = await adapter.changed(call, new Date(1_699_999_000_500), 'b2Zmc2V0');
    assert.equal(page.next, 'b2Zmc2V0');
    assert.deepEqual([page.orders[0]!.status, page.orders[0]!.total], ['pending', null]);
    const search = new URL(sent[0]!.url);
    assert.equal(search.pathname, '/order/202309/orders/search');
    assert.equal(sent[0]!.init.method, 'POST');
    assert.deepEqual(
      ['page_size', 'sort_field', 'sort_order', 'page_token', 'shop_cipher'].map((key) => search.searchParams.get(key)),
      ['100', 'update_time', 'ASC', 'b2Zmc2V0', 'GCP_X'],
    );
    assert.deepEqual(sent[0]!.init.json, { update_time_ge: 1_699_999_000 });
    assert.deepEqual(
      (await adapter.orders(call, [...ids, ids[0]!, 'not-an-id'])).map((order) => order.externalId),
      [ids[0], ids[49], ids[50]],
    );
    const details = [new URL(sent[1]!.url), new URL(sent[2]!.url)];
    assert.deepEqual(
      details.map((detail, i) => [detail.pathname, detail.searchParams.get('ids'), sent[i + 1]!.init.method]),
      [
        [ORDER_DETAIL_PATH, ids.slice(0, 50).join(','), 'GET'],
        [ORDER_DETAIL_PATH, ids[50], 'GET'],
      ],
    );
    assert.equal(sent.length, 3);
    await assert.rejects(adapter.orders(call, [sample.id]), rejects('unavailable'));
  });

  test('ORDER_STATUS_CHANGE (CANCEL included) and CANCELLATION_STATUS_CHANGE name the order by its id as text', () => {
    const app = SANDBOX_CLIENTS.tiktokShop;
    const adapter = createTikTokShopNotificationsAdapter(app);
    const body = (type: number, data: object) => JSON.stringify({ type, tts_notification_id: '1', shop_id: '70', timestamp: 1, data });
    const changed = body(1, { order_id: '576461413038785752', order_status: 'CANCEL', is_on_hold_order: false, update_time: 1 });
    assert.ok(
      adapter.verify(
        {
          authorization: createHmac('sha256', app.appSecret)
            .update(app.appKey + changed)
            .digest('hex'),
        },
        changed,
      ),
    );
    assert.deepEqual(adapter.parse(changed), { kind: 'order_changed', accountId: '70', externalOrderId: '576461413038785752' });
    assert.deepEqual(adapter.parse(body(11, { order_id: '576461413038785753', cancel_status: 'CANCELLATION_REQUEST_COMPLETE' })), {
      kind: 'order_changed',
      accountId: '70',
      externalOrderId: '576461413038785753',
    });
    assert.deepEqual(adapter.parse(body(5, { product_id: '17', status: 'PRODUCT_STATUS_CHANGED' })), {
      kind: 'listing_changed',
      accountId: '70',
      externalListingId: '17',
    });
  });
});

for (const kind of databaseKinds()) {
  describe(`orders and the stock pool on TikTok Shop [${kind}]`, () => {
    let t: TestApp;
    let base: string;
    before(async () => {
      t = await createTestApp(kind, { listen: true, workers: true });
      base = t.deps.config.appUrl;
      setTikTokShopRateLimit(t.deps.sandbox, 1_000_000);
    });
    after(() => t.close());

    /** A workspace with two connected TikTok shops (sandbox accounts `a` and `b`, each its first shop), their warehouse set. */
    async function twoShops(a: string, b: string) {
      const user = await registerUser(t);
      const as = { token: user.session, workspace: user.workspace.id };
      const sites: number[] = [];
      for (const account of [a, b]) {
        const site = await connectTikTokShopSite(t, user, account);
        const choices = (await call(t, 'GET', `/sites/${site}/listing-options`, as)).json().data;
        const body = { warehouse_id: choices.warehouse_id[0].value };
        assert.equal((await call(t, 'PUT', `/sites/${site}/listing-settings`, { ...as, body })).statusCode, 200);
        sites.push(site);
      }
      return { ...user, as, sites: sites as [number, number], accounts: [a, b] as const };
    }
    type Seller = Awaited<ReturnType<typeof twoShops>>;

    /** The mug `<sku>-W` (4 in stock) and `<sku>-B` (2), live on both shops once TikTok's review passed. */
    async function listedOnBoth(me: Seller, sku: string) {
      const productId = await mugProduct(t, { ...me, site: me.sites[0], account: me.accounts[0] }, sku, {
        image: PNG,
        packaged: true,
        currency: 'GBP',
      });
      const ids: number[] = [];
      for (const site of me.sites) {
        const body = { product_id: productId, category_id: '600011', attributes: { 100392: '1001533' } };
        const published = await call(t, 'POST', `/sites/${site}/listings`, { ...me.as, body });
        assert.equal(published.statusCode, 202, published.body);
        ids.push(published.json().data.id);
      }
      const status = async (id: number) => (await call(t, 'GET', `/listings/${id}`, me.as)).json().data;
      await within(20_000, async () => (await Promise.all(ids.map(status))).every((l) => l.external_id));
      // TikTok's review time passes: its webhook brings each listing live.
      t.clock.advance(SANDBOX_REVIEW_MS);
      await within(20_000, async () => (await Promise.all(ids.map(status))).every((l) => l.status === 'active'));
      const externalIds = await Promise.all(ids.map(async (id) => (await status(id)).external_id as string));
      return { productId, externalIds };
    }

    const shop = async (account: string) =>
      (await (await fetch(`${base}/sandbox/tiktok-shop/accounts/${account}/listings`)).json()) as ShopProduct[];
    const onShop = async (account: string, externalId: string, sku: string) =>
      (await shop(account)).find((p) => p.id === externalId)?.skus.find((s) => s.sku === sku)?.quantity ?? null;
    const place = (account: string, lines: { sku: string; quantity: number }[], extra: object = {}) =>
      fetch(`${base}/sandbox/tiktok-shop/accounts/${account}/orders`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ lines, ...extra }),
      });
    const buy = async (account: string, lines: { sku: string; quantity: number }[], extra: object = {}) => {
      const response = await place(account, lines, extra);
      assert.equal(response.status, 201, await response.clone().text());
      return ((await response.json()) as { id: string }).id;
    };
    const sandboxPost = (path: string) => fetch(`${base}/sandbox/tiktok-shop${path}`, { method: 'POST' });
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
    const lineRows = (order: { lines: Record<string, unknown>[] }) =>
      order.lines.map((l) => [l.sku, l.quantity, l.price, l.stock_taken, l.stock_returned, l.issues]);

    test('a sale of 3 units on one shop is 3 lines of 1, takes the pool once and reaches the other shop; the shop that sold keeps what TikTok set', async () => {
      const me = await twoShops('601', '602');
      const { productId, externalIds } = await listedOnBoth(me, 'SOLD');
      const hook = await call(t, 'POST', '/webhooks', {
        ...me.as,
        body: { url: `${base}/nowhere`, events: ['order.created', 'order.updated', 'order.cancelled', 'stock.oversold'] },
      });
      assert.equal(hook.statusCode, 201, hook.body);

      const id = await buy('601', [{ sku: 'SOLD-W', quantity: 3 }]);
      // ORDER_STATUS_CHANGE brings it within seconds; the other shop's listing follows.
      await within(10_000, async () => (await orderOf(me, id)) !== undefined);
      await within(10_000, async () => (await onShop('602', externalIds[1]!, 'SOLD-W')) === 1);
      const order = await orderOf(me, id);
      assert.equal(order.site_id, me.sites[0]);
      assert.equal(order.status, 'open');
      assert.equal(order.platform_status, 'AWAITING_SHIPMENT');
      assert.equal(order.currency, 'GBP');
      assert.equal(order.total, '54.00');
      assert.equal(order.history, false);
      assert.deepEqual(lineRows(order), [
        ['SOLD-W', 1, '18.00', 1, 0, []],
        ['SOLD-W', 1, '18.00', 1, 0, []],
        ['SOLD-W', 1, '18.00', 1, 0, []],
      ]);
      assert.equal(new Set(order.lines.map((l: { external_id: string }) => l.external_id)).size, 3, 'each line item its own line');
      assert.deepEqual(await pool(me, productId), { 'SOLD-W': 1, 'SOLD-B': 2 });
      assert.equal(await onShop('601', externalIds[0]!, 'SOLD-W'), 1, 'TikTok took the units off the product that sold');
      assert.deepEqual((await call(t, 'GET', `/orders/${order.id}`, me.as)).json().data, order);

      // Read again by a poll: nothing more is taken.
      await syncOrders(t, me.as, me.sites[0]);
      assert.deepEqual(await pool(me, productId), { 'SOLD-W': 1, 'SOLD-B': 2 });
      assert.deepEqual(
        (await movements(me, '?sku=SOLD-W')).map((m: { reason: string; delta: number }) => [m.reason, m.delta]),
        [
          ['order', -1],
          ['order', -1],
          ['order', -1],
          ['edit', 4],
        ],
        'the creation and the three units, nothing more',
      );

      // Cancelled on TikTok: its notifications bring it; exactly the 3 go back, once.
      t.clock.advance(1_000);
      assert.equal((await sandboxPost(`/accounts/601/orders/${id}/cancel`)).status, 204);
      await within(10_000, async () => (await orderOf(me, id)).status === 'cancelled');
      assert.equal((await orderOf(me, id)).platform_status, 'CANCELLED');
      assert.deepEqual(await pool(me, productId), { 'SOLD-W': 4, 'SOLD-B': 2 });
      assert.deepEqual(
        (await orderOf(me, id)).lines.map((l: { stock_taken: number; stock_returned: number }) => [l.stock_taken, l.stock_returned]),
        [
          [1, 1],
          [1, 1],
          [1, 1],
        ],
      );
      await within(10_000, async () => (await onShop('602', externalIds[1]!, 'SOLD-W')) === 4);
      await syncOrders(t, me.as, me.sites[0]);
      assert.deepEqual(await pool(me, productId), { 'SOLD-W': 4, 'SOLD-B': 2 }, 'a cancellation gives back once');
      const cancellations = (await movements(me, '?sku=SOLD-W')).filter((m: { reason: string }) => m.reason === 'cancellation');
      assert.equal(
        cancellations.reduce((sum: number, m: { delta: number }) => sum + m.delta, 0),
        3,
      );

      const sent = await selectRows<{ event_type: string }>(
        t.database,
        sql`select event_type from webhook_deliveries where endpoint_id = ${hook.json().data.id} order by id`,
      );
      assert.deepEqual(
        sent.map((row) => row.event_type),
        ['order.created', 'order.cancelled'],
      );
    });

    test('an UNPAID order takes stock as pending; paid, it is open and takes nothing more; shipped, it is shipped', async () => {
      const me = await twoShops('603', '604');
      const { productId } = await listedOnBoth(me, 'UNPD');
      const id = await buy('603', [{ sku: 'UNPD-B', quantity: 2 }], { status: 'UNPAID' });
      await within(10_000, async () => (await orderOf(me, id)) !== undefined);
      const pending = await orderOf(me, id);
      assert.deepEqual([pending.status, pending.platform_status], ['pending', 'UNPAID']);
      assert.deepEqual(await pool(me, productId), { 'UNPD-W': 4, 'UNPD-B': 0 });
      assert.equal((await place('603', [{ sku: 'UNPD-B', quantity: 1 }])).status, 409, 'TikTok holds the units of an unpaid order');

      t.clock.advance(1_000);
      assert.equal((await sandboxPost(`/accounts/603/orders/${id}/pay`)).status, 204);
      await within(10_000, async () => (await orderOf(me, id)).status === 'open');
      t.clock.advance(1_000);
      assert.equal((await sandboxPost(`/accounts/603/orders/${id}/ship`)).status, 204);
      await within(10_000, async () => (await orderOf(me, id)).status === 'shipped');
      assert.equal((await orderOf(me, id)).platform_status, 'IN_TRANSIT');
      assert.deepEqual(await pool(me, productId), { 'UNPD-W': 4, 'UNPD-B': 0 });
      assert.equal((await sandboxPost(`/accounts/603/orders/${id}/cancel`)).status, 409, 'a shipped order is not cancelled');
    });

    test('a sku outside the catalogue is kept as unknown_sku and takes nothing; the orders filter by site', async () => {
      const me = await twoShops('605', '606');
      const outside = await buy('606', [{ sku: 'NOT-IN-CATALOGUE', quantity: 2 }]);
      await within(10_000, async () => (await orderOf(me, outside)) !== undefined);
      const order = await orderOf(me, outside);
      assert.equal(order.history, false);
      assert.deepEqual(
        order.lines.map((l: { sku: string; product_id: null; quantity: number; stock_taken: number; issues: { code: string }[] }) => [
          l.sku,
          l.product_id,
          l.quantity,
          l.stock_taken,
          l.issues.map((i) => i.code),
        ]),
        [
          ['NOT-IN-CATALOGUE', null, 1, 0, ['unknown_sku']],
          ['NOT-IN-CATALOGUE', null, 1, 0, ['unknown_sku']],
        ],
      );
      const first = await buy('605', [{ sku: 'ALSO-OUTSIDE', quantity: 1 }]);
      await within(10_000, async () => (await orderOf(me, first)) !== undefined);
      const ofSite = async (site: number) => (await orders(me, `?site_id=${site}`)).data.map((o: { external_id: string }) => o.external_id);
      assert.deepEqual(await ofSite(me.sites[1]), [outside]);
      assert.deepEqual(await ofSite(me.sites[0]), [first]);
      assert.equal((await orders(me, '?sku=NOT-IN-CATALOGUE')).meta.total, 1);
      assert.equal((await orders(me, '?status=open')).meta.total, 2);
    });

    test("the simulator's Order API: paging by page_token, the time filters, Get Order Detail's 50 ids, 429 over the limit", async () => {
      const [seller] = await sandboxShopsOf(t, 607);
      const who = { token: seller!.token, cipher: seller!.cipher };
      const start = Math.floor(t.clock.now().getTime() / 1000);
      const ids: string[] = [];
      for (let i = 0; i < 3; i++) {
        ids.push(await buy('607', [{ sku: `OUT-${i}`, quantity: 1 }]));
        t.clock.advance(2_000);
      }
      const search = (query: Record<string, string>, body: object = {}) =>
        signedCall(t, who, 'POST', '/order/202309/orders/search', body, { query });

      // Paging: two pages of 2 and 1, by page_token, oldest first by update_time.
      const first = await search({ page_size: '2', sort_field: 'update_time', sort_order: 'ASC' });
      assert.equal(first.body.code, 0, JSON.stringify(first.body));
      const data = first.body.data as { next_page_token: string; total_count: number; orders: { id: string; line_items: object[] }[] };
      assert.equal(data.total_count, 3);
      assert.deepEqual(
        data.orders.map((o) => o.id),
        ids.slice(0, 2),
      );
      assert.ok(data.next_page_token);
      const second = await search({ page_size: '2', sort_field: 'update_time', sort_order: 'ASC', page_token: data.next_page_token });
      const rest = second.body.data as { next_page_token: string; orders: { id: string }[] };
      assert.deepEqual(
        rest.orders.map((o) => o.id),
        ids.slice(2),
      );
      assert.equal(rest.next_page_token, '');
      // The default order is newest first.
      const newest = (await search({ page_size: '100' })).body.data as { orders: { id: string }[] };
      assert.deepEqual(
        newest.orders.map((o) => o.id),
        [...ids].reverse(),
      );
      // page_size is required, 1 to 100.
      for (const size of [undefined, '0', '101'])
        assert.notEqual((await search(size === undefined ? {} : { page_size: size })).body.code, 0, `page_size ${size}`);

      // Time filters: update_time_ge/_lt and create_time_ge/_lt, in Unix seconds.
      const between = (await search({ page_size: '100' }, { update_time_ge: start + 2, update_time_lt: start + 4 })).body.data as {
        orders: { id: string }[];
      };
      assert.deepEqual(
        between.orders.map((o) => o.id),
        [ids[1]],
      );
      const created = (await search({ page_size: '100' }, { create_time_ge: start + 4 })).body.data as { orders: { id: string }[] };
      assert.deepEqual(
        created.orders.map((o) => o.id),
        [ids[2]],
      );
      assert.notEqual((await search({ page_size: '100' }, { update_time_ge: 'yesterday' })).body.code, 0);
      // A cancellation changes update_time and the status filter finds it.
      t.clock.advance(2_000);
      assert.equal((await sandboxPost(`/accounts/607/orders/${ids[0]}/cancel`)).status, 204);
      const cancelled = (await search({ page_size: '100' }, { order_status: 'CANCELLED', update_time_ge: start + 6 })).body.data as {
        orders: { id: string; status: string; cancel_time: number; line_items: { display_status: string }[] }[];
      };
      assert.deepEqual(
        cancelled.orders.map((o) => [o.id, o.status, o.line_items.map((i) => i.display_status)]),
        [[ids[0], 'CANCELLED', ['CANCELLED']]],
      );

      // Get Order Detail: up to 50 ids; one line item per unit, no quantity field.
      const detail = (list: string[]) => signedCall(t, who, 'GET', '/order/202507/orders', undefined, { query: { ids: list.join(',') } });
      const two = (await detail(ids.slice(1))).body.data as { orders: { id: string; line_items: Record<string, unknown>[] }[] };
      assert.deepEqual(
        two.orders.map((o) => o.id),
        ids.slice(1),
      );
      assert.ok(two.orders.every((o) => o.line_items.every((i) => !('quantity' in i))));
      const fifty = [...ids, ...Array.from({ length: ORDER_IDS_MAX - ids.length }, (_, i) => String(9_000 + i))];
      assert.equal((await detail(fifty)).body.code, 0);
      const answer = await detail([...fifty, '9999']);
      assert.equal(answer.body.code, 36_009_004, 'more than 50 ids are refused');

      // 50 requests a second per shop and API by default: over it, HTTP 429 with TikTok's code.
      setTikTokShopRateLimit(t.deps.sandbox, 2);
      // A second of its own (the test clock stands still): the calls above spent the budget of theirs.
      t.clock.advance(1_000);
      try {
        const answers = [await search({ page_size: '1' }), await search({ page_size: '1' }), await search({ page_size: '1' })];
        assert.deepEqual(
          answers.map((a) => a.status),
          [200, 200, 429],
        );
        assert.equal(answers[2]!.body.code, 36_009_002);
      } finally {
        setTikTokShopRateLimit(t.deps.sandbox, 1_000_000);
      }
    });

    test('no buyer name, address, e-mail or phone is stored, logged or answered', async () => {
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
  });
}
