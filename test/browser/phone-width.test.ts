/**
 * A seller's pages on a phone (issue 37 item 8), in Chromium at 390 x 844: a site's page shows its listings before its
 * details and settings, its listings' heading on the first screen; a product's page never scrolls sideways
 * (document.documentElement.scrollWidth <= clientWidth), nor does the site's. axe on each page as the phone shows it.
 * Screenshots: test-results/screenshots/phone-site.png, phone-product.png.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { allowConsent, apiCaller, type BrowserSession, openBrowser, signUp } from '../helpers/browser.js';
import { dashboardDatabaseKinds } from '../helpers/database.js';
import { mug, PNG_640X480 } from '../helpers/fixtures.js';

const PHONE = { width: 390, height: 844 };
const TITLE = 'Speckled stoneware mug with a long name that has to wrap on a phone';

/** How far the page scrolls sideways: the document's scroll width past its client width (0 when it does not). */
const sideways = (page: Page) =>
  page.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth') as Promise<number>;

/** The top of the heading named `name`, from the top of the page. */
const topOf = async (page: Page, name: string) => {
  const box = await page.getByRole('heading', { name, exact: true }).boundingBox();
  assert.ok(box, `the heading ${name} is shown`);
  return box.y + ((await page.evaluate('window.scrollY')) as number);
};

for (const kind of dashboardDatabaseKinds()) {
  describe(`a seller’s pages on a phone [${kind}]`, () => {
    let session: BrowserSession;
    let page: Page;
    let baseUrl: string;
    let token = '';
    let workspaceId = '';
    let productId = 0;
    let siteId = '';
    const user = { name: 'Pia Phone', email: `pia-${Date.now()}@example.com`, password: 'correct horse battery' };

    before(async () => {
      session = await openBrowser(kind);
      ({ baseUrl, page } = session);
      Object.assign(session.t.deps.sandbox.etsyLimits, { perSecond: 1_000_000, perDay: 1_000_000_000 });
    });
    after(() => session?.close());

    const apiCall = apiCaller(
      () => baseUrl,
      () => ({ token, workspaceId }),
    );

    test('a seller with a product and a listing on the sandbox Etsy shop', async () => {
      ({ workspaceId, token } = await signUp(page, baseUrl, user));
      const created = await apiCall(
        'POST',
        '/products',
        mug('PHONE', { colours: true, title: TITLE, tags: ['speckled', 'stoneware', 'hand-thrown'] }),
      );
      assert.equal(created.status, 201, await created.clone().text());
      productId = ((await created.json()) as { data: { id: number } }).data.id;
      const form = new FormData();
      form.set('file', new Blob([PNG_640X480], { type: 'image/png' }), 'mug.png');
      assert.equal((await apiCall('POST', `/products/${productId}/images`, form)).status, 201);

      const authorization = await apiCall('POST', '/authenticate-site', { platform_id: 1 });
      await page.goto(((await authorization.json()) as { data: { url: string } }).data.url);
      await page.getByLabel('Sandbox account number').fill('390');
      siteId = await allowConsent(page);

      const options = (
        (await (await apiCall('GET', `/sites/${siteId}/listing-options`)).json()) as { data: Record<string, { value: string }[]> }
      ).data;
      const settings = {
        shipping_profile_id: options.shipping_profile_id![0]!.value,
        return_policy_id: options.return_policy_id![0]!.value,
        readiness_state_id: options.readiness_state_id![0]!.value,
        who_made: 'i_did',
        when_made: 'made_to_order',
      };
      assert.equal((await apiCall('PUT', `/sites/${siteId}/listing-settings`, settings)).status, 200);
      const categories = (await (await apiCall('GET', `/sites/${siteId}/categories?q=mug`)).json()) as {
        data: { id: string; leaf: boolean }[];
      };
      const leaf = categories.data.find((c) => c.leaf)!;
      const attributes = (await (await apiCall('GET', `/sites/${siteId}/categories/${leaf.id}/attributes`)).json()) as {
        data: { name: string; required: boolean; type: string; values: { value: string }[] }[];
      };
      const given = Object.fromEntries(
        attributes.data
          .filter((a) => a.required)
          .map((a) => [a.name, a.type === 'multiselect' ? [a.values[0]!.value] : (a.values[0]?.value ?? 'text')]),
      );
      const published = await apiCall('POST', `/sites/${siteId}/listings`, {
        product_id: productId,
        category_id: leaf.id,
        attributes: given,
      });
      assert.equal(published.status, 202, await published.clone().text());
      session.noConsoleErrors();
    });

    test('on a phone, a site’s page shows its listings first, on the first screen, before its details and settings', async () => {
      await page.setViewportSize(PHONE);
      await page.goto(`${baseUrl}/site/${siteId}/listings`);
      await page.getByRole('heading', { name: 'Listing settings' }).waitFor();
      await page.getByText(TITLE).first().waitFor();
      const listings = await topOf(page, 'Listings');
      const details = await topOf(page, 'Details');
      const settings = await topOf(page, 'Listing settings');
      assert.ok(listings < details && listings < settings, `listings at ${listings} px, details at ${details}, settings at ${settings}`);
      assert.ok(listings < PHONE.height, `the listings' heading is on the first screen (${listings} px down)`);
      const firstRow = await page.getByText(TITLE).first().boundingBox();
      assert.ok(firstRow && firstRow.y < details, 'the first listing comes before the details');
      assert.equal(await sideways(page), 0, 'the site’s page does not scroll sideways');
      await session.noAxeViolations('a site’s page on a phone');
      await session.shot('phone-site', PHONE.width);
      session.noConsoleErrors();
    });

    test('on a phone, a product’s page does not scroll sideways', async () => {
      await page.setViewportSize(PHONE);
      await page.goto(`${baseUrl}/workspace/${workspaceId}/products/${productId}`);
      await page.getByRole('heading', { name: TITLE, level: 1 }).waitFor();
      await page.getByRole('heading', { name: 'Stock movements' }).waitFor();
      await page.getByRole('heading', { name: 'Listed on' }).waitFor();
      const overflow = await sideways(page);
      const wide = (await page.evaluate(`[...document.querySelectorAll('body *')]
        .filter((e) => e.getBoundingClientRect().right > document.documentElement.clientWidth + 0.5)
        .slice(0, 5).map((e) => e.tagName + '.' + e.className + ' ' + Math.round(e.getBoundingClientRect().right))`)) as string[];
      assert.equal(overflow, 0, `the product's page scrolls ${overflow} px sideways: ${wide.join(', ')}`);
      await session.noAxeViolations('a product’s page on a phone');
      await session.shot('phone-product', PHONE.width);
      await page.setViewportSize({ width: 1440, height: 900 });
      session.noConsoleErrors();
    });
  });
}
