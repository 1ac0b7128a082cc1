/** The Amazon Ads track's connect adapter: the grant URL, the callback, the profiles answer, each region's hosts. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createAmazonAdsConnectAdapter } from '../../../src/platforms/amazon-ads/connect.js';
import { buildGrantUrl } from '../../../src/platforms/amazon-ads/requests.js';
import { parseProfiles, readCallback as readAdsCallback } from '../../../src/platforms/amazon-ads/responses.js';
import { createManualClock } from '../../helpers/clock.js';
import { fakeHttp, rejects } from '../../helpers/platform-http.js';

const NOW = new Date('2026-06-01T12:00:00Z');
const CALLBACK = 'https://storelink.example/api/v1/oauth/callback/amazon-seller';
const ADS_CONFIG = {
  clientId: 'c',
  clientSecret: 'x',
  regions: {
    NA: { authorizeUrl: 'https://na.example/ap/oa', tokenUrl: 'https://lwa-na.example/auth/o2/token', apiUrl: 'https://ads-na.example' },
    EU: { authorizeUrl: 'https://eu.example/ap/oa', tokenUrl: 'https://lwa-eu.example/auth/o2/token', apiUrl: 'https://ads-eu.example' },
    FE: { authorizeUrl: 'https://fe.example/ap/oa', tokenUrl: 'https://lwa-fe.example/auth/o2/token', apiUrl: 'https://ads-fe.example' },
  },
};

test('the Ads grant URL asks for campaign management with response_type=code', () => {
  const url = new URL(
    buildGrantUrl({
      authorizeUrl: 'https://www.amazon.com/ap/oa',
      clientId: 'amzn1.application-oa2-client.x',
      state: 's',
      redirectUri: CALLBACK,
    }),
  );
  assert.equal(url.origin + url.pathname, 'https://www.amazon.com/ap/oa');
  assert.deepEqual(Object.fromEntries(url.searchParams), {
    client_id: 'amzn1.application-oa2-client.x',
    scope: 'advertising::campaign_management',
    response_type: 'code',
    redirect_uri: CALLBACK,
    state: 's',
  });
});

test('error=access_denied is a refusal on the Ads track, and another error carries its description', () => {
  assert.deepEqual(readAdsCallback({ error: 'access_denied', error_description: 'The user denied the request.', state: 's' }), {
    kind: 'denied',
    message: 'Access denied',
  });
  assert.deepEqual(readAdsCallback({ error: 'server_error', error_description: 'Try later', state: 's' }), {
    kind: 'error',
    message: 'Try later',
  });
});

test('an Ads callback with code and scope is a code; a scope without campaign management is an error', () => {
  assert.deepEqual(readAdsCallback({ code: 'ANcode', scope: 'advertising::campaign_management', state: 's' }), {
    kind: 'code',
    code: 'ANcode',
    params: { scope: 'advertising::campaign_management' },
  });
  assert.equal(readAdsCallback({ code: 'ANcode', scope: 'profile', state: 's' }).kind, 'error');
  assert.equal(readAdsCallback({ state: 's' }).kind, 'error');
});

test('profiles map to id, country code, account name, and the marketplace and currency when Amazon gives them', () => {
  const body = [
    {
      profileId: 1495806522428699,
      countryCode: 'ES',
      currencyCode: 'EUR',
      timezone: 'Europe/Paris',
      accountInfo: { marketplaceStringId: 'A1RKKUPIHCS9HS', id: 'A30E1B2F3U4K5Y', type: 'seller', name: 'Shop ES' },
    },
    { profileId: 1495806522428700, countryCode: 'FR', accountInfo: { id: 'A30E1B2F3U4K5Y', type: 'seller', name: 'Shop FR' } },
  ];
  assert.deepEqual(parseProfiles(200, body), [
    { id: '1495806522428699', country_code: 'ES', name: 'Shop ES', marketplace_id: 'A1RKKUPIHCS9HS', currency: 'EUR' },
    { id: '1495806522428700', country_code: 'FR', name: 'Shop FR' },
  ]);
});

test('a profiles answer that is not a list is unavailable; 401 and 403 are rejected', () => {
  assert.throws(() => parseProfiles(200, { profiles: [] }), rejects('unavailable'));
  assert.throws(() => parseProfiles(200, [{ countryCode: 'US' }]), rejects('unavailable'));
  assert.throws(() => parseProfiles(401, { code: 'UNAUTHORIZED', details: 'Not authorized' }), rejects('rejected'));
  assert.throws(() => parseProfiles(403, {}), rejects('rejected'));
  assert.throws(
    () => parseProfiles(401, { code: 'UNAUTHORIZED', details: 'Invalid Amazon-Advertising-API-ClientId' }),
    rejects('misconfigured'),
  );
  assert.throws(() => parseProfiles(400, { code: 'BAD_REQUEST', details: 'x' }), rejects('misconfigured'));
  assert.throws(() => parseProfiles(503, {}), rejects('unavailable'));
});

test("the Ads adapter asks the grant's region for profiles, with the client id header and the bearer", async () => {
  const { http, sent } = fakeHttp({ status: 200, body: [{ profileId: 1, countryCode: 'UK' }] });
  const adapter = createAmazonAdsConnectAdapter(ADS_CONFIG, { http, clock: createManualClock(NOW) });
  await adapter.fetchProfiles(
    { accessToken: 'Atza|a', refreshToken: null, accessExpiresAt: null, refreshExpiresAt: null },
    { region: 'EU' },
  );
  assert.deepEqual(sent, [
    {
      url: 'https://ads-eu.example/v2/profiles',
      init: { method: 'GET', headers: { 'Amazon-Advertising-API-ClientId': 'c', authorization: 'Bearer Atza|a' } },
    },
  ]);
});

test("the Ads adapter's grant page and token URL are the region's", async () => {
  const { http, sent } = fakeHttp({ status: 200, body: { access_token: 'Atza|a', token_type: 'bearer', expires_in: 3600 } });
  const adapter = createAmazonAdsConnectAdapter(ADS_CONFIG, { http, clock: createManualClock(NOW) });
  const url = adapter.buildAuthorizationUrl({
    state: 's',
    redirectUri: CALLBACK,
    codeChallenge: null,
    authorizationUrl: null,
    grant: { region: 'FE' },
  });
  assert.match(url, /^https:\/\/fe\.example\/ap\/oa\?/);
  await adapter.refreshToken('Atzr|r', { region: 'FE' });
  assert.equal(sent[0]!.url, 'https://lwa-fe.example/auth/o2/token');
});

test('an empty profile list is a refusal naming the region, not "advertising connected"', () => {
  assert.throws(() => parseProfiles(200, [], 'EU'), rejects('rejected', /no advertising profiles in the EU region/));
});
