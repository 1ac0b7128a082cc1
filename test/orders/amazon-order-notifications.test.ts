/**
 * Amazon's order notifications (orders.md §3 ORDER_CHANGE, DESIGN §14 "Amazon's order notifications where
 * configured"), end to end against the sandbox over HTTP with every worker running: connecting a seller subscribes it
 * to ORDER_CHANGE on the operator's SQS queue (a destination made once with a grantless token), and a sale on Amazon
 * then reaches the pool and the other channels from the queue, read with getOrder, with no search spent; a cancellation
 * the same way. A notification taken by an instance that died before removing it comes back after its visibility
 * timeout and is counted once. Then the parts without I/O: a message's body read (only this app's ORDER_CHANGE), and
 * the queue's configuration.
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'drizzle-orm';
import { ConfigError, loadConfig } from '../../src/config.js';
import { ORDER_READ_QUEUE, ORDER_SEARCH_QUEUE, ORDERS_READ_QUEUE } from '../../src/core/orders/order-reads.js';
import { createNotificationQueueReaders } from '../../src/core/sites/notification-queues.js';
import { queueUrlOf, readOrderChange, VISIBILITY_SECONDS } from '../../src/platforms/amazon-seller/order-notifications.js';
import {
  createAmazonSellerOrdersAdapter,
  GET_ORDER_PLAN,
  REFILL_MARGIN,
  SEARCH_SPREAD_MS,
  tokenBuckets,
} from '../../src/platforms/amazon-seller/orders.js';
import { PlatformError } from '../../src/platforms/contracts/errors.js';
import type { ListingsCall } from '../../src/platforms/contracts/listings.js';
import type { NotificationQueue } from '../../src/platforms/contracts/notifications.js';
import { setAmazonSellerRateLimit } from '../../src/sandbox/amazon-seller/listings-rate-limits.js';
import { amazonOrdersOf } from '../../src/sandbox/amazon-seller/orders-store.js';
import { SANDBOX_QUEUE_ARN, sandboxQueueUrl } from '../../src/sandbox/amazon-seller/sqs.js';
import { SANDBOX_CLIENTS } from '../../src/sandbox/context.js';
import { sandboxSellerId } from '../../src/sandbox/lwa/simulator.js';
import { amzDate, sqsRequest } from '../helpers/amazon-sandbox.js';
import { createManualClock } from '../helpers/clock.js';
import { connectAmazonSellerSite, connectEtsySite } from '../helpers/connect.js';
import { databaseKinds, selectRows } from '../helpers/database.js';
import { mugProduct } from '../helpers/listings.js';
import { syncOrders } from '../helpers/orders.js';
import { fakeHttp, rejects } from '../helpers/platform-http.js';
import { call, createTestApp, registerUser, type TestApp, within } from '../helpers/test-app.js';

const US = 'ATVPDKIKX0DER';

for (const kind of databaseKinds()) {
  describe(`Amazon's order notifications from the SQS queue [${kind}]`, () => {
    let t: TestApp;
    let base: string;
    before(async () => {
      t = await createTestApp(kind, { listen: true, workers: true });
      base = t.deps.config.appUrl;
    });
    after(() => t.close());
    beforeEach(() => setAmazonSellerRateLimit(t.deps.sandbox, 1_000_000));

    const calls = (operation: string) => t.deps.sandbox.calls.get(`amazon-seller:${operation}`) ?? 0;

    /** A workspace with two Amazon sellers selling on Amazon.com, the mug `<sku>-W` (4) and `<sku>-B` (2) buyable on both. */
    async function listedOnTwo(accounts: [string, string], sku: string) {
      const user = await registerUser(t);
      const as = { token: user.session, workspace: user.workspace.id };
      const sites: number[] = [];
      for (const account of accounts) {
        const site = await connectAmazonSellerSite(t, user, account);
        const settings = await call(t, 'PUT', `/sites/${site}/listing-settings`, { ...as, body: { marketplace_id: US } });
        assert.equal(settings.statusCode, 200, settings.body);
        sites.push(site);
      }
      const productId = await mugProduct(t, { ...user, as, site: sites[0]!, account: accounts[0] }, sku, {
        brand: 'Sandbox Pottery',
        barcodes: ['012345678905', '4006381333931'],
      });
      const ids: number[] = [];
      for (const site of sites) {
        const body = { product_id: productId, category_id: 'KITCHEN', attributes: { material: 'Stoneware' } };
        const published = await call(t, 'POST', `/sites/${site}/listings`, { ...as, body });
        assert.equal(published.statusCode, 202, published.body);
        ids.push(published.json().data.id);
      }
      const states = () => Promise.all(ids.map(async (id) => (await call(t, 'GET', `/listings/${id}`, as)).json().data.status));
      await within(20_000, async () => (await states()).every((state) => state === 'in_review'));
      t.clock.advance(61_000);
      await t.deps.listingWatch.sweep();
      await within(20_000, async () => (await states()).every((state) => state === 'active'), { pollMs: 200 });
      return { as, sites, productId };
    }

    const held = async (account: string, sku: string) => {
      const all = (await (await fetch(`${base}/sandbox/amazon-seller/accounts/${account}/listings`)).json()) as {
        marketplace_id: string;
        skus: { sku: string; quantity: number }[];
      }[];
      return all.find((l) => l.marketplace_id === US && l.skus[0]?.sku === sku)?.skus[0]?.quantity ?? null;
    };
    const buy = async (account: string, sku: string, quantity: number) => {
      const response = await fetch(`${base}/sandbox/amazon-seller/accounts/${account}/orders`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ lines: [{ sku, quantity }] }),
      });
      assert.equal(response.status, 201, await response.clone().text());
      return ((await response.json()) as { id: string }).id;
    };
    const orderOf = async (as: { token: string; workspace: number }, externalId: string) =>
      (await call(t, 'GET', '/orders', as)).json().data.find((o: { external_id: string }) => o.external_id === externalId);
    const pool = async (as: { token: string; workspace: number }, productId: number) =>
      Object.fromEntries(
        (await call(t, 'GET', `/products/${productId}`, as))
          .json()
          .data.variants.map((v: { sku: string; quantity: number }) => [v.sku, v.quantity]),
      );

    test('connecting subscribes the seller; a sale and its cancellation reach the pool and the other seller from the queue, with no search', async () => {
      const subscriptions = calls('createSubscription');
      const me = await listedOnTwo(['841', '842'], 'NTF');
      assert.equal(
        calls('createSubscription') - subscriptions,
        2,
        'each seller subscribed to ORDER_CHANGE when its orders were first read',
      );

      const searches = calls('searchOrders');
      const id = await buy('841', 'NTF-W', 3);
      await within(15_000, async () => Boolean(await orderOf(me.as, id)));
      const order = await orderOf(me.as, id);
      assert.deepEqual([order.status, order.platform_status, order.lines[0].stock_taken], ['open', 'UNSHIPPED', 3]);
      assert.match(order.lines[0].price, /^[0-9]+\.[0-9]{2}$/, 'read whole with getOrder: the notification has no price');
      assert.deepEqual(await pool(me.as, me.productId), { 'NTF-W': 1, 'NTF-B': 2 });
      await within(10_000, async () => (await held('842', 'NTF-W')) === 1);

      assert.equal((await fetch(`${base}/sandbox/amazon-seller/accounts/841/orders/${id}/cancel`, { method: 'POST' })).status, 204);
      await within(15_000, async () => (await orderOf(me.as, id)).status === 'cancelled');
      assert.deepEqual(await pool(me.as, me.productId), { 'NTF-W': 4, 'NTF-B': 2 });
      await within(10_000, async () => (await held('842', 'NTF-W')) === 4);
      assert.equal(calls('searchOrders'), searches, 'no poll read them: the notifications named the order');
    });

    test('a notification taken by an instance that died before removing it comes back, and the sale is counted once', async () => {
      const subscriptions = calls('createSubscription');
      const me = await listedOnTwo(['843', '844'], 'DIE');
      await within(10_000, async () => calls('createSubscription') - subscriptions === 2);
      await t.deps.notificationQueues.stop();
      try {
        const id = await buy('843', 'DIE-B', 1);
        // Another instance takes the message and dies before acting on it or removing it. (If this instance's own long
        // poll, cut short by the stop, took it first, that poll is the instance that died: the same follows.)
        const queue = SANDBOX_CLIENTS.amazonSqs;
        const taken = await sqsRequest(
          t.deps.sandbox.sandboxUrl,
          'ReceiveMessage',
          {
            QueueUrl: `${t.deps.sandbox.sandboxUrl}/amazon-seller/sqs/${queue.accountId}/${queue.queueName}`,
            MaxNumberOfMessages: 10,
            WaitTimeSeconds: 1,
          },
          { amzDate: amzDate(t.clock.now()) },
        );
        assert.equal(taken.status, 200, await taken.clone().text());
        assert.equal(await t.deps.notificationQueues.drain(), 0, 'hidden while the instance that took it holds it');
        assert.equal(await orderOf(me.as, id), undefined);

        // Its visibility timeout passes (Storelink's own receive asks for VISIBILITY_SECONDS; the test's, the queue's 30 s).
        t.clock.advance((VISIBILITY_SECONDS + 1) * 1000);
        assert.equal(await t.deps.notificationQueues.drain(), 1, 'delivered again once its visibility timeout passed');
        await within(15_000, async () => Boolean(await orderOf(me.as, id)));
        assert.equal(await t.deps.notificationQueues.drain(), 0, 'removed once acted on');
        assert.deepEqual(await pool(me.as, me.productId), { 'DIE-W': 4, 'DIE-B': 1 });
        const lines = (await orderOf(me.as, id)).lines as { stock_taken: number }[];
        assert.deepEqual(
          lines.map((line) => line.stock_taken),
          [1],
        );
      } finally {
        t.deps.notificationQueues.start();
      }
    });

    /**
     * A seller connected and subscribed, read within Amazon's own usage plans (getOrder 0.5 a second, burst 30;
     * searchOrders burst 20).
     */
    async function sellerOnItsPlans(account: string) {
      const user = await registerUser(t);
      const as = { token: user.session, workspace: user.workspace.id };
      const subscriptions = calls('createSubscription');
      const site = await connectAmazonSellerSite(t, user, account);
      await within(10_000, async () => calls('createSubscription') - subscriptions === 1);
      setAmazonSellerRateLimit(t.deps.sandbox, 1);
      return { as, site };
    }

    /**
     * Sales placed while no instance reads the queue, so their notifications are taken together, `apartMs` apart by
     * Amazon's clock; `then` sees their ids before the queue is read again.
     */
    async function burst(account: string, prefix: string, count: number, apartMs = 0, then?: (ids: string[]) => void) {
      await t.deps.notificationQueues.stop();
      try {
        const ids: string[] = [];
        for (let i = 0; i < count; i++) {
          ids.push(await buy(account, `${prefix}-${i}`, 1));
          t.clock.advance(apartMs);
        }
        then?.(ids);
      } finally {
        t.deps.notificationQueues.start();
      }
    }

    test("a burst of 40 sales on one seller is read within getOrder's plan: what its burst cannot cover, by a search; no 429", async () => {
      const { as, site } = await sellerOnItsPlans('845');
      const throttled = calls('throttled');
      const gets = calls('getOrder');
      await burst('845', 'BURST', 40);
      await within(20_000, async () => (await call(t, 'GET', `/orders?site_id=${site}`, as)).json().meta.total === 40);
      assert.equal(calls('throttled'), throttled, 'no 429');
      assert.ok(calls('getOrder') - gets <= 30, `getOrder within its burst (${calls('getOrder') - gets})`);
    });

    test('a burst read by a search is asked for from the newest order the last search returned; orders dated before it, by the whole read', async () => {
      const { as, site } = await sellerOnItsPlans('846');
      const throttled = calls('throttled');
      const total = async () => (await call(t, 'GET', `/orders?site_id=${site}&per_page=1`, as)).json().meta.total;
      const readsWaiting = async () =>
        (
          await selectRows<{ n: number }>(
            t.database,
            sql`select count(*)::int as n from pgboss.job where name in (${ORDERS_READ_QUEUE}, ${ORDER_READ_QUEUE}, ${ORDER_SEARCH_QUEUE}) and state in ('created', 'retry', 'active')`,
          )
        )[0]!.n;
      // 250 sales over two minutes: past getOrder's burst of 30, read by the seller's changed orders, 100 a page. The
      // notifications taken after a search recorded their orders spend no other.
      const first = calls('searchOrders');
      await burst('846', 'EARLY', 250, 500);
      await within(30_000, async () => (await total()) === 250 && (await readsWaiting()) === 0);
      const searches = calls('searchOrders');
      assert.ok(searches - first <= 4, `three pages, and a page more at most (${searches - first} searches)`);
      // 40 more, past what getOrder has left: some are read by a search. Two minutes back from the last read it would
      // page through 240 of the first burst again (three searches); from the newest order it returned, one page holds
      // them all.
      await burst('846', 'LATE', 40);
      await within(20_000, async () => (await total()) === 290);
      const spent = calls('searchOrders') - searches;
      assert.ok(spent >= 1 && spent < 3, `one page a search (${spent} searches)`);

      // Sales Amazon dates before the newest order that search returned (as when its index is behind its notifications):
      // a search from there does not find them, and the seller's whole read, two minutes back, does.
      await within(10_000, async () => (await readsWaiting()) === 0);
      const dated = t.clock.now().getTime() - 10_000;
      await burst('846', 'LAGGING', 40, 0, (ids) => {
        for (const id of ids) Object.assign(amazonOrdersOf(t.deps.sandbox).get(id)!, { createdAt: dated, updatedAt: dated });
      });
      await within(20_000, async () => (await total()) === 330);
      assert.equal(calls('throttled'), throttled, 'no 429');
    });

    test("a search for notified orders that is slow holds no other platform's: an Etsy sale notified meanwhile is recorded before it ends", async () => {
      const { as, site } = await sellerOnItsPlans('848');
      // An Etsy shop of another seller, read once: its sale below reaches Storelink by its notification alone.
      const shopper = await registerUser(t);
      const shop = { token: shopper.session, workspace: shopper.workspace.id };
      const etsy = await connectEtsySite(t, shopper, '848');
      await syncOrders(t, shop, etsy);
      const recorded = async (ids: readonly string[]) => {
        const listed = (await call(t, 'GET', `/orders?site_id=${site}&per_page=100`, as)).json().data as { external_id: string }[];
        return ids.filter((id) => listed.some((order) => order.external_id === id)).length;
      };
      // The sales one by one, the queue read throughout as a seller's sales come (the reader is not stopped around
      // them, as `burst` does). `seen` is called after each.
      const sales = async (prefix: string, count: number, seen = () => {}) => {
        const ids: string[] = [];
        for (let i = 0; i < count; i++) {
          ids.push(await buy('848', `${prefix}-${i}`, 1));
          seen();
        }
        return ids;
      };
      // A first sale, then the seller's whole read, which returns it: notified orders are searched for from there.
      const first = await sales('FIRST', 1);
      await within(20_000, async () => (await recorded(first)) === 1, { what: 'the first sale recorded' });
      await syncOrders(t, as, site);
      // Most of getOrder's burst of 30 spent: what is notified next is read by a search once the rest is.
      const spent = await sales('SPENT', 30);
      await within(30_000, async () => (await recorded(spent)) === 30, { what: '30 sales read by getOrder' });
      // Amazon's searchOrders answers 9 s late from here (within the platform calls' 10 s deadline). Thirty more sales:
      // a search for the first of them that getOrder does not cover, and the rest wait for the one after it. Were
      // their batches held until the search answered, no worker would take the Etsy sale's until then.
      const searches = calls('searchOrders');
      const lateMs = 9_000;
      let asked = 0;
      const askedYet = () => {
        if (!asked && calls('searchOrders') > searches) asked = Date.now();
      };
      t.deps.sandbox.faults.set('amazon-seller', 'listings', 'slow', { delayMs: lateMs });
      try {
        const waiting = await sales('WAVE', 30, askedYet);
        await within(30_000, async () => (askedYet(), asked > 0), { what: 'a search asked' });
        const notified = async (states: readonly string[]) =>
          (
            await selectRows<{ n: number }>(
              t.database,
              sql`select count(*)::int as n from pgboss.job
                where name = ${ORDER_READ_QUEUE} and data->>'accountId' = ${sandboxSellerId(848)} and state in ${states}`,
            )
          )[0]!.n;
        const all = ['created', 'retry', 'active', 'completed', 'failed'];
        await within(lateMs, async () => (await notified(all)) >= 61 && (await notified(['created', 'retry'])) === 0, {
          what: 'every notified sale taken by a worker',
        });

        const sale = await fetch(`${base}/sandbox/etsy/accounts/848/orders`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ lines: [{ sku: 'ELSEWHERE', quantity: 1 }] }),
        });
        assert.equal(sale.status, 201, await sale.clone().text());
        await within(lateMs, async () => (await call(t, 'GET', `/orders?site_id=${etsy}`, shop)).json().meta.total === 1, {
          what: 'the Etsy sale recorded',
        });
        const after = Date.now() - asked;
        assert.ok(after < lateMs, `recorded ${after} ms after the search was asked, before its answer (${lateMs} ms)`);
        t.deps.sandbox.faults.set('amazon-seller', 'listings', null);
        await within(30_000, async () => (await recorded(waiting)) === 30, { what: 'the 30 sales recorded' });
      } finally {
        t.deps.sandbox.faults.set('amazon-seller', 'listings', null);
      }
    });
  });
}

