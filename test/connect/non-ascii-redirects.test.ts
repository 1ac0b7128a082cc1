/**
 * A caller's redirect with text beyond ASCII (`é`, `中`, an emoji, an internationalised host) goes through the whole
 * flow: authenticate-site accepts it, and every callback answer (success, failure, expired state, JSON, retry page)
 * names it percent-encoded and punycoded, as a browser would write it, never a 500 after the site was stored.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { decodeJwt } from 'jose';
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
import { call, createTestApp, errorBody, registerUser, type TestApp } from '../helpers/test-app.js';

const UNICODE = 'https://例え.jp/café/中文?q=😀&x=é#frag-é';
// What WHATWG URL serialization makes of it: the host in punycode, everything else UTF-8 percent-encoded.
const ENCODED = 'https://xn--r8jz45g.jp/caf%C3%A9/%E4%B8%AD%E6%96%87?q=%F0%9F%98%80&x=%C3%A9#frag-%C3%A9';
const SELLER = 'https://seller.example/é';
const SELLER_ENCODED = 'https://seller.example/%C3%A9';

for (const kind of databaseKinds()) {
  describe(`non-ASCII redirects [${kind}]`, () => {
    let t: TestApp;
    let actor: Actor;
    before(async () => {
      t = await createTestApp(kind, { listen: true });
      actor = await registerUser(t);
    });
    after(() => t.close());

    const siteCount = async () => Number((await selectRows<{ n: string }>(t.database, sql`select count(*) as n from sites`))[0]!.n);
    const newestSite = async () =>
      (await selectRows<{ id: number }>(t.database, sql`select id from sites order by id desc limit 1`))[0]!.id;

    test('the encoded form is exactly what WHATWG URL serialization gives', () => {
      assert.equal(new URL(UNICODE).href, ENCODED);
      assert.equal(new URL(SELLER).href, SELLER_ENCODED);
    });

    test('authenticate-site accepts the URL and signs it into the state as the caller gave it', async () => {
      const url = new URL(await authorizationUrl(t, actor, { platform_id: 1, redirect_url: UNICODE }));
      assert.equal(decodeJwt(url.searchParams.get('state')!).redirect_url, UNICODE);
    });

    test('an Etsy success redirects with 302 to the encoded URL and stores the site', async () => {
      const before = await siteCount();
      const response = await connectThroughSandbox(t, actor, { platform_id: 1, redirect_url: UNICODE }, 'allow', '31');
      assert.equal(locationOf(response), ENCODED);
      assert.equal(await siteCount(), before + 1);
    });

    test('with Accept: application/json the success names the encoded URL', async () => {
      const callback = await consent(await authorizationUrl(t, actor, { platform_id: 1, redirect_url: UNICODE }), 'allow', '32');
      const response = await openCallback(callback, 'application/json');
      assert.equal(response.status, 200);
      assert.deepEqual(await response.json(), { success: true, data: { site_id: await newestSite(), redirect_url: ENCODED } });
    });

    test('an Amazon seller success appends platform and site_id to the encoded URL', async () => {
      const response = await connectThroughSandbox(t, actor, { platform_id: 5, redirect_url: SELLER }, 'allow', '33');
      assert.equal(locationOf(response), `${SELLER_ENCODED}?platform=marketplace&site_id=${await newestSite()}`);
    });

    test('a TikTok Shop success goes to the encoded URL part and keeps non-ASCII tracking values as given', async () => {
      const response = await connectThroughSandbox(t, actor, { platform_id: 4, custom_field_value: `${UNICODE};utm_source=抖音;ref=é😀` });
      assert.equal(locationOf(response), ENCODED);
      const site = await call(t, 'GET', `/sites/${await newestSite()}`, { token: actor.session, workspace: actor.workspace.id });
      assert.equal(site.statusCode, 200, site.body);
      assert.deepEqual(site.json().data.tracking, { utm_source: '抖音', ref: 'é😀' });
    });

    test('declined consent on each track redirects to the encoded URL with the failure parameters', async () => {
      const before = await siteCount();
      const etsy = await connectThroughSandbox(t, actor, { platform_id: 1, redirect_url: UNICODE }, 'deny');
      assert.equal(
        locationOf(etsy),
        'https://xn--r8jz45g.jp/caf%C3%A9/%E4%B8%AD%E6%96%87?q=%F0%9F%98%80&x=%C3%A9&authorization_error=Access+denied#frag-%C3%A9',
      );
      const tiktok = await connectThroughSandbox(t, actor, { platform_id: 4, custom_field_value: `${SELLER};a=中` }, 'deny');
      assert.equal(locationOf(tiktok), `${SELLER_ENCODED}?authorization_error=Access+denied`);
      const amazon = await connectThroughSandbox(t, actor, { platform_id: 5, redirect_url: SELLER }, 'deny');
      assert.equal(locationOf(amazon), `${SELLER_ENCODED}?platform=marketplace&code=403&message=Access+denied`);
      assert.equal(await siteCount(), before);
    });

    test("a platform's non-ASCII error description is percent-encoded in authorization_error", async () => {
      const callback = new URL(await consent(await authorizationUrl(t, actor, { platform_id: 1, redirect_url: SELLER }), 'allow'));
      callback.searchParams.delete('code');
      callback.searchParams.set('error', 'server_error');
      callback.searchParams.set('error_description', 'Échec : 中文 😀');
      assert.equal(
        locationOf(await openCallback(callback.toString())),
        `${SELLER_ENCODED}?authorization_error=%C3%89chec+%3A+%E4%B8%AD%E6%96%87+%F0%9F%98%80`,
      );
    });

    test('an expired state goes to the encoded URL with the expired message, and its JSON answer is the seed body', async () => {
      const callback = await consent(await authorizationUrl(t, actor, { platform_id: 1, redirect_url: SELLER }), 'allow');
      t.clock.advance(15 * 60 * 1000 + 1000);
      try {
        assert.equal(locationOf(await openCallback(callback)), `${SELLER_ENCODED}?authorization_error=Authorization+state+has+expired`);
        const json = await openCallback(callback, 'application/json');
        assert.deepEqual(
          [json.status, await json.json()],
          [400, errorBody(400, 'Authorization state has expired. Please try authenticating again.')],
        );
      } finally {
        t.clock.advance(-(15 * 60 * 1000 + 1000));
      }
    });

    test("a failed advertising connection's retry page links back to the encoded URL", async () => {
      const sellerSite = await connectAmazonSellerSite(t, actor, '34');
      const response = await connectThroughSandbox(t, actor, { platform_id: 5, site_id: sellerSite, redirect_url: UNICODE }, 'deny');
      assert.equal(response.status, 403);
      const page = await response.text();
      assert.ok(page.includes(`href="${ENCODED.replaceAll('&', '&#38;')}"`), page);
    });

    test('a URL with a C1 control character is refused like one with a C0 control character', async () => {
      const response = await call(t, 'POST', '/authenticate-site', {
        token: actor.session,
        workspace: actor.workspace.id,
        body: { platform_id: 1, redirect_url: 'https://seller.example/a\u0085b' },
      });
      assert.equal(response.statusCode, 422, response.body);
      assert.deepEqual(Object.keys(response.json().errors), ['redirect_url']);
    });
  });
}
