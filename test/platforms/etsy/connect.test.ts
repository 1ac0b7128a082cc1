import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createEtsyConnectAdapter, type EtsyConfig } from '../../../src/platforms/etsy/connect.js';
import { apiHeaders, buildCodeGrant, buildConnectUrl, buildRefreshGrant } from '../../../src/platforms/etsy/requests.js';
import { parseMe, parseShop, parseTokenResponse, readCallback } from '../../../src/platforms/etsy/responses.js';

const NO_REGION = { region: null };

import { createManualClock } from '../../helpers/clock.js';
import { fakeHttp, rejects } from '../../helpers/platform-http.js';

const NOW = new Date('2026-06-01T12:00:00Z');
const CONNECT = 'https://www.etsy.com/oauth/connect';
const CALLBACK = 'https://storelink.example/api/v1/oauth/callback/etsy';
const CONFIG: EtsyConfig = {
  clientId: '1aa2bb33c44d55eeeeee6fff',
  sharedSecret: 'shh',
  scopes: ['shops_r', 'listings_r'],
  connectUrl: CONNECT,
  apiUrl: 'https://api.etsy.com',
  webhookSecret: null,
};

/** The documented answers (platforms.md §1.4, §1.5). */
const TOKEN_ANSWER = {
  access_token: '12345678.O1zLuwveeKjpIqCQFfmR-PaMMpBmagH6DljRAkK9qt05OtRKiANJOyZlMx3WQ_o2FdComQGuoiAWy3dxyGI4Ke_76PR',
  token_type: 'Bearer',
  expires_in: 3600,
  refresh_token: '12345678.JNGIJtvLmwfDMhlYoOJl8aLR1BWottyHC6yhNcET-eC7RogSR5e1GTIXGrgrelWZalvh3YvvyLfKYYqvymd-u37Sjtx',
};
const ME_ANSWER = { user_id: 456789, shop_id: 123456 };
const SHOP_ANSWER = { shop_id: 123456, shop_name: 'Maomao Prints', user_id: 456789, currency_code: 'EUR', is_vacation: false };

describe('Etsy authorization URL', () => {
  test('the connect URL carries the keystring, the space-separated scopes, state and an S256 challenge', () => {
    const url = buildConnectUrl({
      connectUrl: CONNECT,
      clientId: CONFIG.clientId,
      redirectUri: CALLBACK,
      scopes: ['transactions_r', 'transactions_w'],
      state: 'superstate',
      codeChallenge: 'DSWlW2Abh-cf8CeLL8-g3hQ2WQyYdKyiu83u_s7nRhI',
    });
    const parsed = new URL(url);
    assert.equal(parsed.origin + parsed.pathname, CONNECT);
    assert.deepEqual(Object.fromEntries(parsed.searchParams), {
      response_type: 'code',
      client_id: CONFIG.clientId,
      redirect_uri: CALLBACK,
      scope: 'transactions_r transactions_w',
      state: 'superstate',
      code_challenge: 'DSWlW2Abh-cf8CeLL8-g3hQ2WQyYdKyiu83u_s7nRhI',
      code_challenge_method: 'S256',
    });
  });

  test("spaces in the scope are sent as %20, as in Etsy's own example, never as +", () => {
    const url = buildConnectUrl({
      connectUrl: CONNECT,
      clientId: 'k',
      redirectUri: CALLBACK,
      scopes: ['shops_r', 'listings_r'],
      state: 's',
      codeChallenge: 'c',
    });
    assert.match(url, /&scope=shops_r%20listings_r&/);
    assert.doesNotMatch(url, /\+/);
  });

  test("the adapter takes PKCE and passes the state's challenge and the callback through", () => {
    const adapter = createEtsyConnectAdapter(CONFIG, { http: fakeHttp().http, clock: createManualClock(NOW) });
    const url = new URL(
      adapter.buildAuthorizationUrl({
        state: 's',
        redirectUri: CALLBACK,
        codeChallenge: 'challenge',
        authorizationUrl: null,
        grant: NO_REGION,
      }),
    );
    assert.equal(adapter.usesPkce, true);
    assert.equal(adapter.platformId, 1);
    assert.equal(url.searchParams.get('code_challenge'), 'challenge');
    assert.equal(url.searchParams.get('redirect_uri'), CALLBACK);
    assert.equal(url.searchParams.get('scope'), 'shops_r listings_r');
  });
});

