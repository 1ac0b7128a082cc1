/**
 * The site's listings page for an Amazon seller site in real headless Chromium, as test/browser/listings-tiktok.test.ts
 * drives it for TikTok Shop: a newcomer signs up, connects a sandbox Amazon seller account, sets the marketplace
 * (Amazon.com (US)) and the condition from the site's own choices, and publishes a product priced in USD with a brand
 * and a barcode on each variant (a 640x480 PNG uploaded, both through the API) through "Publish products": the product
 * type Kitchen found by search, its schema's enum Material a select of its choices, validate (the schema checked, then
 * Amazon's VALIDATION_PREVIEW) showing it ready, then publish. The row says "In review on Amazon" while Amazon processes
 * the SKUs (`SANDBOX_REVIEW_SECONDS` on the test's clock, which the test moves); Amazon sends no webhook, so the
 * listing watch's sweep (due every minute for listings in review) queues the read and the app's own workers run it: the
 * row turns Active. The sandbox's inspection then holds the family: its parent (no price) and both SKUs at their
 * prices. The publish form asks for a barcode or an existing ASIN as one choice. Then the seller changes a SKU's
 * price in Seller Central, outside Storelink (the sandbox's seller-edit route): the watch's read (run at once, not at
 * its six-hourly turn) has the row say "Changed on Amazon" with both prices, and "Send the catalogue's" puts the
 * catalogue's price back on the account; a second change is taken into the catalogue by "Take Amazon's". Screenshots:
 * test-results/screenshots/listings-amazon-*.png. Any console error fails the run.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { READ_EVERY_SECONDS } from '../../src/core/listings/listing-watch.js';
import { setAmazonSellerRateLimit } from '../../src/sandbox/amazon-seller/listings-rate-limits.js';
import { allowConsent, apiCaller, assertCount, type BrowserSession, openBrowser, signUp } from '../helpers/browser.js';
import { dashboardDatabaseKinds } from '../helpers/database.js';
import { mug, PNG_640X480 } from '../helpers/fixtures.js';

const TITLE = 'Stoneware mug';
/** The sandbox seller account connected. */
const ACCOUNT = '51';
/** Publishing, then the listing's work on the sandbox account (each SKU put): a few seconds. */
const DELIVERED_MS = 20_000;

interface ApiListing {
  id: number;
  status: string;
  sync_status: string;
  platform_status: string | null;
  external_url: string | null;
  marketplace_id: string | null;
}

interface HeldSku {
  id: string;
  title: string;
  state: string;
  skus: { sku: string; price: string | null; quantity: number }[];
  asin: string;
}

