/** The audit log: each change to sites and tokens leaves one entry, with who, what, when and from where. */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { addMembership } from '../../src/db/accounts.repo.js';
import { type Actor, connectThroughSandbox, locationOf } from '../helpers/connect.js';
import { databaseKinds } from '../helpers/database.js';
import { call, createPat, createTestApp, errorBody, registerUser, type TestApp } from '../helpers/test-app.js';

for (const kind of databaseKinds()) {
  describe(`audit log [${kind}]`, () => {
    let t: TestApp;
    let owner: Actor & { user: { id: number; email: string; name: string } };
    before(async () => {
      t = await createTestApp(kind, { listen: true });
      owner = await registerUser(t);
    });
    after(() => t.close());

    const events = async (query = '') =>
      (await call(t, 'GET', `/audit-events${query}`, { token: owner.session, workspace: owner.workspace.id })).json();

    test('connecting, reconnecting and disconnecting a site are logged newest first with the actor, the address and the site’s name', async () => {
      const siteId = Number(
        /\/site\/(\d+)\//.exec(locationOf(await connectThroughSandbox(t, owner, { platform_id: 1 }, 'allow', '5')))![1],
      );
      await connectThroughSandbox(t, owner, { platform_id: 1 }, 'allow', '5');
      const response = await call(t, 'DELETE', `/sites/${siteId}`, {
        token: owner.session,
        workspace: owner.workspace.id,
        remoteAddress: '203.0.113.9',
      });
      assert.equal(response.statusCode, 200);
      const { data, meta } = await events();
      assert.deepEqual(
        data.slice(0, 3).map((e: { action: string }) => e.action),
        ['site.disconnected', 'site.reconnected', 'site.connected'],
      );
      assert.deepEqual(data[0], {
        id: data[0].id,
        action: 'site.disconnected',
        actor: owner.user,
        subject: { type: 'site', id: siteId },
        ip_address: '203.0.113.9',
        // The site by its name: the log names it, not its id alone.
        details: { name: 'Sandbox Etsy Shop 5', platform: 'etsy' },
        created_at: t.clock.now().toISOString(),
      });
      assert.deepEqual(
        data.slice(1, 3).map((e: { details: Record<string, unknown> }) => e.details),
        [
          { name: 'Sandbox Etsy Shop 5', platform: 'etsy' },
          { name: 'Sandbox Etsy Shop 5', platform: 'etsy' },
        ],
      );
      assert.equal(data[2].ip_address, '127.0.0.1');
      assert.equal(meta.total >= 3, true);
    });

    test("creating and revoking a PAT is logged in every workspace the token reaches, never with the token's value", async () => {
      const other = await registerUser(t);
      await addMembership(t.database.db, { userId: owner.user.id, workspaceId: other.workspace.id, role: 'admin' });
      const pat = await createPat(t, owner.session, { name: 'deploy' });
      await call(t, 'DELETE', `/personal-access-tokens/${pat.id}`, { token: owner.session });
      for (const workspace of [owner.workspace.id, other.workspace.id]) {
        const { data } = (await call(t, 'GET', '/audit-events?per_page=2', { token: owner.session, workspace })).json();
        assert.deepEqual(
          data.map((e: { action: string; subject: unknown }) => [e.action, e.subject]),
          [
            ['token.revoked', { type: 'token', id: pat.id }],
            ['token.created', { type: 'token', id: pat.id }],
          ],
        );
      }
      assert.ok(!JSON.stringify(await events('?per_page=100')).includes(pat.token));
    });

    test('the log is narrowed by action, subject type and actor; an unknown action is 422', async () => {
      const other = await registerUser(t);
      const all = (await events('?per_page=100')).data as {
        id: number;
        action: string;
        subject: { type: string };
        actor: { id: number } | null;
      }[];
      const byAction = (await events('?action=site.connected&per_page=100')).data as typeof all;
      assert.ok(byAction.length > 0);
      assert.deepEqual(
        byAction.map((e) => e.id),
        all.filter((e) => e.action === 'site.connected').map((e) => e.id),
      );
      const tokens = (await events('?subject_type=token&per_page=100')).data as typeof all;
      assert.deepEqual(
        tokens.map((e) => e.id),
        all.filter((e) => e.subject.type === 'token').map((e) => e.id),
      );
      assert.deepEqual((await events(`?actor_user_id=${other.user.id}`)).data, []);
      assert.equal(
        (await events(`?actor_user_id=${owner.user.id}&per_page=100`)).meta.total,
        all.filter((e) => e.actor?.id === owner.user.id).length,
      );
      const unknown = await call(t, 'GET', '/audit-events?action=site.exploded', { token: owner.session, workspace: owner.workspace.id });
      assert.equal(unknown.statusCode, 422);
    });

    test('a rejected change leaves no entry', async () => {
      const before = (await events()).meta.total;
      assert.equal((await call(t, 'DELETE', '/personal-access-tokens/999999', { token: owner.session })).statusCode, 404);
      assert.equal((await call(t, 'DELETE', '/sites/999999', { token: owner.session, workspace: owner.workspace.id })).statusCode, 404);
      assert.equal((await events()).meta.total, before);
    });

    test('members cannot read the audit log; owners and admins can', async () => {
      const member = await registerUser(t);
      await addMembership(t.database.db, { userId: member.user.id, workspaceId: owner.workspace.id, role: 'member' });
      const response = await call(t, 'GET', '/audit-events', { token: member.session, workspace: owner.workspace.id });
      assert.deepEqual([response.statusCode, response.json()], [403, errorBody(403, 'Invalid workspace or access denied')]);
      const pat = await createPat(t, owner.session);
      assert.equal((await call(t, 'GET', '/audit-events', { token: pat.token, workspace: owner.workspace.id })).statusCode, 200);
    });
  });
}
