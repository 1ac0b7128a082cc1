/**
 * A viewer's dashboard in Chromium (issue 37 item 5, DESIGN §12): the owner invites a viewer from Workspace settings
 * (Viewer is one of the roles offered), the viewer signs up through the link and accepts; then every page a member
 * opens shows the viewer what it holds (the product, the site's listing, the listing, the orders), says the workspace is
 * read-only for them and names their role, and offers no control that would change the workspace: no Add product,
 * Import or Edit prices and stock, the product's form disabled with no Save or Delete, no Publish, Import listings or listing
 * actions, no Read orders now, no invitations. axe on every page. Screenshots: test-results/screenshots/viewer-*.png.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { allowConsent, apiCaller, type BrowserSession, openBrowser, signUp } from '../helpers/browser.js';
import { dashboardDatabaseKinds } from '../helpers/database.js';
import { mug, PNG_640X480 } from '../helpers/fixtures.js';

const TITLE = 'Ash-glazed mug';
const READ_ONLY = 'You are a viewer of this workspace';

for (const kind of dashboardDatabaseKinds()) {
  describe(`a viewer’s dashboard [${kind}]`, () => {
    let session: BrowserSession;
    let page: Page;
    let baseUrl: string;
    const stamp = Date.now();
    const owner = { name: 'Olga Owner', email: `olga-${stamp}@example.com`, password: 'correct horse battery' };
    const viewer = { name: 'Vic Viewer', email: `vic-${stamp}@example.com`, password: 'another horse battery' };
    let who = { token: '', workspaceId: '' };
    let productId = 0;
    let siteId = '';
    let listingId = 0;
    let invitationUrl = '';

    before(async () => {
      session = await openBrowser(kind);
      ({ baseUrl, page } = session);
      Object.assign(session.t.deps.sandbox.etsyLimits, { perSecond: 1_000_000, perDay: 1_000_000_000 });
    });
    after(() => session?.close());

    const apiCall = apiCaller(
      () => baseUrl,
      () => who,
    );

    /** The buttons and links of the page's main content whose names match, visible ones only. */
    const controls = (name: string | RegExp) =>
      page.getByRole('main').getByRole('button', { name }).or(page.getByRole('main').getByRole('link', { name }));

    /** What every page shows a viewer: the read-only line, and no control named in `absent`. */
    async function readOnly(what: string, absent: (string | RegExp)[]) {
      await page.getByRole('note').filter({ hasText: READ_ONLY }).waitFor();
      for (const name of absent) assert.equal(await controls(name).count(), 0, `${what}: no “${name}” for a viewer`);
      await session.noAxeViolations(`${what}, as a viewer`);
    }

    test('the owner has a product listed on the sandbox Etsy shop, and invites a viewer from Workspace settings', async () => {
      who = await signUp(page, baseUrl, owner);
      const created = await apiCall('POST', '/products', mug('ASH', { colours: true, title: TITLE }));
      assert.equal(created.status, 201, await created.clone().text());
      productId = ((await created.json()) as { data: { id: number } }).data.id;
      const form = new FormData();
      form.set('file', new Blob([PNG_640X480], { type: 'image/png' }), 'mug.png');
      assert.equal((await apiCall('POST', `/products/${productId}/images`, form)).status, 201);
      const authorization = await apiCall('POST', '/authenticate-site', { platform_id: 1 });
      await page.goto(((await authorization.json()) as { data: { url: string } }).data.url);
      await page.getByLabel('Sandbox account number').fill('512');
      siteId = await allowConsent(page);
      const options = (
        (await (await apiCall('GET', `/sites/${siteId}/listing-options`)).json()) as { data: Record<string, { value: string }[]> }
      ).data;
      const settings = {
        shipping_profile_id: options.shipping_profile_id![0]!.value,
        return_policy_id: options.return_policy_id![0]!.value,
        readiness_state_id: options.readiness_state_id![0]!.value,
        who_made: 'i_did',
        when_made: 'made_to_order',
      };
      assert.equal((await apiCall('PUT', `/sites/${siteId}/listing-settings`, settings)).status, 200);
      const leaf = (
        (await (await apiCall('GET', `/sites/${siteId}/categories?q=mug`)).json()) as { data: { id: string; leaf: boolean }[] }
      ).data.find((c) => c.leaf)!;
      const required = (
        (await (await apiCall('GET', `/sites/${siteId}/categories/${leaf.id}/attributes`)).json()) as {
          data: { name: string; required: boolean; type: string; values: { value: string }[] }[];
        }
      ).data.filter((a) => a.required);
      const attributes = Object.fromEntries(
        required.map((a) => [a.name, a.type === 'multiselect' ? [a.values[0]!.value] : (a.values[0]?.value ?? 'text')]),
      );
      const published = await apiCall('POST', `/sites/${siteId}/listings`, { product_id: productId, category_id: leaf.id, attributes });
      assert.equal(published.status, 202, await published.clone().text());
      listingId = ((await published.json()) as { data: { id: number } }).data.id;

      await page.goto(`${baseUrl}/workspace/${who.workspaceId}/settings`);
      await page.getByRole('button', { name: 'Create invitation link' }).waitFor();
      await session.noAxeViolations("the owner's workspace settings");
      await page.getByLabel('Email address').fill(viewer.email);
      const role = page.getByLabel('Role', { exact: true });
      assert.deepEqual(await role.locator('option').allTextContents(), ['Owner', 'Admin', 'Member', 'Viewer']);
      await role.selectOption({ label: 'Viewer' });
      await page.getByRole('button', { name: 'Create invitation link' }).click();
      invitationUrl = await page.getByLabel('Invitation link').inputValue();
      assert.match(invitationUrl, /\/invite\/[A-Za-z0-9_-]{43}$/);
      await page.getByRole('row').filter({ hasText: viewer.email }).getByRole('cell', { name: 'Viewer', exact: true }).waitFor();
      session.noConsoleErrors();
    });

    test('the viewer signs up through the link and accepts: the workspace opens, saying it is read-only for them', async () => {
      await page.evaluate('localStorage.clear()');
      const signedUp = await signUp(page, baseUrl, viewer);
      await page.goto(invitationUrl);
      await page.getByText(/as viewer/).waitFor();
      await session.noAxeViolations('the invitation, as a viewer');
      await page.getByRole('button', { name: 'Accept invitation' }).click();
      await page.waitForURL(`${baseUrl}/workspace/${who.workspaceId}/dashboard`);
      who = { token: signedUp.token, workspaceId: who.workspaceId };
      // The site in the dashboard's list of sites (the overview names it too).
      await page.getByRole('region', { name: 'Connected sites' }).getByRole('link', { name: 'Sandbox Etsy Shop 512' }).waitFor();
      await readOnly('the dashboard', [/^Connect/]);
      await page.locator('summary', { hasText: 'Settings' }).click();
      await page.locator('.menu-heading .menu-role', { hasText: 'Viewer' }).waitFor();
      assert.equal(await page.getByRole('link', { name: 'Webhooks' }).count(), 0);
      await session.noAxeViolations('the dashboard with the Settings menu open, as a viewer');
      await session.shot('viewer-dashboard');
      await page.keyboard.press('Escape');
      session.noConsoleErrors();
    });

    test('the products: listed and exported, never added, imported or bulk-edited', async () => {
      await page.goto(`${baseUrl}/workspace/${who.workspaceId}/products`);
      await page.getByRole('link', { name: TITLE }).first().waitFor();
      await readOnly('the products', ['Add product', /^Import CSV/, /^Edit prices and stock/]);
      assert.equal(await controls(/^Export CSV/).count(), 1, 'the export is a read: it stays');
      assert.equal(await page.getByRole('main').getByRole('checkbox').count(), 0, 'no boxes to pick products for a bulk edit');
      await session.shot('viewer-products');
      session.noConsoleErrors();
    });

    test('a product: every field shown and disabled, no Save, no Delete; a new product is not offered', async () => {
      await page.goto(`${baseUrl}/workspace/${who.workspaceId}/products/${productId}`);
      await page.getByRole('heading', { name: TITLE, level: 1 }).waitFor();
      await readOnly('a product', ['Save changes', 'Delete product…']);
      const title = page.getByLabel('Title', { exact: true });
      assert.equal(await title.inputValue(), TITLE);
      assert.equal(await title.isDisabled(), true);
      const fields = page.getByRole('main').locator('input, select, textarea');
      const enabled = await fields.evaluateAll(
        (nodes) => nodes.filter((n) => !(n as unknown as { matches(s: string): boolean }).matches(':disabled')).length,
      );
      assert.equal(enabled, 0, 'no field of the product can be changed');
      await page.getByRole('heading', { name: 'Stock movements' }).waitFor();
      await session.shot('viewer-product');

      await page.goto(`${baseUrl}/workspace/${who.workspaceId}/products/new`);
      await page.getByText('As a viewer of this workspace you can see its products but not add them.').waitFor();
      assert.equal(await controls('Create product').count(), 0);
      await session.noAxeViolations('a new product, as a viewer');
      session.noConsoleErrors();
    });

    test('the site: its listing shown, with no Publish, Import listings, listing actions, settings or Disconnect', async () => {
      await page.goto(`${baseUrl}/site/${siteId}/listings`);
      await page.getByRole('row').filter({ hasText: TITLE }).waitFor();
      await page.getByRole('heading', { name: 'Details' }).waitFor();
      await readOnly('the site', [/^Publish products/, /^Import listings/, /^Refresh/, /^Delete/, /^Deactivate/, /^Disconnect/]);
      assert.equal(await page.getByRole('heading', { name: 'Listing settings' }).count(), 0);
      await session.shot('viewer-site');

      await page.goto(`${baseUrl}/site/${siteId}/listings/${listingId}`);
      await page.getByRole('heading', { level: 1 }).filter({ hasText: TITLE }).waitFor();
      await readOnly('a listing', [/^Refresh/, /^Delete/, /^Deactivate/, /^Activate/]);
      const overrides = page.getByRole('main').locator('fieldset.read-only-fieldset');
      assert.equal(await overrides.count(), 1);
      const overrideFields = overrides.locator('input, select, textarea, button');
      assert.ok((await overrideFields.count()) > 0);
      const enabledOverrides = await overrideFields.evaluateAll(
        (nodes) => nodes.filter((n) => !(n as unknown as { matches(s: string): boolean }).matches(':disabled')).length,
      );
      assert.equal(enabledOverrides, 0, 'the per-site overrides are shown disabled');
      session.noConsoleErrors();
    });

    test('the orders and the workspace settings: read, with no Read orders now, no invitations, and Leave', async () => {
      await page.goto(`${baseUrl}/workspace/${who.workspaceId}/orders`);
      await page.getByRole('heading', { name: 'Sites' }).waitFor();
      await page.getByRole('link', { name: 'Sandbox Etsy Shop 512' }).waitFor();
      await readOnly('the orders', [/^Read orders now/, /^Place/]);

      await page.goto(`${baseUrl}/workspace/${who.workspaceId}/settings`);
      await page.getByRole('heading', { name: 'Members' }).waitFor();
      await page.getByRole('main').getByText('your role:').waitFor();
      assert.equal((await page.getByRole('main').locator('strong', { hasText: 'Viewer' }).count()) > 0, true);
      await readOnly('the workspace settings', ['Create invitation link', /^Remove/, 'Save name']);
      assert.equal(await controls('Leave workspace…').count(), 1, 'a viewer may leave');
      await session.shot('viewer-settings');

      // Their own pages (account, tokens) are theirs to change: no read-only line there.
      await page.goto(`${baseUrl}/profile/developer/api-access`);
      await page.getByRole('heading', { name: 'API Access', level: 1 }).waitFor();
      await page.getByRole('button', { name: 'Create token' }).waitFor();
      assert.equal(await page.getByRole('note').filter({ hasText: READ_ONLY }).count(), 0);

      // The API holds the same line, whatever the page shows.
      const refused = await apiCall('POST', '/products', mug('ASH-NEW'));
      assert.equal(refused.status, 403);
      session.noConsoleErrors();
    });
  });
}