for (const kind of dashboardDatabaseKinds()) {
  describe(`the site listings page of an Amazon seller site in a browser [${kind}]`, () => {
    let baseUrl: string;
    let page: Page;
    const user = { name: 'Amazon Seller', email: `listings-amazon-${Date.now()}@example.com`, password: 'correct horse battery' };
    let workspaceId = '';
    let token = '';
    let siteId = '';
    let productId = 0;

    let session: BrowserSession;
    before(async () => {
      session = await openBrowser(kind);
      ({ baseUrl, page } = session);
      // The listing work and the watch's reads run on the app's own job workers, as in production.
      await session.t.deps.startWorkers();
      // The sandbox's usage plans are timed by the test's clock, which the test moves: rate limits have tests of their own.
      setAmazonSellerRateLimit(session.t.deps.sandbox, 1_000_000);
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

    /** What the sandbox Amazon account holds, by SKU (its inspection endpoint, not the SP-API). */
    async function held(): Promise<HeldSku[]> {
      const response = await fetch(`${baseUrl}/sandbox/amazon-seller/accounts/${ACCOUNT}/listings`);
      assert.equal(response.status, 200);
      return (await response.json()) as HeldSku[];
    }

    const row = () => page.getByRole('row').filter({ hasText: TITLE });

    /** The seller's edit of one SKU in Amazon's Seller Central, outside Storelink (the sandbox's own route). */
    async function editOnAmazon(sku: string, edit: { price?: string; quantity?: number; fulfillment_channel?: string }) {
      const response = await fetch(`${baseUrl}/sandbox/amazon-seller/accounts/${ACCOUNT}/listings/${sku}`, {
        method: 'PATCH',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(edit),
      });
      assert.equal(response.status, 200, await response.text());
    }

    test('a newcomer with a branded, barcoded product in USD connects a sandbox Amazon account and lands on its listings page', async () => {
      ({ workspaceId, token } = await signUp(page, baseUrl, user));

      // Amazon identifies a new product by its brand and each SKU's barcode (a UPC, an EAN).
      const created = await apiCall(
        'POST',
        '/products',
        mug('AMZ-MUG', { colours: true, title: TITLE, brand: 'Sandbox Pottery', barcodes: ['012345678905', '4006381333931'] }),
      );
      assert.equal(created.status, 201, await created.clone().text());
      productId = ((await created.json()) as { data: { id: number } }).data.id;
      const form = new FormData();
      form.set('file', new Blob([PNG_640X480], { type: 'image/png' }), 'mug.png');
      const uploaded = await apiCall('POST', `/products/${productId}/images`, form);
      assert.equal(uploaded.status, 201, await uploaded.text());

      const authorization = await apiCall('POST', '/authenticate-site', { platform_id: 5 });
      assert.equal(authorization.status, 200);
      await page.goto(((await authorization.json()) as { data: { url: string } }).data.url);
      await page.getByText('Sandbox.').waitFor();
      await page.getByLabel('Sandbox account number').fill(ACCOUNT);
      siteId = await allowConsent(page);
      await page.getByRole('heading', { name: 'Listing settings' }).waitFor();
      await page.locator('.badge-connected', { hasText: 'Connected' }).waitFor();
      await page.locator('dd', { hasText: 'Amazon' }).first().waitFor();
      await page.getByText('No listings yet.').waitFor();
      await page.getByRole('button', { name: 'Publish products…' }).waitFor();
      session.noConsoleErrors();
    });

    test("the marketplace and the condition are chosen from the account's own lists and saved", async () => {
      const marketplace = page.getByLabel('Marketplace');
      await marketplace.waitFor();
      assert.match((await page.locator('#setting-marketplace_id-hint').textContent()) ?? '', /one of the marketplaces the seller sells in/);
      assert.deepEqual(await marketplace.locator('option').allTextContents(), ['Not set', 'Amazon.com (US)', 'Amazon.ca (CA)']);
      const condition = page.getByLabel('Condition');
      assert.ok((await condition.locator('option').allTextContents()).includes('New'));
      // No Etsy or TikTok Shop setting is asked of an Amazon site.
      assert.equal(await page.getByLabel('Shipping profile').count(), 0);
      assert.equal(await page.getByLabel('Warehouse').count(), 0);
      await marketplace.selectOption({ label: 'Amazon.com (US)' });
      await condition.selectOption({ label: 'New' });
      await session.shot('listings-amazon-settings');
      await session.noAxeViolations('listings-amazon-settings');
      await page.getByRole('button', { name: 'Save settings' }).click();
      await page.getByRole('status').filter({ hasText: 'Listing settings saved.' }).waitFor();

      const saved = (await (await apiCall('GET', `/sites/${siteId}/listing-settings`)).json()) as { data: Record<string, unknown> };
      assert.equal(saved.data.marketplace_id, 'ATVPDKIKX0DER');
      assert.equal(saved.data.condition_type, 'new_new');
      session.noConsoleErrors();
    });

    test('the product is validated (the schema, then Amazon’s preview) and published as a Kitchen product of its Material', async () => {
      await page.getByRole('button', { name: 'Publish products…' }).click();
      const dialog = page.getByRole('dialog', { name: 'Publish products' });
      await dialog.waitFor();
      await dialog.getByLabel('Search the catalogue').fill('mug');
      await dialog.getByRole('checkbox', { name: TITLE }).check();
      await dialog.getByText('1 picked').waitFor();
      // Amazon's processing is said before publishing; Etsy's fee is not.
      await dialog.getByText(/Amazon processes a new listing before it is buyable/).waitFor();
      assert.equal(await dialog.getByText(/USD 0\.20/).count(), 0);

      // Product types are the categories: a search finds Kitchen for a mug.
      await dialog.getByLabel('Search categories').fill('mug');
      await dialog.getByRole('radio', { name: 'Kitchen' }).check();
      await dialog.getByText('Picked: Kitchen').waitFor();
      // The schema's enum is a select of its choices.
      const material = dialog.getByLabel(/Material/);
      await material.waitFor();
      assert.equal(await material.evaluate((element) => element.tagName), 'SELECT');
      const choices = await material.locator('option').allTextContents();
      for (const choice of ['Ceramic', 'Glass', 'Stoneware', 'Wood']) assert.ok(choices.includes(choice), `${choice} in ${choices}`);
      await material.selectOption({ label: 'Stoneware' });
      // A barcode or an existing ASIN: one choice, only the chosen one's field shown.
      const asinField = dialog.getByLabel(/ASIN to offer on/);
      const barcodeField = dialog.getByLabel(/Barcode \(UPC, EAN or GTIN\)/);
      const byBarcode = dialog.getByRole('radio', { name: /by each variant’s barcode/ });
      assert.equal(await byBarcode.isChecked(), true);
      assert.deepEqual([await barcodeField.count(), await asinField.count()], [1, 0]);
      await dialog.getByRole('radio', { name: /An offer on an existing Amazon product/ }).check();
      await asinField.waitFor();
      assert.equal(await barcodeField.count(), 0);
      await byBarcode.check();
      await barcodeField.waitFor();
      assert.equal(await asinField.count(), 0);

      await dialog.getByRole('button', { name: 'Validate' }).click();
      await dialog
        .getByText(new RegExp(`^${TITLE}: ready to publish, (no problems\\.|with (one warning|\\d+ warnings) from Amazon)`))
        .waitFor();
      assert.deepEqual(await listings(), [], 'validating stores nothing');
      assert.deepEqual(await held(), [], 'a preview puts nothing on the account');
      await session.shot('listings-amazon-publish-validated');
      await session.noAxeViolations('listings-amazon-publish-validated');

      const publish = dialog.getByRole('button', { name: 'Publish', exact: true });
      assert.equal(await publish.isEnabled(), true);
      await publish.click();
      await dialog.getByText(`${TITLE}: published: the listing is on its way (pending).`).waitFor();
      await dialog.getByRole('button', { name: 'Close' }).click();
      await dialog.waitFor({ state: 'hidden' });
      session.noConsoleErrors();
    });

    test('the row says "In review on Amazon" while Amazon processes the SKUs', async () => {
      await row().getByText('In review on Amazon', { exact: true }).waitFor({ timeout: DELIVERED_MS });
      await row()
        .getByText(/Amazon processes the listing before buyers can buy it/)
        .waitFor();
      await page.getByRole('status').filter({ hasText: 'Updating while Amazon reviews listings…' }).waitFor();
      const [listing] = await listings();
      assert.equal(listing?.status, 'in_review');
      assert.equal(listing?.platform_status, 'ACCEPTED');
      assert.equal(listing?.marketplace_id, 'ATVPDKIKX0DER');
      assert.deepEqual(
        (await held()).map((s) => [s.id, s.state]),
        [
          ['AMZ-MUG-W-PARENT', 'in_review'],
          ['AMZ-MUG-W', 'in_review'],
          ['AMZ-MUG-B', 'in_review'],
        ],
      );
      await session.shot('listings-amazon-in-review');
      await session.noAxeViolations('listings-amazon-in-review');
      session.noConsoleErrors();
    });

    test("once Amazon's processing ends, the watch's read finds the SKUs buyable and the row turns Active", async () => {
      // Amazon's processing takes SANDBOX_REVIEW_SECONDS by the app's clock, and a listing in review is read again a
      // minute after its last read: moving the clock past both makes it due. Amazon sends no webhook: the watch's sweep
      // (scheduled every minute; run here rather than waited for) queues the read, which the app's workers run; the page
      // polls every 5 s while a review is awaited.
      session.t.clock.advance((session.t.deps.config.sandboxReviewSeconds + READ_EVERY_SECONDS.in_review + 1) * 1000);
      // (The scheduled sweep may have queued it first: a read is queued once per listing.)
      await session.t.deps.listingWatch.sweep();
      await row().getByText('Active', { exact: true }).waitFor({ timeout: DELIVERED_MS });
      await row().getByText('Synced', { exact: true }).waitFor();
      await row().getByText('$18.00').waitFor();
      // The row reads in words: the variants' price range and their stock in all, Amazon's statuses spelled out.
      assert.equal(await row().locator('td[data-label="Price"]').textContent(), '$18.00–$19.50 (2 variants)');
      assert.equal(await row().locator('td[data-label="Quantity"]').textContent(), '6 in all');
      await row().getByText('Buyable, discoverable', { exact: true }).waitFor();
      const [listing] = await listings();
      assert.equal(listing?.status, 'active');
      assert.equal(listing?.platform_status, 'BUYABLE,DISCOVERABLE');
      assert.match(listing?.external_url ?? '', /^https:\/\/www\.amazon\.com\/dp\/B0/);
      await page.getByRole('status').filter({ hasText: '1 listing.' }).waitFor();
      await session.shot('listings-amazon-active');
      await session.noAxeViolations('listings-amazon-active');
      session.noConsoleErrors();
    });

    test("the sandbox account holds the family: its parent without a price, both SKUs active at the product's prices", async () => {
      const skus = await held();
      assert.deepEqual(
        skus.map((s) => [s.id, s.title, s.state, s.skus[0]]),
        [
          ['AMZ-MUG-W-PARENT', TITLE, 'active', { sku: 'AMZ-MUG-W-PARENT', price: null, quantity: 0 }],
          ['AMZ-MUG-W', `${TITLE} — White`, 'active', { sku: 'AMZ-MUG-W', price: '18.00', quantity: 4 }],
          ['AMZ-MUG-B', `${TITLE} — Blue`, 'active', { sku: 'AMZ-MUG-B', price: '19.50', quantity: 2 }],
        ],
      );
    });

    test("a price changed in Seller Central shows as Changed on Amazon; Send the catalogue's puts the catalogue's back", async () => {
      const [listing] = await listings();
      await editOnAmazon('AMZ-MUG-W', { price: '21.00' });
      // Amazon sends no word of it: the watch's read of the listing, run now rather than at its six-hourly turn.
      await session.t.deps.listingWatch.read({ listingId: listing!.id });
      await page.reload();
      const changes = row().locator('.platform-changes');
      await changes.getByText('Changed on Amazon', { exact: true }).waitFor();
      assert.deepEqual(await changes.locator('li').allTextContents(), ['AMZ-MUG-W price: Amazon “21.00”, catalogue “18.00”']);
      await session.shot('listings-amazon-changed-on-amazon');
      await session.noAxeViolations('listings-amazon-changed-on-amazon');
      await changes.getByRole('button', { name: `Send the catalogue’s values for ${TITLE}` }).click();
      await changes.waitFor({ state: 'detached', timeout: DELIVERED_MS });
      await row().getByText('Synced', { exact: true }).waitFor({ timeout: DELIVERED_MS });
      assert.deepEqual(
        (await held()).map((s) => [s.id, s.skus[0]!.price]),
        [
          ['AMZ-MUG-W-PARENT', null],
          ['AMZ-MUG-W', '18.00'],
          ['AMZ-MUG-B', '19.50'],
        ],
      );
      const product = (await (await apiCall('GET', `/products/${productId}`)).json()) as { data: { variants: { price: string }[] } };
      assert.deepEqual(
        product.data.variants.map((v) => v.price),
        ['18.00', '19.50'],
        'the catalogue is left as it was',
      );
      await session.shot('listings-amazon-catalogue-sent');
      await session.noAxeViolations('listings-amazon-catalogue-sent');
      session.noConsoleErrors();
    });

    test("a second change there, Take Amazon's brings Amazon's price into the catalogue", async () => {
      const [listing] = await listings();
      await editOnAmazon('AMZ-MUG-B', { price: '22.50' });
      await session.t.deps.listingWatch.read({ listingId: listing!.id });
      await page.reload();
      const changes = row().locator('.platform-changes');
      await changes.getByText('AMZ-MUG-B price: Amazon “22.50”, catalogue “19.50”').waitFor();
      await changes.getByRole('button', { name: `Take Amazon’s values for ${TITLE}` }).click();
      await changes.waitFor({ state: 'detached', timeout: DELIVERED_MS });
      await row().getByText('Synced', { exact: true }).waitFor({ timeout: DELIVERED_MS });
      const product = (await (await apiCall('GET', `/products/${productId}`)).json()) as {
        data: { variants: { sku: string; price: string }[] };
      };
      assert.deepEqual(
        product.data.variants.map((v) => [v.sku, v.price]),
        [
          ['AMZ-MUG-W', '18.00'],
          ['AMZ-MUG-B', '22.50'],
        ],
      );
      assert.deepEqual(
        (await held()).map((s) => [s.id, s.skus[0]!.price]),
        [
          ['AMZ-MUG-W-PARENT', null],
          ['AMZ-MUG-W', '18.00'],
          ['AMZ-MUG-B', '22.50'],
        ],
      );
      await session.shot('listings-amazon-taken');
      await session.noAxeViolations('listings-amazon-taken');
      session.noConsoleErrors();
    });

    test("a SKU the seller hands to Amazon's fulfilment shows on the listing's page as fulfilled by Amazon, its stock Amazon's", async () => {
      const [listing] = await listings();
      await editOnAmazon('AMZ-MUG-W', { fulfillment_channel: 'AMAZON_NA', quantity: 40 });
      await session.t.deps.listingWatch.read({ listingId: listing!.id });
      await page.goto(`${baseUrl}/site/${siteId}/listings/${listing!.id}`);
      const table = page.getByRole('table', { name: 'What the listing offers on Amazon' });
      await table.getByRole('columnheader', { name: 'Fulfilled by' }).waitFor();
      // The marketplace by its name, not its id.
      await page.getByText('Amazon.com (US)', { exact: true }).waitFor();
      const cells = async (sku: string) => (await table.getByRole('row').filter({ hasText: sku }).locator('td').allTextContents()).at(-1);
      assert.match((await cells('AMZ-MUG-W'))!, /^Amazon \(FBA: Amazon counts this stock; Storelink never changes it\)$/);
      assert.equal(await cells('AMZ-MUG-B'), 'You');
      // Its quantity is Amazon's count, not the catalogue's.
      const white = await table.getByRole('row').filter({ hasText: 'AMZ-MUG-W' }).locator('td').allTextContents();
      assert.equal(white[1], '40');
      await session.shot('listings-amazon-fulfilled-by-amazon');
      await session.noAxeViolations('listings-amazon-fulfilled-by-amazon');
      // The page's advertising section asks for the listing's advertising, never set up: a 404 Chromium logs.
      session.noConsoleErrors([/Failed to load resource: the server responded with a status of 404/]);
    });

    test('a product without barcodes, validated by barcode, names each variant by its SKU, links to the product, and asks for no ASIN', async () => {
      const plain = 'Barcodeless mug';
      const created = await apiCall('POST', '/products', mug('NOBAR', { colours: true, title: plain, brand: 'Sandbox Pottery' }));
      assert.equal(created.status, 201, await created.clone().text());
      const plainId = ((await created.json()) as { data: { id: number } }).data.id;
      const form = new FormData();
      form.set('file', new Blob([PNG_640X480], { type: 'image/png' }), 'mug.png');
      assert.equal((await apiCall('POST', `/products/${plainId}/images`, form)).status, 201);

      await page.goto(`${baseUrl}/site/${siteId}/listings`);
      await page.getByRole('button', { name: 'Publish products…' }).click();
      const dialog = page.getByRole('dialog', { name: 'Publish products' });
      await dialog.getByLabel('Search the catalogue').fill('barcodeless');
      await dialog.getByRole('checkbox', { name: plain }).check();
      await dialog.getByLabel('Search categories').fill('mug');
      await dialog.getByRole('radio', { name: 'Kitchen' }).check();
      await dialog.getByLabel(/Material/).selectOption({ label: 'Stoneware' });
      assert.equal(await dialog.getByRole('radio', { name: /by each variant’s barcode/ }).isChecked(), true);
      await dialog.getByRole('button', { name: 'Validate' }).click();
      await dialog.getByText(new RegExp(`^${plain}: (one problem|\\d+ problems); nothing was published\\.`)).waitFor();
      const issues = dialog.locator('.issue');
      const said = await issues.allTextContents();
      // Each variant by its SKU and option, not its place; the barcode route asks for no ASIN; no schema title of Amazon's.
      for (const variant of ['Variant NOBAR-W (White)', 'Variant NOBAR-B (Blue)'])
        assert.ok(
          said.some((text) => text.startsWith(variant) && /barcode/i.test(text)),
          `${variant} in ${said.join(' | ')}`,
        );
      for (const text of said) assert.doesNotMatch(text, /Variant \d|Merchant Suggested ASIN|External Product ID|ASIN to offer on/);
      // Each variant's issue links to the product, where its barcode is set.
      const links = issues.filter({ hasText: /^Variant NOBAR-/ }).getByRole('link', { name: 'Open the product' });
      await assertCount(links, 2, 'a link on each variant’s issue');
      for (const href of await links.evaluateAll((all) => all.map((a) => a.getAttribute('href'))))
        assert.equal(href, `/workspace/${workspaceId}/products/${plainId}`);
      await session.shot('listings-amazon-publish-no-barcode');
      await session.noAxeViolations('listings-amazon-publish-no-barcode');
      await links.first().click();
      await page.waitForURL(new RegExp(`/workspace/${workspaceId}/products/${plainId}$`));
      session.noConsoleErrors();
    });

    test('a barcode taken off a listed variant fails its sync, and the row names the variant by its SKU and option', async () => {
      const current = (await (await apiCall('GET', `/products/${productId}`)).json()) as { data: { variants: Record<string, unknown>[] } };
      const variants = current.data.variants.map((v) => (v.sku === 'AMZ-MUG-B' ? { ...v, barcode: null } : v));
      const changed = await apiCall('PATCH', `/products/${productId}`, { variants });
      assert.equal(changed.status, 200, await changed.clone().text());
      await page.goto(`${baseUrl}/site/${siteId}/listings`);
      await row().getByText('Failed', { exact: true }).waitFor({ timeout: DELIVERED_MS });
      await row().locator('.issue').first().waitFor();
      const fields = await row().locator('.issue .issue-field').allTextContents();
      assert.ok(
        fields.some((field) => field.startsWith('Variant AMZ-MUG-B (Blue)')),
        fields.join(' | '),
      );
      for (const field of fields) assert.doesNotMatch(field, /Variant \d|Attribute|ASIN/);
      await session.shot('listings-amazon-variant-issue');
      await session.noAxeViolations('listings-amazon-variant-issue');
      // The product's page says the same in its "Listed on": the variant by its sku and option, not its place.
      await page.goto(`${baseUrl}/workspace/${workspaceId}/products/${productId}`);
      const listed = page.getByRole('region', { name: 'Listed on' });
      await listed.locator('.issue').first().waitFor();
      const onProduct = await listed.locator('.issue .issue-field').allTextContents();
      assert.ok(
        onProduct.some((field) => field.startsWith('Variant AMZ-MUG-B (Blue)')),
        onProduct.join(' | '),
      );
      for (const field of onProduct) assert.doesNotMatch(field, /Variant \d|Attribute|ASIN/);
      await session.noAxeViolations('the product page with a variant issue');
      session.noConsoleErrors();
    });
  });
}
