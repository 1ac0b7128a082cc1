/**
 * The bulk edit of single variants in real headless Chromium, as test/browser/products.test.ts drives the Products
 * pages: a seller with two products listed on the sandbox Etsy shop (made and published through the API) opens a
 * three-variant apron's variants by keyboard, picks two of them, finds the mug by search and picks it whole, raises the
 * prices by 10 %, and the preview and the save touch exactly those variants. Every state is saved as
 * test-results/screenshots/bulk-variants-*.png. Any console error fails the run.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Locator, Page } from 'playwright-core';
import { allowConsent, apiCaller, type BrowserSession, isFocused, openBrowser, signUp } from '../helpers/browser.js';
import { dashboardDatabaseKinds } from '../helpers/database.js';
import { mug, PNG_640X480 } from '../helpers/fixtures.js';

const APRON = {
  title: 'Linen apron',
  currency: 'USD',
  options: [{ name: 'Color', values: ['Sand', 'Rust', 'Moss'] }],
  variants: [
    { sku: 'APRON-SAND', option_values: { Color: 'Sand' }, price: '30.00', quantity: 5 },
    { sku: 'APRON-RUST', option_values: { Color: 'Rust' }, price: '32.00', quantity: 6 },
    { sku: 'APRON-MOSS', option_values: { Color: 'Moss' }, price: '34.00', quantity: 7 },
  ],
};
/** The mug of the fixtures: MUG-W at 18.00 and MUG-B at 19.50, in USD. */
const MUG = mug('MUG', { colours: true, title: 'Stoneware mug' });

interface ApiProduct {
  id: number;
  variants: { sku: string; price: string; quantity: number }[];
}

