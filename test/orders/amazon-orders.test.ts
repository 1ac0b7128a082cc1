/**
 * Orders and one stock pool on Amazon (DESIGN §14, orders.md §3), end to end against the sandbox's Orders API
 * v2026-01-01 over HTTP, with every worker running. Reads here are polls (`POST /sites/{id}/orders/sync`; the sandbox's
 * ORDER_CHANGE notifications through SQS are tested in amazon-order-notifications.test.ts, and read beside them): a sale takes the pool once, the other Amazon seller site of the
 * workspace gets the new quantity while the one that sold keeps what Amazon set, a poll takes nothing more, a
 * cancellation gives back once, a PENDING order takes stock without a price, a sku outside the catalogue is
 * `unknown_sku`. Then the simulator's protocol, driven as an SP-API client would with no adapter code: the paging
 * token bound to its search, the search's usage plan (429 past the burst), the two-minute rule on `…Before`, the
 * buyer's data only on `includedData=BUYER`; and the adapter's reading of the model's statuses and quantities.
 * No buyer's name, address, e-mail or phone is stored, logged or answered.
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { systemClock } from '../../src/lib/clock.js';
import {
  amazonOrder,
  amazonOrderStatus,
  createAmazonSellerOrdersAdapter,
  ORDER_DATASETS,
} from '../../src/platforms/amazon-seller/orders.js';
import { setAmazonSellerRateLimit } from '../../src/sandbox/amazon-seller/listings-rate-limits.js';
import { SANDBOX_AMAZON_BUYER } from '../../src/sandbox/amazon-seller/orders-store.js';
import { amazonSellerGrant } from '../helpers/amazon-sandbox.js';
import { connectAmazonSellerSite } from '../helpers/connect.js';
import { databaseKinds, selectRows } from '../helpers/database.js';
import { mugProduct } from '../helpers/listings.js';
import { syncOrders } from '../helpers/orders.js';
import { call, createTestApp, registerUser, type TestApp, within } from '../helpers/test-app.js';

const US = 'ATVPDKIKX0DER';

interface Held {
  marketplace_id: string;
  skus: { sku: string; price: string | null; quantity: number }[];
  status: string[];
}

for (const kind of databaseKinds()) {
  describe(`orders and the stock pool on Amazon [${kind}]`, () => {
    let t: TestApp;
    let base: string;
    before(async () => {
      t = await createTestApp(kind, { listen: true, workers: true });
      base = t.deps.config.appUrl;
    });
    after(() => t.close());
    beforeEach(() => setAmazonSellerRateLimit(t.deps.sandbox, 1_000_000));

    /** A workspace with two connected Amazon seller accounts, each selling on Amazon.com. */
    async function twoSellers(a: string, b: string) {
      const user = await registerUser(t);
      const as = { token: user.session, workspace: user.workspace.id };
      const sites: number[] = [];
      for (const account of [a, b]) {
        const site = await connectAmazonSellerSite(t, user, account);
        const settings = await call(t, 'PUT', `/sites/${site}/listing-settings`, { ...as, body: { marketplace_id: US } });
        assert.equal(settings.statusCode, 200, settings.body);
        sites.push(site);
      }
      return { ...user, as, sites: sites as [number, number], accounts: [a, b] as const };
    }
    type Seller = Awaited<ReturnType<typeof twoSellers>>;

    /** The mug `<sku>-W` (4 in stock) and `<sku>-B` (2), buyable on both accounts: the product's id. */
    async function listedOnBoth(me: Seller, sku: string) {
      const productId = await mugProduct(t, { ...me, site: me.sites[0], account: me.accounts[0] }, sku, {
        brand: 'Sandbox Pottery',
        barcodes: ['012345678905', '4006381333931'],
      });
      const ids: number[] = [];
      for (const site of me.sites) {
        const body = { product_id: productId, category_id: 'KITCHEN', attributes: { material: 'Stoneware' } };
        const published = await call(t, 'POST', `/sites/${site}/listings`, { ...me.as, body });
        assert.equal(published.statusCode, 202, published.body);
        ids.push(published.json().data.id);
      }
      const states = () => Promise.all(ids.map(async (id) => (await call(t, 'GET', `/listings/${id}`, me.as)).json().data.status));
      await within(20_000, async () => (await states()).every((state) => state === 'in_review'));
      // Amazon's processing time passes; the watch reads the listings live.
      t.clock.advance(61_000);
      await t.deps.listingWatch.sweep();
      await within(20_000, async () => (await states()).every((state) => state === 'active'), { pollMs: 200 });
      return productId;
    }

    const held = async (account: string, sku: string) => {
      const all = (await (await fetch(`${base}/sandbox/amazon-seller/accounts/${account}/listings`)).json()) as Held[];
      return all.find((l) => l.marketplace_id === US && l.skus[0]?.sku === sku)?.skus[0]?.quantity ?? null;
    };
    const placeOrder = (account: string, lines: { sku: string; quantity: number }[], extra: object = {}) =>
      fetch(`${base}/sandbox/amazon-seller/accounts/${account}/orders`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ lines, ...extra }),
      });
    const buy = async (account: string, lines: { sku: string; quantity: number }[], extra: object = {}) => {
      const response = await placeOrder(account, lines, extra);
      assert.equal(response.status, 201, await response.clone().text());
      return ((await response.json()) as { id: string }).id;
    };
    const sandboxPost = (path: string) => fetch(`${base}/sandbox/amazon-seller${path}`, { method: 'POST' });
    const orders = async (me: Pick<Seller, 'as'>, query = '') => (await call(t, 'GET', `/orders${query}`, me.as)).json();
    const orderOf = async (me: Seller, externalId: string) =>
      (await orders(me)).data.find((o: { external_id: string }) => o.external_id === externalId);
    const pool = async (me: Seller, productId: number) =>
      Object.fromEntries(
        (await call(t, 'GET', `/products/${productId}`, me.as))
          .json()
          .data.variants.map((v: { sku: string; quantity: number }) => [v.sku, v.quantity]),
      );
    const movements = async (me: Seller, query: string) => (await call(t, 'GET', `/products/stock-movements${query}`, me.as)).json().data;
    const lineFacts = (order: { lines: Record<string, unknown>[] }) =>
      order.lines.map((l) => [
        l.sku,
        l.quantity,
        l.price,
        l.stock_taken,
        l.stock_returned,
        (l.issues as { code: string }[]).map((i) => i.code),
      ]);

    test('a sale takes the pool once and reaches the other seller; the one that sold keeps what Amazon set; a cancellation gives back once', async () => {
      const me = await twoSellers('811', '812');
      const productId = await listedOnBoth(me, 'AMZ');
      // The seller set 10 in Seller Central on the first account: Amazon counts from there.
      const edit = await fetch(`${base}/sandbox/amazon-seller/accounts/811/listings/AMZ-W`, {
        method: 'PATCH',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ quantity: 10 }),
      });
      assert.equal(edit.status, 200, await edit.text());

      const id = await buy('811', [{ sku: 'AMZ-W', quantity: 3 }]);
      assert.equal(await held('811', 'AMZ-W'), 7, 'Amazon subtracts at checkout');
      await syncOrders(t, me.as, me.sites[0]);
      const order = await orderOf(me, id);
      assert.ok(order, 'the poll read the order');
      assert.equal(order.site_id, me.sites[0]);
      assert.deepEqual([order.status, order.platform_status, order.currency, order.history], ['open', 'UNSHIPPED', 'USD', false]);
      const price = order.lines[0].price as string;
      assert.match(price, /^[0-9]+\.[0-9]{2}$/);
      assert.equal(order.total, (Number(price) * 3).toFixed(2));
      assert.deepEqual(lineFacts(order), [['AMZ-W', 3, price, 3, 0, []]]);
      assert.match(order.lines[0].external_id, /^[0-9]{14}$/, "the line is keyed by Amazon's orderItemId");
      assert.deepEqual(await pool(me, productId), { 'AMZ-W': 1, 'AMZ-B': 2 });
      await within(10_000, async () => (await held('812', 'AMZ-W')) === 1);
      assert.equal(await held('811', 'AMZ-W'), 7, 'the seller that sold keeps what Amazon set');

      // Read again by a poll: nothing more is taken.
      await syncOrders(t, me.as, me.sites[0]);
      assert.deepEqual(await pool(me, productId), { 'AMZ-W': 1, 'AMZ-B': 2 });
      assert.equal((await movements(me, '?sku=AMZ-W')).length, 2, 'the creation and the sale, nothing more');

      // Cancelled on Amazon: the units go back to the listing there, and exactly the 3 to the pool, once.
      assert.equal((await sandboxPost(`/accounts/811/orders/${id}/cancel`)).status, 204);
      assert.equal(await held('811', 'AMZ-W'), 10);
      await syncOrders(t, me.as, me.sites[0]);
      const cancelled = await orderOf(me, id);
      assert.deepEqual([cancelled.status, cancelled.platform_status], ['cancelled', 'CANCELLED']);
      assert.deepEqual([cancelled.lines[0].stock_taken, cancelled.lines[0].stock_returned], [3, 3]);
      assert.deepEqual(await pool(me, productId), { 'AMZ-W': 4, 'AMZ-B': 2 });
      await within(10_000, async () => (await held('812', 'AMZ-W')) === 4);
      await syncOrders(t, me.as, me.sites[0]);
      assert.deepEqual(await pool(me, productId), { 'AMZ-W': 4, 'AMZ-B': 2 }, 'a cancellation gives back once');
      assert.deepEqual(
        (await movements(me, '?sku=AMZ-W')).map((m: { reason: string; delta: number }) => [m.reason, m.delta]),
        [
          ['cancellation', 3],
          ['order', -3],
          ['edit', 4],
        ],
      );

      // Shipped: the status follows, the stock stays taken.
      const shippedId = await buy('812', [{ sku: 'AMZ-B', quantity: 1 }]);
      assert.equal((await sandboxPost(`/accounts/812/orders/${shippedId}/ship`)).status, 204);
      await syncOrders(t, me.as, me.sites[1]);
      const shipped = await orderOf(me, shippedId);
      assert.deepEqual([shipped.status, shipped.platform_status, shipped.lines[0].stock_taken], ['shipped', 'SHIPPED', 1]);
      assert.deepEqual(await pool(me, productId), { 'AMZ-W': 4, 'AMZ-B': 1 });
    });

    test('a PENDING order takes stock without a price; a sku outside the catalogue is unknown_sku; too few units is 409', async () => {
      const me = await twoSellers('813', '814');
      const productId = await listedOnBoth(me, 'PND');
      const tooMany = await placeOrder('813', [{ sku: 'PND-B', quantity: 3 }]);
      assert.equal(tooMany.status, 409, 'the listing has 2');
      assert.equal((await placeOrder('813', [{ sku: 'PND-B', quantity: 1 }], { status: 'PAID' })).status, 400);

      const pending = await buy('813', [{ sku: 'PND-B', quantity: 2 }], { status: 'PENDING' });
      const outside = await buy('813', [{ sku: 'NOT-IN-CATALOGUE', quantity: 2 }]);
      assert.equal(await held('813', 'PND-B'), 0);
      await syncOrders(t, me.as, me.sites[0]);
      const held1 = await orderOf(me, pending);
      assert.deepEqual([held1.status, held1.platform_status, held1.total], ['pending', 'PENDING', null]);
      assert.deepEqual(lineFacts(held1), [['PND-B', 2, null, 2, 0, []]]);
      assert.deepEqual(await pool(me, productId), { 'PND-W': 4, 'PND-B': 0 });
      await within(10_000, async () => (await held('814', 'PND-B')) === 0);

      const unknown = await orderOf(me, outside);
      assert.deepEqual(lineFacts(unknown), [['NOT-IN-CATALOGUE', 2, '10.00', 0, 0, ['unknown_sku']]]);
      assert.equal(unknown.lines[0].product_id, null);
    });

    test('a read pages through more than 100 orders by paginationToken, with no getOrder spent on their items', async () => {
      const user = await registerUser(t);
      const me = { as: { token: user.session, workspace: user.workspace.id } };
      const site = await connectAmazonSellerSite(t, user, '815');
      // Connecting reads the site's history first: that read is over before the counting starts.
      await syncOrders(t, me.as, site);
      // The orders are read by the poll alone here: their ORDER_CHANGE notifications are lost on the way.
      t.deps.sandbox.lostNotifications.add('amazon-seller');
      try {
        const ids = new Set<string>();
        for (let i = 0; i < 101; i++) ids.add(await buy('815', [{ sku: `MANY-${i}`, quantity: 1 }]));
        const calls = (operation: string) => t.deps.sandbox.calls.get(`amazon-seller:${operation}`) ?? 0;
        const searches = calls('searchOrders');
        const reads = calls('getOrder');
        await syncOrders(t, me.as, site);
        const read = (await orders(me, `?site_id=${site}`)).meta.total;
        assert.equal(read, 101);
        assert.equal(calls('searchOrders') - searches, 2, 'two pages of 100');
        assert.equal(calls('getOrder') - reads, 0, 'the search carries the items');
      } finally {
        t.deps.sandbox.lostNotifications.delete('amazon-seller');
      }
    });

    test('no buyer name, address, e-mail or phone is stored, logged or answered', async () => {
      const tables = await selectRows<{ table_name: string }>(
        t.database,
        sql`select table_name from information_schema.tables where table_schema = 'public' and table_type = 'BASE TABLE'`,
      );
      const everything: string[] = [...t.logs];
      for (const { table_name: table } of tables)
        everything.push(JSON.stringify(await selectRows(t.database, sql.raw(`select * from "${table}"`))));
      everything.push(JSON.stringify(await selectRows(t.database, sql`select data, output from pgboss.job`)));
      const text = everything.join('\n');
      assert.ok(text.includes('NOT-IN-CATALOGUE'), 'the dump holds the orders read above');
      for (const value of Object.values(SANDBOX_AMAZON_BUYER)) assert.ok(!text.includes(value), `${value} is nowhere`);
    });
  });
}

