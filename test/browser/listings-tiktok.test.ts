/**
 * The site's listings page for a TikTok Shop site in real headless Chromium, as test/browser/listings.test.ts drives
 * it for Etsy: a newcomer signs up, connects a sandbox TikTok Shop (the consent page's market left at its default, the
 * United States, whose shop sells in dollars), sets the warehouse from the shop's own list, and publishes a product
 * priced in USD, with no exchange rate to set (a 640x480 PNG uploaded, its package given, both through
 * the API) through "Publish products": a category's attributes built from what the API says (a text with TikTok's
 * suggestions in a datalist, the required Material), validate showing TikTok's listing check's warnings without
 * holding the publish back, then publish. The row says "In review on TikTok Shop" until the sandbox's audit
 * (`SANDBOX_REVIEW_SECONDS` on the test's clock, which the test moves) settles: the sandbox's webhook has the listing
 * read by the app's own workers, and the row turns Active; "Import listings" then finds that listing and keeps it.
 * Then the seller changes a SKU's price in Seller Center, outside Storelink (the sandbox's seller-edit route): the
 * watch's read (run at once, not at its six-hourly turn) has the row say "Changed on TikTok Shop" with both prices, and
 * "Take TikTok Shop's" makes the platform's price the catalogue's; a second change is undone on TikTok Shop by "Send
 * the catalogue's". Screenshots: test-results/screenshots/listings-tiktok-*.png. Any console error fails the run.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { setTikTokShopRateLimit } from '../../src/sandbox/tiktok-shop/product-store.js';
import { allowConsent, apiCaller, type BrowserSession, openBrowser, signUp } from '../helpers/browser.js';
import { dashboardDatabaseKinds } from '../helpers/database.js';
import { mug, PNG_640X480 } from '../helpers/fixtures.js';

/** Shorter than TikTok's 25 characters, so its listing check warns. */
const TITLE = 'Stoneware mug';
/** Publishing, then the listing's work on the sandbox shop (images uploaded, the product created): a few seconds. */
const DELIVERED_MS = 20_000;

interface ApiListing {
  id: number;
  external_id: string | null;
  status: string;
  sync_status: string;
  platform_status: string | null;
}

