import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createAmazonAdsConnectAdapter } from '../../../src/platforms/amazon-ads/connect.js';
import { buildGrantUrl } from '../../../src/platforms/amazon-ads/requests.js';
import { parseProfiles, readCallback as readAdsCallback } from '../../../src/platforms/amazon-ads/responses.js';
import { createAmazonSellerConnectAdapter } from '../../../src/platforms/amazon-seller/connect.js';
import { buildConsentUrl } from '../../../src/platforms/amazon-seller/requests.js';
import { parseMarketplaceParticipations, readCallback as readSellerCallback } from '../../../src/platforms/amazon-seller/responses.js';
import { PlatformError, type PlatformFailure } from '../../../src/platforms/contracts/errors.js';
import type { PlatformHttp } from '../../../src/platforms/http.js';
import { buildLwaCodeGrant, buildLwaRefreshGrant } from '../../../src/platforms/lwa/requests.js';
import { parseLwaTokenResponse } from '../../../src/platforms/lwa/responses.js';
import { createManualClock } from '../../helpers/clock.js';

const NOW = new Date('2026-06-01T12:00:00Z');
const CALLBACK = 'https://storelink.example/api/v1/oauth/callback/amazon-seller';

/** A PlatformHttp that records requests and answers with `answer`. */
function fakeHttp(answer: { status: number; body: unknown }) {
  const sent: Array<{ url: string; init: Parameters<PlatformHttp['request']>[1] }> = [];
  const http: PlatformHttp = { request: async (url, init) => (sent.push({ url, init }), answer) };
  return { http, sent };
}

const rejects = (reason: PlatformFailure, message?: string | RegExp) => (error: unknown) =>
  error instanceof PlatformError &&
  error.reason === reason &&
  (message === undefined || (typeof message === 'string' ? error.message === message : message.test(error.message)));

/** One region's hosts, the others elsewhere, so a test shows which region a call went to. */
const SELLER_REGIONS = {
  NA: { sellerCentralUrl: 'https://sc-na.example', apiUrl: 'https://sp-na.example' },
  EU: { sellerCentralUrl: 'https://sc-eu.example', apiUrl: 'https://sp-eu.example' },
  FE: { sellerCentralUrl: 'https://sc-fe.example', apiUrl: 'https://sp-fe.example' },
};
const SELLER_CONFIG = {
  appId: 'a',
  lwaClientId: 'c',
  lwaClientSecret: 'x',
  lwaTokenUrl: 'https://lwa.example/auth/o2/token',
  draft: false,
  regions: SELLER_REGIONS,
};
const ADS_CONFIG = {
  clientId: 'c',
  clientSecret: 'x',
  regions: {
    NA: { authorizeUrl: 'https://na.example/ap/oa', tokenUrl: 'https://lwa-na.example/auth/o2/token', apiUrl: 'https://ads-na.example' },
    EU: { authorizeUrl: 'https://eu.example/ap/oa', tokenUrl: 'https://lwa-eu.example/auth/o2/token', apiUrl: 'https://ads-eu.example' },
    FE: { authorizeUrl: 'https://fe.example/ap/oa', tokenUrl: 'https://lwa-fe.example/auth/o2/token', apiUrl: 'https://ads-fe.example' },
  },
};
const PARTICIPATIONS = {
  payload: [
    {
      marketplace: { id: 'A1F83G8C2ARO7P', countryCode: 'GB', name: 'Amazon.co.uk', defaultCurrencyCode: 'GBP' },
      participation: { isParticipating: true, hasSuspendedListings: false },
      storeName: 'Maomao UK',
    },
    {
      marketplace: { id: 'A1PA6795UKMFR9', countryCode: 'DE', name: 'Amazon.de', defaultCurrencyCode: 'EUR' },
      participation: { isParticipating: false, hasSuspendedListings: false },
      storeName: 'Maomao UK',
    },
  ],
};

test('the seller consent URL carries application_id, state and redirect_uri, and no version for a published app', () => {
  const url = new URL(
    buildConsentUrl({
      consentUrl: 'https://sellercentral.amazon.com/apps/authorize/consent',
      appId: 'amzn1.sellerapps.app.x',
      state: 's.t.u',
      redirectUri: CALLBACK,
      draft: false,
    }),
  );
  assert.equal(url.origin + url.pathname, 'https://sellercentral.amazon.com/apps/authorize/consent');
  assert.deepEqual(Object.fromEntries(url.searchParams), {
    application_id: 'amzn1.sellerapps.app.x',
    state: 's.t.u',
    redirect_uri: CALLBACK,
  });
});

