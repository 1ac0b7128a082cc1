/**
 * The drift test (issue 11, item 7). Every platform is configured by its real environment variables: the client
 * credentials the simulators accept, and every host and URL override pointed at the simulators this app serves. So
 * the production branch of every adapter (src/platforms/registry.ts's `platforms.X`, not its `simulated(...)`) runs
 * end to end, and what is checked is what a user or the simulated platform sees: the authorization URL the browser is
 * sent to, where the callback lands, `GET /sites/{id}`, `GET /sandbox/calls`, and renewals through the job queue.
 * Access tokens live TOKEN_TTL_SECONDS (SANDBOX_ACCESS_TOKEN_TTL_SECONDS), shorter than TikTok Shop's week, so that
 * each platform's expiry, whether a duration or an absolute time, shows in `next_refresh_at`.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { AmazonRegion } from '../../src/domain/index.js';
import { DEFAULT_ETSY_SCOPES } from '../../src/platforms/etsy/requests.js';
import { sandboxProfiles } from '../../src/sandbox/amazon-ads/simulator.js';
import { sandboxStoreName } from '../../src/sandbox/amazon-seller/simulator.js';
import { SANDBOX_QUEUE_ARN, sandboxQueueUrl } from '../../src/sandbox/amazon-seller/sqs.js';
import { SANDBOX_CLIENTS } from '../../src/sandbox/context.js';
import { sandboxSellerId } from '../../src/sandbox/lwa/simulator.js';
import { sandboxShops } from '../../src/sandbox/tiktok-shop/shops.js';
import { type Actor, authorizationUrl, locationOf, openCallback } from '../helpers/connect.js';
import { databaseKinds } from '../helpers/database.js';
import { refreshDue } from '../helpers/jobs.js';
import { API, call, createTestApp, registerUser, type TestApp } from '../helpers/test-app.js';

const CUSTOM = 'https://seller.example/connected?from=drift';
const TOKEN_TTL_SECONDS = 7200;
/** REFRESH_MARGIN_SECONDS' default: a token is renewed 10 minutes before it expires. */
const MARGIN_MS = 600_000;
const RENEW_AFTER_MS = TOKEN_TTL_SECONDS * 1000 - MARGIN_MS;
const REGION_SUFFIX: Record<AmazonRegion, string> = { NA: '', EU: '/eu', FE: '/fe' };

