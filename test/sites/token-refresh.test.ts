/** The refresh worker against the simulators, with the injected clock: renewal, rotation, races, refusal, back-off. */
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { openTokens } from '../../src/core/sites/credentials.js';
import { REFRESH_QUEUE } from '../../src/core/sites/token-refresh.js';
import { type Actor, connectThroughSandbox, locationOf } from '../helpers/connect.js';
import { databaseKinds, selectRows } from '../helpers/database.js';
import { refreshDue, storeRevoked, whileRenewing } from '../helpers/jobs.js';
import { call, createTestApp, registerUser, type TestApp } from '../helpers/test-app.js';

const MINUTE = 60_000;

interface CredentialsRow {
  ciphertext: string;
  refreshed_at: Date | null;
  next_refresh_at: Date | null;
  refresh_failures: number;
}

for (const kind of databaseKinds()) {
  describe(`token refresh [${kind}]`, () => {
    let t: TestApp;
    let actor: Actor;
    beforeEach(async () => {
      t = await createTestApp(kind, { listen: true, renewals: 'by-hand' });
      actor = await registerUser(t);
    });
    afterEach(() => t.close());

    async function connectEtsy(account: string): Promise<number> {
      const location = locationOf(await connectThroughSandbox(t, actor, { platform_id: 1 }, 'allow', account));
      return Number(/\/site\/(\d+)\/listings$/.exec(location)![1]);
    }
    async function credentials(siteId: number): Promise<CredentialsRow> {
      const [row] = await selectRows<CredentialsRow>(
        t.database,
        sql`select ciphertext, refreshed_at, next_refresh_at, refresh_failures from site_credentials where site_id = ${siteId} and grant_kind = 'seller'`,
      );
      return {
        ...row!,
        refreshed_at: row!.refreshed_at && new Date(row!.refreshed_at),
        next_refresh_at: row!.next_refresh_at && new Date(row!.next_refresh_at),
      };
    }
    const site = async (siteId: number) =>
      (await call(t, 'GET', `/sites/${siteId}`, { token: actor.session, workspace: actor.workspace.id })).json().data;

    test('an Etsy token is renewed 10 minutes before it expires, and the rotated refresh token is kept for the next renewal', async () => {
      const siteId = await connectEtsy('41');
      const connectedAt = t.clock.now().getTime();
      const first = await credentials(siteId);
      assert.equal(first.next_refresh_at!.getTime(), connectedAt + 50 * MINUTE, 'an hour-long token is due 10 minutes early');
      t.clock.advance(49 * MINUTE);
      assert.deepEqual(await refreshDue(t), { refreshed: 0, retry: 0, reauthorization_required: 0 });
      t.clock.advance(2 * MINUTE);
      assert.equal((await refreshDue(t)).refreshed, 1);
      const second = await credentials(siteId);
      assert.notEqual(second.ciphertext, first.ciphertext);
      assert.equal(second.refreshed_at!.getTime(), t.clock.now().getTime());
      assert.equal(second.next_refresh_at!.getTime(), t.clock.now().getTime() + 50 * MINUTE);
      // Etsy refresh tokens work once: a second renewal succeeds only with the rotated one.
      t.clock.advance(51 * MINUTE);
      assert.equal((await refreshDue(t)).refreshed, 1);
      const shown = await site(siteId);
      assert.equal(shown.status, 'connected');
      const [sealed] = await selectRows<{ key_id: string; ciphertext: string }>(
        t.database,
        sql`select key_id, ciphertext from site_credentials where site_id = ${siteId} and grant_kind = 'seller'`,
      );
      const current = openTokens(t.deps.cipher, { siteId, grant: 'seller', keyId: sealed!.key_id, ciphertext: sealed!.ciphertext });
      const logs = t.logs.join('');
      assert.ok(!logs.includes(current.accessToken) && !logs.includes(current.refreshToken!), 'no credential reaches the log');
      assert.equal(shown.last_refreshed_at, t.clock.now().toISOString());
      assert.equal(shown.next_refresh_at, new Date(t.clock.now().getTime() + 50 * MINUTE).toISOString());
    });

    test('with short sandbox token lifetimes, every track stays connected across many expiries', async () => {
      await t.close();
      t = await createTestApp(kind, { listen: true, renewals: 'by-hand', env: { SANDBOX_ACCESS_TOKEN_TTL_SECONDS: '120' } });
      actor = await registerUser(t);
      const sellers = [];
      for (const platform_id of [1, 4, 5])
        sellers.push(Number(/\/site\/(\d+)\/listings$/.exec(locationOf(await connectThroughSandbox(t, actor, { platform_id })))![1]));
      await connectThroughSandbox(t, actor, { platform_id: 5, site_id: sellers[2] });
      const expiries = await selectRows<{ access_expires_at: Date }>(t.database, sql`select access_expires_at from site_credentials`);
      for (const row of expiries) assert.equal(new Date(row.access_expires_at).getTime(), t.clock.now().getTime() + 120_000);
      // Ten token lifetimes, the worker polling every 30 s as REFRESH_POLL_SECONDS does by default.
      let refreshed = 0;
      for (let tick = 0; tick < 40; tick++) {
        t.clock.advance(30_000);
        const result = await refreshDue(t);
        assert.deepEqual([result.retry, result.reauthorization_required], [0, 0]);
        refreshed += result.refreshed;
      }
      assert.ok(refreshed >= 4 * 10, `renewed ${refreshed} times`);
      const states = await selectRows<{ status: string; expired: boolean }>(
        t.database,
        sql`select s.status, c.access_expires_at <= ${t.clock.now().toISOString()}::timestamptz as expired from sites s join site_credentials c on c.site_id = s.id`,
      );
      assert.deepEqual(
        states.map((s) => [s.status, s.expired]),
        states.map(() => ['connected', false]),
      );
    });

    test('two workers racing over the same due grants, each asked three times, renew each exactly once', async () => {
      const siteIds = [];
      for (const account of ['51', '52', '53', '54', '55', '56']) siteIds.push(await connectEtsy(account));
      t.clock.advance(51 * MINUTE);
      // Besides each grant's scheduled renewal, two more asks per grant (as accessTokenFor and the overdue check send).
      for (const siteId of siteIds) {
        const [row] = await selectRows<{ version: number }>(
          t.database,
          sql`select version from site_credentials where site_id = ${siteId}`,
        );
        for (let ask = 0; ask < 2; ask++)
          await t.deps.tokenRefresh.schedule(t.database.db, { siteId, grant: 'seller', version: row!.version });
      }
      await t.database.db.execute(sql`update pgboss.job set start_after = now() where name = ${REFRESH_QUEUE} and state = 'created'`);
      const callsBefore = t.deps.sandbox.calls.get('etsy:token') ?? 0;
      const results: string[] = [];
      for (let round = 0; round < 12; round++) {
        for (const pass of await Promise.all([t.deps.jobs.runReady(REFRESH_QUEUE, 2), t.deps.jobs.runReady(REFRESH_QUEUE, 2)]))
          results.push(...pass);
      }
      assert.equal(results.filter((r) => r === 'refreshed').length, 6);
      assert.equal(results.length, 18, 'every job ran once');
      assert.equal((t.deps.sandbox.calls.get('etsy:token') ?? 0) - callsBefore, 6, 'one token call per grant');
      for (const siteId of siteIds) assert.equal((await site(siteId)).status, 'connected');
    });

    test('a refused grant turns the site reauthorization_required with the reason; reconnecting restores it under its id', async () => {
      const siteId = await connectEtsy('61');
      // The user revoked the app on Etsy: the refresh token we hold is no longer known there.
      await storeRevoked(t, siteId, '70000061.revoked');
      assert.equal((await refreshDue(t)).reauthorization_required, 1);
      const refused = await site(siteId);
      assert.equal(refused.status, 'reauthorization_required');
      assert.match(refused.status_reason, /refused to renew access/);
      assert.equal(refused.next_refresh_at, null);
      assert.equal(await connectEtsy('61'), siteId);
      const restored = await site(siteId);
      assert.deepEqual([restored.status, restored.status_reason], ['connected', null]);
      assert.ok(restored.next_refresh_at);
    });

    test('accessTokenFor hands out the stored token while it is fresh, and ten callers at expiry share one renewal', async () => {
      const siteId = await connectEtsy('81');
      const before = t.deps.sandbox.calls.get('etsy:token') ?? 0;
      const stored = await t.deps.tokenRefresh.accessTokenFor(siteId);
      assert.equal((t.deps.sandbox.calls.get('etsy:token') ?? 0) - before, 0, 'a fresh token needs no platform call');
      t.clock.advance(59.5 * MINUTE);
      const tokens = await whileRenewing(t, Promise.all(Array.from({ length: 10 }, () => t.deps.tokenRefresh.accessTokenFor(siteId))));
      assert.equal((t.deps.sandbox.calls.get('etsy:token') ?? 0) - before, 1, 'one renewal for ten callers');
      assert.equal(new Set(tokens).size, 1);
      assert.notEqual(tokens[0], stored);
      // The renewed token is the one the simulated platform accepts.
      const me = await fetch(`${t.deps.config.appUrl}/sandbox/etsy/v3/application/users/me`, {
        headers: { 'x-api-key': 'sandbox-etsy-keystring:sandbox-etsy-shared-secret', authorization: `Bearer ${tokens[0]}` },
      });
      assert.equal(me.status, 200);
      assert.equal((await site(siteId)).status, 'connected');
    });

    test('accessTokenFor refuses a site whose grant the platform refused, and tells the caller to reconnect', async () => {
      const siteId = await connectEtsy('82');
      await storeRevoked(t, siteId, '70000082.revoked');
      await assert.rejects(whileRenewing(t, t.deps.tokenRefresh.accessTokenFor(siteId)), (error: Error) => /reconnect/.test(error.message));
      assert.equal((await site(siteId)).status, 'reauthorization_required');
    });

    test('a token endpoint answering 500 is retried with back-off and leaves the site connected', async () => {
      const siteId = await connectEtsy('71');
      t.clock.advance(51 * MINUTE);
      t.deps.sandbox.faults.set('etsy', 'token', 'error');
      assert.equal((await refreshDue(t)).retry, 1);
      let row = await credentials(siteId);
      assert.deepEqual([row.refresh_failures, row.next_refresh_at!.getTime()], [1, t.clock.now().getTime() + 30_000]);
      assert.equal((await refreshDue(t)).retry, 0, 'not before its retry time');
      t.clock.advance(31_000);
      assert.equal((await refreshDue(t)).retry, 1);
      row = await credentials(siteId);
      assert.deepEqual([row.refresh_failures, row.next_refresh_at!.getTime()], [2, t.clock.now().getTime() + 60_000]);
      assert.equal((await site(siteId)).status, 'connected');
      t.deps.sandbox.faults.clear();
      t.clock.advance(61_000);
      assert.equal((await refreshDue(t)).refreshed, 1);
      assert.equal((await credentials(siteId)).refresh_failures, 0);
    });
  });
}
