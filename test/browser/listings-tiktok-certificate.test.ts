/**
 * A TikTok Shop certificate attached in the publish form, in real headless Chromium: a seller connects a sandbox shop,
 * picks Baby bottles, whose rules always require "Baby feeding product safety test report"; the form shows it as a
 * required file. Publishing without it names it; a file that is no PDF nor image is refused in the form's words; a
 * PDF uploaded there (POST /files) is linked as attached, and the publish reaches the sandbox shop with the
 * certification holding the file. Screenshot: test-results/screenshots/listings-tiktok-certificate.png. Any console
 * error fails the run.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { setTikTokShopRateLimit } from '../../src/sandbox/tiktok-shop/product-store.js';
import { allowConsent, apiCaller, type BrowserSession, openBrowser, signUp } from '../helpers/browser.js';
import { dashboardDatabaseKinds } from '../helpers/database.js';
import { mug, PDF, PNG_640X480 } from '../helpers/fixtures.js';

const TITLE = 'Glass baby bottle';
const REPORT = 'Baby feeding product safety test report';
/** Publishing, then the listing's work on the sandbox shop: a few seconds. */
const DELIVERED_MS = 20_000;

for (const kind of dashboardDatabaseKinds()) {
  describe(`a TikTok Shop certificate attached in the publish form, in a browser [${kind}]`, () => {
    let baseUrl: string;
    let page: Page;
    const user = { name: 'Bottle Seller', email: `listings-tiktok-cert-${Date.now()}@example.com`, password: 'correct horse battery' };
    let workspaceId = '';
    let token = '';

    let session: BrowserSession;
    before(async () => {
      session = await openBrowser(kind);
      ({ baseUrl, page } = session);
      await session.t.deps.startWorkers();
      setTikTokShopRateLimit(session.t.deps.sandbox, 1_000_000);
    });

    after(() => session?.close());

    const apiCall = apiCaller(
      () => baseUrl,
      () => ({ token, workspaceId }),
    );

    test('the baby bottle is published with its certificate uploaded in the form, and TikTok Shop holds it', async () => {
      ({ workspaceId, token } = await signUp(page, baseUrl, user));
      const created = await apiCall('POST', '/products', mug('BOTTLE-1', { colours: true, title: TITLE, currency: 'GBP', packaged: true }));
      assert.equal(created.status, 201, await created.clone().text());
      const productId = ((await created.json()) as { data: { id: number } }).data.id;
      const form = new FormData();
      form.set('file', new Blob([PNG_640X480], { type: 'image/png' }), 'bottle.png');
      assert.equal((await apiCall('POST', `/products/${productId}/images`, form)).status, 201);

      const authorization = await apiCall('POST', '/authenticate-site', { platform_id: 4 });
      await page.goto(((await authorization.json()) as { data: { url: string } }).data.url);
      await page.getByLabel('Sandbox account number').fill('49');
      await page.getByLabel("The sandbox seller's market").selectOption('GB');
      const siteId = await allowConsent(page);
      const options = (await (await apiCall('GET', `/sites/${siteId}/listing-options`)).json()) as {
        data: { warehouse_id: { value: string }[] };
      };
      assert.equal(
        (await apiCall('PUT', `/sites/${siteId}/listing-settings`, { warehouse_id: options.data.warehouse_id[0]!.value })).status,
        200,
      );
      await page.reload();

      await page.getByRole('button', { name: 'Publish products…' }).click();
      const dialog = page.getByRole('dialog', { name: 'Publish products' });
      await dialog.getByLabel('Search the catalogue').fill('bottle');
      await dialog.getByRole('checkbox', { name: TITLE }).check();
      await dialog.getByLabel('Search categories').fill('baby');
      await dialog.getByRole('radio', { name: /Baby bottles$/ }).check();
      const certificate = dialog.getByLabel(new RegExp(REPORT));
      await certificate.waitFor();
      assert.equal(await certificate.getAttribute('type'), 'file');
      assert.match((await dialog.locator(`label[for="${await certificate.getAttribute('id')}"]`).textContent()) ?? '', /\(required\)/);

      // Without it, validating names it and says how to attach one.
      await dialog.getByRole('button', { name: 'Validate' }).click();
      await dialog
        .getByText(/TikTok Shop needs the certificate "Baby feeding product safety test report"/)
        .first()
        .waitFor();
      // Said once, in a seller's words: no API path, no field key, no second "is required" line beside it.
      const said = await dialog.locator('.issue').filter({ hasText: REPORT }).allTextContents();
      assert.equal(said.length, 1, said.join(' | '));
      assert.match(
        said[0]!,
        /Upload it \(a PDF of at most 20 MB, or an image\) as “Baby feeding product safety test report” in the publish form/,
      );
      assert.doesNotMatch(said[0]!, /POST|\/files|certification:|700102|is required in this category/);
      await session.shot('listings-tiktok-certificate-missing');
      await session.noAxeViolations('listings-tiktok-certificate-missing');

      // A file that is neither a PDF nor an image is refused where it was chosen.
      await certificate.setInputFiles({ name: 'report.pdf', mimeType: 'application/pdf', buffer: Buffer.from('not a pdf') });
      await dialog.getByRole('alert').filter({ hasText: 'The file must be a PDF or a JPEG, PNG, WebP or GIF image.' }).waitFor();

      await certificate.setInputFiles({ name: 'report.pdf', mimeType: 'application/pdf', buffer: PDF });
      await dialog.getByRole('link', { name: 'the PDF' }).waitFor();
      await session.shot('listings-tiktok-certificate');
      await session.noAxeViolations('listings-tiktok-certificate');

      await dialog.getByRole('button', { name: 'Publish', exact: true }).click();
      await dialog.getByText(`${TITLE}: published: the listing is on its way (pending).`).waitFor();

      // The listing's work runs on the app's workers: the sandbox shop holds the product with its certificate.
      const deadline = Date.now() + DELIVERED_MS;
      let held: { certifications?: { id: string; files: { format: string }[] }[] } | undefined;
      while (Date.now() < deadline && !held) {
        const response = await fetch(`${baseUrl}/sandbox/tiktok-shop/accounts/49/listings`);
        [held] = (await response.json()) as (typeof held)[];
        if (!held) await new Promise((resolve) => setTimeout(resolve, 200));
      }
      assert.deepEqual(
        held?.certifications?.map((c) => [c.id, c.files.map((f) => f.format)]),
        [['700102', ['PDF']]],
      );
      // The refused upload's 422 is the one the browser reports.
      session.noConsoleErrors([/status of 422/]);
    });
  });
}
