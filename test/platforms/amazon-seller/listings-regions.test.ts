/**
 * Amazon outside North America (issue 36, item 3): a seller connected in Europe lists in the UK and in Germany, one
 * connected in the Far East in Japan, end to end against the sandbox's regional SP-API hosts. Each region's simulator
 * serves only its own region's grants (403 to a token of another) and marketplaces (400 `InvalidInput` to another's),
 * as Amazon's regional endpoints do, so a marketplace or a host that drifts back to North America fails here. And
 * the rate `x-amzn-RateLimit-Limit` says is kept per seller: one seller's lowered plan paces that seller alone.
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import { loadConfig } from '../../../src/config.js';
import { READ_QUEUE } from '../../../src/core/listings/listing-watch.js';
import { LISTING_QUEUE } from '../../../src/core/listings/listing-work.js';
import { listingsCall, progressOf } from '../../../src/core/listings/listings-call.js';
import { createPacer, type Pacer } from '../../../src/core/platform-work/pacing.js';
import { listingById } from '../../../src/db/listings.repo.js';
import { findSiteById } from '../../../src/db/sites.repo.js';
import type { AmazonRegion } from '../../../src/domain/index.js';
import { createAmazonSellerConnectAdapter } from '../../../src/platforms/amazon-seller/connect.js';
import { createAmazonSellerListingsAdapter } from '../../../src/platforms/amazon-seller/listings.js';
import { createPlatformHttp, type PlatformHttp } from '../../../src/platforms/http.js';
import { createListingsAdapters } from '../../../src/platforms/registry.js';
import { setAmazonSellerRateLimit } from '../../../src/sandbox/amazon-seller/listings-rate-limits.js';
import { SANDBOX_CLIENTS } from '../../../src/sandbox/context.js';
import { sandboxSellerId } from '../../../src/sandbox/lwa/simulator.js';
import { createManualClock } from '../../helpers/clock.js';
import { authorizationUrl, consent, locationOf, openCallback } from '../../helpers/connect.js';
import { databaseKinds } from '../../helpers/database.js';
import { mugProduct } from '../../helpers/listings.js';
import { fakeHttp } from '../../helpers/platform-http.js';
import { call, createTestApp, registerUser, runDueJobs, type TestApp } from '../../helpers/test-app.js';

const UK = 'A1F83G8C2ARO7P';
const DE = 'A1PA6795UKMFR9';
const JP = 'A1VC38T7YXB528';

interface Held {
  id: string;
  marketplace_id: string;
  title: string;
  state: string;
  skus: { sku: string; price: string | null; quantity: number }[];
  variation_theme?: string | null;
}

for (const kind of databaseKinds()) {
  describe(`Amazon's regions: listings [${kind}]`, () => {
    let t: TestApp;
    let base: string;
    before(async () => {
      t = await createTestApp(kind, { listen: true });
      base = t.deps.config.appUrl;
    });
    after(() => t.close());
    beforeEach(() => {
      setAmazonSellerRateLimit(t.deps.sandbox, 1_000_000);
      t.deps.sandbox.faults.clear();
    });

    /** A seller connected in `region` through its Seller Central, its site's listings in `marketplace`. */
    const seller = async (region: AmazonRegion, account: string, marketplace: string) => {
      const user = await registerUser(t);
      const as = { token: user.session, workspace: user.workspace.id };
      const url = await authorizationUrl(t, user, { platform_id: 5, region });
      const consentPath = new URL(url).pathname;
      const site = Number(/\/site\/(\d+)\/listings$/.exec(locationOf(await openCallback(await consent(url, 'allow', account))))![1]);
      const settings = await call(t, 'PUT', `/sites/${site}/listing-settings`, { ...as, body: { marketplace_id: marketplace } });
      assert.equal(settings.statusCode, 200, settings.body);
      return { ...user, as, site, account, consentPath };
    };
    type Seller = Awaited<ReturnType<typeof seller>>;

    /** The SKUs a buyer buys in the account (a family's parent left out), as the sandbox Amazon holds them. */
    const held = async (account: string): Promise<Held[]> => {
      const response = await fetch(`${base}/sandbox/amazon-seller/accounts/${account}/listings`);
      assert.equal(response.status, 200);
      return ((await response.json()) as Held[]).filter((each) => !each.variation_theme);
    };
    const listing = async (me: Seller, id: number) => (await call(t, 'GET', `/listings/${id}`, me.as)).json().data;

    /** Publishes a mug priced in `currency` (yen have no minor unit), then Amazon's processing passes. */
    const publish = async (me: Seller, sku: string, currency: string, prices: [string, string]) => {
      const productId = await mugProduct(t, me, sku, {
        brand: 'Sandbox Pottery',
        barcodes: ['012345678905', '4006381333931'],
        currency,
        variants: [
          { sku: `${sku}-W`, option_values: { Color: 'White' }, price: prices[0], quantity: 4, barcode: '012345678905' },
          { sku: `${sku}-B`, option_values: { Color: 'Blue' }, price: prices[1], quantity: 2, barcode: '4006381333931' },
        ],
      });
      const body = { product_id: productId, category_id: 'KITCHEN', attributes: { material: 'Stoneware' } };
      const published = await call(t, 'POST', `/sites/${me.site}/listings`, { ...me.as, body });
      assert.equal(published.statusCode, 202, published.body);
      const id = published.json().data.id as number;
      await runDueJobs(t, LISTING_QUEUE);
      const inReview = await listing(me, id);
      assert.equal(inReview.status, 'in_review', JSON.stringify(inReview));
      t.clock.advance(61_000);
      await t.deps.listingWatch.sweep();
      await runDueJobs(t, READ_QUEUE);
      return listing(me, id);
    };

    test('a European seller consents at the EU Seller Central and lists in the UK, in pounds, on the EU host', async () => {
      const me = await seller('EU', '801', UK);
      assert.equal(me.consentPath, '/sandbox/amazon-seller/eu/apps/authorize/consent');
      const options = (await call(t, 'GET', `/sites/${me.site}/listing-options`, me.as)).json().data;
      assert.deepEqual(options.marketplace_id, [
        { value: UK, label: 'Amazon.co.uk (GB)', currency: 'GBP' },
        { value: DE, label: 'Amazon.de (DE)', currency: 'EUR' },
      ]);
      const live = await publish(me, 'UK1', 'GBP', ['18.00', '19.50']);
      assert.equal(live.status, 'active', JSON.stringify(live.issues));
      assert.equal(live.marketplace_id, UK);
      assert.equal(live.currency, 'GBP');
      assert.match(live.external_url, /^https:\/\/www\.amazon\.co\.uk\/dp\/B0/);
      assert.deepEqual(
        (await held(me.account)).map((s) => [s.id, s.marketplace_id, s.state, s.skus[0]!.price]),
        [
          ['UK1-W', UK, 'active', '18.00'],
          ['UK1-B', UK, 'active', '19.50'],
        ],
      );
    });

    test('the same European seller lists in Germany in euros once its site names Amazon.de; a price change is patched there', async () => {
      const me = await seller('EU', '802', DE);
      const live = await publish(me, 'DE1', 'EUR', ['21.00', '22.50']);
      assert.equal(live.status, 'active', JSON.stringify(live.issues));
      assert.equal(live.marketplace_id, DE);
      assert.match(live.external_url, /^https:\/\/www\.amazon\.de\/dp\/B0/);
      const product = (await call(t, 'GET', `/products/${live.product_id}`, me.as)).json().data;
      const variants = product.variants.map((v: { price: string }, i: number) => ({ ...v, price: i === 0 ? '24.00' : v.price }));
      assert.equal((await call(t, 'PATCH', `/products/${live.product_id}`, { ...me.as, body: { variants } })).statusCode, 200);
      await runDueJobs(t, LISTING_QUEUE);
      assert.equal((await listing(me, live.id)).sync_status, 'synced');
      assert.deepEqual(
        (await held(me.account)).map((s) => [s.id, s.marketplace_id, s.skus[0]!.price]),
        [
          ['DE1-W', DE, '24.00'],
          ['DE1-B', DE, '22.50'],
        ],
      );
    });

    test('a Far East seller consents at the FE Seller Central and lists in Japan, in whole yen, on the FE host', async () => {
      const me = await seller('FE', '803', JP);
      assert.equal(me.consentPath, '/sandbox/amazon-seller/fe/apps/authorize/consent');
      assert.equal((await call(t, 'GET', `/sites/${me.site}`, me.as)).json().data.region, 'FE');
      const live = await publish(me, 'JP1', 'JPY', ['1800', '1950']);
      assert.equal(live.status, 'active', JSON.stringify(live.issues));
      assert.equal(live.marketplace_id, JP);
      assert.equal(live.currency, 'JPY');
      assert.match(live.external_url, /^https:\/\/www\.amazon\.co\.jp\/dp\/B0/);
      assert.deepEqual(
        (await held(me.account)).map((s) => [s.id, s.marketplace_id, s.state, s.skus[0]!.price]),
        [
          ['JP1-W', JP, 'active', '1800'],
          ['JP1-B', JP, 'active', '1950'],
        ],
      );
    });

    test('the rate x-amzn-RateLimit-Limit says is kept per seller: a seller Amazon rates at 1 a second is paced to it, another is not', async () => {
      const slow = await seller('EU', '804', UK);
      const fast = await seller('EU', '805', UK);
      const slowLive = await publish(slow, 'RS1', 'GBP', ['18.00', '19.50']);
      const fastLive = await publish(fast, 'RF1', 'GBP', ['18.00', '19.50']);
      // Amazon lowers one seller's plans to a fifth (getListingsItem: 1 a second, burst 2) and says so in the header.
      setAmazonSellerRateLimit(t.deps.sandbox, 1);
      setAmazonSellerRateLimit(t.deps.sandbox, 0.2, sandboxSellerId(804));
      // The app's Amazon adapter, as deps.ts makes it (a fresh one: it has heard no rate yet).
      const http = createPlatformHttp({ fetch: globalThis.fetch, timeoutMs: 10_000 });
      const adapter = createListingsAdapters(t.deps.config, { http, clock: t.clock }, SANDBOX_CLIENTS)['amazon-seller']!;
      // The engine's pacers (one per seller and budget, as deps.ts keys them), whose waits pass on the test's clock
      // (the simulator's buckets refill by the same clock); each seller's waits are recorded apart.
      const waits: Record<string, number[]> = { [sandboxSellerId(804)]: [], [sandboxSellerId(805)]: [] };
      const pacers = new Map<string, Pacer>();
      const pacerOf = (key: string) => {
        const seller = Object.keys(waits).find((id) => key.includes(`:${id}:`));
        assert.ok(seller, `a seller's own budget: ${key}`);
        if (!pacers.has(key))
          pacers.set(
            key,
            createPacer(t.clock, async (ms) => {
              waits[seller]!.push(ms);
              t.clock.advance(ms);
            }),
          );
        return pacers.get(key)!;
      };
      const read = async (me: Seller, live: { id: number }) => {
        const site = (await findSiteById(t.database.db, me.site))!;
        const token = await t.deps.tokenRefresh.accessTokenFor(me.site);
        const row = (await listingById(t.database.db, live.id))!;
        const answer = await adapter.read(listingsCall(site, token, { pacerOf }), progressOf(row.progress));
        assert.ok(answer, 'the listing is read');
      };
      // Their reads (two SKUs each) in turns. The slow seller's first hears "1.0"; from then on each of its calls
      // waits a second (and a hundredth) after its one before, where the default plan (5 a second) would not wait at
      // all. The other seller's calls, heard "5.0", never wait: the slow seller's rate is not theirs, nor theirs its.
      for (let turn = 0; turn < 3; turn++) {
        await read(slow, slowLive);
        await read(fast, fastLive);
      }
      assert.deepEqual(waits[sandboxSellerId(804)], [1_010, 1_010, 1_010, 1_010, 1_010]);
      assert.deepEqual(waits[sandboxSellerId(805)], []);
    });
  });
}