for (const kind of dashboardDatabaseKinds()) {
  describe(`the site listings page of a TikTok Shop site in a browser [${kind}]`, () => {
    let baseUrl: string;
    let page: Page;
    const user = { name: 'TikTok Seller', email: `listings-tiktok-${Date.now()}@example.com`, password: 'correct horse battery' };
    let workspaceId = '';
    let token = '';
    let productId = 0;
    let siteId = '';

    let session: BrowserSession;
    before(async () => {
      session = await openBrowser(kind);
      ({ baseUrl, page } = session);
      // The listing work and the reads a TikTok webhook asks for run on the app's own job workers, as in production.
      await session.t.deps.startWorkers();
      // The sandbox's per-second budget is timed by the test's clock, which stands still here: rate limits have tests of their own.
      setTikTokShopRateLimit(session.t.deps.sandbox, 1_000_000);
    });

    after(() => session?.close());

    const apiCall = apiCaller(
      () => baseUrl,
      () => ({ token, workspaceId }),
    );

    async function listings(): Promise<ApiListing[]> {
      const response = await apiCall('GET', `/sites/${siteId}/listings?page=1&per_page=100`);
      assert.equal(response.status, 200);
      return ((await response.json()) as { data: ApiListing[] }).data;
    }

    const row = () => page.getByRole('row').filter({ hasText: TITLE });

    /** The seller's edit of the product in TikTok's Seller Center, outside Storelink (the sandbox's own route). */
    async function editOnTikTok(externalId: string, edit: Record<string, unknown>) {
      const response = await fetch(`${baseUrl}/sandbox/tiktok-shop/accounts/41/listings/${externalId}`, {
        method: 'PATCH',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(edit),
      });
      assert.equal(response.status, 200, await response.text());
    }

    /** The prices of the product's SKUs on the sandbox shop (its inspection endpoint, not TikTok's API). */
    async function pricesOnTikTok(externalId: string): Promise<Record<string, string>> {
      const response = await fetch(`${baseUrl}/sandbox/tiktok-shop/accounts/41/listings`);
      assert.equal(response.status, 200);
      const products = (await response.json()) as { id: string; skus: { sku: string; price: string }[] }[];
      const product = products.find((p) => p.id === externalId)!;
      return Object.fromEntries(product.skus.map((sku) => [sku.sku, sku.price]));
    }

    test('a newcomer with a product in USD connects a sandbox TikTok Shop in the default market and lands on its listings page', async () => {
      ({ workspaceId, token } = await signUp(page, baseUrl, user));

      // TikTok Shop requires the package's weight and size.
      const created = await apiCall('POST', '/products', mug('TT-MUG', { colours: true, title: TITLE, currency: 'USD', packaged: true }));
      assert.equal(created.status, 201, await created.clone().text());
      productId = ((await created.json()) as { data: { id: number } }).data.id;
      // TikTok Shop takes only images it hosts, of at least 300x300: Storelink uploads the product's file to it.
      const form = new FormData();
      form.set('file', new Blob([PNG_640X480], { type: 'image/png' }), 'mug.png');
      const uploaded = await apiCall('POST', `/products/${productId}/images`, form);
      assert.equal(uploaded.status, 201, await uploaded.text());

      const authorization = await apiCall('POST', '/authenticate-site', { platform_id: 4 });
      assert.equal(authorization.status, 200);
      await page.goto(((await authorization.json()) as { data: { url: string } }).data.url);
      await page.getByText('Sandbox.').waitFor();
      await page.getByLabel('Sandbox account number').fill('41');
      // The seller's market is offered, the United States first and chosen unless the tester picks another.
      const market = page.getByLabel("The sandbox seller's market");
      assert.deepEqual(
        (await market.locator('option').allTextContents()).map((text) => text.split(':')[0]),
        ['United States', 'United Kingdom', 'Germany, EU'],
      );
      assert.equal(await market.inputValue(), 'US');
      await session.noAxeViolations('the TikTok Shop consent page with its market choice');
      siteId = await allowConsent(page);
      await page.getByRole('heading', { name: 'Listing settings' }).waitFor();
      await page.locator('.badge-connected', { hasText: 'Connected' }).waitFor();
      await page.locator('dd', { hasText: 'TikTok Shop' }).waitFor();
      await page.getByText('No listings yet.').waitFor();
      // Listings are offered on TikTok Shop sites: import and publish.
      await page.getByRole('button', { name: 'Import listings' }).waitFor();
      await page.getByRole('button', { name: 'Publish products…' }).waitFor();
      session.noConsoleErrors();
    });

    test("the warehouse is chosen from the shop's own list and saved", async () => {
      const warehouse = page.getByLabel('Warehouse');
      await warehouse.waitFor();
      assert.match((await page.locator('#setting-warehouse_id-hint').textContent()) ?? '', /TikTok Shop takes the listings' stock/);
      const labels = await warehouse.locator('option').allTextContents();
      assert.deepEqual(labels, ['Not set', 'Main warehouse (default)', 'Second warehouse']);
      // No Etsy setting is asked of a TikTok shop.
      assert.equal(await page.getByLabel('Shipping profile').count(), 0);
      await warehouse.selectOption({ label: 'Main warehouse (default)' });
      await session.shot('listings-tiktok-settings');
      await session.noAxeViolations('listings-tiktok-settings');
      await page.getByRole('button', { name: 'Save settings' }).click();
      await page.getByRole('status').filter({ hasText: 'Listing settings saved.' }).waitFor();

      const options = (await (await apiCall('GET', `/sites/${siteId}/listing-options`)).json()) as {
        data: { warehouse_id: { value: string; label: string }[] };
      };
      const saved = (await (await apiCall('GET', `/sites/${siteId}/listing-settings`)).json()) as { data: Record<string, unknown> };
      assert.equal(saved.data.warehouse_id, options.data.warehouse_id.find((w) => w.label === 'Main warehouse (default)')!.value);
      session.noConsoleErrors();
    });

    test("the product is validated (TikTok's warnings shown, not blocking) and published to Mugs with its Material", async () => {
      await page.getByRole('button', { name: 'Publish products…' }).click();
      const dialog = page.getByRole('dialog', { name: 'Publish products' });
      await dialog.waitFor();
      await dialog.getByLabel('Search the catalogue').fill('mug');
      await dialog.getByRole('checkbox', { name: TITLE }).check();
      await dialog.getByText('1 picked').waitFor();
      // TikTok's review is said before publishing; Etsy's fee is not.
      await dialog.getByText(/TikTok Shop reviews every new listing before buyers see it/).waitFor();
      assert.equal(await dialog.getByText(/USD 0\.20/).count(), 0);

      // Browsing the tree: T-shirts' Fabric is a text with TikTok's suggestions (pick one or type another).
      await dialog.getByRole('button', { name: /^Fashion/ }).click();
      await dialog.getByRole('button', { name: /^Tops/ }).click();
      await dialog.getByRole('radio', { name: 'T-shirts' }).check();
      const fabric = dialog.getByLabel(/Fabric/);
      await fabric.waitFor();
      assert.equal(await fabric.getAttribute('type'), 'text');
      assert.equal(await fabric.getAttribute('required'), '');
      const list = await fabric.getAttribute('list');
      assert.ok(list, 'the Fabric input offers suggestions');
      const suggestions = dialog.locator(`datalist#${list} option`);
      const values = await Promise.all((await suggestions.all()).map((option) => option.getAttribute('value')));
      assert.deepEqual(values, ['Cotton', 'Polyester']);
      await dialog.getByText('Pick a suggestion (Cotton, Polyester) or type your own.').waitFor();

      await dialog.getByLabel('Search categories').fill('mug');
      await dialog.getByRole('radio', { name: 'Home & Kitchen › Drinkware › Mugs' }).check();
      await dialog.getByText('Picked: Home & Kitchen › Drinkware › Mugs').waitFor();
      const material = dialog.getByLabel(/Material/);
      await material.waitFor();
      assert.equal(await material.getAttribute('required'), '');
      assert.match((await dialog.locator(`label[for="${await material.getAttribute('id')}"]`).textContent()) ?? '', /\(required\)/);
      // The brand is TikTok's select, optional; Capacity a free text.
      const brand = dialog.getByLabel(/Brand/);
      assert.equal(await brand.getAttribute('required'), null);
      assert.deepEqual(await brand.locator('option').allTextContents(), ['Choose…', 'Sandbox Home', 'Sandbox Threads']);
      assert.equal(await dialog.getByLabel(/Capacity/).getAttribute('type'), 'text');

      // Without the required Material, validating names it; nothing is stored.
      await dialog.getByRole('button', { name: 'Validate' }).click();
      await dialog.getByText(`${TITLE}: one problem; nothing was published.`).waitFor();
      await dialog.getByText(/Material is required/).waitFor();
      await material.selectOption({ label: 'Ceramic' });
      await dialog.getByLabel(/Capacity/).fill('350 ml');

      // TikTok's listing check warns of the short title: ready to publish all the same.
      await dialog.getByRole('button', { name: 'Validate' }).click();
      await dialog.getByText(new RegExp(`^${TITLE}: ready to publish, with (one warning|\\d+ warnings) from TikTok Shop`)).waitFor();
      const warning = dialog.locator('.issue-warning').filter({ hasText: 'Use a title of at least 25 characters.' });
      await warning.waitFor();
      assert.match((await warning.textContent()) ?? '', /^Warning: Title: .*\(TikTok Shop’s words\)/);
      assert.deepEqual(await listings(), [], 'validating stores nothing');
      await session.shot('listings-tiktok-publish-validated');
      await session.noAxeViolations('listings-tiktok-publish-validated');

      const publish = dialog.getByRole('button', { name: 'Publish', exact: true });
      assert.equal(await publish.isEnabled(), true, 'warnings do not hold the publish back');
      await publish.click();
      await dialog.getByText(`${TITLE}: published: the listing is on its way (pending).`).waitFor();
      await dialog.getByRole('button', { name: 'Close' }).click();
      await dialog.waitFor({ state: 'hidden' });
      session.noConsoleErrors();
    });

    test('the row says "In review on TikTok Shop" while TikTok audits it', async () => {
      await row().getByText('In review on TikTok Shop', { exact: true }).waitFor({ timeout: DELIVERED_MS });
      await row()
        .getByText(/TikTok Shop reviews the listing before buyers see it/)
        .waitFor();
      await row().getByText('Pending review', { exact: true }).waitFor();
      await page.getByRole('status').filter({ hasText: 'Updating while TikTok Shop reviews listings…' }).waitFor();
      assert.equal(await page.getByRole('columnheader', { name: 'On TikTok Shop' }).count(), 1);
      const [listing] = await listings();
      assert.equal(listing?.status, 'in_review');
      // The filter keeps the plain word.
      assert.deepEqual(await page.getByLabel('Status').locator('option', { hasText: 'In review' }).allTextContents(), ['In review']);
      await session.shot('listings-tiktok-in-review');
      await session.noAxeViolations('listings-tiktok-in-review');
      session.noConsoleErrors();
    });

    test("once TikTok's review passes, its webhook has the listing read and the row turns Active", async () => {
      // The sandbox's audit takes SANDBOX_REVIEW_SECONDS by the app's clock: moving it lets the sandbox settle the audit
      // (it sweeps each second) and send its webhook; the app's workers read the listing; the page polls every 5 s.
      session.t.clock.advance(session.t.deps.config.sandboxReviewSeconds * 1000);
      await row().getByText('Active', { exact: true }).waitFor({ timeout: DELIVERED_MS });
      await row().getByText('Synced', { exact: true }).waitFor();
      await row().getByText('$18.00').waitFor();
      const [listing] = await listings();
      assert.equal(listing?.status, 'active');
      assert.equal(listing?.platform_status, 'ACTIVATE');
      await page.getByRole('status').filter({ hasText: '1 listing.' }).waitFor();
      await session.shot('listings-tiktok-active');
      await session.noAxeViolations('listings-tiktok-active');
      session.noConsoleErrors();
    });

    test('the product page says it is listed on the TikTok Shop site, linking to it', async () => {
      await row().getByRole('link', { name: TITLE, exact: true }).click();
      await page.waitForURL(`${baseUrl}/workspace/${workspaceId}/products/${productId}`);
      const listed = page.getByRole('region', { name: 'Listed on' });
      await listed.getByText('Active', { exact: true }).waitFor();
      await listed.getByRole('link', { name: /\(TikTok Shop\)/ }).click();
      await page.waitForURL(`${baseUrl}/site/${siteId}/listings`);
      await row().waitFor();
      session.noConsoleErrors();
    });

    test('"Import listings" reads the TikTok shop: the listing Storelink made is found and kept, not doubled', async () => {
      await page.getByRole('button', { name: 'Import listings' }).click();
      const confirm = page.getByRole('alertdialog', { name: /Import the listings this TikTok Shop already has\?/ });
      await confirm.getByText(/Nothing is changed on TikTok Shop/).waitFor();
      await confirm.getByRole('button', { name: 'Yes, import' }).click();
      await page
        .getByRole('status')
        .filter({ hasText: /Import done\. 1 found: 0 products made, 0 linked by SKU, 1 already here/ })
        .waitFor();
      assert.equal((await listings()).length, 1);
      await row().getByText('Active', { exact: true }).waitFor();
      await session.shot('listings-tiktok-imported');
      await session.noAxeViolations('listings-tiktok-imported');
      session.noConsoleErrors();
    });

    test("a price changed in Seller Center shows as Changed on TikTok Shop; Take TikTok Shop's brings it into the catalogue", async () => {
      const [listing] = await listings();
      await editOnTikTok(listing!.external_id!, { skus: [{ sku: 'TT-MUG-W', price: '21.00' }] });
      // The watch's read of the listing, run now rather than at its six-hourly turn.
      await session.t.deps.listingWatch.read({ listingId: listing!.id });
      await page.reload();
      const changes = row().locator('.platform-changes');
      await changes.getByText('Changed on TikTok Shop', { exact: true }).waitFor();
      assert.deepEqual(await changes.locator('li').allTextContents(), ['TT-MUG-W price: TikTok Shop “21.00”, catalogue “18.00”']);
      await session.shot('listings-tiktok-changed-on-tiktok');
      await session.noAxeViolations('listings-tiktok-changed-on-tiktok');
      await changes.getByRole('button', { name: `Take TikTok Shop’s values for ${TITLE}` }).click();
      // The catalogue's change goes to the listing like any other (TikTok holds it already): the page polls meanwhile.
      await changes.waitFor({ state: 'detached', timeout: DELIVERED_MS });
      await row().getByText('Synced', { exact: true }).waitFor({ timeout: DELIVERED_MS });
      await row().getByText('$21.00').waitFor();
      const product = (await (await apiCall('GET', `/products/${productId}`)).json()) as {
        data: { variants: { sku: string; price: string }[] };
      };
      assert.deepEqual(
        product.data.variants.map((v) => [v.sku, v.price]),
        [
          ['TT-MUG-W', '21.00'],
          ['TT-MUG-B', '19.50'],
        ],
      );
      assert.deepEqual(await pricesOnTikTok(listing!.external_id!), { 'TT-MUG-W': '21.00', 'TT-MUG-B': '19.50' });
      session.noConsoleErrors();
    });

    test("a second change there, Send the catalogue's puts the catalogue's price back on TikTok Shop", async () => {
      const [listing] = await listings();
      await editOnTikTok(listing!.external_id!, { skus: [{ sku: 'TT-MUG-B', price: '24.00' }] });
      await session.t.deps.listingWatch.read({ listingId: listing!.id });
      await page.reload();
      const changes = row().locator('.platform-changes');
      await changes.getByText('TT-MUG-B price: TikTok Shop “24.00”, catalogue “19.50”').waitFor();
      await changes.getByRole('button', { name: `Send the catalogue’s values for ${TITLE}` }).click();
      await changes.waitFor({ state: 'detached', timeout: DELIVERED_MS });
      await row().getByText('Synced', { exact: true }).waitFor({ timeout: DELIVERED_MS });
      assert.deepEqual(await pricesOnTikTok(listing!.external_id!), { 'TT-MUG-W': '21.00', 'TT-MUG-B': '19.50' });
      const product = (await (await apiCall('GET', `/products/${productId}`)).json()) as { data: { variants: { price: string }[] } };
      assert.deepEqual(
        product.data.variants.map((v) => v.price),
        ['21.00', '19.50'],
        'the catalogue is left as it was',
      );
      await session.shot('listings-tiktok-catalogue-sent');
      await session.noAxeViolations('listings-tiktok-catalogue-sent');
      session.noConsoleErrors();
    });
  });
}
