/**
 * The site's listings page in real headless Chromium, as test/browser/products.test.ts drives the Products pages: one
 * signed-up seller with a product (made, and its image uploaded, through the API) connects the sandbox Etsy shop, sets
 * the site's listing settings from the shop's own choices, publishes the product through "Publish products" (a leaf
 * category found by search, its required attributes, validate, then publish), watches the row reach active and synced
 * as the job workers deliver it, deactivates it, and sees where it is listed from the product page. Every state is saved
 * as test-results/screenshots/listings-*.png. Any console error fails the run, but for the browser's own log line of the
 * 422 the test provokes on purpose.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { allowConsent, apiCaller, type BrowserSession, isFocused, openBrowser, signUp } from '../helpers/browser.js';
import { dashboardDatabaseKinds } from '../helpers/database.js';
import { mug, PNG_640X480 } from '../helpers/fixtures.js';

const TITLE = 'Stoneware mug';
/** Chromium logs every 4xx answer of a fetch as a console error; a refused save is one the test asks for. */
const REFUSED = /Failed to load resource: the server responded with a status of 422/;
/** Publishing, then the listing's work on the sandbox shop: a few seconds; the page polls every 2 s. */
const DELIVERED_MS = 30_000;

interface ApiListing {
  id: number;
  status: string;
  sync_status: string;
  external_url: string | null;
}

