import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { databaseKinds } from '../helpers/database.js';
import { call, createTestApp, errorBody, registerUser, type TestApp } from '../helpers/test-app.js';

// The limiter counts in real time (a one-minute window) and each app has its own, so every scenario gets a fresh app.
// Lifting the limit after the window is left untested: it would take a minute of sleeping.

async function withApp(kind: Parameters<typeof createTestApp>[0], env: Record<string, string>, run: (t: TestApp) => Promise<void>) {
  const t = await createTestApp(kind, { env });
  try {
    await run(t);
  } finally {
    await t.close();
  }
}

function login(t: TestApp, email: string, password: string, remoteAddress: string) {
  return call(t, 'POST', '/auth/login', { body: { email, password }, remoteAddress });
}

function assertRateLimited(response: Awaited<ReturnType<typeof call>>) {
  assert.equal(response.statusCode, 429);
  assert.deepEqual(response.json(), errorBody(429, 'Too many requests'));
  const retryAfter = String(response.headers['retry-after']);
  assert.match(retryAfter, /^[0-9]+$/);
  assert.ok(Number(retryAfter) >= 1 && Number(retryAfter) <= 60, `Retry-After: ${retryAfter}`);
}

for (const kind of databaseKinds()) {
  describe(`login rate limit [${kind}]`, () => {
    test('after 5 attempts for one email from 5 addresses, a 6th from a new address is 429 even with the right password', async () => {
      await withApp(kind, {}, async (t) => {
        const { user, password } = await registerUser(t);
        for (let i = 1; i <= 5; i++) {
          const response = await login(t, user.email, 'wrong password', `10.0.1.${i}`);
          assert.deepEqual(response.json(), errorBody(401, 'Unauthenticated'), `attempt ${i}`);
        }
        assertRateLimited(await login(t, user.email, password, '10.0.1.6'));
      });
    });

    test('the per-email limit of one email leaves another email from the same addresses alone', async () => {
      await withApp(kind, {}, async (t) => {
        const target = await registerUser(t);
        const other = await registerUser(t);
        for (let i = 1; i <= 6; i++) await login(t, target.user.email, 'wrong password', `10.0.2.${i}`);
        assertRateLimited(await login(t, target.user.email, target.password, '10.0.2.7'));
        for (let i = 1; i <= 5; i++) {
          const response = await login(t, other.user.email, 'wrong password', `10.0.2.${i}`);
          assert.deepEqual(response.json(), errorBody(401, 'Unauthenticated'), `attempt ${i}`);
        }
      });
    });

    test('the per-email limit counts an email the same whatever its case and surrounding spaces', async () => {
      await withApp(kind, {}, async (t) => {
        const { user } = await registerUser(t, { email: `mixed-${Date.now()}@example.com` });
        const variants = [user.email, user.email.toUpperCase(), ` ${user.email}`, `${user.email} `, user.email.replace('mixed', 'MiXeD')];
        for (const [i, email] of variants.entries()) {
          assert.equal((await login(t, email, 'wrong password', `10.0.3.${i + 1}`)).statusCode, 401, email);
        }
        assertRateLimited(await login(t, user.email, 'wrong password', '10.0.3.9'));
      });
    });

    test('with LOGIN_RATE_LIMIT_PER_EMAIL=2, the 3rd attempt for one email is 429', async () => {
      await withApp(kind, { LOGIN_RATE_LIMIT_PER_EMAIL: '2' }, async (t) => {
        const { user } = await registerUser(t);
        for (let i = 1; i <= 2; i++) assert.equal((await login(t, user.email, 'wrong password', `10.0.4.${i}`)).statusCode, 401);
        assertRateLimited(await login(t, user.email, 'wrong password', '10.0.4.3'));
      });
    });

    test('with LOGIN_RATE_LIMIT_PER_ADDRESS=3, a 4th attempt from one address is 429 whatever the email', async () => {
      await withApp(kind, { LOGIN_RATE_LIMIT_PER_ADDRESS: '3' }, async (t) => {
        for (let i = 1; i <= 3; i++) {
          const response = await login(t, `someone${i}@example.com`, 'wrong password', '10.0.5.1');
          assert.deepEqual(response.json(), errorBody(401, 'Unauthenticated'), `attempt ${i}`);
        }
        assertRateLimited(await login(t, 'someone4@example.com', 'wrong password', '10.0.5.1'));
      });
    });

    test('with LOGIN_RATE_LIMIT_PER_ADDRESS=3, another address is not limited by the first one', async () => {
      await withApp(kind, { LOGIN_RATE_LIMIT_PER_ADDRESS: '3' }, async (t) => {
        for (let i = 1; i <= 3; i++) await login(t, `someone${i}@example.com`, 'wrong password', '10.0.6.1');
        assertRateLimited(await login(t, 'someone4@example.com', 'wrong password', '10.0.6.1'));
        const response = await login(t, 'someone5@example.com', 'wrong password', '10.0.6.2');
        assert.deepEqual(response.json(), errorBody(401, 'Unauthenticated'));
      });
    });

    test('without TRUST_PROXY, a forged X-Forwarded-For does not escape the per-address limit', async () => {
      await withApp(kind, { LOGIN_RATE_LIMIT_PER_ADDRESS: '3' }, async (t) => {
        for (let i = 1; i <= 3; i++) {
          const response = await call(t, 'POST', '/auth/login', {
            body: { email: `forged${i}@example.com`, password: 'wrong password' },
            remoteAddress: '10.0.7.1',
            headers: { 'x-forwarded-for': `203.0.113.${i}` },
          });
          assert.equal(response.statusCode, 401, `attempt ${i}`);
        }
        const response = await call(t, 'POST', '/auth/login', {
          body: { email: 'forged4@example.com', password: 'wrong password' },
          remoteAddress: '10.0.7.1',
          headers: { 'x-forwarded-for': '203.0.113.99' },
        });
        assertRateLimited(response);
      });
    });
  });
}
