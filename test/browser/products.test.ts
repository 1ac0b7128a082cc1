/**
 * The Products pages in real headless Chromium, as test/browser/dashboard.test.ts drives the rest of the dashboard: one
 * signed-up seller creates a product with two options, uploads an image, orders the images, edits a price, exports the
 * catalogue as CSV and imports it back, has a bad CSV refused line by line, and deletes the product. Every state is saved
 * as test-results/screenshots/products-*.png. Any console error fails the run, but for the browser's own log line of a
 * 422 the test provokes on purpose.
 */
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { after, before, describe, test } from 'node:test';
import { parse } from 'csv-parse/sync';
import { stringify } from 'csv-stringify/sync';
import type { Locator, Page } from 'playwright-core';
import { assertCount, type BrowserSession, openBrowser, signUp } from '../helpers/browser.js';
import { dashboardDatabaseKinds } from '../helpers/database.js';
import { PNG_640X480 } from '../helpers/fixtures.js';

/** Chromium logs every 4xx answer of a fetch as a console error; a refused save or import is one the test asks for. */
const REFUSED = /Failed to load resource: the server responded with a status of 422/;
const COMBINATIONS = [
  ['Red', 'S'],
  ['Red', 'M'],
  ['Blue', 'S'],
  ['Blue', 'M'],
] as const;
const skuOf = (color: string, size: string) => `SHIRT-${color.toUpperCase()}-${size}`;

interface ApiProduct {
  id: number;
  version: number;
  options: { name: string; values: string[] }[];
  variants: { id: number; sku: string; price: string; quantity: number; option_values: Record<string, string> }[];
  images: { id: number; url: string; alt: string | null }[];
}

