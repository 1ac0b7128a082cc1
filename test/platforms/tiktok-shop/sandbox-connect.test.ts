/**
 * Issue 11, item 6: the TikTok Shop simulator's connect side (the token calls, Get Authorized Shops, several shops per
 * authorization) holds every request to TikTok's own rules and answers with TikTok's documented codes and bodies.
 * Driven over HTTP through the real app, as a platform client would call it, with no adapter code: a simulator that
 * only accepted what Storelink's adapters send would prove nothing. Titles name every behaviour TikTok does not
 * document as an ASSUMPTION. Etsy's simulator has the same suite in test/platforms/etsy/.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { SANDBOX_CLIENTS } from '../../../src/sandbox/context.js';
import { expectedSign } from '../../../src/sandbox/tiktok-shop/signature.js';
import { createTestApp, injectForm, type TestApp } from '../../helpers/test-app.js';

const DAY_MS = 24 * 3600_000;
const TIKTOK = SANDBOX_CLIENTS.tiktokShop;
const SHOPS_PATH = '/authorization/202309/shops';

let t: TestApp;
before(async () => {
  t = await createTestApp('pglite');
});
after(() => t.close());

const query = (params: Record<string, string>) => new URLSearchParams(params).toString().replaceAll('+', '%20');
const get = (url: string, headers: Record<string, string> = {}) => t.app.inject({ method: 'GET', url, headers });
const postForm = (url: string, form: Record<string, string>, headers: Record<string, string> = {}) => injectForm(t, url, form, headers);

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

    test('one shop by default: a local seller in the US; a UK seller has the shop the simulator gave before it offered a market', async () => {
      assert.deepEqual(await shopsOf({ account: '61' }), [
        {
          id: '7000714533000061',
          name: 'Sandbox TikTok Shop 61',
          region: 'US',
          seller_type: 'LOCAL',
          cipher: 'GCP_SANDBOX000061N2',
          code: 'USSBX0000612',
        },
      ]);
      assert.deepEqual(await shopsOf({ account: '61', market: 'GB' }), [
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
    // 105005: a call outside the granted scopes (Common errors; platforms.md §2.3, §2.5).
    const documented = new Set([36004005, 36004001, 36009002, 36009003, 36009004, 36009007, 105002, 105005, 106001]);
    for (const [name, entry] of Object.entries(ERRORS)) {
      const [code] = typeof entry === 'function' ? entry('x') : entry;
      assert.ok(documented.has(code), `${name}: ${code}`);
    }
  });
});

test('the simulator counts its calls under the names other tests read', async () => {
  const calls = t.deps.sandbox.calls;
  for (const name of ['tiktok-shop:consent', 'tiktok-shop:token', 'tiktok-shop:refresh', 'tiktok-shop:identity']) {
    assert.ok((calls.get(name) ?? 0) > 0, name);
  }
});
