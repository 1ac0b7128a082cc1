import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { databaseKinds, selectRows } from '../helpers/database.js';
import { call, createTestApp, errorBody, registerUser, type TestApp } from '../helpers/test-app.js';

for (const kind of databaseKinds()) {
  describe(`accounts [${kind}]`, () => {
    let t: TestApp;
    before(async () => (t = await createTestApp(kind)));
    after(() => t.close());

    test('register creates the user, a workspace named after them with the user as owner, and a 12-hour session', async () => {
      const response = await call(t, 'POST', '/auth/register', {
        body: { email: 'Ada@Example.com', password: 'analytical engine', name: 'Ada' },
      });
      assert.equal(response.statusCode, 201);
      const { data } = response.json();
      assert.deepEqual(data.user, { id: data.user.id, email: 'Ada@Example.com', name: 'Ada' });
      assert.deepEqual(data.workspace, { id: data.workspace.id, name: "Ada's workspace", role: 'owner' });
      assert.equal(new Date(data.expires_at).getTime() - t.clock.now().getTime(), 12 * 3600 * 1000);
      const workspaces = await call(t, 'GET', '/workspaces', { token: data.token });
      assert.deepEqual(workspaces.json().data, [data.workspace]);
    });

    test('an email is unique regardless of case', async () => {
      await registerUser(t, { email: 'grace@example.com' });
      const response = await call(t, 'POST', '/auth/register', {
        body: { email: 'GRACE@example.COM', password: 'another password', name: 'Grace' },
      });
      assert.equal(response.statusCode, 422);
      assert.deepEqual(response.json().errors, { email: ['The email has already been taken.'] });
    });

    test('the password is stored only as a scrypt hash', async () => {
      const { user, password } = await registerUser(t);
      const [row] = await selectRows<{ password_hash: string }>(t.database, sql`select password_hash from users where id = ${user.id}`);
      const hash = row!.password_hash;
      assert.match(hash, /^scrypt\$/);
      assert.ok(!hash.includes(password));
    });

    test('register reports every invalid field at once', async () => {
      const response = await call(t, 'POST', '/auth/register', { body: { email: 'not-an-email', password: 'short', name: '' } });
      assert.equal(response.statusCode, 422);
      const body = response.json();
      assert.equal(body.message, 'The given data was invalid.');
      assert.deepEqual(Object.keys(body.errors).sort(), ['email', 'name', 'password']);
    });

    // PostgreSQL's text cannot hold U+0000: these were 500s (found by test/server/fuzz.test.ts).
    test('a NUL character in the name at register or the email at login is 422 on that field and creates nothing', async () => {
      const [before] = await selectRows<{ n: number }>(t.database, sql`select count(*)::int as n from users`);
      const register = await call(t, 'POST', '/auth/register', {
        body: { email: 'nul@example.com', password: 'correct horse battery', name: 'Nul\u0000' },
      });
      const login = await call(t, 'POST', '/auth/login', {
        body: { email: 'nul\u0000@example.com', password: 'whatever' },
        remoteAddress: '10.0.0.3',
      });
      assert.deepEqual([register.statusCode, login.statusCode], [422, 422]);
      assert.deepEqual(register.json().errors, { name: ['The name field must not contain a NUL character.'] });
      assert.deepEqual(login.json().errors, { email: ['The email field must not contain a NUL character.'] });
      assert.deepEqual(await selectRows(t.database, sql`select count(*)::int as n from users`), [before]);
    });

    test('login with the right password, in any email case, returns a session token', async () => {
      const { user, password } = await registerUser(t);
      const response = await call(t, 'POST', '/auth/login', { body: { email: user.email.toUpperCase(), password } });
      assert.equal(response.statusCode, 200);
      const { data } = response.json();
      assert.equal(typeof data.token, 'string');
      assert.equal((await call(t, 'GET', '/workspaces', { token: data.token })).statusCode, 200);
    });

    test('login with a wrong password or an unknown email is 401 Unauthenticated', async () => {
      const { user } = await registerUser(t);
      const wrong = await call(t, 'POST', '/auth/login', {
        body: { email: user.email, password: 'wrong password' },
        remoteAddress: '10.0.0.1',
      });
      const unknown = await call(t, 'POST', '/auth/login', {
        body: { email: 'nobody@example.com', password: 'whatever' },
        remoteAddress: '10.0.0.2',
      });
      assert.deepEqual(wrong.json(), errorBody(401, 'Unauthenticated'));
      assert.deepEqual(unknown.json(), errorBody(401, 'Unauthenticated'));
    });

    test('logout revokes the session it is called with', async () => {
      const { session } = await registerUser(t);
      const response = await call(t, 'POST', '/auth/logout', { token: session });
      assert.equal(response.statusCode, 200);
      assert.deepEqual(response.json(), { success: true, data: null });
      assert.equal((await call(t, 'GET', '/workspaces', { token: session })).statusCode, 401);
    });
  });
}
