/**
 * Issue 11, items 3, 6 and 8: the Amazon seller simulator holds requests to Login with Amazon's and SP-API's rules, per
 * region, driven over HTTP as a platform client would call it, with no adapter code. Titles name every behaviour Amazon
 * does not document as an ASSUMPTION. The Amazon Ads simulator's connect side is in test/platforms/amazon-ads/.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { SANDBOX_CLIENTS } from '../../../src/sandbox/context.js';
import { createTestApp, injectForm, type TestApp } from '../../helpers/test-app.js';

const SELLER = SANDBOX_CLIENTS.amazonSeller;

let t: TestApp;
before(async () => {
  t = await createTestApp('pglite');
});
after(() => t.close());

const get = (url: string, headers: Record<string, string> = {}) => t.app.inject({ method: 'GET', url, headers });
const postForm = (url: string, form: Record<string, string>, headers: Record<string, string> = {}) => injectForm(t, url, form, headers);
const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;

describe('Amazon seller simulator', () => {
  const consentParams = (overrides: Record<string, string> = {}) => ({
    application_id: SELLER.appId,
    state: 'state-1',
    redirect_uri: t.deps.sandbox.callbackUrl('amazon-seller'),
    ...overrides,
  });
  /** Consents at a region's Seller Central; returns the redirect's query. */
  async function consent(base: string) {
    const response = await postForm(`${base}/apps/authorize/consent`, { ...consentParams(), decision: 'allow', account: '7' });
    assert.equal(response.statusCode, 302, response.body);
    return new URL(response.headers.location as string).searchParams;
  }
  const codeGrant = (code: string) => ({
    grant_type: 'authorization_code',
    code,
    redirect_uri: t.deps.sandbox.callbackUrl('amazon-seller'),
    client_id: SELLER.lwaClientId,
    client_secret: SELLER.lwaClientSecret,
  });

  test('consent is served at the real path /apps/authorize/consent of each region, and at DESIGN §6 /authorize', async () => {
    const params = new URLSearchParams(consentParams()).toString();
    for (const path of [
      '/sandbox/amazon-seller/apps/authorize/consent',
      '/sandbox/amazon-seller/eu/apps/authorize/consent',
      '/sandbox/amazon-seller/fe/apps/authorize/consent',
      '/sandbox/amazon-seller/authorize',
    ]) {
      const page = await get(`${path}?${params}`);
      assert.equal(page.statusCode, 200, path);
      assert.match(page.body, new RegExp(`action="${path}"`), 'the form posts back to the same path');
    }
  });

  test('ASSUMPTION: version=beta is refused for the published sandbox app', async () => {
    const page = await get(`/sandbox/amazon-seller/apps/authorize/consent?${new URLSearchParams(consentParams({ version: 'beta' }))}`);
    assert.equal(page.statusCode, 400);
    assert.match(page.body, /only for apps in Draft/);
  });

  test('the token endpoint requires redirect_uri on a code grant (RFC 6749 §4.1.3)', async () => {
    const { redirect_uri: _, ...withoutRedirect } = codeGrant((await consent('/sandbox/amazon-seller')).get('spapi_oauth_code')!);
    const response = await postForm('/sandbox/amazon-seller/auth/o2/token', withoutRedirect);
    assert.equal(response.statusCode, 400);
    assert.equal(response.json().error, 'invalid_request');
  });

  test('client credentials are accepted in HTTP Basic as LWA allows, but not in both places at once', async () => {
    const { client_id: _, client_secret: __, ...grant } = codeGrant((await consent('/sandbox/amazon-seller')).get('spapi_oauth_code')!);
    const both = await postForm(
      '/sandbox/amazon-seller/auth/o2/token',
      { ...grant, client_secret: SELLER.lwaClientSecret },
      { authorization: basic(SELLER.lwaClientId, SELLER.lwaClientSecret) },
    );
    assert.equal(both.statusCode, 400);
    assert.equal(both.json().error, 'invalid_request');
    const wrong = await postForm('/sandbox/amazon-seller/auth/o2/token', grant, { authorization: basic(SELLER.lwaClientId, 'nope') });
    assert.equal(wrong.statusCode, 401);
    assert.equal(wrong.json().error, 'invalid_client');
    const good = await postForm('/sandbox/amazon-seller/auth/o2/token', grant, {
      authorization: basic(SELLER.lwaClientId, SELLER.lwaClientSecret),
    });
    // The code was not used up by the refused attempts above, which failed before it was read.
    assert.equal(good.statusCode, 200, good.body);
    assert.match(good.json().access_token, /^Atza\|/);
  });

  test("the Sellers API answers a grant's marketplaces in its own region only", async () => {
    const code = (await consent('/sandbox/amazon-seller/eu')).get('spapi_oauth_code')!;
    const token = (await postForm('/sandbox/amazon-seller/auth/o2/token', codeGrant(code))).json().access_token as string;
    const eu = await get('/sandbox/amazon-seller/eu/sellers/v1/marketplaceParticipations', { 'x-amz-access-token': token });
    assert.equal(eu.statusCode, 200);
    assert.deepEqual(
      eu.json().payload.map((entry: { marketplace: { countryCode: string } }) => entry.marketplace.countryCode),
      ['GB', 'DE'],
    );
    assert.equal(eu.json().payload[0].storeName, 'Sandbox Amazon Store 7');
    const na = await get('/sandbox/amazon-seller/sellers/v1/marketplaceParticipations', { 'x-amz-access-token': token });
    assert.equal(na.statusCode, 403);
    assert.equal(na.json().errors[0].code, 'Unauthorized');
    const none = await get('/sandbox/amazon-seller/eu/sellers/v1/marketplaceParticipations');
    assert.equal(none.statusCode, 403);
  });
});
