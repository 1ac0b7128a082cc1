/** A whole Storelink on a fresh database, driven through app.inject(), with a settable clock and a round-trip counter. */

import { Writable } from 'node:stream';
import { sql } from 'drizzle-orm';
import type { LightMyRequestResponse } from 'fastify';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { createDeps, type Deps } from '../../src/deps.js';
import type { App } from '../../src/http/access.js';
import type { ResolveHost } from '../../src/lib/public-address.js';
import { createLogger } from '../../src/logger.js';
import type { ResolvedConfig } from '../../src/secrets.js';
import { createManualClock } from './clock.js';
import { createTestDatabase, type DatabaseKind, type TestDatabase } from './database.js';
import { freePort } from './server-process.js';

export const TEST_APP_SECRET = 'test-app-secret-that-is-long-enough-0123456789';
export const TEST_ENCRYPTION_KEY = '0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef';
// Cheap scrypt for speed; the production parameters have their own unit test.
const TEST_SCRYPT = { N: 1024, r: 8, p: 1 };
// Suites register many users from one address; the sign-up limit has tests of its own (test/auth/signup-login-limits.test.ts).
const TEST_SIGNUP_LIMIT = '1000000';

export interface TestApp {
  readonly app: App;
  readonly deps: Deps;
  readonly database: TestDatabase;
  readonly clock: ReturnType<typeof createManualClock>;
  /** The statements sent to the database since start: how many, and their texts while `seen` is set. */
  readonly queries: { count: number; seen?: string[] };
  /** Every log line written, as text, for checking that no secret is logged. */
  readonly logs: string[];
  close(): Promise<void>;
}

/**
 * `listen: true` serves the app on a free loopback port with APP_URL pointing at it, so platform adapters reach the
 * simulators over real HTTP (timeouts and connection resets included). `env` may be a function of the app's URL, for
 * variables that point at the app itself (a platform's hosts set to its simulators). `database` runs the app on an
 * existing database, which close() then leaves open (its statements are not counted); `resolveHost` replaces DNS for
 * webhook hosts.
 */
export async function createTestApp(
  kind: DatabaseKind,
  options: {
    env?: Record<string, string> | ((appUrl: string) => Record<string, string>);
    listen?: boolean;
    /** With `listen`, the port to serve on (one chosen ahead, to name it to another app); else a free one. */
    port?: number;
    workers?: boolean;
    /**
     * Without `workers`, token renewals still run on a worker (`accessTokenFor` waits for one) unless the test drives
     * them by hand (`refreshDue`, `storeRevoked`): 'by-hand'.
     */
    renewals?: 'worker' | 'by-hand';
    database?: TestDatabase;
    resolveHost?: ResolveHost;
    /** How often an event stream (GET /events) sends its heartbeat and checks access again (default 15 s). */
    liveHeartbeatMs?: number;
  } = {},
): Promise<TestApp> {
  const queries: TestApp['queries'] = { count: 0 };
  const logs: string[] = [];
  const database =
    options.database ??
    (await createTestDatabase(kind, {
      onQuery: (query) => {
        queries.count++;
        queries.seen?.push(query);
      },
    }));
  // A port chosen here can be taken by another test process between the check and the listen: then the app is made
  // again on another (its APP_URL names the port).
  for (let attempt = 1; ; attempt++) {
    const port = options.listen ? (options.port ?? (await freePort())) : null;
    try {
      const started = await startOn(port);
      return { ...started, database, queries, logs };
    } catch (error) {
      const taken = (error as NodeJS.ErrnoException).code === 'EADDRINUSE' && options.port === undefined && attempt < 5;
      if (!taken) {
        if (!options.database) await database.close();
        throw error;
      }
      logs.length = 0;
    }
  }

  async function startOn(port: number | null): Promise<Pick<TestApp, 'app' | 'deps' | 'clock' | 'close'>> {
    const listenEnv = port ? { PORT: String(port), APP_URL: `http://127.0.0.1:${port}` } : {};
    const baseEnv = {
      APP_SECRET: TEST_APP_SECRET,
      ENCRYPTION_KEY: TEST_ENCRYPTION_KEY,
      LOG_LEVEL: 'info',
      SIGNUP_RATE_LIMIT_PER_ADDRESS: TEST_SIGNUP_LIMIT,
      // The simulators keep their state in memory only, as the suite's apps are many and short-lived; the tests of the
      // saved state turn it on (test/platforms/sandbox-state.test.ts).
      SANDBOX_PERSIST: 'false',
      ...listenEnv,
    };
    const env = typeof options.env === 'function' ? options.env(loadConfig(baseEnv).appUrl) : options.env;
    const config = loadConfig({ ...baseEnv, ...env }) as ResolvedConfig;
    // Starts at the real time, to the second: jobs due at a time read from this clock are due by the database's clock too.
    const clock = createManualClock(new Date(Math.floor(Date.now() / 1000) * 1000));
    const logger = createLogger(config, new Writable({ write: (chunk, _enc, done) => (logs.push(String(chunk)), done()) }));
    const deps = createDeps(config, {
      database,
      clock,
      logger,
      scryptParams: TEST_SCRYPT,
      usageFlushIntervalMs: 3_600_000,
      ...(options.resolveHost ? { resolveHost: options.resolveHost } : {}),
      ...(options.liveHeartbeatMs ? { liveHeartbeatMs: options.liveHeartbeatMs } : {}),
    });
    const app = await buildApp(deps);
    await deps.watchAuthChanges();
    await deps.start();
    if (options.workers) await deps.startWorkers();
    else if (options.renewals !== 'by-hand') await deps.jobs.startWorkers((worker) => worker === 'refresh');
    await app.ready();
    if (port) {
      try {
        await app.listen({ port, host: '127.0.0.1' });
      } catch (error) {
        // What was started is stopped, or its timers and pools would keep the test's process alive after the failure.
        await app.close();
        await deps.close();
        throw error;
      }
    }
    return {
      app,
      deps,
      clock,
      close: async () => {
        // A simulator's `timeout` fault never answers; its sockets would keep close() waiting.
        app.server.closeAllConnections();
        await app.close();
        await deps.close();
        if (!options.database) await database.close();
      },
    };
  }
}

