/**
 * Orders and one stock pool (DESIGN §14) in real headless Chromium: a signed-up seller connects two sandbox Etsy shops,
 * publishes the listing tests' mug to both (through the API: test/browser/listings.test.ts drives the publish dialog),
 * simulates a sale from the Orders page and sees the order arrive with its line and the stock it took, refused when
 * the shop has too few units, the stock movement on the product's page linked to the order, the filters, and, after
 * both shops sell the last units at once (through the sandbox, as test/orders/etsy-orders.test.ts does), the oversold
 * alert on the dashboard and the Orders page. Every state is saved as test-results/screenshots/orders-*.png. Any
 * console error fails the run, but for the browser's own log line of the 409 the test provokes on purpose.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { allowConsent, apiCaller, type BrowserSession, openBrowser, signUp } from '../helpers/browser.js';
import { dashboardDatabaseKinds } from '../helpers/database.js';
import { mug, PNG_640X480 } from '../helpers/fixtures.js';
import { within } from '../helpers/test-app.js';
import { visit } from './dashboard-pages.js';

/** Sandbox accounts of their own, so the shops hold only this test's listings. */
const ACCOUNTS = ['611', '612'] as const;
const SKU = 'SALE';
/** Chromium logs every 4xx answer of a fetch as a console error; the 409 of a sale beyond the stock is one the test asks for. */
const TOO_FEW = /Failed to load resource: the server responded with a status of 409/;
/** A listing's publishing, or an order's arrival by ORDER_PAID and its stock: seconds; the pages poll every few. */
const ARRIVES_MS = 30_000;

interface ApiOrder {
  id: number;
  external_id: string;
  site_id: number;
  external_url: string | null;
  lines: { sku: string; stock_taken: number; issues: { code: string }[] }[];
}

