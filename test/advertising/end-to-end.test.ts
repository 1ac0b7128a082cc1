/**
 * Issue 17: advertising an active Amazon listing with Sponsored Products (DESIGN §13), end to end against the sandbox's
 * Amazon Ads (v3 campaigns, ad groups, product ads, keywords, the reporting flow) over real HTTP: what Amazon holds
 * after each request, the listing's state followed, bad input refused with nothing changed, a lost answer creating
 * nothing twice, throttling and a refused grant, and the daily figures from the asynchronous report.
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { REPORT_POLL_MS, REPORT_QUEUE } from '../../src/core/advertising/advertising-metrics.js';
import { ADVERTISING_QUEUE } from '../../src/core/advertising/advertising-work.js';
import { LISTING_QUEUE } from '../../src/core/listings/listing-work.js';
import { setAmazonAdsRateLimit } from '../../src/sandbox/amazon-ads/rate-limits.js';
import { setAmazonSellerRateLimit } from '../../src/sandbox/amazon-seller/listings-rate-limits.js';
import { adsHeld } from '../helpers/ads-sandbox.js';
import { AUTO, activeAmazonListing, advertisedListing } from '../helpers/advertising.js';
import { connectThroughSandbox, locationOf } from '../helpers/connect.js';
import { databaseKinds } from '../helpers/database.js';
import type { amazonSeller } from '../helpers/listings.js';
import { call, createPat, createTestApp, registerUser, runDueJobs, type TestApp } from '../helpers/test-app.js';

const DAY_MS = 86_400_000;

for (const kind of databaseKinds()) {
  describe(`advertising a listing on Amazon [${kind}]`, () => {
    let t: TestApp;
    before(async () => {
      t = await createTestApp(kind, { listen: true });
    });
    after(() => t.close());
    beforeEach(() => {
      setAmazonSellerRateLimit(t.deps.sandbox, 1_000_000);
      // The sandbox's buckets refill by the test's clock, which stands still here: throttling has a test of its own.
      setAmazonAdsRateLimit(t.deps.sandbox, 1_000_000);
      t.deps.sandbox.faults.clear();
    });

    type Seller = Awaited<ReturnType<typeof amazonSeller>>;
    const listing = async (me: Seller, id: number) => (await call(t, 'GET', `/listings/${id}`, me.as)).json().data;
    const advertising = async (me: Seller, id: number) => (await call(t, 'GET', `/listings/${id}/advertising`, me.as)).json().data;
    const adsCalls = () => [...t.deps.sandbox.calls].filter(([key]) => key.startsWith('amazon-ads:sp')).reduce((sum, [, n]) => sum + n, 0);

    const activeListing = (account: string, sku: string, options: { ads?: boolean } = {}) => activeAmazonListing(t, account, sku, options);
    const advertised = (account: string, sku: string, body: object = AUTO) => advertisedListing(t, account, sku, body);
    const webhookOf = async (me: Seller) => {
      const created = await call(t, 'POST', '/webhooks', {
        ...me.as,
        body: { url: `${t.deps.config.appUrl}/nowhere`, events: ['advertising.started', 'advertising.paused', 'advertising.failed'] },
      });
      assert.equal(created.statusCode, 201, created.body);
      const endpoint = created.json().data.id as number;
      return async () => {
        const { rows } = (await t.database.db.execute(
          sql`select event_type from webhook_deliveries where endpoint_id = ${endpoint} order by id`,
        )) as unknown as { rows: { event_type: string }[] };
        return rows.map((row) => row.event_type);
      };
    };

    test('advertising an active listing makes an automatic campaign, its ad group and a product ad per SKU in the US profile', async () => {
      const { me, id, profile } = await activeListing('901', 'AD1');
      const events = await webhookOf(me);
      const started = await call(t, 'POST', `/listings/${id}/advertising`, { ...me.as, body: AUTO });
      assert.equal(started.statusCode, 202, started.body);
      const pending = started.json().data;
      assert.equal(pending.state, 'pending');
      assert.equal(pending.profile_id, profile);
      assert.equal(pending.currency, 'USD');
      assert.equal(pending.daily_budget, '10.00');
      await runDueJobs(t, ADVERTISING_QUEUE);

      const record = await advertising(me, id);
      assert.equal(record.state, 'enabled', JSON.stringify(record.issues));
      assert.equal(record.sync_status, 'synced');
      assert.ok(record.campaign_id && record.ad_group_id);
      assert.deepEqual(Object.keys(record.skus).sort(), ['AD1-B', 'AD1-W']);
      const held = adsHeld(t, profile);
      assert.equal(held.campaigns.length, 1);
      const campaign = held.campaigns[0]!;
      assert.equal(campaign.campaignId, record.campaign_id);
      assert.equal(campaign.state, 'ENABLED');
      assert.equal(campaign.targetingType, 'AUTO');
      assert.equal(campaign.budget.budget, 10);
      assert.deepEqual(
        held.adGroups.map((g) => [g.adGroupId, g.defaultBid, g.state]),
        [[record.ad_group_id, 0.5, 'ENABLED']],
      );
      assert.deepEqual(held.productAds.map((ad) => [ad.sku, ad.state]).sort(), [
        ['AD1-B', 'ENABLED'],
        ['AD1-W', 'ENABLED'],
      ]);
      assert.deepEqual(await events(), ['advertising.started']);
      const logged = await call(t, 'GET', '/audit-events?action=advertising.created', me.as);
      assert.equal(logged.statusCode, 200, logged.body);
      assert.deepEqual(
        logged.json().data.map((entry: { subject: unknown }) => entry.subject),
        [{ type: 'advertising', id: record.id }],
      );
    });

    test('bad requests are refused with what was wrong, and change nothing on Amazon or in Storelink', async () => {
      const { me, id } = await activeListing('902', 'AD2');
      const before = adsCalls();
      const refused = async (body: object, field: string, message: RegExp, path = `/listings/${id}/advertising`) => {
        const response = await call(t, 'POST', path, { ...me.as, body });
        assert.equal(response.statusCode, 422, response.body);
        assert.match(response.json().errors[field]?.[0] ?? '', message, response.body);
      };
      await refused({ ...AUTO, daily_budget: '0.50' }, 'daily_budget', /between 1\.00 and 1000000\.00 USD/);
      await refused({ ...AUTO, default_bid: '0.01' }, 'default_bid', /between 0\.02 and 1000\.00 USD/);
      await refused({ ...AUTO, daily_budget: '10.001' }, 'daily_budget', /./);
      await refused({ ...AUTO, targeting: { keywords: [] } }, 'targeting', /./);
      await refused(
        { ...AUTO, targeting: { keywords: [{ text: 'stoneware mug', match_type: 'exact', bid: '0.01' }] } },
        'targeting.keywords.0.bid',
        /keyword bid must be between 0\.02/,
      );
      await refused(
        { ...AUTO, targeting: { keywords: [{ text: 'mug', match_type: 'fuzzy', bid: '1.00' }] } },
        'targeting',
        /targeting is invalid/,
      );
      assert.equal((await call(t, 'GET', `/listings/${id}/advertising`, me.as)).statusCode, 404);

      // A listing that is not live, and a site whose advertising is not connected.
      assert.equal((await call(t, 'POST', `/listings/${id}/deactivate`, me.as)).statusCode, 202);
      await runDueJobs(t, LISTING_QUEUE);
      await refused(AUTO, 'listing', /active Amazon listing/);
      const other = await activeListing('903', 'AD3', { ads: false });
      const notConnected = await call(t, 'POST', `/listings/${other.id}/advertising`, { ...other.me.as, body: AUTO });
      assert.equal(notConnected.statusCode, 422);
      assert.match(notConnected.json().errors.advertising[0], /Connect Amazon advertising/);

      // Another workspace's listing is not found; a member may read but not spend.
      const stranger = await registerUser(t);
      const foreign = await call(t, 'POST', `/listings/${other.id}/advertising`, {
        token: stranger.session,
        workspace: stranger.workspace.id,
        body: AUTO,
      });
      assert.equal(foreign.statusCode, 404);
      assert.equal(adsCalls(), before, 'no call reached Amazon Ads');
      const rows = (await t.database.db.execute(sql`select count(*)::int as n from listing_advertising`)) as unknown as {
        rows: { n: number }[];
      };
      const count = rows.rows[0]!.n;
      const second = await advertised('904', 'AD4');
      const again = await call(t, 'POST', `/listings/${second.id}/advertising`, { ...second.me.as, body: AUTO });
      assert.equal(again.statusCode, 409);
      assert.equal(
        ((await t.database.db.execute(sql`select count(*)::int as n from listing_advertising`)) as unknown as { rows: { n: number }[] })
          .rows[0]!.n,
        count + 1,
      );
      const nothing = await call(t, 'PATCH', `/listings/${second.id}/advertising`, { ...second.me.as, body: {} });
      assert.equal(nothing.statusCode, 422);
    });

    test('a member may read the advertising and its figures but not start, change or end it (403)', async () => {
      const { me, id } = await advertised('905', 'AD5');
      const invited = await call(t, 'POST', `/workspaces/${me.workspace.id}/invitations`, {
        ...me.as,
        body: { email: 'member-905@example.com', role: 'member' },
      });
      assert.equal(invited.statusCode, 201, invited.body);
      const member = await registerUser(t, { email: 'member-905@example.com' });
      const joined = await call(t, 'POST', `/invitations/${invited.json().data.token}/accept`, { token: member.session });
      assert.equal(joined.statusCode, 200, joined.body);
      const as = { token: member.session, workspace: me.workspace.id };
      assert.equal((await call(t, 'GET', `/listings/${id}/advertising`, as)).statusCode, 200);
      assert.equal((await call(t, 'GET', `/listings/${id}/advertising/metrics`, as)).statusCode, 200);
      assert.equal((await call(t, 'PATCH', `/listings/${id}/advertising`, { ...as, body: { state: 'paused' } })).statusCode, 403);
      assert.equal((await call(t, 'DELETE', `/listings/${id}/advertising`, as)).statusCode, 403);
    });

    test('the advertising follows its listing: deactivated pauses the ads, activated resumes them, deleted archives the campaign', async () => {
      const { me, id, profile } = await advertised('906', 'AD6');
      const events = await webhookOf(me);
      assert.equal((await call(t, 'POST', `/listings/${id}/deactivate`, me.as)).statusCode, 202);
      await runDueJobs(t, LISTING_QUEUE);
      await runDueJobs(t, ADVERTISING_QUEUE);
      assert.equal((await advertising(me, id)).state, 'paused');
      let held = adsHeld(t, profile);
      assert.deepEqual(
        held.productAds.map((ad) => ad.state),
        ['PAUSED', 'PAUSED'],
      );
      assert.equal(held.campaigns[0]!.state, 'PAUSED');

      // DESIGN §13: the ads resume within 30 s of activating: the SKUs are buyable again without a new review, and no
      // time passes here (not even the watch's minute).
      assert.equal((await call(t, 'POST', `/listings/${id}/activate`, me.as)).statusCode, 202);
      await runDueJobs(t, LISTING_QUEUE);
      assert.equal((await listing(me, id)).status, 'active');
      await runDueJobs(t, ADVERTISING_QUEUE);
      assert.equal((await advertising(me, id)).state, 'enabled');
      held = adsHeld(t, profile);
      assert.deepEqual(
        held.productAds.map((ad) => ad.state),
        ['ENABLED', 'ENABLED'],
      );

      assert.equal((await call(t, 'DELETE', `/listings/${id}`, me.as)).statusCode, 202);
      await runDueJobs(t, LISTING_QUEUE);
      await runDueJobs(t, ADVERTISING_QUEUE);
      assert.equal((await advertising(me, id)).state, 'archived');
      assert.equal(adsHeld(t, profile).campaigns[0]!.state, 'ARCHIVED');
      assert.deepEqual(await events(), ['advertising.paused', 'advertising.started']);
    });

    test('a paused advertising stays paused when its listing comes back; PATCH changes budget and bid; DELETE archives and it can start again', async () => {
      const { me, id, profile } = await advertised('907', 'AD7');
      const changed = await call(t, 'PATCH', `/listings/${id}/advertising`, {
        ...me.as,
        body: { daily_budget: '25.50', default_bid: '0.75', state: 'paused' },
      });
      assert.equal(changed.statusCode, 202, changed.body);
      assert.equal(changed.json().data.sync_status, 'syncing');
      await runDueJobs(t, ADVERTISING_QUEUE);
      let held = adsHeld(t, profile);
      assert.equal(held.campaigns[0]!.budget.budget, 25.5);
      assert.equal(held.adGroups[0]!.defaultBid, 0.75);
      assert.equal(held.campaigns[0]!.state, 'PAUSED');
      const record = await advertising(me, id);
      assert.deepEqual([record.state, record.daily_budget, record.default_bid], ['paused', '25.50', '0.75']);

      assert.equal((await call(t, 'PATCH', `/listings/${id}/advertising`, { ...me.as, body: { state: 'enabled' } })).statusCode, 202);
      await runDueJobs(t, ADVERTISING_QUEUE);
      assert.equal(adsHeld(t, profile).campaigns[0]!.state, 'ENABLED');

      const ended = await call(t, 'DELETE', `/listings/${id}/advertising`, me.as);
      assert.equal(ended.statusCode, 202);
      await runDueJobs(t, ADVERTISING_QUEUE);
      assert.equal((await advertising(me, id)).state, 'archived');
      assert.equal(adsHeld(t, profile).campaigns[0]!.state, 'ARCHIVED');
      assert.equal((await call(t, 'PATCH', `/listings/${id}/advertising`, { ...me.as, body: { state: 'enabled' } })).statusCode, 409);
      assert.equal((await call(t, 'DELETE', `/listings/${id}/advertising`, me.as)).statusCode, 409);

      const restarted = await call(t, 'POST', `/listings/${id}/advertising`, { ...me.as, body: AUTO });
      assert.equal(restarted.statusCode, 202, restarted.body);
      await runDueJobs(t, ADVERTISING_QUEUE);
      held = adsHeld(t, profile);
      assert.deepEqual(
        held.campaigns.map((c) => c.state),
        ['ARCHIVED', 'ENABLED'],
      );
      assert.equal((await advertising(me, id)).campaign_id, held.campaigns[1]!.campaignId);
    });

    test('a manual campaign gets its keywords with their bids', async () => {
      const keywords = [
        { text: 'stoneware mug', match_type: 'exact', bid: '0.80' },
        { text: 'handmade coffee mug', match_type: 'phrase', bid: '0.60' },
      ];
      const { me, id, profile } = await advertised('908', 'AD8', { ...AUTO, targeting: { keywords } });
      assert.equal((await advertising(me, id)).state, 'enabled');
      const held = adsHeld(t, profile);
      assert.equal(held.campaigns[0]!.targetingType, 'MANUAL');
      assert.deepEqual(held.keywords.map((k) => [k.keywordText, k.matchType, k.bid]).sort(), [
        ['handmade coffee mug', 'PHRASE', 0.6],
        ['stoneware mug', 'EXACT', 0.8],
      ]);
    });

    test('a create whose answer is lost (Amazon made it, then answered 500) is found by name when the job runs again: nothing twice', async () => {
      const { me, id, profile } = await activeListing('909', 'AD9');
      const ghost = await t.app.inject({
        method: 'POST',
        url: '/sandbox/faults',
        payload: { track: 'amazon-ads', endpoint: 'advertising', fault: 'ghost' },
      });
      assert.equal(ghost.statusCode, 204, ghost.body);
      assert.equal((await call(t, 'POST', `/listings/${id}/advertising`, { ...me.as, body: AUTO })).statusCode, 202);
      assert.match(Object.keys(await runDueJobs(t, ADVERTISING_QUEUE)).join(), /retry at/);
      assert.equal(adsHeld(t, profile).campaigns.length, 1, 'Amazon made the campaign although it answered 500');
      assert.equal((await advertising(me, id)).campaign_id, null);
      t.deps.sandbox.faults.clear();
      t.clock.advance(3_000);
      await runDueJobs(t, ADVERTISING_QUEUE);
      const record = await advertising(me, id);
      assert.equal(record.state, 'enabled');
      const held = adsHeld(t, profile);
      assert.equal(held.campaigns.length, 1);
      assert.equal(record.campaign_id, held.campaigns[0]!.campaignId);
      assert.equal(held.adGroups.length, 1);
      assert.equal(held.productAds.length, 2);
    });

    test("Amazon's throttling waits as Retry-After says; a refused grant pauses nothing, asks for reconnection and resumes after it", async () => {
      const { me, id, profile } = await activeListing('910', 'AD10');
      const faulted = await t.app.inject({
        method: 'POST',
        url: '/sandbox/faults',
        payload: { track: 'amazon-ads', endpoint: 'advertising', fault: 'throttled', retry_after: 40 },
      });
      assert.equal(faulted.statusCode, 204, faulted.body);
      assert.equal((await call(t, 'POST', `/listings/${id}/advertising`, { ...me.as, body: AUTO })).statusCode, 202);
      const result = await runDueJobs(t, ADVERTISING_QUEUE);
      assert.match(Object.keys(result).join(), /retry at/);
      t.deps.sandbox.faults.clear();
      t.clock.advance(39_000);
      assert.deepEqual(await runDueJobs(t, ADVERTISING_QUEUE), {});
      t.clock.advance(2_000);
      await runDueJobs(t, ADVERTISING_QUEUE);
      assert.equal((await advertising(me, id)).state, 'enabled');
      assert.equal(adsHeld(t, profile).campaigns.length, 1);

      const revoked = await t.app.inject({ method: 'POST', url: '/sandbox/revoke', payload: { track: 'amazon-ads', account: 910 } });
      assert.equal(revoked.statusCode, 204);
      assert.equal((await call(t, 'PATCH', `/listings/${id}/advertising`, { ...me.as, body: { daily_budget: '12.00' } })).statusCode, 202);
      await runDueJobs(t, ADVERTISING_QUEUE);
      const site = (await call(t, 'GET', `/sites/${me.site}`, me.as)).json().data;
      assert.equal(site.status, 'connected', 'the seller connection stays');
      assert.equal(site.advertising.connected, false);
      const held = await advertising(me, id);
      assert.equal(held.state, 'enabled');
      assert.equal(held.issues[0].code, 'advertising_reauthorization_required');
      assert.equal(adsHeld(t, profile).campaigns[0]!.state, 'ENABLED', 'nothing was paused on Amazon');
      assert.equal(adsHeld(t, profile).campaigns[0]!.budget.budget, 10);

      locationOf(await connectThroughSandbox(t, me, { platform_id: 5, site_id: me.site }, 'allow', '910'));
      await runDueJobs(t, ADVERTISING_QUEUE);
      assert.equal(adsHeld(t, profile).campaigns[0]!.budget.budget, 12);
      const back = await advertising(me, id);
      assert.deepEqual([back.sync_status, back.issues], ['synced', []]);
    });

    test('figures per day come from the asynchronous report, the same each time, and the daily sweep adds the new days', async () => {
      const { me, id } = await advertised('911', 'AD11');
      // Days pass below: a token that outlives the 12-hour session reads the figures.
      const as = { token: (await createPat(t, me.session, { expires_in_days: null })).token, workspace: me.workspace.id };
      const metrics = async (query = '') => {
        const response = await call(t, 'GET', `/listings/${id}/advertising/metrics${query}`, as);
        assert.equal(response.statusCode, 200, response.body);
        return response.json().data as {
          date: string;
          impressions: number;
          clicks: number;
          spend: string;
          orders: number;
          sales: string;
        }[];
      };
      assert.deepEqual(await metrics(), []);
      // The campaign's start asked for its first report: Amazon makes it while the job looks again later.
      const report = async () => {
        const results: Record<string, number> = {};
        for (let look = 0; look < 4; look++) {
          Object.assign(results, await runDueJobs(t, REPORT_QUEUE));
          t.clock.advance(REPORT_POLL_MS);
        }
        return Object.keys(results).join(' | ');
      };
      assert.match(await report(), /requested .*days stored/s);
      const today = t.clock.now().toISOString().slice(0, 10);
      const first = await metrics();
      assert.equal(first.length, 1);
      const day = first[0]!;
      assert.equal(day.date, today);
      assert.ok(day.clicks <= day.impressions && day.orders <= day.clicks, JSON.stringify(day));
      assert.match(day.spend, /^[0-9]+\.[0-9]{2}$/);
      assert.ok(Number(day.spend) <= 10, 'never above the daily budget');

      t.clock.advance(3 * DAY_MS);
      await t.deps.advertisingMetrics.sweep();
      assert.match(await report(), /days stored/);
      const later = await metrics();
      assert.equal(later.length, 4);
      assert.deepEqual(later[0], day, 'a day reported again has the same figures');
      const from = later[1]!.date;
      assert.deepEqual(await metrics(`?from=${from}&to=${from}`), [later[1]]);
      const bad = await call(t, 'GET', `/listings/${id}/advertising/metrics?from=2026-02-30x`, as);
      assert.equal(bad.statusCode, 422);
      const backwards = await call(t, 'GET', `/listings/${id}/advertising/metrics?from=${later[3]!.date}&to=${from}`, as);
      assert.equal(backwards.statusCode, 422);
    });
  });
}
