/**
 * Two people share a workspace in Chromium (DESIGN §12, issue 16 item 3): the owner creates it from the switcher and
 * invites the second by a link shown once; the second, signed out, signs up through the link in a browser of their own
 * and accepts; then each role sees only what it may do (members, admins, owners), the API's role table holds for each
 * endpoint with each person's session, a 409 and a 403 that still happen are said in words, ownership is handed over,
 * one leaves and the other deletes the workspace by typing its name. Screenshots: test-results/screenshots/team-*.png.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { type Browser, chromium, type Page } from 'playwright-core';
import { assertNoAxeViolations, type BrowserSession, CHROMIUM, openBrowser, SCREENSHOTS, signUp } from '../helpers/browser.js';
import { connectThroughSandbox, locationOf } from '../helpers/connect.js';
import { dashboardDatabaseKinds } from '../helpers/database.js';
import { notYetListed, visit } from './dashboard-pages.js';

/** The second person: a browser of their own (a persistent context has no second context), with its console watched. */
async function openSecondBrowser() {
  const browser: Browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-sync'],
  });
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
  const page = await context.newPage();
  page.setDefaultTimeout(15_000);
  const errors: string[] = [];
  page.on('console', (message) => message.type() === 'error' && errors.push(`${page.url()}: ${message.text()}`));
  page.on('pageerror', (error) => errors.push(`${page.url()}: ${error.message}`));
  return {
    browser,
    page,
    noConsoleErrors(expected: RegExp[] = []) {
      const unexpected = errors.filter((line) => !expected.some((pattern) => pattern.test(line)));
      errors.length = 0;
      assert.deepEqual(unexpected, [], 'the second browser’s console reported errors');
    },
    shot: (name: string) => page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true }),
  };
}

