/**
 * Two server processes on one PostgreSQL, as behind a load balancer (issue 6, item 5): a state made on one completes on
 * the other, concurrent replays across both give one success, and a revoked PAT or a member removed is refused by
 * both within one second. Both share APP_URL, pointed at A, so A's sandbox simulators are "the platform" for both.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { consent, locationOf, openCallback } from '../helpers/connect.js';
import { createPostgresDatabase, databaseKinds } from '../helpers/database.js';
import { type Answer, api } from '../helpers/process-api.js';
import { freePort, outputsOf, type ServerProcess, startServerProcess } from '../helpers/server-process.js';
import { TEST_APP_SECRET, TEST_ENCRYPTION_KEY, within } from '../helpers/test-app.js';

const REFUSAL_DEADLINE_MS = 1_000;
const POLL_MS = 50;
const INVALID_STATE = '/dashboard?authorization_error=Invalid+authorization+state';

/** The same path and query on another instance, as a balancer would route the browser's request. */
function on(server: ServerProcess, url: string): string {
  const { pathname, search } = new URL(url);
  return `${server.url}${pathname}${search}`;
}

/**
 * Polls `request` every 50 ms until it answers `status`; returns how long that took from `since`. Fails with the last
 * answer once the deadline has passed.
 */
async function answersWithin(status: number, request: () => Promise<Answer>, since: number): Promise<number> {
  let last: Answer | undefined;
  try {
    return await within(REFUSAL_DEADLINE_MS, async () => (last = await request()).status === status, { since, pollMs: POLL_MS });
  } catch {
    return assert.fail(`still ${last?.status} ${JSON.stringify(last?.json)} after ${Math.round(performance.now() - since)} ms`);
  }
}

