/**
 * Issue 11, items 3, 6 and 8: the Amazon Ads simulator's connect side holds requests to Login with Amazon's rules, per
 * region: a code redeemed at its own region's token URL, and the profiles of that region. Driven over HTTP as a platform
 * client would call it, with no adapter code.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { SANDBOX_CLIENTS } from '../../../src/sandbox/context.js';
import { createTestApp, injectForm, type TestApp } from '../../helpers/test-app.js';

const ADS = SANDBOX_CLIENTS.amazonAds;

let t: TestApp;
before(async () => {
  t = await createTestApp('pglite');
});
after(() => t.close());

const get = (url: string, headers: Record<string, string> = {}) => t.app.inject({ method: 'GET', url, headers });
const postForm = (url: string, form: Record<string, string>, headers: Record<string, string> = {}) => injectForm(t, url, form, headers);

describe('Amazon Ads simulator', () => {
  const grantParams = (region: string) => ({
    client_id: ADS.clientId,
    scope: 'advertising::campaign_management',
    response_type: 'code',
    redirect_uri: t.deps.sandbox.callbackUrl('amazon-ads'),
    state: `state-${region}`,
  });
  async function code(prefix: string, choices: Record<string, string> = {}) {
    const response = await postForm(`/sandbox/amazon-ads${prefix}/authorize`, {
      ...grantParams(prefix),
      decision: 'allow',
      account: '9',
      ...choices,
    });
    assert.equal(response.statusCode, 302, response.body);
    return new URL(response.headers.location as string).searchParams.get('code')!;
  }
  const redeem = (prefix: string, authorizationCode: string) =>
    postForm(`/sandbox/amazon-ads${prefix}/auth/o2/token`, {
      grant_type: 'authorization_code',
      code: authorizationCode,
      redirect_uri: t.deps.sandbox.callbackUrl('amazon-ads'),
      client_id: ADS.clientId,
      client_secret: ADS.clientSecret,
    });
  const profiles = (prefix: string, token: string) =>
    get(`/sandbox/amazon-ads${prefix}/v2/profiles`, { 'amazon-advertising-api-clientid': ADS.clientId, authorization: `Bearer ${token}` });

  test("a code is redeemed at its own region's token URL only, and its token reads that region's profiles only", async () => {
    const elsewhere = await redeem('', await code('/fe'));
    assert.equal(elsewhere.statusCode, 400);
    assert.equal(elsewhere.json().error, 'invalid_grant');
    const answer = await redeem('/fe', await code('/fe'));
    assert.equal(answer.statusCode, 200, answer.body);
    const token = answer.json().access_token as string;
    const fe = await profiles('/fe', token);
    assert.deepEqual(
      fe.json().map((profile: { countryCode: string }) => profile.countryCode),
      ['JP', 'AU'],
    );
    assert.equal((await profiles('/eu', token)).statusCode, 401);
  });

  test('an account granted with profiles=none has an empty profile list', async () => {
    const token = (await redeem('/eu', await code('/eu', { profiles: 'none' }))).json().access_token as string;
    const answer = await profiles('/eu', token);
    assert.equal(answer.statusCode, 200);
    assert.deepEqual(answer.json(), []);
  });
});
