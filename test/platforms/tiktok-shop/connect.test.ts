import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { describe, test } from 'node:test';
import { PlatformError } from '../../../src/platforms/contracts/errors.js';
import type { PlatformHttp } from '../../../src/platforms/http.js';
import { createTikTokShopConnectAdapter } from '../../../src/platforms/tiktok-shop/connect.js';
import {
  buildAuthorizeUrl,
  buildShopsRequest,
  buildTokenGetUrl,
  buildTokenRefreshUrl,
  signRequest,
} from '../../../src/platforms/tiktok-shop/requests.js';
import { parseShopsResponse, parseTokenResponse, readCallback } from '../../../src/platforms/tiktok-shop/responses.js';
import { createManualClock } from '../../helpers/clock.js';

const AUTHORIZE = 'https://services.tiktokshop.com/open/authorize';
const rejected = (message: string) => (error: unknown) =>
  error instanceof PlatformError && error.reason === 'rejected' && error.message === message;
const unavailable = (error: unknown) => error instanceof PlatformError && error.reason === 'unavailable';
const misconfigured = (error: unknown) => error instanceof PlatformError && error.reason === 'misconfigured';

describe('TikTok Shop authorization URL', () => {
  test('without a caller URL it is the authorize page with service_id and state, and nothing else', () => {
    assert.equal(
      buildAuthorizeUrl({ authorizeUrl: AUTHORIZE, serviceId: '7123', authorizationUrl: null, state: 'eyJ.a-b_c.d' }),
      `${AUTHORIZE}?service_id=7123&state=eyJ.a-b_c.d`,
    );
  });

  test("a caller's URL is used as given, with its state replaced and its other parameters untouched", () => {
    const caller = 'https://services.tiktokshops.us/open/authorize?service_id=999&state=old&note=a%20b+c#frag';
    assert.equal(
      buildAuthorizeUrl({ authorizeUrl: AUTHORIZE, serviceId: '7123', authorizationUrl: caller, state: 'new' }),
      'https://services.tiktokshops.us/open/authorize?service_id=999&note=a%20b+c&state=new#frag',
    );
  });

  test('the adapter sends no redirect_uri, scope or PKCE parameters', () => {
    const adapter = createTikTokShopConnectAdapter(
      {
        appKey: 'key',
        appSecret: 'secret',
        serviceId: '7123',
        authorizeUrl: AUTHORIZE,
        authUrl: 'https://auth.example',
        apiUrl: 'https://api.example',
      },
      { http: { request: () => Promise.reject(new Error('no I/O')) }, clock: createManualClock(new Date(0)) },
    );
    const url = new URL(
      adapter.buildAuthorizationUrl({
        state: 's',
        redirectUri: 'https://app.example/cb',
        codeChallenge: 'c',
        authorizationUrl: null,
        grant: { region: null },
      }),
    );
    assert.deepEqual([...url.searchParams.keys()], ['service_id', 'state']);
    assert.equal(adapter.usesPkce, false);
    assert.equal(adapter.platformId, 4);
  });
});

describe('TikTok Shop callback', () => {
  test('a code is a grant', () => {
    assert.deepEqual(readCallback({ code: 'FeBoANmHP3yqdoUI9fZOCw', state: 's' }), {
      kind: 'code',
      code: 'FeBoANmHP3yqdoUI9fZOCw',
      params: {},
    });
  });

  test('code=null with auth_denied or access_denied is a denial', () => {
    assert.deepEqual(readCallback({ code: 'null', error: 'auth_denied', state: 's' }), { kind: 'denied', message: 'Access denied' });
    assert.deepEqual(readCallback({ error: 'access_denied', code: 'null' }), { kind: 'denied', message: 'Access denied' });
  });

  test('the literal code "null" is never exchanged', () => {
    assert.equal(readCallback({ code: 'null', state: 's' }).kind, 'denied');
  });

  test('another error, or no code at all, is a failure', () => {
    assert.deepEqual(readCallback({ code: 'abc', error: 'server_error' }), { kind: 'error', message: 'server_error' });
    assert.equal(readCallback({ state: 's' }).kind, 'error');
    assert.equal(readCallback({ code: '' }).kind, 'error');
  });
});

