/**
 * Issue 11, item 6: the Etsy simulator's connect side (the connect page, the token endpoint, scopes, the account
 * lookup, accounts without a shop) holds every request to Etsy's own rules and answers with Etsy's documented codes and
 * bodies. Driven over HTTP through the real app, as a platform client would call it, with no adapter code: a simulator
 * that only accepted what Storelink's adapters send would prove nothing. Titles name every behaviour Etsy does not
 * document as an ASSUMPTION. TikTok Shop's simulator has the same suite in test/platforms/tiktok-shop/.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { SANDBOX_CLIENTS } from '../../../src/sandbox/context.js';
import { PKCE_CHALLENGE, PKCE_VERIFIER } from '../../helpers/fixtures.js';
import { createTestApp, injectForm, type TestApp } from '../../helpers/test-app.js';

const ETSY = SANDBOX_CLIENTS.etsy;
const ETSY_KEY = `${ETSY.clientId}:${ETSY.sharedSecret}`;
const ETSY_SCOPES =
  'address_r address_w billing_r cart_r cart_w email_r favorites_r favorites_w feedback_r listings_d listings_r listings_w profile_r profile_w recommend_r recommend_w shops_r shops_w transactions_r transactions_w';

let t: TestApp;
before(async () => {
  t = await createTestApp('pglite');
});
after(() => t.close());

const query = (params: Record<string, string>) => new URLSearchParams(params).toString().replaceAll('+', '%20');
const get = (url: string, headers: Record<string, string> = {}) => t.app.inject({ method: 'GET', url, headers });
const postForm = (url: string, form: Record<string, string>, headers: Record<string, string> = {}) => injectForm(t, url, form, headers);

describe('Etsy simulator', () => {
  const authorizeParams = (overrides: Record<string, string> = {}) => ({
    response_type: 'code',
    client_id: ETSY.clientId,
    redirect_uri: t.deps.sandbox.callbackUrl('etsy'),
    scope: 'shops_r listings_r',
    state: 'state-1',
    code_challenge: PKCE_CHALLENGE,
    code_challenge_method: 'S256',
    ...overrides,
  });
  /** Submits the consent form; returns the redirect's query. */
  async function consent(overrides: Record<string, string> = {}, choice: Record<string, string> = {}) {
    const response = await postForm('/sandbox/etsy/authorize', { ...authorizeParams(overrides), decision: 'allow', ...choice });
    assert.equal(response.statusCode, 302, response.body);
    return new URL(response.headers.location as string).searchParams;
  }
  const token = (form: Record<string, string>, headers: Record<string, string> = { 'x-api-key': ETSY_KEY }) =>
    postForm('/sandbox/etsy/v3/public/oauth/token', form, headers);
  const codeGrant = (code: string, extra: Record<string, string> = {}) => ({
    grant_type: 'authorization_code',
    client_id: ETSY.clientId,
    redirect_uri: t.deps.sandbox.callbackUrl('etsy'),
    code,
    code_verifier: PKCE_VERIFIER,
    ...extra,
  });
  /** A whole grant: consent, then the code exchanged; returns the token answer. */
  async function connect(overrides: Record<string, string> = {}, choice: Record<string, string> = {}) {
    const response = await token(codeGrant((await consent(overrides, choice)).get('code')!));
    assert.equal(response.statusCode, 200, response.body);
    return response.json() as { access_token: string; refresh_token: string };
  }
  const me = (accessToken: string, key = ETSY_KEY) =>
    get('/sandbox/etsy/v3/application/users/me', { 'x-api-key': key, authorization: `Bearer ${accessToken}` });

  describe('x-api-key: keystring:shared_secret on every v3 call', () => {
    const SHARED_SECRET_REQUIRED = { error: 'Shared secret is required in x-api-key header.' };
    const INVALID_KEY = { error: "Invalid API key: should be in the format 'keystring:shared_secret'." };

    test("the token endpoint refuses the keystring alone with Etsy's 403 Shared secret is required", async () => {
      const response = await token(codeGrant((await consent()).get('code')!), { 'x-api-key': ETSY.clientId });
      assert.equal(response.statusCode, 403);
      assert.deepEqual(response.json(), SHARED_SECRET_REQUIRED);
    });

    test('the token endpoint refuses a missing or wrong key with the invalid-key 403', async () => {
      const code = (await consent()).get('code')!;
      for (const headers of [{}, { 'x-api-key': `${ETSY.clientId}:wrong` }, { 'x-api-key': `other:${ETSY.sharedSecret}` }] as Array<
        Record<string, string>
      >) {
        const response = await token(codeGrant(code), headers);
        assert.equal(response.statusCode, 403, JSON.stringify(headers));
        assert.deepEqual(response.json(), INVALID_KEY);
      }
    });

    test('a refused key does not spend the code: the same code is then exchanged with the right key', async () => {
      const code = (await consent()).get('code')!;
      assert.equal((await token(codeGrant(code), { 'x-api-key': ETSY.clientId })).statusCode, 403);
      assert.equal((await token(codeGrant(code))).statusCode, 200);
    });

    test('the refresh grant needs the key too', async () => {
      const { refresh_token } = await connect();
      const refresh = { grant_type: 'refresh_token', client_id: ETSY.clientId, refresh_token };
      const refused = await token(refresh, { 'x-api-key': ETSY.clientId });
      assert.deepEqual([refused.statusCode, refused.json()], [403, SHARED_SECRET_REQUIRED]);
      assert.equal((await token(refresh)).statusCode, 200);
    });

    test('users/me and the shop lookup answer the same 403s', async () => {
      const { access_token } = await connect();
      const shop = (key?: string) => get('/sandbox/etsy/v3/application/shops/80000001', key === undefined ? {} : { 'x-api-key': key });
      for (const response of [await me(access_token, ETSY.clientId), await shop(ETSY.clientId)]) {
        assert.deepEqual([response.statusCode, response.json()], [403, SHARED_SECRET_REQUIRED]);
      }
      for (const response of [await me(access_token, 'nope'), await shop()]) {
        assert.deepEqual([response.statusCode, response.json()], [403, INVALID_KEY]);
      }
    });
  });

  describe('the connect page', () => {
    const page = (overrides: Record<string, string>) => get(`/sandbox/etsy/authorize?${query(authorizeParams(overrides))}`);

    test("every scope of Etsy's fixed list is accepted and listed on the consent page", async () => {
      const response = await page({ scope: ETSY_SCOPES });
      assert.equal(response.statusCode, 200);
      for (const scope of ETSY_SCOPES.split(' ')) assert.ok(response.body.includes(`<li>${scope}</li>`), scope);
    });

    test('ASSUMPTION: an empty scope is refused on an error page, not redirected', async () => {
      for (const scope of ['', ' ']) {
        const response = await page({ scope });
        assert.equal(response.statusCode, 400);
        assert.match(response.headers['content-type'] as string, /^text\/html/);
        assert.match(response.body, /scope is required/);
      }
    });

    test('ASSUMPTION: an unknown scope, or scopes joined by commas, are refused on an error page', async () => {
      for (const scope of ['nope_r', 'shops_r nope_r', 'shops_r,listings_r', 'SHOPS_R']) {
        const response = await page({ scope });
        assert.equal(response.statusCode, 400, scope);
        assert.match(response.body, /Unknown scope/, scope);
        assert.equal(response.headers.location, undefined);
      }
    });

    test('a code_challenge that is not 43 base64url characters (RFC 7636 S256) is refused', async () => {
      for (const challenge of [
        'x',
        PKCE_CHALLENGE.slice(1),
        `${PKCE_CHALLENGE}A`,
        `${PKCE_CHALLENGE.slice(0, 42)}=`,
        `${PKCE_CHALLENGE.slice(0, 42)}+`,
      ]) {
        const response = await page({ code_challenge: challenge });
        assert.equal(response.statusCode, 400, challenge);
        assert.match(response.body, /code_challenge/);
      }
    });

    test('the consent form is held to the same rules: a bad scope or challenge posted is refused, never redirected', async () => {
      for (const overrides of [{ scope: 'nope_r' }, { scope: '' }, { code_challenge: 'x' }] as Array<Record<string, string>>) {
        const response = await postForm('/sandbox/etsy/authorize', { ...authorizeParams(overrides), decision: 'allow' });
        assert.equal(response.statusCode, 400, JSON.stringify(overrides));
        assert.equal(response.headers.location, undefined);
      }
    });

    test('the consent page offers an account without a shop, and shops that already sell', async () => {
      const response = await page({});
      assert.match(response.body, /<select id="shop" name="shop"><option value="">[^<]+<\/option>/);
      assert.match(response.body, /<option value="none">The account has no shop \(a buyer account\)<\/option>/);
      assert.match(response.body, /<option value="stocked">The shop already has 6 listings/);
    });

    test('ASSUMPTION (etsy/open-api#234 saw no redirect at all): Deny redirects back with error=access_denied and the state', async () => {
      const response = await postForm('/sandbox/etsy/authorize', { ...authorizeParams(), decision: 'deny' });
      assert.equal(response.statusCode, 302);
      const back = new URL(response.headers.location as string);
      assert.equal(`${back.origin}${back.pathname}`, t.deps.sandbox.callbackUrl('etsy'));
      assert.deepEqual(Object.fromEntries(back.searchParams), {
        state: 'state-1',
        error: 'access_denied',
        error_description: 'The user denied the request.',
      });
    });
  });

  describe('the token endpoint', () => {
    test('a code grant without code_verifier is 400 invalid_request "code_verifier is required", as observed', async () => {
      const grant = codeGrant((await consent()).get('code')!);
      delete (grant as Record<string, string>).code_verifier;
      const response = await token(grant);
      assert.equal(response.statusCode, 400);
      assert.deepEqual(response.json(), { error: 'invalid_request', error_description: 'code_verifier is required' });
    });

    test('a wrong code_verifier stays invalid_grant', async () => {
      const response = await token(codeGrant((await consent()).get('code')!, { code_verifier: `${PKCE_VERIFIER.slice(1)}A` }));
      assert.equal(response.statusCode, 400);
      assert.deepEqual(response.json(), { error: 'invalid_grant', error_description: 'code_verifier is invalid' });
    });

    test('the tokens are <user_id>.<token> and the refresh token rotates', async () => {
      const { access_token, refresh_token } = await connect({}, { account: '12' });
      assert.match(access_token, /^70000012\./);
      const refresh = { grant_type: 'refresh_token', client_id: ETSY.clientId, refresh_token };
      assert.equal((await token(refresh)).statusCode, 200);
      const again = await token(refresh);
      assert.deepEqual([again.statusCode, again.json()], [400, { error: 'invalid_grant', error_description: 'refresh_token is revoked' }]);
    });
  });

  describe('scopes and the account lookup', () => {
    test('users/me answers the user and shop ids to a token granted shops_r', async () => {
      const response = await me((await connect({}, { account: '21' })).access_token);
      assert.equal(response.statusCode, 200);
      assert.deepEqual(response.json(), { user_id: 70000021, shop_id: 80000021 });
    });

    test('ASSUMPTION (the status and description): users/me refuses a token without shops_r with a 403 insufficient_scope naming it', async () => {
      const response = await me((await connect({ scope: 'listings_r listings_w' })).access_token);
      assert.equal(response.statusCode, 403);
      assert.deepEqual(response.json(), { error: 'insufficient_scope', error_description: 'Insufficient scope: shops_r is required' });
    });

    test('a refreshed token keeps the scopes of the original grant', async () => {
      const { refresh_token } = await connect({ scope: 'listings_r' });
      const refreshed = await token({ grant_type: 'refresh_token', client_id: ETSY.clientId, refresh_token });
      assert.equal((await me(refreshed.json().access_token)).statusCode, 403);
    });

    test('a bearer whose user_id prefix is not its own is refused as invalid_token', async () => {
      const { access_token } = await connect({}, { account: '22' });
      const response = await me(access_token.replace(/^70000022\./, '70000023.'));
      assert.deepEqual(
        [response.statusCode, response.json()],
        [401, { error: 'invalid_token', error_description: 'access token is expired' }],
      );
    });

    test("the shop lookup is public, as Etsy's OpenAPI document gives getShop no OAuth scope: the key alone is enough", async () => {
      const response = await get('/sandbox/etsy/v3/application/shops/80000021', { 'x-api-key': ETSY_KEY });
      assert.equal(response.statusCode, 200);
      assert.deepEqual(response.json(), {
        shop_id: 80000021,
        shop_name: 'Sandbox Etsy Shop 21',
        user_id: 70000021,
        currency_code: 'USD',
        shop_location_country_iso: 'US',
        shipping_from_country_iso: 'US',
      });
      for (const id of ['80000000', '81000000', 'abc', '1']) {
        const missing = await get(`/sandbox/etsy/v3/application/shops/${id}`, { 'x-api-key': ETSY_KEY });
        assert.deepEqual([missing.statusCode, missing.json()], [404, { error: 'Shop not found' }], id);
      }
    });
  });

  describe('an account without a shop', () => {
    test('shop=none on the consent form gives a users/me answer with the user_id and no shop_id', async () => {
      const response = await me((await connect({}, { account: '31', shop: 'none' })).access_token);
      assert.equal(response.statusCode, 200);
      assert.deepEqual(response.json(), { user_id: 70000031 });
    });

    test('the account keeps no shop across a refresh', async () => {
      const { refresh_token } = await connect({}, { account: '32', shop: 'none' });
      const refreshed = await token({ grant_type: 'refresh_token', client_id: ETSY.clientId, refresh_token });
      assert.deepEqual((await me(refreshed.json().access_token)).json(), { user_id: 70000032 });
    });

    test('an empty shop field is an account with a shop; a value not offered is refused on the error page', async () => {
      assert.deepEqual((await me((await connect({}, { account: '33', shop: '' })).access_token)).json(), {
        user_id: 70000033,
        shop_id: 80000033,
      });
      const response = await postForm('/sandbox/etsy/authorize', { ...authorizeParams(), decision: 'allow', shop: 'yes' });
      assert.equal(response.statusCode, 400);
      assert.match(response.body, /shop must be one of none, empty, empty-eu, stocked, stocked-large or left out/);
    });
  });
});

test('the simulator counts its calls under the names other tests read', async () => {
  const calls = t.deps.sandbox.calls;
  for (const name of ['etsy:authorize', 'etsy:consent', 'etsy:token', 'etsy:identity', 'etsy:shop']) {
    assert.ok((calls.get(name) ?? 0) > 0, name);
  }
});
