/**
 * The API reference (issue 37 item 7) in Chromium: the dashboard's developer page (API Access, where personal access
 * tokens are managed) and its Settings menu link to it; the page at /api/v1/docs is titled with Storelink's name, says
 * it in its header with a way back, carries no Fastify or Swagger logo, and axe finds no violation on it, neither as it
 * opens nor with an operation open for "Try it out". Screenshots: test-results/screenshots/api-reference.png,
 * api-reference-operation.png, api-access.png.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { type BrowserSession, openBrowser, SCREENSHOTS, signUp } from '../helpers/browser.js';
import { dashboardDatabaseKinds } from '../helpers/database.js';

for (const kind of dashboardDatabaseKinds()) {
  describe(`the API reference [${kind}]`, () => {
    let session: BrowserSession;
    let page: Page;
    let baseUrl: string;
    const user = { name: 'Dev Eloper', email: `dev-${Date.now()}@example.com`, password: 'correct horse battery' };

    before(async () => {
      session = await openBrowser(kind);
      ({ baseUrl, page } = session);
      await signUp(page, baseUrl, user);
    });
    after(() => session?.close());

    test('the developer page links to the API reference, and so does the Settings menu', async () => {
      await page.goto(`${baseUrl}/profile/developer/api-access`);
      await page.getByRole('heading', { name: 'API Access', level: 1 }).waitFor();
      const link = page.getByRole('main').getByRole('link', { name: 'API reference' });
      assert.equal(await link.getAttribute('href'), '/api/v1/docs');
      await page.locator('summary', { hasText: 'Settings' }).click();
      const menuLink = page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'API reference' });
      assert.equal(await menuLink.getAttribute('href'), '/api/v1/docs');
      await page.keyboard.press('Escape');
      await session.noAxeViolations('the API Access page');
      await session.shot('api-access');

      await link.click();
      await page.waitForURL(`${baseUrl}/api/v1/docs`);
      session.noConsoleErrors();
    });

    test('the reference is Storelink’s: its title, its header with a way back, no other brand’s logo', async () => {
      // Swagger UI's bundle is 1.5 MB of script, parsed before it draws anything: slow on a loaded machine.
      await page.locator('.opblock-tag').first().waitFor({ timeout: 60_000 });
      assert.equal(await page.title(), 'Storelink API reference');
      const banner = page.getByRole('banner');
      assert.equal(await banner.getByRole('link', { name: 'Storelink' }).getAttribute('href'), '/dashboard');
      assert.equal(await banner.getByRole('heading', { level: 1 }).textContent(), 'API reference');
      assert.equal(
        await banner.getByRole('link', { name: 'Personal access tokens' }).getAttribute('href'),
        '/profile/developer/api-access',
      );
      assert.equal(await page.locator('.topbar').count(), 0, 'no Swagger UI top bar');
      assert.equal(await page.locator('img').count(), 0, 'no logo image (Fastify’s was the top bar’s)');
      const icons = (await page.evaluate(
        `[...document.querySelectorAll('link[rel~=icon]')].map((l) => l.getAttribute('href'))`,
      )) as string[];
      assert.ok(icons.length > 0 && icons.every((href) => href.endsWith('/storelink.svg')), `icons: ${icons.join(', ')}`);
      const icon = await page.request.get(new URL(icons[0]!, page.url()).toString());
      assert.equal(icon.status(), 200);
      assert.match(await icon.text(), /^<svg/);
      assert.equal(
        await page
          .getByRole('heading', { name: /Storelink API/ })
          .first()
          .isVisible(),
        true,
      );
    });

    test('axe finds nothing on the reference as it opens, nor with an operation open for Try it out', async () => {
      await session.noAxeViolations('the API reference');
      await page.screenshot({ path: join(SCREENSHOTS, 'api-reference.png') });

      const operation = page.locator('#operations-products-listProducts');
      await operation.locator('.opblock-summary-control').click();
      await operation.getByRole('button', { name: 'Try it out' }).click();
      await operation.getByRole('button', { name: 'Execute' }).waitFor();
      await session.noAxeViolations('the API reference, listProducts open for Try it out');
      await operation.screenshot({ path: join(SCREENSHOTS, 'api-reference-operation.png') });

      // Back to the dashboard from the header.
      await page.getByRole('banner').getByRole('link', { name: 'Storelink' }).click();
      await page.waitForURL(/\/workspace\/\d+\/dashboard$/);
      session.noConsoleErrors();
    });
  });
}
