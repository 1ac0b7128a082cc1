import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { AUTH_CHANNEL } from '../../src/core/auth/auth-changes.js';
import { databaseKinds, selectRows } from '../helpers/database.js';
import { UNAUTHENTICATED } from '../helpers/fixtures.js';
import { call, createPat, createTestApp, registerUser, type TestApp, within } from '../helpers/test-app.js';

for (const kind of databaseKinds()) {
  describe(`authentication cache [${kind}]`, () => {
    let t: TestApp;
    before(async () => (t = await createTestApp(kind)));
    after(() => t.close());

    async function account() {
      const registered = await registerUser(t);
      const pat = await createPat(t, registered.session, { expires_in_days: 7 });
      const getUser = () => call(t, 'GET', '/user', { token: pat.token, workspace: registered.workspace.id });
      return { ...registered, pat, getUser };
    }

    /** The statements `request` sent to the database. */
    async function statementsOf(request: () => Promise<unknown>): Promise<number> {
      const before = t.queries.count;
      await request();
      return t.queries.count - before;
    }

    test('the first request with a bearer reads the database once, and the next ones not at all', async () => {
      const { getUser } = await account();
      assert.equal(await statementsOf(getUser), 1);
      for (let i = 0; i < 20; i++) assert.equal(await statementsOf(getUser), 0);
      assert.equal((await getUser()).statusCode, 200);
    });

    test('a PAT revoked through the API is refused by the very next request', async () => {
      const { session, pat, getUser } = await account();
      assert.equal((await getUser()).statusCode, 200);
      assert.equal((await call(t, 'DELETE', `/personal-access-tokens/${pat.id}`, { token: session })).statusCode, 200);
      const refused = await getUser();
      assert.equal(refused.statusCode, 401);
      assert.deepEqual(refused.json(), UNAUTHENTICATED);
    });

    test('a cached PAT is refused once it expires', async () => {
      const { getUser } = await account();
      assert.equal((await getUser()).statusCode, 200);
      t.clock.advance(7 * 24 * 3600 * 1000);
      assert.deepEqual((await getUser()).json(), UNAUTHENTICATED);
    });

    test('a PAT revoked in the database behind the service is refused within a second', async () => {
      const { pat, getUser } = await account();
      assert.equal((await getUser()).statusCode, 200);
      await t.database.db.execute(sql`update access_tokens set revoked_at = now() where id = ${pat.id}`);
      await within(1_000, async () => (await getUser()).statusCode === 401);
    });

    test('a workspace renamed in the database shows its new name within a second', async () => {
      const { workspace, getUser } = await account();
      assert.equal((await getUser()).json().data.workspace.name, workspace.name);
      await t.database.db.execute(sql`update workspaces set name = 'Renamed' where id = ${workspace.id}`);
      await within(1_000, async () => (await getUser()).json().data.workspace.name === 'Renamed');
    });

    test('writing last-used times keeps the cache warm', async () => {
      const { pat, getUser } = await account();
      await getUser();
      await t.deps.usage.flush();
      const [row] = await selectRows<{ used: boolean }>(
        t.database,
        sql`select last_used_at is not null as used from access_tokens where id = ${pat.id}`,
      );
      assert.equal(row!.used, true);
      await new Promise((resolve) => setTimeout(resolve, 100));
      assert.equal(await statementsOf(getUser), 0);
    });

    if (kind === 'postgres') {
      test('while the notification listener is lost every request reads the database, and the cache starts empty when it is back', async () => {
        const { getUser } = await account();
        await getUser();
        const [{ n }] = (await selectRows<{ n: number }>(
          t.database,
          sql`select count(pg_terminate_backend(pid))::int as n from pg_stat_activity where datname = current_database() and query ilike ${`listen %${AUTH_CHANNEL}%`}`,
        )) as [{ n: number }];
        assert.equal(n, 1);
        // Lost: nothing is served from memory, however often the bearer is seen.
        await within(1_000, async () => (await statementsOf(getUser)) === 1);
        assert.equal(await statementsOf(getUser), 1);
        // Back (a second later): the first request reads the database again, the next ones do not.
        await within(3_000, async () => (await statementsOf(getUser)) === 0);
        assert.equal((await getUser()).statusCode, 200);
      });
    }
  });
}
