/**
 * Database outage (issue 6, item 6): a real server process on a PostgreSQL cluster of the test's own, stopped under load
 * and started again. Requests during the outage get 503 in the seed's error shape, the service answers 200 again within
 * 5 s of the database's return, and nothing committed before the outage is lost.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { consent, locationOf, openCallback } from '../helpers/connect.js';
import { databaseKinds } from '../helpers/database.js';
import { type PostgresCluster, type StopMode, startPostgresCluster, waitUntil } from '../helpers/postgres-cluster.js';
import { type ServerProcess, startServerProcess } from '../helpers/server-process.js';
import { TEST_APP_SECRET, TEST_ENCRYPTION_KEY } from '../helpers/test-app.js';

const RECOVERY_LIMIT_MS = 5_000;
// An answer slower than this counts as a hang: a request must be answered, not left to time out. Below the pool's 5 s
// connection timeout, so waiting on it shows, with room for a busy CI machine (answers take under 0.2 s when idle).
const HANG_LIMIT_MS = 4_000;
const OUTAGE_MS = 2_000;
const WORKERS = 8;

interface Answer {
  phase: 'before' | 'outage' | 'after';
  path: string;
  startedAt: number;
  ms: number;
  status: number;
  retryAfter: string | null;
  body: unknown;
}

/** A JSON request to the server; never throws: a transport failure or a 10 s abort is status 0. */
async function request(server: ServerProcess, method: string, path: string, headers: Record<string, string> = {}, body?: unknown) {
  try {
    const response = await fetch(`${server.url}/api/v1${path}`, {
      method,
      headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
      redirect: 'manual',
      signal: AbortSignal.timeout(10_000),
    });
    const text = await response.text();
    let json: unknown = text;
    try {
      json = JSON.parse(text);
    } catch {}
    return { status: response.status, retryAfter: response.headers.get('retry-after'), body: json };
  } catch (error) {
    return { status: 0, retryAfter: null, body: String(error) };
  }
}

/** Concurrent GET /user and GET /sites in a loop, each answer recorded with the phase it started in. */
function startLoad(server: ServerProcess, headers: Record<string, string>) {
  const answers: Answer[] = [];
  const state = { phase: 'before' as Answer['phase'], running: true };
  const worker = async (index: number) => {
    for (let i = index; state.running; i++) {
      const path = i % 2 === 0 ? '/user' : '/sites';
      const phase = state.phase;
      const startedAt = Date.now();
      const answer = await request(server, 'GET', path, headers);
      answers.push({ phase, path, startedAt, ms: Date.now() - startedAt, ...answer });
    }
  };
  const done = Promise.all(Array.from({ length: WORKERS }, (_, i) => worker(i)));
  return {
    answers,
    set phase(phase: Answer['phase']) {
      state.phase = phase;
    },
    stop: async () => {
      state.running = false;
      await done;
    },
  };
}

/** Why an answer breaks the outage contract, or null: 200, or 503 with exactly the seed's body and a Retry-After. */
function contractBreach(answer: Answer): string | null {
  if (answer.ms > HANG_LIMIT_MS) return `answered after ${answer.ms} ms`;
  if (answer.status === 200) return null;
  if (answer.status !== 503) return `status ${answer.status}`;
  const body = answer.body as Record<string, unknown>;
  const shaped =
    typeof body === 'object' &&
    body !== null &&
    Object.keys(body).sort().join(',') === 'code,message,success' &&
    body.success === false &&
    body.code === 503 &&
    typeof body.message === 'string';
  if (!shaped) return `503 body ${JSON.stringify(answer.body)}`;
  if (!answer.retryAfter) return '503 without Retry-After';
  return null;
}

function summary(answers: Answer[]): string {
  const counts = new Map<string, number>();
  for (const a of answers) counts.set(`${a.phase} ${a.status}`, (counts.get(`${a.phase} ${a.status}`) ?? 0) + 1);
  return [...counts].map(([key, n]) => `${key}: ${n}`).join(', ');
}

