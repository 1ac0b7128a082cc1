/**
 * The Content-Security-Policy's `upgrade-insecure-requests` goes only with answers over https (ux review §2.3: over
 * plain http on any host but localhost it sent the dashboard's scripts to https and the page stayed blank). Whether a
 * request came over https is the socket's say, or X-Forwarded-Proto from a trusted proxy only.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestApp, type TestApp } from '../helpers/test-app.js';

const UPGRADE = /upgrade-insecure-requests/;

async function policy(t: TestApp, url: string, headers: Record<string, string> = {}) {
  const response = await t.app.inject({ url, headers, remoteAddress: '10.9.0.1' });
  return String(response.headers['content-security-policy']);
}

describe('upgrade-insecure-requests, without a trusted proxy', () => {
  let t: TestApp;
  before(async () => (t = await createTestApp('pglite')));
  after(() => t.close());

  test('a page over plain http gets the policy without upgrade-insecure-requests, and the rest of it', async () => {
    const csp = await policy(t, '/login');
    assert.doesNotMatch(csp, UPGRADE);
    assert.match(csp, /default-src 'self'/);
    assert.match(csp, /script-src 'self'/);
  });

  test('an API answer over plain http does not get it either', async () => {
    assert.doesNotMatch(await policy(t, '/api/v1/health'), UPGRADE);
  });

  test('a client’s own X-Forwarded-Proto: https is not believed', async () => {
    assert.doesNotMatch(await policy(t, '/login', { 'x-forwarded-proto': 'https' }), UPGRADE);
  });
});

describe('upgrade-insecure-requests behind a trusted proxy (TRUST_PROXY=1)', () => {
  let t: TestApp;
  before(async () => (t = await createTestApp('pglite', { env: { TRUST_PROXY: '1' } })));
  after(() => t.close());

  test('a page the proxy says came over https gets upgrade-insecure-requests', async () => {
    assert.match(await policy(t, '/login', { 'x-forwarded-proto': 'https' }), UPGRADE);
    assert.match(await policy(t, '/api/v1/health', { 'x-forwarded-proto': 'https' }), UPGRADE);
  });

  test('a page the proxy says came over http does not', async () => {
    assert.doesNotMatch(await policy(t, '/login', { 'x-forwarded-proto': 'http' }), UPGRADE);
    assert.doesNotMatch(await policy(t, '/login'), UPGRADE);
  });
});
