/**
 * Platform fidelity through the whole service (issue 11): who is at fault when a platform refuses, Amazon's regions,
 * every TikTok shop of an authorization, Etsy's scopes and shopless accounts, and a redirect that names another
 * connection's Amazon seller.
 */
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import {
  type Actor,
  authorizationUrl,
  connectAmazonSellerSite,
  connectThroughSandbox,
  consent,
  locationOf,
  openCallback,
} from '../helpers/connect.js';
import { databaseKinds, selectRows } from '../helpers/database.js';
import { refreshDue } from '../helpers/jobs.js';
import { call, createTestApp, registerUser, type TestApp } from '../helpers/test-app.js';

const MINUTE = 60_000;
const CUSTOM = 'https://seller.example/back';

for (const kind of databaseKinds()) {
  describe(`platform fidelity [${kind}]`, () => {
    let t: TestApp;
    let actor: Actor;
    beforeEach(async () => {
      // Hour-long tokens on every simulator, so a renewal is due within a session's lifetime.
      t = await createTestApp(kind, { listen: true, renewals: 'by-hand', env: { SANDBOX_ACCESS_TOKEN_TTL_SECONDS: '3600' } });
      actor = await registerUser(t);
    });
    afterEach(() => t.close());

    const get = async (path: string) => call(t, 'GET', path, { token: actor.session, workspace: actor.workspace.id });
    const site = async (siteId: number) => (await get(`/sites/${siteId}`)).json().data;
    const siteIdOf = (location: string) => Number(/\/site\/(\d+)\/listings$/.exec(location)![1]);
    const health = async () => (await t.app.inject({ method: 'GET', url: '/api/v1/health' })).json().data;
    const credentials = async (siteId: number, grant = 'seller') =>
      (
        await selectRows<{ ciphertext: string; next_refresh_at: string; refresh_failures: number }>(
          t.database,
          sql`select ciphertext, next_refresh_at, refresh_failures from site_credentials where site_id = ${siteId} and grant_kind = ${grant}`,
        )
      )[0];
    const calls = async () => (await t.app.inject({ method: 'GET', url: '/sandbox/calls' })).json() as Record<string, number>;

    describe('who is at fault', () => {
      test('a refused app configuration keeps every site connected, shows on /health, and recovers once fixed, with no seller reconnecting', async () => {
        const etsy = siteIdOf(locationOf(await connectThroughSandbox(t, actor, { platform_id: 1 }, 'allow', '11')));
        const amazon = await connectAmazonSellerSite(t, actor, '12');
        assert.deepEqual((await health()).platforms, []);
        // Etsy refuses the key (no shared secret); LWA refuses the client secret, as after a missed 180-day rotation.
        t.deps.sandbox.faults.set('etsy', 'token', 'misconfigured');
        t.deps.sandbox.faults.set('amazon-seller', 'token', 'misconfigured');
        t.clock.advance(55 * MINUTE);
        assert.deepEqual(await refreshDue(t), { refreshed: 0, retry: 2, reauthorization_required: 0 });
        for (const id of [etsy, amazon]) assert.equal((await site(id)).status, 'connected');
        const degraded = await health();
        assert.equal(degraded.status, 'degraded');
        assert.equal(degraded.database, 'ok');
        assert.deepEqual(degraded.platforms.map((p: { platform: string }) => p.platform).sort(), ['amazon-seller', 'etsy']);
        const etsyProblem = degraded.platforms.find((p: { platform: string }) => p.platform === 'etsy');
        assert.equal(etsyProblem.status, 'misconfigured');
        assert.match(etsyProblem.message, /HTTP 403, Shared secret is required in x-api-key header\./);
        // The operator fixes the configuration: the renewals already queued succeed and /health is ok again.
        t.deps.sandbox.faults.clear();
        t.clock.advance(2 * MINUTE);
        assert.deepEqual(await refreshDue(t), { refreshed: 2, retry: 0, reauthorization_required: 0 });
        assert.equal((await health()).status, 'ok');
        for (const id of [etsy, amazon]) assert.equal((await site(id)).status, 'connected');
      });

      test('a refused app configuration at the callback tells the user it is not theirs, and stores nothing', async () => {
        t.deps.sandbox.faults.set('tiktok-shop', 'token', 'misconfigured');
        const location = locationOf(await connectThroughSandbox(t, actor, { platform_id: 4, custom_field_value: CUSTOM }));
        assert.equal(
          new URL(location).searchParams.get('authorization_error'),
          "This platform refused Storelink's app configuration. The operator has been told; please try again later.",
        );
        assert.equal((await get('/sites')).json().data.length, 0);
        assert.equal((await health()).platforms[0].platform, 'tiktok-shop');
      });

      test("passing failures are retried, never the seller's: TikTok's 36009003 and LWA's temporarily_unavailable", async () => {
        const tiktok = siteIdOf(locationOf(await connectThroughSandbox(t, actor, { platform_id: 4 })));
        const amazon = await connectAmazonSellerSite(t, actor, '3');
        t.deps.sandbox.faults.set('tiktok-shop', 'token', 'passing');
        t.deps.sandbox.faults.set('amazon-seller', 'token', 'passing');
        t.clock.advance(55 * MINUTE);
        assert.deepEqual(await refreshDue(t), { refreshed: 0, retry: 2, reauthorization_required: 0 });
        for (const id of [tiktok, amazon]) {
          assert.equal((await site(id)).status, 'connected');
          assert.equal((await credentials(id))!.refresh_failures, 1);
        }
        assert.equal((await health()).status, 'ok', 'a passing failure is not a configuration problem');
      });

      test("a throttled renewal waits the platform's Retry-After, when it is longer than the back-off", async () => {
        const siteId = siteIdOf(locationOf(await connectThroughSandbox(t, actor, { platform_id: 1 })));
        t.deps.sandbox.faults.set('etsy', 'token', 'throttled', { retryAfterSeconds: 900 });
        t.clock.advance(51 * MINUTE);
        const before = t.clock.now().getTime();
        assert.equal((await refreshDue(t)).retry, 1);
        const next = new Date((await credentials(siteId))!.next_refresh_at).getTime();
        assert.ok(next >= before + 900_000, `retried ${(next - before) / 1000} s later, not after Retry-After's 900 s`);
      });

      test("a refused grant is the seller's: TikTok's 36004005 turns the site reauthorization_required", async () => {
        const siteId = siteIdOf(locationOf(await connectThroughSandbox(t, actor, { platform_id: 4 })));
        t.deps.sandbox.faults.set('tiktok-shop', 'token', 'refused');
        t.clock.advance(55 * MINUTE);
        assert.equal((await refreshDue(t)).reauthorization_required, 1);
        assert.equal((await site(siteId)).status, 'reauthorization_required');
      });
    });

    describe("Amazon's regions", () => {
      test('an EU seller consents at the EU Seller Central, and its site says EU; NA stays the default', async () => {
        const url = await authorizationUrl(t, actor, { platform_id: 5, region: 'EU' });
        assert.equal(new URL(url).pathname, '/sandbox/amazon-seller/eu/apps/authorize/consent');
        const eu = siteIdOf(locationOf(await openCallback(await consent(url, 'allow', '21'))));
        const na = await connectAmazonSellerSite(t, actor, '21');
        assert.notEqual(eu, na, 'one seller in two regions is two sites');
        assert.equal((await site(eu)).region, 'EU');
        assert.equal((await site(eu)).name, 'Sandbox Amazon Store 21');
        assert.equal((await site(na)).region, 'NA');
        const [row] = await selectRows<{ platform_data: { marketplace_ids: string[] } }>(
          t.database,
          sql`select platform_data from sites where id = ${eu}`,
        );
        assert.deepEqual(row!.platform_data.marketplace_ids, ['A1F83G8C2ARO7P', 'A1PA6795UKMFR9']);
      });

      test("advertising is granted, read and renewed in its region: the EU's profiles, the EU's token URL", async () => {
        const url = await authorizationUrl(t, actor, { platform_id: 5, region: 'EU' });
        const sellerSite = siteIdOf(locationOf(await openCallback(await consent(url, 'allow', '31'))));
        // No region given: advertising defaults to the seller site's own.
        const adsUrl = await authorizationUrl(t, actor, { platform_id: 5, site_id: sellerSite });
        assert.equal(new URL(adsUrl).pathname, '/sandbox/amazon-ads/eu/authorize');
        locationOf(await openCallback(await consent(adsUrl, 'allow', '31')));
        const { advertising } = await site(sellerSite);
        assert.equal(advertising.connected, true);
        assert.equal(advertising.region, 'EU');
        assert.deepEqual(
          advertising.profiles.map((p: { country_code: string }) => p.country_code),
          ['UK', 'DE'],
        );
        // The EU token URL refuses a grant of another region, so a renewal that works proves it went to the EU's.
        t.clock.advance(55 * MINUTE);
        assert.equal((await refreshDue(t)).refreshed, 2);
        assert.equal((await site(sellerSite)).advertising.connected, true);
      });

      test('an account with no advertising profile in the region is refused, not "advertising connected"', async () => {
        const sellerSite = await connectAmazonSellerSite(t, actor, '41');
        const adsUrl = await authorizationUrl(t, actor, { platform_id: 5, site_id: sellerSite });
        const response = await openCallback(await consent(adsUrl, 'allow', '41', { profiles: 'none' }));
        assert.equal(response.status, 400, 'the retry page, as for any refusal');
        assert.match(await response.text(), /no advertising profiles in the NA region/);
        assert.deepEqual((await site(sellerSite)).advertising, { connected: false, region: null, profiles: [] });
      });

      test('region is checked for platform 5 and ignored for the others', async () => {
        const refused = await call(t, 'POST', '/authenticate-site', {
          token: actor.session,
          workspace: actor.workspace.id,
          body: { platform_id: 5, region: 'MARS' },
        });
        assert.equal(refused.statusCode, 422);
        assert.deepEqual(refused.json().errors, { region: ['The region must be one of NA, EU, FE.'] });
        await authorizationUrl(t, actor, { platform_id: 1, region: 'MARS' });
      });
    });

    test("a callback naming a connected Amazon seller with another account's grant is refused and changes nothing", async () => {
      const siteA = await connectAmazonSellerSite(t, actor, '51');
      const before = await credentials(siteA);
      // The user authorizes account 52, then edits the redirect to name account 51's selling partner id.
      const callbackUrl = new URL(await consent(await authorizationUrl(t, actor, { platform_id: 5, redirect_url: CUSTOM }), 'allow', '52'));
      assert.equal(callbackUrl.searchParams.get('selling_partner_id'), 'ASANDBOX000052');
      callbackUrl.searchParams.set('selling_partner_id', 'ASANDBOX000051');
      const target = new URL(locationOf(await openCallback(callbackUrl.toString())));
      assert.equal(target.searchParams.get('code'), '400');
      assert.match(target.searchParams.get('message')!, /different Amazon store than the site "Sandbox Amazon Store 51"/);
      assert.equal((await credentials(siteA))!.ciphertext, before!.ciphertext, "site A keeps its own account's tokens");
      assert.equal((await get('/sites')).json().data.length, 1);
    });

    test("a callback whose selling_partner_id is not of Amazon's form (A, then 8 to 19 upper-case letters and digits) is refused (400), and no site is stored", async () => {
      const before = (await calls())['amazon-seller:token'] ?? 0;
      const lowercase = 'asandbox000053';
      for (const sellerId of ['A<img src=x onerror=alert(1)>', 'ASANDBOX000053 ', 'A-1', 'A'.repeat(65), 'Ａ1', 'a1b2', '1', lowercase]) {
        const callbackUrl = new URL(
          await consent(await authorizationUrl(t, actor, { platform_id: 5, redirect_url: CUSTOM }), 'allow', '53'),
        );
        callbackUrl.searchParams.set('selling_partner_id', sellerId);
        const target = new URL(locationOf(await openCallback(callbackUrl.toString())));
        assert.deepEqual(
          [
            target.origin + target.pathname,
            target.searchParams.get('platform'),
            target.searchParams.get('code'),
            target.searchParams.get('message'),
          ],
          [CUSTOM, 'marketplace', '400', 'Amazon sent a selling partner id that is not of the form Amazon gives them'],
          sellerId,
        );
      }
      assert.deepEqual((await get('/sites')).json().data, []);
      assert.deepEqual(await selectRows(t.database, sql`select id from sites where workspace_id = ${actor.workspace.id}`), []);
      assert.equal((await calls())['amazon-seller:token'] ?? 0, before, 'no code was exchanged');
      // The id as Amazon sends it connects.
      const connected = await site(await connectAmazonSellerSite(t, actor, '53'));
      assert.equal(connected.external_id, 'ASANDBOX000053');
      assert.equal((await calls())['amazon-seller:token'], before + 1);
    });

    describe('TikTok Shop shops', () => {
      test('an authorization covering three shops connects each, keyed by shop id, and the redirect names the first', async () => {
        const location = locationOf(await connectThroughSandbox(t, actor, { platform_id: 4 }, 'allow', '61', { shops: '3' }));
        const first = siteIdOf(location);
        const sites = (await get('/sites')).json().data;
        assert.equal(sites.length, 3);
        assert.equal(sites[0].id, first);
        assert.equal(new Set(sites.map((s: { external_id: string }) => s.external_id)).size, 3);
        for (const s of sites) assert.match(s.external_id, /^\d+$/, 'the shop id, not its cipher');
        const ciphers = await selectRows<{ cipher: string }>(
          t.database,
          sql`select platform_data->>'cipher' as cipher from sites order by id`,
        );
        for (const { cipher } of ciphers) assert.ok(cipher.length > 0);
        // Connecting again keeps the three sites and their ids.
        await connectThroughSandbox(t, actor, { platform_id: 4 }, 'allow', '61', { shops: '3' });
        assert.deepEqual(
          (await get('/sites')).json().data.map((s: { id: number }) => s.id),
          sites.map((s: { id: number }) => s.id),
        );
      });

      test('a site stored under its cipher before is found again and rekeyed by its shop id, keeping its id', async () => {
        const siteId = siteIdOf(locationOf(await connectThroughSandbox(t, actor, { platform_id: 4 }, 'allow', '62')));
        const { external_id: shopId } = await site(siteId);
        await t.database.db.execute(sql`update sites set external_id = platform_data->>'cipher' where id = ${siteId}`);
        assert.notEqual((await site(siteId)).external_id, shopId);
        assert.equal(siteIdOf(locationOf(await connectThroughSandbox(t, actor, { platform_id: 4 }, 'allow', '62'))), siteId);
        assert.equal((await site(siteId)).external_id, shopId);
      });
    });

    describe('Etsy', () => {
      test('every connection asks for shops_r and what listings need; a site connected with fewer says which are missing until reconnected', async () => {
        const url = new URL(await authorizationUrl(t, actor, { platform_id: 1 }));
        assert.deepEqual(url.searchParams.get('scope')!.split(' '), [
          'shops_r',
          'shops_w',
          'listings_r',
          'listings_w',
          'listings_d',
          'transactions_r',
        ]);
        const siteId = siteIdOf(locationOf(await openCallback(await consent(url.toString(), 'allow', '71'))));
        assert.deepEqual((await site(siteId)).missing_scopes, []);
        // As a site connected before listings: the scopes of the time.
        await t.database.db.execute(
          sql`update sites set granted_scopes = '["shops_r", "listings_r", "listings_w", "transactions_r"]'::jsonb where id = ${siteId}`,
        );
        assert.deepEqual((await site(siteId)).missing_scopes, ['shops_w', 'listings_d']);
        assert.equal(siteIdOf(locationOf(await connectThroughSandbox(t, actor, { platform_id: 1 }, 'allow', '71'))), siteId);
        assert.deepEqual((await site(siteId)).missing_scopes, []);
      });

      test('an Etsy account without a shop gets a clear refusal, not a 502, and no site', async () => {
        const location = locationOf(
          await connectThroughSandbox(t, actor, { platform_id: 1, redirect_url: CUSTOM }, 'allow', '72', { shop: 'none' }),
        );
        assert.equal(
          new URL(location).searchParams.get('authorization_error'),
          'This Etsy account has no shop. Open a shop on Etsy, then connect again.',
        );
        assert.equal((await get('/sites')).json().data.length, 0);
        assert.equal((await calls())['etsy:identity'], 1);
      });
    });
  });
}
