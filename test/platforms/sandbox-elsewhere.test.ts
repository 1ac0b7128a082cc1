/**
 * The simulated platforms served by another server (SANDBOX_URL on the service, SANDBOX_APP_URL on the server that
 * hosts them), as many instances would share one real platform: the consent page is the other server's and returns to
 * this service's callback, a buyer's order on the other server's Etsy reaches this service by its ORDER_PAID webhook,
 * and this service's own simulators are never asked. Then the configuration alone: every sandbox address follows
 * SANDBOX_URL (Amazon's SQS queue included), and a bad address is refused.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config.js';
import { platformConfigs } from '../../src/platforms/registry.js';
import { SANDBOX_CLIENTS } from '../../src/sandbox/context.js';
import { connectAmazonSellerSite, consent, locationOf, openCallback } from '../helpers/connect.js';
import { databaseKinds } from '../helpers/database.js';
import { freePort } from '../helpers/server-process.js';
import { call, createTestApp, registerUser, TEST_APP_SECRET, TEST_ENCRYPTION_KEY, type TestApp, within } from '../helpers/test-app.js';

for (const kind of databaseKinds()) {
  describe(`the simulators served by another server [${kind}]`, () => {
    let service: TestApp;
    let platforms: TestApp;
    let serviceUrl: string;
    let platformsUrl: string;
    before(async () => {
      const [servicePort, platformsPort] = [await freePort(), await freePort()];
      serviceUrl = `http://127.0.0.1:${servicePort}`;
      platformsUrl = `http://127.0.0.1:${platformsPort}`;
      // Its workers run too, as a server's do: its reader of Amazon's queue must leave the service's messages alone.
      platforms = await createTestApp(kind, { listen: true, port: platformsPort, workers: true, env: { SANDBOX_APP_URL: serviceUrl } });
      service = await createTestApp(kind, {
        listen: true,
        port: servicePort,
        workers: true,
        env: { SANDBOX_URL: `${platformsUrl}/sandbox` },
      });
    });
    after(async () => {
      await service?.close();
      await platforms?.close();
    });

    test("a shop connected on the other server's consent page sells there, and the order reaches this service", async () => {
      const user = await registerUser(service);
      const as = { token: user.session, workspace: user.workspace.id };
      const started = await call(service, 'POST', '/authenticate-site', { ...as, body: { platform_id: 1 } });
      assert.equal(started.statusCode, 200, started.body);
      const authorization: string = started.json().data.url;
      assert.ok(authorization.startsWith(`${platformsUrl}/sandbox/etsy/`), authorization);

      const callback = await consent(authorization, 'allow', '731');
      assert.ok(callback.startsWith(`${serviceUrl}/api/v1/`), callback);
      const site = Number(/\/site\/(\d+)\/listings$/.exec(locationOf(await openCallback(callback)))![1]);

      const sale = await fetch(`${platformsUrl}/sandbox/etsy/accounts/731/orders`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ lines: [{ sku: 'ELSEWHERE-1', quantity: 2 }] }),
      });
      assert.equal(sale.status, 201, await sale.clone().text());
      const receipt = ((await sale.json()) as { id: string }).id;

      const order = async () =>
        (await call(service, 'GET', '/orders', as)).json().data.find((o: { external_id: string }) => o.external_id === receipt);
      await within(10_000, async () => (await order()) !== undefined);
      const recorded = await order();
      assert.equal(recorded.site_id, site);
      assert.equal(recorded.lines[0].sku, 'ELSEWHERE-1');
      assert.equal(recorded.lines[0].quantity, 2);
      // Read from the other server (by its ORDER_PAID, or the connect's first read): this service's simulators were never asked.
      assert.ok(
        (platforms.deps.sandbox.calls.get('etsy:getShopReceipts') ?? 0) + (platforms.deps.sandbox.calls.get('etsy:getShopReceipt') ?? 0) >=
          1,
      );
      assert.deepEqual(Object.fromEntries(service.deps.sandbox.calls), {});
    });

    test("an Amazon seller is subscribed on the other server, and its sales reach this service from that server's queue", async () => {
      const user = await registerUser(service);
      const as = { token: user.session, workspace: user.workspace.id };
      const site = await connectAmazonSellerSite(service, user, '732');
      const calls = (operation: string) => platforms.deps.sandbox.calls.get(`amazon-seller:${operation}`) ?? 0;
      // Subscribed on its first read, whose search (30 days back) is made right after.
      await within(10_000, async () => calls('createSubscription') === 1 && calls('searchOrders') >= 1);

      // Several, so that a reader of the other server's taking any of them would show.
      const searches = calls('searchOrders');
      const ids: string[] = [];
      for (const quantity of [1, 2, 3]) {
        const sale = await fetch(`${platformsUrl}/sandbox/amazon-seller/accounts/732/orders`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ lines: [{ sku: 'ELSEWHERE-2', quantity }] }),
        });
        assert.equal(sale.status, 201, await sale.clone().text());
        ids.push(((await sale.json()) as { id: string }).id);
      }
      const recorded = async () =>
        (await call(service, 'GET', '/orders', as))
          .json()
          .data.filter((o: { external_id: string; site_id: number }) => ids.includes(o.external_id) && o.site_id === site).length;
      await within(15_000, async () => (await recorded()) === ids.length);
      assert.equal(calls('searchOrders'), searches, 'read from the notification, with no search');
    });
  });
}

describe('SANDBOX_URL and SANDBOX_APP_URL', () => {
  const env = { APP_SECRET: TEST_APP_SECRET, ENCRYPTION_KEY: TEST_ENCRYPTION_KEY, APP_URL: 'http://storelink.test' };

  test("by default the simulators are this service's own, and work for it", () => {
    const config = loadConfig(env);
    assert.equal(config.sandboxUrl, 'http://storelink.test/sandbox');
    assert.equal(config.sandboxAppUrl, 'http://storelink.test');
    assert.equal(platformConfigs(config, SANDBOX_CLIENTS).etsy?.apiUrl, 'http://storelink.test/sandbox/etsy');
  });

  test('every simulated platform, its regions and its queue follow SANDBOX_URL', () => {
    const config = loadConfig({ ...env, SANDBOX_URL: 'http://platforms.test:4100/sandbox/' });
    const { etsy, tiktokShop, amazonSeller, amazonAds } = platformConfigs(config, SANDBOX_CLIENTS);
    const urls = [
      etsy?.connectUrl,
      etsy?.apiUrl,
      tiktokShop?.authorizeUrl,
      tiktokShop?.apiUrl,
      amazonSeller?.lwaTokenUrl,
      amazonSeller?.regions.EU.apiUrl,
      amazonSeller?.orderQueue?.url,
      amazonAds?.regions.FE.tokenUrl,
    ];
    for (const url of urls) assert.ok(url?.startsWith('http://platforms.test:4100/sandbox/'), String(url));
    assert.equal(amazonSeller?.regions.EU.apiUrl, 'http://platforms.test:4100/sandbox/amazon-seller/eu');
  });

  test("a server whose own simulators work for another service does not read that service's queue", () => {
    const hosting = platformConfigs(loadConfig({ ...env, SANDBOX_APP_URL: 'http://service.test' }), SANDBOX_CLIENTS);
    assert.equal(hosting.amazonSeller?.orderQueue, null);
    const service = platformConfigs(loadConfig({ ...env, SANDBOX_URL: 'http://platforms.test/sandbox' }), SANDBOX_CLIENTS);
    assert.equal(service.amazonSeller?.orderQueue?.url.startsWith('http://platforms.test/sandbox/amazon-seller/sqs/'), true);
  });

  test('an address that is not an http URL is refused, naming the variable', () => {
    for (const [name, value] of [
      ['SANDBOX_URL', 'ftp://platforms.test/sandbox'],
      ['SANDBOX_APP_URL', 'not a url'],
      ['SANDBOX_URL', 'http://platforms.test/sandbox?x=1'],
    ] as const) {
      assert.throws(
        () => loadConfig({ ...env, [name]: value }),
        (error: unknown) => error instanceof ConfigError && error.message.includes(name),
      );
    }
  });
});
