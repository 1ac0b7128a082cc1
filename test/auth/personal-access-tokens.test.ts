import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { databaseKinds, selectRows } from '../helpers/database.js';
import { FORBIDDEN, UNAUTHENTICATED } from '../helpers/fixtures.js';
import { call, createPat, createTestApp, errorBody, registerUser, type TestApp } from '../helpers/test-app.js';

const SECOND = 1000;
const HOUR = 3600 * SECOND;
const DAY = 24 * HOUR;

/** The 422 body with one field's messages. */
function invalid(field: string, messages: string[]) {
  return { ...errorBody(422, 'The given data was invalid.'), errors: { [field]: messages } };
}

for (const kind of databaseKinds()) {
  describe(`personal access tokens [${kind}]`, () => {
    let t: TestApp;
    before(async () => (t = await createTestApp(kind)));
    after(() => t.close());

    /** A new user with a PAT, so a test never depends on the clock moves of another. */
    async function userWithPat(body: { name?: string; expires_in_days?: number | null } = {}) {
      const account = await registerUser(t);
      const pat = await createPat(t, account.session, body);
      return { ...account, pat };
    }

    const listPats = async (session: string) =>
      (await call(t, 'GET', '/personal-access-tokens', { token: session })).json().data as Array<Record<string, unknown>>;

    const patRowCount = async (userId: number) =>
      (
        await selectRows<{ n: number }>(
          t.database,
          sql`select count(*)::int as n from access_tokens where user_id = ${userId} and kind = 'pat'`,
        )
      )[0]!.n;

    /** The token's access_tokens row with its times as epoch milliseconds, so both drivers compare alike. */
    async function tokenRow(id: number) {
      const [row] = await selectRows<{
        kind: string;
        name: string;
        expires_ms: number | null;
        last_used_ms: number | null;
        revoked_ms: number | null;
      }>(
        t.database,
        sql`select kind, name,
              (extract(epoch from expires_at) * 1000)::float8 as expires_ms,
              (extract(epoch from last_used_at) * 1000)::float8 as last_used_ms,
              (extract(epoch from revoked_at) * 1000)::float8 as revoked_ms
            from access_tokens where id = ${id}`,
      );
      assert.ok(row, `no access_tokens row ${id}`);
      return row;
    }

    const workspacesStatus = async (token: string) => (await call(t, 'GET', '/workspaces', { token })).statusCode;

    describe('creating', () => {
      test('a session creates a PAT: 201 with id, name, the token value, created_at, expires_at and a null last_used_at', async () => {
        const { session } = await registerUser(t);
        const response = await call(t, 'POST', '/personal-access-tokens', {
          token: session,
          body: { name: 'deploy script', expires_in_days: 30 },
        });
        assert.equal(response.statusCode, 201);
        const { success, data } = response.json();
        assert.equal(success, true);
        assert.deepEqual(Object.keys(data).sort(), ['created_at', 'expires_at', 'id', 'last_used_at', 'name', 'token']);
        assert.ok(Number.isInteger(data.id) && data.id > 0);
        assert.equal(data.name, 'deploy script');
        assert.equal(typeof data.token, 'string');
        assert.equal(data.created_at, t.clock.now().toISOString());
        assert.equal(data.last_used_at, null);
        assert.equal(await workspacesStatus(data.token), 200);
      });

      for (const days of [7, 30, 60, 90, 365]) {
        test(`expires_in_days ${days} sets expires_at exactly ${days} days after created_at`, async () => {
          const { pat } = await userWithPat({ expires_in_days: days });
          assert.equal(pat.created_at, t.clock.now().toISOString());
          assert.equal(new Date(pat.expires_at!).getTime() - new Date(pat.created_at).getTime(), days * DAY);
        });
      }

      test('expires_in_days null gives a PAT with expires_at null that still works ten years later', async () => {
        const { pat } = await userWithPat({ expires_in_days: null });
        assert.equal(pat.expires_at, null);
        t.clock.advance(10 * 365 * DAY);
        assert.equal(await workspacesStatus(pat.token), 200);
      });

      const badExpiries: Array<[string, unknown]> = [
        ['1', 1],
        ['14', 14],
        ['the string "30"', '30'],
        ['-7', -7],
        ['400', 400],
        ['true', true],
      ];
      for (const [label, value] of badExpiries) {
        test(`expires_in_days ${label} is 422 on expires_in_days and creates nothing`, async () => {
          const { session, user } = await registerUser(t);
          const response = await call(t, 'POST', '/personal-access-tokens', {
            token: session,
            body: { name: 'x', expires_in_days: value },
          });
          assert.equal(response.statusCode, 422);
          assert.deepEqual(response.json(), invalid('expires_in_days', ['The selected expires in days is invalid.']));
          assert.equal(await patRowCount(user.id), 0);
        });
      }

      test('a missing expires_in_days is 422 (no expiry must be asked for with null) and creates nothing', async () => {
        const { session, user } = await registerUser(t);
        const response = await call(t, 'POST', '/personal-access-tokens', { token: session, body: { name: 'x' } });
        assert.deepEqual(response.json(), invalid('expires_in_days', ['The expires in days field is required.']));
        assert.equal(response.statusCode, 422);
        assert.equal(await patRowCount(user.id), 0);
      });

      const badNames: Array<[string, Record<string, unknown>, string]> = [
        ['a missing name', { expires_in_days: 30 }, 'The name field is required.'],
        ['a blank name', { name: '   ', expires_in_days: 30 }, 'The name field format is invalid.'],
        ['a 101-character name', { name: 'n'.repeat(101), expires_in_days: 30 }, 'The name field must not be greater than 100 characters.'],
        ['a numeric name', { name: 42, expires_in_days: 30 }, 'The name field must be a string.'],
        // PostgreSQL's text cannot hold U+0000: this was a 500 (found by test/server/fuzz.test.ts).
        [
          'a name with a NUL character',
          { name: 'my\u0000script', expires_in_days: 30 },
          'The name field must not contain a NUL character.',
        ],
      ];
      for (const [label, body, message] of badNames) {
        test(`${label} is 422 on name and creates nothing`, async () => {
          const { session, user } = await registerUser(t);
          const response = await call(t, 'POST', '/personal-access-tokens', { token: session, body });
          assert.equal(response.statusCode, 422);
          assert.deepEqual(response.json(), invalid('name', [message]));
          assert.equal(await patRowCount(user.id), 0);
          assert.deepEqual(await listPats(session), []);
        });
      }

      test('a name of exactly 100 characters is accepted', async () => {
        const { pat } = await userWithPat({ name: 'n'.repeat(100) });
        assert.equal(pat.name, 'n'.repeat(100));
      });
    });

    describe('listing', () => {
      test('the list shows id, name, created_at, expires_at and last_used_at, and never the token value', async () => {
        const { session, pat } = await userWithPat({ name: 'ci', expires_in_days: 90 });
        const response = await call(t, 'GET', '/personal-access-tokens', { token: session });
        assert.equal(response.statusCode, 200);
        assert.deepEqual(response.json().data, [
          { id: pat.id, name: 'ci', created_at: pat.created_at, expires_at: pat.expires_at, last_used_at: null },
        ]);
        assert.ok(!response.body.includes(pat.token), 'the token value appears in the list');
        assert.ok(!response.body.includes(pat.token.split('.')[2]!), 'the token signature appears in the list');
      });

      test("the list holds only the user's own PATs, not their sessions nor other users' PATs", async () => {
        const alice = await userWithPat({ name: 'alice-1' });
        const second = await createPat(t, alice.session, { name: 'alice-2' });
        await userWithPat({ name: 'bob-1' });
        const names = (await listPats(alice.session)).map((item) => item.name);
        assert.deepEqual(names.sort(), ['alice-1', 'alice-2']);
        assert.ok(second.id > alice.pat.id);
      });

      test('the access_tokens row of a PAT has kind pat, its name and its expiry, and never the token value', async () => {
        const { pat } = await userWithPat({ name: 'row check', expires_in_days: 7 });
        const row = await tokenRow(pat.id);
        assert.deepEqual(
          { kind: row.kind, name: row.name, expires_ms: row.expires_ms },
          { kind: 'pat', name: 'row check', expires_ms: new Date(pat.created_at).getTime() + 7 * DAY },
        );
        const [raw] = await selectRows(t.database, sql`select * from access_tokens where id = ${pat.id}`);
        const stored = JSON.stringify(raw);
        assert.ok(!stored.includes(pat.token), 'the token value is stored');
        assert.ok(!stored.includes(pat.token.split('.')[2]!), 'the token signature is stored');
      });
    });

    describe('session only', () => {
      test('a PAT cannot list PATs (403)', async () => {
        const { pat } = await userWithPat();
        const response = await call(t, 'GET', '/personal-access-tokens', { token: pat.token });
        assert.equal(response.statusCode, 403);
        assert.deepEqual(response.json(), FORBIDDEN);
      });

      test('a PAT cannot create a PAT (403) and nothing is created', async () => {
        const { pat, user } = await userWithPat();
        const response = await call(t, 'POST', '/personal-access-tokens', {
          token: pat.token,
          body: { name: 'minted by a PAT', expires_in_days: null },
        });
        assert.equal(response.statusCode, 403);
        assert.deepEqual(response.json(), FORBIDDEN);
        assert.equal(await patRowCount(user.id), 1);
      });

      test('a PAT cannot revoke a PAT (403) and the target keeps working', async () => {
        const { pat, session } = await userWithPat();
        const target = await createPat(t, session, { name: 'target' });
        const response = await call(t, 'DELETE', `/personal-access-tokens/${target.id}`, { token: pat.token });
        assert.equal(response.statusCode, 403);
        assert.deepEqual(response.json(), FORBIDDEN);
        assert.equal(await workspacesStatus(target.token), 200);
      });

      test('a PAT cannot call POST /auth/logout (403) and stays valid', async () => {
        const { pat } = await userWithPat();
        const response = await call(t, 'POST', '/auth/logout', { token: pat.token });
        assert.equal(response.statusCode, 403);
        assert.deepEqual(response.json(), FORBIDDEN);
        assert.equal(await workspacesStatus(pat.token), 200);
      });
    });

    describe('revoking', () => {
      test('DELETE /personal-access-tokens/{id} answers 200 with data null', async () => {
        const { session, pat } = await userWithPat();
        const response = await call(t, 'DELETE', `/personal-access-tokens/${pat.id}`, { token: session });
        assert.equal(response.statusCode, 200);
        assert.deepEqual(response.json(), { success: true, data: null });
      });

      test('a revoked PAT is 401 at once', async () => {
        const { session, pat } = await userWithPat();
        assert.equal(await workspacesStatus(pat.token), 200);
        await call(t, 'DELETE', `/personal-access-tokens/${pat.id}`, { token: session });
        const response = await call(t, 'GET', '/workspaces', { token: pat.token });
        assert.equal(response.statusCode, 401);
        assert.deepEqual(response.json(), UNAUTHENTICATED);
      });

      test('a revoked PAT disappears from the list while the others stay', async () => {
        const { session, pat } = await userWithPat({ name: 'goes' });
        const kept = await createPat(t, session, { name: 'stays' });
        await call(t, 'DELETE', `/personal-access-tokens/${pat.id}`, { token: session });
        assert.deepEqual(
          (await listPats(session)).map((item) => item.id),
          [kept.id],
        );
      });

      test('revoking records revoked_at at the clock time', async () => {
        const { session, pat } = await userWithPat();
        t.clock.advance(5 * SECOND);
        await call(t, 'DELETE', `/personal-access-tokens/${pat.id}`, { token: session });
        assert.equal((await tokenRow(pat.id)).revoked_ms, t.clock.now().getTime());
      });

      test('revoking an already revoked PAT is 404 Not found', async () => {
        const { session, pat } = await userWithPat();
        await call(t, 'DELETE', `/personal-access-tokens/${pat.id}`, { token: session });
        const again = await call(t, 'DELETE', `/personal-access-tokens/${pat.id}`, { token: session });
        assert.equal(again.statusCode, 404);
        assert.deepEqual(again.json(), errorBody(404, 'Not found'));
      });

      test("revoking another user's PAT is 404 and leaves it working", async () => {
        const mallory = await registerUser(t);
        const victim = await userWithPat();
        const response = await call(t, 'DELETE', `/personal-access-tokens/${victim.pat.id}`, { token: mallory.session });
        assert.equal(response.statusCode, 404);
        assert.deepEqual(response.json(), errorBody(404, 'Not found'));
        assert.equal(await workspacesStatus(victim.pat.token), 200);
        assert.equal((await tokenRow(victim.pat.id)).revoked_ms, null);
      });

      test('revoking a session id through the PAT route is 404 and leaves the session working', async () => {
        const { session, user } = await registerUser(t);
        const [row] = await selectRows<{ id: number }>(
          t.database,
          sql`select id from access_tokens where user_id = ${user.id} and kind = 'session'`,
        );
        const response = await call(t, 'DELETE', `/personal-access-tokens/${row!.id}`, { token: session });
        assert.equal(response.statusCode, 404);
        assert.equal(await workspacesStatus(session), 200);
      });

      for (const id of ['abc', '0', '1.5', '-3']) {
        test(`revoking id "${id}" is 422 on id`, async () => {
          const { session } = await registerUser(t);
          const response = await call(t, 'DELETE', `/personal-access-tokens/${id}`, { token: session });
          assert.equal(response.statusCode, 422);
          const body = response.json();
          assert.deepEqual(
            { ...body, errors: Object.keys(body.errors) },
            { ...errorBody(422, 'The given data was invalid.'), errors: ['id'] },
          );
        });
      }
    });

    describe('expiry', () => {
      test('a 7-day PAT works until 1 s before 7 days', async () => {
        const { pat } = await userWithPat({ expires_in_days: 7 });
        t.clock.advance(7 * DAY - SECOND);
        assert.equal(await workspacesStatus(pat.token), 200);
      });

      test('a 7-day PAT is 401 1 s after 7 days', async () => {
        const { pat } = await userWithPat({ expires_in_days: 7 });
        t.clock.advance(7 * DAY + SECOND);
        const response = await call(t, 'GET', '/workspaces', { token: pat.token });
        assert.equal(response.statusCode, 401);
        assert.deepEqual(response.json(), UNAUTHENTICATED);
      });

      test('a session works until 1 s before 12 hours', async () => {
        const { session } = await registerUser(t);
        t.clock.advance(12 * HOUR - SECOND);
        assert.equal(await workspacesStatus(session), 200);
      });

      test('a session is 401 1 s after 12 hours', async () => {
        const { session } = await registerUser(t);
        t.clock.advance(12 * HOUR + SECOND);
        const response = await call(t, 'GET', '/workspaces', { token: session });
        assert.equal(response.statusCode, 401);
        assert.deepEqual(response.json(), UNAUTHENTICATED);
      });
    });

    describe('last use', () => {
      test('authenticated requests do not write last_used_at one by one', async () => {
        const { pat } = await userWithPat();
        for (let i = 0; i < 5; i++) {
          t.clock.advance(SECOND);
          assert.equal(await workspacesStatus(pat.token), 200);
        }
        assert.equal((await tokenRow(pat.id)).last_used_ms, null);
      });

      test('a flush writes last_used_at as the clock time of the last request', async () => {
        const { pat } = await userWithPat();
        for (let i = 0; i < 5; i++) {
          t.clock.advance(SECOND);
          await call(t, 'GET', '/workspaces', { token: pat.token });
        }
        const lastRequest = t.clock.now();
        t.clock.advance(HOUR);
        await t.deps.usage.flush();
        assert.equal((await tokenRow(pat.id)).last_used_ms, lastRequest.getTime());
      });

      test('the list shows last_used_at after a flush', async () => {
        const { session, pat } = await userWithPat();
        t.clock.advance(SECOND);
        await call(t, 'GET', '/workspaces', { token: pat.token });
        const usedAt = t.clock.now().toISOString();
        await t.deps.usage.flush();
        assert.deepEqual(
          (await listPats(session)).map((item) => item.last_used_at),
          [usedAt],
        );
      });

      test('one flush writes every touched token in exactly one statement', async () => {
        const { session, pat } = await userWithPat();
        const others = [await createPat(t, session, { name: 'b' }), (await userWithPat()).pat];
        await t.deps.usage.flush();
        const used = new Map<number, number>();
        for (const token of [pat, ...others]) {
          t.clock.advance(SECOND);
          await call(t, 'GET', '/workspaces', { token: token.token });
          used.set(token.id, t.clock.now().getTime());
        }
        const before = t.queries.count;
        await t.deps.usage.flush();
        assert.equal(t.queries.count - before, 1);
        for (const [id, at] of used) assert.equal((await tokenRow(id)).last_used_ms, at);
      });
    });
  });
}