describe('TikTok Shop token calls', () => {
  test('Get Access Token is a GET with the secret, the auth code and grant_type=authorized_code in the query', () => {
    const url = new URL(buildTokenGetUrl({ authUrl: 'https://auth.tiktok-shops.com', appKey: 'k', appSecret: 's&1', authCode: 'c/2' }));
    assert.equal(url.origin + url.pathname, 'https://auth.tiktok-shops.com/api/v2/token/get');
    assert.deepEqual(Object.fromEntries(url.searchParams), {
      app_key: 'k',
      app_secret: 's&1',
      auth_code: 'c/2',
      grant_type: 'authorized_code',
    });
  });

  test('Refresh Access Token takes the refresh token and grant_type=refresh_token', () => {
    const url = new URL(
      buildTokenRefreshUrl({ authUrl: 'https://auth.tiktok-shops.com', appKey: 'k', appSecret: 's', refreshToken: 'TTP_r' }),
    );
    assert.equal(url.pathname, '/api/v2/token/refresh');
    assert.deepEqual(Object.fromEntries(url.searchParams), {
      app_key: 'k',
      app_secret: 's',
      refresh_token: 'TTP_r',
      grant_type: 'refresh_token',
    });
  });

  test('both expiries are read as absolute Unix timestamps in seconds', () => {
    const body = {
      code: 0,
      message: 'success',
      request_id: '2022080809462301024509910319695C45',
      data: {
        access_token: 'TTP_Fw8r',
        access_token_expire_in: 1660556783,
        refresh_token: 'TTP_NTUx',
        refresh_token_expire_in: 1691487031,
        open_id: '7010736057180325637',
        user_type: 0,
      },
    };
    assert.deepEqual(parseTokenResponse(200, body), {
      accessToken: 'TTP_Fw8r',
      refreshToken: 'TTP_NTUx',
      accessExpiresAt: new Date(1660556783_000),
      refreshExpiresAt: new Date(1691487031_000),
    });
  });

  test("the 36004xxx auth-record family is the seller's: Invalid credentials", () => {
    for (const code of [36004004, 36004005, 36004001]) {
      assert.throws(
        () => parseTokenResponse(200, { code, message: 'whatever', data: null, request_id: 'r' }),
        rejected('Invalid credentials'),
        String(code),
      );
    }
  });

  test("36009004 (invalid app key or credentials), a bad sign and unknown codes are the operator's, whatever the HTTP status", () => {
    for (const [status, code] of [
      [200, 36009004],
      [200, 106001],
      [200, 36009001],
      [400, 12345],
    ]) {
      assert.throws(() => parseTokenResponse(status!, { code, message: 'Bad thing', request_id: 'r' }), misconfigured, String(code));
    }
  });

  test("105005 (a scope the seller refused at consent) is the seller's: connect again granting it", () => {
    assert.throws(
      () => parseShopsResponse(200, { code: 105005, message: 'Access denied.', request_id: 'r' }),
      (error: unknown) => error instanceof PlatformError && error.reason === 'rejected' && /grant every permission/.test(error.message),
    );
  });

  test('36009003 (internal error) and 36009007 (request timeout) are passing', () => {
    for (const code of [36009003, 36009007])
      assert.throws(() => parseTokenResponse(200, { code, message: 'x', request_id: 'r' }), unavailable, String(code));
  });

  test('a 5xx, an answer without a code, or a success without a token is unavailable', () => {
    assert.throws(() => parseTokenResponse(503, { code: 0, data: { access_token: 'x' } }), unavailable);
    assert.throws(() => parseTokenResponse(200, { access_token: 'x' }), unavailable);
    assert.throws(
      () => parseTokenResponse(200, { code: 36009002, message: 'Too many requests', request_id: 'r' }),
      unavailable,
      'rate limited',
    );
    assert.throws(() => parseTokenResponse(200, { code: 0, message: 'success', data: {} }), unavailable);
  });
});

describe('TikTok Shop request signing', () => {
  // Computed here straight from the documented steps, independently of signRequest.
  const documented = (secret: string, text: string) => createHmac('sha256', secret).update(`${secret}${text}${secret}`).digest('hex');

  test('sign is the HMAC of the path and the sorted parameters, without sign and access_token, wrapped in the secret', () => {
    const query = { timestamp: '1234567890', sign: 'ignored', app_key: '123456', access_token: 'ignored', shop_cipher: 'GCP_x' };
    const expected = documented(
      'abc000def111',
      '/authorization/202309/shops' + 'app_key123456' + 'shop_cipherGCP_x' + 'timestamp1234567890',
    );
    assert.equal(signRequest({ path: '/authorization/202309/shops', query, appSecret: 'abc000def111' }), expected);
    assert.match(expected, /^[0-9a-f]{64}$/);
  });

  test('the raw body is appended, except for multipart requests', () => {
    const query = { app_key: 'k', timestamp: '1' };
    const body = '{"page_size":10}';
    assert.equal(
      signRequest({ path: '/p', query, body, contentType: 'application/json', appSecret: 's' }),
      documented('s', '/papp_keyktimestamp1' + body),
    );
    assert.equal(
      signRequest({ path: '/p', query, body, contentType: 'multipart/form-data; boundary=x', appSecret: 's' }),
      documented('s', '/papp_keyktimestamp1'),
    );
  });

  test('the shops request is signed app_key and timestamp in seconds, with the token in a header and no shop_cipher', () => {
    const { url, headers } = buildShopsRequest({
      apiUrl: 'https://open-api.tiktokglobalshop.com',
      appKey: 'k',
      appSecret: 's',
      accessToken: 'TTP_a',
      now: new Date(1_700_000_000_999),
    });
    const parsed = new URL(url);
    assert.equal(parsed.pathname, '/authorization/202309/shops');
    assert.deepEqual(Object.fromEntries(parsed.searchParams), {
      app_key: 'k',
      timestamp: '1700000000',
      sign: documented('s', '/authorization/202309/shopsapp_keyktimestamp1700000000'),
    });
    assert.deepEqual(headers, { 'x-tts-access-token': 'TTP_a', 'content-type': 'application/json' });
  });
});

