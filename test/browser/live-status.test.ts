/**
 * Live status and the overview (issue 37, items 1 and 3) in real headless Chromium. A seller with a live Etsy listing
 * keeps its site's listings page open; a change of the listing's attributes that Etsy refuses (more materials than it
 * takes), made beside the page through the API, turns the row from "Active · Synced" to "Failed" with Etsy's words,
 * without a reload: the page was not polling (nothing was in flight when it loaded), so only the event stream can tell
 * it. Fixed the same way, the issue goes. Then the dashboard's overview shows the site's listings by status, the failed
 * listing under "Needs fixing" with links, and the recent orders; it too changes live. axe runs on every page visited;
 * screenshots: test-results/screenshots/live-status-*.png.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { allowConsent, apiCaller, type BrowserSession, openBrowser, signUp } from '../helpers/browser.js';
import { dashboardDatabaseKinds } from '../helpers/database.js';
import { mug, PNG_640X480 } from '../helpers/fixtures.js';

const TITLE = 'Live stoneware mug';
/** Within "a few seconds" of the change: the page reads again a quarter of a second after the event. */
const LIVE_MS = 8_000;
/** The first delivery through the job workers, before the page is opened. */
const DELIVERED_MS = 30_000;
/** Mugs (Etsy taxonomy 1071): colour (200) and material (507, at most 5 values) are required. */
const GOOD = { 200: '3', 507: ['601'] };
const REFUSED_BY_ETSY = { 200: '3', 507: ['601', '602', '603', '604', '605', '606'] };

interface ApiListing {
  id: number;
  status: string;
  sync_status: string;
}

