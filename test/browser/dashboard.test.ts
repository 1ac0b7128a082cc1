/**
 * The dashboard in real headless Chromium (Debian's /usr/bin/chromium, driven by playwright-core; .ci/run installs the
 * package when it is missing). One signed-up user walks through every page; each page is saved as a screenshot in
 * test-results/screenshots/ and checked by axe-core. Any console error or uncaught page error fails the run.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { BrowserContext, Page } from 'playwright-core';
import { assertNoAxeViolations, type BrowserSession, openBrowser, SCREENSHOTS } from '../helpers/browser.js';
import { dashboardDatabaseKinds } from '../helpers/database.js';

for (const kind of dashboardDatabaseKinds()) {
  describe(`the dashboard in a browser [${kind}]`, () => {
    let baseUrl: string;
    let context: BrowserContext;
    let page: Page;
    let consoleErrors: string[];
    const user = { name: 'Browser Seller', email: `browser-${Date.now()}@example.com`, password: 'correct horse battery' };
    let workspaceId = '';

    let session: BrowserSession;
    before(async () => {
      session = await openBrowser(kind, { acceptDownloads: false });
      ({ baseUrl, context, page, consoleErrors } = session);
    });

    after(() => session?.close());

    async function shot(name: string, width?: number) {
      if (width) await page.setViewportSize({ width, height: 900 });
      await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });
      if (width) await page.setViewportSize({ width: 1440, height: 900 });
    }

    function noConsoleErrors() {
      assert.deepEqual(consoleErrors, [], 'the browser console reported errors');
    }

    const dashboardUrl = () => `${baseUrl}/workspace/${workspaceId}/dashboard`;

    /** Presses a connect button, answers the sandbox consent page, and waits until the dashboard has the browser back. */
    async function throughConsent(buttonName: string, decision: 'Allow' | 'Deny', account = '1') {
      await page.getByRole('button', { name: buttonName }).first().click();
      await page.waitForURL((url) => url.pathname.startsWith('/sandbox') || !url.pathname.startsWith('/workspace'));
      await page.getByText('Sandbox.').waitFor();
      await page.getByLabel('Sandbox account number').fill(account);
      const name = buttonName.replace(/\s+/g, '-').toLowerCase();
      await shot(`consent-${name}`);
      await session.noAxeViolations(`the sandbox consent page of ${buttonName}`);
      await page.getByRole('button', { name: decision, exact: true }).click();
      await page.waitForURL(
        (url) => url.pathname === '/dashboard' || /^\/(workspace\/\d+\/dashboard|site\/\d+\/listings)$/.test(url.pathname),
      );
      // Not 'networkidle': the page's live event stream (web/src/live.ts) keeps a request open for as long as it is shown.
      await page.waitForLoadState('load');
      if (new URL(page.url()).pathname.startsWith('/site/')) {
        await page.getByRole('heading', { name: 'Listing settings' }).waitFor();
        await session.noAxeViolations(`the site page ${buttonName} brought`);
      }
    }

    test('a visitor signs up and lands on the workspace dashboard, whose id is in the address', async () => {
      await page.goto(`${baseUrl}/signup`);
      await page.getByLabel('Name').fill(user.name);
      await page.getByLabel('Email').fill(user.email);
      await page.getByLabel('Password').fill(user.password);
      await shot('signup');
      await session.noAxeViolations('the sign-up page');
      await page.getByRole('button', { name: 'Create account' }).click();
      await page.waitForURL(/\/workspace\/\d+\/dashboard$/);
      workspaceId = /\/workspace\/(\d+)\/dashboard/.exec(page.url())![1]!;
      await page.getByText('No sites yet.').waitFor();
      assert.equal(await page.getByRole('combobox', { name: 'Workspace', exact: true }).inputValue(), workspaceId);
      await shot('workspace-dashboard-empty');
      await shot('workspace-dashboard-empty-375', 375);
      await session.noAxeViolations('the empty dashboard');
      noConsoleErrors();
    });

    test('/dashboard goes to the workspace dashboard', async () => {
      await page.goto(`${baseUrl}/dashboard`);
      await page.waitForURL(dashboardUrl());
      noConsoleErrors();
    });

    test('a signed-out visitor signs in on /login', async () => {
      const other = await context.newPage();
      await other.goto(`${baseUrl}/login`);
      await other.evaluate('localStorage.clear()');
      await other.reload();
      await other.getByLabel('Email').fill(user.email);
      await other.getByLabel('Password').fill(user.password);
      await other.screenshot({ path: join(SCREENSHOTS, 'login.png'), fullPage: true });
      await assertNoAxeViolations(other, 'the sign-in page');
      await other.getByRole('button', { name: 'Sign in' }).click();
      await other.waitForURL(/\/workspace\/\d+\/dashboard$/);
      await other.close();
      noConsoleErrors();
    });

    test('a personal access token is created through Settings, shown once, works, and is revoked', async () => {
      await page.goto(dashboardUrl());
      await page.getByText('Settings', { exact: true }).click();
      await page.getByRole('link', { name: 'API Access' }).click();
      await page.waitForURL(`${baseUrl}/profile/developer/api-access`);
      await page.getByText('You have no personal access tokens.').waitFor();
      await page.getByLabel('Name').fill('Inventory sync');
      await page.getByLabel('Expiration').selectOption({ label: '90 days' });
      await page.getByRole('button', { name: 'Create token' }).click();
      const value = await page.getByLabel('Token value').inputValue();
      assert.ok(value.length > 20, 'the token value is shown');
      await page.getByText('It cannot be shown again').waitFor();
      await page.getByRole('cell', { name: 'Inventory sync', exact: true }).waitFor();
      await shot('api-access-token-created');
      await shot('api-access-token-created-375', 375);
      await session.noAxeViolations('API Access with a new token');

      const withPat = () => fetch(`${baseUrl}/api/v1/workspaces`, { headers: { authorization: `Bearer ${value}` } });
      assert.equal((await withPat()).status, 200);

      await page.reload();
      await page.getByRole('cell', { name: 'Inventory sync', exact: true }).waitFor();
      assert.equal(await page.getByLabel('Token value').count(), 0);
      assert.ok(!(await page.content()).includes(value), 'the token value is gone after a reload');

      await page.getByRole('button', { name: 'Revoke Inventory sync' }).click();
      await page.getByRole('button', { name: 'Yes, revoke' }).click();
      await page.getByText('You have no personal access tokens.').waitFor();
      await page.getByRole('status').filter({ hasText: 'The token “Inventory sync” is revoked' }).waitFor();
      assert.equal((await withPat()).status, 401);
      await shot('api-access-revoked');
      await session.noAxeViolations('API Access after a revoke');
      noConsoleErrors();
    });

    test('Etsy is connected through the sandbox and the site shows on the dashboard', async () => {
      await page.goto(dashboardUrl());
      await throughConsent('Connect Etsy', 'Allow');
      assert.match(new URL(page.url()).pathname, /^\/site\/\d+\/listings$/);
      await page.getByRole('heading', { name: 'Listings' }).waitFor();
      await page.getByText('No listings yet.').waitFor();
      await page.getByRole('status').filter({ hasText: 'Etsy is connected.' }).waitFor();
      await shot('site-listings-etsy');
      await session.noAxeViolations('the Etsy site page');
      await page.goto(dashboardUrl());
      const row = page.getByRole('region', { name: 'Connected sites' }).getByRole('row').filter({ hasText: 'Etsy' });
      await row.getByText('Connected').waitFor();
      noConsoleErrors();
    });

    test('TikTok Shop is connected through the sandbox and the site shows on the dashboard', async () => {
      await page.goto(dashboardUrl());
      await throughConsent('Connect TikTok Shop', 'Allow');
      await page.getByRole('status').filter({ hasText: 'TikTok Shop is connected.' }).waitFor();
      await session.noAxeViolations('the TikTok Shop site page');
      await page.goto(dashboardUrl());
      await page
        .getByRole('region', { name: 'Connected sites' })
        .getByRole('row')
        .filter({ hasText: 'TikTok Shop' })
        .getByText('Connected')
        .waitFor();
      noConsoleErrors();
    });

    test('an Amazon seller account in Europe, then its advertising, are connected through the sandbox', async () => {
      await page.goto(dashboardUrl());
      await page.getByLabel('Connect Amazon: region').selectOption('EU');
      await throughConsent('Connect Amazon', 'Allow');
      await page.goto(dashboardUrl());
      const row = page.getByRole('region', { name: 'Connected sites' }).getByRole('row').filter({ hasText: 'Amazon' });
      await row.getByText('Connected').waitFor();
      await throughConsent('Connect advertising', 'Allow');
      assert.match(new URL(page.url()).pathname, /^\/site\/\d+\/listings$/);
      // Advertising was granted in the seller's region: Europe's profiles. Waited for, then counted: the page renders
      // the site after 'load', and a count taken before that finds no rows.
      const adProfiles = page.getByRole('region', { name: 'Advertising profiles' });
      await adProfiles.getByRole('cell', { name: 'UK', exact: true }).waitFor();
      assert.ok((await adProfiles.getByRole('row').count()) > 2, 'the advertising profiles are listed (a header and two or more)');
      await page
        .getByRole('definition')
        .filter({ hasText: /^Europe$/ })
        .waitFor();
      await shot('site-listings-amazon-advertising');
      await session.noAxeViolations('the Amazon site page with advertising');
      await page.goto(dashboardUrl());
      // "2 profiles", never "2 profile(s)".
      await row.getByText(/^\d+ profiles?$/).waitFor();
      await shot('workspace-dashboard-connected');
      await shot('workspace-dashboard-connected-375', 375);
      await session.noAxeViolations('the dashboard with three sites');
      noConsoleErrors();
    });

    test('a denied Etsy consent comes back with its message on the dashboard', async () => {
      await page.goto(dashboardUrl());
      await throughConsent('Connect Etsy', 'Deny', '2');
      await page.getByRole('alert').filter({ hasText: 'Etsy was not connected' }).waitFor();
      // Read once: the outcome leaves the address, so a reload does not show it again.
      assert.ok(!new URL(page.url()).searchParams.has('authorization_error'));
      await shot('workspace-dashboard-denied');
      await session.noAxeViolations('the dashboard after a denied consent');
      noConsoleErrors();
    });

    test('a denied Amazon consent comes back with its message on the dashboard', async () => {
      await page.goto(dashboardUrl());
      await throughConsent('Connect Amazon', 'Deny', '2');
      await page.getByRole('alert').filter({ hasText: 'Amazon was not connected' }).waitFor();
      noConsoleErrors();
    });

    test('a site is disconnected after a confirmation', async () => {
      await page.goto(dashboardUrl());
      await page.getByRole('region', { name: 'Connected sites' }).getByRole('row').filter({ hasText: 'Etsy' }).getByRole('link').click();
      await page.waitForURL(/\/site\/\d+\/listings$/);
      await page.getByRole('button', { name: 'Disconnect…' }).click();
      await shot('site-listings-confirm-disconnect');
      await session.noAxeViolations('the site page asking to confirm a disconnect');
      await page.getByRole('button', { name: 'Yes, disconnect' }).click();
      await page.getByRole('region', { name: 'Details' }).getByText('Disconnected').waitFor();
      await shot('site-listings-disconnected');
      await shot('site-listings-disconnected-375', 375);
      await session.noAxeViolations('a disconnected site’s page');
      noConsoleErrors();
    });
  });
}
