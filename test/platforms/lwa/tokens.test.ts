/** Login with Amazon, which both Amazon tracks use for their tokens: the grants sent and the token answers read. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildLwaCodeGrant, buildLwaRefreshGrant } from '../../../src/platforms/lwa/requests.js';
import { parseLwaTokenResponse } from '../../../src/platforms/lwa/responses.js';
import { rejects } from '../../helpers/platform-http.js';

const NOW = new Date('2026-06-01T12:00:00Z');
const CALLBACK = 'https://storelink.example/api/v1/oauth/callback/amazon-seller';

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