/** Each platform's real variables, its hosts at the simulators (mounted by src/sandbox/plugin.ts) of the app at `appUrl`. */
function realEnvironment(appUrl: string): Record<string, string> {
  const sandbox = `${appUrl}/sandbox`;
  const env: Record<string, string> = {
    SANDBOX_ACCESS_TOKEN_TTL_SECONDS: String(TOKEN_TTL_SECONDS),
    ETSY_CLIENT_ID: SANDBOX_CLIENTS.etsy.clientId,
    ETSY_CLIENT_SECRET: SANDBOX_CLIENTS.etsy.sharedSecret,
    ETSY_CONNECT_URL: `${sandbox}/etsy/authorize`,
    ETSY_API_URL: `${sandbox}/etsy`,
    ETSY_WEBHOOK_SECRET: SANDBOX_CLIENTS.etsy.webhookSecret,
    TIKTOK_SHOP_APP_KEY: SANDBOX_CLIENTS.tiktokShop.appKey,
    TIKTOK_SHOP_APP_SECRET: SANDBOX_CLIENTS.tiktokShop.appSecret,
    TIKTOK_SHOP_SERVICE_ID: SANDBOX_CLIENTS.tiktokShop.serviceId,
    TIKTOK_SHOP_AUTHORIZE_URL: `${sandbox}/tiktok-shop/authorize`,
    TIKTOK_SHOP_AUTH_URL: `${sandbox}/tiktok-shop`,
    TIKTOK_SHOP_API_URL: `${sandbox}/tiktok-shop`,
    AMAZON_SP_APP_ID: SANDBOX_CLIENTS.amazonSeller.appId,
    AMAZON_LWA_CLIENT_ID: SANDBOX_CLIENTS.amazonSeller.lwaClientId,
    AMAZON_LWA_CLIENT_SECRET: SANDBOX_CLIENTS.amazonSeller.lwaClientSecret,
    AMAZON_LWA_TOKEN_URL: `${sandbox}/amazon-seller/auth/o2/token`,
    AMAZON_ORDER_QUEUE_ARN: SANDBOX_QUEUE_ARN,
    AMAZON_ORDER_QUEUE_URL: sandboxQueueUrl(sandbox),
    AMAZON_ORDER_QUEUE_ACCESS_KEY_ID: SANDBOX_CLIENTS.amazonSqs.accessKeyId,
    AMAZON_ORDER_QUEUE_SECRET_ACCESS_KEY: SANDBOX_CLIENTS.amazonSqs.secretAccessKey,
    AMAZON_ADS_CLIENT_ID: SANDBOX_CLIENTS.amazonAds.clientId,
    AMAZON_ADS_CLIENT_SECRET: SANDBOX_CLIENTS.amazonAds.clientSecret,
  };
  // The plain name is NA's, `_EU` and `_FE` the other regions' (src/config.ts).
  for (const [region, suffix] of Object.entries(REGION_SUFFIX)) {
    const name = (variable: string) => (region === 'NA' ? variable : `${variable}_${region}`);
    env[name('AMAZON_SELLER_CENTRAL_URL')] = `${sandbox}/amazon-seller${suffix}`;
    env[name('AMAZON_SP_API_URL')] = `${sandbox}/amazon-seller${suffix}`;
    env[name('AMAZON_ADS_AUTHORIZE_URL')] = `${sandbox}/amazon-ads${suffix}/authorize`;
    env[name('AMAZON_ADS_TOKEN_URL')] = `${sandbox}/amazon-ads${suffix}/auth/o2/token`;
    env[name('AMAZON_ADS_API_URL')] = `${sandbox}/amazon-ads${suffix}`;
  }
  return env;
}

const unescapeHtml = (text: string) => text.replace(/&#(\d+);/g, (_, code: string) => String.fromCharCode(Number(code)));

/**
 * What a browser does on a simulator's consent page: submit its form, hidden fields and all, with Allow, the sandbox
 * account and any further choice the page offers; returns where the simulated platform sends the browser back.
 */
async function allowOnConsentPage(url: string, account: string, choices: Record<string, string> = {}): Promise<string> {
  const page = await fetch(url);
  const html = await page.text();
  assert.equal(page.status, 200, `consent page: ${html}`);
  const action = /<form method="post" action="([^"]*)">/.exec(html);
  assert.ok(action, `consent page without a form: ${html}`);
  const form = new URLSearchParams();
  for (const [, name, value] of html.matchAll(/<input type="hidden" name="([^"]*)" value="([^"]*)">/g))
    form.append(unescapeHtml(name!), unescapeHtml(value!));
  for (const [name, value] of Object.entries({ account, decision: 'allow', ...choices })) form.append(name, value);
  const posted = await fetch(new URL(unescapeHtml(action[1]!), url), { method: 'POST', body: form, redirect: 'manual' });
  assert.equal(posted.status, 302, `consent POST answered ${posted.status}: ${await posted.text()}`);
  return posted.headers.get('location')!;
}

/** The query of an authorization URL, with the values that change every time (`state`, the PKCE challenge) checked and left out. */
function fixedParams(url: URL): Record<string, string> {
  const params = Object.fromEntries(url.searchParams);
  assert.match(params.state ?? '', /^\S{20,}$/, 'the authorization URL carries a state');
  delete params.state;
  if (params.code_challenge !== undefined) {
    assert.match(params.code_challenge, /^[A-Za-z0-9_-]{43}$/, 'an S256 challenge is 43 base64url characters');
    delete params.code_challenge;
  }
  return params;
}

