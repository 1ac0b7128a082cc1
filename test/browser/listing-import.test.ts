/**
 * "Import listings" on the site's listings page in real headless Chromium: a seller connects a sandbox Etsy shop that
 * already sells (the consent page's "The shop already has 6 listings"), sets the site's listing settings through the
 * API, imports from the page (what it does said before it starts), and watches the progress and the listings arrive.
 * Screenshots: test-results/screenshots/listing-import-*.png. Any console error fails the run.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { allowConsent, apiCaller, type BrowserSession, openBrowser, signUp } from '../helpers/browser.js';
import { dashboardDatabaseKinds } from '../helpers/database.js';

/** The import's pages, run by the app's own job workers: a few seconds; the page polls every 2 s. */
const IMPORTED_MS = 30_000;

for (const kind of dashboardDatabaseKinds()) {
  describe(`importing a shop’s listings in a browser [${kind}]`, () => {
    let baseUrl: string;
    let page: Page;
    let session: BrowserSession;
    const user = { name: 'Import Seller', email: `import-${Date.now()}@example.com`, password: 'correct horse battery' };
    let workspaceId = '';
    let token = '';
    let siteId = '';

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

    test('a seller connects a shop that already sells and sets its listing settings', async () => {
      ({ workspaceId, token } = await signUp(page, baseUrl, user));

      const authorization = await apiCall('POST', '/authenticate-site', { platform_id: 1 });
      assert.equal(authorization.status, 200);
      await page.goto(((await authorization.json()) as { data: { url: string } }).data.url);
      await page.getByLabel('Sandbox account number').fill('31');
      await page.getByLabel("The sandbox account's shop").selectOption('stocked');
      siteId = await allowConsent(page);

      const options = (await (await apiCall('GET', `/sites/${siteId}/listing-options`)).json()) as {
        data: Record<string, { value: string }[]>;
      };
      const first = (field: string) => options.data[field]![0]!.value;
      const saved = await apiCall('PUT', `/sites/${siteId}/listing-settings`, {
        shipping_profile_id: first('shipping_profile_id'),
        return_policy_id: first('return_policy_id'),
        readiness_state_id: first('readiness_state_id'),
        who_made: 'i_did',
        when_made: 'made_to_order',
      });
      assert.equal(saved.status, 200);
      await page.reload();
      await page.getByText('No listings yet.').waitFor();
      session.noConsoleErrors();
    });

    test('Import listings says what it does first, then shows its progress and the listings it took', async () => {
      await page.getByRole('button', { name: 'Import listings' }).click();
      const confirm = page.getByRole('alertdialog');
      await confirm.getByText('Nothing is changed on Etsy').waitFor();
      await session.shot('listing-import-confirm');
      await session.noAxeViolations('listing-import-confirm');
      await confirm.getByRole('button', { name: 'Yes, import' }).click();
      await page.getByRole('status').filter({ hasText: 'Import done. 6 found: 6 products made' }).waitFor({ timeout: IMPORTED_MS });
      for (const title of ['Stoneware mug with a speckled glaze', 'Canvas tote bag', 'Leather card case', 'Hand-thrown vase'])
        await page.getByRole('row').filter({ hasText: title }).waitFor({ timeout: IMPORTED_MS });
      await session.shot('listing-import-done');
      await session.noAxeViolations('listing-import-done');

      const listed = (await (await apiCall('GET', `/sites/${siteId}/listings?per_page=100`)).json()) as { data: { status: string }[] };
      assert.equal(listed.data.length, 6);
      session.noConsoleErrors();
    });

    test("a change made on Etsy shows as Changed on Etsy, and Take Etsy's brings it into the catalogue", async () => {
      const listed = (await (await apiCall('GET', `/sites/${siteId}/listings?per_page=100`)).json()) as {
        data: { id: number; external_id: string; product_id: number }[];
      };
      const shop = (await (await fetch(`${baseUrl}/sandbox/etsy/accounts/31/listings`)).json()) as { id: number; title: string }[];
      const mugOnEtsy = shop.find((l) => l.title === 'Stoneware mug with a speckled glaze')!;
      const mug = listed.data.find((l) => l.external_id === String(mugOnEtsy.id))!;
      const edited = await fetch(`${baseUrl}/sandbox/etsy/accounts/31/listings/${mugOnEtsy.id}`, {
        method: 'PATCH',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ skus: [{ sku: 'MUG-SPECKLE', price: '31.00' }] }),
      });
      assert.equal(edited.status, 200);
      // The watch's read of the listing, run now rather than at its six-hourly turn.
      await session.t.deps.listingWatch.read({ listingId: mug.id });
      await page.reload();
      const changes = page.locator('.platform-changes');
      await changes.getByText('MUG-SPECKLE price: Etsy “31.00”, catalogue “28.00”').waitFor();
      await session.shot('listing-import-changed-on-etsy');
      await session.noAxeViolations('listing-import-changed-on-etsy');
      const take = changes.getByRole('button', { name: /^Take Etsy’s values for/ });
      // The button's visible label is whole, not cut after the possessive.
      assert.equal(await take.textContent(), 'Take Etsy’s values');
      await take.click();
      await changes.waitFor({ state: 'detached', timeout: IMPORTED_MS });
      const product = (await (await apiCall('GET', `/products/${mug.product_id}`)).json()) as { data: { variants: { price: string }[] } };
      assert.equal(product.data.variants[0]!.price, '31.00');
      session.noConsoleErrors();
    });

    test('the audit log shows each listing taken as imported, named by its product and its site, none as published', async () => {
      const site = (await (await apiCall('GET', `/sites/${siteId}`)).json()) as { data: { name: string } };
      await page.goto(`${baseUrl}/workspace/${workspaceId}/audit-log`);
      const rows = page.getByRole('row');
      await rows
        .filter({ hasText: 'Imported a listing' })
        .getByRole('cell', { name: `Listing “Hand-thrown vase” on “${site.data.name}”`, exact: true })
        .waitFor();
      await rows
        .filter({ hasText: 'Started importing a site’s listings' })
        .getByRole('cell', { name: `Site “${site.data.name}”`, exact: true })
        .waitFor();
      assert.equal(await rows.filter({ hasText: 'Imported a listing' }).count(), 6);
      assert.equal(await rows.filter({ hasText: 'Published a listing' }).count(), 0);
      await session.shot('listing-import-audit');
      await session.noAxeViolations('listing-import-audit');
      session.noConsoleErrors();
    });
  });
}