describe('the sandbox Amazon Orders API v2026-01-01, as an SP-API client calls it', () => {
  let t: TestApp;
  let base: string;
  before(async () => {
    t = await createTestApp('pglite', { listen: true });
    base = `${t.deps.sandbox.sandboxUrl}/amazon-seller`;
  });
  after(() => t.close());
  beforeEach(() => setAmazonSellerRateLimit(t.deps.sandbox, 1_000_000));

  /** An access token for the account, through Seller Central's consent and LWA. */
  const tokenOf = async (account: number) => (await amazonSellerGrant(t, account)).token;
  const search = async (token: string, query: Record<string, string>) => {
    const response = await fetch(`${base}/orders/2026-01-01/orders?${new URLSearchParams(query)}`, {
      headers: { 'x-amz-access-token': token },
    });
    return { status: response.status, headers: response.headers, body: (await response.json()) as any };
  };
  const buy = async (account: number, sku: string) => {
    const response = await fetch(`${base}/accounts/${account}/orders`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ lines: [{ sku, quantity: 1 }] }),
    });
    assert.equal(response.status, 201);
    return ((await response.json()) as { id: string }).id;
  };

  test('the paging token pages through its own search only, with the other parameters repeated', async () => {
    const token = await tokenOf(821);
    const ids = [await buy(821, 'P-1'), await buy(821, 'P-2'), await buy(821, 'P-3')];
    const since = new Date(t.clock.now().getTime() - 60_000).toISOString();
    const first = await search(token, { lastUpdatedAfter: since, maxResultsPerPage: '2' });
    assert.equal(first.status, 200);
    assert.deepEqual(
      first.body.orders.map((o: { orderId: string }) => o.orderId),
      ids.slice(0, 2),
    );
    const next = first.body.pagination.nextToken as string;
    const changed = await search(token, { lastUpdatedAfter: new Date(0).toISOString(), paginationToken: next });
    assert.deepEqual([changed.status, changed.body.errors[0].code], [400, 'InvalidInput']);
    const second = await search(token, {
      lastUpdatedAfter: since,
      paginationToken: next,
      maxResultsPerPage: '50',
      includedData: 'FULFILLMENT',
    });
    assert.equal(second.status, 200, JSON.stringify(second.body));
    assert.deepEqual(
      second.body.orders.map((o: { orderId: string; fulfillment: { fulfillmentStatus: string } }) => [
        o.orderId,
        o.fulfillment.fulfillmentStatus,
      ]),
      [[ids[2], 'UNSHIPPED']],
    );
    assert.equal(second.body.pagination, undefined, 'no token after the last page');
    t.clock.advance(24 * 3_600_000 + 1_000);
    // A new access token, since the first one has expired too.
    const expired = await search(await tokenOf(821), { lastUpdatedAfter: since, paginationToken: next });
    assert.equal(expired.status, 400, 'a token lives 24 hours');
  });

  test('exactly one of createdAfter and lastUpdatedAfter; a …Before at least two minutes before the request', async () => {
    const token = await tokenOf(822);
    const now = t.clock.now().getTime();
    const at = (ms: number) => new Date(ms).toISOString();
    assert.equal((await search(token, {})).status, 400);
    assert.equal((await search(token, { createdAfter: at(now - 3_600_000), lastUpdatedAfter: at(now - 3_600_000) })).status, 400);
    assert.equal((await search(token, { lastUpdatedAfter: at(now - 3_600_000), lastUpdatedBefore: at(now - 60_000) })).status, 400);
    const ok = await search(token, { lastUpdatedAfter: at(now - 3_600_000), lastUpdatedBefore: at(now - 180_000) });
    assert.equal(ok.status, 200);
    assert.deepEqual(ok.body.orders, []);
    assert.equal((await search(token, { createdAfter: at(now - 3_600_000), maxResultsPerPage: '101' })).status, 400);
  });

  test("searchOrders' usage plan: 0.0056 a second, burst 20, then 429 in the model's words", async () => {
    setAmazonSellerRateLimit(t.deps.sandbox, 1);
    const token = await tokenOf(823);
    const query = { createdAfter: new Date(t.clock.now().getTime() - 3_600_000).toISOString() };
    for (let i = 0; i < 20; i++) {
      const answer = await search(token, query);
      assert.equal(answer.status, 200);
      assert.equal(answer.headers.get('x-amzn-RateLimit-Limit'), '0.0056');
    }
    const refused = await search(token, query);
    assert.equal(refused.status, 429);
    assert.equal(refused.body.errors[0].message, 'The frequency of requests was greater than allowed.');
    t.clock.advance(179_000);
    assert.equal((await search(token, query)).status, 200, 'one token back after 1 / 0.0056 s');
  });

  test('the buyer and recipient come only with includedData BUYER and RECIPIENT; getOrder answers one order', async () => {
    const token = await tokenOf(824);
    const id = await buy(824, 'B-1');
    const read = async (includedData?: string) =>
      (
        await fetch(`${base}/orders/2026-01-01/orders/${id}${includedData ? `?includedData=${includedData}` : ''}`, {
          headers: { 'x-amz-access-token': token },
        })
      ).json() as Promise<any>;
    const plain = await read();
    assert.equal(plain.order.orderId, id);
    assert.deepEqual(
      plain.order.orderItems.map((i: { quantityOrdered: number; product: { sellerSku: string } }) => [
        i.product.sellerSku,
        i.quantityOrdered,
      ]),
      [['B-1', 1]],
    );
    assert.ok(!JSON.stringify(plain).includes(SANDBOX_AMAZON_BUYER.buyerName));
    assert.ok(!JSON.stringify(await read(ORDER_DATASETS)).includes(SANDBOX_AMAZON_BUYER.buyerName), 'the adapter never asks');
    const withBuyer = await read('BUYER,RECIPIENT');
    assert.equal(withBuyer.order.buyer.buyerName, SANDBOX_AMAZON_BUYER.buyerName);
    assert.equal(withBuyer.order.recipient.deliveryAddress.phone, SANDBOX_AMAZON_BUYER.phone);
    const other = await tokenOf(825);
    const theirs = await fetch(`${base}/orders/2026-01-01/orders/${id}`, { headers: { 'x-amz-access-token': other } });
    assert.equal(theirs.status, 404);
  });
});

