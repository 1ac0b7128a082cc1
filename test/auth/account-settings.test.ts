/**
 * A user's own account (issue 16, item 2): PATCH /user changes the name, POST /user/password the password (the current
 * one required, other sessions ended), and common passwords, passwords of spaces and the account's e-mail are refused
 * at sign-up and change. Every refusal is in the seed's error shape and changes nothing.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { addMembership } from '../../src/db/accounts.repo.js';
import { databaseKinds, selectRows } from '../helpers/database.js';
import { FORBIDDEN, UNAUTHENTICATED } from '../helpers/fixtures.js';
import { call, createPat, createTestApp, errorBody, registerUser, type TestApp, within } from '../helpers/test-app.js';

const NEW_PASSWORD = 'lantern orchard quietly';
const TOO_COMMON = 'This password is too common: choose another.';
const WRONG_CURRENT = 'The current password is incorrect.';
const BLANK = 'The password must have at least 8 characters other than spaces.';
const NOT_EMAIL = 'The password must not be the e-mail address, or the part of it before the @.';

let addresses = 0;
/** A client address of its own per request, so the per-address login limit never decides a test about the per-account one. */
const nextAddress = () => `10.16.${Math.floor(++addresses / 250)}.${(addresses % 250) + 1}`;

const login = (t: TestApp, email: string, password: string) =>
  call(t, 'POST', '/auth/login', { body: { email, password }, remoteAddress: nextAddress() });

const changePassword = (t: TestApp, token: string, body: Record<string, unknown>) =>
  call(t, 'POST', '/user/password', { token, body, remoteAddress: nextAddress() });

/** The audit entries of `action` in a workspace, read through the API by a session allowed to read its log. */
async function auditOf(t: TestApp, session: string, workspaceId: number, action: string) {
  const response = await call(t, 'GET', '/audit-events', { token: session, workspace: workspaceId });
  assert.equal(response.statusCode, 200, response.body);
  return response.json().data.filter((event: { action: string }) => event.action === action);
}