describe('Etsy callback', () => {
  test('a code is a grant', () => {
    assert.deepEqual(readCallback({ code: 'abc', state: 's' }), { kind: 'code', code: 'abc', params: {} });
  });

  test('error=access_denied is a refusal', () => {
    assert.deepEqual(readCallback({ state: 's', error: 'access_denied', error_description: 'The user denied the request' }), {
      kind: 'denied',
      message: 'Access denied',
    });
  });

  test('another error carries its description, or its code when it has none', () => {
    assert.deepEqual(readCallback({ error: 'invalid_request', error_description: 'Missing code_challenge' }), {
      kind: 'error',
      message: 'Missing code_challenge',
    });
    assert.deepEqual(readCallback({ error: 'server_error' }), { kind: 'error', message: 'server_error' });
  });

  test('no code at all is a failure', () => {
    assert.deepEqual(readCallback({ state: 's' }), { kind: 'error', message: 'The platform sent no authorization code' });
    assert.equal(readCallback({ code: '' }).kind, 'error');
  });
});

describe('Etsy token requests', () => {
  test('the code grant sends the verifier and the callback, and no secret', () => {
    assert.deepEqual(buildCodeGrant({ clientId: 'k', redirectUri: CALLBACK, code: 'c', codeVerifier: 'v' }), {
      grant_type: 'authorization_code',
      client_id: 'k',
      redirect_uri: CALLBACK,
      code: 'c',
      code_verifier: 'v',
    });
  });

  test('the refresh grant sends the keystring and the refresh token', () => {
    assert.deepEqual(buildRefreshGrant({ clientId: 'k', refreshToken: 'r' }), {
      grant_type: 'refresh_token',
      client_id: 'k',
      refresh_token: 'r',
    });
  });

  test('API calls carry keystring:shared_secret in x-api-key and the bearer', () => {
    assert.deepEqual(apiHeaders({ clientId: 'k', sharedSecret: 's', accessToken: '1.a' }), {
      'x-api-key': 'k:s',
      authorization: 'Bearer 1.a',
    });
  });
});

