/**
 * The connect catalogue and broken connections in Chromium (issue 16 item 3, ux review §2.4): the platforms with what
 * each connection allows and their "Sandbox" badge (GET /platforms); a site whose grant is revoked on the platform
 * (POST /sandbox/revoke, then the renewal that finds it) is listed in the dashboard's attention banner and offers
 * Reconnect on its page, which brings the same site back (same id) when the same account consents; a disconnected site
 * offers Reconnect too. Screenshots: test-results/screenshots/catalogue-*.png.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { allowConsent, apiCaller, type BrowserSession, openBrowser, signUp } from '../helpers/browser.js';
import { connectTikTokShopSite } from '../helpers/connect.js';
import { dashboardDatabaseKinds } from '../helpers/database.js';
import { refreshDue } from '../helpers/jobs.js';

type Site = { id: number; name: string; status: string; next_refresh_at: string | null };

for (const kind of dashboardDatabaseKinds()) {
  describe(`the connect catalogue and broken connections in a browser [${kind}]`, () => {
    let session: BrowserSession;
    let page: Page;
    let baseUrl: string;
    const user = { name: 'Catalogue Seller', email: `catalogue-${Date.now()}@example.com`, password: 'correct horse battery' };
    let workspaceId = '';
    let token = '';
    let etsy: Site;
    const api = apiCaller(
      () => baseUrl,
      () => ({ token, workspaceId }),
    );
    const dashboardUrl = () => `${baseUrl}/workspace/${workspaceId}/dashboard`;
    const readSite = async (id: number) => ((await (await api('GET', `/sites/${id}`)).json()) as { data: Site }).data;
    const siteCount = async () => ((await (await api('GET', '/sites')).json()) as { meta: { total: number } }).meta.total;

    before(async () => {
      session = await openBrowser(kind, { renewals: 'by-hand' });
      ({ page, baseUrl } = session);
      ({ workspaceId, token } = await signUp(page, baseUrl, user));
    });
    after(() => session?.close());

    /** Answers the sandbox consent page the browser is on with Allow for `account`, and waits to be back on a site. */
    async function allowOnConsentPage(account: string, market?: string) {
      await page.waitForURL((url) => url.pathname.startsWith('/sandbox/'));
      await page.getByLabel('Sandbox account number').fill(account);
      if (market) await page.getByLabel("The sandbox seller's market").selectOption(market);
      await allowConsent(page);
    }

    test('each platform says what its connection allows, with a Sandbox badge when the server simulates it', async () => {
      const catalogue = page.getByRole('region', { name: 'Connect a platform' });
      for (const name of ['Etsy', 'TikTok Shop', 'Amazon seller', 'Amazon Ads']) {
        const card = catalogue.getByRole('listitem').filter({ has: page.getByRole('heading', { name: new RegExp(`^${name}`) }) });
        await card.getByText('Sandbox', { exact: true }).waitFor();
        await card.getByText('What the connection allows').waitFor();
        assert.ok((await card.locator('.allows li').count()) >= 1, `${name} says what it allows`);
      }
      await catalogue.getByText('Import the shop’s listings').waitFor();
      await catalogue.getByText('Connect an Amazon seller account first').waitFor();
      for (const button of ['Connect Etsy', 'Connect TikTok Shop', 'Connect Amazon'])
        await catalogue.getByRole('button', { name: button }).waitFor();
      await catalogue.getByLabel('Connect Amazon: region').waitFor();
      await session.shot('catalogue-dashboard');
      await session.shot('catalogue-dashboard-375', 375);
      await session.noAxeViolations('the dashboard’s connect catalogue');
      session.noConsoleErrors();
    });

    test('a site whose grant the seller revoked is in the dashboard’s attention banner, with Reconnect', async () => {
      await page.getByRole('button', { name: 'Connect Etsy' }).click();
      await allowOnConsentPage('41');
      const id = Number(/\/site\/(\d+)\/listings$/.exec(page.url())![1]);
      etsy = await readSite(id);
      // Away from the site's page first: its listings, read while it breaks, would be refused (422) meanwhile.
      await page.goto(dashboardUrl());
      await page.getByRole('region', { name: 'Connected sites' }).getByRole('row').filter({ hasText: etsy.name }).waitFor();
      assert.equal(
        (await fetch(`${baseUrl}/sandbox/revoke`, { method: 'POST', body: new URLSearchParams({ track: 'etsy', account: '41' }) })).status,
        204,
      );
      // The next renewal finds the grant gone: the clock goes to it, and back.
      const wait = Date.parse(etsy.next_refresh_at!) - session.t.clock.now().getTime() + 1000;
      session.t.clock.advance(wait);
      try {
        assert.equal((await refreshDue(session.t)).reauthorization_required, 1);
      } finally {
        session.t.clock.advance(-wait);
      }
      assert.equal((await readSite(id)).status, 'reauthorization_required');
      // On Etsy, consenting again after a revocation is a new grant that works. The sandbox keeps the account revoked for
      // good (POST /sandbox/revoke marks `etsy:41`, and every later token of the account is refused), so the mark goes
      // here, as the seller's new consent would end it.
      session.t.deps.sandbox.revokedGrants.delete('etsy:41');

      await page.goto(dashboardUrl());
      const banner = page.getByRole('region', { name: '1 site needs to be reconnected' });
      await banner.getByRole('link', { name: etsy.name }).waitFor();
      await banner.getByText('The platform refused to renew access').waitFor();
      await banner.getByRole('button', { name: `Reconnect ${etsy.name}` }).waitFor();
      await session.shot('catalogue-attention-banner');
      await session.noAxeViolations('the dashboard with a site to reconnect');
      session.noConsoleErrors();
    });

    test('Reconnect on the site’s page brings the same site back when the same account consents', async () => {
      const before = await siteCount();
      await page.getByRole('region', { name: '1 site needs to be reconnected' }).getByRole('link', { name: etsy.name }).click();
      await page.waitForURL(`${baseUrl}/site/${etsy.id}/listings`);
      const notice = page.getByRole('region', { name: 'This site needs to be reconnected' });
      await notice.getByText('Reconnect it with the same Etsy account').waitFor();
      await session.shot('catalogue-site-reconnect');
      await session.noAxeViolations('a site needing reconnection');
      await notice.getByRole('button', { name: `Reconnect ${etsy.name}` }).click();
      await allowOnConsentPage('41');
      assert.equal(page.url(), `${baseUrl}/site/${etsy.id}/listings`, 'the same site, by its id');
      await page.getByRole('status').filter({ hasText: 'Etsy is connected.' }).waitFor();
      await page.getByRole('region', { name: 'Details' }).locator('.badge', { hasText: 'Connected' }).waitFor();
      assert.equal(await page.getByRole('region', { name: 'This site needs to be reconnected' }).count(), 0);
      assert.equal((await readSite(etsy.id)).status, 'connected');
      assert.equal(await siteCount(), before, 'no new site');

      await page.goto(dashboardUrl());
      await page.getByRole('heading', { name: 'Connected sites' }).waitFor();
      await page
        .getByRole('region', { name: 'Connected sites' })
        .getByRole('row')
        .filter({ hasText: etsy.name })
        .getByText('Connected')
        .waitFor();
      assert.equal(await page.getByText(/needs? to be reconnected/).count(), 0, 'the banner is gone');
      session.noConsoleErrors();
    });

    test('a disconnected site offers Reconnect, and comes back with its id', async () => {
      const actor = { session: token, workspace: { id: Number(workspaceId) } };
      const id = await connectTikTokShopSite(session.t, actor, '42');
      await page.goto(`${baseUrl}/site/${id}/listings`);
      await page.getByRole('button', { name: 'Disconnect…' }).click();
      await page.getByRole('button', { name: 'Yes, disconnect' }).click();
      const notice = page.getByRole('region', { name: 'Disconnected' });
      await notice.getByText('Storelink holds no access to it on TikTok Shop').waitFor();
      await session.shot('catalogue-site-disconnected');
      await session.noAxeViolations('a disconnected site with Reconnect');
      const { name } = await readSite(id);
      await notice.getByRole('button', { name: `Reconnect ${name}` }).click();
      // The same seller as connected (the test helpers' TikTok seller is a UK one): the same shop, so the same site.
      await allowOnConsentPage('42', 'GB');
      assert.equal(page.url(), `${baseUrl}/site/${id}/listings`);
      await page.getByRole('status').filter({ hasText: 'TikTok Shop is connected.' }).waitFor();
      assert.equal((await readSite(id)).status, 'connected');
      session.noConsoleErrors();
    });
  });
}