describe('two instances on one PostgreSQL', {
  skip: !databaseKinds().includes('postgres') && 'PostgreSQL only: TEST_DATABASE_URL is not set',
}, () => {
  let database: Awaited<ReturnType<typeof createPostgresDatabase>>;
  let sql: pg.Pool;
  let a: ServerProcess | undefined;
  let b: ServerProcess | undefined;
  let appUrl: string;

  before(
    async () => {
      database = await createPostgresDatabase();
      sql = new pg.Pool({ connectionString: database.url, max: 2 });
      const portA = await freePort();
      appUrl = `http://127.0.0.1:${portA}`;
      const env = {
        DATABASE_URL: database.url,
        APP_SECRET: TEST_APP_SECRET,
        ENCRYPTION_KEY: TEST_ENCRYPTION_KEY,
        APP_URL: appUrl,
        NODE_ENV: 'test',
        LOG_LEVEL: 'info',
      };
      // Started together, so both migrate the fresh database at once and take turns under the advisory lock.
      const [startedA, startedB] = await Promise.allSettled([startServerProcess(env, { port: portA }), startServerProcess(env)]);
      if (startedA.status === 'fulfilled') a = startedA.value;
      if (startedB.status === 'fulfilled') b = startedB.value;
      for (const started of [startedA, startedB]) if (started.status === 'rejected') throw started.reason;
    },
    { timeout: 90_000 },
  );

  /** A test that, when it fails, shows what both servers wrote while it ran (a failed start puts its output in its error). */
  function serverTest(name: string, body: () => Promise<void>) {
    test(name, { timeout: 60_000 }, async () => {
      const marks = { A: a?.output().length ?? 0, B: b?.output().length ?? 0 };
      try {
        await body();
      } catch (error) {
        process.stderr.write(`${outputsOf({ A: a, B: b }, marks)}\n`);
        throw error;
      }
    });
  }

  after(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    await sql?.end();
    await database?.drop();
  });

  const A = () => a!;
  const B = () => b!;

  /** A new user registered on `server`, with a PAT made there. */
  async function seller(server: ServerProcess) {
    const registered = await api(server, 'POST', '/auth/register', {
      body: {
        email: `seller-${Date.now()}-${Math.random().toString(36).slice(2)}@example.com`,
        password: 'correct horse battery',
        name: 'Seller',
      },
    });
    assert.equal(registered.status, 201, JSON.stringify(registered.json));
    const session = registered.json.data.token as string;
    const created = await api(server, 'POST', '/personal-access-tokens', {
      token: session,
      body: { name: 'two instances', expires_in_days: 30 },
    });
    assert.equal(created.status, 201, JSON.stringify(created.json));
    return {
      session,
      userId: registered.json.data.user.id as number,
      workspace: registered.json.data.workspace.id as number,
      pat: created.json.data.token as string,
      patId: created.json.data.id as number,
    };
  }

  /** authenticate-site for Etsy on A, then the sandbox consent: the callback URL the platform sends the browser to. */
  async function etsyCallback(actor: { pat: string; workspace: number }, account: string): Promise<string> {
    const started = await api(A(), 'POST', '/authenticate-site', {
      token: actor.pat,
      workspace: actor.workspace,
      body: { platform_id: 1 },
    });
    assert.equal(started.status, 200, JSON.stringify(started.json));
    return consent(started.json.data.url, 'allow', account);
  }

  async function siteIds(server: ServerProcess, actor: { pat: string; workspace: number }): Promise<number[]> {
    const listed = await api(server, 'GET', '/sites', { token: actor.pat, workspace: actor.workspace });
    assert.equal(listed.status, 200, JSON.stringify(listed.json));
    return (listed.json.data as { id: number }[]).map((site) => site.id).sort((x, y) => x - y);
  }

  async function siteRows(workspace: number): Promise<number> {
    const { rows } = await sql.query<{ n: string }>('select count(*) as n from sites where workspace_id = $1', [workspace]);
    return Number(rows[0]!.n);
  }

  serverTest('a state made on A completes on B, which redirects to the listings and both list the site', async () => {
    const actor = await seller(A());
    const callback = await etsyCallback(actor, '1');
    assert.ok(callback.startsWith(`${appUrl}/api/v1/oauth/callback/etsy?`), callback);

    const target = locationOf(await openCallback(on(B(), callback)));
    const siteId = Number(new RegExp(`^${appUrl}/site/(\\d+)/listings$`).exec(target)?.[1]);
    assert.ok(siteId > 0, `B redirected to ${target}`);
    assert.deepEqual(await siteIds(A(), actor), [siteId]);
    assert.deepEqual(await siteIds(B(), actor), [siteId]);
  });

  serverTest('50 concurrent replays of one callback across A and B give one success, 49 state errors and one site', async () => {
    const actor = await seller(A());
    const callback = await etsyCallback(actor, '2');
    const targets = await Promise.all(
      Array.from({ length: 50 }, (_, i) => openCallback(on(i % 2 === 0 ? A() : B(), callback)).then(locationOf)),
    );

    const successes = targets.filter((target) => new RegExp(`^${appUrl}/site/\\d+/listings$`).test(target));
    assert.equal(successes.length, 1, targets.join('\n'));
    assert.equal(targets.filter((target) => target === `${appUrl}${INVALID_STATE}`).length, 49, targets.join('\n'));
    assert.equal(await siteRows(actor.workspace), 1);
  });

  for (const [revoker, user] of [
    ['A', 'B'],
    ['B', 'A'],
  ] as const) {
    serverTest(`a PAT used on ${user} and revoked on ${revoker} is refused by ${user} with 401 within one second`, async () => {
      const [revoking, using] = revoker === 'A' ? [A(), B()] : [B(), A()];
      const actor = await seller(revoking);
      for (let i = 0; i < 3; i++) assert.equal((await api(using, 'GET', '/workspaces', { token: actor.pat })).status, 200);

      const revoked = await api(revoking, 'DELETE', `/personal-access-tokens/${actor.patId}`, { token: actor.session });
      const since = performance.now();
      assert.deepEqual([revoked.status, revoked.json], [200, { success: true, data: null }]);
      await answersWithin(401, () => api(using, 'GET', '/workspaces', { token: actor.pat }), since);
      const refused = await api(revoking, 'GET', '/workspaces', { token: actor.pat });
      assert.deepEqual([refused.status, refused.json], [401, { success: false, code: 401, message: 'Unauthenticated' }]);
    });
  }

  serverTest('a member removed through the API on A is refused with 403 by both instances within one second', async () => {
    const owner = await seller(A());
    const member = await seller(B());
    const email = (await api(B(), 'GET', '/user', { token: member.pat, workspace: member.workspace })).json.data.email as string;
    const invited = await api(A(), 'POST', `/workspaces/${owner.workspace}/invitations`, {
      token: owner.session,
      body: { email, role: 'member' },
    });
    assert.equal(invited.status, 201, JSON.stringify(invited.json));
    const accepted = await api(B(), 'POST', `/invitations/${invited.json.data.token}/accept`, { token: member.pat });
    assert.equal(accepted.status, 200, JSON.stringify(accepted.json));
    for (const server of [A(), B(), A(), B()])
      assert.equal((await api(server, 'GET', '/user', { token: member.pat, workspace: owner.workspace })).status, 200);

    const removed = await api(A(), 'DELETE', `/workspaces/${owner.workspace}/members/${member.userId}`, { token: owner.session });
    const since = performance.now();
    assert.deepEqual([removed.status, removed.json], [200, { success: true, data: null }]);
    await Promise.all(
      [A(), B()].map((server) =>
        answersWithin(403, () => api(server, 'GET', '/user', { token: member.pat, workspace: owner.workspace }), since),
      ),
    );
    const refused = await api(B(), 'GET', '/user', { token: member.pat, workspace: owner.workspace });
    assert.deepEqual(refused.json, { success: false, code: 403, message: 'Invalid workspace or access denied' });
    // Their own workspace is theirs still.
    assert.equal((await api(B(), 'GET', '/user', { token: member.pat, workspace: member.workspace })).status, 200);
  });
});