for (const kind of dashboardDatabaseKinds()) {
  describe(`the site listings page in a browser [${kind}]`, () => {
    let baseUrl: string;
    let page: Page;
    const user = { name: 'Listing Seller', email: `listings-${Date.now()}@example.com`, password: 'correct horse battery' };
    let workspaceId = '';
    let token = '';
    let productId = 0;
    let siteId = '';

    let session: BrowserSession;
    before(async () => {
      session = await openBrowser(kind);
      ({ baseUrl, page } = session);
      // The listing work runs on the app's own job workers, as in production: the page sees it arrive by polling.
      await session.t.deps.startWorkers();
      // The sandbox's per-second budget is timed by the test's clock, which stands still here: rate limits have tests of their own.
      Object.assign(session.t.deps.sandbox.etsyLimits, { perSecond: 1_000_000, perDay: 1_000_000_000 });
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

    test('a seller with a product connects the sandbox Etsy shop and lands on its listings page', async () => {
      ({ workspaceId, token } = await signUp(page, baseUrl, user));

      const created = await apiCall('POST', '/products', mug('MUG', { colours: true, title: TITLE }));
      assert.equal(created.status, 201, await created.clone().text());
      productId = ((await created.json()) as { data: { id: number } }).data.id;
      const form = new FormData();
      form.set('file', new Blob([PNG_640X480], { type: 'image/png' }), 'mug.png');
      const uploaded = await apiCall('POST', `/products/${productId}/images`, form);
      assert.equal(uploaded.status, 201, await uploaded.text());

      const authorization = await apiCall('POST', '/authenticate-site', { platform_id: 1 });
      assert.equal(authorization.status, 200);
      await page.goto(((await authorization.json()) as { data: { url: string } }).data.url);
      await page.getByText('Sandbox.').waitFor();
      await page.getByLabel('Sandbox account number').fill('1');
      siteId = await allowConsent(page);
      await page.getByRole('heading', { name: 'Listing settings' }).waitFor();
      await page.getByText('No listings yet.').waitFor();
      await page.locator('.badge-connected', { hasText: 'Connected' }).waitFor();
      session.noConsoleErrors();
    });

    test("before the site's settings are set, Validate names each one in words, moves the focus to the results, links no API path, and the settings are set inside the dialog, the picks kept", async () => {
      await page.getByRole('button', { name: 'Publish products…' }).click();
      const dialog = page.getByRole('dialog', { name: 'Publish products' });
      await dialog.getByLabel('Search the catalogue').fill('mug');
      await dialog.getByRole('checkbox', { name: TITLE }).check();
      await dialog.getByLabel('Search categories').fill('tote');
      await dialog.getByRole('radio', { name: 'Bags & Purses › Totes › Canvas Totes' }).check();
      await dialog.getByLabel(/Primary color/).selectOption({ label: 'Blue' });
      await dialog.getByRole('button', { name: 'Validate' }).click();
      const results = dialog.getByRole('heading', { name: 'Results' });
      await results.waitFor();
      // Focus moves once every picked product's answer is in (one here); a loaded machine takes its time.
      const until = Date.now() + 15_000;
      while (!(await isFocused(results))) {
        assert.ok(
          Date.now() < until,
          `the results have the focus, not ${await page.evaluate('document.activeElement?.outerHTML.slice(0, 200)')}`,
        );
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      const issues = dialog.locator('.issue');
      await issues.first().waitFor();
      const said = await issues.allTextContents();
      assert.ok(
        said.some((text) => text.startsWith('Shipping profile (site settings): Not set yet: every listing on this site needs it.')),
        said.join(' | '),
      );
      for (const text of said) assert.doesNotMatch(text, /\/sites\/|\{site_id\}|_id\b|variants \d/, 'no API path or field key');
      await session.shot('listings-publish-settings-missing');
      await session.noAxeViolations('listings-publish-settings-missing');
      // The settings are set inside the dialog, which keeps the seller's picks; Validate again reads them.
      await dialog.getByRole('button', { name: 'Set the site’s listing settings here' }).click();
      const settingsHeading = dialog.getByRole('heading', { name: 'Listing settings' });
      await settingsHeading.waitFor();
      const focusBy = Date.now() + 5_000;
      while (!(await isFocused(settingsHeading))) {
        assert.ok(Date.now() < focusBy, 'the listing settings have the focus');
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      for (const label of ['Shipping profile', 'Return policy', 'Processing profile']) {
        await dialog.getByLabel(label).selectOption({ index: 1 });
      }
      await dialog.getByLabel('Who made it').selectOption('i_did');
      await dialog.getByLabel('When it was made').selectOption('made_to_order');
      await session.shot('listings-publish-settings-in-dialog');
      await session.noAxeViolations('listings-publish-settings-in-dialog');
      await dialog.getByRole('button', { name: 'Save settings' }).click();
      await dialog.getByRole('status').filter({ hasText: 'Listing settings saved.' }).waitFor();
      await dialog.getByText('1 picked').waitFor();
      await dialog.getByText('Picked: Bags & Purses › Totes › Canvas Totes').waitFor();
      await dialog.getByRole('button', { name: 'Validate' }).click();
      await dialog.getByText(`${TITLE}: ready to publish, no problems.`).waitFor();
      // The page's own copy of the settings, under the dialog, reads what the dialog saved.
      const saved = (await (await apiCall('GET', `/sites/${siteId}/listing-settings`)).json()) as { data: Record<string, unknown> };
      assert.match(String(saved.data.shipping_profile_id), /^\d+$/);
      assert.equal(saved.data.who_made, 'i_did');
      await dialog.getByRole('button', { name: 'Close' }).click();
      await dialog.waitFor({ state: 'hidden' });
      assert.equal(await page.getByLabel('Who made it').inputValue(), 'i_did');
      await page.getByRole('button', { name: 'Publish products…' }).click();
      await dialog.getByText('1 picked').waitFor();
      // Left as the next test finds a new dialog: no colour chosen.
      await dialog.getByLabel(/Primary color/).selectOption({ index: 0 });
      await dialog.getByRole('button', { name: 'Close' }).click();
      await dialog.waitFor({ state: 'hidden' });
      session.noConsoleErrors([REFUSED]);
    });

    test("the listing settings are set from the shop's own choices and saved whole", async () => {
      const shipping = page.getByLabel('Shipping profile');
      await shipping.waitFor();
      // Each select's first choice after "Not set" is one the sandbox shop offers.
      for (const label of ['Shipping profile', 'Return policy', 'Processing profile']) {
        await page.getByLabel(label).selectOption({ index: 1 });
      }
      await page.getByLabel('Who made it').selectOption('i_did');
      await page.getByLabel('When it was made').selectOption('made_to_order');
      // A value out of range is refused by the API and its message shown at the field.
      await page.getByLabel('Price adjustment (%)').fill('600');
      await page.getByRole('button', { name: 'Save settings' }).click();
      await page.locator('#setting-price_adjustment_percent-error').waitFor();
      assert.equal(await page.getByLabel('Price adjustment (%)').getAttribute('aria-invalid'), 'true');
      session.noConsoleErrors([REFUSED]);
      await page.getByLabel('Price adjustment (%)').fill('10');
      // The shop's currency, read from Etsy, is what the rates convert into; a rate of 0 is refused, naming its currency.
      await page.getByText("From a product's currency into this site's (USD)").waitFor();
      await page.getByLabel('Exchange rates').fill('eur 1.08\nGBP 0');
      await page.getByRole('button', { name: 'Save settings' }).click();
      await page.locator('#setting-exchange_rates-error', { hasText: 'GBP:' }).waitFor();
      session.noConsoleErrors([REFUSED]);
      await page.getByLabel('Exchange rates').fill('eur 1.08\nGBP: 1.27');
      await page.getByLabel('Stock buffer').fill('1');
      await session.shot('listings-settings');
      await session.noAxeViolations('listings-settings');
      await page.getByRole('button', { name: 'Save settings' }).click();
      await page.getByRole('status').filter({ hasText: 'Listing settings saved.' }).waitFor();

      const saved = await apiCall('GET', `/sites/${siteId}/listing-settings`);
      const settings = ((await saved.json()) as { data: Record<string, unknown> }).data;
      assert.equal(settings.who_made, 'i_did');
      assert.equal(settings.when_made, 'made_to_order');
      assert.equal(settings.price_adjustment_percent, 10);
      assert.equal(settings.stock_buffer, 1);
      assert.deepEqual(settings.exchange_rates, { EUR: '1.08', GBP: '1.27' });
      assert.equal(settings.is_supply, false);
      assert.match(String(settings.shipping_profile_id), /^\d+$/);
      session.noConsoleErrors();
    });

    test('the product is validated, then published to a leaf category found by search, with the Etsy fee said first', async () => {
      await page.getByRole('button', { name: 'Publish products…' }).click();
      const dialog = page.getByRole('dialog', { name: 'Publish products' });
      await dialog.waitFor();
      await dialog.getByLabel('Search the catalogue').fill('mug');
      await dialog.getByRole('checkbox', { name: TITLE }).check();
      await dialog.getByText('1 picked').waitFor();
      await dialog
        .getByText('Etsy charges the seller USD 0.20 for each published listing. Publishing this product makes one listing: USD 0.20')
        .waitFor();

      await dialog.getByLabel('Search categories').fill('tote');
      // "Totes" has subcategories and offers only to open them; "Canvas Totes" is a leaf and can be picked.
      await dialog.getByRole('button', { name: /Bags & Purses › Totes \(has subcategories/ }).waitFor();
      await dialog.getByRole('radio', { name: 'Bags & Purses › Totes › Canvas Totes' }).check();
      await dialog.getByText('Picked: Bags & Purses › Totes › Canvas Totes').waitFor();
      const color = dialog.getByLabel(/Primary color/);
      await color.waitFor();
      assert.equal(await color.getAttribute('required'), '');
      // Validating without the required attribute names it, in the product's results; nothing is stored.
      await dialog.getByRole('button', { name: 'Validate' }).click();
      await dialog.getByText(`${TITLE}: one problem; nothing was published.`).waitFor();
      await dialog.getByText('Primary color is required in this category.').waitFor();
      await color.selectOption({ label: 'Blue' });

      await dialog.getByRole('button', { name: 'Validate' }).click();
      await dialog.getByText(`${TITLE}: ready to publish, no problems.`).waitFor();
      assert.deepEqual(await listings(), [], 'validating stores nothing');
      await session.shot('listings-publish-dialog');
      await session.noAxeViolations('listings-publish-dialog');

      await dialog.getByRole('button', { name: 'Publish', exact: true }).click();
      await dialog.getByText(`${TITLE}: published: the listing is on its way (pending).`).waitFor();
      await session.shot('listings-publish-dialog-published');
      await session.noAxeViolations('listings-publish-dialog-published');
      await dialog.getByRole('button', { name: 'Close' }).click();
      await dialog.waitFor({ state: 'hidden' });
      session.noConsoleErrors();
    });

    test('the row reaches active and synced live, with the listed price, quantity and a link to the listing on Etsy', async () => {
      await row().getByText('Active', { exact: true }).waitFor({ timeout: DELIVERED_MS });
      await row().getByText('Synced', { exact: true }).waitFor({ timeout: DELIVERED_MS });
      // The price raised by the site's 10 %, the stock less its buffer of 1.
      await row().getByText('$19.80').waitFor();
      // The stock of both variants in all (White 4 and Blue 2, each less the buffer), the prices as a range.
      assert.equal((await row().getByRole('cell').nth(4).textContent())?.trim(), '4 in all');
      assert.match((await row().getByRole('cell').nth(3).textContent()) ?? '', /^\$19\.80–\$21\.45 \(2 variants\)$/);
      const link = row().getByRole('link', { name: /View/ });
      assert.match((await link.getAttribute('href')) ?? '', /^https:\/\/www\.etsy\.com\/listing\/\d+/);
      const [listing] = await listings();
      assert.equal(listing?.status, 'active');
      assert.equal(listing?.sync_status, 'synced');
      await page.getByRole('status').filter({ hasText: '1 listing.' }).waitFor();
      await session.shot('listings-table-active');
      await session.noAxeViolations('listings-table-active');
      session.noConsoleErrors();
    });

    test('deactivating shows syncing, then inactive once Etsy has it', async () => {
      await row()
        .getByRole('button', { name: `Deactivate ${TITLE}` })
        .click();
      await row().getByText('Inactive', { exact: true }).waitFor({ timeout: DELIVERED_MS });
      await row().getByText('Synced', { exact: true }).waitFor({ timeout: DELIVERED_MS });
      await row()
        .getByRole('button', { name: `Activate ${TITLE}` })
        .waitFor();
      const [listing] = await listings();
      assert.equal(listing?.status, 'inactive');
      await page.getByLabel('Status').selectOption('active');
      await page.getByText('No listings have this status.').waitFor();
      await page.getByLabel('Status').selectOption('inactive');
      await row().waitFor();
      await session.shot('listings-table-inactive');
      await session.noAxeViolations('listings-table-inactive');
      session.noConsoleErrors();
    });

    test('the product page says where the product is listed, linking to the site', async () => {
      await row().getByRole('link', { name: TITLE, exact: true }).click();
      await page.waitForURL(`${baseUrl}/workspace/${workspaceId}/products/${productId}`);
      const listed = page.getByRole('region', { name: 'Listed on' });
      await listed.getByText('Inactive', { exact: true }).waitFor();
      await session.noAxeViolations('the product page');
      await listed.getByRole('link', { name: /\(Etsy\)/ }).click();
      await page.waitForURL(`${baseUrl}/site/${siteId}/listings`);
      await row().waitFor();
      session.noConsoleErrors();
    });

    test("the listing's page takes a title and a price of its own for Etsy, refused at the field when Etsy would refuse it", async () => {
      const [listing] = await listings();
      await page.goto(`${baseUrl}/site/${siteId}/listings/${listing!.id}`);
      const editor = page.getByRole('region', { name: 'On Etsy only' });
      await editor.getByLabel('Title').fill('x'.repeat(141));
      await editor.getByRole('button', { name: 'Save for Etsy' }).click();
      await editor.locator('#override-title-error').waitFor();
      session.noConsoleErrors([REFUSED]);
      await editor.getByLabel('Title').fill(`${TITLE}, holiday edition`);
      await editor.getByLabel('Price of MUG-B on Etsy').fill('24.00');
      await session.shot('listing-overrides');
      await session.noAxeViolations('listing-overrides');
      await editor.getByRole('button', { name: 'Save for Etsy' }).click();
      await editor.getByRole('status').filter({ hasText: 'Saved: on its way to Etsy.' }).waitFor();
      const saved = ((await (await apiCall('GET', `/listings/${listing!.id}`)).json()) as { data: { overrides: unknown } }).data;
      assert.deepEqual(saved.overrides, { title: `${TITLE}, holiday edition`, variants: [{ sku: 'MUG-B', price: '24.00' }] });
      // The shop has them once the listing's work ran: the title, and the price as given (no adjustment on top).
      await page.getByText(`${TITLE}, holiday edition`, { exact: true }).waitFor();
      const deadline = Date.now() + DELIVERED_MS;
      for (;;) {
        const held = (await (await fetch(`${baseUrl}/sandbox/etsy/accounts/1/listings`)).json()) as {
          title: string;
          skus: { sku: string; price: string | number }[];
        }[];
        const blue = held[0]?.skus.find((sku) => sku.sku === 'MUG-B');
        if (held[0]?.title === `${TITLE}, holiday edition` && Number(blue?.price) === 24) break;
        assert.ok(Date.now() < deadline, `the shop holds ${JSON.stringify(held)}`);
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      await page.goto(`${baseUrl}/site/${siteId}/listings`);
      await row().waitFor();
      session.noConsoleErrors();
    });

    test('deleting asks first, then the listing is removed from the shop and its row says deleted', async () => {
      await row()
        .getByRole('button', { name: `Delete ${TITLE}` })
        .click();
      const confirm = page.getByRole('dialog', { name: `Remove “${TITLE}” from Etsy?` });
      await confirm.waitFor();
      await confirm.getByRole('button', { name: 'Cancel' }).click();
      await confirm.waitFor({ state: 'hidden' });
      await row()
        .getByRole('button', { name: `Delete ${TITLE}` })
        .click();
      await confirm.getByRole('button', { name: 'Yes, delete the listing' }).click();
      await row().getByText('Deleted', { exact: true }).waitFor({ timeout: DELIVERED_MS });
      await row().getByText('Synced', { exact: true }).waitFor({ timeout: DELIVERED_MS });
      session.noConsoleErrors();
    });
  });
}