for (const kind of dashboardDatabaseKinds()) {
  describe(`the Products pages in a browser [${kind}]`, () => {
    let baseUrl: string;
    let page: Page;
    const user = { name: 'Catalogue Seller', email: `products-${Date.now()}@example.com`, password: 'correct horse battery' };
    let workspaceId = '';
    let token = '';
    let productId = '';
    let exported = '';

    let session: BrowserSession;
    before(async () => {
      session = await openBrowser(kind, { acceptDownloads: true });
      ({ baseUrl, page } = session);
    });

    after(() => session?.close());

    const productsUrl = () => `${baseUrl}/workspace/${workspaceId}/products`;

    async function stored(): Promise<ApiProduct> {
      const response = await fetch(`${baseUrl}/api/v1/products/${productId}`, {
        headers: { authorization: `Bearer ${token}`, 'x-workspace-id': workspaceId },
      });
      assert.equal(response.status, 200);
      return ((await response.json()) as { data: ApiProduct }).data;
    }

    const variantOf = (product: ApiProduct, color: string, size: string) =>
      product.variants.find((v) => v.option_values.Color === color && v.option_values.Size === size)!;

    /** Picks a file through the page's own button, as a user does in the file dialog. */
    async function chooseFile(button: string, name: string, mimeType: string, buffer: Buffer) {
      const [chooser] = await Promise.all([page.waitForEvent('filechooser'), page.getByRole('button', { name: button }).click()]);
      await chooser.setFiles({ name, mimeType, buffer });
    }

    /** Imports a CSV file as a seller does: Import CSV… says what the file needs, then Choose a file… picks it. */
    async function importFile(name: string, buffer: Buffer) {
      await page.getByRole('button', { name: 'Import CSV…' }).click();
      const help = page.getByRole('dialog', { name: 'Import a CSV file' });
      await help.waitFor();
      const [chooser] = await Promise.all([page.waitForEvent('filechooser'), help.getByRole('button', { name: 'Choose a file…' }).click()]);
      await chooser.setFiles({ name, mimeType: 'text/csv', buffer });
    }

    /** Whether the element has the focus within 5 s (the test is compiled without the DOM's types, hence the cast). */
    async function isFocused(locator: Locator): Promise<boolean> {
      for (let tries = 0; tries < 50; tries++) {
        if (
          await locator.evaluate(
            (element) => element === (globalThis as unknown as { document: { activeElement: unknown } }).document.activeElement,
          )
        )
          return true;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      return false;
    }

    const notice = (text: string | RegExp) => page.getByRole('status').filter({ hasText: text });

    test('a new seller opens Products from the navigation and is invited to add a product or import a CSV', async () => {
      ({ workspaceId, token } = await signUp(page, baseUrl, user));

      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Products' }).click();
      await page.waitForURL(productsUrl());
      await page.getByRole('heading', { name: 'No products yet' }).waitFor();
      assert.equal(await page.title(), 'Products · Storelink');
      assert.equal(await page.getByRole('link', { name: 'Products', exact: true }).getAttribute('aria-current'), 'page');
      await page.getByRole('link', { name: 'Add a product' }).waitFor();
      // The empty catalogue sends a seller with no export yet to Import CSV…, which says what a file needs before any picker.
      await page.getByText('shows the columns it needs and offers a template to fill in').waitFor();
      assert.equal(await page.getByText('in the columns of the export').count(), 0);
      await session.shot('products-empty');
      await session.shot('products-empty-375', 375);
      await session.noAxeViolations('products-empty');
      let picked = false;
      const onChooser = () => {
        picked = true;
      };
      page.on('filechooser', onChooser);
      await page.getByRole('button', { name: 'Import CSV…' }).click();
      const help = page.getByRole('dialog', { name: 'Import a CSV file' });
      await help.getByText('One row per variant, with a header row naming the columns.').waitFor();
      await help.locator('code', { hasText: 'image_urls' }).waitFor();
      const template = help.getByRole('link', { name: 'Download a template' });
      assert.equal(await template.getAttribute('download'), 'storelink-products-template.csv');
      const csv = decodeURIComponent((await template.getAttribute('href'))!.replace(/^data:text\/csv;charset=utf-8,/, ''));
      assert.match(csv, /^handle,title,description,brand,tags,currency,option1_name,.*,sku,price,quantity,/);
      await session.shot('products-import-help');
      await session.noAxeViolations('products-import-help');
      await help.getByRole('button', { name: 'Cancel' }).click();
      await help.waitFor({ state: 'hidden' });
      page.off('filechooser', onChooser);
      assert.equal(picked, false, 'no file picker opened before the seller asked for one');
      session.noConsoleErrors();
    });

    test('a product with two options is created: the variant grid follows the options, and a refused save shows each problem at its field', async () => {
      await page.getByRole('link', { name: 'Add a product' }).click();
      await page.waitForURL(`${productsUrl()}/new`);
      await page.getByLabel('Title').fill('Linen shirt');
      await page.getByLabel('Description').fill('A loose shirt of washed linen.');
      await page.getByLabel('Brand').fill('Storelink Basics');
      await page.getByLabel('Tags', { exact: true }).fill('linen, summer');
      await page.getByLabel('Tags', { exact: true }).press('Enter');
      await page.getByRole('button', { name: 'Remove tag summer' }).waitFor();
      await session.shot('products-new-blank');
      await session.noAxeViolations('products-new-blank');

      await page.getByRole('button', { name: 'Add option' }).click();
      assert.ok(await isFocused(page.getByLabel('Option name')), 'the name of the new option has the focus');
      await page.keyboard.type('Color');
      await page.getByLabel('Values of Color', { exact: true }).fill('Red, Blue');
      await page.getByLabel('Values of Color', { exact: true }).press('Enter');
      const rows = page.locator('.variants-table tbody tr');
      await assertCount(rows, 2);

      await page.getByRole('button', { name: 'Add another option' }).click();
      await page.getByLabel('Option name').nth(1).fill('Size');
      for (const size of ['S', 'M']) {
        await page.getByLabel('Values of Size', { exact: true }).fill(size);
        await page.getByLabel('Values of Size', { exact: true }).press('Enter');
      }
      await page.getByRole('heading', { name: 'Variants (4)' }).waitFor();
      await assertCount(rows, 4);

      // Removing a value takes its variants away, adding it back brings them again.
      await page.getByRole('button', { name: 'Remove M from Size' }).click();
      await assertCount(rows, 2);
      await page.getByLabel('Values of Size', { exact: true }).fill('M,');
      await assertCount(rows, 4);

      for (const [color, size] of COMBINATIONS) {
        await page.getByLabel(`SKU of ${color} / ${size}`).fill(skuOf(color, size));
        if (!(color === 'Blue' && size === 'M')) await page.getByLabel(`Price of ${color} / ${size}`).fill('24.00');
        await page.getByLabel(`Quantity of ${color} / ${size}`).fill('5');
      }
      await session.shot('products-new-filled');
      await session.noAxeViolations('products-new-filled');

      await page.getByRole('button', { name: 'Create product' }).click();
      const summary = page.getByRole('alert').filter({ hasText: 'The product was not saved' });
      await summary.waitFor();
      assert.ok(await isFocused(summary), 'the error summary has the focus');
      await summary.getByRole('link', { name: 'Variant Blue / M: Price' }).waitFor();
      const price = page.getByLabel('Price of Blue / M');
      assert.equal(await price.getAttribute('aria-invalid'), 'true');
      assert.equal(await page.locator('#product-variants-3-price-error').textContent(), 'Enter a price, such as 19.99.');
      await session.shot('products-new-refused');
      await session.noAxeViolations('products-new-refused');
      await summary.getByRole('link', { name: 'Variant Blue / M: Price' }).click();
      assert.ok(await isFocused(price), 'the summary link focuses the field');
      session.noConsoleErrors([REFUSED]);

      await price.fill('26.00');
      await page.getByRole('button', { name: 'Create product' }).click();
      await page.waitForURL(/\/products\/\d+$/);
      productId = /\/products\/(\d+)$/.exec(page.url())![1]!;
      await notice('Product created.').waitFor();
      await page.getByRole('heading', { name: 'Linen shirt', level: 1 }).waitFor();

      const product = await stored();
      assert.equal(product.version, 1);
      assert.deepEqual(product.options, [
        { name: 'Color', values: ['Red', 'Blue'] },
        { name: 'Size', values: ['S', 'M'] },
      ]);
      assert.deepEqual(
        product.variants.map((v) => [v.sku, v.price, v.quantity]),
        COMBINATIONS.map(([color, size]) => [skuOf(color, size), color === 'Blue' && size === 'M' ? '26.00' : '24.00', 5]),
      );
      await session.shot('products-created');
      await session.noAxeViolations('products-created');
      session.noConsoleErrors();
    });

    test('an image is uploaded to the saved product, a second is added by URL, and they are ordered by keyboard and by dragging', async () => {
      await chooseFile('Upload an image…', 'swatch.png', 'image/png', PNG_640X480);
      await notice('Image uploaded. This is version 2.').waitFor();
      const items = page.locator('.image-list > li');
      await assertCount(items, 1);
      const url = (await items.first().locator('img').getAttribute('src'))!;
      assert.match(url, /\/media\/[0-9a-f]{64}\.png$/);
      const media = await fetch(url);
      assert.equal(media.status, 200);
      assert.equal(media.headers.get('content-type'), 'image/png');
      assert.deepEqual(Buffer.from(await media.arrayBuffer()), PNG_640X480);
      await session.shot('products-image-uploaded');
      await session.noAxeViolations('products-image-uploaded');

      await page.getByLabel('Add an image by URL').fill(url);
      await page.getByRole('button', { name: 'Add image', exact: true }).click();
      await assertCount(items, 2);
      // The image given by URL is marked as such (Etsy and TikTok Shop take uploaded files only); the uploaded one is not.
      await items.nth(1).getByText('From a URL', { exact: true }).waitFor();
      assert.equal(await items.nth(0).getByText('From a URL', { exact: true }).count(), 0);
      await page.getByLabel('Alt text of image 1').fill('Swatch, front');
      await page.getByLabel('Alt text of image 2').fill('Swatch, back');

      // By keyboard: image 2 moves up and its button that still moves it (down) keeps the focus.
      await page.getByRole('button', { name: 'Move image 2 up' }).focus();
      await page.keyboard.press('Enter');
      assert.equal(await page.getByLabel('Alt text of image 1').inputValue(), 'Swatch, back');
      assert.ok(await isFocused(page.getByRole('button', { name: 'Move image 1 down' })), 'the moved image keeps the focus');
      await page.getByText('Image 2 moved to position 1 of 2.').waitFor({ state: 'attached' });

      // By dragging: the first image dropped on the second puts the order back.
      await items.nth(0).locator('.drag-handle').dragTo(items.nth(1));
      assert.equal(await page.getByLabel('Alt text of image 1').inputValue(), 'Swatch, front');
      await session.shot('products-images-ordered');
      await session.noAxeViolations('products-images-ordered');

      await page.getByRole('button', { name: 'Save changes' }).click();
      await notice('Saved. This is version 3.').waitFor();
      // Saved, it is still marked: the API says it is not a file Storelink holds.
      await items.nth(1).getByText('From a URL', { exact: true }).waitFor();
      const product = await stored();
      assert.deepEqual(
        product.images.map((i) => i.alt),
        ['Swatch, front', 'Swatch, back'],
      );
      session.noConsoleErrors();
    });

    test('a price is edited and saved: the API holds the new price and the next version, and every variant keeps its id', async () => {
      const before = await stored();
      await page.getByLabel('Price of Red / S').fill('21.50');
      await page.getByRole('button', { name: 'Save changes' }).click();
      await notice(`Saved. This is version ${before.version + 1}.`).waitFor();
      const product = await stored();
      assert.equal(product.version, before.version + 1);
      assert.equal(variantOf(product, 'Red', 'S').price, '21.50');
      assert.deepEqual(
        product.variants.map((v) => v.id),
        before.variants.map((v) => v.id),
      );
      await session.shot('products-price-saved');
      await session.noAxeViolations('products-price-saved');
      await session.shot('products-editor-375', 375);
      await session.noAxeViolations('products-editor');
      session.noConsoleErrors();
    });

    test('the list shows the product with its thumbnail, sku, price, stock and variant count, and the search finds it by sku', async () => {
      await page.getByRole('link', { name: '← Products' }).click();
      await page.waitForURL(productsUrl());
      const row = page.getByRole('row').filter({ hasText: 'Linen shirt' });
      await row.waitFor();
      assert.match((await row.locator('img').getAttribute('src'))!, /\/media\/[0-9a-f]{64}\.png$/);
      const cells = await row.getByRole('cell').allInnerTexts();
      // The selection box, the thumbnail, then the product's columns.
      assert.deepEqual(cells.slice(2), ['Linen shirt', 'SHIRT-RED-S +3 more', '$21.50 – $26.00', '20', '4']);
      await session.shot('products-list');
      await session.shot('products-list-375', 375);
      await session.noAxeViolations('products-list');

      await page.getByLabel('Search products').fill('blue-m');
      await page.waitForURL(`${productsUrl()}?q=blue-m`);
      await page.getByText('1 product matches “blue-m”.').waitFor();
      await page.getByLabel('Search products').fill('no such thing');
      await page.getByText('No products match “no such thing”.').waitFor();
      await session.shot('products-search-none');
      await session.noAxeViolations('products-search-none');
      await page.getByLabel('Search products').fill('');
      await page.waitForURL(productsUrl());
      await row.waitFor();
      session.noConsoleErrors();
    });

    test('the catalogue is exported as CSV and imported again with an edited price', async () => {
      const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export CSV' }).click()]);
      assert.match(download.suggestedFilename(), /\.csv$/);
      exported = await readFile((await download.path())!, 'utf8');
      const records = parse(exported, { columns: true, bom: true }) as Record<string, string>[];
      assert.deepEqual(
        records.map((r) => r.sku),
        COMBINATIONS.map(([color, size]) => skuOf(color, size)),
      );
      const before = await stored();

      const edited = records.map((r) => (r.sku === skuOf('Blue', 'S') ? { ...r, price: '27.00' } : r));
      await importFile('catalogue.csv', Buffer.from(stringify(edited, { header: true })));
      // First the preview: what would change, line by line, and nothing written until the seller says so.
      const preview = page.getByRole('region', { name: 'Preview of catalogue.csv' });
      await preview.getByText('catalogue.csv would create 0 products, update 1 product.').waitFor();
      const line = records.findIndex((r) => r.sku === skuOf('Blue', 'S')) + 2;
      const row = preview.getByRole('row').filter({ hasText: skuOf('Blue', 'S') });
      assert.deepEqual(await row.getByRole('cell').allInnerTexts(), [
        String(line),
        skuOf('Blue', 'S'),
        'price',
        variantOf(before, 'Blue', 'S').price,
        '27.00',
      ]);
      assert.equal((await stored()).version, before.version);
      await session.shot('products-import-preview');
      await session.noAxeViolations('products-import-preview');
      await preview.getByRole('button', { name: 'Import catalogue.csv' }).click();
      await notice('catalogue.csv was imported: 0 products created, 1 product updated.').waitFor();
      const product = await stored();
      assert.equal(variantOf(product, 'Blue', 'S').price, '27.00');
      assert.equal(product.version, before.version + 1);
      await page.getByRole('row').filter({ hasText: 'Linen shirt' }).getByText('$21.50 – $27.00').waitFor();
      await session.shot('products-import-done');
      await session.noAxeViolations('products-import-done');
      session.noConsoleErrors();
    });

    test('a CSV with bad rows is refused with every line’s problem, and nothing changes', async () => {
      const before = await stored();
      const records = parse(exported, { columns: true, bom: true }) as Record<string, string>[];
      // Line 1 is the header: the second record is line 3, the fourth line 5.
      const bad = records.map((r, i) => (i === 1 ? { ...r, price: 'cheap' } : i === 3 ? { ...r, quantity: '-1' } : r));
      await importFile('bad.csv', Buffer.from(stringify(bad, { header: true })));
      const problems = page.getByRole('alert').filter({ hasText: 'bad.csv was not imported' });
      await problems.waitFor();
      const lines = await problems.getByRole('listitem').allInnerTexts();
      assert.ok(
        lines.some((l) => l.startsWith('Line 3, price:')),
        `line 3's price is named: ${lines.join(' | ')}`,
      );
      assert.ok(
        lines.some((l) => l.startsWith('Line 5, quantity:')),
        `line 5's quantity is named: ${lines.join(' | ')}`,
      );
      assert.equal((await stored()).version, before.version);
      await session.shot('products-import-refused');
      await session.noAxeViolations('products-import-refused');
      await problems.getByRole('button', { name: 'Dismiss' }).click();
      assert.equal(await problems.count(), 0);
      session.noConsoleErrors([REFUSED]);
    });

    test('selected products are edited at once: every price 10 % up, previewed first, then saved as one change', async () => {
      const before = await stored();
      await page.getByRole('checkbox', { name: 'Select Linen shirt' }).check();
      // The button counts variants: the shirt's box picks all four of them.
      await page.getByRole('button', { name: 'Edit prices and stock (4)…' }).click();
      const dialog = page.getByRole('dialog', { name: 'Edit prices and stock' });
      await dialog.getByLabel('How the price changes').selectOption('percent');
      await dialog.getByLabel('Percent (negative lowers)').fill('10');
      await dialog.getByRole('button', { name: 'Preview' }).click();
      const preview = dialog.getByRole('region', { name: 'What changes' });
      await preview.waitFor();
      const blueS = variantOf(before, 'Blue', 'S');
      // 27.00 + 10 % is 29.70; the shirt is listed nowhere, which the preview says.
      await preview.getByRole('row').filter({ hasText: blueS.sku }).getByText('29.70').waitFor();
      await preview.getByText('None of these products is listed yet.').waitFor();
      assert.equal((await stored()).version, before.version, 'a preview writes nothing');
      await session.shot('products-bulk-edit');
      await session.noAxeViolations('products-bulk-edit');
      await dialog.getByRole('button', { name: /^Save \d+ changes$/ }).click();
      await page.getByText('1 product updated; the listings follow.').waitFor();
      const after = await stored();
      assert.equal(after.version, before.version + 1);
      assert.equal(variantOf(after, 'Blue', 'S').price, '29.70');
      assert.equal(variantOf(after, 'Blue', 'S').id, blueS.id);
      session.noConsoleErrors();
    });

    test('the product is deleted after a confirmation; Escape cancels it', async () => {
      await page.getByRole('link', { name: 'Linen shirt' }).click();
      await page.waitForURL(`${productsUrl()}/${productId}`);
      const open = page.getByRole('button', { name: 'Delete product…' });
      await open.click();
      const dialog = page.getByRole('dialog', { name: 'Delete “Linen shirt”?' });
      await dialog.waitFor();
      assert.ok(await isFocused(dialog.getByRole('button', { name: 'Cancel' })));
      await page.keyboard.press('Escape');
      await dialog.waitFor({ state: 'hidden' });
      assert.ok(await isFocused(open), 'the focus is back on the delete button');

      await open.click();
      await session.shot('products-delete-confirm');
      await session.noAxeViolations('products-delete-confirm');
      await dialog.getByRole('button', { name: 'Yes, delete it' }).click();
      await page.waitForURL(productsUrl());
      await notice('“Linen shirt” was deleted.').waitFor();
      await page.getByRole('heading', { name: 'No products yet' }).waitFor();
      const response = await fetch(`${baseUrl}/api/v1/products/${productId}`, {
        headers: { authorization: `Bearer ${token}`, 'x-workspace-id': workspaceId },
      });
      assert.equal(response.status, 404);
      await session.shot('products-deleted');
      await session.noAxeViolations('products-deleted');
      session.noConsoleErrors();
    });
  });
}
