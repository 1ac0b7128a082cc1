/**
 * OAuth states hardened (issue 12, items 5 and 6; red-team L2, L5 and M2): a workspace has a bounded number of
 * authorizations in progress; a state whose issuing token was revoked, or whose user left the workspace, is an invalid
 * state at the callback and connects nothing; a state long past its expiry no longer sends the browser to its signed
 * redirect_url.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { STATE_TTL_MS } from '../../src/core/connect/oauth-states.js';
import { addMembership, removeMembership } from '../../src/db/accounts.repo.js';
import { EXPIRED_STATE_REDIRECT_MS, MAX_PENDING_STATES_PER_WORKSPACE } from '../../src/domain/index.js';
import { type Actor, authorizationUrl, consent, locationOf, openCallback } from '../helpers/connect.js';
import { databaseKinds, selectRows } from '../helpers/database.js';
import { call, createPat, createTestApp, registerUser, type TestApp } from '../helpers/test-app.js';

const CUSTOM = 'https://seller.example/done';

for (const kind of databaseKinds()) {
  describe(`OAuth states: a cap, revocation and long expiry [${kind}]`, () => {
    let t: TestApp;
    let account = 300;
    before(async () => (t = await createTestApp(kind, { listen: true })));
    after(() => t.close());

    const invalidState = () => `${t.deps.config.appUrl}/dashboard?authorization_error=Invalid+authorization+state`;
    const sitesOf = async (workspaceId: number) =>
      Number((await selectRows<{ n: string }>(t.database, sql`select count(*) as n from sites where workspace_id = ${workspaceId}`))[0]!.n);

    /** Asks for an Etsy authorization as `actor` and consents (a new sandbox account each time); the callback URL, not yet opened. */
    async function consented(actor: Actor): Promise<string> {
      return consent(await authorizationUrl(t, actor, { platform_id: 1, redirect_url: CUSTOM }), 'allow', String(account++));
    }

    test(`a workspace's ${MAX_PENDING_STATES_PER_WORKSPACE + 1}th pending authorization is 429 until the oldest expires`, async () => {
      const owner = await registerUser(t);
      const start = () =>
        call(t, 'POST', '/authenticate-site', { token: owner.session, workspace: owner.workspace.id, body: { platform_id: 1 } });
      for (let i = 0; i < MAX_PENDING_STATES_PER_WORKSPACE; i++) assert.equal((await start()).statusCode, 200, `state ${i}`);
      const states = async () =>
        (await selectRows(t.database, sql`select jti from oauth_states where workspace_id = ${owner.workspace.id}`)).length;
      const before = await states();
      const refused = await start();
      const message = `This workspace has ${MAX_PENDING_STATES_PER_WORKSPACE} authorizations in progress, the most allowed within 15 minutes. Try again later.`;
      assert.deepEqual([refused.statusCode, refused.json()], [429, { success: false, code: 429, message }]);
      const retryAfter = Number(refused.headers['retry-after']);
      assert.ok(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= STATE_TTL_MS / 1000, `Retry-After ${retryAfter}`);
      assert.equal(await states(), before);
      const other = await registerUser(t);
      const elsewhere = await call(t, 'POST', '/authenticate-site', {
        token: other.session,
        workspace: other.workspace.id,
        body: { platform_id: 1 },
      });
      assert.equal(elsewhere.statusCode, 200, 'another workspace is not limited by the first');
      t.clock.advance(STATE_TTL_MS);
      try {
        assert.equal((await start()).statusCode, 200, 'once the states expired');
      } finally {
        t.clock.advance(-STATE_TTL_MS);
      }
    });

    test('a state minted with a PAT that is revoked before the callback is invalid there and connects nothing', async () => {
      const owner = await registerUser(t);
      const live = await createPat(t, owner.session);
      assert.equal(locationOf(await openCallback(await consented({ session: live.token, workspace: owner.workspace }))), CUSTOM, 'control');
      const pat = await createPat(t, owner.session);
      const callback = await consented({ session: pat.token, workspace: owner.workspace });
      assert.equal((await call(t, 'DELETE', `/personal-access-tokens/${pat.id}`, { token: owner.session })).statusCode, 200);
      const before = await sitesOf(owner.workspace.id);
      assert.equal(locationOf(await openCallback(callback)), invalidState());
      assert.equal(await sitesOf(owner.workspace.id), before);
    });

    test('a state minted with a session that logs out before the callback is invalid there and connects nothing', async () => {
      const owner = await registerUser(t);
      const session = (await t.deps.accounts.login({ email: owner.user.email, password: owner.password })).token;
      const callback = await consented({ session, workspace: owner.workspace });
      assert.equal((await call(t, 'POST', '/auth/logout', { token: session })).statusCode, 200);
      assert.equal(locationOf(await openCallback(callback)), invalidState());
      assert.equal(await sitesOf(owner.workspace.id), 0);
    });

    test('a state minted by a member removed from the workspace before the callback is invalid there and connects nothing', async () => {
      const owner = await registerUser(t);
      const admin = await registerUser(t);
      await addMembership(t.database.db, { userId: admin.user.id, workspaceId: owner.workspace.id, role: 'admin' });
      const callback = await consented({ session: admin.session, workspace: owner.workspace });
      await removeMembership(t.database.db, { userId: admin.user.id, workspaceId: owner.workspace.id });
      assert.equal(locationOf(await openCallback(callback)), invalidState());
      assert.equal(await sitesOf(owner.workspace.id), 0);
    });

    test('a state more than 24 h past its expiry goes to the dashboard as expired, not to its signed redirect_url', async () => {
      const owner = await registerUser(t);
      const recent = await consented({ session: owner.session, workspace: owner.workspace });
      const old = await consented({ session: owner.session, workspace: owner.workspace });
      t.clock.advance(STATE_TTL_MS + EXPIRED_STATE_REDIRECT_MS - 1000);
      try {
        assert.equal(
          locationOf(await openCallback(recent)),
          `${CUSTOM}?authorization_error=Authorization+state+has+expired`,
          'within 24 h',
        );
        t.clock.advance(2000);
        for (let visit = 1; visit <= 2; visit++)
          assert.equal(
            locationOf(await openCallback(old)),
            `${t.deps.config.appUrl}/dashboard?authorization_error=Authorization+state+has+expired`,
            `visit ${visit}`,
          );
        const json = await openCallback(old, 'application/json');
        assert.deepEqual(
          [json.status, await json.json()],
          [400, { success: false, code: 400, message: 'Authorization state has expired. Please try authenticating again.' }],
        );
      } finally {
        t.clock.advance(-(STATE_TTL_MS + EXPIRED_STATE_REDIRECT_MS + 1000));
      }
      assert.equal(await sitesOf(owner.workspace.id), 0);
    });
  });
}
