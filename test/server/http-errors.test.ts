import assert from 'node:assert/strict';
import { type AddressInfo, connect, createServer, type Socket } from 'node:net';
import { Writable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { type DatabaseOptions, openDatabase } from '../../src/db/client.js';
import { createDeps } from '../../src/deps.js';
import { createLogger } from '../../src/logger.js';
import type { ResolvedConfig } from '../../src/secrets.js';
import { createPostgresDatabase, databaseKinds, selectRows } from '../helpers/database.js';
import { INVALID } from '../helpers/fixtures.js';
import {
  API,
  call,
  createPat,
  createTestApp,
  errorBody,
  registerUser,
  TEST_APP_SECRET,
  TEST_ENCRYPTION_KEY,
  type TestApp,
} from '../helpers/test-app.js';

const SECURITY_HEADERS = ['x-content-type-options', 'x-frame-options', 'strict-transport-security', 'content-security-policy'];

async function countRows(t: TestApp, table: 'users' | 'access_tokens'): Promise<number> {
  const [row] = await selectRows<{ n: number }>(t.database, sql`select count(*)::int as n from ${sql.identifier(table)}`);
  return row!.n;
}

const FAILURE_DETAIL = 'secret internal detail at /srv/x.ts:12';

/**
 * GET /workspaces of a new user while listing workspaces throws an Error carrying FAILURE_DETAIL: the answer, and the
 * log lines written from the user's first request on.
 */
async function failWithDetail(t: TestApp): Promise<{ response: Awaited<ReturnType<typeof call>>; entries: Array<Record<string, any>> }> {
  const { session } = await registerUser(t);
  const original = t.deps.accounts.listWorkspaces;
  t.deps.accounts.listWorkspaces = async () => {
    throw new Error(FAILURE_DETAIL);
  };
  const logsBefore = t.logs.length;
  try {
    const response = await call(t, 'GET', '/workspaces', { token: session });
    return { response, entries: logEntries(t, logsBefore) };
  } finally {
    t.deps.accounts.listWorkspaces = original;
  }
}

/** The log lines written from `from` on, parsed. */
function logEntries(t: TestApp, from = 0): Array<Record<string, any>> {
  return t.logs.slice(from).map((line) => JSON.parse(line));
}

/** A valid POST /auth/login body (for an unknown email) of exactly `size` bytes, padded with a field the route ignores. */
function loginBodyOfSize(size: number): string {
  const body = (padding: string) => JSON.stringify({ email: 'nobody@example.com', password: 'wrong password', padding });
  const payload = body('x'.repeat(size - body('').length));
  assert.equal(Buffer.byteLength(payload), size);
  return payload;
}

function postLogin(t: TestApp, payload: string, contentType = 'application/json') {
  return t.app.inject({ method: 'POST', url: `${API}/auth/login`, headers: { 'content-type': contentType }, payload });
}

for (const kind of databaseKinds()) {
  describe(`HTTP errors [${kind}]`, () => {
    let t: TestApp;
    before(async () => (t = await createTestApp(kind)));
    after(() => t.close());

    test('an unknown route under /api/v1 is 404 Not found in the error shape', async () => {
      const response = await call(t, 'GET', '/no-such-thing');
      assert.equal(response.statusCode, 404);
      assert.deepEqual(response.json(), errorBody(404, 'Not found'));
    });

    test('an unknown route outside /api/v1 is 404 Not found in the error shape', async () => {
      const response = await t.app.inject({ method: 'POST', url: '/no/such/page?x=1' });
      assert.equal(response.statusCode, 404);
      assert.match(String(response.headers['content-type']), /^application\/json/);
      assert.deepEqual(response.json(), errorBody(404, 'Not found'));
    });

    test('a known path with another method is 405 Method not allowed with an Allow header listing GET', async () => {
      const response = await call(t, 'DELETE', '/health');
      assert.equal(response.statusCode, 405);
      assert.deepEqual(response.json(), errorBody(405, 'Method not allowed'));
      const allowed = String(response.headers.allow)
        .split(',')
        .map((m) => m.trim());
      assert.ok(allowed.includes('GET'), `Allow: ${response.headers.allow}`);
      assert.ok(!allowed.includes('DELETE'), `Allow: ${response.headers.allow}`);
    });

    test('malformed JSON is 400 in the error shape', async () => {
      const response = await postLogin(t, '{"email": "a@example.com", "password": ');
      assert.equal(response.statusCode, 400);
      assert.deepEqual(response.json(), errorBody(400, 'The request body is not valid JSON.'));
    });

    test('an empty body sent as application/json is 400 in the error shape', async () => {
      const response = await postLogin(t, '');
      assert.equal(response.statusCode, 400);
      assert.deepEqual(response.json(), errorBody(400, 'The request body is not valid JSON.'));
    });

    for (const contentType of ['text/plain', 'application/x-www-form-urlencoded']) {
      test(`a body sent as ${contentType} is 415 in the error shape`, async () => {
        const response = await postLogin(t, 'email=a%40example.com&password=secret', contentType);
        assert.equal(response.statusCode, 415);
        assert.deepEqual(response.json(), errorBody(415, 'Unsupported media type: send application/json'));
      });
    }

    test('a body over the default limit of 64 KiB is 413 in the error shape', async () => {
      const response = await postLogin(t, loginBodyOfSize(64 * 1024 + 1));
      assert.equal(response.statusCode, 413);
      assert.deepEqual(response.json(), errorBody(413, 'Payload too large'));
    });

    for (const [label, payload] of [
      ['array', '[{"email":"a@example.com","password":"x"}]'],
      ['string', '"a@example.com"'],
    ] as const) {
      test(`a JSON ${label} as the body is 422 with errors.body`, async () => {
        const response = await postLogin(t, payload);
        assert.equal(response.statusCode, 422);
        assert.deepEqual(response.json(), { ...errorBody(422, INVALID), errors: { body: ['The request body must be a JSON object.'] } });
      });
    }

    test('a 500 answers only "Server error" and sends the internal detail to the log', async () => {
      const { response, entries } = await failWithDetail(t);
      assert.equal(response.statusCode, 500);
      assert.deepEqual(response.json(), errorBody(500, 'Server error'));
      assert.ok(!response.body.includes('secret internal detail'));
      assert.ok(!response.body.includes('x.ts'));
      const errors = entries.filter((entry) => entry.level >= 50);
      assert.ok(
        errors.some((entry) => JSON.stringify(entry).includes(FAILURE_DETAIL)),
        'the detail is logged at error level',
      );
    });

    test("at info, each request's lines carry a reqId of its own", async () => {
      const logsBefore = t.logs.length;
      await call(t, 'GET', '/health');
      await call(t, 'GET', '/health');
      const completed = logEntries(t, logsBefore).filter((entry) => entry.msg === 'request completed');
      assert.equal(completed.length, 2);
      assert.ok(completed.every((entry) => typeof entry.reqId === 'string' && entry.res?.statusCode === 200));
      assert.notEqual(completed[0]!.reqId, completed[1]!.reqId);
    });

    test('security headers are on a success, a 404 and a 401', async () => {
      const responses = [
        await call(t, 'GET', '/health'),
        await call(t, 'GET', '/no-such-thing'),
        await t.app.inject({ method: 'GET', url: '/outside-the-api' }),
        await call(t, 'GET', '/workspaces'),
      ];
      assert.deepEqual(
        responses.map((r) => r.statusCode),
        [200, 404, 404, 401],
      );
      for (const response of responses) {
        assert.equal(response.headers['x-content-type-options'], 'nosniff');
        for (const header of SECURITY_HEADERS) assert.ok(response.headers[header], `${header} on a ${response.statusCode}`);
      }
    });

    test('register, login and PAT creation, which carry a token, are sent with Cache-Control: no-store', async () => {
      const password = 'no store please';
      const register = await call(t, 'POST', '/auth/register', {
        body: { email: `nostore-${Date.now()}@example.com`, password, name: 'No Store' },
      });
      assert.equal(register.statusCode, 201);
      const { user, token } = register.json().data;
      const login = await call(t, 'POST', '/auth/login', { body: { email: user.email, password }, remoteAddress: '10.1.0.1' });
      assert.equal(login.statusCode, 200);
      const pat = await call(t, 'POST', '/personal-access-tokens', { token, body: { name: 'cached?', expires_in_days: 7 } });
      assert.equal(pat.statusCode, 201);
      for (const response of [register, login, pat]) assert.equal(response.headers['cache-control'], 'no-store');
    });

    test('error responses under /api/v1 are sent with Cache-Control: no-store too', async () => {
      const responses = [
        await call(t, 'GET', '/no-such-thing'),
        await call(t, 'GET', '/workspaces'),
        await call(t, 'DELETE', '/health'),
        await postLogin(t, 'x', 'text/plain'),
      ];
      assert.deepEqual(
        responses.map((r) => r.statusCode),
        [404, 401, 405, 415],
      );
      for (const response of responses) assert.equal(response.headers['cache-control'], 'no-store', `on a ${response.statusCode}`);
    });

    test("every 422 says 'The given data was invalid.' and lists messages naming each invalid field", async () => {
      const { session, workspace } = await registerUser(t);
      const cases = [
        {
          field: 'email',
          response: await call(t, 'POST', '/auth/register', { body: { email: 'not-an-email', password: 'long enough', name: 'N' } }),
        },
        { field: 'password', response: await call(t, 'POST', '/auth/login', { body: { email: 'a@example.com' } }) },
        {
          field: 'expires_in_days',
          response: await call(t, 'POST', '/personal-access-tokens', { token: session, body: { name: 'n', expires_in_days: 3 } }),
        },
        { field: 'per_page', response: await call(t, 'GET', '/products?per_page=0', { token: session, workspace: workspace.id }) },
        { field: 'id', response: await call(t, 'DELETE', '/personal-access-tokens/abc', { token: session }) },
      ];
      for (const { field, response } of cases) {
        assert.equal(response.statusCode, 422, field);
        const body = response.json();
        assert.deepEqual({ success: body.success, code: body.code, message: body.message }, errorBody(422, INVALID), field);
        assert.deepEqual(Object.keys(body.errors), [field]);
        const messages = body.errors[field];
        assert.ok(Array.isArray(messages) && messages.length > 0, field);
        for (const message of messages) {
          assert.equal(typeof message, 'string');
          assert.ok(message.includes(field.replaceAll('_', ' ')), `"${message}" names ${field}`);
        }
      }
    });

    test('a register rejected with 422 creates no user', async () => {
      const before = await countRows(t, 'users');
      const response = await call(t, 'POST', '/auth/register', {
        body: { email: 'rejected@example.com', password: 'short', name: 'Rejected' },
      });
      assert.equal(response.statusCode, 422);
      assert.equal(await countRows(t, 'users'), before);
    });

    test('a PAT creation rejected with 401 (no bearer) creates no token', async () => {
      const before = await countRows(t, 'access_tokens');
      const response = await call(t, 'POST', '/personal-access-tokens', { body: { name: 'sneaky', expires_in_days: null } });
      assert.deepEqual(response.json(), errorBody(401, 'Unauthenticated'));
      assert.equal(await countRows(t, 'access_tokens'), before);
    });

    test('a PAT creation rejected with 403 (a PAT as the bearer) creates no token', async () => {
      const { session } = await registerUser(t);
      const pat = await createPat(t, session);
      const before = await countRows(t, 'access_tokens');
      const response = await call(t, 'POST', '/personal-access-tokens', {
        token: pat.token,
        body: { name: 'minted by a PAT', expires_in_days: null },
      });
      assert.deepEqual(response.json(), errorBody(403, 'Invalid workspace or access denied'));
      assert.equal(await countRows(t, 'access_tokens'), before);
    });

    test('no password, session token or PAT value is logged while registering, logging in, creating and using a PAT', async () => {
      const logsBefore = t.logs.length;
      const password = 'p4ssw0rd-that-must-never-be-logged';
      const { user, session } = await registerUser(t, { password });
      const login = await call(t, 'POST', '/auth/login', { body: { email: user.email, password }, remoteAddress: '10.1.0.2' });
      assert.equal(login.statusCode, 200);
      const loginToken: string = login.json().data.token;
      const pat = await createPat(t, loginToken);
      assert.equal((await call(t, 'GET', '/workspaces', { token: pat.token })).statusCode, 200);
      const written = t.logs.slice(logsBefore).join('');
      assert.ok(written.includes('/api/v1/personal-access-tokens'), 'the requests were logged');
      for (const [what, secret] of [
        ['password', password],
        ['register session', session],
        ['login session', loginToken],
        ['PAT', pat.token],
      ] as const) {
        assert.ok(!written.includes(secret), `the ${what} is not logged`);
      }
    });

    test('request logs carry the path without its query string', async () => {
      const logsBefore = t.logs.length;
      for (const url of [
        `${API}/health?code=SECRETCODE&state=SECRETSTATE`,
        `${API}/no-such-thing?code=SECRETCODE&state=SECRETSTATE`,
        '/elsewhere?code=SECRETCODE&state=SECRETSTATE',
      ]) {
        await t.app.inject({ method: 'GET', url });
      }
      const entries = logEntries(t, logsBefore);
      const paths = entries.map((entry) => entry.req?.path).filter(Boolean);
      assert.deepEqual(paths, [`${API}/health`, `${API}/no-such-thing`, '/elsewhere']);
      const written = t.logs.slice(logsBefore).join('');
      assert.ok(!written.includes('SECRETCODE') && !written.includes('SECRETSTATE'), written);
    });
  });

  describe(`HTTP errors with BODY_LIMIT_BYTES=2048 [${kind}]`, () => {
    let t: TestApp;
    before(async () => (t = await createTestApp(kind, { env: { BODY_LIMIT_BYTES: '2048' } })));
    after(() => t.close());

    test('a 3 KB body is 413 in the error shape', async () => {
      const response = await postLogin(t, loginBodyOfSize(3 * 1024));
      assert.equal(response.statusCode, 413);
      assert.deepEqual(response.json(), errorBody(413, 'Payload too large'));
    });

    test('a body just under the limit gets past it', async () => {
      const response = await postLogin(t, loginBodyOfSize(2000));
      assert.equal(response.statusCode, 401);
      assert.deepEqual(response.json(), errorBody(401, 'Unauthenticated'));
    });
  });

  describe(`HTTP errors with LOG_LEVEL=warn [${kind}]`, () => {
    let t: TestApp;
    before(async () => (t = await createTestApp(kind, { env: { LOG_LEVEL: 'warn' } })));
    after(() => t.close());

    test('a 500 is logged at error level with its detail, and nothing else of the request is', async () => {
      const { response, entries } = await failWithDetail(t);
      assert.equal(response.statusCode, 500);
      assert.deepEqual(
        entries.map((entry) => [entry.level, entry.msg]),
        [[50, 'request failed']],
      );
      assert.ok(JSON.stringify(entries[0]!.err).includes(FAILURE_DETAIL), JSON.stringify(entries[0]));
      assert.ok(!JSON.stringify(entries).includes('Bearer'), 'nothing of the bearer is logged');
    });
  });

  describe(`HTTP errors with the database closed [${kind}]`, () => {
    let t: TestApp;
    let session: string;
    before(async () => {
      t = await createTestApp(kind);
      ({ session } = await registerUser(t));
      await t.database.close();
    });
    // The database is already closed (and, on PostgreSQL, dropped): close only the app.
    after(async () => {
      await t.app.close();
      await t.deps.close();
    });

    test('an authenticated request with a valid token is 503 Service unavailable with Retry-After', async () => {
      const response = await call(t, 'GET', '/workspaces', { token: session });
      assert.deepEqual(response.json(), errorBody(503, 'Service unavailable'));
      assert.equal(response.statusCode, 503);
      assert.match(String(response.headers['retry-after']), /^[1-9][0-9]*$/);
    });

    test("a failed query is logged without the query's parameters", async () => {
      const logsBefore = t.logs.length;
      const response = await call(t, 'POST', '/auth/login', {
        body: { email: 'param-marker@example.com', password: 'whatever it is' },
        remoteAddress: '10.2.0.1',
      });
      assert.ok(response.statusCode >= 500, `status ${response.statusCode}`);
      const errors = logEntries(t, logsBefore).filter((entry) => entry.level >= 50);
      assert.ok(errors.length > 0, 'the failure is logged');
      for (const entry of errors) assert.ok(!JSON.stringify(entry).includes('param-marker'), JSON.stringify(entry));
    });
  });

  if (kind === 'postgres') {
    describe('HTTP errors when the PostgreSQL server stops answering [postgres]', () => {
      let relayed: Awaited<ReturnType<typeof appBehindRelay>>;
      before(async () => (relayed = await appBehindRelay()));
      after(() => relayed.close());

      test('an authenticated request is 503 Service unavailable with Retry-After, not a 500', async () => {
        const { session } = await registerUser(relayed);
        await relayed.proxy.stop();
        const response = await call(relayed, 'GET', '/workspaces', { token: session });
        assert.deepEqual(response.json(), errorBody(503, 'Service unavailable'));
        assert.equal(response.statusCode, 503);
        assert.match(String(response.headers['retry-after']), /^[1-9][0-9]*$/);
      });
    });

    describe('HTTP errors when the PostgreSQL server goes silent, connections open [postgres]', () => {
      // The statements' limit; one still unanswered 2 s past it has its connection closed (src/db/client.ts).
      const TIMEOUT_MS = 300;
      const DEADLINE_MS = TIMEOUT_MS + 2_000;
      const warnings: string[] = [];
      let relayed: Awaited<ReturnType<typeof appBehindRelay>>;
      before(async () => (relayed = await appBehindRelay({ timeoutMs: TIMEOUT_MS, warn: (message) => warnings.push(message) })));
      after(() => relayed.close());

      test('a request whose statement is never answered is 503 with Retry-After once the deadline passes, not a hang', async () => {
        const { session } = await registerUser(relayed);
        // The pool keeps the connections the registration used: the next statement goes out on one of them.
        relayed.proxy.silence();
        const started = performance.now();
        const answered = call(relayed, 'GET', '/workspaces', { token: session });
        const limit = new Promise<'no answer'>((resolve) => setTimeout(() => resolve('no answer'), DEADLINE_MS + 5_000).unref());
        const response = await Promise.race([answered, limit]);
        assert.notEqual(response, 'no answer', `no answer within ${DEADLINE_MS + 5_000} ms`);
        const ms = performance.now() - started;
        if (response === 'no answer') return;
        assert.deepEqual(response.json(), errorBody(503, 'Service unavailable'));
        assert.equal(response.statusCode, 503);
        assert.match(String(response.headers['retry-after']), /^[1-9][0-9]*$/);
        // Not before the deadline: statement_timeout cannot end it, as the server never hears of it.
        assert.ok(ms >= DEADLINE_MS, `answered after ${Math.round(ms)} ms, before the ${DEADLINE_MS} ms deadline`);
        assert.ok(
          warnings.includes(`a statement had no answer from the database within ${DEADLINE_MS} ms: its connection is closed`),
          JSON.stringify(warnings),
        );
      });
    });
  }
}

/** An app on a new PostgreSQL database that it reaches through a relay (startTcpProxy), opened with `options`. */
async function appBehindRelay(options: DatabaseOptions = {}) {
  const created = await createPostgresDatabase();
  const url = new URL(created.url);
  const proxy = await startTcpProxy(url.hostname, Number(url.port || 5432));
  url.hostname = '127.0.0.1';
  url.port = String(proxy.port);
  const database = await openDatabase({ kind: 'postgres', url: url.toString() }, options);
  await database.migrate();
  const config = loadConfig({ APP_SECRET: TEST_APP_SECRET, ENCRYPTION_KEY: TEST_ENCRYPTION_KEY, LOG_LEVEL: 'silent' }) as ResolvedConfig;
  const logger = createLogger(config, new Writable({ write: (_chunk, _enc, done) => done() }));
  const deps = createDeps(config, { database, logger, scryptParams: { N: 1024, r: 8, p: 1 }, usageFlushIntervalMs: 3_600_000 });
  const app = await buildApp(deps);
  await app.ready();
  return {
    app,
    proxy,
    close: async () => {
      await proxy.stop();
      await app.close();
      await deps.close();
      await database.close();
      await created.drop();
    },
  };
}

/**
 * A TCP relay in front of the test PostgreSQL server; `stop` cuts every connection and refuses new ones, like a server
 * going down. `silence` keeps every connection open and drops what either side sends from then on, like a network
 * partition: nothing is answered and nothing is closed.
 */
async function startTcpProxy(host: string, port: number) {
  const sockets = new Set<Socket>();
  let silent = false;
  const track = (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {});
    return socket;
  };
  const relay = (from: Socket, to: Socket) => from.on('data', (chunk) => silent || to.write(chunk));
  const server = createServer((client) => {
    const upstream = track(connect(port, host));
    relay(track(client), upstream);
    relay(upstream, client);
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  let stopped: Promise<void> | null = null;
  return {
    port: (server.address() as AddressInfo).port,
    silence: () => void (silent = true),
    stop: () =>
      (stopped ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const socket of sockets) socket.destroy();
      })),
  };
}
