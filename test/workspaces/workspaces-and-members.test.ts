/**
 * Workspaces and their members (DESIGN §12) through the API: a workspace made, renamed and deleted; invitations by link
 * (used once, for 7 days, by the person they name); roles changed, members removed, ownership handed over, never the
 * last owner lost; and the role table of §12 on the endpoints it names, for an owner, an admin and a member.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { LISTING_QUEUE } from '../../src/core/listings/listing-work.js';
import { connectEtsySite } from '../helpers/connect.js';
import { databaseKinds } from '../helpers/database.js';
import { FORBIDDEN } from '../helpers/fixtures.js';
import { etsySeller, publishMug } from '../helpers/listings.js';
import { call, createTestApp, errorBody, registerUser, runDueJobs, type TestApp, within } from '../helpers/test-app.js';

const DAY_MS = 24 * 3600_000;

for (const kind of databaseKinds()) {
  describe(`workspaces and members [${kind}]`, () => {
    let t: TestApp;
    before(async () => (t = await createTestApp(kind, { listen: true })));
    after(() => t.close());

    type User = Awaited<ReturnType<typeof registerUser>>;
    const as = (user: User, workspace?: number) => ({ token: user.session, ...(workspace ? { workspace } : {}) });
    const invite = (by: User, workspace: number, email: string, role: string) =>
      call(t, 'POST', `/workspaces/${workspace}/invitations`, { ...as(by), body: { email, role } });
    /** `user` joins `owner`'s workspace as `role` through an invitation. */
    const join = async (owner: User, user: User, role: string) => {
      const invited = await invite(owner, owner.workspace.id, user.user.email, role);
      assert.equal(invited.statusCode, 201, invited.body);
      const accepted = await call(t, 'POST', `/invitations/${invited.json().data.token}/accept`, as(user));
      assert.equal(accepted.statusCode, 200, accepted.body);
      return accepted.json().data;
    };
    const members = async (by: User, workspace: number) =>
      Object.fromEntries(
        (await call(t, 'GET', `/workspaces/${workspace}/members`, as(by)))
          .json()
          .data.map((m: { email: string; role: string }) => [m.email, m.role]),
      );

    test('a new workspace has its creator as owner, and is listed with their own', async () => {
      const ana = await registerUser(t);
      const created = await call(t, 'POST', '/workspaces', { ...as(ana), body: { name: '  Ana’s second shop ' } });
      assert.equal(created.statusCode, 201, created.body);
      const workspace = created.json().data;
      assert.deepEqual(workspace, { id: workspace.id, name: 'Ana’s second shop', role: 'owner' });
      const listed = (await call(t, 'GET', '/workspaces', as(ana))).json().data;
      assert.deepEqual(
        listed.map((w: { id: number }) => w.id),
        [ana.workspace.id, workspace.id],
      );
      const blank = await call(t, 'POST', '/workspaces', { ...as(ana), body: { name: '   ' } });
      assert.equal(blank.statusCode, 422);
      assert.ok(blank.json().errors.name);
    });

    test('an invitation is a link used once, by the person it names, within 7 days', async () => {
      const owner = await registerUser(t);
      const bob = await registerUser(t);
      const eve = await registerUser(t);
      const invited = await invite(owner, owner.workspace.id, bob.user.email.toUpperCase(), 'admin');
      assert.equal(invited.statusCode, 201, invited.body);
      const invitation = invited.json().data;
      assert.match(invitation.token, /^[A-Za-z0-9_-]{43}$/);
      assert.equal(invitation.url, `${t.deps.config.appUrl}/invite/${invitation.token}`);
      assert.equal(Date.parse(invitation.expires_at) - t.clock.now().getTime(), 7 * DAY_MS);

      // Listed without its token: the link was shown once.
      const pending = (await call(t, 'GET', `/workspaces/${owner.workspace.id}/invitations`, as(owner))).json().data;
      assert.deepEqual(
        pending.map((p: Record<string, unknown>) => [p.id, p.role, 'token' in p, 'url' in p]),
        [[invitation.id, 'admin', false, false]],
      );

      // The link's page can say what it offers before it is taken, to whoever holds it.
      const preview = await call(t, 'GET', `/invitations/${invitation.token}`, as(eve));
      assert.deepEqual(preview.json().data, {
        workspace: { id: owner.workspace.id, name: owner.workspace.name },
        role: 'admin',
        email: bob.user.email.toUpperCase(),
        expires_at: invitation.expires_at,
      });
      // Signed out too: the page names the workspace before its holder signs in or makes an account.
      const signedOut = await call(t, 'GET', `/invitations/${invitation.token}`);
      assert.equal(signedOut.statusCode, 200, signedOut.body);
      assert.deepEqual(signedOut.json().data, preview.json().data);
      const wrongPerson = await call(t, 'POST', `/invitations/${invitation.token}/accept`, as(eve));
      assert.equal(wrongPerson.statusCode, 403);
      assert.match(wrongPerson.json().message, /is for .*: sign in as that user/);
      const accepted = await call(t, 'POST', `/invitations/${invitation.token}/accept`, as(bob));
      assert.deepEqual(accepted.json(), { success: true, data: { id: owner.workspace.id, name: owner.workspace.name, role: 'admin' } });
      assert.equal((await call(t, 'GET', '/user', as(bob, owner.workspace.id))).statusCode, 200);
      const again = await call(t, 'POST', `/invitations/${invitation.token}/accept`, as(bob));
      assert.deepEqual(again.json(), errorBody(404, 'Not found'));
      assert.deepEqual((await call(t, 'GET', `/invitations/${invitation.token}`, as(bob))).json(), errorBody(404, 'Not found'));
      // The token is in the paths of the requests that used it, and in no log line.
      assert.ok(t.logs.some((line) => line.includes('/invitations/[redacted]/accept')));
      assert.equal(t.logs.filter((line) => line.includes(invitation.token)).length, 0);
      assert.deepEqual((await call(t, 'GET', `/workspaces/${owner.workspace.id}/invitations`, as(owner))).json().data, []);

      const revoked = (await invite(owner, owner.workspace.id, eve.user.email, 'member')).json().data;
      assert.equal((await call(t, 'DELETE', `/workspaces/${owner.workspace.id}/invitations/${revoked.id}`, as(owner))).statusCode, 200);
      assert.equal((await call(t, 'POST', `/invitations/${revoked.token}/accept`, as(eve))).statusCode, 404);
      // Someone a member already is not invited again.
      assert.equal((await invite(owner, owner.workspace.id, bob.user.email, 'member')).statusCode, 409);
      const late = (await invite(owner, owner.workspace.id, eve.user.email, 'member')).json().data;
      t.clock.advance(7 * DAY_MS + 1_000);
      // Eve's session is past its own lifetime by then: she signs in again.
      const login = await call(t, 'POST', '/auth/login', { body: { email: eve.user.email, password: eve.password } });
      assert.equal(login.statusCode, 200, login.body);
      eve.session = login.json().data.token;
      assert.equal((await call(t, 'POST', `/invitations/${late.token}/accept`, as(eve))).statusCode, 404);
      assert.equal((await call(t, 'POST', '/invitations/not-a-token/accept', as(eve))).statusCode, 404);
      assert.equal((await call(t, 'GET', '/user', as(eve, owner.workspace.id))).statusCode, 403);
    });

    test('the role table of DESIGN §12 on the endpoints it names, for an owner, an admin and a member', async () => {
      const owner = await registerUser(t);
      const admin = await registerUser(t);
      const member = await registerUser(t);
      await join(owner, admin, 'admin');
      await join(owner, member, 'member');
      const workspace = owner.workspace.id;
      const site = await connectEtsySite(t, { session: owner.session, workspace: { id: workspace } }, '61');
      let sku = 0;
      const rows: [string, 'GET' | 'POST' | 'PUT' | 'PATCH', string, (() => unknown) | null, [number, number, number]][] = [
        ['read sites', 'GET', '/sites', null, [200, 200, 200]],
        ['read a site', 'GET', `/sites/${site}`, null, [200, 200, 200]],
        ['read listings', 'GET', `/sites/${site}/listings`, null, [200, 200, 200]],
        ['read products', 'GET', '/products', null, [200, 200, 200]],
        [
          'create products',
          'POST',
          '/products',
          () => ({ title: 'Mug', currency: 'USD', variants: [{ sku: `ROLE-${++sku}`, price: '9.00', quantity: 1 }] }),
          [201, 201, 201],
        ],
        ['connect a site', 'POST', '/authenticate-site', () => ({ platform_id: 1 }), [200, 200, 403]],
        ['listing settings', 'PUT', `/sites/${site}/listing-settings`, () => ({}), [200, 200, 403]],
        ['webhooks', 'GET', '/webhooks', null, [200, 200, 403]],
        ['add a webhook', 'POST', '/webhooks', () => ({ url: 'https://example.com/hook', events: ['site.connected'] }), [201, 201, 403]],
        ['audit log', 'GET', '/audit-events', null, [200, 200, 403]],
      ];
      for (const [what, method, path, body, expected] of rows) {
        const got = [];
        for (const user of [owner, admin, member]) {
          const answer = await call(t, method, path, { ...as(user, workspace), ...(body ? { body: body() } : {}) });
          got.push(answer.statusCode);
          if (answer.statusCode === 403) assert.deepEqual(answer.json(), FORBIDDEN);
        }
        assert.deepEqual(got, expected, what);
      }
      // Paths that name the workspace take it from the path.
      const byPath: [string, 'GET' | 'POST' | 'PATCH', string, (() => unknown) | null, [number, number, number]][] = [
        ['members', 'GET', `/workspaces/${workspace}/members`, null, [200, 200, 200]],
        ['invitations', 'GET', `/workspaces/${workspace}/invitations`, null, [200, 200, 403]],
        [
          'invite',
          'POST',
          `/workspaces/${workspace}/invitations`,
          () => ({ email: `x${++sku}@example.com`, role: 'member' }),
          [201, 201, 403],
        ],
        [
          'invite an owner',
          'POST',
          `/workspaces/${workspace}/invitations`,
          () => ({ email: `y${++sku}@example.com`, role: 'owner' }),
          [201, 403, 403],
        ],
        ['rename', 'PATCH', `/workspaces/${workspace}`, () => ({ name: 'Renamed' }), [200, 403, 403]],
      ];
      for (const [what, method, path, body, expected] of byPath) {
        const got = [];
        for (const user of [owner, admin, member])
          got.push((await call(t, method, path, { ...as(user), ...(body ? { body: body() } : {}) })).statusCode);
        assert.deepEqual(got, expected, what);
      }
      // Disconnecting: a member cannot, an admin can.
      assert.equal((await call(t, 'DELETE', `/sites/${site}`, as(member, workspace))).statusCode, 403);
      assert.equal((await call(t, 'DELETE', `/sites/${site}`, as(admin, workspace))).statusCode, 200);
      // Someone of no role there is refused alike.
      const stranger = await registerUser(t);
      assert.deepEqual((await call(t, 'GET', `/workspaces/${workspace}/members`, as(stranger))).json(), FORBIDDEN);
      assert.deepEqual((await call(t, 'GET', '/sites', as(stranger, workspace))).json(), FORBIDDEN);
    });

    test('roles: admins manage members and admins but not owners; the last owner cannot step down or leave', async () => {
      const owner = await registerUser(t);
      const admin = await registerUser(t);
      const member = await registerUser(t);
      const workspace = owner.workspace.id;
      await join(owner, admin, 'admin');
      await join(owner, member, 'member');
      const role = (by: User, user: User, to: string) =>
        call(t, 'PATCH', `/workspaces/${workspace}/members/${user.user.id}`, { ...as(by), body: { role: to } });
      const remove = (by: User, user: User) => call(t, 'DELETE', `/workspaces/${workspace}/members/${user.user.id}`, as(by));

      assert.equal((await role(admin, owner, 'member')).statusCode, 403);
      assert.equal((await role(admin, member, 'owner')).statusCode, 403);
      assert.equal((await remove(admin, owner)).statusCode, 403);
      assert.equal((await role(member, admin, 'member')).statusCode, 403);
      const promoted = await role(admin, member, 'admin');
      assert.equal(promoted.statusCode, 200, promoted.body);
      assert.equal(promoted.json().data.role, 'admin');

      const lastOwner = await role(owner, owner, 'admin');
      assert.equal(lastOwner.statusCode, 409);
      assert.match(lastOwner.json().message, /keeps at least one owner/);
      assert.equal((await remove(owner, owner)).statusCode, 409);
      assert.deepEqual(await members(owner, workspace), {
        [owner.user.email]: 'owner',
        [admin.user.email]: 'admin',
        [member.user.email]: 'admin',
      });

      // The role changed is what the next request of that member is held to.
      assert.equal((await call(t, 'GET', '/audit-events', as(member, workspace))).statusCode, 200);
      assert.equal((await role(owner, member, 'member')).statusCode, 200);
      await within(1_000, async () => (await call(t, 'GET', '/audit-events', as(member, workspace))).statusCode === 403);

      // Anyone may leave; an admin removes an admin.
      assert.equal((await remove(member, member)).statusCode, 200);
      assert.equal((await call(t, 'GET', '/sites', as(member, workspace))).statusCode, 403);
      const second = await registerUser(t);
      await join(owner, second, 'admin');
      assert.equal((await remove(admin, second)).statusCode, 200);
      assert.deepEqual(await members(owner, workspace), { [owner.user.email]: 'owner', [admin.user.email]: 'admin' });

      const audit = (await call(t, 'GET', '/audit-events?per_page=100', as(owner, workspace))).json().data;
      const actions = audit.map((e: { action: string }) => e.action);
      for (const action of ['member.invited', 'member.joined', 'member.role_changed', 'member.removed'])
        assert.ok(actions.includes(action), `${action} in ${actions}`);
    });

    test('an owner hands the workspace over in one step and becomes an admin', async () => {
      const owner = await registerUser(t);
      const heir = await registerUser(t);
      const workspace = owner.workspace.id;
      await join(owner, heir, 'member');
      const self = await call(t, 'POST', `/workspaces/${workspace}/transfer-ownership`, { ...as(owner), body: { user_id: owner.user.id } });
      assert.equal(self.statusCode, 422);
      assert.equal(
        (await call(t, 'POST', `/workspaces/${workspace}/transfer-ownership`, { ...as(heir), body: { user_id: heir.user.id } })).statusCode,
        403,
      );
      const handed = await call(t, 'POST', `/workspaces/${workspace}/transfer-ownership`, {
        ...as(owner),
        body: { user_id: heir.user.id },
      });
      assert.equal(handed.statusCode, 200, handed.body);
      assert.deepEqual(await members(heir, workspace), { [owner.user.email]: 'admin', [heir.user.email]: 'owner' });
      assert.equal((await call(t, 'PATCH', `/workspaces/${workspace}`, { ...as(owner), body: { name: 'Mine' } })).statusCode, 403);
      assert.equal((await call(t, 'PATCH', `/workspaces/${workspace}`, { ...as(heir), body: { name: 'Theirs' } })).statusCode, 200);
      // The old owner may now leave: an owner is left.
      assert.equal((await call(t, 'DELETE', `/workspaces/${workspace}/members/${owner.user.id}`, as(owner))).statusCode, 200);
    });

    test('deleting a workspace takes the owner and its name; its sites, products and members go with it', async () => {
      const owner = await registerUser(t);
      const admin = await registerUser(t);
      const created = (await call(t, 'POST', '/workspaces', { ...as(owner), body: { name: 'Closing down' } })).json().data;
      const workspace = created.id as number;
      const invited = (
        await call(t, 'POST', `/workspaces/${workspace}/invitations`, { ...as(owner), body: { email: admin.user.email, role: 'admin' } })
      ).json().data;
      assert.equal((await call(t, 'POST', `/invitations/${invited.token}/accept`, as(admin))).statusCode, 200);
      await connectEtsySite(t, { session: owner.session, workspace: { id: workspace } }, '62');
      const product = { title: 'Last mug', currency: 'USD', variants: [{ sku: 'LAST-1', price: '9.00', quantity: 1 }] };
      assert.equal((await call(t, 'POST', '/products', { ...as(owner, workspace), body: product })).statusCode, 201);

      const remove = (by: User, confirm: string) => call(t, 'DELETE', `/workspaces/${workspace}`, { ...as(by), body: { confirm } });
      assert.equal((await remove(admin, 'Closing down')).statusCode, 403);
      const mistyped = await remove(owner, 'closing down');
      assert.equal(mistyped.statusCode, 422);
      assert.match(mistyped.json().errors.confirm[0], /Type the workspace's name, Closing down/);
      assert.equal((await call(t, 'GET', '/sites', as(owner, workspace))).json().data.length, 1);

      assert.deepEqual((await remove(owner, 'Closing down')).json(), { success: true, data: null });
      for (const user of [owner, admin]) {
        assert.deepEqual((await call(t, 'GET', '/sites', as(user, workspace))).json(), FORBIDDEN);
        const listed = (await call(t, 'GET', '/workspaces', as(user))).json().data.map((w: { id: number }) => w.id);
        assert.deepEqual(listed, [user.workspace.id]);
      }
      // Its products' skus are free again in the owner's other workspace: nothing of it is left.
      assert.equal((await call(t, 'POST', '/products', { ...as(owner, owner.workspace.id), body: product })).statusCode, 201);
    });

    test('work queued for a deleted workspace finds nothing left and ends: nothing reaches the platform', async () => {
      const seller = await etsySeller(t, '63');
      await publishMug(t, seller, 'GONE');
      const name = seller.workspace.name;
      const deleted = await call(t, 'DELETE', `/workspaces/${seller.workspace.id}`, { token: seller.session, body: { confirm: name } });
      assert.equal(deleted.statusCode, 200, deleted.body);
      const creates = t.deps.sandbox.calls.get('etsy:createDraftListing') ?? 0;
      assert.deepEqual(await runDueJobs(t, LISTING_QUEUE), { 'nothing to do': 1 });
      assert.equal(t.deps.sandbox.calls.get('etsy:createDraftListing') ?? 0, creates);
    });
  });
}
