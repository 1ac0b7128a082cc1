/**
 * Issue 11, item 6: the Etsy and TikTok Shop simulators hold every request to the platform's own rules and answer
 * with the platform's documented codes and bodies. Driven over HTTP through the real app, as a platform client would
 * call them, with no adapter code: a simulator that only accepted what Storelink's adapters send would prove nothing.
 * Titles name every behaviour the platforms do not document as an ASSUMPTION.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { SANDBOX_CLIENTS } from '../../../src/sandbox/context.js';
import { expectedSign } from '../../../src/sandbox/tiktok-shop/signature.js';
import { createTestApp, injectForm, type TestApp } from '../../helpers/test-app.js';

const DAY_MS = 24 * 3600_000;
const ETSY = SANDBOX_CLIENTS.etsy;
const TIKTOK = SANDBOX_CLIENTS.tiktokShop;
const ETSY_KEY = `${ETSY.clientId}:${ETSY.sharedSecret}`;
const VERIFIER = 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk';
const CHALLENGE = createHash('sha256').update(VERIFIER).digest('base64url');
const SHOPS_PATH = '/authorization/202309/shops';
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
    code_challenge: CHALLENGE,
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
    code_verifier: VERIFIER,
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
      for (const challenge of ['x', CHALLENGE.slice(1), `${CHALLENGE}A`, `${CHALLENGE.slice(0, 42)}=`, `${CHALLENGE.slice(0, 42)}+`]) {
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
      const response = await token(codeGrant((await consent()).get('code')!, { code_verifier: `${VERIFIER.slice(1)}A` }));
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
      assert.deepEqual(response.json(), { shop_id: 80000021, shop_name: 'Sandbox Etsy Shop 21', user_id: 70000021 });
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
      assert.match(response.body, /shop must be one of none, stocked, stocked-large or left out/);
    });
  });
});

describe('TikTok Shop simulator', () => {
  /** Submits the consent form; returns the auth code. */
  async function authCode(choice: Record<string, string> = {}) {
    const response = await postForm('/sandbox/tiktok-shop/authorize', {
      service_id: TIKTOK.serviceId,
      state: 's',
      decision: 'allow',
      ...choice,
    });
    assert.equal(response.statusCode, 302, response.body);
    return new URL(response.headers.location as string).searchParams.get('code')!;
  }
  const tokenCall = (path: 'get' | 'refresh', params: Record<string, string>) =>
    get(`/sandbox/tiktok-shop/api/v2/token/${path}?${query({ app_key: TIKTOK.appKey, app_secret: TIKTOK.appSecret, ...params })}`);
  async function grant(choice: Record<string, string> = {}) {
    const response = await tokenCall('get', { auth_code: await authCode(choice), grant_type: 'authorized_code' });
    assert.equal(response.json().code, 0, response.body);
    return response.json().data as { access_token: string; refresh_token: string };
  }
  const refresh = (refreshToken: string) => tokenCall('refresh', { refresh_token: refreshToken, grant_type: 'refresh_token' });

  /**
   * Get Authorized Shops as a client signs it: the query (app_key and the current timestamp unless given), signed with
   * the sandbox's own signer over `path` unless `sign` is given, the token header and `content-type: application/json`.
   */
  function shops(
    accessToken: string,
    options: { params?: Record<string, string>; sign?: string | null; path?: string; headers?: Record<string, string> } = {},
  ) {
    const params = { app_key: TIKTOK.appKey, timestamp: String(Math.floor(t.clock.now().getTime() / 1000)), ...options.params };
    const rawQuery = query(params);
    const sign =
      options.sign === undefined
        ? expectedSign({ path: options.path ?? SHOPS_PATH, rawQuery, body: '', contentType: 'application/json' }, TIKTOK.appSecret)
        : options.sign;
    const url = `/sandbox/tiktok-shop${SHOPS_PATH}?${rawQuery}${sign === null ? '' : `&sign=${sign}`}`;
    return get(url, { 'x-tts-access-token': accessToken, 'content-type': 'application/json', ...options.headers });
  }
  /** Asserts TikTok's error envelope: HTTP 200, the code, the message, no data. */
  function assertError(response: Awaited<ReturnType<typeof get>>, code: number, message: string | RegExp) {
    assert.equal(response.statusCode, 200);
    const body = response.json();
    assert.equal(body.code, code, response.body);
    if (typeof message === 'string') assert.equal(body.message, message);
    else assert.match(body.message, message);
    assert.match(body.request_id, /^\d{14}[0-9A-F]{20}$/);
  }

  describe('the token calls (TikTok documents no codes for them)', () => {
    test('a wrong app_key or app_secret is 36009004 Invalid credentials', async () => {
      const code = await authCode();
      for (const params of [{ app_key: 'other' }, { app_secret: 'other' }] as Array<Record<string, string>>) {
        assertError(
          await tokenCall('get', { auth_code: code, grant_type: 'authorized_code', ...params }),
          36009004,
          /^Invalid credentials\./,
        );
      }
    });

    test('a grant_type other than the call takes is 36009004 (a chosen code, in the documented parameter-error family)', async () => {
      assertError(
        await tokenCall('get', { auth_code: await authCode(), grant_type: 'authorization_code' }),
        36009004,
        'Invalid parameter. The `grant_type` query parameter must be `authorized_code`.',
      );
      const { refresh_token } = await grant();
      assertError(
        await tokenCall('refresh', { refresh_token, grant_type: 'authorized_code' }),
        36009004,
        'Invalid parameter. The `grant_type` query parameter must be `refresh_token`.',
      );
    });

    test('an unknown, used or rejected auth code is the observed 36004005 can not find related auth record', async () => {
      const code = await authCode();
      const exchange = (authCode: string) => tokenCall('get', { auth_code: authCode, grant_type: 'authorized_code' });
      assert.equal((await exchange(code)).json().code, 0);
      for (const refused of [code, 'not-a-code', await authCode({ decision: 'fail' })]) {
        assertError(await exchange(refused), 36004005, 'can not find related auth record');
      }
    });

    test('an unknown or revoked refresh token is 36004005, an expired one the observed 36004001 rt has expired', async () => {
      assertError(await refresh('TTP_unknown'), 36004005, 'can not find related auth record');
      const { refresh_token } = await grant({ account: '41' });
      t.clock.advance(366 * DAY_MS);
      try {
        assertError(await refresh(refresh_token), 36004001, 'rt has expired');
      } finally {
        t.clock.advance(-366 * DAY_MS);
      }
      const revoked = await t.app.inject({ method: 'POST', url: '/sandbox/revoke', payload: { track: 'tiktok-shop', account: 41 } });
      assert.equal(revoked.statusCode, 204);
      assertError(await refresh(refresh_token), 36004005, 'can not find related auth record');
    });
  });

  describe('Get Authorized Shops', () => {
    let accessToken: string;
    before(async () => {
      accessToken = (await grant({ account: '51' })).access_token;
    });

    test('a request signed as documented is answered with the shop', async () => {
      const response = await shops(accessToken);
      assert.equal(response.statusCode, 200);
      assert.deepEqual(response.json().data.shops.length, 1);
      assert.equal(response.json().code, 0);
    });

    test('shop_cipher is refused with the documented 36009004 Unexpected identifier', async () => {
      assertError(
        await shops(accessToken, { params: { shop_cipher: 'GCP_SANDBOX000051' } }),
        36009004,
        'Unexpected identifier. The `shop_cipher` query parameter is not required for this request.',
      );
    });

    test('ASSUMPTION (the wording): access_token or another parameter in the query is refused with 36009004', async () => {
      for (const name of ['access_token', 'page_size']) {
        assertError(
          await shops(accessToken, { params: { [name]: 'x' } }),
          36009004,
          `Unexpected parameter. The \`${name}\` query parameter is not required for this request.`,
        );
      }
    });

    test('a wrong app_key is 36009004 and a missing sign 36009004 Missing credentials, as documented', async () => {
      assertError(
        await shops(accessToken, { params: { app_key: 'other' } }),
        36009004,
        'Invalid credentials. Invalid `app_key` query parameter.',
      );
      assertError(
        await shops(accessToken, { sign: null }),
        36009004,
        'Missing credentials. The request does not include a required signature in the query.',
      );
    });

    test('a wrong sign, or one computed without the path, is 106001 as documented', async () => {
      const invalid = 'Invalid credentials. The `sign` query parameter is invalid.';
      assertError(await shops(accessToken, { sign: '0'.repeat(64) }), 106001, invalid);
      assertError(await shops(accessToken, { path: '' }), 106001, invalid);
    });

    test('a timestamp outside now − 5 min … now + 30 s is 36009004 with the documented messages', async () => {
      const nowS = Math.floor(t.clock.now().getTime() / 1000);
      assertError(
        await shops(accessToken, { params: { timestamp: String(nowS - 301) } }),
        36009004,
        'Invalid timestamp. The value of the `timestamp` query parameter must not be earlier than 5 minutes before the current time.',
      );
      assertError(
        await shops(accessToken, { params: { timestamp: String(nowS + 31) } }),
        36009004,
        'Invalid timestamp. The value of the `timestamp` query parameter must not exceed the current time by more than 30 seconds.',
      );
      assert.equal((await shops(accessToken, { params: { timestamp: String(nowS - 299) } })).json().code, 0);
      assert.equal((await shops(accessToken, { params: { timestamp: String(nowS + 29) } })).json().code, 0);
    });

    test('a negative timestamp is 36009004 as documented; ASSUMPTION (the wording): so is one that is not 10 digits', async () => {
      assertError(
        await shops(accessToken, { params: { timestamp: '-1' } }),
        36009004,
        'Invalid timestamp. The value of the `timestamp` query parameter must not be lesser than 0.',
      );
      const nowMs = String(t.clock.now().getTime());
      for (const params of [{ timestamp: nowMs }, { timestamp: 'soon' }]) {
        assertError(
          await shops(accessToken, { params }),
          36009004,
          'Invalid timestamp. The `timestamp` query parameter must be a 10-digit Unix timestamp.',
        );
      }
    });

    test('ASSUMPTION (the answer): a request without content-type: application/json is refused with 36009004 naming the header', async () => {
      const message = 'Invalid request header. The `content-type` header is required and must be `application/json`.';
      const withoutType = await t.app.inject({
        method: 'GET',
        url: `/sandbox/tiktok-shop${SHOPS_PATH}?${await shopsQuery()}`,
        headers: { 'x-tts-access-token': accessToken },
      });
      assertError(withoutType, 36009004, message);
      assertError(await shops(accessToken, { headers: { 'content-type': 'text/plain' } }), 36009004, message);
      assert.equal((await shops(accessToken, { headers: { 'content-type': 'application/json; charset=utf-8' } })).json().code, 0);
    });

    test('a forged or missing access token is 36009004, an expired one 105002, as documented', async () => {
      const invalid = 'Invalid credentials. The `x-tts-access-token` header is invalid.';
      assertError(await shops('TTP_forged'), 36009004, invalid);
      assertError(await shops(`${accessToken.slice(0, 8)}${accessToken[8] === 'A' ? 'B' : 'A'}${accessToken.slice(9)}`), 36009004, invalid);
      assertError(await shops(''), 36009004, invalid);
      t.clock.advance(8 * DAY_MS);
      try {
        assertError(
          await shops(accessToken),
          105002,
          'Expired credentials. The `access_token` or `x-tts-access-token` header has expired.',
        );
      } finally {
        t.clock.advance(-8 * DAY_MS);
      }
    });

    /** A signed query for now, as a client would send it. */
    async function shopsQuery() {
      const rawQuery = query({ app_key: TIKTOK.appKey, timestamp: String(Math.floor(t.clock.now().getTime() / 1000)) });
      return `${rawQuery}&sign=${expectedSign({ path: SHOPS_PATH, rawQuery, body: '', contentType: undefined }, TIKTOK.appSecret)}`;
    }
  });

  describe('several shops per authorization', () => {
    const shopsOf = async (choice: Record<string, string>) => {
      const response = await shops((await grant(choice)).access_token);
      assert.equal(response.json().code, 0, response.body);
      return response.json().data.shops as Array<Record<string, string>>;
    };

    test('one shop by default: a local seller, named as before', async () => {
      assert.deepEqual(await shopsOf({ account: '61' }), [
        {
          id: '7000714532000061',
          name: 'Sandbox TikTok Shop 61',
          region: 'GB',
          seller_type: 'LOCAL',
          cipher: 'GCP_SANDBOX000061',
          code: 'GBSBX000061',
        },
      ]);
    });

    test('shops=3 answers three cross-border shops in three countries, each with its documented fields', async () => {
      const list = await shopsOf({ account: '62', shops: '3' });
      assert.equal(list.length, 3);
      assert.deepEqual(
        list.map((shop) => shop.name),
        ['Sandbox TikTok Shop 62', 'Sandbox TikTok Shop 62-2', 'Sandbox TikTok Shop 62-3'],
      );
      for (const shop of list) {
        assert.deepEqual(Object.keys(shop).sort(), ['cipher', 'code', 'id', 'name', 'region', 'seller_type']);
        assert.match(shop.id!, /^[1-9][0-9]{15,18}$/);
        assert.match(shop.cipher!, /^GCP_[A-Z0-9]+$/);
        assert.match(shop.region!, /^[A-Z]{2}$/);
        assert.match(shop.code!, /^[A-Z0-9]{6,14}$/);
        assert.equal(shop.seller_type, 'CROSS_BORDER');
      }
      for (const field of ['id', 'cipher', 'code', 'region']) assert.equal(new Set(list.map((shop) => shop[field])).size, 3, field);
    });

    test('shop ids and ciphers are stable for an account and distinct between accounts', async () => {
      const first = await shopsOf({ account: '63', shops: '5' });
      const again = await shopsOf({ account: '63', shops: '2' });
      const other = await shopsOf({ account: '64', shops: '5' });
      assert.deepEqual(
        again,
        first.slice(0, 2).map((shop) => ({ ...shop, seller_type: 'CROSS_BORDER' })),
      );
      const ids = new Set([...first, ...other].map((shop) => shop.id));
      const ciphers = new Set([...first, ...other].map((shop) => shop.cipher));
      assert.deepEqual([ids.size, ciphers.size], [10, 10]);
    });

    test('a refreshed token still covers every shop', async () => {
      const { refresh_token } = await grant({ account: '65', shops: '4' });
      const refreshed = await refresh(refresh_token);
      assert.equal((await shops(refreshed.json().data.access_token)).json().data.shops.length, 4);
    });

    test('shops outside 1 to 5 are refused on the error page; the consent page offers 1 to 5', async () => {
      for (const count of ['0', '6', 'x', '1.5', '-1']) {
        const response = await postForm('/sandbox/tiktok-shop/authorize', {
          service_id: TIKTOK.serviceId,
          decision: 'allow',
          shops: count,
        });
        assert.equal(response.statusCode, 400, count);
        assert.equal(response.headers.location, undefined);
      }
      const page = await get(`/sandbox/tiktok-shop/authorize?service_id=${TIKTOK.serviceId}&shops=3`);
      assert.equal(page.statusCode, 200);
      const options = [...page.body.matchAll(/<option value="(\d)">/g)].map((match) => match[1]);
      assert.deepEqual(options, ['1', '2', '3', '4', '5']);
      assert.doesNotMatch(page.body, /type="hidden" name="shops"/, 'a shops parameter in the link is not copied into the form');
    });
  });

  test('every error code the simulator can answer is one TikTok documents or was observed', async () => {
    const { ERRORS } = await import('../../../src/sandbox/tiktok-shop/errors.js');
    const documented = new Set([36004005, 36004001, 36009002, 36009003, 36009004, 36009007, 105002, 106001]);
    for (const [name, entry] of Object.entries(ERRORS)) {
      const [code] = typeof entry === 'function' ? entry('x') : entry;
      assert.ok(documented.has(code), `${name}: ${code}`);
    }
  });
});

test('the simulators count their calls under the names other tests read', async () => {
  const calls = t.deps.sandbox.calls;
  for (const name of [
    'etsy:authorize',
    'etsy:consent',
    'etsy:token',
    'etsy:identity',
    'etsy:shop',
    'tiktok-shop:consent',
    'tiktok-shop:token',
    'tiktok-shop:refresh',
    'tiktok-shop:identity',
  ]) {
    assert.ok((calls.get(name) ?? 0) > 0, name);
  }
});