for (const kind of dashboardDatabaseKinds()) {
  describe(`the bulk edit of single variants in a browser [${kind}]`, () => {
    let baseUrl: string;
    let page: Page;
    const user = { name: 'Variant Seller', email: `bulk-variants-${Date.now()}@example.com`, password: 'correct horse battery' };
    let workspaceId = '';
    let token = '';
    let siteId = '';
    const ids = { apron: 0, mug: 0 };

    let session: BrowserSession;
    before(async () => {
      session = await openBrowser(kind);
      ({ baseUrl, page } = session);
    });

    after(() => session?.close());

    const apiCall = apiCaller(
      () => baseUrl,
      () => ({ token, workspaceId }),
    );

    async function json<T>(response: Promise<Response>, status = 200): Promise<T> {
      const answer = await response;
      assert.equal(answer.status, status, await answer.clone().text());
      return ((await answer.json()) as { data: T }).data;
    }

    /** Each sku's price and quantity in the catalogue. */
    async function stored(productId: number) {
      const product = await json<ApiProduct>(apiCall('GET', `/products/${productId}`));
      return Object.fromEntries(product.variants.map((v) => [v.sku, [v.price, v.quantity]]));
    }

    /** The skus in the first column of each row of a preview table, sorted. */
    const skusIn = async (table: Locator) => (await table.locator('tbody th').allInnerTexts()).map((s) => s.trim()).sort();
    const mixed = (box: Locator) => box.evaluate((element) => (element as unknown as { indeterminate: boolean }).indeterminate);

    test('a seller with an apron of three colours and a mug, both published to the sandbox Etsy shop, opens the Products page', async () => {
      ({ workspaceId, token } = await signUp(page, baseUrl, user));
      ids.apron = (await json<ApiProduct>(apiCall('POST', '/products', APRON), 201)).id;
      ids.mug = (await json<ApiProduct>(apiCall('POST', '/products', MUG), 201)).id;
      for (const id of Object.values(ids)) {
        const form = new FormData();
        form.set('file', new Blob([PNG_640X480], { type: 'image/png' }), 'photo.png');
        await json(apiCall('POST', `/products/${id}/images`, form), 201);
      }

      const authorization = await json<{ url: string }>(apiCall('POST', '/authenticate-site', { platform_id: 1 }));
      await page.goto(authorization.url);
      await page.getByLabel('Sandbox account number').fill('1');
      siteId = await allowConsent(page);
      const choices = await json<Record<string, { value: unknown }[]>>(apiCall('GET', `/sites/${siteId}/listing-options`));
      const first = (field: string) => choices[field]![0]!.value;
      // A 10 % adjustment: the channel's prices differ from the catalogue's, so its rows are its own.
      const settings = {
        shipping_profile_id: first('shipping_profile_id'),
        return_policy_id: first('return_policy_id'),
        readiness_state_id: first('readiness_state_id'),
        who_made: 'i_did',
        when_made: 'made_to_order',
        price_adjustment_percent: 10,
      };
      await json(apiCall('PUT', `/sites/${siteId}/listing-settings`, settings));
      const categories = await json<{ id: string; leaf: boolean }[]>(apiCall('GET', `/sites/${siteId}/categories?q=mug`));
      const leaf = categories.find((c) => c.leaf)!;
      const attributes = await json<{ name: string; type: string; required: boolean; values: { value: string }[] }[]>(
        apiCall('GET', `/sites/${siteId}/categories/${leaf.id}/attributes`),
      );
      const given = Object.fromEntries(
        attributes
          .filter((a) => a.required)
          .map((a) => [a.name, a.type === 'multiselect' ? [a.values[0]!.value] : (a.values[0]?.value ?? 'text')]),
      );
      for (const id of Object.values(ids)) {
        const body = { product_id: id, category_id: leaf.id, attributes: given };
        await json(apiCall('POST', `/sites/${siteId}/listings`, body), 202);
      }

      await page.goto(`${baseUrl}/workspace/${workspaceId}/products`);
      await page.getByText('2 products.').waitFor();
      assert.equal(await page.getByRole('checkbox', { name: /^Select .* of Linen apron/ }).count(), 0, 'the variants start closed');
      session.noConsoleErrors();
    });

    test("the apron's variants open by keyboard, two are picked, and the apron's box shows it is partly picked", async () => {
      const disclosure = page.getByRole('button', { name: '3 variants of Linen apron' });
      assert.equal(await disclosure.getAttribute('aria-expanded'), 'false');
      await disclosure.focus();
      await page.keyboard.press('Enter');
      assert.equal(await disclosure.getAttribute('aria-expanded'), 'true');
      assert.ok(await isFocused(disclosure), 'the button keeps the focus');

      // Tab moves from the button to the first variant's box; Space ticks it.
      const sand = page.getByRole('checkbox', { name: 'Select Sand of Linen apron (APRON-SAND)', exact: true });
      await page.keyboard.press('Tab');
      assert.ok(await isFocused(sand), "the first variant's box is next in the tab order");
      await page.keyboard.press('Space');
      assert.ok(await sand.isChecked());
      await page.getByRole('checkbox', { name: 'Select Rust of Linen apron (APRON-RUST)', exact: true }).check();

      const apronBox = page.getByRole('checkbox', { name: 'Select Linen apron', exact: true });
      assert.equal(await mixed(apronBox), true, "the apron's box is mixed");
      assert.match(await apronBox.ariaSnapshot(), /\[checked=mixed\]/, 'assistive technology is told it is mixed');
      assert.equal(await page.getByRole('checkbox', { name: 'Select Moss of Linen apron (APRON-MOSS)', exact: true }).isChecked(), false);
      assert.equal(await mixed(page.getByRole('checkbox', { name: 'Select every product on this page' })), true);
      await page.getByText('2 variants of 1 product selected.').waitFor();
      await page.getByRole('button', { name: 'Edit prices and stock (2)…' }).waitFor();
      await session.shot('bulk-variants-picked');
      await session.shot('bulk-variants-picked-375', 375);
      await session.noAxeViolations('bulk-variants-picked');
      session.noConsoleErrors();
    });

    test('the mug, found by search, is picked whole, and the picked variants are still picked when the search is cleared', async () => {
      await page.getByLabel('Search products').fill('mug');
      await page.getByText('1 product matches “mug”.').waitFor();
      await page.getByRole('checkbox', { name: 'Select Stoneware mug', exact: true }).check();
      await page.getByText('4 variants of 2 products selected.').waitFor();

      await page.getByLabel('Search products').fill('');
      await page.getByText('2 products.').waitFor();
      assert.ok(await page.getByRole('checkbox', { name: 'Select Sand of Linen apron (APRON-SAND)', exact: true }).isChecked());
      assert.ok(await page.getByRole('checkbox', { name: 'Select Rust of Linen apron (APRON-RUST)', exact: true }).isChecked());
      assert.equal(await page.getByRole('checkbox', { name: 'Select Moss of Linen apron (APRON-MOSS)', exact: true }).isChecked(), false);
      assert.equal(await mixed(page.getByRole('checkbox', { name: 'Select Linen apron', exact: true })), true);
      assert.ok(await page.getByRole('checkbox', { name: 'Select Stoneware mug', exact: true }).isChecked());
      session.noConsoleErrors();
    });

    test('prices 10 % up: the preview and the save change exactly the picked variants, and the third colour stays as it was', async () => {
      const before = { apron: await stored(ids.apron), mug: await stored(ids.mug) };
      await page.getByRole('button', { name: 'Edit prices and stock (4)…' }).click();
      const dialog = page.getByRole('dialog', { name: 'Edit prices and stock' });
      await dialog.getByText('4 variants of 2 products selected.').waitFor();
      await dialog.getByLabel('How the price changes').selectOption('percent');
      await dialog.getByLabel('Percent (negative lowers)').fill('10');
      await dialog.getByRole('button', { name: 'Preview' }).click();
      const preview = dialog.getByRole('region', { name: 'What changes' });
      await preview.waitFor();

      const picked = ['APRON-RUST', 'APRON-SAND', 'MUG-B', 'MUG-W'];
      const catalogue = preview.getByRole('table', { name: 'In the catalogue' });
      const channels = preview.getByRole('table', { name: 'On the channels, as listed there' });
      assert.deepEqual(await skusIn(catalogue), picked);
      assert.deepEqual(await skusIn(channels), picked);
      // 30.00 + 10 % in the catalogue; on Etsy, with the site's 10 % on top, 33.00 becomes 36.30.
      assert.deepEqual(await catalogue.getByRole('row').filter({ hasText: 'APRON-SAND' }).getByRole('cell').allInnerTexts(), [
        'Linen apron',
        'Price',
        '30.00',
        '33.00',
      ]);
      assert.deepEqual(await channels.getByRole('row').filter({ hasText: 'APRON-SAND' }).getByRole('cell').allInnerTexts(), [
        'Sandbox Etsy Shop 1 (Etsy)',
        'Price',
        '33.00',
        '36.30',
      ]);
      assert.deepEqual(await stored(ids.apron), before.apron, 'a preview writes nothing');
      await session.shot('bulk-variants-preview');
      await session.noAxeViolations('bulk-variants-preview');

      await dialog.getByRole('button', { name: 'Save 4 changes' }).click();
      await page.getByText('2 products updated; the listings follow.').waitFor();
      assert.deepEqual(await stored(ids.apron), {
        'APRON-SAND': ['33.00', 5],
        'APRON-RUST': ['35.20', 6],
        'APRON-MOSS': ['34.00', 7],
      });
      assert.deepEqual(await stored(ids.mug), { 'MUG-W': ['19.80', 4], 'MUG-B': ['21.45', 2] });
      // The selection is spent: the boxes are clear again.
      assert.equal(await page.getByRole('button', { name: 'Edit prices and stock…' }).isDisabled(), true);
      session.noConsoleErrors();
    });
  });
}
