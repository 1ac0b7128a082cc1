/**
 * TikTok Shop's webhooks at `POST /api/v1/platform-notifications/tiktok-shop` (issue "status from the platforms"):
 * verified by TikTok's signature over the raw body before anything is read, a seller's deauthorization acted on at once,
 * and the sandbox TikTok sending one when its seller revokes the app. A captured notification replayed (its signature
 * covers no time) is refused: too old, already received, or sent before the seller's latest grant. The signatures here are computed by the test
 * itself, as TikTok documents them, not by Storelink's code.
 */
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { SANDBOX_CLIENTS } from '../../../src/sandbox/context.js';
import { sandboxShops } from '../../../src/sandbox/tiktok-shop/shops.js';
import { connectThroughSandbox } from '../../helpers/connect.js';
import { databaseKinds, selectRows } from '../../helpers/database.js';
import { API, call, createTestApp, errorBody, registerUser, type TestApp, within } from '../../helpers/test-app.js';

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
      return { user, as, site: site.id as number, shopId: site.external_id as string };
    }
    const status = async (me: { as: object; site: number }) => (await call(t, 'GET', `/sites/${me.site}`, me.as)).json().data;
    const post = (body: string, authorization?: string) =>
      t.app.inject({
        method: 'POST',
        url: `${API}/platform-notifications/tiktok-shop`,
        headers: { 'content-type': 'application/json', ...(authorization === undefined ? {} : { authorization }) },
        payload: body,
      });
    let ids = 7_327_112_393_057_371_910n;
    /** TikTok's envelope: a fresh `tts_notification_id` each, sent `secondsAgo` before the app's clock says now. */
    const notification = (type: number, shopId: string, data: object, secondsAgo = 0) =>
      JSON.stringify({
        type,
        tts_notification_id: String(ids++),
        shop_id: shopId,
        timestamp: Math.floor(t.clock.now().getTime() / 1000) - secondsAgo,
        data,
      });
    const deauthorization = (shopId: string, secondsAgo = 0) =>
      notification(6, shopId, { message: `Shop_id ${shopId} is deauthorized from your APP by merchant.` }, secondsAgo);
    /** The seller connects the shop again, a second later. */
    const reconnect = async (me: Awaited<ReturnType<typeof seller>>, account: string) => {
      t.clock.advance(1_000);
      await connectThroughSandbox(t, me.user, { platform_id: 4 }, 'allow', account);
    };

    test('a signed deauthorization turns the shop’s site reauthorization_required at once', async () => {
      const me = await seller('4101');
      const body = deauthorization(me.shopId);
      const answered = await post(body, sign(body));
      assert.equal(answered.statusCode, 200, answered.body);
      assert.equal(answered.json().data.result, 'deauthorized 1 site(s)');
      const site = await status(me);
      assert.equal(site.status, 'reauthorization_required');
      assert.match(site.status_reason, /deauthorized Storelink on TikTok Shop/);
    });

    test('a deauthorization received again is acknowledged and changes nothing, even after the seller connected the shop again', async () => {
      const me = await seller('4104');
      const body = deauthorization(me.shopId);
      assert.equal((await post(body, sign(body))).statusCode, 200);
      assert.equal((await status(me)).status, 'reauthorization_required');
      await reconnect(me, '4104');
      assert.equal((await status(me)).status, 'connected');
      const replayed = await post(body, sign(body));
      // 200: a platform retrying a notification whose first answer was lost stops; nothing is done again.
      assert.equal(replayed.statusCode, 200, replayed.body);
      assert.equal(replayed.json().data.result, 'acknowledged: already received');
      assert.equal((await status(me)).status, 'connected');
    });

    test('a notification sent more than 5 minutes ago, or more than 5 minutes ahead, is 401 and changes nothing', async () => {
      const me = await seller('4105');
      // Ten minutes on, so that a notification of 299 seconds ago is after the grant.
      t.clock.advance(600_000);
      for (const secondsAgo of [301, 3_600, 1_700_000_000, -301]) {
        const body = deauthorization(me.shopId, secondsAgo);
        const refused = await post(body, sign(body));
        assert.equal(refused.statusCode, 401, `${secondsAgo}: ${refused.body}`);
        assert.deepEqual(
          refused.json(),
          errorBody(401, "The notification's timestamp is more than 5 minutes from now: a replay is refused."),
        );
      }
      assert.equal((await status(me)).status, 'connected');
      const recent = deauthorization(me.shopId, 299);
      assert.equal((await post(recent, sign(recent))).statusCode, 200);
      assert.equal((await status(me)).status, 'reauthorization_required');
    });

    test('a deauthorization sent before the seller connected the shop again leaves the site connected', async () => {
      const me = await seller('4106');
      const captured = deauthorization(me.shopId);
      // Sent by TikTok, never delivered here (kept by whoever captured it); the seller connects again a second later.
      await reconnect(me, '4106');
      const replayed = await post(captured, sign(captured));
      assert.equal(replayed.statusCode, 200, replayed.body);
      assert.equal(replayed.json().data.result, 'deauthorized 0 site(s); 1 site(s) authorized again after it was sent, left connected');
      assert.equal((await status(me)).status, 'connected');
      // One sent after the grant is acted on.
      const later = deauthorization(me.shopId);
      assert.equal((await post(later, sign(later))).json().data.result, 'deauthorized 1 site(s)');
      assert.equal((await status(me)).status, 'reauthorization_required');
    });

    test('a signed notification without its tts_notification_id or timestamp is 400 and changes nothing', async () => {
      const me = await seller('4107');
      const full = JSON.parse(deauthorization(me.shopId));
      for (const field of ['tts_notification_id', 'timestamp']) {
        const { [field]: _, ...rest } = full;
        const body = JSON.stringify(rest);
        const refused = await post(body, sign(body));
        assert.equal(refused.statusCode, 400, refused.body);
        assert.deepEqual(
          refused.json(),
          errorBody(400, 'The TikTok Shop notification has no id or time: it cannot be told from a replay.'),
        );
      }
      assert.equal((await status(me)).status, 'connected');
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
      const productStatus = notification(5, me.shopId, { product_id: '1', status: 'PRODUCT_AUDIT_FAILURE' });
      const unheld = await post(productStatus, sign(productStatus));
      assert.equal(unheld.statusCode, 200);
      assert.equal(unheld.json().data.result, 'reading 0 listing(s)');
      const creation = notification(16, me.shopId, { product_id: '1' });
      const acknowledged = await post(creation, sign(creation));
      assert.equal(acknowledged.statusCode, 200);
      assert.equal(acknowledged.json().data.result, 'acknowledged');
      assert.equal((await status(me)).status, 'connected');
    });

    test('the notifications received over 10 minutes ago are forgotten, by one delete a minute at most', async () => {
      const me = await seller('4108');
      const idOf = (body: string) => (JSON.parse(body) as { tts_notification_id: string }).tts_notification_id;
      const kept = async (id: string) =>
        (
          await selectRows<{ n: number }>(
            t.database,
            sql`select count(*)::int as n from platform_notifications_received where platform = 'tiktok-shop' and notification_id = ${id}`,
          )
        )[0]!.n === 1;
      const receive = async () => {
        const body = deauthorization(me.shopId);
        assert.equal((await post(body, sign(body))).statusCode, 200);
        return idOf(body);
      };
      const first = await receive();
      t.clock.advance(11 * 60_000);
      const second = await receive();
      assert.deepEqual([await kept(first), await kept(second)], [false, true], 'received 11 minutes before: forgotten');

      // One received long ago, as another instance's forgetting might have missed; the next 30 s do not look again.
      await t.database.db.execute(
        sql`insert into platform_notifications_received (platform, notification_id, received_at) values ('tiktok-shop', 'long-ago', ${new Date(t.clock.now().getTime() - 11 * 60_000).toISOString()}::timestamptz)`,
      );
      t.clock.advance(30_000);
      await receive();
      assert.equal(await kept('long-ago'), true, 'within a minute of the last forgetting');
      t.clock.advance(31_000);
      await receive();
      assert.equal(await kept('long-ago'), false, 'a minute on, forgotten');
      assert.equal(await kept(second), true, 'received 61 s ago: kept');
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
