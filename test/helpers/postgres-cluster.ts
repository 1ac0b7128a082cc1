/**
 * A throw-away PostgreSQL cluster of the test's own (initdb on a free port), so a test can stop and restart the database
 * under a running server without touching the machine's shared cluster.
 */
import { execFile, execFileSync } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './server-process.js';

const run = promisify(execFile);
const POSTGRES_ROOT = '/usr/lib/postgresql';

export type StopMode = 'smart' | 'fast' | 'immediate';

export interface PostgresCluster {
  /** `postgres://postgres@127.0.0.1:<port>/postgres`: trust auth, loopback only. */
  readonly url: string;
  readonly port: number;
  /** Starts the server without waiting; resolves once pg_ctl has launched it. */
  start(): Promise<void>;
  /** `pg_ctl stop -m <mode>`, waiting until the server is gone. */
  stop(mode: StopMode): Promise<void>;
  /** Whether the server accepts connections now (pg_isready). */
  isReady(): Promise<boolean>;
  /** Stops the server if it runs and deletes its directory; safe to call more than once. */
  destroy(): Promise<void>;
}

/** The newest installed server's bin directory, or an error naming what is missing (never a silent skip). */
export async function postgresBinDir(): Promise<string> {
  const versions = existsSync(POSTGRES_ROOT)
    ? (await readdir(POSTGRES_ROOT)).filter((v) => /^\d+$/.test(v)).sort((a, b) => Number(b) - Number(a))
    : [];
  const bin = versions
    .map((v) => join(POSTGRES_ROOT, v, 'bin'))
    .find((dir) => ['initdb', 'pg_ctl', 'pg_isready'].every((tool) => existsSync(join(dir, tool))));
  if (!bin)
    throw new Error(
      `TEST_DATABASE_URL is set but no PostgreSQL server binaries (initdb, pg_ctl, pg_isready) were found under ${POSTGRES_ROOT}/<version>/bin; install the PostgreSQL server package`,
    );
  return bin;
}

/** initdb refuses root, so as root every cluster command runs as the `postgres` user. */
function asOwner(command: string, args: string[]): [string, string[]] {
  return userInfo().uid === 0 ? ['runuser', ['-u', 'postgres', '--', command, ...args]] : [command, args];
}

/** Creates and starts a new cluster in a fresh temporary directory. */
export async function startPostgresCluster(): Promise<PostgresCluster> {
  const bin = await postgresBinDir();
  const root = await mkdtemp(join(tmpdir(), 'storelink-pg-'));
  const dataDir = join(root, 'data');
  const logFile = join(root, 'server.log');
  const port = await freePort();
  const owner = async (tool: string, args: string[]) => {
    const [command, argv] = asOwner(join(bin, tool), args);
    return run(command, argv, { timeout: 60_000 });
  };
  let running = false;
  // pg_ctl daemonises the server, so a test process that ends without its `after` hooks would leave it running.
  const onExit = () => {
    if (running) {
      const [command, argv] = asOwner(join(bin, 'pg_ctl'), ['stop', '-m', 'immediate', '-D', dataDir]);
      try {
        execFileSync(command, argv, { stdio: 'ignore', timeout: 10_000 });
      } catch {}
    }
    rmSync(root, { recursive: true, force: true });
  };
  process.once('exit', onExit);

  const cluster: PostgresCluster = {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    start: async () => {
      // -W: do not wait, so the caller can time the moment the server accepts connections itself.
      await owner('pg_ctl', ['start', '-W', '-D', dataDir, '-l', logFile]);
      running = true;
    },
    stop: async (mode) => {
      await owner('pg_ctl', ['stop', '-w', '-t', '30', '-m', mode, '-D', dataDir]);
      running = false;
    },
    isReady: async () => {
      try {
        await run(join(bin, 'pg_isready'), ['-q', '-h', '127.0.0.1', '-p', String(port), '-t', '1'], { timeout: 5_000 });
        return true;
      } catch {
        return false;
      }
    },
    destroy: async () => {
      if (running) await owner('pg_ctl', ['stop', '-w', '-t', '30', '-m', 'immediate', '-D', dataDir]).catch(() => {});
      running = false;
      await rm(root, { recursive: true, force: true });
      process.off('exit', onExit);
    },
  };

  try {
    if (userInfo().uid === 0) await run('chown', ['postgres:postgres', root]);
    await owner('initdb', ['-D', dataDir, '-U', 'postgres', '--auth=trust', '--no-sync', '--encoding=UTF8', '--locale=C']);
    // Loopback only, a socket directory of its own (the shared one may belong to the machine's cluster), and no fsync:
    // a stop of any mode still hands committed data to the kernel, which is all this test relies on.
    const settings = [
      `listen_addresses = '127.0.0.1'`,
      `port = ${port}`,
      `unix_socket_directories = '${root}'`,
      'fsync = off',
      'full_page_writes = off',
      'max_connections = 50',
    ];
    await writeFile(join(dataDir, 'postgresql.auto.conf'), `${settings.join('\n')}\n`);
    if (userInfo().uid === 0) await run('chown', ['postgres:postgres', join(dataDir, 'postgresql.auto.conf')]);
    await cluster.start();
    if (!(await waitUntil(() => cluster.isReady(), 30_000)))
      throw new Error(`the test cluster did not accept connections within 30 s (log: ${logFile})`);
  } catch (error) {
    await cluster.destroy();
    throw error;
  }
  return cluster;
}

/** Polls `check` every 25 ms until it is true or `timeoutMs` passes; answers whether it became true. */
export async function waitUntil(check: () => Promise<boolean>, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return true;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return false;
}
