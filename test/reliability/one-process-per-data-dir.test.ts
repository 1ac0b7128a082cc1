/**
 * The embedded database has one owner (issue 12, item 3; reliability review t9): a second server or the operator CLI on
 * the DATA_DIR of a running server is refused at once, and a lock left by a killed server is taken over.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { requestJson } from '../helpers/answers.js';
import { freePort, type ServerProcess, startServerProcess } from '../helpers/server-process.js';
import { TEST_APP_SECRET, TEST_ENCRYPTION_KEY } from '../helpers/test-app.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const CLI = join(ROOT, 'bin/storelink.js');
const LOCK_FILE = 'storelink.lock';
// "At once": it does not wait for the lock. The bound leaves room for tsx compiling the service on a loaded machine
// (11.7 s seen with the machine at a load of 13); a server waiting for the lock would wait for the test's 30 s.
const REFUSED_WITHIN_MS = 20_000;

interface Run {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  ms: number;
}

/** Runs `node <args>` in the repository with only `env`, killed if still running after `limitMs`. */
function run(args: string[], env: Record<string, string>, options: { stdin?: string; limitMs: number }): Promise<Run> {
  const started = performance.now();
  const child = spawn(process.execPath, args, { cwd: ROOT, env: { PATH: process.env.PATH ?? '', ...env } });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  child.stderr.on('data', (chunk) => (stderr += chunk));
  child.stdin.on('error', () => {});
  child.stdin.end(options.stdin);
  const timer = setTimeout(() => child.kill('SIGKILL'), options.limitMs);
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr, ms: performance.now() - started });
    });
  });
}

describe('one process per embedded database [pglite]', () => {
  let dataDir: string;
  let first: ServerProcess | undefined;
  let successor: ServerProcess | undefined;
  let env: Record<string, string>;

  before(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'storelink-lock-'));
    env = { DATA_DIR: dataDir, APP_SECRET: TEST_APP_SECRET, ENCRYPTION_KEY: TEST_ENCRYPTION_KEY, NODE_ENV: 'test', LOG_LEVEL: 'warn' };
    first = await startServerProcess(env);
  });

  after(async () => {
    await first?.stop();
    await successor?.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  test('the running server holds a lock file in DATA_DIR naming its pid', () => {
    const lock = JSON.parse(readFileSync(join(dataDir, LOCK_FILE), 'utf8'));
    assert.equal(lock.pid, first!.pid);
  });

  test('a second server on the same DATA_DIR exits 1 at once, naming DATA_DIR and the running server’s pid', async () => {
    const port = await freePort();
    const second = await run(['--import', 'tsx', 'src/main.ts'], { ...env, PORT: String(port) }, { limitMs: 30_000 });
    assert.equal(second.code, 1, `exit ${second.code ?? second.signal} after ${Math.round(second.ms)} ms; stderr: ${second.stderr}`);
    assert.ok(second.ms < REFUSED_WITHIN_MS, `refused after ${Math.round(second.ms)} ms`);
    assert.match(second.stderr, new RegExp(`^DATA_DIR: ${dataDir} is in use by another Storelink process \\(pid ${first!.pid} `, 'm'));
    assert.equal(first!.exited(), false);
    assert.equal((await requestJson(first!.url, 'GET', '/health')).status, 200);
  });

  test('the CLI on the DATA_DIR of a running server exits 1 and says to stop the server or use DATABASE_URL, creating nothing', async () => {
    const email = `cli-${Date.now()}@example.com`;
    const cli = await run([CLI, 'user:create', '--email', email, '--name', 'Locked out'], env, {
      stdin: 'a long enough password\n',
      limitMs: 60_000,
    });
    assert.equal(cli.code, 1, `exit ${cli.code ?? cli.signal}; stdout: ${cli.stdout}; stderr: ${cli.stderr}`);
    assert.equal(cli.stdout, '');
    assert.match(cli.stderr, /stop that server first, or set DATABASE_URL/);
    // Nothing was written behind the server's back: the address is still free for the server itself.
    const registered = await requestJson(first!.url, 'POST', '/auth/register', {
      body: { email, name: 'Through the server', password: 'a long enough password' },
    });
    assert.equal(registered.status, 201, JSON.stringify(registered.body));
  });

  test('after the server is killed with SIGKILL, a new server takes its stale lock over (and says so) and serves', async () => {
    process.kill(first!.pid, 'SIGKILL');
    await first!.stop(); // resolves once it is gone
    assert.equal(first!.exitStatus()?.signal, 'SIGKILL');
    assert.ok(existsSync(join(dataDir, LOCK_FILE)), 'a killed server cannot remove its lock');
    successor = await startServerProcess(env);
    assert.match(successor.output(), new RegExp(`took over the lock of a Storelink process that is gone \\(pid ${first!.pid} `));
    assert.equal(JSON.parse(readFileSync(join(dataDir, LOCK_FILE), 'utf8')).pid, successor.pid);
  });

  test('a clean shutdown removes the lock, and the CLI then opens the database', async () => {
    await successor!.stop();
    assert.equal(successor!.exitStatus()?.code, 0);
    assert.equal(existsSync(join(dataDir, LOCK_FILE)), false);
    const cli = await run([CLI, 'migrate'], env, { limitMs: 60_000 });
    assert.equal(cli.code, 0, cli.stderr);
    assert.equal(existsSync(join(dataDir, LOCK_FILE)), false);
  });
});