/**
 * Amazon's own hosts, with no override (platforms.md §3.1, §3.3): the consent at the region's Seller Central, every
 * SP-API call at the region's host, the LWA token at the one host SP-API documents for every region. Nothing leaves
 * the process: the adapters are given a recorded HTTP.
 */
describe("Amazon's regions: the real hosts each region's calls go to", () => {
  const config = loadConfig({ AMAZON_SP_APP_ID: 'amzn1.sellerapps.app.x', AMAZON_LWA_CLIENT_ID: 'c', AMAZON_LWA_CLIENT_SECRET: 's' })
    .platforms.amazonSeller!;
  const deps = (http: PlatformHttp) => ({ http, clock: createManualClock() });

  test('the consent is at the region’s Seller Central; the token at api.amazon.com for every region', () => {
    const adapter = createAmazonSellerConnectAdapter(config, deps(fakeHttp().http));
    const consentAt = (region: AmazonRegion) =>
      new URL(
        adapter.buildAuthorizationUrl({
          state: 's',
          redirectUri: 'https://storelink.example/cb',
          codeChallenge: null,
          authorizationUrl: null,
          grant: { region },
        }),
      ).origin;
    assert.deepEqual((['NA', 'EU', 'FE'] as const).map(consentAt), [
      'https://sellercentral.amazon.com',
      'https://sellercentral-europe.amazon.com',
      'https://sellercentral.amazon.co.jp',
    ]);
    assert.equal(config.lwaTokenUrl, 'https://api.amazon.com/auth/o2/token');
  });

  test('a listing in the UK, in Germany or in Japan is read on its region’s host, for its own marketplace', async () => {
    const sent: string[] = [];
    const http: PlatformHttp = {
      request: async (url) => {
        sent.push(url);
        return { status: 404, body: { errors: [{ code: 'NOT_FOUND', message: 'Not found', details: '' }] } };
      },
    };
    const adapter = createAmazonSellerListingsAdapter(config, deps(http));
    for (const marketplace of [UK, DE, JP]) {
      const call = {
        externalId: 'A3EXAMPLE1ABCD',
        data: { marketplace_ids: [marketplace] },
        settings: { marketplace_id: marketplace },
        accessToken: 'Atza|t',
      };
      const progress = progressOf({ externalId: 'MUG-1', delivered: { marketplace, 'item.MUG-1': 'x' } });
      await adapter.read(call, progress).catch(() => null);
    }
    const hosts = sent.map((url) => [new URL(url).origin, new URL(url).searchParams.get('marketplaceIds')]);
    assert.deepEqual(
      [...new Set(hosts.map((h) => h.join(' ')))],
      [
        `https://sellingpartnerapi-eu.amazon.com ${UK}`,
        `https://sellingpartnerapi-eu.amazon.com ${DE}`,
        `https://sellingpartnerapi-fe.amazon.com ${JP}`,
      ],
    );
  });
});