describe('Etsy token answer', () => {
  test('the access token lives expires_in seconds and the refresh token 90 days', () => {
    assert.deepEqual(parseTokenResponse(200, TOKEN_ANSWER, NOW), {
      accessToken: TOKEN_ANSWER.access_token,
      refreshToken: TOKEN_ANSWER.refresh_token,
      accessExpiresAt: new Date('2026-06-01T13:00:00Z'),
      refreshExpiresAt: new Date('2026-08-30T12:00:00Z'),
    });
  });

  test('an answer without expires_in or refresh_token still gives the access token', () => {
    const tokens = parseTokenResponse(200, { access_token: '1.a', token_type: 'Bearer' }, NOW);
    assert.equal(tokens.accessToken, '1.a');
    assert.equal(tokens.accessExpiresAt, null);
    assert.equal(tokens.refreshToken, null);
  });

  test("invalid_grant is the seller's: Invalid credentials", () => {
    const used = { error: 'invalid_grant', error_description: 'code has been used previously' };
    assert.throws(() => parseTokenResponse(400, used, NOW), rejects('rejected', 'Invalid credentials'));
    assert.throws(
      () => parseTokenResponse(400, { error: 'invalid_grant', error_description: 'refresh_token is revoked' }, NOW),
      rejects('rejected', 'Invalid credentials'),
    );
  });

  test("a refused key or client is the operator's, with Etsy's words, never the seller's", () => {
    assert.throws(
      () => parseTokenResponse(403, { error: 'Shared secret is required in x-api-key header.' }, NOW),
      rejects('misconfigured', "Etsy refused Storelink's app (HTTP 403, Shared secret is required in x-api-key header.)"),
    );
    assert.throws(
      () => parseTokenResponse(401, { error: 'invalid_client', error_description: 'client_id is invalid' }, NOW),
      rejects('misconfigured', "Etsy refused Storelink's app (HTTP 401, invalid_client: client_id is invalid)"),
    );
    assert.throws(() => parseTokenResponse(401, { error: 'something_else', error_description: 'No' }, NOW), rejects('misconfigured'));
    // A malformed request is Storelink's, not the seller's: the site must not be asked to reconnect for it.
    assert.throws(
      () => parseTokenResponse(400, { error: 'invalid_request', error_description: 'code_verifier is required' }, NOW),
      rejects('misconfigured'),
    );
    assert.throws(() => parseTokenResponse(400, 'Bad Request', NOW), rejects('misconfigured', "Etsy refused Storelink's app (HTTP 400)"));
    assert.throws(() => parseTokenResponse(200, { error: 'invalid_request', error_description: 'Nope' }, NOW), rejects('misconfigured'));
  });

  test('server_error and temporarily_unavailable are passing, whatever the status', () => {
    assert.throws(() => parseTokenResponse(400, { error: 'temporarily_unavailable' }, NOW), rejects('unavailable'));
    assert.throws(() => parseTokenResponse(400, { error: 'server_error' }, NOW), rejects('unavailable'));
  });

  test('a 5xx or throttling is unavailable, never a refused grant', () => {
    assert.throws(
      () => parseTokenResponse(500, { error: 'Server Error' }, NOW),
      rejects('unavailable', 'Etsy could not complete the request'),
    );
    assert.throws(() => parseTokenResponse(503, {}, NOW), rejects('unavailable'));
    assert.throws(() => parseTokenResponse(429, { error: 'invalid_grant' }, NOW), rejects('unavailable'));
  });

  test('a 200 without a usable access token is unavailable', () => {
    for (const body of [
      { token_type: 'Bearer', expires_in: 3600 },
      { ...TOKEN_ANSWER, access_token: '' },
      { ...TOKEN_ANSWER, access_token: 42 },
      [TOKEN_ANSWER],
      null,
    ]) {
      assert.throws(
        () => parseTokenResponse(200, body, NOW),
        rejects('unavailable', 'Etsy answered without an access token'),
        JSON.stringify(body),
      );
    }
  });
});

describe('Etsy identity answers', () => {
  test('users/me gives the user id and the shop id as strings', () => {
    assert.deepEqual(parseMe(200, ME_ANSWER), { userId: '456789', shopId: '123456' });
  });

  test('a user without a shop is a clear refusal, not an unreachable platform', () => {
    const noShop = 'This Etsy account has no shop. Open a shop on Etsy, then connect again.';
    assert.throws(() => parseMe(200, { user_id: 456789 }), rejects('rejected', noShop));
    assert.throws(() => parseMe(200, { user_id: 456789, shop_id: null }), rejects('rejected', noShop));
    assert.throws(() => parseMe(200, { shop_id: 1 }), rejects('unavailable'));
  });

  test("a refused key is the operator's, a refused token the seller's, a 5xx passing", () => {
    assert.throws(
      () => parseMe(403, { error: 'Shared secret is required in x-api-key header.' }),
      rejects('misconfigured', "Etsy refused Storelink's app (HTTP 403, Shared secret is required in x-api-key header.)"),
    );
    assert.throws(
      () => parseMe(401, { error: 'invalid_token', error_description: 'access token is expired' }),
      rejects('rejected', 'invalid_token'),
    );
    assert.throws(() => parseMe(404, 'Not Found'), rejects('rejected', 'Etsy refused the account lookup'));
    assert.throws(() => parseMe(500, { error: 'Server Error' }), rejects('unavailable', 'Etsy could not complete the request'));
  });

  test('the shop answer gives its name, the currency it sells in (its currency_code) and where it is', () => {
    assert.deepEqual(parseShop(200, SHOP_ANSWER), { name: 'Maomao Prints', currency: 'EUR', country: null });
    const { currency_code: _, ...unsaid } = SHOP_ANSWER;
    assert.deepEqual(parseShop(200, unsaid), { name: 'Maomao Prints', currency: null, country: null });
    // `shop_location_country_iso` (Etsy's Shop): an EU shop is asked for no return policy (listings.md §1.4).
    assert.equal(parseShop(200, { ...SHOP_ANSWER, shop_location_country_iso: 'DE' }).country, 'DE');
    assert.equal(parseShop(200, { ...SHOP_ANSWER, shop_location_country_iso: null }).country, null);
    assert.equal(parseShop(200, { ...SHOP_ANSWER, shop_location_country_iso: 'Germany' }).country, null, 'not an ISO code');
  });

  test('a shop answer without a name is unavailable; a refused one is rejected', () => {
    assert.throws(() => parseShop(200, { shop_id: 123456 }), rejects('unavailable', 'Etsy answered the shop lookup without a name'));
    assert.throws(() => parseShop(404, { error: 'Shop not found' }), rejects('rejected', 'Shop not found'));
    assert.throws(() => parseShop(404, {}), rejects('rejected', 'Etsy refused the shop lookup'));
    assert.throws(() => parseShop(502, {}), rejects('unavailable', 'Etsy could not complete the request'));
  });
});