test('the seller consent URL of a draft app adds version=beta', () => {
  const url = new URL(
    buildConsentUrl({
      consentUrl: 'https://sellercentral.amazon.com/apps/authorize/consent',
      appId: 'a',
      state: 's',
      redirectUri: CALLBACK,
      draft: true,
    }),
  );
  assert.equal(url.searchParams.get('version'), 'beta');
});

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

test('a seller callback with spapi_oauth_code and selling_partner_id is a code carrying the seller id', () => {
  assert.deepEqual(
    readSellerCallback({ state: 's', selling_partner_id: 'A1B2C3', spapi_oauth_code: 'ANcode', mws_auth_token: 'amzn.mws.x' }),
    { kind: 'code', code: 'ANcode', params: { selling_partner_id: 'A1B2C3' } },
  );
});

test('a seller callback missing the code or the seller id is an error', () => {
  assert.equal(readSellerCallback({ state: 's', selling_partner_id: 'A1B2C3' }).kind, 'error');
  assert.equal(readSellerCallback({ state: 's', spapi_oauth_code: 'ANcode' }).kind, 'error');
});

test('error=access_denied is a refusal on both Amazon tracks, and another error carries its description', () => {
  for (const read of [readSellerCallback, readAdsCallback]) {
    assert.deepEqual(read({ error: 'access_denied', error_description: 'The user denied the request.', state: 's' }), {
      kind: 'denied',
      message: 'Access denied',
    });
    assert.deepEqual(read({ error: 'server_error', error_description: 'Try later', state: 's' }), { kind: 'error', message: 'Try later' });
  }
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

test('the LWA grants are form fields with the client secret', () => {
  assert.deepEqual(buildLwaCodeGrant({ clientId: 'c', clientSecret: 'x', redirectUri: CALLBACK, code: 'k' }), {
    grant_type: 'authorization_code',
    code: 'k',
    redirect_uri: CALLBACK,
    client_id: 'c',
    client_secret: 'x',
  });
  assert.deepEqual(buildLwaRefreshGrant({ clientId: 'c', clientSecret: 'x', refreshToken: 'Atzr|r' }), {
    grant_type: 'refresh_token',
    refresh_token: 'Atzr|r',
    client_id: 'c',
    client_secret: 'x',
  });
});

test('an LWA token answer gives an access token for expires_in seconds and a refresh token with no expiry', () => {
  const tokens = parseLwaTokenResponse(
    200,
    { access_token: 'Atza|a', token_type: 'bearer', expires_in: 3600, refresh_token: 'Atzr|r' },
    NOW,
  );
  assert.deepEqual(tokens, {
    accessToken: 'Atza|a',
    refreshToken: 'Atzr|r',
    accessExpiresAt: new Date('2026-06-01T13:00:00Z'),
    refreshExpiresAt: null,
  });
});

test('a refresh keeps the submitted refresh token whether LWA repeats it or leaves it out', () => {
  assert.equal(
    parseLwaTokenResponse(200, { access_token: 'Atza|b', token_type: 'bearer', expires_in: 3600, refresh_token: 'Atzr|r' }, NOW, 'Atzr|r')
      .refreshToken,
    'Atzr|r',
  );
  assert.equal(
    parseLwaTokenResponse(200, { access_token: 'Atza|b', token_type: 'bearer', expires_in: 3600 }, NOW, 'Atzr|r').refreshToken,
    'Atzr|r',
  );
});

test("LWA errors: invalid_grant is the seller's, the client's credentials the operator's, server trouble passing", () => {
  const lwa = (status: number, body: unknown) => () => parseLwaTokenResponse(status, body, NOW);
  const grant = { error_description: 'The request has an invalid grant parameter : code', error: 'invalid_grant' };
  assert.throws(lwa(400, grant), rejects('rejected', 'Invalid credentials'));
  // The LWA secret must be rotated every 180 days; a stale one is invalid_client, and no seller can fix that.
  const client = { error_description: 'Client authentication failed', error: 'invalid_client' };
  assert.throws(lwa(401, client), rejects('misconfigured', /invalid_client: Client authentication failed/));
  assert.throws(lwa(400, { error: 'unauthorized_client' }), rejects('misconfigured'));
  assert.throws(lwa(400, { error: 'invalid_request', error_description: 'missing redirect_uri' }), rejects('misconfigured'));
  assert.throws(lwa(400, { error: 'temporarily_unavailable' }), rejects('unavailable'));
  assert.throws(lwa(400, { error: 'server_error' }), rejects('unavailable'));
  assert.throws(lwa(500, { error: 'server_error' }), rejects('unavailable'));
  assert.throws(lwa(429, {}), rejects('unavailable'));
  assert.throws(lwa(200, { token_type: 'bearer' }), rejects('unavailable'));
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

test("the seller adapter checks the grant on its region's Sellers API and names the site after the store", async () => {
  const { http, sent } = fakeHttp({ status: 200, body: PARTICIPATIONS });
  const adapter = createAmazonSellerConnectAdapter(SELLER_CONFIG, { http, clock: createManualClock(NOW) });
  const tokens = { accessToken: 'Atza|a', refreshToken: 'Atzr|r', accessExpiresAt: null, refreshExpiresAt: null };
  assert.deepEqual(await adapter.fetchAccounts(tokens, { selling_partner_id: 'A1B2C3' }, { region: 'EU' }), [
    { externalId: 'A1B2C3', name: 'Maomao UK', data: { store_name: 'Maomao UK', marketplace_ids: ['A1F83G8C2ARO7P'] } },
  ]);
  assert.deepEqual(sent, [
    {
      url: 'https://sp-eu.example/sellers/v1/marketplaceParticipations',
      init: { method: 'GET', headers: { 'x-amz-access-token': 'Atza|a' } },
    },
  ]);
});

test("the seller's consent goes to the region's Seller Central at /apps/authorize/consent; NA without a region", () => {
  const adapter = createAmazonSellerConnectAdapter(SELLER_CONFIG, {
    http: fakeHttp({ status: 500, body: {} }).http,
    clock: createManualClock(NOW),
  });
  const consent = (region: 'NA' | 'EU' | 'FE' | null) =>
    new URL(
      adapter.buildAuthorizationUrl({ state: 's', redirectUri: CALLBACK, codeChallenge: null, authorizationUrl: null, grant: { region } }),
    );
  assert.equal(consent('FE').origin + consent('FE').pathname, 'https://sc-fe.example/apps/authorize/consent');
  assert.equal(consent(null).origin, 'https://sc-na.example');
});

test("marketplace participations: a refused token is the seller's, a refused app the operator's, none participating a refusal", () => {
  assert.deepEqual(parseMarketplaceParticipations(200, PARTICIPATIONS), { storeName: 'Maomao UK', marketplaceIds: ['A1F83G8C2ARO7P'] });
  const errors = (code: string, message: string) => ({ errors: [{ code, message, details: '' }] });
  assert.throws(
    () => parseMarketplaceParticipations(403, errors('Unauthorized', 'The access token you provided is revoked, malformed or invalid.')),
    rejects('rejected'),
  );
  assert.throws(
    () => parseMarketplaceParticipations(403, errors('Unauthorized', 'Access to requested resource is denied.')),
    rejects('misconfigured'),
  );
  assert.throws(() => parseMarketplaceParticipations(429, errors('QuotaExceeded', 'x')), rejects('unavailable'));
  assert.throws(() => parseMarketplaceParticipations(200, { payload: [] }), rejects('rejected'));
  assert.throws(() => parseMarketplaceParticipations(200, { payload: 'x' }), rejects('unavailable'));
});

test('the seller adapter exchanges the code with a form POST to the LWA token URL', async () => {
  const { http, sent } = fakeHttp({
    status: 200,
    body: { access_token: 'Atza|a', token_type: 'bearer', expires_in: 3600, refresh_token: 'Atzr|r' },
  });
  const adapter = createAmazonSellerConnectAdapter(SELLER_CONFIG, { http, clock: createManualClock(NOW) });
  await adapter.exchangeCode({
    code: 'ANcode',
    redirectUri: CALLBACK,
    codeVerifier: null,
    params: { selling_partner_id: 'A1' },
    grant: { region: 'EU' },
  });
  assert.deepEqual(sent, [
    {
      url: 'https://lwa.example/auth/o2/token',
      init: {
        method: 'POST',
        form: { grant_type: 'authorization_code', code: 'ANcode', redirect_uri: CALLBACK, client_id: 'c', client_secret: 'x' },
      },
    },
  ]);
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
