/**
 * Sign-up and login limits (issue 12, item 5; red-team M5 and L3; issue 16, item 2): sign-up is throttled per client
 * address, a sign-up naming a taken e-mail counts against that account's login limit (so it tells no faster than login
 * that the account exists), and the per-e-mail login limiter counts an e-mail exactly as the account lookup folds it.
 * Each refusal is in the seed's error shape and writes nothing.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { databaseKinds, selectRows } from '../helpers/database.js';
import { call, createTestApp, errorBody, registerUser, type TestApp } from '../helpers/test-app.js';

type Response = Awaited<ReturnType<typeof call>>;

function assertRateLimited(response: Response) {
  assert.deepEqual([response.statusCode, response.json()], [429, errorBody(429, 'Too many requests')]);
  const retryAfter = String(response.headers['retry-after']);
  assert.match(retryAfter, /^[0-9]+$/, `Retry-After: ${retryAfter}`);
  assert.ok(Number(retryAfter) >= 1 && Number(retryAfter) <= 60, `Retry-After: ${retryAfter}`);
}

const count = async (t: TestApp, query: ReturnType<typeof sql>) => Number((await selectRows<{ n: string }>(t.database, query))[0]!.n);

async function withApp(kind: Parameters<typeof createTestApp>[0], env: Record<string, string>, run: (t: TestApp) => Promise<void>) {
  const t = await createTestApp(kind, { env });
  try {
    await run(t);
  } finally {
    await t.close();
  }
}

let signups = 0;
const signUp = (t: TestApp, remoteAddress: string) =>
  call(t, 'POST', '/auth/register', {
    body: { email: `signup${++signups}-${Date.now()}@example.com`, password: 'correct horse battery', name: 'Signer' },
    remoteAddress,
  });

for (const kind of databaseKinds()) {
  describe(`sign-up rate limit [${kind}]`, () => {
    test('with SIGNUP_RATE_LIMIT_PER_ADDRESS=3, a 4th sign-up from one address is 429 with Retry-After and creates no account', async () => {
      await withApp(kind, { SIGNUP_RATE_LIMIT_PER_ADDRESS: '3' }, async (t) => {
        for (let i = 1; i <= 3; i++) assert.equal((await signUp(t, '10.1.0.1')).statusCode, 201, `sign-up ${i}`);
        const users = await count(t, sql`select count(*) as n from users`);
        assertRateLimited(await signUp(t, '10.1.0.1'));
        assert.equal(await count(t, sql`select count(*) as n from users`), users);
        assert.equal((await signUp(t, '10.1.0.2')).statusCode, 201, 'another address is not limited by the first');
      });
    });

    test('by default, the 6th sign-up in a minute from one address is 429', async () => {
      // The test app lifts the limit for suites that register many users; an empty value is the default.
      await withApp(kind, { SIGNUP_RATE_LIMIT_PER_ADDRESS: '' }, async (t) => {
        for (let i = 1; i <= 5; i++) assert.equal((await signUp(t, '10.1.1.1')).statusCode, 201, `sign-up ${i}`);
        assertRateLimited(await signUp(t, '10.1.1.1'));
      });
    });
  });

  describe(`sign-up and login share an account's limit [${kind}]`, () => {
    const taken = (t: TestApp, email: string, remoteAddress: string) =>
      call(t, 'POST', '/auth/register', { body: { email, password: 'another good passphrase', name: 'Probe' }, remoteAddress });

    test('sign-ups naming a taken e-mail count against its login limit: after 5, the 6th is 429 without saying taken, and so is login', async () => {
      await withApp(kind, {}, async (t) => {
        const { user, password } = await registerUser(t);
        for (let i = 1; i <= 5; i++) {
          const response = await taken(t, user.email.toUpperCase(), `10.3.0.${i}`);
          assert.deepEqual([response.statusCode, response.json().errors], [422, { email: ['The email has already been taken.'] }], `${i}`);
        }
        assertRateLimited(await taken(t, user.email, '10.3.0.9'));
        assertRateLimited(await call(t, 'POST', '/auth/login', { body: { email: user.email, password }, remoteAddress: '10.3.0.10' }));
      });
    });

    test('after 5 failed logins, a sign-up naming the account is 429, not "taken"', async () => {
      await withApp(kind, {}, async (t) => {
        const { user } = await registerUser(t);
        for (let i = 1; i <= 5; i++) {
          const response = await call(t, 'POST', '/auth/login', {
            body: { email: user.email, password: 'wrong' },
            remoteAddress: `10.3.1.${i}`,
          });
          assert.equal(response.statusCode, 401, `login ${i}`);
        }
        assertRateLimited(await taken(t, user.email, '10.3.1.9'));
      });
    });

    test('a sign-up that creates its account does not count: the new account still has its 5 login attempts', async () => {
      await withApp(kind, {}, async (t) => {
        const { user, password } = await registerUser(t);
        for (let i = 1; i <= 4; i++) {
          const response = await call(t, 'POST', '/auth/login', {
            body: { email: user.email, password: 'wrong' },
            remoteAddress: `10.3.2.${i}`,
          });
          assert.equal(response.statusCode, 401, `login ${i}`);
        }
        const fifth = await call(t, 'POST', '/auth/login', { body: { email: user.email, password }, remoteAddress: '10.3.2.9' });
        assert.equal(fifth.statusCode, 200);
      });
    });
  });

  describe(`login e-mail normalisation [${kind}]`, () => {
    test('a spelling the database folds onto an account (kİt for kit) shares its login bucket: the right password is 429 after 5 wrong ones', async () => {
      await withApp(kind, {}, async (t) => {
        const email = `kit${Date.now()}@example.com`;
        const { password } = await registerUser(t, { email });
        for (let i = 1; i <= 5; i++) {
          const response = await call(t, 'POST', '/auth/login', { body: { email, password: 'wrong' }, remoteAddress: `10.2.0.${i}` });
          assert.equal(response.statusCode, 401, `attempt ${i}`);
        }
        const folded = email.replace('kit', 'kİt');
        assertRateLimited(await call(t, 'POST', '/auth/login', { body: { email: folded, password }, remoteAddress: '10.2.0.9' }));
      });
    });

    test('wrong passwords under the folded spelling count against the account', async () => {
      await withApp(kind, {}, async (t) => {
        const email = `kit${Date.now()}@example.com`;
        const { password } = await registerUser(t, { email });
        const folded = email.replace('kit', 'kİt');
        for (let i = 1; i <= 5; i++) {
          const response = await call(t, 'POST', '/auth/login', {
            body: { email: folded, password: 'wrong' },
            remoteAddress: `10.2.1.${i}`,
          });
          assert.equal(response.statusCode, 401, `attempt ${i}`);
        }
        assertRateLimited(await call(t, 'POST', '/auth/login', { body: { email, password }, remoteAddress: '10.2.1.9' }));
      });
    });
  });
}