for (const kind of dashboardDatabaseKinds()) {
  describe(`two people share a workspace in a browser [${kind}]`, () => {
    let session: BrowserSession;
    let page: Page;
    let baseUrl: string;
    let second: Awaited<ReturnType<typeof openSecondBrowser>>;
    const stamp = Date.now();
    const owner = { name: 'Olive Owner', email: `olive-${stamp}@example.com`, password: 'correct horse battery' };
    const teammate = { name: 'Sam Second', email: `sam-${stamp}@example.com`, password: 'another horse battery' };
    let ownerToken = '';
    let teammateToken = '';
    let ownerId = 0;
    let teammateId = 0;
    let workspaceId = '';
    let workspaceName = 'Tote Studio';
    let siteId = 0;
    let invitationUrl = '';

    before(async () => {
      session = await openBrowser(kind);
      ({ page, baseUrl } = session);
      await session.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: baseUrl });
      ({ token: ownerToken } = await signUp(page, baseUrl, owner));
      second = await openSecondBrowser();
    });
    after(async () => {
      await second?.browser.close();
      await session?.close();
    });

    /** An API call as one of the two, in the shared workspace. */
    const call = (token: string, method: string, path: string, body?: unknown) =>
      fetch(`${baseUrl}/api/v1${path}`, {
        method,
        headers: {
          authorization: `Bearer ${token}`,
          'x-workspace-id': workspaceId,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    const settingsUrl = () => `${baseUrl}/workspace/${workspaceId}/settings`;
    const memberRow = (p: Page, name: string) => p.getByRole('row').filter({ hasText: name });

    async function openSettingsFromMenu(p: Page) {
      await p.locator('summary', { hasText: 'Settings' }).click();
      await p.getByRole('link', { name: 'Workspace settings' }).click();
      await p.waitForURL(settingsUrl());
      await p.getByRole('heading', { name: 'Members' }).waitFor();
    }

    /**
     * Each endpoint of the role table (docs/workspaces.md) with `token`: what `allowed` lists must not be refused by role
     * (any answer but 403), the rest must be 403. Ids that do not exist show the role check passed (404 comes after it).
     */
    async function roleTableHolds(token: string, allowed: 'owner' | 'admin' | 'member') {
      const rank = { member: 0, admin: 1, owner: 2 }[allowed];
      const ws = `/workspaces/${workspaceId}`;
      const checks: [string, string, unknown, number][] = [
        ['GET', '/sites', undefined, 0],
        ['GET', `/sites/${siteId}`, undefined, 0],
        ['GET', '/products', undefined, 0],
        ['GET', `${ws}/members`, undefined, 0],
        ['POST', '/authenticate-site', { platform_id: 1 }, 1],
        ['DELETE', '/sites/999999', undefined, 1],
        ['PUT', '/sites/999999/listing-settings', {}, 1],
        ['GET', '/webhooks', undefined, 1],
        ['GET', '/audit-events', undefined, 1],
        ['GET', `${ws}/invitations`, undefined, 1],
        ['POST', `${ws}/invitations`, { email: `table-${allowed}-${stamp}@example.com`, role: 'member' }, 1],
        ['POST', `${ws}/invitations`, { email: `table-owner-by-${allowed}-${stamp}@example.com`, role: 'owner' }, 2],
        ['PATCH', `${ws}/members/${ownerId}`, { role: 'owner' }, 2],
        ['PATCH', ws, { name: workspaceName }, 2],
        ['DELETE', ws, { confirm: 'not its name' }, 2],
        ['POST', `${ws}/transfer-ownership`, { user_id: 999999 }, 2],
      ];
      const wrong: string[] = [];
      for (const [method, path, body, needs] of checks) {
        const status = (await call(token, method, path, body)).status;
        const refused = status === 403;
        if (refused !== rank < needs) wrong.push(`${method} ${path}: ${status} for ${allowed}`);
      }
      assert.deepEqual(wrong, [], 'the role table holds');
    }

    test('the owner creates a workspace from the switcher and lands in it', async () => {
      await page.getByRole('button', { name: 'New workspace…' }).click();
      const dialog = page.getByRole('dialog', { name: 'New workspace' });
      await dialog.getByRole('button', { name: 'Create workspace' }).click();
      await dialog.getByText('Give the workspace a name').waitFor();
      await session.noAxeViolations('the new workspace dialog with its error');
      await dialog.getByLabel('Name').fill(workspaceName);
      await dialog.getByRole('button', { name: 'Create workspace' }).click();
      await page
        .getByRole('status')
        .filter({ hasText: `The workspace “${workspaceName}” is created` })
        .waitFor();
      workspaceId = /\/workspace\/(\d+)\/dashboard$/.exec(page.url())![1]!;
      assert.equal(await page.getByRole('combobox', { name: 'Workspace', exact: true }).inputValue(), workspaceId);
      await page.getByRole('heading', { name: new RegExp(`^${workspaceName}`) }).waitFor();
      ownerId = ((await (await call(ownerToken, 'GET', '/user')).json()) as { data: { id: number } }).data.id;
      // A site of the workspace, for the pages and endpoints that take one.
      const actor = { session: ownerToken, workspace: { id: Number(workspaceId) } };
      siteId = Number(
        /\/site\/(\d+)\//.exec(locationOf(await connectThroughSandbox(session.t, actor, { platform_id: 1 }, 'allow', '31')))![1],
      );
      await session.shot('team-new-workspace');
      await session.noAxeViolations('the new workspace’s dashboard');
      session.noConsoleErrors();
    });

    test('the owner renames it and makes an invitation whose link is shown once, with Copy', async () => {
      await openSettingsFromMenu(page);
      assert.equal(await page.title(), `Workspace settings · ${workspaceName} · Storelink`);
      workspaceName = 'Tote Studio Team';
      await page.getByLabel('Workspace name').fill(workspaceName);
      await page.getByRole('button', { name: 'Rename' }).click();
      await page
        .getByRole('status')
        .filter({ hasText: `The workspace is now called “${workspaceName}”.` })
        .waitFor();

      await page.getByRole('button', { name: 'Create invitation link' }).click();
      await page.getByText('Enter the email address of the person to invite.').waitFor();
      await page.getByLabel('Email address').fill(teammate.email);
      assert.deepEqual(await page.getByLabel('Role', { exact: true }).locator('option').allTextContents(), [
        'Owner',
        'Admin',
        'Member',
        'Viewer',
      ]);
      await page.getByRole('button', { name: 'Create invitation link' }).click();
      const link = page.getByLabel('Invitation link');
      invitationUrl = await link.inputValue();
      assert.match(invitationUrl, new RegExp(`^${baseUrl}/invite/[A-Za-z0-9_-]{43}$`));
      await page.getByText('This server sends no e-mail: copy the link now').waitFor();
      await page.getByRole('button', { name: 'Copy' }).click();
      await page.getByRole('button', { name: 'Copied' }).waitFor();
      assert.equal(await page.evaluate('navigator.clipboard.readText()'), invitationUrl);
      const pending = page.getByRole('region', { name: 'Invitations' });
      await pending.getByRole('cell', { name: teammate.email, exact: true }).waitFor();
      await session.shot('team-invitation-link');
      await session.noAxeViolations('workspace settings with a new invitation link');

      // Another invitation, revoked: its link stops working.
      await page.getByLabel('Email address').fill(`nobody-${stamp}@example.com`);
      await page.getByRole('button', { name: 'Create invitation link' }).click();
      const revokedUrl = await link.inputValue();
      await page.getByRole('button', { name: `Revoke the invitation for nobody-${stamp}@example.com` }).click();
      await session.noAxeViolations('workspace settings asking to confirm a revoke');
      await page.getByRole('button', { name: 'Yes, revoke' }).click();
      await page
        .getByRole('status')
        .filter({ hasText: `The invitation for nobody-${stamp}@example.com is revoked` })
        .waitFor();
      const token = revokedUrl.split('/invite/')[1];
      assert.equal((await call(ownerToken, 'POST', `/invitations/${token}/accept`)).status, 404);

      await page.reload();
      await pending.getByRole('cell', { name: teammate.email, exact: true }).waitFor();
      assert.equal(await page.getByLabel('Invitation link').count(), 0, 'the link is not shown again');
      session.noConsoleErrors(notYetListed(settingsUrl()));
    });

    test('signed out, the invited person signs up through the link, comes back to it and joins as a member', async () => {
      const expected = await visit(second.page, invitationUrl);
      // Signed out, the page names the workspace and the role before its holder signs in.
      await second.page.getByRole('heading', { name: `You are invited to ${workspaceName} on Storelink` }).waitFor();
      await second.page.getByText(`You were invited to join ${workspaceName} as member.`).waitFor();
      assert.equal(await second.page.title(), 'Invitation · Storelink');
      await second.shot('team-invite-signed-out');
      await assertNoAxeViolations(second.page, 'the invitation page, signed out');
      await second.page.getByRole('link', { name: 'Create an account' }).click();
      await second.page.getByLabel('Name').fill(teammate.name);
      await second.page.getByLabel('Email').fill(teammate.email);
      await second.page.getByLabel('Password').fill(teammate.password);
      await second.page.getByRole('button', { name: 'Create account' }).click();
      await second.page.waitForURL(invitationUrl);
      // The link's page names what it offers before it is accepted.
      await second.page.getByRole('heading', { name: `Join ${workspaceName}?` }).waitFor();
      await second.page.getByText(`You were invited to join ${workspaceName} as member.`).waitFor();
      await second.shot('team-invite-accept');
      await assertNoAxeViolations(second.page, 'the invitation page, signed in');
      await second.page.getByRole('button', { name: 'Accept invitation' }).click();
      await second.page.waitForURL(`${baseUrl}/workspace/${workspaceId}/dashboard`);
      await second.page
        .getByRole('status')
        .filter({ hasText: `You joined ${workspaceName} as member.` })
        .waitFor();
      teammateToken = (await second.page.evaluate("localStorage.getItem('storelink.session')")) as string;
      teammateId = ((await (await call(teammateToken, 'GET', '/user')).json()) as { data: { id: number } }).data.id;
      second.noConsoleErrors(expected);
    });

    test('a used link, and one made for another address, are said in words', async () => {
      const expected = await visit(second.page, invitationUrl);
      // Said as the page opens: the link's offer is read first, and a used one has none.
      await second.page.getByRole('alert').filter({ hasText: 'This invitation link no longer works' }).waitFor();
      assert.equal(await second.page.getByRole('button', { name: 'Accept invitation' }).count(), 0);
      await assertNoAxeViolations(second.page, 'a used invitation link');

      const other = `someone-else-${stamp}@example.com`;
      const made = await call(ownerToken, 'POST', `/workspaces/${workspaceId}/invitations`, { email: other, role: 'admin' });
      const { url } = ((await made.json()) as { data: { url: string } }).data;
      await visit(second.page, url);
      await second.page.getByRole('button', { name: 'Accept invitation' }).click();
      const refusal = second.page.getByRole('alert').filter({ hasText: 'This invitation is for someone else' });
      await refusal.getByText(`The invitation is for ${other}`).waitFor();
      await refusal.getByRole('button', { name: 'Sign in as another user' }).waitFor();
      await second.shot('team-invite-for-someone-else');
      await assertNoAxeViolations(second.page, 'an invitation for someone else');
      second.noConsoleErrors([...expected, /status of 404/, /status of 403/]);
    });

    test('a member sees no admin navigation, and an admin page opened by its address says whose it is', async () => {
      const p = second.page;
      await p.goto(`${baseUrl}/workspace/${workspaceId}/dashboard`);
      await p.getByRole('heading', { name: 'Connected sites' }).waitFor();
      await p.getByRole('region', { name: 'Connected sites' }).getByRole('row').filter({ hasText: 'Etsy' }).waitFor();
      assert.equal(await p.getByRole('heading', { name: 'Connect a platform' }).count(), 0, 'no connect catalogue');
      assert.equal(await p.getByRole('button', { name: /^Connect / }).count(), 0, 'no Connect button');
      await p.locator('summary', { hasText: 'Settings' }).click();
      await p.getByRole('link', { name: 'Workspace settings' }).waitFor();
      assert.equal(await p.getByRole('link', { name: 'Webhooks' }).count(), 0);
      assert.equal(await p.getByRole('link', { name: 'Audit log' }).count(), 0);
      await second.shot('team-member-dashboard');
      await assertNoAxeViolations(p, 'a member’s dashboard with the Settings menu open');
      await p.getByRole('link', { name: 'Workspace settings' }).click();
      await p.getByRole('heading', { name: 'Members' }).waitFor();
      await p.getByText('your role: Member').waitFor();
      assert.equal(await p.locator('main select').count(), 0, 'no role select');
      assert.equal(await p.getByRole('button', { name: /^Remove/ }).count(), 0, 'no Remove');
      await memberRow(p, teammate.name).getByRole('button', { name: 'Leave workspace…' }).waitFor();
      for (const heading of ['Invitations', 'Name', 'Transfer ownership', 'Delete the workspace'])
        assert.equal(await p.getByRole('heading', { name: heading, exact: true }).count(), 0, `no ${heading}`);
      await second.shot('team-member-settings');
      await assertNoAxeViolations(p, 'workspace settings as a member');

      await p.goto(`${baseUrl}/site/${siteId}/listings`);
      await p.getByRole('heading', { name: 'Listings' }).waitFor();
      assert.equal(await p.getByRole('button', { name: 'Disconnect…' }).count(), 0, 'no Disconnect');
      assert.equal(await p.getByRole('heading', { name: 'Listing settings' }).count(), 0, 'no listing settings');
      await assertNoAxeViolations(p, 'a site’s page as a member');

      const expected: RegExp[] = [];
      for (const [path, title] of [
        ['webhooks', 'Webhooks'],
        ['audit-log', 'Audit log'],
      ]) {
        expected.push(...(await visit(p, `${baseUrl}/workspace/${workspaceId}/${path}`)));
        await p.getByRole('heading', { name: title }).waitFor();
        await p.getByText(`Only the owners and admins of ${workspaceName} can open ${title}. You are a member of this workspace`).waitFor();
        await assertNoAxeViolations(p, `${title} opened by a member`);
      }
      await second.shot('team-member-webhooks-refused');
      await roleTableHolds(teammateToken, 'member');
      second.noConsoleErrors(expected);
    });

    test('the owner makes the member an admin, who then sees what an admin may do and no more', async () => {
      await page.goto(settingsUrl());
      await page.getByLabel(`Role of ${teammate.name}`).selectOption('admin');
      await page.getByRole('button', { name: `Save the role of ${teammate.name}` }).click();
      await page
        .getByRole('status')
        .filter({ hasText: `${teammate.name} is now an admin of ${workspaceName}.` })
        .waitFor();
      // The only owner is not offered what the API would refuse: no role select, no Leave, and the reason said.
      const own = memberRow(page, owner.name);
      assert.equal(await own.locator('select').count(), 0);
      await own.getByText('You are its only owner').waitFor();
      await session.shot('team-owner-settings');
      await session.noAxeViolations('workspace settings as the owner, with an admin');

      const p = second.page;
      await p.goto(settingsUrl());
      await p.getByText('your role: Admin').waitFor();
      await p.getByRole('heading', { name: 'Invitations', exact: true }).waitFor();
      assert.deepEqual(await p.getByLabel('Role', { exact: true }).locator('option').allTextContents(), ['Admin', 'Member', 'Viewer']);
      // An admin changes no owner: the owner's row has neither a select nor Remove.
      assert.equal(await memberRow(p, owner.name).locator('select').count(), 0);
      assert.equal(await memberRow(p, owner.name).getByRole('button').count(), 0);
      for (const heading of ['Name', 'Transfer ownership', 'Delete the workspace'])
        assert.equal(await p.getByRole('heading', { name: heading, exact: true }).count(), 0, `no ${heading}`);
      await second.shot('team-admin-settings');
      await assertNoAxeViolations(p, 'workspace settings as an admin');
      await p.locator('summary', { hasText: 'Settings' }).click();
      await p.getByRole('link', { name: 'Webhooks' }).click();
      await p.getByRole('heading', { name: 'Add an endpoint' }).waitFor();
      await p.goto(`${baseUrl}/workspace/${workspaceId}/dashboard`);
      await p.getByRole('heading', { name: 'Connect a platform' }).waitFor();
      await roleTableHolds(teammateToken, 'admin');
      await roleTableHolds(ownerToken, 'owner');
      second.noConsoleErrors(notYetListed(settingsUrl()));
      session.noConsoleErrors(notYetListed(settingsUrl()));
    });

    test('a refusal that still happens is said in words: the last owner (409) and a role taken away meanwhile (403)', async () => {
      // The owner's page shows two owners; one of them is made an admin again behind its back.
      await page.getByLabel(`Role of ${teammate.name}`).selectOption('owner');
      await page.getByRole('button', { name: `Save the role of ${teammate.name}` }).click();
      await page
        .getByRole('status')
        .filter({ hasText: `${teammate.name} is now an owner` })
        .waitFor();
      await page.getByLabel(`Role of ${owner.name}`).waitFor();
      const demoted = await call(ownerToken, 'PATCH', `/workspaces/${workspaceId}/members/${teammateId}`, { role: 'admin' });
      assert.equal(demoted.status, 200);
      await page.getByLabel(`Role of ${owner.name}`).selectOption('admin');
      await page.getByRole('button', { name: `Save the role of ${owner.name}` }).click();
      await page.getByRole('alert').filter({ hasText: 'A workspace keeps at least one owner: make another member owner first.' }).waitFor();
      // The list is read again after a refusal: the owner is now told they are the only one.
      await memberRow(page, owner.name).getByText('You are its only owner').waitFor();
      await session.shot('team-last-owner-refused');
      await session.noAxeViolations('the last owner’s refusal');

      // The admin's page offers invitations; the role goes before they use it.
      const p = second.page;
      const expected = await visit(p, settingsUrl());
      await p.getByRole('heading', { name: 'Invitations', exact: true }).waitFor();
      assert.equal((await call(ownerToken, 'PATCH', `/workspaces/${workspaceId}/members/${teammateId}`, { role: 'member' })).status, 200);
      await p.getByLabel('Email address').fill(`late-${stamp}@example.com`);
      await p.getByRole('button', { name: 'Create invitation link' }).click();
      await p.getByRole('alert').filter({ hasText: 'Your role in this workspace does not allow this' }).waitFor();
      await assertNoAxeViolations(p, 'a refused invitation');
      assert.equal((await call(ownerToken, 'PATCH', `/workspaces/${workspaceId}/members/${teammateId}`, { role: 'admin' })).status, 200);
      session.noConsoleErrors([/status of 409/]);
      second.noConsoleErrors([...expected, /status of 403/]);
    });

    test('ownership is handed over after a confirmation, and each sees their new role', async () => {
      await page.reload();
      await page.getByLabel('New owner').selectOption({ label: `${teammate.name} (${teammate.email})` });
      await page.getByRole('button', { name: 'Transfer ownership…' }).click();
      const cancel = page.getByRole('alertdialog').getByRole('button', { name: 'Cancel' });
      await cancel.waitFor();
      assert.ok(
        await cancel.evaluate(
          (element) => element === (globalThis as unknown as { document: { activeElement: unknown } }).document.activeElement,
        ),
      );
      await session.shot('team-transfer-confirm');
      await session.noAxeViolations('the transfer confirmation');
      await page.getByRole('button', { name: 'Yes, transfer' }).click();
      await page
        .getByRole('status')
        .filter({ hasText: `${teammate.name} is now an owner of ${workspaceName}, and you are an admin.` })
        .waitFor();
      await page.getByText('your role: Admin').waitFor();
      assert.equal(await page.getByRole('heading', { name: 'Delete the workspace' }).count(), 0);
      assert.equal(await page.getByRole('heading', { name: 'Transfer ownership' }).count(), 0);

      await second.page.reload();
      await second.page.getByText('your role: Owner').waitFor();
      await second.page.getByRole('heading', { name: 'Delete the workspace' }).waitFor();
      session.noConsoleErrors(notYetListed(settingsUrl()));
      second.noConsoleErrors(notYetListed(settingsUrl()));
    });

    test('the admin leaves, and the new owner deletes the workspace by typing its name', async () => {
      await memberRow(page, owner.name).getByRole('button', { name: 'Leave workspace…' }).click();
      await page.getByRole('button', { name: 'Yes, leave' }).click();
      await page
        .getByRole('status')
        .filter({ hasText: `You left ${workspaceName}.` })
        .waitFor();
      assert.notEqual(/\/workspace\/(\d+)\/dashboard$/.exec(page.url())?.[1], workspaceId);
      assert.equal((await call(ownerToken, 'GET', '/sites')).status, 403, 'no access once gone');

      const p = second.page;
      await p.reload();
      await p.getByRole('button', { name: 'Delete workspace…' }).click();
      const dialog = p.getByRole('dialog', { name: `Delete “${workspaceName}”?` });
      const confirm = dialog.getByRole('button', { name: 'Delete this workspace' });
      assert.ok(await confirm.isDisabled(), 'disabled until the name is typed');
      await dialog.getByLabel(/Type the workspace’s name/).fill('Tote Studio');
      assert.ok(await confirm.isDisabled(), 'disabled for another name');
      await dialog.getByLabel(/Type the workspace’s name/).fill(workspaceName);
      await second.shot('team-delete-dialog');
      await assertNoAxeViolations(p, 'the delete dialog');
      await confirm.click();
      await p
        .getByRole('status')
        .filter({ hasText: `The workspace “${workspaceName}” was deleted` })
        .waitFor();
      assert.notEqual(/\/workspace\/(\d+)\/dashboard$/.exec(p.url())?.[1], workspaceId);
      assert.equal((await call(teammateToken, 'GET', '/sites')).status, 403);
      session.noConsoleErrors();
      second.noConsoleErrors(notYetListed(settingsUrl()));
    });
  });
}