describe("a queue that refuses this server's key, on GET /health", () => {
  test('the instance reads degraded, saying so, while Amazon keeps its configuration', async () => {
    const seller = SANDBOX_CLIENTS.amazonSeller;
    const t = await createTestApp('pglite', {
      listen: true,
      workers: true,
      env: (appUrl) => {
        const sandbox = `${appUrl}/sandbox/amazon-seller`;
        return {
          AMAZON_SP_APP_ID: seller.appId,
          AMAZON_LWA_CLIENT_ID: seller.lwaClientId,
          AMAZON_LWA_CLIENT_SECRET: seller.lwaClientSecret,
          AMAZON_LWA_TOKEN_URL: `${sandbox}/auth/o2/token`,
          AMAZON_SP_API_URL: sandbox,
          AMAZON_SELLER_CENTRAL_URL: sandbox,
          AMAZON_ORDER_QUEUE_ARN: SANDBOX_QUEUE_ARN,
          AMAZON_ORDER_QUEUE_URL: sandboxQueueUrl(`${appUrl}/sandbox`),
          AMAZON_ORDER_QUEUE_ACCESS_KEY_ID: SANDBOX_CLIENTS.amazonSqs.accessKeyId,
          AMAZON_ORDER_QUEUE_SECRET_ACCESS_KEY: 'not-the-queue-key',
        };
      },
    });
    try {
      const health = async () => (await call(t, 'GET', '/health')).json().data;
      // The first receive may meet the server before it listens; the next, 5 s on, meets SQS's refusal.
      await within(15_000, async () => (await health()).status === 'degraded', { pollMs: 200 });
      const { platforms } = await health();
      assert.equal(platforms.length, 1);
      assert.equal(platforms[0].platform, 'amazon-seller');
      assert.match(platforms[0].message, /order notification queue refused this server: Amazon SQS refused .*HTTP 403.*signature/);
      assert.ok(!JSON.stringify(platforms).includes('not-the-queue-key'), 'the key is never shown');
    } finally {
      await t.close();
    }
  });

  test('the refusal shows until a receive succeeds again', async () => {
    let receives = 0;
    const queue: NotificationQueue = {
      platform: 'amazon-seller',
      receiveMax: 10,
      async receive() {
        receives += 1;
        if (receives <= 2) throw new PlatformError('misconfigured', 'Amazon SQS refused the key');
        await new Promise((resolve) => setTimeout(resolve, 20));
        return [];
      },
      remove: async () => undefined,
    };
    const clock = createManualClock(new Date('2026-12-04T18:00:00Z'));
    const readers = createNotificationQueueReaders({
      clock,
      queues: { 'amazon-seller': queue },
      notifications: { queued: async () => 'acted' },
      onError: () => undefined,
      backOffMs: 50,
    });
    readers.start();
    try {
      await within(5_000, async () => readers.problems().length === 1);
      const [problem] = readers.problems();
      assert.deepEqual([problem!.track, problem!.since.toISOString()], ['amazon-seller', '2026-12-04T18:00:00.000Z']);
      await within(5_000, async () => receives >= 3 && readers.problems().length === 0);
    } finally {
      await readers.stop();
    }
  });
});

