/**
 * The newcomer review's rough edges (../shared/reviews/ux.md §2; issue 16, item 4), each as a user sees it in Chromium:
 * a signed-out visitor's first page, sign-in back to where they were, human wording, connect failures, focus and
 * menus, page titles, bad workspace addresses, the 404 page. The dashboard over plain http on another host than
 * localhost has its own browser, started with a host name mapped to the loopback address.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Locator, Page } from 'playwright-core';
import { allowConsent, type BrowserSession, isFocused, openBrowser, signUp } from '../helpers/browser.js';
import { dashboardDatabaseKinds } from '../helpers/database.js';

async function waitForFocus(locator: Locator, what: string): Promise<void> {
  const until = Date.now() + 5_000;
  while (!(await isFocused(locator))) {
    assert.ok(Date.now() < until, `${what} has the focus`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const LOGIN_LIMIT = 6;
/** Forgets the session, from /login: a page still loading would otherwise answer its next 401 by going there itself. */
async function signOutHere(page: Page, baseUrl: string) {
  await page.goto(`${baseUrl}/login`);
  await page.evaluate("localStorage.removeItem('storelink.session')");
}

for (const kind of dashboardDatabaseKinds()) {
  describe(`the newcomer review’s rough edges in a browser [${kind}]`, () => {
    let session: BrowserSession;
    let page: Page;
    let baseUrl: string;
    const user = { name: 'Edge Seller', email: `edges-${Date.now()}@example.com`, password: 'correct horse battery' };
    let workspaceId = '';
    let token = '';

    before(async () => {
      // Per email a minute: above the user's own sign-ins in this file, and reached by another email in a few attempts.
      session = await openBrowser(kind, { env: { LOGIN_RATE_LIMIT_PER_EMAIL: String(LOGIN_LIMIT) } });
      ({ page, baseUrl } = session);
      ({ workspaceId, token } = await signUp(page, baseUrl, user));
    });
    after(() => session?.close());

    async function signIn(email = user.email, password = user.password) {
      await page.getByLabel('Email').fill(email);
      await page.getByLabel('Password').fill(password);
      await page.getByRole('button', { name: 'Sign in' }).click();
    }

    test('a signed-out visitor at / sees the sign-in form at once, and lands on their dashboard after signing in', async () => {
      await signOutHere(page, baseUrl);
      await page.goto(`${baseUrl}/`);
      // No reload: the form is there on the first load (it used to stay blank until one).
      await page.getByRole('heading', { name: 'Sign in to Storelink' }).waitFor({ timeout: 5_000 });
      assert.equal(new URL(page.url()).pathname, '/login');
      assert.equal(await page.title(), 'Sign in · Storelink');
      await session.shot('edges-first-visit');
      await session.noAxeViolations('the sign-in page');
      await signIn();
      await page.waitForURL(`${baseUrl}/workspace/${workspaceId}/dashboard`);
      session.noConsoleErrors();
    });

    for (const deepLink of ['/profile/developer/api-access', '/workspace/WS/products']) {
      test(`a signed-out visitor opening ${deepLink} signs in and is back on that page`, async () => {
        const path = deepLink.replace('WS', workspaceId);
        await signOutHere(page, baseUrl);
        await page.goto(`${baseUrl}${path}`);
        await page.getByRole('heading', { name: 'Sign in to Storelink' }).waitFor({ timeout: 5_000 });
        assert.equal(new URL(page.url()).searchParams.get('next'), path);
        await signIn();
        await page.waitForURL(`${baseUrl}${path}`);
        await page.locator('main h1').waitFor();
        session.noConsoleErrors();
      });
    }

    test('an expired session sends the user to sign in, says why, and brings them back', async () => {
      await page.goto(`${baseUrl}/profile/developer/api-access`);
      await page.getByRole('heading', { name: 'API Access' }).waitFor();
      // A token the server no longer accepts, as after its 12 hours.
      await page.evaluate("localStorage.setItem('storelink.session', 'expired.session.token')");
      await page.reload();
      await page.getByText('Your session has ended.').waitFor();
      await signIn();
      await page.waitForURL(`${baseUrl}/profile/developer/api-access`);
      session.noConsoleErrors([/401 \(Unauthorized\)/]);
    });

    test('a wrong password says so in words', async () => {
      await signOutHere(page, baseUrl);
      await page.goto(`${baseUrl}/login`);
      await signIn(user.email, 'not the password');
      await page.getByRole('alert').filter({ hasText: 'Wrong email or password.' }).waitFor();
      assert.equal(await page.getByText('Unauthenticated').count(), 0);
      await session.noAxeViolations('the sign-in page with an error');
      // A forgotten password has its own page (docs/e-mail.md), which asks for the e-mail a link is mailed to.
      await page.getByRole('link', { name: 'Forgot password?' }).click();
      await page.waitForURL(`${baseUrl}/forgot-password`);
      await page.getByRole('heading', { name: 'Reset your password', level: 1 }).waitFor();
      session.noConsoleErrors([/401 \(Unauthorized\)/]);
    });

    test('sign-in attempts past the limit say how long to wait, as long as the server’s Retry-After', async () => {
      await page.goto(`${baseUrl}/login`);
      const email = `limited-${Date.now()}@example.com`;
      for (let attempt = 1; attempt <= LOGIN_LIMIT; attempt++) {
        await signIn(email, 'wrong password');
        await page.getByRole('alert').filter({ hasText: 'Wrong email or password.' }).waitFor();
      }
      const answer = page.waitForResponse((response) => response.url().endsWith('/api/v1/auth/login'));
      await signIn(email, 'wrong password');
      const response = await answer;
      assert.equal(response.status(), 429);
      const seconds = Number(response.headers()['retry-after']);
      assert.ok(seconds > 0 && seconds <= 60, `Retry-After ${seconds}`);
      const wait = seconds < 60 ? `${seconds} seconds` : '1 minute';
      await page
        .getByRole('alert')
        .filter({ hasText: `Too many sign-in attempts. Wait ${wait}, then try again.` })
        .waitFor();
      await session.shot('edges-login-rate-limited');
      session.noConsoleErrors([/401 \(Unauthorized\)/, /429 \(Too Many Requests\)/]);
    });

    test('an empty sign-up gets a message under each field, in words, and the first field has the focus', async () => {
      await page.goto(`${baseUrl}/signup`);
      await page.getByRole('button', { name: 'Create account' }).click();
      await page.locator('#name-error').filter({ hasText: 'Enter your name.' }).waitFor();
      await page.locator('#email-error').filter({ hasText: 'Enter your email address.' }).waitFor();
      await page.locator('#password-error').filter({ hasText: 'Enter your password.' }).waitFor();
      await waitForFocus(page.getByLabel('Name'), 'the name field');
      assert.equal(await page.getByLabel('Name').getAttribute('aria-invalid'), 'true');
      assert.equal(await page.getByText('The given data was invalid.').count(), 0);
      await page.getByLabel('Name').fill('Someone');
      await page.getByLabel('Email').fill('not-an-address');
      await page.getByLabel('Password').fill('short');
      await page.getByRole('button', { name: 'Create account' }).click();
      await page.locator('#email-error').filter({ hasText: 'Enter an email address like name@example.com.' }).waitFor();
      await page.locator('#password-error').filter({ hasText: 'Use at least 8 characters.' }).waitFor();
      await session.shot('edges-signup-errors');
      await session.noAxeViolations('the sign-up page with field errors');
      session.noConsoleErrors();
    });

    test('a sign-up with a taken email gets the server’s answer under the email field, in words', async () => {
      await page.goto(`${baseUrl}/signup`);
      await page.getByLabel('Name').fill('Second Seller');
      await page.getByLabel('Email').fill(user.email);
      await page.getByLabel('Password').fill('another good password');
      await page.getByRole('button', { name: 'Create account' }).click();
      await page.locator('#email-error').filter({ hasText: 'An account with this email address already exists.' }).waitFor();
      assert.equal(await page.getByText('The given data was invalid.').count(), 0);
      session.noConsoleErrors([/422 \(Unprocessable (Entity|Content)\)/]);
    });

    const dashboardUrl = () => `${baseUrl}/workspace/${workspaceId}/dashboard`;

    /** Presses a Connect button, answers the sandbox consent page, and waits until the dashboard has the browser back. */
    async function throughConsent(button: string, decision: string, account = '1') {
      await page.getByRole('button', { name: button, exact: true }).click();
      await page.getByLabel('Sandbox account number').fill(account);
      await page.getByRole('button', { name: decision, exact: true }).click();
      await page.waitForURL((url) => /^\/(workspace\/\d+\/dashboard|site\/\d+\/listings)$/.test(url.pathname));
      // Not 'networkidle': the page's live event stream (web/src/live.ts) keeps a request open for as long as it is shown.
      await page.waitForLoadState('load');
    }

    test('while one Connect button opens its platform, the others wait', async () => {
      // Signed in again with the sign-up's session (the tests above signed out), without another sign-in to count.
      await page.evaluate(`localStorage.setItem('storelink.session', ${JSON.stringify(token)})`);
      await page.goto(dashboardUrl());
      let release = () => {};
      const held = new Promise<void>((resolve) => (release = resolve));
      await page.route('**/api/v1/authenticate-site', async (route) => {
        await held;
        await route.continue();
      });
      await page.getByRole('button', { name: 'Connect Etsy' }).click();
      await page.getByRole('button', { name: 'Opening…' }).waitFor();
      for (const name of ['Connect TikTok Shop', 'Connect Amazon'])
        assert.ok(await page.getByRole('button', { name, exact: true }).isDisabled(), `${name} waits`);
      await session.shot('edges-connect-opening');
      release();
      await page.getByLabel('Sandbox account number').waitFor();
      await page.unroute('**/api/v1/authenticate-site');
      session.noConsoleErrors();
    });

    test('a declined connection names its platform, is gone from the address, and does not come back on a reload', async () => {
      await page.goto(dashboardUrl());
      await throughConsent('Connect Etsy', 'Deny', '2');
      const banner = page.getByRole('alert').filter({ hasText: 'Etsy was not connected. Access was declined on Etsy' });
      await banner.waitFor();
      assert.equal(new URL(page.url()).search, '', 'the outcome is no longer in the address');
      await session.shot('edges-connect-declined');
      await session.noAxeViolations('the dashboard with a connect failure');
      await page.reload();
      await page.getByRole('heading', { name: 'Connect a platform' }).waitFor();
      assert.equal(await banner.count(), 0);
      session.noConsoleErrors();
    });

    test('a connect failure is dismissed, and the focus goes to the page’s heading', async () => {
      await page.goto(dashboardUrl());
      await throughConsent('Connect TikTok Shop', 'Deny', '3');
      const banner = page.getByRole('alert').filter({ hasText: 'TikTok Shop was not connected.' });
      await banner.getByRole('button', { name: 'Dismiss' }).click();
      assert.equal(await banner.count(), 0);
      await waitForFocus(page.locator('main h1'), 'the dashboard’s heading');
      session.noConsoleErrors();
    });

    test('Try again after a rejected code starts the same platform’s consent again, and its success says so', async () => {
      await page.goto(dashboardUrl());
      await throughConsent('Connect Etsy', 'Allow with a code that will be rejected', '4');
      const banner = page.getByRole('alert').filter({ hasText: 'Etsy was not connected. Etsy did not accept the authorization' });
      await banner.waitFor();
      assert.equal(await page.getByText('Invalid credentials').count(), 0, 'the seed’s code word is not shown');
      await banner.getByRole('button', { name: 'Try again' }).click();
      await page.getByLabel('Sandbox account number').fill('4');
      await allowConsent(page);
      await page.getByRole('status').filter({ hasText: 'Etsy is connected.' }).waitFor();
      assert.equal(await page.title(), `Listings · ${await page.locator('main h1').textContent()} · Storelink`);
      session.noConsoleErrors();
    });

    test('the disconnect confirmation opens on Cancel, Escape closes it, and the focus comes back to Disconnect…', async () => {
      await page.getByRole('button', { name: 'Disconnect…' }).click();
      await waitForFocus(page.getByRole('alertdialog').getByRole('button', { name: 'Cancel' }), 'Cancel');
      await session.noAxeViolations('the site page with its disconnect confirmation');
      await page.keyboard.press('Escape');
      assert.equal(await page.getByRole('alertdialog').count(), 0);
      await waitForFocus(page.getByRole('button', { name: 'Disconnect…' }), 'Disconnect…');
      await page.getByRole('button', { name: 'Disconnect…' }).click();
      await page.getByRole('button', { name: 'Cancel' }).click();
      await waitForFocus(page.getByRole('button', { name: 'Disconnect…' }), 'Disconnect… after Cancel');
      await page.getByRole('button', { name: 'Disconnect…' }).click();
      await page.getByRole('button', { name: 'Yes, disconnect' }).click();
      const notice = page.getByRole('status').filter({ hasText: 'is disconnected from Etsy' });
      await waitForFocus(notice, 'the notice that the site is disconnected');
      await page.getByRole('region', { name: 'Details' }).getByText('Disconnected').waitFor();
      session.noConsoleErrors();
    });

    test('the breadcrumb leads back to the dashboard, whose heading then has the focus', async () => {
      await page.getByRole('navigation', { name: 'Breadcrumb' }).getByRole('link', { name: 'Dashboard' }).click();
      await page.waitForURL(dashboardUrl());
      const heading = page.locator('main h1');
      await waitForFocus(heading, 'the dashboard’s heading');
      const workspace = (await heading.textContent())!.replace(/\s*\(workspace \d+\)$/, '');
      assert.equal(await page.title(), `Dashboard · ${workspace} · Storelink`);
      session.noConsoleErrors();
    });

    test('Back from a consent page frees the Connect buttons, and a site opened afterwards claims no new connection', async () => {
      await page.getByRole('button', { name: 'Connect Etsy', exact: true }).click();
      await page.getByLabel('Sandbox account number').waitFor();
      await page.goBack();
      await page.waitForURL(dashboardUrl());
      const connect = page.getByRole('button', { name: 'Connect Etsy', exact: true });
      await connect.waitFor();
      assert.ok(await connect.isEnabled(), 'Connect Etsy can be pressed again');
      await page.getByRole('region', { name: 'Connected sites' }).getByRole('row').filter({ hasText: 'Etsy' }).getByRole('link').click();
      await page.getByRole('heading', { name: 'Details' }).waitFor();
      assert.equal(await page.getByText('Etsy is connected.').count(), 0);
      await page.goto(dashboardUrl());
      session.noConsoleErrors();
    });

    test('the Settings menu opened while the page loads stays open, with the focus, once the loaded page replaces the frame', async () => {
      // While its workspace is read the dashboard shows a frame of its own, which the loaded page's frame replaces.
      let release = () => {};
      const held = new Promise<void>((resolve) => (release = resolve));
      const workspaces = (url: URL) => url.pathname === '/api/v1/workspaces';
      await page.route(workspaces, async (route) => {
        await held;
        await route.continue();
      });
      await page.goto(dashboardUrl());
      await page.getByRole('status').filter({ hasText: 'Loading the workspace' }).waitFor();
      const settings = page.getByText('Settings', { exact: true });
      const item = page.getByRole('link', { name: 'API Access' });
      await settings.click();
      await item.waitFor();
      release();
      await page.getByRole('heading', { name: 'Connected sites' }).waitFor();
      await page.unroute(workspaces);
      assert.ok(await item.isVisible(), 'the menu is still open on the loaded page');
      await waitForFocus(settings, 'Settings');
      await page.keyboard.press('Escape');
      await item.waitFor({ state: 'hidden' });
      session.noConsoleErrors();
    });

    test('the Settings menu closes on Escape, giving the focus back to Settings, and on a press outside it', async () => {
      await page.getByRole('heading', { name: 'Connected sites' }).waitFor();
      const settings = page.getByText('Settings', { exact: true });
      const item = page.getByRole('link', { name: 'API Access' });
      await settings.click();
      await item.waitFor();
      await page.keyboard.press('Escape');
      await item.waitFor({ state: 'hidden' });
      await waitForFocus(settings, 'Settings');
      await settings.click();
      await item.waitFor();
      await page.getByRole('heading', { name: 'Connected sites' }).click();
      await item.waitFor({ state: 'hidden' });
      // Through the menu to API Access: its title changes and its heading has the focus.
      await settings.click();
      await item.click();
      await page.waitForURL(`${baseUrl}/profile/developer/api-access`);
      await waitForFocus(page.getByRole('heading', { name: 'API Access', level: 1 }), 'the API Access heading');
      assert.equal(await page.title(), 'API Access · Settings · Storelink');
      session.noConsoleErrors();
    });

    test('a token name left empty is said under the field; the revoke confirmation keeps the focus where it belongs', async () => {
      await page.getByRole('button', { name: 'Create token' }).click();
      await page.locator('#token-name-error').filter({ hasText: 'Give the token a name' }).waitFor();
      await waitForFocus(page.getByLabel('Name'), 'the token name field');
      await page.getByLabel('Name').fill('Edge token');
      await page.getByRole('button', { name: 'Create token' }).click();
      await page.getByRole('cell', { name: 'Edge token', exact: true }).waitFor();
      const revoke = page.getByRole('button', { name: 'Revoke Edge token' });
      await revoke.click();
      await waitForFocus(page.getByRole('alertdialog').getByRole('button', { name: 'Cancel' }), 'Cancel');
      await page.keyboard.press('Escape');
      await waitForFocus(revoke, 'Revoke, after Escape');
      await revoke.click();
      await page.getByRole('button', { name: 'Yes, revoke' }).click();
      await waitForFocus(page.getByRole('status').filter({ hasText: 'The token “Edge token” is revoked' }), 'the revoked notice');
      await session.shot('edges-token-revoked');
      await session.noAxeViolations('API Access after a revoke');
      session.noConsoleErrors();
    });

    test('a workspace address that is not a workspace shows a clear message with the user’s own, and is not remembered', async () => {
      await page.goto(`${baseUrl}/workspace/abc/dashboard`);
      await page.getByRole('heading', { name: 'Workspace not found' }).waitFor();
      await page.getByText('“abc” is not a workspace address').waitFor();
      assert.equal(await page.getByRole('button', { name: 'Connect Etsy' }).count(), 0, 'no live page');
      assert.equal(await page.evaluate("localStorage.getItem('storelink.workspace')"), workspaceId);
      assert.equal(await page.title(), 'Workspace not found · Storelink');
      await session.shot('edges-workspace-not-found');
      await session.noAxeViolations('the workspace-not-found page');
      await page.getByRole('main').getByRole('link').first().click();
      await page.waitForURL(dashboardUrl());
      session.noConsoleErrors();
    });

    test('another team’s workspace shows the same message, for the dashboard and for products', async () => {
      const other = await fetch(`${baseUrl}/api/v1/auth/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'Other Team', email: `other-${Date.now()}@example.com`, password: 'another good password' }),
      });
      const theirs = String(((await other.json()) as { data: { workspace: { id: number } } }).data.workspace.id);
      for (const path of [`/workspace/${theirs}/dashboard`, `/workspace/${theirs}/products`]) {
        await page.goto(`${baseUrl}${path}`);
        await page.getByRole('heading', { name: 'Workspace not found' }).waitFor();
        await page.getByText(`Workspace ${theirs} is not one of yours`).waitFor();
      }
      assert.equal(await page.evaluate("localStorage.getItem('storelink.workspace')"), workspaceId);
      session.noConsoleErrors();
    });

    test('an unknown dashboard path is a 404 page in the dashboard’s look with a way home; the API keeps its JSON 404', async () => {
      const response = await page.goto(`${baseUrl}/no/such/page`);
      assert.equal(response?.status(), 404);
      await page.getByRole('heading', { name: 'Page not found' }).waitFor();
      assert.equal(await page.title(), 'Page not found · Storelink');
      await session.shot('edges-not-found');
      await session.noAxeViolations('the 404 page');
      await page.getByRole('link', { name: 'Go to your dashboard' }).click();
      await page.waitForURL(dashboardUrl());
      const api = await fetch(`${baseUrl}/api/v1/no-such-thing`, { headers: { accept: 'text/html' } });
      assert.equal(api.status, 404);
      assert.deepEqual(await api.json(), { success: false, code: 404, message: 'Not found' });
      session.noConsoleErrors([/404 \(Not Found\)/]);
    });

    test('signed out, the 404 page offers to sign in', async () => {
      await signOutHere(page, baseUrl);
      await page.goto(`${baseUrl}/settings/unknown`);
      await page.getByRole('heading', { name: 'Page not found' }).waitFor();
      await page.getByRole('link', { name: 'Sign in to Storelink' }).waitFor();
      await session.noAxeViolations('the 404 page signed out');
      session.noConsoleErrors([/404 \(Not Found\)/]);
    });
  });
}

for (const kind of dashboardDatabaseKinds()) {
  describe(`the dashboard over plain http on a host other than localhost [${kind}]`, () => {
    let session: BrowserSession;
    before(async () => {
      session = await openBrowser(kind, { chromiumArgs: ['--host-resolver-rules=MAP storelink.test 127.0.0.1'] });
    });
    after(() => session?.close());

    test('http://storelink.test:<port>/login shows the sign-in form, and signing up works', async () => {
      const { page } = session;
      const url = new URL(session.baseUrl);
      url.hostname = 'storelink.test';
      const response = await page.goto(`${url.origin}/login`);
      assert.doesNotMatch(String(response?.headers()['content-security-policy']), /upgrade-insecure-requests/);
      await page.getByRole('heading', { name: 'Sign in to Storelink' }).waitFor({ timeout: 5_000 });
      await page.getByLabel('Email').waitFor();
      await session.shot('edges-http-other-host');
      const { workspaceId } = await signUp(page, url.origin, {
        name: 'Lan Seller',
        email: `lan-${Date.now()}@example.com`,
        password: 'correct horse battery',
      });
      assert.equal(page.url(), `${url.origin}/workspace/${workspaceId}/dashboard`);
      // Chromium says it ignores helmet's Cross-Origin-Opener-Policy on an http origin other than localhost; the header is
      // kept, as it protects the dashboard on https and on localhost.
      session.noConsoleErrors([/The Cross-Origin-Opener-Policy header has been ignored/]);
    });
  });
}
