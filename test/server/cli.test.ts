import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { type DatabaseTarget, openDatabase } from '../../src/db/client.js';
import { createDeps } from '../../src/deps.js';
import type { App } from '../../src/http/access.js';
import { createLogger } from '../../src/logger.js';
import type { ResolvedConfig } from '../../src/secrets.js';
import { createPostgresDatabase, databaseKinds } from '../helpers/database.js';
import { compileCache, entryArgs } from '../helpers/server-process.js';
import { API, TEST_APP_SECRET, TEST_ENCRYPTION_KEY } from '../helpers/test-app.js';

const CLI = fileURLToPath(new URL('../../bin/storelink.js', import.meta.url));
const JWT = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;
const PASSWORD = 'correct horse battery staple';
const NEW_PASSWORD = 'lantern orchard quietly';

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs the CLI with only the given environment, writing `stdin` (if any) and closing it: the bundle's when it is current
 * (entryArgs), as the servers of the suite run, else `node bin/storelink.js`; `viaBin` runs bin/storelink.js either way.
 */
function runCli(args: string[], env: Record<string, string>, stdin?: string, viaBin = false): Promise<Run> {
  const child = spawn(process.execPath, [...(viaBin ? [CLI] : entryArgs('cli')), ...args], {
    env: {
      ...compileCache(),
      PATH: process.env.PATH ?? '',
      APP_SECRET: TEST_APP_SECRET,
      ENCRYPTION_KEY: TEST_ENCRYPTION_KEY,
      LOG_LEVEL: 'warn',
      ...env,
    },
    timeout: 60_000,
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  child.stderr.on('data', (chunk) => (stderr += chunk));
  // The CLI may exit before reading its input (a usage error): that is no failure of the test.
  child.stdin.on('error', () => {});
  child.stdin.end(stdin);
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** Lines of an output, without the empty one after the final newline. */
const lines = (text: string) => text.split('\n').filter((line) => line !== '');

/** An app over the database the CLI used; for PGlite the CLI must have exited, since only one process may open it. */
async function withApp<T>(target: DatabaseTarget, use: (app: App) => Promise<T>): Promise<T> {
  const database = await openDatabase(target);
  const config = loadConfig({ APP_SECRET: TEST_APP_SECRET, ENCRYPTION_KEY: TEST_ENCRYPTION_KEY, LOG_LEVEL: 'silent' }) as ResolvedConfig;
  const deps = createDeps(config, { database, logger: createLogger(config) });
  const app = await buildApp(deps);
  try {
    return await use(app);
  } finally {
    await app.close();
    await deps.close();
    await database.close();
  }
}

async function login(app: App, email: string, password: string) {
  return app.inject({ method: 'POST', url: `${API}/auth/login`, payload: { email, password } });
}

describe('cli without a database', () => {
  const env = { DATA_DIR: join(tmpdir(), 'storelink-cli-never-created') };

  test('--help, -h, help and no command print the usage and exit 0, through bin/storelink.js (npx storelink) too', async () => {
    for (const [args, viaBin] of [
      [['--help'], true],
      [['--help'], false],
      [['-h'], false],
      [['help'], false],
      [[], false],
      [['token:create', '--help'], false],
    ] as const) {
      const run = await runCli([...args], env, undefined, viaBin);
      assert.equal(run.code, 0, `storelink ${args.join(' ')}`);
      assert.match(run.stdout, /^Usage: storelink <command> \[options\]/);
      assert.match(run.stdout, /user:create --email <email> --name <name>/);
      assert.match(run.stdout, /user:reset-password --email <email>/);
      assert.match(run.stdout, /Exit status: 0 on success\. 1 on any error/);
      assert.equal(run.stderr, '');
    }
  });

  test('an unknown command exits 1 with one line naming it', async () => {
    const run = await runCli(['user:delete'], env);
    assert.equal(run.code, 1);
    assert.equal(run.stdout, '');
    assert.deepEqual(lines(run.stderr), ['storelink: unknown command "user:delete". Run "storelink --help" for the commands.']);
  });

  test('an unknown option exits 1 with one line naming it', async () => {
    const run = await runCli(['token:create', '--email', 'a@example.com', '--name', 'ci', '--scope', 'all'], env);
    assert.equal(run.code, 1);
    assert.deepEqual(lines(run.stderr), ['storelink token:create: unknown option --scope. Run "storelink --help" for usage.']);
  });

  test('a missing option exits 1 with one line naming it', async () => {
    const run = await runCli(['user:create', '--name', 'Ada'], env, `${PASSWORD}\n`);
    assert.equal(run.code, 1);
    assert.deepEqual(lines(run.stderr), ['storelink user:create: missing --email. Run "storelink --help" for usage.']);
  });

  test('an option without its value exits 1 rather than taking the next option as the value', async () => {
    const run = await runCli(['token:create', '--email', '--name', 'ci'], env);
    assert.equal(run.code, 1);
    assert.deepEqual(lines(run.stderr), ['storelink token:create: --email needs a value.']);
  });

  test('a bad setting stops the CLI with exit 1 and one line per field', async () => {
    const run = await runCli(['migrate'], { ...env, APP_SECRET: 'short', PORT: 'abc' });
    assert.equal(run.code, 1);
    assert.equal(run.stdout, '');
    const fields = lines(run.stderr)
      .filter((line) => /^[A-Z_]+: /.test(line))
      .map((line) => line.split(':')[0]);
    assert.deepEqual(fields.sort(), ['APP_SECRET', 'PORT']);
  });
});

for (const kind of databaseKinds()) {
  describe(`cli [${kind}]`, () => {
    let dataDir: string;
    let drop = async () => {};
    let env: Record<string, string>;
    let target: DatabaseTarget;

    before(async () => {
      dataDir = await mkdtemp(join(tmpdir(), 'storelink-cli-'));
      if (kind === 'pglite') {
        env = { DATA_DIR: dataDir };
        target = { kind: 'pglite', dataDir };
      } else {
        const postgres = await createPostgresDatabase();
        drop = postgres.drop;
        env = { DATA_DIR: dataDir, DATABASE_URL: postgres.url };
        target = { kind: 'postgres', url: postgres.url };
      }
    });
    after(async () => {
      await drop();
      await rm(dataDir, { recursive: true, force: true });
    });

    test('migrate applies the migrations and says on which database', async () => {
      const run = await runCli(['migrate'], env);
      assert.equal(run.code, 0, run.stderr);
      assert.equal(run.stdout, `Migrations applied (${kind})\n`);
      assert.equal(run.stderr, '');
    });

    test('user:create takes the password from standard input, and the user can log in through the API', async () => {
      const run = await runCli(['user:create', '--email', 'ada@example.com', '--name', 'Ada'], env, `${PASSWORD}\n`);
      assert.equal(run.code, 0, run.stderr);
      const match = run.stdout.match(/^Created user id=(\d+) email=ada@example\.com workspace_id=(\d+)\n$/);
      assert.ok(match, run.stdout);
      await withApp(target, async (app) => {
        const session = await login(app, 'ada@example.com', PASSWORD);
        assert.equal(session.statusCode, 200, session.body);
        const workspaces = await app.inject({
          method: 'GET',
          url: `${API}/workspaces`,
          headers: { authorization: `Bearer ${session.json().data.token}` },
        });
        assert.deepEqual(workspaces.json().data, [{ id: Number(match[2]), name: "Ada's workspace", role: 'owner' }]);
      });
    });

    test('user:create refuses an email already taken, in any case, with exit 1', async () => {
      const run = await runCli(['user:create', '--email', 'ADA@example.com', '--name', 'Other Ada'], env, `${PASSWORD}\n`);
      assert.equal(run.code, 1);
      assert.equal(run.stdout, '');
      assert.deepEqual(lines(run.stderr), ['storelink user:create: The email has already been taken.']);
    });

    test('user:create applies the sign-up rules, one line per broken rule', async () => {
      const badFields = await runCli(['user:create', '--email', 'not-an-email', '--name', '   '], env, `${PASSWORD}\n`);
      assert.equal(badFields.code, 1);
      assert.deepEqual(lines(badFields.stderr), [
        'storelink user:create: The email field must be a valid email address.',
        'storelink user:create: The name field format is invalid.',
      ]);
      const shortPassword = await runCli(['user:create', '--email', 'grace@example.com', '--name', 'Grace'], env, 'short\n');
      assert.equal(shortPassword.code, 1);
      assert.deepEqual(lines(shortPassword.stderr), ['storelink user:create: The password field must be at least 8 characters.']);
      const noPassword = await runCli(['user:create', '--email', 'grace@example.com', '--name', 'Grace'], env, '');
      assert.equal(noPassword.code, 1);
      assert.match(noPassword.stderr, /^storelink user:create: no password given/);
    });

    test('token:create prints only the token, a JWT that works as a bearer on GET /workspaces', async () => {
      const run = await runCli(['token:create', '--email', 'ada@example.com', '--name', 'deploy'], env);
      assert.equal(run.code, 0, run.stderr);
      assert.equal(lines(run.stdout).length, 1);
      const token = run.stdout.trimEnd();
      assert.match(token, JWT);
      assert.match(run.stderr, /shown this once/);
      await withApp(target, async (app) => {
        const workspaces = await app.inject({ method: 'GET', url: `${API}/workspaces`, headers: { authorization: `Bearer ${token}` } });
        assert.equal(workspaces.statusCode, 200, workspaces.body);
        assert.deepEqual(
          workspaces.json().data.map((w: { name: string }) => w.name),
          ["Ada's workspace"],
        );
      });
    });

    test('token:create without --expires-in-days makes a token that never expires, with it one that expires that many days later', async () => {
      const forever = await runCli(['token:create', '--email', 'ada@example.com', '--name', 'forever'], env);
      const monthly = await runCli(['token:create', '--email', 'ada@example.com', '--name', 'monthly', '--expires-in-days', '30'], env);
      assert.equal(forever.code, 0, forever.stderr);
      assert.equal(monthly.code, 0, monthly.stderr);
      await withApp(target, async (app) => {
        const session = (await login(app, 'ada@example.com', PASSWORD)).json().data.token;
        const list = await app.inject({
          method: 'GET',
          url: `${API}/personal-access-tokens`,
          headers: { authorization: `Bearer ${session}` },
        });
        const byName = new Map<string, { created_at: string; expires_at: string | null }>(
          list.json().data.map((t: { name: string }) => [t.name, t]),
        );
        assert.equal(byName.get('forever')?.expires_at, null);
        const created = byName.get('monthly')!;
        // Within a second: the service reads the clock once for created_at and once more for expires_at.
        const lifetime = Date.parse(created.expires_at!) - Date.parse(created.created_at);
        assert.ok(Math.abs(lifetime - 30 * 24 * 3600 * 1000) < 1000, `lifetime ${lifetime} ms`);
      });
    });

    test('token:create refuses an --expires-in-days other than 7, 30, 60, 90 or 365 with exit 1', async () => {
      const run = await runCli(['token:create', '--email', 'ada@example.com', '--name', 'ci', '--expires-in-days', '14'], env);
      assert.equal(run.code, 1);
      assert.equal(run.stdout, '');
      assert.deepEqual(lines(run.stderr), [
        'storelink token:create: --expires-in-days must be one of 7, 30, 60, 90, 365 (got "14"); leave it out for a token that never expires.',
      ]);
    });

    test('token:create for an unknown email exits 1 naming the email', async () => {
      const run = await runCli(['token:create', '--email', 'nobody@example.com', '--name', 'ci'], env);
      assert.equal(run.code, 1);
      assert.equal(run.stdout, '');
      assert.deepEqual(lines(run.stderr), ['storelink token:create: no user has the email nobody@example.com.']);
    });

    test('user:create refuses a password found in the list of common passwords', async () => {
      const run = await runCli(['user:create', '--email', 'common@example.com', '--name', 'Common'], env, 'Password1\n');
      assert.equal(run.code, 1);
      assert.deepEqual(lines(run.stderr), ['storelink user:create: This password is too common: choose another.']);
    });

    test('user:create refuses a password of spaces, or the e-mail, one line per broken rule', async () => {
      const args = ['user:create', '--email', 'spaces@example.com', '--name', 'Spaces'];
      const spaces = await runCli(args, env, `${' '.repeat(8)}\n`);
      assert.deepEqual(
        [spaces.code, lines(spaces.stderr)],
        [1, ['storelink user:create: The password must have at least 8 characters other than spaces.']],
      );
      const own = await runCli(args, env, 'spaces@example.com\n');
      assert.deepEqual(
        [own.code, lines(own.stderr)],
        [1, ['storelink user:create: The password must not be the e-mail address, or the part of it before the @.']],
      );
      await withApp(target, async (app) => assert.equal((await login(app, 'spaces@example.com', ' '.repeat(8))).statusCode, 401));
    });

    test('user:reset-password refuses a common or short password, an unknown email or no password, with exit 1, changing nothing', async () => {
      const email = ['user:reset-password', '--email', 'ada@example.com'];
      const cases: Array<[string[], string, string]> = [
        [email, 'iloveyou\n', 'storelink user:reset-password: This password is too common: choose another.'],
        [email, 'short\n', 'storelink user:reset-password: The password field must be at least 8 characters.'],
        [email, `${' '.repeat(9)}\n`, 'storelink user:reset-password: The password must have at least 8 characters other than spaces.'],
        [
          email,
          'ADA@example.com\n',
          'storelink user:reset-password: The password must not be the e-mail address, or the part of it before the @.',
        ],
        [
          ['user:reset-password', '--email', 'nobody@example.com'],
          `${NEW_PASSWORD}\n`,
          'storelink user:reset-password: no user has the email nobody@example.com.',
        ],
        [['user:reset-password'], `${NEW_PASSWORD}\n`, 'storelink user:reset-password: missing --email. Run "storelink --help" for usage.'],
      ];
      for (const [args, stdin, message] of cases) {
        const run = await runCli(args, env, stdin);
        assert.deepEqual([run.code, run.stdout, lines(run.stderr)], [1, '', [message]], stdin);
      }
      const noPassword = await runCli(email, env, '');
      assert.equal(noPassword.code, 1);
      assert.match(noPassword.stderr, /^storelink user:reset-password: no password given/);
      await withApp(target, async (app) => assert.equal((await login(app, 'ada@example.com', PASSWORD)).statusCode, 200));
    });

    test('user:reset-password sets the password read from standard input, ends every session, and keeps personal access tokens', async () => {
      const { session, pat } = await withApp(target, async (app) => {
        const token = (await login(app, 'ada@example.com', PASSWORD)).json().data.token as string;
        const created = await app.inject({
          method: 'POST',
          url: `${API}/personal-access-tokens`,
          headers: { authorization: `Bearer ${token}` },
          payload: { name: 'kept', expires_in_days: 7 },
        });
        return { session: token, pat: created.json().data.token as string };
      });
      const run = await runCli(['user:reset-password', '--email', 'ADA@example.com'], env, `${NEW_PASSWORD}\n`);
      assert.equal(run.code, 0, run.stderr);
      assert.match(run.stdout, /^Password reset for user id=\d+ email=ada@example\.com; sessions ended: [1-9]\d*\n$/);
      await withApp(target, async (app) => {
        const workspacesWith = async (token: string) =>
          (await app.inject({ method: 'GET', url: `${API}/workspaces`, headers: { authorization: `Bearer ${token}` } })).statusCode;
        assert.deepEqual([await workspacesWith(session), await workspacesWith(pat)], [401, 200]);
        assert.equal((await login(app, 'ada@example.com', PASSWORD)).statusCode, 401);
        assert.equal((await login(app, 'ada@example.com', NEW_PASSWORD)).statusCode, 200);
      });
    });
  });
}
