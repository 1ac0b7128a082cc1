import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { TEST_APP_SECRET, TEST_ENCRYPTION_KEY } from '../helpers/test-app.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** Starts the server (`node --import tsx src/main.ts`) with only the given environment; killed after 20 s. */
function startServer(env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', ...env },
    timeout: 20_000,
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  child.stderr.on('data', (chunk) => (stderr += chunk));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** The variable names of the per-field lines (`NAME: problem`) on stderr. */
function fieldsOf(stderr: string): string[] {
  return stderr
    .split('\n')
    .filter((line) => /^[A-Z_]+: /.test(line))
    .map((line) => line.slice(0, line.indexOf(':')));
}

describe('start-up with a bad configuration', () => {
  let dataDir: string;
  before(async () => (dataDir = await mkdtemp(join(tmpdir(), 'storelink-startup-'))));
  after(() => rm(dataDir, { recursive: true, force: true }));

  test('a short APP_SECRET stops the start with exit 1 and a line for APP_SECRET', async () => {
    const run = await startServer({ DATA_DIR: dataDir, APP_SECRET: 'short' });
    assert.equal(run.code, 1);
    assert.deepEqual(fieldsOf(run.stderr), ['APP_SECRET']);
    assert.match(run.stderr, /^APP_SECRET: must be at least 32 characters/m);
  });

  test('every bad field is reported at once, one line each', async () => {
    const run = await startServer({ DATA_DIR: dataDir, PORT: 'abc', LOG_LEVEL: 'loud' });
    assert.equal(run.code, 1);
    assert.deepEqual(fieldsOf(run.stderr).sort(), ['LOG_LEVEL', 'PORT']);
  });

  test('NODE_ENV=production without APP_SECRET and ENCRYPTION_KEY stops the start naming both', async () => {
    const run = await startServer({ DATA_DIR: dataDir, NODE_ENV: 'production' });
    assert.equal(run.code, 1);
    assert.deepEqual(fieldsOf(run.stderr).sort(), ['APP_SECRET', 'ENCRYPTION_KEY']);
  });

  test('an unreachable DATABASE_URL stops the start with a line for it that hides the password', async () => {
    const run = await startServer({
      DATA_DIR: dataDir,
      APP_SECRET: TEST_APP_SECRET,
      ENCRYPTION_KEY: TEST_ENCRYPTION_KEY,
      LOG_LEVEL: 'warn',
      DATABASE_URL: 'postgres://postgres:secretpw@127.0.0.1:1/none',
    });
    assert.equal(run.code, 1);
    const line = run.stderr.split('\n').find((l) => l.startsWith('DATABASE_URL:'));
    assert.ok(line, run.stderr);
    assert.match(line, /127\.0\.0\.1:1\/none/);
    assert.ok(!run.stderr.includes('secretpw') && !run.stdout.includes('secretpw'));
  });
});