for (const kind of dashboardDatabaseKinds()) {
  describe(`live status and the overview in a browser [${kind}]`, () => {
    let session: BrowserSession;
    let baseUrl: string;
    let page: Page;
    let workspaceId = '';
    let token = '';
    let siteId = '';
    let listingId = 0;
    let productId = 0;
    const user = { name: 'Live Seller', email: `live-${Date.now()}@example.com`, password: 'correct horse battery' };

    before(async () => {
      session = await openBrowser(kind);
      ({ baseUrl, page } = session);
      await session.t.deps.startWorkers();
      Object.assign(session.t.deps.sandbox.etsyLimits, { perSecond: 1_000_000, perDay: 1_000_000_000 });
    });
    after(() => session?.close());

    const apiCall = apiCaller(
      () => baseUrl,
      () => ({ token, workspaceId }),
    );
    const listing = async (): Promise<ApiListing> =>
      ((await (await apiCall('GET', `/listings/${listingId}`)).json()) as { data: ApiListing }).data;
    async function until(what: string, ready: () => Promise<boolean>, ms: number) {
      const end = Date.now() + ms;
      while (!(await ready())) {
        assert.ok(Date.now() < end, `${what} within ${ms} ms`);
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    }
    const row = () => page.getByRole('row').filter({ hasText: TITLE });

    test('a seller publishes a mug to the sandbox Etsy shop (through the API) and it goes live', async () => {
      ({ workspaceId, token } = await signUp(page, baseUrl, user));
      const created = await apiCall('POST', '/products', mug('LIVE', { title: TITLE, currency: 'USD' }));
      assert.equal(created.status, 201, await created.clone().text());
      productId = ((await created.json()) as { data: { id: number } }).data.id;
      const form = new FormData();
      form.set('file', new Blob([PNG_640X480], { type: 'image/png' }), 'mug.png');
      assert.equal((await apiCall('POST', `/products/${productId}/images`, form)).status, 201);

      const authorization = await apiCall('POST', '/authenticate-site', { platform_id: 1 });
      await page.goto(((await authorization.json()) as { data: { url: string } }).data.url);
      await page.getByLabel('Sandbox account number').fill('37');
      siteId = await allowConsent(page);

      const choices = (
        (await (await apiCall('GET', `/sites/${siteId}/listing-options`)).json()) as { data: Record<string, { value: unknown }[]> }
      ).data;
      const first = (field: string) => choices[field]![0]!.value;
      const settings = {
        shipping_profile_id: first('shipping_profile_id'),
        return_policy_id: first('return_policy_id'),
        readiness_state_id: first('readiness_state_id'),
        who_made: 'i_did',
        when_made: 'made_to_order',
      };
      assert.equal((await apiCall('PUT', `/sites/${siteId}/listing-settings`, settings)).status, 200);
      const published = await apiCall('POST', `/sites/${siteId}/listings`, {
        product_id: productId,
        category_id: '1071',
        attributes: GOOD,
      });
      assert.equal(published.status, 202, await published.clone().text());
      listingId = ((await published.json()) as { data: { id: number } }).data.id;
      await until(
        'the listing active and synced',
        async () => {
          const { status, sync_status } = await listing();
          return status === 'active' && sync_status === 'synced';
        },
        DELIVERED_MS,
      );
    });

    test('the open listings page turns a row to "Failed" with Etsy’s words when a change is refused, then back, without a reload', async () => {
      await page.goto(`${baseUrl}/site/${siteId}/listings`);
      await row().getByText('Active', { exact: true }).waitFor();
      await row().getByText('Synced', { exact: true }).waitFor();
      await session.noAxeViolations('live-status-listings');
      await session.shot('live-status-listings-synced');
      // Marks the document: a reload would lose it, so its presence at the end proves the page was never reloaded.
      await page.evaluate('window.__notReloaded = true');

      const changed = await apiCall('PATCH', `/listings/${listingId}`, { attributes: REFUSED_BY_ETSY });
      assert.equal(changed.status, 202, await changed.clone().text());
      const started = Date.now();
      await row().getByText('Failed', { exact: true }).waitFor({ timeout: LIVE_MS });
      await row()
        .getByText(/at most 5 values/)
        .waitFor({ timeout: LIVE_MS });
      const tookMs = Date.now() - started;
      // The refused attribute is named by Etsy's label, not its id (issue 37 item 2).
      // (Etsy's own words may name its property id: only Storelink's naming of the field is checked.)
      const fields = await row().locator('.issue .issue-field').allTextContents();
      assert.ok(fields.includes('Material:'), fields.join(' | '));
      for (const text of fields) assert.doesNotMatch(text, /Attribute|\d/, 'no attribute id');
      assert.equal(await page.evaluate('window.__notReloaded === true'), true, 'the page was not reloaded');
      assert.deepEqual([(await listing()).status, (await listing()).sync_status], ['active', 'failed']);
      await session.noAxeViolations('live-status-listings-failed');
      await session.shot('live-status-listings-failed');
      console.log(`# the row showed the failure ${tookMs} ms after the change was accepted`);

      // Fixed beside the page, the issue goes and the row is synced again.
      assert.equal((await apiCall('PATCH', `/listings/${listingId}`, { attributes: GOOD })).status, 202);
      await row().getByText('Synced', { exact: true }).waitFor({ timeout: LIVE_MS });
      await row()
        .getByText(/at most 5 values/)
        .waitFor({ state: 'detached', timeout: LIVE_MS });
      assert.equal(await page.evaluate('window.__notReloaded === true'), true, 'the page was not reloaded');
      session.noConsoleErrors();
    });

    test('the dashboard’s overview counts the site’s listings, lists what needs fixing with links, and follows changes live', async () => {
      await page.goto(`${baseUrl}/workspace/${workspaceId}/dashboard`);
      const channels = page.getByRole('region', { name: 'Listings by channel' });
      const siteRow = channels.locator(`tr[data-site="${siteId}"]`);
      await siteRow
        .locator('td[data-label="Active"]')
        .getByRole('link', { name: /^1 active on / })
        .waitFor();
      assert.equal(await siteRow.locator('td[data-label="Sync failed"]').textContent(), '0');
      const fixing = page.getByRole('region', { name: /Needs fixing/ });
      await fixing.getByText('Nothing needs fixing.').waitFor();
      await page.getByRole('region', { name: 'Recent orders' }).getByText('No orders yet.').waitFor();
      await session.noAxeViolations('live-status-overview');
      await page.evaluate('window.__notReloaded = true');

      assert.equal((await apiCall('PATCH', `/listings/${listingId}`, { attributes: REFUSED_BY_ETSY })).status, 202);
      const failed = fixing.getByRole('link', { name: TITLE });
      await failed.waitFor({ timeout: LIVE_MS });
      await fixing.getByText(/at most 5 values/).waitFor();
      await fixing.getByRole('heading', { name: 'Needs fixing (1 listing)' }).waitFor();
      await siteRow
        .locator('td[data-label="Sync failed"]')
        .getByRole('link', { name: /1 sync failed/ })
        .waitFor({ timeout: LIVE_MS });
      assert.equal(await page.evaluate('window.__notReloaded === true'), true, 'the page was not reloaded');
      await session.noAxeViolations('live-status-overview-fixing');
      await session.shot('live-status-overview');

      // The listing's link leads to its page, which shows the issue too.
      await failed.click();
      await page.waitForURL(new RegExp(`/site/${siteId}/listings/${listingId}$`));
      await page
        .getByText(/at most 5 values/)
        .first()
        .waitFor();
      await page.locator('.issue .issue-field', { hasText: 'Material:' }).waitFor();
      await session.noAxeViolations('live-status-listing-page');
      // The active count links to the site's listings, filtered to that status.
      await page.goto(`${baseUrl}/workspace/${workspaceId}/dashboard`);
      await siteRow.locator('td[data-label="Active"]').getByRole('link').click();
      await page.waitForURL(new RegExp(`/site/${siteId}/listings\\?status=active$`));
      assert.equal(await page.getByLabel('Status').inputValue(), 'active');
      await row().waitFor();
      await session.noAxeViolations('live-status-listings-filtered');
      session.noConsoleErrors();
    });

    test("the product page's “Listed on” names the refused attribute by its label, not its id", async () => {
      await page.goto(`${baseUrl}/workspace/${workspaceId}/products/${productId}`);
      const listed = page.getByRole('region', { name: 'Listed on' });
      await listed.getByText(/at most 5 values/).waitFor();
      const issue = listed.locator('.issue').filter({ hasText: /at most 5 values/ });
      await issue.locator('.issue-field', { hasText: 'Material:' }).waitFor();
      for (const text of await listed.locator('.issue .issue-field').allTextContents())
        assert.doesNotMatch(text, /Attribute|\d/, 'no attribute id');
      await session.noAxeViolations('live-status-product-listed-on');
      await session.shot('live-status-product-listed-on');
      session.noConsoleErrors();
    });
  });
}