describe('TikTok Shop authorized shops', () => {
  const shop = {
    id: '7000714532876273420',
    name: 'Maomao beauty shop',
    region: 'GB',
    seller_type: 'CROSS_BORDER',
    cipher: 'GCP_XF90igAAAABh00qsWgtvOiGFNqyubMt3',
    code: 'CNGBCBA4LLU8',
  };

  test("every shop is an account: its id is the site's external id, its cipher kept as data and as the former id", () => {
    const other = { ...shop, id: '7000714532876273421', cipher: 'GCP_other', name: 'Other', region: 'US' };
    const body = { code: 0, message: 'Success', request_id: 'r', data: { shops: [shop, other] } };
    const accounts = parseShopsResponse(200, body);
    assert.deepEqual(
      accounts.map((account) => [account.externalId, account.name, account.data.cipher, account.formerExternalId]),
      [
        [shop.id, 'Maomao beauty shop', 'GCP_XF90igAAAABh00qsWgtvOiGFNqyubMt3', 'GCP_XF90igAAAABh00qsWgtvOiGFNqyubMt3'],
        ['7000714532876273421', 'Other', 'GCP_other', 'GCP_other'],
      ],
    );
    assert.equal(accounts[1]!.data.region, 'US');
  });

  test('a shop without an id is an unreadable answer', () => {
    const { id: _, ...withoutId } = shop;
    assert.throws(() => parseShopsResponse(200, { code: 0, data: { shops: [withoutId] } }), unavailable);
  });

  test('no shop is refused', () => {
    assert.throws(
      () => parseShopsResponse(200, { code: 0, message: 'Success', data: { shops: [] } }),
      rejected('No TikTok Shop was authorized'),
    );
    assert.throws(() => parseShopsResponse(200, { code: 0, message: 'Success', data: {} }), rejected('No TikTok Shop was authorized'));
  });

  test("an expired token is the seller's; a bad sign the operator's", () => {
    assert.throws(
      () => parseShopsResponse(200, { code: 105002, message: 'Access token is expired', request_id: 'r' }),
      rejected('TikTok Shop no longer accepts this authorization; connect again.'),
    );
    assert.throws(() => parseShopsResponse(200, { code: 106001, message: 'Invalid sign', request_id: 'r' }), misconfigured);
  });
});

describe('TikTok Shop adapter I/O', () => {
  test('exchangeCode makes one GET to the token endpoint and reads its answer', async () => {
    const seen: Array<{ url: string; method: string }> = [];
    const http: PlatformHttp = {
      request: async (url, init) => {
        seen.push({ url, method: init.method });
        return {
          status: 200,
          body: {
            code: 0,
            message: 'success',
            data: {
              access_token: 'TTP_a',
              access_token_expire_in: 2_000_000_000,
              refresh_token: 'TTP_r',
              refresh_token_expire_in: 2_100_000_000,
            },
          },
        };
      },
    };
    const adapter = createTikTokShopConnectAdapter(
      {
        appKey: 'key',
        appSecret: 'secret',
        serviceId: '1',
        authorizeUrl: AUTHORIZE,
        authUrl: 'https://auth.example',
        apiUrl: 'https://api.example',
      },
      { http, clock: createManualClock(new Date(0)) },
    );
    const tokens = await adapter.exchangeCode({
      code: 'abc',
      redirectUri: 'ignored',
      codeVerifier: null,
      params: {},
      grant: { region: null },
    });
    assert.equal(seen.length, 1);
    assert.equal(seen[0]!.method, 'GET');
    assert.equal(
      seen[0]!.url,
      'https://auth.example/api/v2/token/get?app_key=key&app_secret=secret&auth_code=abc&grant_type=authorized_code',
    );
    assert.deepEqual(tokens.accessExpiresAt, new Date(2_000_000_000_000));
  });
});
