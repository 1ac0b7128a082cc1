/**
 * Security events (issue 12, item 5; red-team L7): a failed login is logged for the operator and recorded in each
 * workspace of the account it named, and a refused request on a workspace is recorded in that workspace's audit log.
 * The answers stay as they were: a failed login never says whether the account exists.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { addMembership } from '../../src/db/accounts.repo.js';
import { databaseKinds, selectRows } from '../helpers/database.js';
import { FORBIDDEN, UNAUTHENTICATED } from '../helpers/fixtures.js';
import { call, createPat, createTestApp, registerUser, type TestApp, within } from '../helpers/test-app.js';

type Account = Awaited<ReturnType<typeof registerUser>>;

for (const kind of databaseKinds()) {
  describe(`security events [${kind}]`, () => {
    let t: TestApp;
    before(async () => (t = await createTestApp(kind)));
    after(() => t.close());

    const auditOf = async (owner: Account, workspaceId = owner.workspace.id) =>
      (await call(t, 'GET', '/audit-events?per_page=100', { token: owner.session, workspace: workspaceId })).json().data as Array<
        Record<string, any>
      >;
    const securityRows = async () =>
      Number(
        (
          await selectRows<{ n: string }>(
            t.database,
            sql`select count(*) as n from audit_events where action in ('auth.login_failed', 'authz.denied')`,
          )
        )[0]!.n,
      );
    /** The log lines (parsed) whose msg is `msg`. */
    const logLines = (msg: string) =>
      t.logs
        .flatMap((chunk) => chunk.split('\n'))
        .filter(Boolean)
        .map((line) => JSON.parse(line))
        .filter((line) => line.msg === msg);

    test("a wrong password is logged at warn with the account's user id and recorded in each of its workspaces, never with the password", async () => {
      const owner = await registerUser(t);
      const other = await registerUser(t);
      await addMembership(t.database.db, { userId: owner.user.id, workspaceId: other.workspace.id, role: 'member' });
      const password = 'not-the-password-4711';
      const response = await call(t, 'POST', '/auth/login', {
        body: { email: owner.user.email, password },
        remoteAddress: '198.51.100.21',
      });
      assert.deepEqual([response.statusCode, response.json()], [401, UNAUTHENTICATED]);
      const entry = async (workspaceId: number) => {
        const viewer = workspaceId === owner.workspace.id ? owner : other;
        let found: Record<string, any> | undefined;
        await within(2000, async () => {
          found = (await auditOf(viewer, workspaceId)).find((e) => e.action === 'auth.login_failed');
          return found !== undefined;
        });
        return found!;
      };
      for (const workspaceId of [owner.workspace.id, other.workspace.id]) {
        const logged = await entry(workspaceId);
        assert.deepEqual(
          { actor: logged.actor, subject: logged.subject, ip_address: logged.ip_address, details: logged.details },
          { actor: null, subject: { type: 'user', id: owner.user.id }, ip_address: '198.51.100.21', details: {} },
          `workspace ${workspaceId}`,
        );
      }
      const [line] = logLines('login failed');
      assert.ok(line, 'a log line');
      assert.deepEqual([line.level, line.userId, line.ip], [40, owner.user.id, '198.51.100.21']);
      assert.ok(!t.logs.join('').includes(password), 'the password is never logged');
      const audit = JSON.stringify([await auditOf(owner), await auditOf(other, other.workspace.id)]);
      assert.ok(!audit.includes(password), 'the password is never recorded');
    });

    test('a login for an unknown e-mail is answered alike, logged without a user id and recorded nowhere', async () => {
      const before = await securityRows();
      const logged = logLines('login failed').length;
      const response = await call(t, 'POST', '/auth/login', {
        body: { email: `nobody-${Date.now()}@example.com`, password: 'whatever it is' },
        remoteAddress: '198.51.100.22',
      });
      assert.deepEqual([response.statusCode, response.json()], [401, UNAUTHENTICATED]);
      await within(2000, async () => logLines('login failed').length > logged);
      const line = logLines('login failed').at(-1);
      assert.deepEqual([line.level, line.userId, line.ip], [40, null, '198.51.100.22']);
      assert.equal(await securityRows(), before);
    });

    test("a request for a workspace its caller is not a member of is 403 and recorded in that workspace's audit log", async () => {
      const owner = await registerUser(t);
      const stranger = await registerUser(t);
      const response = await call(t, 'GET', '/sites', {
        token: stranger.session,
        workspace: owner.workspace.id,
        remoteAddress: '198.51.100.23',
      });
      assert.deepEqual([response.statusCode, response.json()], [403, FORBIDDEN]);
      const [entry] = (await auditOf(owner)).filter((e) => e.action === 'authz.denied');
      assert.deepEqual(
        { actor: entry?.actor, subject: entry?.subject, ip_address: entry?.ip_address, details: entry?.details },
        {
          actor: stranger.user,
          subject: { type: 'user', id: stranger.user.id },
          ip_address: '198.51.100.23',
          details: { reason: 'not_a_member', method: 'GET', route: '/api/v1/sites' },
        },
      );
      assert.deepEqual(
        (await auditOf(stranger)).filter((e) => e.action === 'authz.denied'),
        [],
        "nothing in the caller's own workspace",
      );
    });

    test("a member refused by role is 403 and recorded in the workspace's audit log", async () => {
      const owner = await registerUser(t);
      const member = await registerUser(t);
      await addMembership(t.database.db, { userId: member.user.id, workspaceId: owner.workspace.id, role: 'member' });
      const response = await call(t, 'GET', '/webhooks', { token: member.session, workspace: owner.workspace.id });
      assert.deepEqual([response.statusCode, response.json()], [403, FORBIDDEN]);
      const [entry] = (await auditOf(owner)).filter((e) => e.action === 'authz.denied');
      assert.deepEqual([entry?.actor?.id, entry?.details], [member.user.id, { reason: 'role', method: 'GET', route: '/api/v1/webhooks' }]);
    });

    test('refusals of one user in one workspace are recorded once a minute, each logged at warn', async () => {
      const owner = await registerUser(t);
      const stranger = await registerUser(t);
      const logged = logLines('access denied').length;
      for (let i = 0; i < 5; i++)
        assert.equal((await call(t, 'GET', '/sites', { token: stranger.session, workspace: owner.workspace.id })).statusCode, 403);
      const denied = async () => (await auditOf(owner)).filter((e) => e.action === 'authz.denied').length;
      assert.equal(await denied(), 1);
      assert.equal(logLines('access denied').length - logged, 5);
      t.clock.advance(60_000);
      try {
        assert.equal((await call(t, 'GET', '/sites', { token: stranger.session, workspace: owner.workspace.id })).statusCode, 403);
        assert.equal(await denied(), 2);
      } finally {
        t.clock.advance(-60_000);
      }
    });

    test('a PAT on a session-only route is 403 and logged at warn with its user id (no workspace to record it in)', async () => {
      const owner = await registerUser(t);
      const pat = await createPat(t, owner.session);
      const before = await securityRows();
      const response = await call(t, 'GET', '/personal-access-tokens', { token: pat.token });
      assert.deepEqual([response.statusCode, response.json()], [403, FORBIDDEN]);
      const line = logLines('access denied').at(-1);
      assert.deepEqual([line?.level, line?.userId, line?.workspaceId, line?.reason], [40, owner.user.id, null, 'session_only']);
      assert.equal(await securityRows(), before);
    });
  });
}
