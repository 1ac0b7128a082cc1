/**
 * TikTok Shop's webhooks at `POST /api/v1/platform-notifications/tiktok-shop` (issue "status from the platforms"):
 * verified by TikTok's signature over the raw body before anything is read, a seller's deauthorization acted on at once,
 * and the sandbox TikTok sending one when its seller revokes the app. The signatures here are computed by the test
 * itself, as TikTok documents them, not by Storelink's code.
 */
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { SANDBOX_CLIENTS } from '../../../src/sandbox/context.js';
import { sandboxShops } from '../../../src/sandbox/tiktok-shop/shops.js';
import { connectThroughSandbox } from '../../helpers/connect.js';
import { databaseKinds } from '../../helpers/database.js';
import { API, call, createTestApp, registerUser, type TestApp, within } from '../../helpers/test-app.js';

const APP = SANDBOX_CLIENTS.tiktokShop;
const sign = (body: string, secret: string = APP.appSecret) =>
  createHmac('sha256', secret)
    .update(APP.appKey + body)
    .digest('hex');

for (const kind of databaseKinds()) {
  describe(`TikTok Shop notifications [${kind}]`, () => {
    let t: TestApp;
    before(async () => {
      t = await createTestApp(kind, { listen: true });
    });
    after(() => t.close());

    async function seller(account: string) {
      const user = await registerUser(t);
      const as = { token: user.session, workspace: user.workspace.id };
      await connectThroughSandbox(t, user, { platform_id: 4 }, 'allow', account);
      const sites = (await call(t, 'GET', '/sites', as)).json().data;
      const site = sites.find((s: { platform: string }) => s.platform === 'tiktok-shop');
      assert.equal(site.external_id, sandboxShops(Number(account), 1)[0]!.id);
      return { as, site: site.id as number, shopId: site.external_id as string };
    }
    const status = async (me: { as: object; site: number }) => (await call(t, 'GET', `/sites/${me.site}`, me.as)).json().data;
    const post = (body: string, authorization?: string) =>
      t.app.inject({
        method: 'POST',
        url: `${API}/platform-notifications/tiktok-shop`,
        headers: { 'content-type': 'application/json', ...(authorization === undefined ? {} : { authorization }) },
        payload: body,
      });
    const deauthorization = (shopId: string) =>
      JSON.stringify({
        type: 6,
        tts_notification_id: '7327112393057371910',
        shop_id: shopId,
        timestamp: 1_700_000_000,
        data: { message: `Shop_id ${shopId} is deauthorized from your APP by merchant.` },
      });

    test('a signed deauthorization turns the shop’s site reauthorization_required at once; a second one changes nothing more', async () => {
      const me = await seller('4101');
      const body = deauthorization(me.shopId);
      const answered = await post(body, sign(body));
      assert.equal(answered.statusCode, 200, answered.body);
      assert.equal(answered.json().data.result, 'deauthorized 1 site(s)');
      const site = await status(me);
      assert.equal(site.status, 'reauthorization_required');
      assert.match(site.status_reason, /deauthorized Storelink on TikTok Shop/);
      assert.equal((await post(body, sign(body))).statusCode, 200);
      assert.equal((await status(me)).status, 'reauthorization_required');
    });

    test('a notification not signed by the app changes nothing: 401; a body that is not one is 400; other types are acknowledged', async () => {
      const me = await seller('4102');
      const body = deauthorization(me.shopId);
      for (const authorization of [undefined, '', sign(body, 'another-secret'), sign(`${body} `), 'zz'.repeat(32)]) {
        const refused = await post(body, authorization);
        assert.equal(refused.statusCode, 401, String(authorization));
        assert.equal(refused.json().success, false);
      }
      assert.equal((await status(me)).status, 'connected');
      const notJson = 'not json';
      assert.equal((await post(notJson, sign(notJson))).statusCode, 400);
      const noShop = JSON.stringify({ type: 6, data: {} });
      assert.equal((await post(noShop, sign(noShop))).statusCode, 400);
      // A product status change of a product no listing holds reads nothing; a type Storelink does not act on is acknowledged.
      const productStatus = JSON.stringify({ type: 5, shop_id: me.shopId, data: { product_id: '1', status: 'PRODUCT_AUDIT_FAILURE' } });
      const unheld = await post(productStatus, sign(productStatus));
      assert.equal(unheld.statusCode, 200);
      assert.equal(unheld.json().data.result, 'reading 0 listing(s)');
      const creation = JSON.stringify({ type: 16, shop_id: me.shopId, data: { product_id: '1' } });
      const acknowledged = await post(creation, sign(creation));
      assert.equal(acknowledged.statusCode, 200);
      assert.equal(acknowledged.json().data.result, 'acknowledged');
      assert.equal((await status(me)).status, 'connected');
    });

    test('the sandbox TikTok notifies Storelink when its seller revokes the app', async () => {
      const me = await seller('4103');
      const revoked = await fetch(`${t.deps.config.appUrl}/sandbox/revoke`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ track: 'tiktok-shop', account: 4103 }),
      });
      assert.equal(revoked.status, 204);
      await within(10_000, async () => (await status(me)).status === 'reauthorization_required', { pollMs: 100 });
    });
  });
}
