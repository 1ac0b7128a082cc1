import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { DrizzleQueryError } from 'drizzle-orm/errors';
import { prettyFactory } from 'pino-pretty';
import { describeError, PRETTY_OPTIONS, serverLogDestination } from '../../src/logger.js';
import { createPostgresDatabase, databaseKinds } from '../helpers/database.js';
import { type ServerProcess, startServerProcess } from '../helpers/server-process.js';
import { TEST_APP_SECRET, TEST_ENCRYPTION_KEY } from '../helpers/test-app.js';

describe("the server's log destination", () => {
  test('is JSON on stdout (no destination of its own) in production, even in a terminal', () => {
    assert.equal(serverLogDestination({ nodeEnv: 'production' }, true), undefined);
  });

  test('is JSON on stdout in development when stdout is not a terminal (a pipe, a file, a test)', () => {
    assert.equal(serverLogDestination({ nodeEnv: 'development' }, false), undefined);
  });

  test('is a pino-pretty transport in development in a terminal', () => {
    const stream = serverLogDestination({ nodeEnv: 'development' }, true) as unknown as { write: unknown; end(): void };
    assert.equal(typeof stream?.write, 'function');
    // Ended, not awaited: the worker's 'close' is not promised, and a wait on it could leave the event loop empty.
    stream.end();
  });

  test('prints a request as one readable line: method, path, status', () => {
    const format = prettyFactory({ ...PRETTY_OPTIONS, colorize: false });
    const line = (entry: object) => format(JSON.stringify({ level: 30, time: 0, pid: 1, hostname: 'h', ...entry })).trim();
    assert.match(
      line({ reqId: 'req-1', req: { method: 'GET', path: '/api/v1/health', remoteAddress: '127.0.0.1' }, msg: 'incoming request' }),
      /^\[[0-9:.]+\] INFO: GET \/api\/v1\/health incoming request \{"reqId":"req-1"\}$/,
    );
    assert.match(
      line({ reqId: 'req-1', res: { statusCode: 404 }, responseTime: 1.5, msg: 'request completed' }),
      /^\[[0-9:.]+\] INFO: 404 request completed \{"reqId":"req-1","responseTime":1.5\}$/,
    );
  });
});

describe('what a log says of an error', () => {
  test('an Error: its name, code and message', () => {
    const error = Object.assign(new Error('connection refused'), { code: 'ECONNREFUSED' });
    assert.deepEqual(
      { ...describeError(error), stack: undefined },
      { name: 'Error', code: 'ECONNREFUSED', message: 'connection refused', stack: undefined },
    );
  });

  test("a failed query: the driver's own error, never the query's parameters", () => {
    const cause = Object.assign(new Error('duplicate key value'), { code: '23505' });
    const described = describeError(new DrizzleQueryError('insert into users values ($1)', ['secret@example.com'], cause));
    assert.equal(described.message, 'duplicate key value');
    assert.doesNotMatch(JSON.stringify(described), /secret@example\.com/);
  });

  // pg-boss once reported such an error and the log said "[object Object]" (BENCHMARKS.md, "GET /user measured in
  // turns, tried").
  test('an object that is not an Error: its name, code and message where it has them as text', () => {
    assert.deepEqual(describeError({ name: 'PoolError', code: 57014, message: 'timeout', sql: 'select 1' }), {
      name: 'PoolError',
      code: 57014,
      message: 'timeout',
    });
  });

  test('an object without a message: the names of its fields, never their values', () => {
    const described = describeError({ connectionString: 'postgres://app:hunter2@db/app', queue: 'mail' });
    assert.equal(described.message, 'an object with the fields connectionString, queue');
    assert.doesNotMatch(JSON.stringify(described), /hunter2/);
  });

  test('anything else: as text', () => {
    assert.deepEqual(describeError('stopped'), { message: 'stopped' });
    assert.deepEqual(describeError(null), { message: 'null' });
  });
});

// On PostgreSQL when the suite has it: a new PGlite directory takes the server 20 to 30 s to start on a busy machine.
const kind = databaseKinds().includes('postgres') ? 'postgres' : 'pglite';

describe(`a server started with its output piped [${kind}]`, () => {
  let dataDir: string;
  let database: { url: string; drop: () => Promise<void> } | undefined;
  let server: ServerProcess;
  before(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'storelink-log-'));
    if (kind === 'postgres') database = await createPostgresDatabase();
    const env = { DATA_DIR: dataDir, APP_SECRET: TEST_APP_SECRET, ENCRYPTION_KEY: TEST_ENCRYPTION_KEY };
    server = await startServerProcess(database ? { ...env, DATABASE_URL: database.url } : env);
    await fetch(`${server.url}/api/v1/health`);
  });
  after(async () => {
    await server?.stop();
    await database?.drop();
    await rm(dataDir, { recursive: true, force: true });
  });

  /**
   * The log's complete lines as JSON, once `needle` is among them: the child's output arrives through a pipe, after the
   * server has answered (the start-up line follows the first health check by a moment).
   */
  async function logged(needle: string): Promise<Record<string, any>[]> {
    for (let i = 0; i < 100 && !server.output().includes(needle); i++) await new Promise((r) => setTimeout(r, 100));
    const output = server.output();
    return output
      .slice(0, output.lastIndexOf('\n'))
      .split('\n')
      .map((line) => JSON.parse(line));
  }

  test('says at start where the dashboard, the API and its reference are', async () => {
    const started = (await logged('Storelink is running')).find((entry) => entry.msg.startsWith('Storelink is running'));
    const [said, took] = (started?.msg ?? '').split('; started in ');
    assert.equal(
      said,
      `Storelink is running: dashboard at ${server.url}, API at ${server.url}/api/v1 (reference at ${server.url}/api/v1/docs; database: ${kind}`,
    );
    // What the start spent its time on, step by step: the steps' times add up to the whole, exactly (each is the
    // difference of two rounded marks; a whole timed apart had missed the work after the last step by 7 ms on a loaded CI).
    const match =
      /^(\d+) ms: modules (\d+) ms, database (\d+) ms, routes (\d+) ms, jobs (\d+) ms, listen (\d+) ms, workers (\d+) ms\)$/.exec(
        took ?? '',
      );
    assert.ok(match, took);
    const [whole, ...steps] = match.slice(1).map(Number);
    assert.equal(
      steps.reduce((sum, ms) => sum + ms, 0),
      whole,
      took,
    );
  });

  test("writes no request lines for its own long polls of the sandbox's SQS queue (Amazon's order notifications)", async () => {
    const polls = async () =>
      ((await (await fetch(`${server.url}/sandbox/calls`)).json()) as Record<string, number>)['amazon-seller:sqs.ReceiveMessage'] ?? 0;
    for (let i = 0; i < 100 && (await polls()) === 0; i++) await new Promise((r) => setTimeout(r, 100));
    assert.ok((await polls()) > 0, 'the server reads its queue');
    const entries = await logged('"/sandbox/calls"');
    assert.ok(
      entries.some((entry) => entry.req?.path === '/sandbox/calls'),
      'a sandbox request of anyone else is logged',
    );
    assert.deepEqual(
      entries.filter((entry) => String(entry.req?.path ?? '').startsWith('/sandbox/amazon-seller/sqs')),
      [],
    );
  });

  test('logs JSON lines, requests included, when stdout is not a terminal (development)', async () => {
    const entries = await logged('"incoming request"');
    assert.ok(entries.some((entry) => entry.req?.path === '/api/v1/health' && entry.msg === 'incoming request'));
  });
});
