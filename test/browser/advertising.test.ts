/**
 * Advertising an Amazon listing (DESIGN §13) in real headless Chromium: a newcomer signs up, connects a sandbox Amazon
 * seller account and has a branded, barcoded mug active on Amazon.com (the product, the site's marketplace and the
 * publish go through the API, as test/browser/listings-amazon.test.ts covers them in the page; `SANDBOX_REVIEW_SECONDS`
 * is 0 and the listing watch's read is run at once). The listing's "Advertise…" first says how to connect advertising;
 * the seller connects it through the sandbox's Amazon Ads consent page from the listing's page, is told at the field
 * when the budget is under Amazon's minimum (by the page before sending, and by the API's 422 when it is sent anyway),
 * starts Sponsored Products with a budget and a bid, and sees the state go from Starting to Enabled as the app's own
 * workers set the campaign up. The first figures come from the Ads report job (run by the workers; the test moves the
 * app's clock past each look at the report and runs the due looks, rather than wait 20 s for each); the chart, loaded
 * as its own file only then, draws them beside the totals, ACoS and a table. Deactivating the listing pauses the ads and
 * activating it resumes them; Pause, Resume and a new budget and bid from the panel; End, after its confirmation,
 * archives the campaign. Screenshots: test-results/screenshots/advertising-*.png. Every page is checked by axe-core;
 * any console error fails the run, but for the 404 of a listing never advertised and the 422 the test provokes.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { REPORT_POLL_MS, REPORT_QUEUE } from '../../src/core/advertising/advertising-metrics.js';
import { setAmazonAdsRateLimit } from '../../src/sandbox/amazon-ads/rate-limits.js';
import { setAmazonSellerRateLimit } from '../../src/sandbox/amazon-seller/listings-rate-limits.js';
import { allowConsent, apiCaller, type BrowserSession, isFocused, openBrowser, signUp } from '../helpers/browser.js';
import { dashboardDatabaseKinds } from '../helpers/database.js';
import { mug, PNG_640X480 } from '../helpers/fixtures.js';
import { runDueJobs } from '../helpers/test-app.js';

const TITLE = 'Stoneware mug';
/** The sandbox seller account connected, and the same account's Amazon Ads (odd: a US and a CA profile). */
const ACCOUNT = '53';
/** A listing's or an advertising's work on the sandbox, run by the app's workers: a few seconds; the pages poll every 2 s. */
const DELIVERED_MS = 30_000;
/** Chromium logs every 4xx answer of a fetch as a console error: GET advertising of a listing never advertised is a 404. */
const NEVER_ADVERTISED = /Failed to load resource: the server responded with a status of 404/;
const REFUSED = /Failed to load resource: the server responded with a status of 422/;

interface ApiListing {
  id: number;
  status: string;
  sync_status: string;
}

interface ApiAdvertising {
  state: string;
  sync_status: string;
  campaign_id: string | null;
  daily_budget: string;
  default_bid: string;
  metrics_read_at: string | null;
}

