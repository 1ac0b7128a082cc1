/**
 * Pages get helmet's headers, the API's JSON answers the set OWASP names for APIs (docs/decisions.md, "Security
 * headers"). A page's Content-Security-Policy has `upgrade-insecure-requests` only over https (ux review §2.3: over
 * plain http on any host but localhost it sent the dashboard's scripts to https and the page stayed blank). Whether a
 * request came over https is the socket's say, or X-Forwarded-Proto from a trusted proxy only.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import Fastify from 'fastify';
import { REPLY_HEADERS } from '../../src/http/security-headers.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';

const UPGRADE = /upgrade-insecure-requests/;

async function answer(t: TestApp, url: string, headers: Record<string, string> = {}) {
  return (await t.app.inject({ url, headers, remoteAddress: '10.9.0.1' })).headers;
}

async function policy(t: TestApp, url: string, headers: Record<string, string> = {}) {
  return String((await answer(t, url, headers))['content-security-policy']);
}

/** What every JSON answer of the API carries, and nothing more of helmet's. */
const API_HEADERS = {
  'cache-control': 'no-store',
  'content-security-policy': "default-src 'none'; frame-ancestors 'none'",
  'strict-transport-security': 'max-age=31536000; includeSubDomains',
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
};
/** helmet's headers that only a page a browser renders has any use for. */
const PAGE_ONLY = [
  'cross-origin-opener-policy',
  'cross-origin-resource-policy',
  'origin-agent-cluster',
  'referrer-policy',
  'x-dns-prefetch-control',
  'x-download-options',
  'x-permitted-cross-domain-policies',
  'x-xss-protection',
];

function assertApiHeaders(headers: Record<string, unknown>) {
  for (const [name, value] of Object.entries(API_HEADERS)) assert.equal(headers[name], value, name);
  for (const name of PAGE_ONLY) assert.equal(headers[name], undefined, name);
}

describe('security headers, without a trusted proxy', () => {
  let t: TestApp;
  before(async () => (t = await createTestApp('pglite')));
  after(() => t.close());

  test('a page over plain http gets the policy without upgrade-insecure-requests, and the rest of it', async () => {
    const csp = await policy(t, '/login');
    assert.doesNotMatch(csp, UPGRADE);
    assert.match(csp, /default-src 'self'/);
    assert.match(csp, /script-src 'self'/);
  });

  test("an API answer has the API's headers and none of a page's, an error's included", async () => {
    assertApiHeaders(await answer(t, '/api/v1/health'));
    assertApiHeaders(await answer(t, '/api/v1/user'));
  });

  test("the API's reference is a page: helmet's headers, its own scripts allowed, never cached", async () => {
    const headers = await answer(t, '/api/v1/docs/');
    assert.match(String(headers['content-security-policy']), /script-src 'self'/);
    assert.equal(headers['x-frame-options'], 'SAMEORIGIN');
    assert.equal(headers['cross-origin-opener-policy'], 'same-origin');
    assert.equal(headers['cache-control'], 'no-store');
  });

  test("a page has helmet's headers", async () => {
    const headers = await answer(t, '/login');
    for (const name of PAGE_ONLY) assert.ok(headers[name], name);
    assert.equal(headers['x-frame-options'], 'SAMEORIGIN');
  });

  test('a client’s own X-Forwarded-Proto: https is not believed', async () => {
    assert.doesNotMatch(await policy(t, '/login', { 'x-forwarded-proto': 'https' }), UPGRADE);
  });
});

describe('security headers behind a trusted proxy (TRUST_PROXY=1)', () => {
  let t: TestApp;
  before(async () => (t = await createTestApp('pglite', { env: { TRUST_PROXY: '1' } })));
  after(() => t.close());

  test('a page the proxy says came over https gets upgrade-insecure-requests', async () => {
    assert.match(await policy(t, '/login', { 'x-forwarded-proto': 'https' }), UPGRADE);
    assert.match(await policy(t, '/api/v1/docs/', { 'x-forwarded-proto': 'https' }), UPGRADE);
    // An API answer loads nothing: its policy is the same over either scheme.
    assertApiHeaders(await answer(t, '/api/v1/health', { 'x-forwarded-proto': 'https' }));
  });

  test('a page the proxy says came over http does not', async () => {
    assert.doesNotMatch(await policy(t, '/login', { 'x-forwarded-proto': 'http' }), UPGRADE);
    assert.doesNotMatch(await policy(t, '/login'), UPGRADE);
  });
});

// The hook copies each set onto the object Fastify keeps a reply's headers in, found by a symbol that is not Fastify's
// public API. Should a Fastify release move it, the hook falls back to reply.headers() and the answers above still
// pass: this says that it happened.
test("a reply's headers are still kept where the hook copies them, under Fastify's kReplyHeaders", async () => {
  assert.equal(typeof REPLY_HEADERS, 'symbol');
  const app = Fastify();
  app.get('/', (_request, reply) => {
    Object.assign((reply as unknown as Record<symbol, object>)[REPLY_HEADERS!]!, { 'x-copied': 'yes' });
    return 'sent';
  });
  const answer = await app.inject('/');
  assert.equal(answer.headers['x-copied'], 'yes');
  assert.equal(answer.body, 'sent');
});