describe("a queue's backlog", () => {
  /**
   * A queue of `count` messages, each naming an order, read until every one is removed. Each receive is told to
   * `begun` (with the messages waiting then), waits 10 ms, fails where `fails` says so (as a connection reset does), and
   * takes up to `take(n)` of them (n: the receive's count from 1). Quiet, a long poll waits its time, or until the
   * readers stop; one begun after the stop ends at once, as a fetch given an aborted signal does (a listener added then
   * would never be called: the suite hung on it). Answers the orders acted on, the handles removed, the receives made
   * and the most at once.
   */
  async function readAll(
    count: number,
    receive: {
      take?: (n: number) => number;
      fails?: (n: number) => boolean;
      begun?: (waitSeconds: number, n: number, waiting: number) => void;
    },
  ) {
    const waiting = Array.from({ length: count }, (_, i) => `order-${i}`);
    const removed: string[] = [];
    const acted: string[] = [];
    let receives = 0;
    let inFlight = 0;
    let mostInFlight = 0;
    const queue: NotificationQueue = {
      platform: 'amazon-seller',
      receiveMax: 10,
      async receive(waitSeconds, signal) {
        const n = ++receives;
        receive.begun?.(waitSeconds, n, waiting.length);
        inFlight += 1;
        mostInFlight = Math.max(mostInFlight, inFlight);
        try {
          await new Promise((resolve) => setTimeout(resolve, 10));
          if (receive.fails?.(n)) throw new PlatformError('unavailable', 'Amazon SQS reset the connection');
          const taken = waiting.splice(0, receive.take?.(n) ?? 10);
          if (taken.length === 0 && waitSeconds > 0) await sleep(waitSeconds * 1000, undefined, { signal }).catch(() => undefined);
          return taken.map((id) => ({
            handle: `handle-${id}`,
            notification: { kind: 'order_changed', accountId: 'A1', externalOrderId: id } as const,
          }));
        } finally {
          inFlight -= 1;
        }
      },
      remove: async (handles) => void removed.push(...handles),
    };
    const readers = createNotificationQueueReaders({
      clock: createManualClock(new Date('2026-12-04T18:00:00Z')),
      queues: { 'amazon-seller': queue },
      notifications: {
        queued: async (_platform, notification) => {
          acted.push(notification.kind === 'order_changed' ? notification.externalOrderId : '?');
          return 'acted';
        },
      },
      onError: () => undefined,
      backOffMs: 20,
    });
    readers.start();
    try {
      await within(5_000, async () => removed.length === count);
    } finally {
      await readers.stop();
    }
    return { acted, removed, receives, mostInFlight };
  }

  for (const failing of [false, true])
    test(`a full receive is followed by several at once until the queue is empty; each message is acted on and removed once${failing ? ', a receive failing among them' : ''}`, async () => {
      // The third receive, one of the backlog's, meets a connection reset: the loop backs off and goes on.
      const { acted, removed, mostInFlight } = await readAll(95, { fails: (n) => failing && n === 3 });
      assert.equal(new Set(acted).size, 95);
      assert.equal(acted.length, 95, 'each acted on once');
      assert.deepEqual([...removed].sort(), Array.from({ length: 95 }, (_, i) => `handle-order-${i}`).sort());
      assert.ok(mostInFlight > 1, `receives at once: ${mostInFlight}`);
      assert.ok(mostInFlight <= 4, `receives at once: ${mostInFlight}`);
    });

  test('receives that come back short of full keep the backlog going until the queue is empty: none is left to one receiver', async () => {
    /**
     * Long polls begun while messages were waiting, after the first (the quiet queue's): each is a backlog that ended
     * with the queue not empty, its messages left to one receive at a time until one comes back full again.
     */
    let pollsWithMessages = 0;
    const { removed, receives } = await readAll(120, {
      begun(waitSeconds, n, waiting) {
        if (n > 1 && waitSeconds > 0 && waiting > 0) pollsWithMessages += 1;
      },
      // A burst's messages keep coming while the backlog's receives are acted on, so some come back short of full:
      // here every other receive takes 6 of the 10 it may, as when another receive took the rest a moment before.
      take: (n) => (n % 2 === 0 ? 6 : 10),
    });
    assert.equal(removed.length, 120);
    assert.equal(pollsWithMessages, 0, `long polls made while messages waited: ${pollsWithMessages} of ${receives} receives`);
  });
});