for (const kind of databaseKinds()) {
  describe(`PATCH /user [${kind}]`, () => {
    let t: TestApp;
    before(async () => (t = await createTestApp(kind)));
    after(() => t.close());

    test('a session changes the name, trimmed: the answer is the user as GET /user shows them, without the workspace', async () => {
      const { session, user, workspace } = await registerUser(t, { name: 'Ada' });
      const response = await call(t, 'PATCH', '/user', { token: session, body: { name: '  Ada Lovelace ' } });
      assert.equal(response.statusCode, 200, response.body);
      assert.deepEqual(response.json(), { success: true, data: { id: user.id, email: user.email, name: 'Ada Lovelace' } });
      const current = await call(t, 'GET', '/user', { token: session, workspace: workspace.id });
      assert.equal(current.json().data.name, 'Ada Lovelace');
    });

    test('a personal access token may change the name, with or without X-Workspace-Id', async () => {
      const { session, user } = await registerUser(t);
      const pat = await createPat(t, session);
      const plain = await call(t, 'PATCH', '/user', { token: pat.token, body: { name: 'Scripted' } });
      assert.deepEqual([plain.statusCode, plain.json().data.name], [200, 'Scripted']);
      const withHeader = await call(t, 'PATCH', '/user', { token: pat.token, workspace: 999_999, body: { name: 'Again' } });
      assert.deepEqual([withHeader.statusCode, withHeader.json().data], [200, { id: user.id, email: user.email, name: 'Again' }]);
    });

    test('the change is in the audit log of each of the user’s workspaces, with the old and new names', async () => {
      const { session, user, workspace } = await registerUser(t, { name: 'Grace' });
      const other = await registerUser(t);
      await addMembership(t.database.db, { userId: user.id, workspaceId: other.workspace.id, role: 'member' });
      assert.equal((await call(t, 'PATCH', '/user', { token: session, body: { name: 'Grace Hopper' } })).statusCode, 200);
      for (const [reader, workspaceId] of [
        [session, workspace.id],
        [other.session, other.workspace.id],
      ] as const) {
        const [event] = await auditOf(t, reader, workspaceId, 'user.name_changed');
        assert.deepEqual(
          { actor: event.actor, subject: event.subject, details: event.details },
          {
            actor: { id: user.id, email: user.email, name: 'Grace Hopper' },
            subject: { type: 'user', id: user.id },
            details: { name: 'Grace Hopper', previous_name: 'Grace' },
          },
        );
      }
    });

    test('an empty, blank or 101-character name is 422 on name, and the name stays', async () => {
      const { session, workspace, user } = await registerUser(t, { name: 'Kept' });
      for (const name of ['', '   ', 'x'.repeat(101)]) {
        const response = await call(t, 'PATCH', '/user', { token: session, body: { name } });
        assert.equal(response.statusCode, 422, JSON.stringify(name));
        assert.equal(response.json().message, 'The given data was invalid.');
        assert.deepEqual(Object.keys(response.json().errors), ['name']);
      }
      const missing = await call(t, 'PATCH', '/user', { token: session, body: {} });
      assert.deepEqual([missing.statusCode, Object.keys(missing.json().errors)], [422, ['name']]);
      const current = await call(t, 'GET', '/user', { token: session, workspace: workspace.id });
      assert.equal(current.json().data.name, user.name);
    });

    test('without a bearer, or with a revoked one, it is 401 Unauthenticated', async () => {
      const { session } = await registerUser(t);
      const anonymous = await call(t, 'PATCH', '/user', { body: { name: 'Nobody' } });
      assert.deepEqual([anonymous.statusCode, anonymous.json()], [401, UNAUTHENTICATED]);
      assert.equal((await call(t, 'POST', '/auth/logout', { token: session })).statusCode, 200);
      const revoked = await call(t, 'PATCH', '/user', { token: session, body: { name: 'Nobody' } });
      assert.deepEqual([revoked.statusCode, revoked.json()], [401, UNAUTHENTICATED]);
    });
  });

  describe(`POST /user/password [${kind}]`, () => {
    let t: TestApp;
    // Each attempt counts against the account's login limit; its own test below runs with the default of 5.
    before(async () => (t = await createTestApp(kind, { env: { LOGIN_RATE_LIMIT_PER_EMAIL: '100' } })));
    after(() => t.close());

    /** A user with two sessions (the dashboard in two browsers) and a PAT. */
    async function userWithTwoSessions() {
      const registered = await registerUser(t);
      const second = await login(t, registered.user.email, registered.password);
      assert.equal(second.statusCode, 200, second.body);
      const pat = await createPat(t, registered.session);
      return { ...registered, other: second.json().data.token as string, pat: pat.token };
    }

    const workspacesWith = async (token: string) => (await call(t, 'GET', '/workspaces', { token })).statusCode;

    test('the right current password and a good new one: 200 with the user; the new password logs in, the old one does not', async () => {
      const { session, user, password } = await userWithTwoSessions();
      const response = await changePassword(t, session, { current_password: password, password: NEW_PASSWORD });
      assert.equal(response.statusCode, 200, response.body);
      assert.deepEqual(response.json(), { success: true, data: { id: user.id, email: user.email, name: user.name } });
      assert.equal((await login(t, user.email, NEW_PASSWORD)).statusCode, 200);
      assert.deepEqual((await login(t, user.email, password)).json(), UNAUTHENTICATED);
    });

    test('every other session ends at once, the calling session goes on, and personal access tokens are kept', async () => {
      const { session, other, pat, password } = await userWithTwoSessions();
      // Both sessions are in the authentication cache before the change.
      assert.deepEqual([await workspacesWith(session), await workspacesWith(other)], [200, 200]);
      assert.equal((await changePassword(t, session, { current_password: password, password: NEW_PASSWORD })).statusCode, 200);
      const refused = await call(t, 'GET', '/workspaces', { token: other });
      assert.deepEqual([refused.statusCode, refused.json()], [401, UNAUTHENTICATED]);
      assert.equal(await workspacesWith(session), 200);
      assert.equal(await workspacesWith(pat), 200);
    });

    test('the change is audited as user.password_changed in the user’s workspace, with the number of sessions ended', async () => {
      const { session, user, workspace, password } = await userWithTwoSessions();
      assert.equal((await changePassword(t, session, { current_password: password, password: NEW_PASSWORD })).statusCode, 200);
      const [event] = await auditOf(t, session, workspace.id, 'user.password_changed');
      assert.deepEqual(
        { actor: event.actor?.id, subject: event.subject, details: event.details },
        { actor: user.id, subject: { type: 'user', id: user.id }, details: { by: 'user', sessions_ended: 1 } },
      );
    });

    test('a wrong current password is 422 on current_password, and nothing changes', async () => {
      const { session, other, user, password } = await userWithTwoSessions();
      const response = await changePassword(t, session, { current_password: 'not my password', password: NEW_PASSWORD });
      assert.equal(response.statusCode, 422);
      assert.deepEqual(response.json(), {
        ...errorBody(422, 'The given data was invalid.'),
        errors: { current_password: [WRONG_CURRENT] },
      });
      assert.equal((await login(t, user.email, password)).statusCode, 200);
      assert.equal((await login(t, user.email, NEW_PASSWORD)).statusCode, 401);
      assert.equal(await workspacesWith(other), 200);
    });

    test('a common new password is 422 on password, in any case, and nothing changes', async () => {
      const { session, other, user, password } = await userWithTwoSessions();
      for (const common of ['password1', 'Password1', 'QWERTYUIOP', 'iloveyou']) {
        const response = await changePassword(t, session, { current_password: password, password: common });
        assert.equal(response.statusCode, 422, common);
        assert.deepEqual(response.json().errors, { password: [TOO_COMMON] }, common);
      }
      assert.equal((await login(t, user.email, password)).statusCode, 200);
      assert.equal(await workspacesWith(other), 200);
    });

    test('a new password of spaces, or the account’s e-mail, is 422 on password, and nothing changes', async () => {
      const { session, other, user, password } = await userWithTwoSessions();
      for (const [fresh, message] of [
        [' '.repeat(12), BLANK],
        [user.email.toUpperCase(), NOT_EMAIL],
      ] as const) {
        const response = await changePassword(t, session, { current_password: password, password: fresh });
        assert.equal(response.statusCode, 422, fresh);
        assert.deepEqual(response.json(), { ...errorBody(422, 'The given data was invalid.'), errors: { password: [message] } });
      }
      assert.equal((await login(t, user.email, password)).statusCode, 200);
      assert.equal(await workspacesWith(other), 200);
    });

    test('a wrong current password and a common new one are both reported at once', async () => {
      const { session } = await userWithTwoSessions();
      const response = await changePassword(t, session, { current_password: 'not my password', password: 'password1' });
      assert.deepEqual([response.statusCode, response.json().errors], [422, { current_password: [WRONG_CURRENT], password: [TOO_COMMON] }]);
    });

    test('a new password shorter than 8 characters, or no current password, is 422 on that field, and nothing changes', async () => {
      const { session, user, password } = await userWithTwoSessions();
      const short = await changePassword(t, session, { current_password: password, password: 'short' });
      assert.deepEqual([short.statusCode, short.json().errors], [422, { password: ['The password field must be at least 8 characters.'] }]);
      const noCurrent = await changePassword(t, session, { password: NEW_PASSWORD });
      assert.deepEqual([noCurrent.statusCode, Object.keys(noCurrent.json().errors)], [422, ['current_password']]);
      assert.equal((await login(t, user.email, password)).statusCode, 200);
    });

    test('a personal access token is 403, and nothing changes', async () => {
      const { pat, other, user, password } = await userWithTwoSessions();
      const response = await changePassword(t, pat, { current_password: password, password: NEW_PASSWORD });
      assert.deepEqual([response.statusCode, response.json()], [403, FORBIDDEN]);
      assert.equal((await login(t, user.email, password)).statusCode, 200);
      assert.equal(await workspacesWith(other), 200);
    });

    test('without a bearer it is 401, before the body is looked at', async () => {
      const response = await call(t, 'POST', '/user/password', { body: { current_password: 'x', password: 'short' } });
      assert.deepEqual([response.statusCode, response.json()], [401, UNAUTHENTICATED]);
    });
  });

  describe(`POST /user/password and the login limit [${kind}]`, () => {
    let t: TestApp;
    before(async () => (t = await createTestApp(kind)));
    after(() => t.close());

    test('tries count against the account’s 5 login attempts a minute: past them, the right password is 429 here and at login', async () => {
      const { session, user, password } = await registerUser(t);
      for (let i = 1; i <= 5; i++) {
        const response = await changePassword(t, session, { current_password: `wrong ${i}`, password: NEW_PASSWORD });
        assert.equal(response.statusCode, 422, `attempt ${i}`);
      }
      const limited = await changePassword(t, session, { current_password: password, password: NEW_PASSWORD });
      assert.deepEqual([limited.statusCode, limited.json()], [429, errorBody(429, 'Too many requests')]);
      assert.match(String(limited.headers['retry-after']), /^[0-9]+$/);
      assert.equal((await login(t, user.email, password)).statusCode, 429);
    });

    test('failed logins count too: after 5, a change with the right current password is 429 and changes nothing', async () => {
      const { session, user, password } = await registerUser(t);
      for (let i = 1; i <= 5; i++) assert.equal((await login(t, user.email, `wrong ${i}`)).statusCode, 401, `login ${i}`);
      const limited = await changePassword(t, session, { current_password: password, password: NEW_PASSWORD });
      assert.equal(limited.statusCode, 429);
      const [row] = await selectRows<{ n: number }>(
        t.database,
        sql`select count(*)::int as n from audit_events where action = 'user.password_changed' and subject_id = ${user.id}`,
      );
      assert.equal(row!.n, 0);
    });
  });

  describe(`other sessions end on every instance [${kind}]`, () => {
    let first: TestApp;
    let second: TestApp;
    before(async () => {
      first = await createTestApp(kind);
      second = await createTestApp(kind, { database: first.database });
    });
    after(async () => {
      await second.close();
      await first.close();
    });

    test('a session cached by another instance is refused there within a second of a password change', async () => {
      const { session, user, password } = await registerUser(first);
      const other = (await login(first, user.email, password)).json().data.token as string;
      const onSecond = (token: string) => call(second, 'GET', '/workspaces', { token });
      assert.deepEqual([(await onSecond(other)).statusCode, (await onSecond(session)).statusCode], [200, 200]);
      const since = performance.now();
      assert.equal((await changePassword(first, session, { current_password: password, password: NEW_PASSWORD })).statusCode, 200);
      await within(1_000, async () => (await onSecond(other)).statusCode === 401, { since });
      assert.equal((await onSecond(session)).statusCode, 200);
    });

    test('a new name shows on another instance within a second', async () => {
      const { session, workspace } = await registerUser(first, { name: 'Before' });
      const onSecond = () => call(second, 'GET', '/user', { token: session, workspace: workspace.id });
      assert.equal((await onSecond()).json().data.name, 'Before');
      assert.equal((await call(first, 'PATCH', '/user', { token: session, body: { name: 'After' } })).statusCode, 200);
      await within(1_000, async () => (await onSecond()).json().data.name === 'After');
    });
  });

  describe(`common passwords at sign-up [${kind}]`, () => {
    let t: TestApp;
    before(async () => (t = await createTestApp(kind)));
    after(() => t.close());

    test('a password in the list of common passwords is 422 on password, and no account is made', async () => {
      const email = `common-${Date.now()}@example.com`;
      for (const password of ['password', '12345678', 'Iloveyou', 'abcd1234']) {
        const response = await call(t, 'POST', '/auth/register', { body: { email, password, name: 'Common' } });
        assert.equal(response.statusCode, 422, password);
        assert.deepEqual(response.json(), { ...errorBody(422, 'The given data was invalid.'), errors: { password: [TOO_COMMON] } });
      }
      assert.equal((await login(t, email, 'password')).statusCode, 401);
    });

    test('a password of spaces, or the e-mail (in any case, contained, or its part before the @), is 422 on password, and no account is made', async () => {
      const email = `Blank.${Date.now()}@Example.com`;
      const cases: [string, string[]][] = [
        [' '.repeat(8), [BLANK]],
        ['\u00a0'.repeat(10), [BLANK]],
        [`a${' '.repeat(7)}`, [BLANK]],
        [email.toLowerCase(), [NOT_EMAIL]],
        [` ${email.toUpperCase()} `, [NOT_EMAIL]],
        [`${email}!`, [NOT_EMAIL]],
        [email.split('@')[0]!, [NOT_EMAIL]],
      ];
      for (const [password, messages] of cases) {
        const response = await call(t, 'POST', '/auth/register', {
          body: { email, password, name: 'Blank' },
          remoteAddress: nextAddress(),
        });
        assert.equal(response.statusCode, 422, JSON.stringify(password));
        assert.deepEqual(response.json(), { ...errorBody(422, 'The given data was invalid.'), errors: { password: messages } });
      }
      const [row] = await selectRows<{ n: number }>(
        t.database,
        sql`select count(*)::int as n from users where lower(email) = ${email.toLowerCase()}`,
      );
      assert.equal(row!.n, 0);
      const passphrase = await call(t, 'POST', '/auth/register', {
        body: { email, password: 'a b c d e f g h', name: 'Blank' },
        remoteAddress: nextAddress(),
      });
      assert.equal(passphrase.statusCode, 201, 'spaces between 8 other characters are welcome');
    });

    test('a taken e-mail and a common password are both reported', async () => {
      const { user } = await registerUser(t);
      const response = await call(t, 'POST', '/auth/register', { body: { email: user.email, password: 'password1', name: 'Again' } });
      assert.deepEqual(response.json().errors, { email: ['The email has already been taken.'], password: [TOO_COMMON] });
    });
  });
}