export const API = '/api/v1';

/**
 * Runs, in this process, the jobs of `queue` that are due by the test's clock (one pass, as a worker's poll would),
 * and counts what each did ('refreshed', 'delivered', 'skipped' …). The database's clock does not move with the test's,
 * so a job due by the test's clock is first made due now. `fetchesMax` bounds the fetches: 1 runs only what is ready
 * now, not the jobs those send.
 */
export async function runDueJobs(t: TestApp, queue: string, fetchesMax = 20): Promise<Record<string, number>> {
  await t.database.db.execute(sql`
    update pgboss.job set start_after = now()
    where name = ${queue} and state in ('created', 'retry') and start_after <= ${t.clock.now().toISOString()}::timestamptz`);
  const counts: Record<string, number> = {};
  // pg-boss hands out one job per singleton key at a time, so a pass fetches until nothing ready is left.
  for (let fetches = 0; fetches < fetchesMax; fetches++) {
    const results = await t.deps.jobs.runReady(queue);
    if (results.length === 0) break;
    for (const result of results) counts[result] = (counts[result] ?? 0) + 1;
  }
  return counts;
}

type Method = 'GET' | 'POST' | 'DELETE' | 'PUT' | 'PATCH';

/** One JSON request to the API; `token` becomes the bearer, `workspace` the X-Workspace-Id header. */
export async function call(
  t: Pick<TestApp, 'app'>,
  method: Method,
  path: string,
  options: { token?: string; workspace?: number | string; body?: unknown; headers?: Record<string, string>; remoteAddress?: string } = {},
): Promise<LightMyRequestResponse & { body: string; json: () => any }> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.token !== undefined) headers.authorization = `Bearer ${options.token}`;
  if (options.workspace !== undefined) headers['x-workspace-id'] = String(options.workspace);
  return t.app.inject({
    method,
    url: `${API}${path}`,
    headers,
    ...(options.body !== undefined ? { payload: options.body as object } : {}),
    ...(options.remoteAddress ? { remoteAddress: options.remoteAddress } : {}),
  });
}

let userCounter = 0;

/** Registers a new user through the API; returns their session token, user and own workspace. */
export async function registerUser(t: Pick<TestApp, 'app'>, overrides: { email?: string; name?: string; password?: string } = {}) {
  userCounter += 1;
  const body = {
    email: overrides.email ?? `user${userCounter}-${Date.now()}@example.com`,
    name: overrides.name ?? `User ${userCounter}`,
    password: overrides.password ?? 'correct horse battery',
  };
  const response = await call(t, 'POST', '/auth/register', { body });
  if (response.statusCode !== 201) throw new Error(`register failed: ${response.statusCode} ${response.body}`);
  const { data } = response.json();
  return {
    session: data.token as string,
    user: data.user as { id: number; email: string; name: string },
    workspace: data.workspace as { id: number; name: string; role: string },
    password: body.password,
  };
}

/** Creates a PAT with the given session; returns the token value and its record. */
export async function createPat(t: TestApp, session: string, body: { name?: string; expires_in_days?: number | null } = {}) {
  const response = await call(t, 'POST', '/personal-access-tokens', {
    token: session,
    body: { name: body.name ?? 'test token', expires_in_days: body.expires_in_days === undefined ? 30 : body.expires_in_days },
  });
  if (response.statusCode !== 201) throw new Error(`PAT creation failed: ${response.statusCode} ${response.body}`);
  return response.json().data as {
    id: number;
    name: string;
    token: string;
    created_at: string;
    expires_at: string | null;
    last_used_at: string | null;
  };
}

/** Asserts the seed's error body for a status. */
export function errorBody(status: number, message: string) {
  return { success: false, code: status, message };
}

/**
 * Calls `attempt` every `pollMs` until it returns true, and returns the milliseconds that took from `since` (default:
 * now); fails after `limitMs`, saying `what` it waited for where given. For what the service promises "within" a time,
 * such as a change reaching every instance's cache.
 */
export async function within(
  limitMs: number,
  attempt: () => Promise<boolean>,
  options: { since?: number; pollMs?: number; what?: string } = {},
): Promise<number> {
  const start = options.since ?? performance.now();
  for (;;) {
    if (await attempt()) return performance.now() - start;
    if (performance.now() - start > limitMs) throw new Error(`${options.what ? `${options.what}: ` : ''}not within ${limitMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, options.pollMs ?? 20));
  }
}

/** A form-encoded POST through app.inject, as a platform client (or a consent page) posts to a simulator. */
export function injectForm(t: TestApp, url: string, form: Record<string, string>, headers: Record<string, string> = {}) {
  return t.app.inject({
    method: 'POST',
    url,
    payload: new URLSearchParams(form).toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
  });
}