for (const kind of dashboardDatabaseKinds()) {
  describe(`advertising an Amazon listing in a browser [${kind}]`, () => {
    let baseUrl: string;
    let page: Page;
    const user = { name: 'Ads Seller', email: `advertising-${Date.now()}@example.com`, password: 'correct horse battery' };
    let workspaceId = '';
    let token = '';
    let siteId = '';
    let listingId = 0;
    /** The addresses of the files the page loaded, to see when the chart's own file comes. */
    const loaded: string[] = [];

    let session: BrowserSession;
    before(async () => {
      // Amazon's processing of a new listing takes no time on the sandbox: the watch's read finds it buyable at once.
      session = await openBrowser(kind, { env: { SANDBOX_REVIEW_SECONDS: '0' } });
      ({ baseUrl, page } = session);
      // The listing work, the advertising work and the report job run on the app's own job workers, as in production.
      await session.t.deps.startWorkers();
      // The sandboxes' usage plans refill by the test's clock, which stands still here: rate limits have tests of their own.
      setAmazonSellerRateLimit(session.t.deps.sandbox, 1_000_000);
      setAmazonAdsRateLimit(session.t.deps.sandbox, 1_000_000);
      page.on('request', (request) => loaded.push(request.url()));
    });

    after(() => session?.close());

    const apiCall = apiCaller(
      () => baseUrl,
      () => ({ token, workspaceId }),
    );

    async function listing(): Promise<ApiListing> {
      const response = await apiCall('GET', `/listings/${listingId}`);
      assert.equal(response.status, 200);
      return ((await response.json()) as { data: ApiListing }).data;
    }

    async function advertising(): Promise<ApiAdvertising> {
      const response = await apiCall('GET', `/listings/${listingId}/advertising`);
      assert.equal(response.status, 200, await response.clone().text());
      return ((await response.json()) as { data: ApiAdvertising }).data;
    }

    /** Waits until the listing is `status` and synced; a listing Amazon is processing is read by the watch at once. */
    async function listingBecomes(status: string) {
      const deadline = Date.now() + DELIVERED_MS;
      for (;;) {
        const now = await listing();
        if (now.status === status && now.sync_status === 'synced') return;
        if (now.status === 'in_review' && now.sync_status === 'synced') await session.t.deps.listingWatch.read({ listingId });
        assert.ok(Date.now() < deadline, `the listing is ${now.status} (${now.sync_status}), not ${status}`);
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
    }

    const panel = () => page.getByRole('region', { name: 'Advertising', exact: true });
    const stateBadge = (label: string) => panel().locator('.badge', { hasText: new RegExp(`^${label}$`) });

    test('a newcomer connects a sandbox Amazon seller account, and a product of theirs becomes an active listing', async () => {
      ({ workspaceId, token } = await signUp(page, baseUrl, user));
      const created = await apiCall(
        'POST',
        '/products',
        mug('ADS-MUG', { colours: true, title: TITLE, brand: 'Sandbox Pottery', barcodes: ['012345678905', '4006381333931'] }),
      );
      assert.equal(created.status, 201, await created.clone().text());
      const productId = ((await created.json()) as { data: { id: number } }).data.id;
      const form = new FormData();
      form.set('file', new Blob([PNG_640X480], { type: 'image/png' }), 'mug.png');
      assert.equal((await apiCall('POST', `/products/${productId}/images`, form)).status, 201);

      const authorization = await apiCall('POST', '/authenticate-site', { platform_id: 5 });
      assert.equal(authorization.status, 200);
      await page.goto(((await authorization.json()) as { data: { url: string } }).data.url);
      await page.getByLabel('Sandbox account number').fill(ACCOUNT);
      siteId = await allowConsent(page);

      const settings = await apiCall('PUT', `/sites/${siteId}/listing-settings`, { marketplace_id: 'ATVPDKIKX0DER' });
      assert.equal(settings.status, 200, await settings.clone().text());
      const published = await apiCall('POST', `/sites/${siteId}/listings`, {
        product_id: productId,
        category_id: 'KITCHEN',
        attributes: { material: 'Stoneware' },
      });
      assert.equal(published.status, 202, await published.clone().text());
      listingId = ((await published.json()) as { data: { id: number } }).data.id;
      await listingBecomes('active');
      session.noConsoleErrors();
    });

    test('without advertising connected, Advertise is disabled and says how to connect it', async () => {
      await page.goto(`${baseUrl}/site/${siteId}/listings`);
      const row = page.getByRole('row').filter({ hasText: TITLE });
      await row.getByText('Active', { exact: true }).waitFor();
      const advertise = row.getByRole('button', { name: `Advertise ${TITLE}` });
      assert.equal(await advertise.isDisabled(), true);
      const why = page.locator('#advertise-needs-connection');
      assert.match((await why.textContent()) ?? '', /connect Amazon advertising first: “Connect advertising” under Advertising profiles/);
      assert.equal(await advertise.getAttribute('aria-describedby'), 'advertise-needs-connection');
      // The site's region in words, not Amazon's code.
      const details = page.getByRole('region', { name: 'Details', exact: true });
      await details
        .getByRole('definition')
        .filter({ hasText: /^North America$/ })
        .waitFor();
      assert.equal(await details.getByText(/^NA$/).count(), 0);
      await session.shot('advertising-site-not-connected');
      await session.noAxeViolations('the Amazon site page without advertising');

      await row.getByRole('link', { name: `Details of ${TITLE}` }).click();
      await page.waitForURL(new RegExp(`/site/${siteId}/listings/${listingId}$`));
      await page.getByRole('heading', { level: 1, name: new RegExp(TITLE) }).waitFor();
      await panel().getByText('Not advertised.').waitFor();
      const button = panel().getByRole('button', { name: 'Advertise…' });
      assert.equal(await button.isDisabled(), true);
      const reason = panel().locator('#advertise-reason');
      assert.match(
        (await reason.textContent()) ?? '',
        /Amazon advertising is not connected for .+ Connect it with the account that advertises/,
      );
      await panel().getByRole('button', { name: 'Connect advertising' }).waitFor();
      assert.match(await page.title(), new RegExp(`^${TITLE} · .+ · Storelink$`));
      await session.shot('advertising-listing-not-connected');
      await session.noAxeViolations('the listing page without advertising');
      session.noConsoleErrors([NEVER_ADVERTISED]);
    });

    test("advertising is connected from the listing's page through the sandbox's Amazon Ads consent", async () => {
      await panel().getByRole('button', { name: 'Connect advertising' }).click();
      await page
        .waitForURL((url) => url.pathname === '/sandbox/amazon-ads/authorize')
        .catch(async (e) => {
          console.log('DEBUG url', page.url());
          await session.shot('debug-consent');
          throw e;
        });
      await page.getByLabel('Sandbox account number').fill(ACCOUNT);
      await session.shot('advertising-consent');
      await session.noAxeViolations('the Amazon Ads consent page');
      await page.getByRole('button', { name: 'Allow', exact: true }).click();
      await page.waitForURL((url) => url.pathname === `/site/${siteId}/listings`);
      await page.getByRole('status').filter({ hasText: 'Amazon advertising is connected.' }).waitFor();
      await page.getByRole('region', { name: 'Advertising profiles' }).getByRole('cell', { name: 'US', exact: true }).waitFor();
      const row = page.getByRole('row').filter({ hasText: TITLE });
      await row.getByRole('link', { name: `Advertise ${TITLE}` }).waitFor();
      await session.shot('advertising-site-connected');
      await session.noAxeViolations('the Amazon site page with advertising');
      session.noConsoleErrors();
    });

    test("a budget under Amazon's minimum is said at its field: by the page before sending, and from the API's 422", async () => {
      await page
        .getByRole('row')
        .filter({ hasText: TITLE })
        .getByRole('link', { name: `Advertise ${TITLE}` })
        .click();
      await page.waitForURL((url) => url.pathname === `/site/${siteId}/listings/${listingId}`);
      const budget = page.getByLabel('Daily budget (USD)');
      await budget.waitFor();
      // The form opens at once, on its first field.
      assert.equal(await isFocused(budget), true);
      assert.match((await page.locator('#ad-budget-hint').textContent()) ?? '', /at least 1\.00 USD/);
      await budget.fill('0.50');
      await page.getByLabel('Default bid (USD)').fill('0.50');
      const posts = () => loaded.filter((url) => url.endsWith(`/api/v1/listings/${listingId}/advertising`)).length;
      const before = posts();
      await page.getByRole('button', { name: 'Start advertising' }).click();
      const message = page.locator('#ad-budget-error');
      await message.getByText('The daily budget must be between 1.00 and 1000000.00 USD.').waitFor();
      assert.equal(await budget.getAttribute('aria-invalid'), 'true');
      assert.match((await budget.getAttribute('aria-describedby')) ?? '', /ad-budget-error/);
      assert.equal(await isFocused(budget), true);
      assert.equal(posts(), before, 'nothing was sent');
      await session.shot('advertising-form-budget-too-low');
      await session.noAxeViolations('the advertise form with a budget too low');

      // Sent anyway (the page's check passed over: Amazon's bounds may change before the page knows), the API's 422 is
      // said at the same field.
      await page.route(`**/api/v1/listings/${listingId}/advertising`, (route) =>
        route.request().method() === 'POST'
          ? route.continue({ postData: JSON.stringify({ ...route.request().postDataJSON(), daily_budget: '0.50' }) })
          : route.continue(),
      );
      await budget.fill('10.00');
      await page.getByRole('button', { name: 'Start advertising' }).click();
      await message.getByText('The daily budget must be between 1.00 and 1000000.00 USD.').waitFor();
      assert.equal(posts(), before + 1, 'the request went to the API');
      assert.equal(await isFocused(budget), true);
      await page.unroute(`**/api/v1/listings/${listingId}/advertising`);
      assert.equal((await apiCall('GET', `/listings/${listingId}/advertising`)).status, 404, 'nothing was started');
      await session.noAxeViolations('the advertise form with the API’s 422');
      session.noConsoleErrors([NEVER_ADVERTISED, REFUSED]);
    });

    test('keywords are rows to add and remove; automatic targeting needs none', async () => {
      await page.getByLabel(/^Keywords: you choose the searches/).check();
      await page.getByLabel('Keyword 1', { exact: true }).fill('stoneware mug');
      await page.getByRole('button', { name: 'Add a keyword' }).click();
      // The new row's keyword has the focus; its bid starts as the default bid.
      await page.getByLabel('Keyword 2', { exact: true }).waitFor();
      assert.equal(await isFocused(page.getByLabel('Keyword 2', { exact: true })), true);
      assert.equal(await page.getByLabel('Bid of keyword 2 (USD)').inputValue(), '0.50');
      await page.getByLabel('Keyword 2', { exact: true }).fill('coffee cup');
      await page.getByLabel('Match type of keyword 2').selectOption('exact');
      await page.getByLabel('Bid of keyword 2 (USD)').fill('0.01');
      await page.getByRole('button', { name: 'Start advertising' }).click();
      await page.locator('#ad-keyword-1-bid-error').getByText('The keyword bid must be between 0.02 and 1000.00 USD.').waitFor();
      await session.shot('advertising-form-keywords');
      await session.noAxeViolations('the advertise form with keywords');
      await page.getByRole('button', { name: 'Remove keyword 2' }).click();
      assert.equal(await page.getByLabel('Keyword 2', { exact: true }).count(), 0);
      await page.getByLabel(/^Automatic: Amazon chooses/).check();
      assert.equal(await page.getByLabel('Keyword 1', { exact: true }).count(), 0);
      session.noConsoleErrors();
    });

    test('advertising starts from the form, and its state goes from Starting to Enabled as Amazon sets the campaign up', async () => {
      await page.getByLabel('Daily budget (USD)').fill('10.00');
      await page.getByLabel('Default bid (USD)').fill('0.50');
      // Amazon's first report arrives within seconds on the sandbox: until the next test, the page is shown none yet, to
      // see the figures' empty state.
      await page.route(`**/api/v1/listings/${listingId}/advertising/metrics?*`, (route) =>
        route.fulfill({ json: { success: true, data: [] } }),
      );
      await page.getByRole('button', { name: 'Start advertising' }).click();
      await page.getByRole('status').filter({ hasText: 'Advertising is starting' }).waitFor();
      await session.shot('advertising-starting');
      await stateBadge('Enabled').waitFor({ timeout: DELIVERED_MS });
      await panel()
        .locator('.badge', { hasText: /^Synced$/ })
        .waitFor();
      const ad = await advertising();
      assert.equal(ad.state, 'enabled');
      assert.ok(ad.campaign_id, 'the campaign is made');
      await panel().getByText(ad.campaign_id!, { exact: true }).waitFor();
      await panel()
        .getByRole('definition')
        .filter({ hasText: /^\$10\.00$/ })
        .waitFor();
      await panel()
        .getByRole('definition')
        .filter({ hasText: /^\$0\.50$/ })
        .waitFor();
      await panel().getByText('Automatic: Amazon chooses the searches').waitFor();
      await page.getByRole('status').filter({ hasText: 'Done: the ads run on Amazon.' }).waitFor();
      await panel()
        .getByText(
          'No figures for this period yet. Amazon reports figures daily; the first ones arrive within a few minutes of the campaign starting.',
        )
        .waitFor();
      // The Ads profile's marketplace by its name, not its id.
      await panel().getByRole('definition').filter({ hasText: 'Amazon.com (US)' }).waitFor();
      assert.equal(
        await panel()
          .getByText(/ATVPDKIKX0DER/)
          .count(),
        0,
        'no marketplace id',
      );
      await session.shot('advertising-enabled');
      await session.noAxeViolations('the listing page with its advertising enabled');
      session.noConsoleErrors();
    });

    test("the first figures come from Amazon's report and are drawn, with the totals, ACoS and a table of each day", async () => {
      const chartFile = () => loaded.some((url) => /\/assets\/advertising-chart-[^/]+\.js$/.test(url));
      // Without figures, the chart's library was not loaded.
      assert.equal(chartFile(), false, 'the chart is loaded only with figures');
      await page.unrouteAll();
      // A reload of the listing's address opens the same page.
      await page.reload();
      await stateBadge('Enabled').waitFor();
      // The report job asks Amazon for the report, then looks at it every REPORT_POLL_MS by the app's clock until it is
      // made: the clock is moved past each look, which is run as it falls due.
      const deadline = Date.now() + 90_000;
      while ((await advertising()).metrics_read_at === null) {
        assert.ok(Date.now() < deadline, 'the report was not read within 90 s');
        session.t.clock.advance(REPORT_POLL_MS + 1_000);
        await runDueJobs(session.t, REPORT_QUEUE);
        await new Promise((resolve) => setTimeout(resolve, 1_000));
      }
      const figures = page.getByRole('region', { name: 'Figures' });
      const chart = figures.getByRole('figure', { name: /Spend and sales per day, with clicks/ });
      await chart.locator('svg.recharts-surface').first().waitFor({ timeout: DELIVERED_MS });
      assert.equal(chartFile(), true, 'the chart came as its own file');
      // However few the days, a bar is drawn at most 40 px wide (one day's two bars once filled the width).
      const bars = chart.locator('.recharts-bar-rectangle');
      await bars.first().waitFor();
      for (const bar of await bars.all()) {
        const width = (await bar.boundingBox())?.width ?? 0;
        assert.ok(width <= 40, `a bar ${width} px wide`);
      }
      const totals = figures.getByRole('definition');
      assert.equal(await totals.count(), 6);
      const term = (name: string) =>
        figures
          .locator('.stat')
          .filter({ has: page.locator('dt', { hasText: new RegExp(`^${name}`) }) })
          .locator('dd');
      assert.match((await term('Spend').textContent()) ?? '', /^\$[\d,]+\.\d{2}$/);
      assert.match((await term('ACoS').textContent()) ?? '', /^(\d+\.\d %|No sales yet)$/);
      // The summary the chart is described by, and the table, say the same figures in words.
      const summary = (await chart.getAttribute('aria-describedby'))!;
      assert.match((await page.locator(`[id="${summary}"]`).textContent()) ?? '', /^In the last 30 days \(\d+ days? reported\): spend \$/);
      await figures.getByText('The figures of each day').click();
      // A header and at least one day: the second row is waited for, as the details open after the click.
      await figures.getByRole('table').getByRole('row').nth(1).waitFor();
      await session.shot('advertising-figures');
      await session.noAxeViolations('the listing page with its figures');

      await figures.locator('label', { hasText: 'Last 7 days' }).click();
      await page.locator(`[id="${summary}"]`, { hasText: /^In the last 7 days/ }).waitFor();
      await figures.locator('label', { hasText: 'Impressions' }).click();
      await figures.getByRole('figure', { name: /with impressions/ }).waitFor();
      await session.shot('advertising-figures-7-days-impressions');
      await session.noAxeViolations('the figures of 7 days with impressions');
      session.noConsoleErrors();
    });

    test('deactivating the listing pauses its advertising, and activating it resumes the ads', async () => {
      await page.getByRole('button', { name: `Deactivate ${TITLE}` }).click();
      await stateBadge('Paused').waitFor({ timeout: DELIVERED_MS });
      await panel()
        .getByText(/Paused while the listing is inactive/)
        .waitFor();
      assert.equal((await listing()).status, 'inactive');
      assert.equal((await advertising()).state, 'paused');
      await session.shot('advertising-listing-inactive');
      await session.noAxeViolations('the listing page, inactive, its advertising paused');

      await page.getByRole('button', { name: `Activate ${TITLE}` }).click();
      await listingBecomes('active');
      await stateBadge('Enabled').waitFor({ timeout: DELIVERED_MS });
      assert.equal((await advertising()).state, 'enabled');
      session.noConsoleErrors();
    });

    test('Pause and Resume in the panel stop and start the ads', async () => {
      await panel().getByRole('button', { name: 'Pause', exact: true }).click();
      await stateBadge('Paused').waitFor({ timeout: DELIVERED_MS });
      await panel()
        .locator('.badge', { hasText: /^Synced$/ })
        .waitFor({ timeout: DELIVERED_MS });
      assert.equal((await advertising()).state, 'paused');
      await page.getByRole('status').filter({ hasText: 'Done: the ads are paused on Amazon.' }).waitFor();
      await session.shot('advertising-paused');
      await session.noAxeViolations('the listing page with its advertising paused');
      await panel().getByRole('button', { name: 'Resume', exact: true }).click();
      await stateBadge('Enabled').waitFor({ timeout: DELIVERED_MS });
      await panel()
        .locator('.badge', { hasText: /^Synced$/ })
        .waitFor({ timeout: DELIVERED_MS });
      assert.equal((await advertising()).state, 'enabled');
      session.noConsoleErrors();
    });

    test('a new budget and bid are sent to Amazon', async () => {
      await panel().getByRole('button', { name: 'Change budget or bid…' }).click();
      const budget = page.getByLabel('Daily budget (USD)');
      assert.equal(await budget.inputValue(), '10.00');
      await budget.fill('15.00');
      await page.getByLabel('Default bid (USD)').fill('0.75');
      await session.shot('advertising-change');
      await session.noAxeViolations('the change of budget and bid');
      await panel().getByRole('button', { name: 'Save' }).click();
      await panel()
        .getByRole('definition')
        .filter({ hasText: /^\$15\.00$/ })
        .waitFor();
      await panel()
        .locator('.badge', { hasText: /^Synced$/ })
        .waitFor({ timeout: DELIVERED_MS });
      const ad = await advertising();
      assert.deepEqual([ad.daily_budget, ad.default_bid, ad.sync_status], ['15.00', '0.75', 'synced']);
      session.noConsoleErrors();
    });

    test('a budget changed elsewhere (through the API) reaches the open page without a reload', async () => {
      const opened = await page.evaluate(() => performance.timeOrigin);
      const changed = await apiCall('PATCH', `/listings/${listingId}/advertising`, { daily_budget: '16.00' });
      assert.equal(changed.status, 202, await changed.text());
      // The panel reads its advertising again only while a change is on its way to Amazon: this one, made by another
      // client, reaches it by the live stream.
      await panel()
        .getByRole('definition')
        .filter({ hasText: /^\$16\.00$/ })
        .waitFor({ timeout: 10_000 });
      await panel()
        .locator('.badge', { hasText: /^Synced$/ })
        .waitFor({ timeout: DELIVERED_MS });
      assert.equal(await page.evaluate(() => performance.timeOrigin), opened, 'the page was not loaded again');
      session.noConsoleErrors();
    });

    test('End… asks first (on Cancel), then Amazon archives the campaign and the advertising has ended', async () => {
      await panel().getByRole('button', { name: 'End…' }).click();
      const confirm = page.getByRole('alertdialog');
      await confirm.getByText(/End the advertising of “Stoneware mug”\?/).waitFor();
      assert.equal(await isFocused(confirm.getByRole('button', { name: 'Cancel' })), true);
      await session.shot('advertising-end-confirm');
      await session.noAxeViolations('the confirmation to end the advertising');
      await confirm.getByRole('button', { name: 'Yes, end it' }).click();
      await stateBadge('Ended').waitFor({ timeout: DELIVERED_MS });
      await panel()
        .locator('.badge', { hasText: /^Synced$/ })
        .waitFor({ timeout: DELIVERED_MS });
      assert.equal((await advertising()).state, 'archived');
      await panel().getByRole('button', { name: 'Advertise again…' }).waitFor();
      await page.getByRole('status').filter({ hasText: 'Done: the advertising has ended' }).waitFor();
      assert.equal(await panel().getByRole('button', { name: 'Pause', exact: true }).count(), 0);
      await session.shot('advertising-ended');
      await session.noAxeViolations('the listing page with its advertising ended');
      session.noConsoleErrors();
    });
  });
}