if (databaseKinds().includes('postgres')) {
  describe('database outage on a PostgreSQL cluster of its own [postgres]', () => {
    let cluster: PostgresCluster | undefined;
    let server: ServerProcess | undefined;
    let headers: Record<string, string>;
    let siteId: number;

    before(async () => {
      cluster = await startPostgresCluster();
      server = await startServerProcess({
        DATABASE_URL: cluster.url,
        APP_SECRET: TEST_APP_SECRET,
        ENCRYPTION_KEY: TEST_ENCRYPTION_KEY,
        NODE_ENV: 'test',
        LOG_LEVEL: 'warn',
        REFRESH_POLL_SECONDS: '1',
      });
      const credentials = { email: `outage-${Date.now()}@example.com`, password: 'correct horse battery', name: 'Outage' };
      const registered = await request(server, 'POST', '/auth/register', {}, credentials);
      assert.equal(registered.status, 201, JSON.stringify(registered.body));
      const workspaceId = (registered.body as any).data.workspace.id as number;
      const login = await request(server, 'POST', '/auth/login', {}, { email: credentials.email, password: credentials.password });
      assert.equal(login.status, 200, JSON.stringify(login.body));
      const session = (login.body as any).data.token as string;
      const pat = await request(
        server,
        'POST',
        '/personal-access-tokens',
        { authorization: `Bearer ${session}` },
        { name: 'outage load', expires_in_days: 7 },
      );
      assert.equal(pat.status, 201, JSON.stringify(pat.body));
      headers = { authorization: `Bearer ${(pat.body as any).data.token}`, 'x-workspace-id': String(workspaceId) };

      const authorize = await request(server, 'POST', '/authenticate-site', headers, { platform_id: 1 });
      assert.equal(authorize.status, 200, JSON.stringify(authorize.body));
      const callback = await openCallback(await consent((authorize.body as any).data.url, 'allow'));
      siteId = Number(/\/site\/(\d+)\/listings$/.exec(locationOf(callback))?.[1]);
      assert.ok(siteId > 0, `no site id in ${callback.headers.get('location')}`);
    });

    after(async () => {
      await server?.stop();
      await cluster?.destroy();
    });

    for (const mode of ['fast', 'immediate'] as const satisfies readonly StopMode[]) {
      test(`${mode === 'fast' ? 'a fast' : 'an immediate'} stop under load answers only 200 or 503 in the seed's shape, and 200 again within 5 s of the database's return`, async (t) => {
        const load = startLoad(server!, headers);
        let stopIssuedAt = 0;
        try {
          await new Promise((resolve) => setTimeout(resolve, 500));
          load.phase = 'outage';
          stopIssuedAt = Date.now();
          await cluster!.stop(mode);
          await new Promise((resolve) => setTimeout(resolve, OUTAGE_MS));
          assert.equal(server!.exited(), false, 'the server exited during the outage');

          await cluster!.start();
          assert.ok(await waitUntil(() => cluster!.isReady(), 30_000), 'the cluster did not come back');
          const readyAt = Date.now();
          load.phase = 'after';
          let recoveredAt = 0;
          await waitUntil(async () => {
            const answer = await request(server!, 'GET', '/sites', headers);
            if (answer.status === 200) recoveredAt = Date.now();
            return answer.status === 200;
          }, 15_000);
          t.diagnostic(`database ready to first 200: ${recoveredAt ? recoveredAt - readyAt : 'never'} ms`);
          assert.ok(recoveredAt > 0, `no 200 within 15 s of the database's return; ${summary(load.answers)}`);
          assert.ok(recoveredAt - readyAt <= RECOVERY_LIMIT_MS, `first 200 ${recoveredAt - readyAt} ms after the database's return`);
        } finally {
          await load.stop();
        }

        const outage = load.answers.filter((a) => a.phase === 'outage');
        t.diagnostic(`${summary(load.answers)}; slowest ${Math.max(...load.answers.map((a) => a.ms))} ms`);
        assert.ok(
          outage.some((a) => a.status === 503),
          `no 503 during the outage; ${summary(load.answers)}`,
        );
        const breaches = load.answers.map((a) => [a, contractBreach(a)] as const).filter(([, why]) => why !== null);
        assert.deepEqual(
          breaches.slice(0, 5).map(([a, why]) => `${a.phase} GET ${a.path}: ${why}`),
          [],
          `${breaches.length} answers broke the contract; ${summary(load.answers)}`,
        );
        // A request still in flight when the stop is issued may fairly get a 503; one answered before it may not.
        const answeredBefore = load.answers.filter((a) => a.startedAt + a.ms < stopIssuedAt);
        assert.ok(
          answeredBefore.length > 0 && answeredBefore.every((a) => a.status === 200),
          `every answer before the stop is 200; ${summary(load.answers)}`,
        );
        assert.equal(server!.exited(), false, 'the server is still running');
      });
    }

    test('the site connected before the outages is still listed and still has its credentials row', async () => {
      const sites = await request(server!, 'GET', '/sites', headers);
      assert.equal(sites.status, 200, JSON.stringify(sites.body));
      assert.deepEqual(
        (sites.body as any).data.map((site: { id: number; status: string }) => [site.id, site.status]),
        [[siteId, 'connected']],
      );
      const client = new pg.Client({ connectionString: cluster!.url });
      await client.connect();
      try {
        const { rows } = await client.query('select site_id from site_credentials where site_id = $1', [siteId]);
        assert.equal(rows.length, 1);
      } finally {
        await client.end();
      }
    });
  });
}