describe('Etsy adapter I/O', () => {
  test('exchangeCode makes one form POST to the token endpoint and reads its answer', async () => {
    const { http, sent } = fakeHttp({ status: 200, body: TOKEN_ANSWER });
    const adapter = createEtsyConnectAdapter(CONFIG, { http, clock: createManualClock(NOW) });
    const tokens = await adapter.exchangeCode({ code: 'c', redirectUri: CALLBACK, codeVerifier: 'v', params: {}, grant: NO_REGION });
    assert.deepEqual(sent, [
      {
        url: 'https://api.etsy.com/v3/public/oauth/token',
        init: {
          method: 'POST',
          form: { grant_type: 'authorization_code', client_id: CONFIG.clientId, redirect_uri: CALLBACK, code: 'c', code_verifier: 'v' },
          // Etsy wants the key and shared secret on every v3 call, the token endpoint's included.
          headers: { 'x-api-key': `${CONFIG.clientId}:shh` },
        },
      },
    ]);
    assert.deepEqual(tokens.accessExpiresAt, new Date('2026-06-01T13:00:00Z'));
  });

  test('refreshToken posts the refresh grant and keeps the rotated refresh token', async () => {
    const { http, sent } = fakeHttp({ status: 200, body: { ...TOKEN_ANSWER, refresh_token: '12345678.rotated' } });
    const adapter = createEtsyConnectAdapter(CONFIG, { http, clock: createManualClock(NOW) });
    assert.equal((await adapter.refreshToken('12345678.old')).refreshToken, '12345678.rotated');
    assert.deepEqual(sent[0]!.init.form, { grant_type: 'refresh_token', client_id: CONFIG.clientId, refresh_token: '12345678.old' });
  });

  test("fetchAccounts keeps the shop's country where Etsy says it", async () => {
    const { http } = fakeHttp({ status: 200, body: ME_ANSWER }, { status: 200, body: { ...SHOP_ANSWER, shop_location_country_iso: 'FR' } });
    const adapter = createEtsyConnectAdapter(CONFIG, { http, clock: createManualClock(NOW) });
    const tokens = { accessToken: '456789.a', refreshToken: null, accessExpiresAt: null, refreshExpiresAt: null };
    assert.deepEqual((await adapter.fetchAccounts(tokens))[0]!.data, { user_id: '456789', country: 'FR' });
  });

  test('fetchAccounts reads users/me, then the shop, with the API key and the bearer', async () => {
    const { http, sent } = fakeHttp({ status: 200, body: ME_ANSWER }, { status: 200, body: SHOP_ANSWER });
    const adapter = createEtsyConnectAdapter(CONFIG, { http, clock: createManualClock(NOW) });
    const tokens = { accessToken: '456789.a', refreshToken: null, accessExpiresAt: null, refreshExpiresAt: null };
    assert.deepEqual(await adapter.fetchAccounts(tokens), [
      { externalId: '123456', name: 'Maomao Prints', currency: 'EUR', data: { user_id: '456789' } },
    ]);
    const headers = { 'x-api-key': `${CONFIG.clientId}:shh`, authorization: 'Bearer 456789.a' };
    assert.deepEqual(sent, [
      { url: 'https://api.etsy.com/v3/application/users/me', init: { method: 'GET', headers } },
      { url: 'https://api.etsy.com/v3/application/shops/123456', init: { method: 'GET', headers } },
    ]);
  });
});
