/**
 * The TikTok Shop sandbox's choice of the seller's market (issue 36, item 9): the consent page offers the US first and
 * selected, then the UK and Germany; a form without the field is a US seller (DESIGN §6's contract: the form POSTs to
 * the same path with the link's parameters and `decision`), whose shop sells in dollars, so a newcomer's first USD
 * product is accepted; a UK seller's shop sells in pounds.
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import { LISTING_QUEUE } from '../../../src/core/listings/listing-work.js';
import { SANDBOX_CLIENTS } from '../../../src/sandbox/context.js';
import { setTikTokShopRateLimit } from '../../../src/sandbox/tiktok-shop/product-store.js';
import { connectThroughSandbox, locationOf } from '../../helpers/connect.js';
import { databaseKinds } from '../../helpers/database.js';
import { PNG_640X480 } from '../../helpers/fixtures.js';
import { heldListings, heldPrices, leafCategory, mugProduct } from '../../helpers/listings.js';
import { call, createTestApp, injectForm, registerUser, runDueJobs, type TestApp } from '../../helpers/test-app.js';
import { sandboxShopsOf } from '../../helpers/tiktok-sandbox.js';

const APP = SANDBOX_CLIENTS.tiktokShop;
const PNG = { bytes: PNG_640X480, type: 'image/png', name: 'mug.png' };

for (const kind of databaseKinds()) {
  describe(`TikTok Shop sandbox: the seller's market [${kind}]`, () => {
    let t: TestApp;
    before(async () => {
      t = await createTestApp(kind, { listen: true });
    });
    after(() => t.close());
    beforeEach(() => setTikTokShopRateLimit(t.deps.sandbox, 1_000_000));

    /** A new user whose sandbox TikTok `account` is connected with the consent page's `choices` (none: its defaults). */
    const seller = async (account: string, choices: Record<string, string> = {}) => {
      const user = await registerUser(t);
      const as = { token: user.session, workspace: user.workspace.id };
      const location = locationOf(await connectThroughSandbox(t, user, { platform_id: 4 }, 'allow', account, choices));
      const site = Number(/\/site\/(\d+)\/listings$/.exec(location)![1]);
      return { ...user, as, site, account };
    };
    const siteOf = async (me: Awaited<ReturnType<typeof seller>>) => (await call(t, 'GET', `/sites/${me.site}`, me.as)).json().data;

    test('the consent page offers the market, the US first and selected, then the UK and Germany; the form posts to the same path', async () => {
      const page = await t.app.inject({
        method: 'GET',
        url: `/sandbox/tiktok-shop/authorize?service_id=${APP.serviceId}&state=s1&market=GB`,
      });
      assert.equal(page.statusCode, 200);
      const select = /<select id="market" name="market">(.*?)<\/select>/s.exec(page.body);
      assert.ok(select, page.body);
      const values = [...select[1]!.matchAll(/<option value="([^"]*)"( selected)?>([^<]*)<\/option>/g)];
      assert.deepEqual(
        values.map((option) => option[1]),
        ['US', 'GB', 'DE'],
      );
      // The first option is what a browser submits when nothing is chosen: no other is marked selected.
      assert.ok(values.every((option) => option[2] === undefined));
      assert.match(values[0]![3]!, /United States.*USD/);
      assert.match(values[1]![3]!, /United Kingdom.*GBP/);
      assert.match(page.body, /<form method="post" action="\/sandbox\/tiktok-shop\/authorize">/);
      assert.match(page.body, /<input type="hidden" name="service_id" value="sandbox-tiktok-service">/);
      assert.match(page.body, /<input type="hidden" name="state" value="s1">/);
      assert.doesNotMatch(
        page.body,
        /type="hidden" name="market"/,
        "a market in the link is not copied into the form beside the page's own",
      );
    });

    test('a form without the market is a US seller; GB a UK one; an empty one the default; one the sandbox has not is refused', async () => {
      const [us] = await sandboxShopsOf(t, 3601, { market: '' });
      assert.equal(us!.region, 'US');
      const consent = await injectForm(t, '/sandbox/tiktok-shop/authorize', {
        service_id: APP.serviceId,
        decision: 'allow',
        account: '3602',
      });
      assert.equal(consent.statusCode, 302, consent.body);
      const [uk] = await sandboxShopsOf(t, 3603, { market: 'GB' });
      assert.equal(uk!.region, 'GB');
      // The UK shop of an account is one shop whichever market its seller chose: the second shop of a US seller.
      const usWithTwo = await sandboxShopsOf(t, 3603, { market: 'US', shops: '2' });
      assert.deepEqual(
        usWithTwo.map((shop) => shop.region),
        ['US', 'GB'],
      );
      assert.equal(usWithTwo[1]!.id, uk!.id);
      for (const market of ['XX', 'us', 'FR']) {
        const refused = await injectForm(t, '/sandbox/tiktok-shop/authorize', {
          service_id: APP.serviceId,
          decision: 'allow',
          market,
        });
        assert.equal(refused.statusCode, 400, market);
        assert.equal(refused.headers.location, undefined);
      }
    });

    test("a newcomer's dollar product, published to a shop connected with the default market, is accepted and listed in USD", async () => {
      const me = await seller('3611');
      assert.equal((await siteOf(me)).currency, 'USD');
      const options = (await call(t, 'GET', `/sites/${me.site}/listing-options`, me.as)).json().data;
      const settings = { warehouse_id: options.warehouse_id[0].value };
      assert.equal((await call(t, 'PUT', `/sites/${me.site}/listing-settings`, { ...me.as, body: settings })).statusCode, 200);
      const productId = await mugProduct(t, me, 'US-MUG', { image: PNG, packaged: true, currency: 'USD' });
      const { id: categoryId, attributes } = await leafCategory(t, me, 'mug');
      const published = await call(t, 'POST', `/sites/${me.site}/listings`, {
        ...me.as,
        body: { product_id: productId, category_id: categoryId, attributes },
      });
      assert.equal(published.statusCode, 202, published.body);
      await runDueJobs(t, LISTING_QUEUE);
      const listing = (await call(t, 'GET', `/listings/${published.json().data.id}`, me.as)).json().data;
      assert.equal(listing.currency, 'USD');
      assert.notEqual(listing.status, 'error', JSON.stringify(listing.issues));
      // TikTok Shop holds the product at the catalogue's dollar prices, no exchange rate involved.
      assert.deepEqual(heldPrices(await heldListings(t, 'tiktok-shop', me.account)), { 'US-MUG-W': 18, 'US-MUG-B': 19.5 });
    });

    test("a UK-market connection gets a GBP shop, and a dollar product needs the site's exchange rate there", async () => {
      const me = await seller('3621', { market: 'GB' });
      assert.equal((await siteOf(me)).currency, 'GBP');
      const options = (await call(t, 'GET', `/sites/${me.site}/listing-options`, me.as)).json().data;
      const settings = { warehouse_id: options.warehouse_id[0].value };
      assert.equal((await call(t, 'PUT', `/sites/${me.site}/listing-settings`, { ...me.as, body: settings })).statusCode, 200);
      const productId = await mugProduct(t, me, 'UK-MUG', { image: PNG, packaged: true, currency: 'USD' });
      const { id: categoryId, attributes } = await leafCategory(t, me, 'mug');
      const refused = await call(t, 'POST', `/sites/${me.site}/listings`, {
        ...me.as,
        body: { product_id: productId, category_id: categoryId, attributes },
      });
      assert.equal(refused.statusCode, 422, refused.body);
      assert.match(refused.json().errors.exchange_rates[0], /priced in USD and this site lists in GBP/);
      assert.deepEqual(await heldListings(t, 'tiktok-shop', me.account), []);
    });
  });
}