describe("the Amazon orders adapter reads the model's statuses and quantities", () => {
  const item = (extra: object = {}) => ({
    orderItemId: '11111111111111',
    quantityOrdered: 3,
    product: { sellerSku: 'S-1', price: { unitPrice: { amount: '12.5', currencyCode: 'USD' } } },
    ...extra,
  });
  const order = (status: string, items = [item()]) =>
    amazonOrder({
      orderId: '111-1111111-1111111',
      createdTime: '2026-01-02T03:04:05Z',
      lastUpdatedTime: '2026-01-02T03:05:05Z',
      salesChannel: { marketplaceId: 'ATVPDKIKX0DER' },
      fulfillment: { fulfillmentStatus: status },
      orderItems: items,
    });

  test('PENDING is pending, UNSHIPPED and PARTIALLY_SHIPPED open, SHIPPED shipped, CANCELLED cancelled', () => {
    assert.deepEqual(
      ['PENDING_AVAILABILITY', 'PENDING', 'UNSHIPPED', 'PARTIALLY_SHIPPED', 'SHIPPED', 'CANCELLED', 'UNFULFILLABLE'].map(amazonOrderStatus),
      ['pending', 'pending', 'open', 'open', 'shipped', 'cancelled', 'open'],
    );
  });

  test('a line is the orderItemId, the sellerSku, the units less a cancelled item’s, and the unit price', () => {
    const read = order('PARTIALLY_SHIPPED', [
      item(),
      item({ orderItemId: '22', cancellation: { cancellationExecution: { cancelledBy: 'BUYER' } }, fulfillment: { quantityFulfilled: 1 } }),
    ]);
    assert.deepEqual(read.lines, [
      { externalId: '11111111111111', sku: 'S-1', quantity: 3, price: '12.50', externalListingId: null },
      { externalId: '22', sku: 'S-1', quantity: 1, price: '12.50', externalListingId: null },
    ]);
    assert.equal(read.total, null, 'no proceeds asked');
    assert.equal(read.currency, 'USD');
    const whole = order('CANCELLED', [item({ cancellation: { cancellationExecution: { cancelledBy: 'MERCHANT' } } })]);
    assert.equal(whole.lines[0]!.quantity, 3, 'an order cancelled in whole keeps its quantities');
  });

  test('it polls every three minutes and never asks for the buyer or the recipient', () => {
    const adapter = createAmazonSellerOrdersAdapter({} as never, { http: {} as never, clock: systemClock });
    assert.equal(adapter.pollEverySeconds, 180);
    assert.ok(180 * 0.0056 >= 1, 'one search each poll is within 0.0056 a second');
    assert.ok(!/BUYER|RECIPIENT/.test(ORDER_DATASETS));
  });
});
