/**
 * "Import listings" on an Amazon seller site's listings page in real headless Chromium, as
 * test/browser/listing-import.test.ts does it for Etsy: a seller connects a sandbox Amazon account that already sells
 * (the consent page's "6 listings made outside Storelink"), sets the marketplace through the API, imports from the
 * page (what it does said before it starts), and watches the progress and the six SKUs arrive, each in the state
 * Amazon holds it in (buyable, sold out, suppressed). Screenshots: test-results/screenshots/listing-import-amazon-*.png.
 * Any console error fails the run.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { setAmazonSellerRateLimit } from '../../src/sandbox/amazon-seller/listings-rate-limits.js';
import { allowConsent, apiCaller, type BrowserSession, openBrowser, signUp } from '../helpers/browser.js';
import { dashboardDatabaseKinds } from '../helpers/database.js';

/** The import's pages, run by the app's own job workers: a few seconds; the page polls every 2 s. */
const IMPORTED_MS = 30_000;
/** The sandbox seller account connected. */
const ACCOUNT = '52';

for (const kind of dashboardDatabaseKinds()) {
  describe(`importing an Amazon seller account’s listings in a browser [${kind}]`, () => {
    let baseUrl: string;
    let page: Page;
    let session: BrowserSession;
    const user = { name: 'Amazon Import Seller', email: `import-amazon-${Date.now()}@example.com`, password: 'correct horse battery' };
    let workspaceId = '';
    let token = '';
    let siteId = '';

    before(async () => {
      session = await openBrowser(kind);
      ({ baseUrl, page } = session);
      await session.t.deps.startWorkers();
      // The sandbox's usage plans are timed by the test's clock, which stands still here: rate limits have tests of their own.
      setAmazonSellerRateLimit(session.t.deps.sandbox, 1_000_000);
    });
    after(() => session?.close());

    const apiCall = apiCaller(
      () => baseUrl,
      () => ({ token, workspaceId }),
    );

    const row = (title: string) => page.getByRole('row').filter({ hasText: title });

    test('a seller connects an Amazon account that already sells and sets its marketplace', async () => {
      ({ workspaceId, token } = await signUp(page, baseUrl, user));

      const authorization = await apiCall('POST', '/authenticate-site', { platform_id: 5 });
      assert.equal(authorization.status, 200);
      await page.goto(((await authorization.json()) as { data: { url: string } }).data.url);
      await page.getByLabel('Sandbox account number').fill(ACCOUNT);
      await page.getByLabel("The sandbox seller's existing listings").selectOption('stocked');
      siteId = await allowConsent(page);

      const saved = await apiCall('PUT', `/sites/${siteId}/listing-settings`, { marketplace_id: 'ATVPDKIKX0DER' });
      assert.equal(saved.status, 200, await saved.clone().text());
      await page.reload();
      assert.equal(await page.getByLabel('Marketplace').locator('option:checked').textContent(), 'Amazon.com (US)');
      await page.getByText('No listings yet.').waitFor();
      session.noConsoleErrors();
    });

    test('Import listings says what it does first, then shows its progress and the six SKUs in their states', async () => {
      await page.getByRole('button', { name: 'Import listings' }).click();
      const confirm = page.getByRole('alertdialog');
      await confirm.getByText(/Nothing is changed on Amazon/).waitFor();
      await session.shot('listing-import-amazon-confirm');
      await session.noAxeViolations('listing-import-amazon-confirm');
      await confirm.getByRole('button', { name: 'Yes, import' }).click();
      await page
        .getByRole('status')
        .filter({ hasText: 'Import done. 6 found: 6 products made, 0 linked by SKU, 0 already here, 0 skipped.' })
        .waitFor({ timeout: IMPORTED_MS });
      const states: [title: string, status: string][] = [
        ['Stoneware mug with a speckled glaze, 350 ml', 'Active'],
        ['Organic cotton T-shirt, black, medium', 'Active'],
        ['Soy candle, cedar, 200 g', 'Inactive'],
        // An offer on an ASIN of Amazon's catalogue: its name is the catalogue item's.
        ['Stainless steel insulated water bottle, 750 ml', 'Active'],
        ['Enamel tin sign (prohibited replica)', 'Rejected'],
        ['Canvas weekender bag with leather handles', 'Active'],
      ];
      for (const [title, status] of states) {
        await row(title).waitFor({ timeout: IMPORTED_MS });
        await row(title).getByText(status, { exact: true }).waitFor();
      }
      await row('Stoneware mug with a speckled glaze').getByText('$28.00').waitFor();
      await page.getByRole('status').filter({ hasText: '6 listings.' }).waitFor();
      await session.shot('listing-import-amazon-done');
      await session.noAxeViolations('listing-import-amazon-done');

      const listed = (await (await apiCall('GET', `/sites/${siteId}/listings?per_page=100`)).json()) as {
        data: { external_id: string; status: string; marketplace_id: string }[];
      };
      assert.deepEqual(Object.fromEntries(listed.data.map((l) => [l.external_id, l.status])), {
        'MUG-SPECKLE': 'active',
        'TEE-BLACK-M': 'active',
        'CANDLE-CEDAR': 'inactive',
        'BOTTLE-OFFER': 'active',
        'SIGN-TIN': 'rejected',
        'BAG-WEEKENDER': 'active',
      });
      assert.ok(listed.data.every((l) => l.marketplace_id === 'ATVPDKIKX0DER'));
      session.noConsoleErrors();
    });
  });
}