const withoutQuery = (url: URL) => `${url.origin}${url.pathname}`;
const siteIdIn = (location: string, pattern: RegExp) => Number(pattern.exec(location)?.[1] ?? Number.NaN);

/** The profiles the simulated Amazon Ads answers for an account in a region, as GET /sites shows them. */
const profilesOf = (account: number, region: AmazonRegion) =>
  sandboxProfiles(account, region).map((p) => ({
    id: String(p.profileId),
    country_code: p.countryCode,
    name: p.accountInfo.name,
    marketplace_id: p.accountInfo.marketplaceStringId,
    currency: p.currencyCode,
  }));

for (const kind of databaseKinds()) {
  describe(`drift: the production adapters, configured by the real environment variables, against the simulators [${kind}]`, () => {
    let t: TestApp;
    let actor: Actor;
    let appUrl: string;
    let env: Record<string, string>;
    /** When every connection below was made: the test's clock stands still until the renewals. */
    let connectedAt: number;
    const sites = { etsy: 0, tiktok: 0, tiktokShops: [] as number[], sellerNa: 0, sellerEu: 0 };

    before(async () => {
      t = await createTestApp(kind, {
        listen: true,
        renewals: 'by-hand',
        env: (url) => {
          env = realEnvironment(url);
          return env;
        },
      });
      appUrl = t.deps.config.appUrl;
      actor = await registerUser(t);
      connectedAt = t.clock.now().getTime();
    });
    after(() => t.close());

    const callbackOf = (track: string) => `${appUrl}${API}/oauth/callback/${track}`;
    const site = async (siteId: number) => {
      const response = await call(t, 'GET', `/sites/${siteId}`, { token: actor.session, workspace: actor.workspace.id });
      assert.equal(response.statusCode, 200, response.body);
      return response.json().data;
    };
    const allSites = async () =>
      (await call(t, 'GET', '/sites?per_page=100', { token: actor.session, workspace: actor.workspace.id })).json().data as Array<{
        id: number;
        platform: string;
        external_id: string;
      }>;
    const calls = async (): Promise<Record<string, number>> => (await fetch(`${appUrl}/sandbox/calls`)).json() as never;
    /** The simulators' calls made by `action`, per `track:endpoint`. */
    async function callsDuring<T>(action: () => Promise<T>): Promise<{ result: T; calls: Record<string, number> }> {
      const before = await calls();
      const result = await action();
      const after = await calls();
      const made = Object.entries(after)
        .map(([key, n]): [string, number] => [key, n - (before[key] ?? 0)])
        .filter(([, n]) => n !== 0);
      return { result, calls: Object.fromEntries(made) };
    }
    /** authenticate-site, the consent page, the callback: the authorization URL, the callback URL and where the user lands. */
    const connect = (body: Record<string, unknown>, account: string, choices: Record<string, string> = {}) =>
      callsDuring(async () => {
        const url = await authorizationUrl(t, actor, body);
        const callback = await allowOnConsentPage(url, account, choices);
        return { url: new URL(url), callback: new URL(callback), location: locationOf(await openCallback(callback)) };
      });
    /** What GET /sites/{id} says of a seller connection made at connectedAt and not renewed since. */
    const freshlyConnected = {
      status: 'connected',
      status_reason: null,
      last_refreshed_at: null,
      next_refresh_at: () => new Date(connectedAt + RENEW_AFTER_MS).toISOString(),
    };
    const pick = (object: Record<string, unknown>, keys: readonly string[]) => Object.fromEntries(keys.map((key) => [key, object[key]]));

    test('every platform runs on its configured production adapter, every host at its simulator', () => {
      const { platforms } = t.deps.config;
      assert.ok(platforms.etsy && platforms.tiktokShop && platforms.amazonSeller && platforms.amazonAds, 'every platform is configured');
      const sandbox = `${appUrl}/sandbox`;
      assert.deepEqual(platforms.etsy, {
        clientId: SANDBOX_CLIENTS.etsy.clientId,
        sharedSecret: SANDBOX_CLIENTS.etsy.sharedSecret,
        scopes: DEFAULT_ETSY_SCOPES,
        connectUrl: `${sandbox}/etsy/authorize`,
        apiUrl: `${sandbox}/etsy`,
        webhookSecret: SANDBOX_CLIENTS.etsy.webhookSecret,
      });
      assert.deepEqual(platforms.tiktokShop, {
        ...SANDBOX_CLIENTS.tiktokShop,
        authorizeUrl: `${sandbox}/tiktok-shop/authorize`,
        authUrl: `${sandbox}/tiktok-shop`,
        apiUrl: `${sandbox}/tiktok-shop`,
      });
      assert.deepEqual(platforms.amazonSeller, {
        ...SANDBOX_CLIENTS.amazonSeller,
        lwaTokenUrl: `${sandbox}/amazon-seller/auth/o2/token`,
        draft: false,
        regions: {
          NA: { sellerCentralUrl: `${sandbox}/amazon-seller`, apiUrl: `${sandbox}/amazon-seller` },
          EU: { sellerCentralUrl: `${sandbox}/amazon-seller/eu`, apiUrl: `${sandbox}/amazon-seller/eu` },
          FE: { sellerCentralUrl: `${sandbox}/amazon-seller/fe`, apiUrl: `${sandbox}/amazon-seller/fe` },
        },
        orderQueue: {
          arn: SANDBOX_QUEUE_ARN,
          url: sandboxQueueUrl(sandbox),
          region: SANDBOX_CLIENTS.amazonSqs.region,
          accessKeyId: SANDBOX_CLIENTS.amazonSqs.accessKeyId,
          secretAccessKey: SANDBOX_CLIENTS.amazonSqs.secretAccessKey,
        },
      });
      const adsRegion = (suffix: string) => ({
        authorizeUrl: `${sandbox}/amazon-ads${suffix}/authorize`,
        tokenUrl: `${sandbox}/amazon-ads${suffix}/auth/o2/token`,
        apiUrl: `${sandbox}/amazon-ads${suffix}`,
      });
      assert.deepEqual(platforms.amazonAds, {
        ...SANDBOX_CLIENTS.amazonAds,
        regions: { NA: adsRegion(''), EU: adsRegion('/eu'), FE: adsRegion('/fe') },
      });
      assert.equal(t.deps.config.sandboxAccessTokenTtlSeconds, TOKEN_TTL_SECONDS);
    });

    test('Etsy: the connect page with PKCE, the callback lands on the new site, the shop is stored under its id', async () => {
      const { result, calls } = await connect({ platform_id: 1 }, '11');
      // Recorded first, so that the tests after this one check the renewals even when an assertion here fails.
      sites.etsy = siteIdIn(result.location, /\/site\/(\d+)\/listings$/);
      assert.equal(withoutQuery(result.url), env.ETSY_CONNECT_URL);
      assert.deepEqual(fixedParams(result.url), {
        response_type: 'code',
        client_id: SANDBOX_CLIENTS.etsy.clientId,
        redirect_uri: callbackOf('etsy'),
        scope: DEFAULT_ETSY_SCOPES.join(' '),
        code_challenge_method: 'S256',
      });
      assert.equal(withoutQuery(result.callback), callbackOf('etsy'));
      assert.equal(result.location, `${appUrl}/site/${sites.etsy}/listings`);
      const shown = await site(sites.etsy);
      assert.deepEqual(pick(shown, ['platform_id', 'platform', 'name', 'external_id', 'region', 'missing_scopes', 'advertising']), {
        platform_id: 1,
        platform: 'etsy',
        name: 'Sandbox Etsy Shop 11',
        // The simulator's shop id for sandbox account 11 (80_000_000 + account), from users/me.
        external_id: '80000011',
        region: null,
        missing_scopes: [],
        advertising: null,
      });
      assert.deepEqual(pick(shown, ['status', 'status_reason', 'last_refreshed_at', 'next_refresh_at']), {
        ...freshlyConnected,
        next_refresh_at: freshlyConnected.next_refresh_at(),
      });
      assert.deepEqual(calls, { 'etsy:authorize': 1, 'etsy:consent': 1, 'etsy:token': 1, 'etsy:identity': 1, 'etsy:shop': 1 });
    });

    test("TikTok Shop: the service_id link, the custom field's redirect and tracking, the shop stored under shops[].id", async () => {
      const { result, calls } = await connect({ platform_id: 4, custom_field_value: `${CUSTOM};utm_source=drift` }, '21');
      const stored = (await allSites()).filter((s) => s.platform === 'tiktok-shop');
      sites.tiktok = stored[0]?.id ?? 0;
      assert.equal(withoutQuery(result.url), env.TIKTOK_SHOP_AUTHORIZE_URL);
      assert.deepEqual(fixedParams(result.url), { service_id: SANDBOX_CLIENTS.tiktokShop.serviceId });
      assert.equal(withoutQuery(result.callback), callbackOf('tiktok-shop'));
      assert.equal(result.location, CUSTOM);
      const [shop] = sandboxShops(21, 1);
      assert.deepEqual(
        stored.map((s) => s.external_id),
        [shop!.id],
        'the site is keyed by the shop id TikTok answered, not by its cipher',
      );
      const shown = await site(sites.tiktok);
      assert.deepEqual(pick(shown, ['platform_id', 'platform', 'name', 'external_id', 'region', 'tracking', 'advertising']), {
        platform_id: 4,
        platform: 'tiktok-shop',
        name: shop!.name,
        external_id: shop!.id,
        region: null,
        tracking: { utm_source: 'drift' },
        advertising: null,
      });
      assert.deepEqual(pick(shown, ['status', 'status_reason', 'last_refreshed_at', 'next_refresh_at']), {
        ...freshlyConnected,
        next_refresh_at: freshlyConnected.next_refresh_at(),
      });
      assert.deepEqual(calls, { 'tiktok-shop:authorize': 1, 'tiktok-shop:consent': 1, 'tiktok-shop:token': 1, 'tiktok-shop:identity': 1 });
    });

    test('TikTok Shop: an authorization covering two shops connects each under its shop id, and lands on the first', async () => {
      const { result, calls } = await connect({ platform_id: 4 }, '22', { shops: '2' });
      sites.tiktokShops = (await allSites())
        .filter((s) => s.platform === 'tiktok-shop' && s.id !== sites.tiktok)
        .map((s) => s.id)
        .sort((a, b) => a - b);
      assert.equal(result.location, `${appUrl}/site/${sites.tiktokShops[0]}/listings`);
      const shops = sandboxShops(22, 2);
      assert.equal(sites.tiktokShops.length, shops.length);
      for (const [index, shop] of shops.entries()) {
        const shown = await site(sites.tiktokShops[index]!);
        assert.deepEqual(pick(shown, ['platform', 'name', 'external_id', 'status']), {
          platform: 'tiktok-shop',
          name: shop.name,
          external_id: shop.id,
          status: 'connected',
        });
      }
      assert.deepEqual(calls, { 'tiktok-shop:authorize': 1, 'tiktok-shop:consent': 1, 'tiktok-shop:token': 1, 'tiktok-shop:identity': 1 });
    });

    for (const [region, account] of [
      ['NA', 31],
      ['EU', 33],
    ] as const) {
      test(`Amazon seller in ${region}: the region's Seller Central consent page, the site stored with its region and store`, async () => {
        // NA is the default: its body names no region.
        const body = region === 'NA' ? { platform_id: 5, redirect_url: CUSTOM } : { platform_id: 5, region, redirect_url: CUSTOM };
        const { result, calls } = await connect(body, String(account));
        const siteId = siteIdIn(result.location, /[?&]site_id=(\d+)$/);
        if (region === 'NA') sites.sellerNa = siteId;
        else sites.sellerEu = siteId;
        const sellerCentral = region === 'NA' ? env.AMAZON_SELLER_CENTRAL_URL : env[`AMAZON_SELLER_CENTRAL_URL_${region}`];
        assert.equal(withoutQuery(result.url), `${sellerCentral}/apps/authorize/consent`, "Seller Central's real consent path");
        assert.deepEqual(fixedParams(result.url), {
          application_id: SANDBOX_CLIENTS.amazonSeller.appId,
          redirect_uri: callbackOf('amazon-seller'),
        });
        assert.equal(withoutQuery(result.callback), callbackOf('amazon-seller'));
        assert.equal(result.location, `${CUSTOM}&platform=marketplace&site_id=${siteId}`);
        const shown = await site(siteId);
        assert.deepEqual(pick(shown, ['platform_id', 'platform', 'name', 'external_id', 'region', 'advertising']), {
          platform_id: 5,
          platform: 'amazon-seller',
          name: sandboxStoreName(account),
          external_id: sandboxSellerId(account),
          region,
          advertising: { connected: false, region: null, profiles: [] },
        });
        assert.deepEqual(pick(shown, ['status', 'status_reason', 'last_refreshed_at', 'next_refresh_at']), {
          ...freshlyConnected,
          next_refresh_at: freshlyConnected.next_refresh_at(),
        });
        assert.deepEqual(calls, {
          'amazon-seller:authorize': 1,
          'amazon-seller:consent': 1,
          'amazon-seller:token': 1,
          'amazon-seller:identity': 1,
        });
      });
    }

    for (const [region, account] of [
      ['NA', 31],
      ['EU', 33],
    ] as const) {
      test(`Amazon Ads on the ${region} seller site: the region's grant page, and the region's profiles on the site`, async () => {
        const siteId = region === 'NA' ? sites.sellerNa : sites.sellerEu;
        // No region in the body: advertising is granted in the seller site's own region.
        const { result, calls } = await connect({ platform_id: 5, site_id: siteId, redirect_url: CUSTOM }, String(account));
        const authorize = region === 'NA' ? env.AMAZON_ADS_AUTHORIZE_URL : env[`AMAZON_ADS_AUTHORIZE_URL_${region}`];
        assert.equal(withoutQuery(result.url), authorize);
        assert.deepEqual(fixedParams(result.url), {
          client_id: SANDBOX_CLIENTS.amazonAds.clientId,
          scope: 'advertising::campaign_management',
          response_type: 'code',
          redirect_uri: callbackOf('amazon-ads'),
        });
        assert.equal(withoutQuery(result.callback), callbackOf('amazon-ads'));
        assert.equal(result.location, `${CUSTOM}&platform=marketplace&site_id=${siteId}&segment=advertising`);
        const shown = await site(siteId);
        assert.deepEqual(shown.advertising, { connected: true, region, profiles: profilesOf(account, region) });
        assert.deepEqual(
          shown.advertising.profiles.map((p: { country_code: string }) => p.country_code),
          region === 'NA' ? ['US', 'CA'] : ['UK', 'DE'],
        );
        assert.deepEqual([shown.status, shown.region], ['connected', region]);
        assert.deepEqual(calls, { 'amazon-ads:authorize': 1, 'amazon-ads:consent': 1, 'amazon-ads:token': 1, 'amazon-ads:identity': 1 });
      });
    }

    test('every grant is renewed through the job queue when its token is due, by each platform, and stays connected', async () => {
      const sellers = [sites.etsy, sites.tiktok, ...sites.tiktokShops, sites.sellerNa, sites.sellerEu];
      assert.ok(
        sellers.every((id) => Number.isInteger(id) && id > 0),
        `every connection above was made: ${JSON.stringify(sites)}`,
      );
      const grants = sellers.length + 2;
      t.clock.set(new Date(connectedAt + RENEW_AFTER_MS - 1000));
      assert.deepEqual(await refreshDue(t), { refreshed: 0, retry: 0, reauthorization_required: 0 }, 'no token is due yet');
      t.clock.set(new Date(connectedAt + RENEW_AFTER_MS + 1000));
      const renewal = await callsDuring(() => refreshDue(t));
      assert.deepEqual(renewal.result, { refreshed: grants, retry: 0, reauthorization_required: 0 });
      assert.deepEqual(renewal.calls, {
        'etsy:token': 1,
        'tiktok-shop:refresh': 1 + sites.tiktokShops.length,
        'amazon-seller:token': 2,
        'amazon-ads:token': 2,
      });
      const now = t.clock.now().getTime();
      for (const siteId of sellers) {
        const shown = await site(siteId);
        assert.deepEqual(pick(shown, ['id', 'status', 'status_reason', 'last_refreshed_at', 'next_refresh_at']), {
          id: siteId,
          status: 'connected',
          status_reason: null,
          last_refreshed_at: new Date(now).toISOString(),
          next_refresh_at: new Date(now + RENEW_AFTER_MS).toISOString(),
        });
      }
      for (const [siteId, region, account] of [
        [sites.sellerNa, 'NA', 31],
        [sites.sellerEu, 'EU', 33],
      ] as const)
        assert.deepEqual((await site(siteId)).advertising, { connected: true, region, profiles: profilesOf(account, region) });
    });

    test('the renewed tokens are the ones each platform accepts, in the grant region, and no app configuration was refused', async () => {
      const { adapters } = t.deps;
      const tokens = (accessToken: string) => ({ accessToken, refreshToken: null, accessExpiresAt: null, refreshExpiresAt: null });
      const seller = (track: 'etsy' | 'tiktok-shop' | 'amazon-seller') => {
        const adapter = adapters[track];
        assert.ok(adapter?.kind === 'seller');
        return adapter;
      };
      const ads = adapters['amazon-ads'];
      assert.ok(ads?.kind === 'advertising');
      const { calls } = await callsDuring(async () => {
        const etsy = await seller('etsy').fetchAccounts(tokens(await t.deps.tokenRefresh.accessTokenFor(sites.etsy)), {}, { region: null });
        assert.equal(etsy[0]?.externalId, '80000011');
        const tiktok = await seller('tiktok-shop').fetchAccounts(
          tokens(await t.deps.tokenRefresh.accessTokenFor(sites.tiktok)),
          {},
          { region: null },
        );
        assert.deepEqual(
          tiktok.map((shop) => shop.externalId),
          [sandboxShops(21, 1)[0]!.id],
        );
        for (const [siteId, region, account] of [
          [sites.sellerNa, 'NA', 31],
          [sites.sellerEu, 'EU', 33],
        ] as const) {
          const store = await seller('amazon-seller').fetchAccounts(
            tokens(await t.deps.tokenRefresh.accessTokenFor(siteId)),
            { selling_partner_id: sandboxSellerId(account) },
            { region },
          );
          assert.equal(store[0]?.name, sandboxStoreName(account));
          const profiles = await ads.fetchProfiles(tokens(await t.deps.tokenRefresh.accessTokenFor(siteId, 'advertising')), { region });
          assert.deepEqual(profiles, profilesOf(account, region));
        }
      });
      // Fresh tokens are handed out as they are: no renewal, only the lookups.
      assert.deepEqual(calls, {
        'etsy:identity': 1,
        'etsy:shop': 1,
        'tiktok-shop:identity': 1,
        'amazon-seller:identity': 2,
        'amazon-ads:identity': 2,
      });
      const health = await call(t, 'GET', '/health');
      assert.deepEqual(pick(health.json().data, ['status', 'platforms']), { status: 'ok', platforms: [] });
    });
  });
}