for (const kind of dashboardDatabaseKinds()) {
  describe(`orders in a browser [${kind}]`, () => {
    let baseUrl: string;
    let page: Page;
    const user = { name: 'Orders Seller', email: `orders-${Date.now()}@example.com`, password: 'correct horse battery' };
    let workspaceId = '';
    let token = '';
    let productId = 0;
    const sites: number[] = [];

    let session: BrowserSession;
    before(async () => {
      session = await openBrowser(kind);
      ({ baseUrl, page } = session);
      // Orders arrive on the app's own job workers (ORDER_PAID, then the stock), as in production.
      await session.t.deps.startWorkers();
      // The sandbox's per-second budget is timed by the test's clock, which stands still here: rate limits have tests of their own.
      Object.assign(session.t.deps.sandbox.etsyLimits, { perSecond: 1_000_000, perDay: 1_000_000_000 });
    });

    after(() => session?.close());

    const apiCall = apiCaller(
      () => baseUrl,
      () => ({ token, workspaceId }),
    );
    async function json<T>(method: string, path: string, body?: unknown, status = 200): Promise<T> {
      const response = await apiCall(method, path, body);
      assert.equal(response.status, status, `${method} ${path}: ${await response.clone().text()}`);
      return ((await response.json()) as { data: T }).data;
    }
    const ordersUrl = () => `${baseUrl}/workspace/${workspaceId}/orders`;
    const allOrders = () => json<ApiOrder[]>('GET', '/orders?page=1&per_page=100');
    const orderRow = (externalId: string) =>
      page.getByRole('row').filter({ has: page.getByRole('link', { name: `Order ${externalId}, in Storelink` }) });

    /** Connects the sandbox Etsy shop of `account` through its consent page; the new site's id. */
    async function connectShop(account: string): Promise<number> {
      const authorization = await json<{ url: string }>('POST', '/authenticate-site', { platform_id: 1 });
      await page.goto(authorization.url);
      await page.getByText('Sandbox.').waitFor();
      await page.getByLabel('Sandbox account number').fill(account);
      await allowConsent(page);
      await page.getByRole('heading', { name: 'Listing settings' }).waitFor();
      return Number(/\/site\/(\d+)\/listings$/.exec(page.url())![1]);
    }

    /** The site's listing settings from the shop's own first choices, then the mug published there and active. */
    async function publishTo(site: number) {
      const choices = await json<Record<string, { value: unknown }[]>>('GET', `/sites/${site}/listing-options`);
      const first = (field: string) => choices[field]![0]!.value;
      const settings = {
        shipping_profile_id: first('shipping_profile_id'),
        return_policy_id: first('return_policy_id'),
        readiness_state_id: first('readiness_state_id'),
        who_made: 'i_did',
        when_made: 'made_to_order',
      };
      await json('PUT', `/sites/${site}/listing-settings`, settings);
      const categories = await json<{ id: string; leaf: boolean }[]>('GET', `/sites/${site}/categories?q=mug`);
      const leaf = categories.find((c) => c.leaf)!;
      const attributes = await json<{ name: string; required: boolean; type: string; values: { value: string }[] }[]>(
        'GET',
        `/sites/${site}/categories/${leaf.id}/attributes`,
      );
      const given = Object.fromEntries(
        attributes
          .filter((a) => a.required)
          .map((a) => [a.name, a.type === 'multiselect' ? [a.values[0]!.value] : (a.values[0]?.value ?? 'text')]),
      );
      const listing = await json<{ id: number }>(
        'POST',
        `/sites/${site}/listings`,
        { product_id: productId, category_id: leaf.id, attributes: given },
        202,
      );
      await within(ARRIVES_MS, async () => (await json<{ status: string }>('GET', `/listings/${listing.id}`)).status === 'active');
    }

    test('a seller connects two sandbox Etsy shops and publishes a mug to both', async () => {
      ({ workspaceId, token } = await signUp(page, baseUrl, user));
      const created = await json<{ id: number }>('POST', '/products', mug(SKU, { colours: true }), 201);
      productId = created.id;
      const form = new FormData();
      form.set('file', new Blob([PNG_640X480], { type: 'image/png' }), 'mug.png');
      const uploaded = await apiCall('POST', `/products/${productId}/images`, form);
      assert.equal(uploaded.status, 201, await uploaded.text());
      for (const account of ACCOUNTS) sites.push(await connectShop(account));
      for (const site of sites) await publishTo(site);
      session.noConsoleErrors();
    });

    test('the Orders page is in the navigation and says when there are no orders yet', async () => {
      await page.goto(`${baseUrl}/workspace/${workspaceId}/dashboard`);
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Orders' }).click();
      await page.waitForURL(ordersUrl());
      await page.getByRole('heading', { level: 1, name: 'Orders' }).waitFor();
      await page.getByText('No orders yet.').waitFor();
      const readButtons = page.getByRole('button', { name: /^Read orders now from / });
      assert.equal(await readButtons.count(), 2);
      await readButtons.first().click();
      await page
        .getByRole('status')
        .filter({ hasText: /orders now: new ones appear in the list within seconds/ })
        .waitFor();
      await page.getByRole('heading', { name: /Simulate a sale/ }).waitFor();
      await session.shot('orders-empty');
      await session.noAxeViolations('orders-empty');
      session.noConsoleErrors();
    });

    test('a simulated sale appears within seconds with its line, its statuses and the stock it took', async () => {
      const form = page.getByRole('region', { name: /Simulate a sale/ });
      await form.getByLabel('Site').selectOption(String(sites[0]));
      await form.getByLabel('SKU').fill(`${SKU}-W`);
      await form.getByLabel('Quantity').fill('1');
      await form.getByRole('button', { name: 'Place the sale' }).click();
      const placed = form.getByRole('status').filter({ hasText: `A buyer ordered 1 × ${SKU}-W` });
      await placed.waitFor();
      const receipt = /Etsy order (\d+)\./.exec((await placed.textContent()) ?? '')![1]!;

      const row = orderRow(receipt);
      await row.waitFor({ timeout: ARRIVES_MS });
      await row.getByText('Open', { exact: true }).waitFor();
      await row.getByText('Etsy: Paid').waitFor();
      await row.getByText(`1 × ${SKU}-W at $18.00`).waitFor();
      await row.getByText('took 1 from stock').waitFor();
      // Etsy's receipts carry no address of the order (its `external_url` is null): no link is offered to a page that is not there.
      const [order] = await allOrders();
      assert.equal(order?.external_url, null);
      assert.equal(await row.getByRole('link', { name: /on Etsy/ }).count(), 0);
      await page.getByRole('status').filter({ hasText: '1 order.' }).waitFor();
      assert.equal(await page.getByRole('alert').count(), 0, 'no oversold alert yet');
      await session.shot('orders-sale');
      await session.noAxeViolations('orders-sale');
      session.noConsoleErrors();
    });

    test('a sale beyond what the shop holds is refused with the 409 said in words, and nothing is ordered', async () => {
      const form = page.getByRole('region', { name: /Simulate a sale/ });
      await form.getByLabel('Quantity').fill('99');
      await form.getByRole('button', { name: 'Place the sale' }).click();
      await form
        .getByRole('alert')
        .filter({ hasText: `has too few units of ${SKU}-W on Etsy for 99` })
        .waitFor();
      await session.shot('orders-too-few');
      await session.noAxeViolations('orders-too-few');
      assert.equal((await allOrders()).length, 1);
      session.noConsoleErrors([TOO_FEW]);
    });

    test("the product's page shows the sale among its stock movements, linked to the order", async () => {
      const [order] = await allOrders();
      await orderRow(order!.external_id)
        .getByRole('link', { name: `${SKU}-W` })
        .click();
      await page.waitForURL(`${baseUrl}/workspace/${workspaceId}/products/${productId}`);
      const movements = page.getByRole('region', { name: 'Stock movements' });
      const sold = movements.getByRole('row').filter({ hasText: 'Sold' });
      await sold.waitFor();
      // Newest first: the sale above the product's creation.
      assert.match((await movements.getByRole('row').nth(1).textContent()) ?? '', /Sold/);
      await sold.getByText('−1').waitFor();
      assert.equal((await sold.getByRole('cell').nth(3).textContent())?.trim(), '3');
      await session.shot('orders-stock-movements');
      await session.noAxeViolations('orders-stock-movements');
      await sold.getByRole('link', { name: `Order ${order!.external_id}` }).click();
      await page.waitForURL(`${baseUrl}/workspace/${workspaceId}/orders/${order!.id}`);
      await page.getByRole('heading', { level: 1, name: `Order ${order!.external_id}` }).waitFor();
      await page.getByText(`1 × ${SKU}-W at $18.00`).waitFor();
      await session.noAxeViolations('orders-one-order');
      session.noConsoleErrors();
    });

    test('the last units sold on both shops at once reach the open Orders page without a reload, and raise an oversold alert on the dashboard and the Orders page', async () => {
      // The Orders page stays open while the shops sell (outside it): the live stream brings the orders to it.
      await page.goto(ordersUrl());
      await page.getByRole('status').filter({ hasText: '1 order.' }).waitFor();
      const opened = await page.evaluate(() => performance.timeOrigin);
      const buy = (account: string) =>
        fetch(`${baseUrl}/sandbox/etsy/accounts/${account}/orders`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ lines: [{ sku: `${SKU}-B`, quantity: 2 }] }),
        });
      const answers = await Promise.all(ACCOUNTS.map(buy));
      assert.deepEqual(
        answers.map((a) => a.status),
        [201, 201],
      );
      await within(ARRIVES_MS, async () => (await allOrders()).length === 3);
      const short = (await allOrders()).find((o) => o.lines.some((l) => l.issues.some((i) => i.code === 'oversold')));
      assert.ok(short, 'one of the two sales is oversold');
      // Recorded by now: the stream brings them at once, well before the page's own read every 30 s would.
      await page.getByRole('status').filter({ hasText: '3 orders.' }).waitFor({ timeout: 10_000 });
      await orderRow(short.external_id).getByText('Oversold:').waitFor();
      assert.equal(await page.evaluate(() => performance.timeOrigin), opened, 'the page was not loaded again');

      await page.goto(`${baseUrl}/workspace/${workspaceId}/dashboard`);
      const alert = page.getByRole('alert').filter({ has: page.getByRole('heading', { name: /An order was oversold/ }) });
      await alert.waitFor();
      await alert.getByText(`${SKU}-B: 2 of 2 not in stock, order ${short.external_id}`).waitFor();
      await session.shot('orders-oversold-dashboard');
      await session.noAxeViolations('orders-oversold-dashboard');

      await alert.getByRole('link', { name: 'See every order' }).click();
      await page.waitForURL(ordersUrl());
      await page
        .getByRole('alert')
        .filter({ has: page.getByRole('heading', { name: /An order was oversold/ }) })
        .waitFor();
      const row = orderRow(short.external_id);
      await row.getByText('Oversold:').waitFor();
      await row.getByText('took 0 from stock').waitFor();
      await page.getByRole('status').filter({ hasText: '3 orders.' }).waitFor();
      await session.shot('orders-oversold');
      await session.noAxeViolations('orders-oversold');
      session.noConsoleErrors();
    });

    test('the filters narrow the list, are kept in the address, and clear in one step', async () => {
      const filters = page.getByRole('form', { name: 'Filter the orders' });
      await filters.getByLabel('SKU').fill(`${SKU}-B`);
      await filters.getByRole('button', { name: 'Apply filters' }).click();
      await page.waitForURL(`${ordersUrl()}?sku=${SKU}-B`);
      await page.getByRole('status').filter({ hasText: '2 orders match these filters.' }).waitFor();

      await filters.getByLabel('Site').selectOption(String(sites[1]));
      await filters.getByRole('button', { name: 'Apply filters' }).click();
      await page.getByRole('status').filter({ hasText: '1 order matches these filters.' }).waitFor();
      assert.equal(await filters.getByLabel('SKU').inputValue(), `${SKU}-B`);

      await filters.getByLabel('Status').selectOption('cancelled');
      await filters.getByRole('button', { name: 'Apply filters' }).click();
      await page.getByRole('status').filter({ hasText: 'No orders match these filters.' }).waitFor();
      await session.shot('orders-filtered');
      await session.noAxeViolations('orders-filtered');

      // A filtered view is a link: opened as a typed address, it shows the same.
      await visit(page, page.url());
      await page.getByRole('status').filter({ hasText: 'No orders match these filters.' }).waitFor();
      assert.equal(await filters.getByLabel('Status').inputValue(), 'cancelled');

      await filters.getByLabel('Placed on or after').fill('2999-01-01');
      await filters.getByLabel('Status').selectOption('');
      await filters.getByLabel('Site').selectOption('');
      await filters.getByLabel('SKU').fill('');
      await filters.getByRole('button', { name: 'Apply filters' }).click();
      await page.waitForURL(`${ordersUrl()}?since=2999-01-01`);
      await page.getByRole('status').filter({ hasText: 'No orders match these filters.' }).waitFor();

      await page.getByRole('link', { name: 'Clear filters' }).click();
      await page.waitForURL(ordersUrl());
      await page.getByRole('status').filter({ hasText: '3 orders.' }).waitFor();
      session.noConsoleErrors();
    });

    test('the audit log shows an order read by Storelink itself as Storelink’s, naming the order and its shop', async () => {
      const order = (await allOrders()).at(-1)!;
      const site = await json<{ name: string }>('GET', `/sites/${order.site_id}`);
      await page.goto(`${baseUrl}/workspace/${workspaceId}/audit-log?action=order.recorded`);
      const row = page
        .getByRole('row')
        .filter({ has: page.getByRole('cell', { name: `Order ${order.external_id} on “${site.name}”`, exact: true }) });
      await row.getByRole('cell', { name: 'Storelink', exact: true }).waitFor();
      assert.equal(await page.getByText('A deleted user').count(), 0);
      await session.shot('orders-audit-log');
      await session.noAxeViolations('orders-audit-log');
      session.noConsoleErrors();
    });
  });
}
