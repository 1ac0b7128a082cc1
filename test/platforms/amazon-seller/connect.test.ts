/** The Amazon seller track's connect adapter: the consent URL, the callback, the Sellers API's answer, the code exchange. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createAmazonSellerConnectAdapter } from '../../../src/platforms/amazon-seller/connect.js';
import { buildConsentUrl } from '../../../src/platforms/amazon-seller/requests.js';
import { parseMarketplaceParticipations, readCallback as readSellerCallback } from '../../../src/platforms/amazon-seller/responses.js';
import { createManualClock } from '../../helpers/clock.js';
import { fakeHttp, rejects } from '../../helpers/platform-http.js';

const NOW = new Date('2026-06-01T12:00:00Z');
const CALLBACK = 'https://storelink.example/api/v1/oauth/callback/amazon-seller';

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

test('a seller callback with spapi_oauth_code and selling_partner_id is a code carrying the seller id', () => {
  assert.deepEqual(
    readSellerCallback({ state: 's', selling_partner_id: 'A3EXAMPLE1ABCD', spapi_oauth_code: 'ANcode', mws_auth_token: 'amzn.mws.x' }),
    { kind: 'code', code: 'ANcode', params: { selling_partner_id: 'A3EXAMPLE1ABCD' } },
  );
});

test('a seller callback missing the code or the seller id is an error', () => {
  assert.equal(readSellerCallback({ state: 's', selling_partner_id: 'A3EXAMPLE1ABCD' }).kind, 'error');
  assert.equal(readSellerCallback({ state: 's', spapi_oauth_code: 'ANcode' }).kind, 'error');
});

test("a seller callback whose seller id is not of Amazon's form is an error that does not repeat it", () => {
  for (const id of ['A<img src=x onerror=alert(1)>', 'A1 ', 'A-1', 'A'.repeat(65), 'a1b2', '1', 'a3example1abcd', 'B3EXAMPLE1ABCD'])
    assert.deepEqual(readSellerCallback({ state: 's', selling_partner_id: id, spapi_oauth_code: 'ANcode' }), {
      kind: 'error',
      message: 'Amazon sent a selling partner id that is not of the form Amazon gives them',
    });
});

test('error=access_denied is a refusal on the seller track, and another error carries its description', () => {
  assert.deepEqual(readSellerCallback({ error: 'access_denied', error_description: 'The user denied the request.', state: 's' }), {
    kind: 'denied',
    message: 'Access denied',
  });
  assert.deepEqual(readSellerCallback({ error: 'server_error', error_description: 'Try later', state: 's' }), {
    kind: 'error',
    message: 'Try later',
  });
});

test("the seller adapter checks the grant on its region's Sellers API and names the site after the store", async () => {
  const { http, sent } = fakeHttp({ status: 200, body: PARTICIPATIONS });
  const adapter = createAmazonSellerConnectAdapter(SELLER_CONFIG, { http, clock: createManualClock(NOW) });
  const tokens = { accessToken: 'Atza|a', refreshToken: 'Atzr|r', accessExpiresAt: null, refreshExpiresAt: null };
  assert.deepEqual(await adapter.fetchAccounts(tokens, { selling_partner_id: 'A3EXAMPLE1ABCD' }, { region: 'EU' }), [
    {
      externalId: 'A3EXAMPLE1ABCD',
      name: 'Maomao UK',
      data: { store_name: 'Maomao UK', marketplace_ids: ['A1F83G8C2ARO7P'] },
      currency: null,
    },
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
  const errors = (code: string, message: string, details = '') => ({ errors: [{ code, message, details }] });
  // Amazon's words (amzn/selling-partner-api-models issue 2333): the token's fault is in details, not in message.
  const denied = 'Access to requested resource is denied.';
  for (const details of ['The access token you provided is revoked, malformed or invalid.', 'The access token you provided has expired.'])
    assert.throws(() => parseMarketplaceParticipations(403, errors('Unauthorized', denied, details)), rejects('rejected'), details);
  assert.throws(() => parseMarketplaceParticipations(403, errors('Unauthorized', denied)), rejects('misconfigured'));
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
    params: { selling_partner_id: 'A3EXAMPLE1ABCD' },
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
