/**
 * Account settings in Chromium (issue 16, items 2 and 3): a seller opens Settings › Account, changes their name, then
 * their password: a wrong current password and a common new one are said under their fields, and a change ends their
 * other sessions while this one goes on. Screenshots: test-results/screenshots/account-*.png; axe-core on the page.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { type BrowserSession, openBrowser, signUp } from '../helpers/browser.js';
import { dashboardDatabaseKinds } from '../helpers/database.js';

for (const kind of dashboardDatabaseKinds()) {
  describe(`account settings in a browser [${kind}]`, () => {
    let session: BrowserSession;
    let page: Page;
    let baseUrl: string;
    const user = { name: 'Account Seller', email: `account-${Date.now()}@example.com`, password: 'correct horse battery' };
    let workspaceId = '';

    before(async () => {
      // Login and password changes share one bucket per account: above this file's dozen tries.
      session = await openBrowser(kind, { env: { LOGIN_RATE_LIMIT_PER_EMAIL: '20' } });
      ({ page, baseUrl } = session);
      ({ workspaceId } = await signUp(page, baseUrl, user));
    });
    after(() => session?.close());

    const api = (method: string, path: string, token: string, body?: unknown) =>
      fetch(`${baseUrl}/api/v1${path}`, {
        method,
        headers: {
          authorization: `Bearer ${token}`,
          'x-workspace-id': workspaceId,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    const signIn = async (password: string) =>
      fetch(`${baseUrl}/api/v1/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: user.email, password }),
      });

    test('Settings › Account shows who is signed in, and a new name is saved', async () => {
      await page.getByText('Settings', { exact: true }).click();
      await page.getByRole('link', { name: 'Account' }).click();
      await page.waitForURL(/\/profile\/account$/);
      await page.getByText(`Signed in as ${user.email}.`).waitFor();
      assert.equal(await page.title(), 'Account · Settings · Storelink');
      await session.noAxeViolations('the account page');
      const name = page.getByLabel('Name', { exact: true });
      assert.equal(await name.inputValue(), user.name);
      await name.fill('  ');
      await page.getByRole('button', { name: 'Save name' }).click();
      await page.getByText('Enter your name.').waitFor();
      await name.fill('Account Seller Jr');
      await page.getByRole('button', { name: 'Save name' }).click();
      await page.getByRole('status').filter({ hasText: 'Your name is now Account Seller Jr.' }).waitFor();
      const read = (await (
        await api('GET', '/user', (await page.evaluate("localStorage.getItem('storelink.session')")) as string)
      ).json()) as {
        data: { name: string };
      };
      assert.equal(read.data.name, 'Account Seller Jr');
      session.noConsoleErrors();
    });

    test('a wrong current password and a common new one are said under their fields; nothing changes', async () => {
      await page.getByLabel('Current password').fill('not my password');
      await page.getByLabel('New password', { exact: true }).fill('a fresh long passphrase');
      await page.getByLabel('New password again').fill('a fresh long passphrase');
      await page.getByRole('button', { name: 'Change password' }).click();
      await page.getByText('The current password is incorrect.').waitFor();
      await page.getByLabel('Current password').fill(user.password);
      await page.getByLabel('New password', { exact: true }).fill('password123');
      await page.getByLabel('New password again').fill('password123');
      await page.getByRole('button', { name: 'Change password' }).click();
      await page.getByText(/too common/).waitFor();
      await session.shot('account-password-refused');
      await session.noAxeViolations('the account page with field errors');
      assert.equal((await signIn(user.password)).status, 200);
      session.noConsoleErrors([/status of 422/]);
    });

    test('a new password ends the other sessions; this one goes on, and the new password signs in', async () => {
      const other = ((await (await signIn(user.password)).json()) as { data: { token: string } }).data.token;
      assert.equal((await api('GET', '/user', other)).status, 200);
      await page.getByLabel('Current password').fill(user.password);
      await page.getByLabel('New password', { exact: true }).fill('a fresh long passphrase');
      await page.getByLabel('New password again').fill('a fresh long passphrase');
      await page.getByRole('button', { name: 'Change password' }).click();
      await page.getByRole('status').filter({ hasText: 'Your password is changed. Your other sessions have ended.' }).waitFor();
      await session.shot('account-password-changed');
      assert.equal((await api('GET', '/user', other)).status, 401);
      const mine = (await page.evaluate("localStorage.getItem('storelink.session')")) as string;
      assert.equal((await api('GET', '/user', mine)).status, 200);
      assert.equal((await signIn(user.password)).status, 401);
      assert.equal((await signIn('a fresh long passphrase')).status, 200);
      session.noConsoleErrors();
    });
  });
}
