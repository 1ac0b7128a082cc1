/**
 * TRUST_PROXY (issue 12, item 5; red-team M4): only the configured proxy hops or proxy addresses are trusted, so a
 * client cannot choose its own address for the login limiter or the audit log with a left-most X-Forwarded-For.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { loadConfig } from '../../src/config.js';
import { problemsOf } from '../helpers/config.js';
import { databaseKinds } from '../helpers/database.js';
import { call, createTestApp, errorBody, registerUser, type TestApp } from '../helpers/test-app.js';

async function withApp(kind: Parameters<typeof createTestApp>[0], env: Record<string, string>, run: (t: TestApp) => Promise<void>) {
  const t = await createTestApp(kind, { env });
  try {
    await run(t);
  } finally {
    await t.close();
  }
}

/** Creates a PAT through a request from `remoteAddress` with X-Forwarded-For `forwarded`; answers the address its audit entry records. */
async function auditedAddress(t: TestApp, remoteAddress: string, forwarded?: string): Promise<string> {
  const { session, workspace } = await registerUser(t);
  const created = await call(t, 'POST', '/personal-access-tokens', {
    token: session,
    body: { name: 'behind a proxy', expires_in_days: 7 },
    remoteAddress,
    headers: forwarded ? { 'x-forwarded-for': forwarded } : {},
  });
  assert.equal(created.statusCode, 201, created.body);
  const [entry] = (await call(t, 'GET', '/audit-events?per_page=1', { token: session, workspace: workspace.id })).json().data;
  assert.equal(entry.action, 'token.created');
  return entry.ip_address;
}

describe('TRUST_PROXY values', () => {
  test('a number is a count of proxy hops, 0 trusting none; true and false keep their meaning', () => {
    assert.equal(loadConfig({ TRUST_PROXY: '1' }).trustProxy, 1);
    assert.equal(loadConfig({ TRUST_PROXY: '2' }).trustProxy, 2);
    assert.equal(loadConfig({ TRUST_PROXY: '0' }).trustProxy, false);
    assert.equal(loadConfig({ TRUST_PROXY: 'true' }).trustProxy, true);
    assert.equal(loadConfig({ TRUST_PROXY: 'false' }).trustProxy, false);
  });

  test('a comma-separated list of addresses, CIDR ranges and proxy-addr names is a list of trusted proxies', () => {
    assert.deepEqual(loadConfig({ TRUST_PROXY: '10.0.0.0/8, 192.0.2.1,fd00::/8 , loopback' }).trustProxy, [
      '10.0.0.0/8',
      '192.0.2.1',
      'fd00::/8',
      'loopback',
    ]);
  });

  test('anything else is refused at start', () => {
    const message = (got: string) =>
      `TRUST_PROXY: must be true, false, a number of proxy hops, or a comma-separated list of proxy addresses or CIDR ranges (got "${got}")`;
    for (const bad of ['maybe', '10.0.0.0/33', '300.1.1.1', '-1', '::1/129', 'proxy.example.com'])
      assert.deepEqual(problemsOf({ TRUST_PROXY: bad }), [message(bad)], bad);
  });
});

for (const kind of databaseKinds()) {
  describe(`TRUST_PROXY behind one proxy [${kind}]`, () => {
    test('with TRUST_PROXY=1, a client-chosen left-most X-Forwarded-For does not escape the per-address login limit', async () => {
      await withApp(kind, { TRUST_PROXY: '1', LOGIN_RATE_LIMIT_PER_ADDRESS: '3' }, async (t) => {
        const login = (i: number, forwarded: string) =>
          call(t, 'POST', '/auth/login', {
            body: { email: `spoof${i}@example.com`, password: 'wrong password' },
            remoteAddress: '10.9.0.1',
            headers: { 'x-forwarded-for': forwarded },
          });
        // The proxy appends the address it saw (198.51.100.7) to whatever the client sent.
        for (let i = 1; i <= 3; i++) assert.equal((await login(i, `203.0.113.${i}, 198.51.100.7`)).statusCode, 401, `attempt ${i}`);
        const limited = await login(4, '203.0.113.99, 198.51.100.7');
        assert.deepEqual([limited.statusCode, limited.json()], [429, errorBody(429, 'Too many requests')]);
        // Another client behind the same proxy has its own bucket: the limit is not on the proxy's address.
        assert.equal((await login(5, '198.51.100.8')).statusCode, 401);
      });
    });

    test('with TRUST_PROXY=1, the audit log records the address the proxy saw, not one the client chose', async () => {
      await withApp(kind, { TRUST_PROXY: '1' }, async (t) => {
        assert.equal(await auditedAddress(t, '10.9.0.1', '198.51.100.77, 203.0.113.5'), '203.0.113.5');
      });
    });

    test('with TRUST_PROXY listing the proxies, the client is the right-most address not listed; a direct client is its own socket address', async () => {
      await withApp(kind, { TRUST_PROXY: '10.9.0.0/16,192.0.2.1' }, async (t) => {
        assert.equal(await auditedAddress(t, '10.9.0.1', '198.51.100.77, 203.0.113.5, 192.0.2.1'), '203.0.113.5');
        assert.equal(await auditedAddress(t, '203.0.113.50', '198.51.100.77'), '203.0.113.50');
      });
    });
  });
}