describe('an ORDER_CHANGE message read, and the queue configured', () => {
  const appId = 'amzn1.sellerapps.app.storelink';
  const message = (over: { type?: string; app?: string } = {}) =>
    JSON.stringify({
      NotificationVersion: '1.0',
      NotificationType: over.type ?? 'ORDER_CHANGE',
      PayloadVersion: '1.0',
      EventTime: '2026-12-04T17:00:00.000Z',
      Payload: {
        OrderChangeNotification: {
          NotificationLevel: 'OrderLevel',
          SellerId: 'A3SELLER',
          AmazonOrderId: '111-2223334-5556667',
          OrderChangeType: 'OrderStatusChange',
          Summary: { OrderStatus: 'Unshipped', OrderItems: [{ OrderItemId: '12345678901234', SellerSKU: 'MUG-W', Quantity: 1 }] },
        },
      },
      NotificationMetadata: {
        ApplicationId: over.app ?? appId,
        SubscriptionId: 's',
        PublishTime: '2026-12-04T17:00:00.000Z',
        NotificationId: 'n',
      },
    });

  test("only this app's ORDER_CHANGE is an order changed; its summary is not read", () => {
    assert.deepEqual(readOrderChange(message(), appId), {
      kind: 'order_changed',
      accountId: 'A3SELLER',
      externalOrderId: '111-2223334-5556667',
    });
    assert.equal(readOrderChange(message({ app: 'amzn1.sellerapps.app.other' }), appId), null);
    assert.equal(readOrderChange(message({ type: 'ANY_OFFER_CHANGED' }), appId), null);
    assert.equal(readOrderChange('not json', appId), null);
    assert.equal(readOrderChange('{"NotificationType":"ORDER_CHANGE"}', appId), null);
  });

  const seller = { AMAZON_SP_APP_ID: 'amzn1.sellerapps.app.x', AMAZON_LWA_CLIENT_ID: 'c', AMAZON_LWA_CLIENT_SECRET: 's' };
  const queue = {
    AMAZON_ORDER_QUEUE_ARN: 'arn:aws:sqs:eu-west-1:123456789012:storelink-orders',
    AMAZON_ORDER_QUEUE_ACCESS_KEY_ID: 'AKIAEXAMPLE',
    AMAZON_ORDER_QUEUE_SECRET_ACCESS_KEY: 'secret',
  };
  const problemsOf = (env: Record<string, string>) => {
    try {
      loadConfig(env);
      return [];
    } catch (error) {
      assert.ok(error instanceof ConfigError);
      return error.problems;
    }
  };

  test("the queue's URL and region follow its ARN; without a queue, orders are polled only", () => {
    const configured = loadConfig({ ...seller, ...queue }).platforms.amazonSeller!.orderQueue!;
    assert.deepEqual(
      [configured.url, configured.region],
      ['https://sqs.eu-west-1.amazonaws.com/123456789012/storelink-orders', 'eu-west-1'],
    );
    assert.equal(queueUrlOf('arn:aws:sqs:us-east-1:000000000000:q'), 'https://sqs.us-east-1.amazonaws.com/000000000000/q');
    assert.equal(loadConfig(seller).platforms.amazonSeller!.orderQueue, null);
    assert.equal(problemsOf({ ...seller, ...queue, AMAZON_ORDER_QUEUE_URL: 'https://queue.example/1/q' }).length, 0);
  });

  test("getOrder's plan is counted per seller: 30 at once, then one every two seconds", () => {
    const buckets = tokenBuckets(GET_ORDER_PLAN);
    assert.deepEqual(GET_ORDER_PLAN, { rate: 0.5, burst: 30 }, 'orders.md §3');
    assert.equal(buckets.waitMs('C:NA', 31, 0), 0, 'a full bucket: the burst at once');
    assert.equal(buckets.take('C:NA', 30, 0), true);
    assert.equal(buckets.available('C:NA', 0), 0);
    assert.equal(buckets.waitMs('C:NA', 1, 0), 2_000, 'from empty, one in two seconds');
    assert.equal(buckets.take('A:NA', 30, 0), true);
    assert.equal(buckets.take('A:NA', 1, 0), false);
    assert.equal(buckets.take('B:NA', 30, 0), true, 'another seller has its own');
    assert.equal(buckets.take('A:NA', 1, 1_999), false);
    assert.equal(buckets.take('A:NA', 1, 2_000), true);
    assert.equal(buckets.take('A:NA', 31, 10_000_000), false, 'never more than the burst');
    assert.equal(buckets.take('A:NA', 30, 10_000_000), true);
  });

  test("notified orders beyond getOrder's burst: a search while its burst has room, spaced by what is left, else some now and the rest as getOrder refills", async () => {
    const clock = createManualClock(new Date(0));
    const searches = Array.from({ length: 21 }, () => ({ status: 200, body: { orders: [] }, headers: new Headers() }));
    const http = fakeHttp(...searches);
    const adapter = createAmazonSellerOrdersAdapter(loadConfig(seller).platforms.amazonSeller!, { http: http.http, clock });
    const call: ListingsCall = {
      externalId: 'A3SELLER',
      data: { marketplace_ids: ['ATVPDKIKX0DER'] },
      settings: {},
      accessToken: 'Atza|x',
    };
    assert.deepEqual(adapter.planNotifiedRead!(call, 25), { changed: false, each: 25, waitMs: 0 });
    assert.deepEqual(adapter.planNotifiedRead!(call, 10), { changed: true, inMs: 0 }, 'five getOrder left: the search reads the ten');
    await adapter.changed(call, new Date(0), null);
    assert.deepEqual(
      adapter.planNotifiedRead!(call, 10),
      { changed: true, inMs: Math.ceil(SEARCH_SPREAD_MS / 19) },
      'the next search spaced from the last by the spread over the 19 searches left',
    );
    for (let i = 1; i < 18; i++) await adapter.changed(call, new Date(0), null);
    assert.deepEqual(adapter.planNotifiedRead!(call, 10), { changed: true, inMs: SEARCH_SPREAD_MS / 2 }, 'two left: a second apart');
    for (let i = 18; i < 20; i++) await adapter.changed(call, new Date(0), null);
    const refused = await adapter.changed(call, new Date(0), null).then(
      () => null,
      (error: unknown) => error,
    );
    assert.ok(rejects('unavailable', /usage plan has no room/)(refused));
    assert.equal((refused as PlatformError).retryAfterMs, Math.ceil(1000 / (0.0056 * REFILL_MARGIN)), 'a 21st search waits for the plan');
    assert.equal(http.sent.length, 20, 'and is not sent');
    // Five more at 0.5 a second, counted a tenth slower: 11.1 s.
    const fiveMore = Math.ceil((5 / (0.5 * REFILL_MARGIN)) * 1000);
    assert.deepEqual(adapter.planNotifiedRead!(call, 10), { changed: false, each: 5, waitMs: fiveMore }, 'five now, five in 11 s');
    clock.advance(fiveMore);
    assert.deepEqual(adapter.planNotifiedRead!(call, 5), { changed: false, each: 5, waitMs: 0 });
    const other = { ...call, externalId: 'A3OTHER' };
    assert.deepEqual(adapter.planNotifiedRead!(other, 30), { changed: false, each: 30, waitMs: 0 }, "another seller's plan is its own");
    assert.deepEqual(adapter.planNotifiedRead!(other, 5), { changed: true, inMs: 0 }, 'its searches too');
    await adapter.changed(other, new Date(0), null);
    clock.advance(40);
    assert.deepEqual(
      adapter.planNotifiedRead!(other, 5),
      { changed: true, inMs: Math.ceil(SEARCH_SPREAD_MS / 19) - 40 },
      'the spacing counted from its last search',
    );
  });

  test('a queue that is not an SQS ARN, half a key, or a queue without the seller app stops the start with a reason', () => {
    assert.match(
      problemsOf({ ...seller, ...queue, AMAZON_ORDER_QUEUE_ARN: 'arn:aws:sns:us-east-1:123456789012:t' }).join(),
      /SQS queue ARN/,
    );
    assert.match(problemsOf({ ...seller, AMAZON_ORDER_QUEUE_ARN: queue.AMAZON_ORDER_QUEUE_ARN }).join(), /must be set together/);
    assert.match(problemsOf(queue).join(), /need the Amazon seller app/);
  });
});
