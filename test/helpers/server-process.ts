/**
 * Real server processes (`node dist/server/main.js` when that bundle is current, else `node --import tsx src/main.ts`;
 * node itself either way, so the pid is the server's own) for tests that need more than one instance or need to kill
 * one. Output is kept in memory to be printed when a test fails; every process still running when the test file's
 * process exits is killed, so a failed or interrupted test leaves no orphan.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { serverBundleCurrent } from '../../scripts/server-bundle-current.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** Whether dist/server is current, checked once a process (it hashes the sources). */
let bundleCurrent: boolean | null = null;

/**
 * How node runs `entry` of the service (`main` the server, `cli` the operator CLI): from the bundle `npm start` runs
 * when it is the build of the sources as they are now (the check `npm start`'s prestart makes; `npm test`'s pretest
 * builds it when it is not), else from the sources through tsx. So a test always runs the code as it is, and in the
 * suite a start costs about half the CPU (tsx transforms and resolves every module again in each process: 3.7 to 4.8 s
 * of CPU to a fresh PGlite server's first 200 on /health, against 2.6 to 2.8 s for the bundle, this 2-CPU VM busy
 * with a CI run).
 */
export function entryArgs(entry: 'main' | 'cli'): string[] {
  bundleCurrent ??= serverBundleCurrent(ROOT);
  if (bundleCurrent) return [join(ROOT, `dist/server/${entry}.js`)];
  return entry === 'main' ? ['--import', 'tsx', join(ROOT, 'src/main.ts')] : [join(ROOT, 'bin/storelink.js')];
}
// A fresh PGlite's first start (its migrations) through tsx took 25 s on this 2-CPU machine while two suites ran.
const READY_TIMEOUT_MS = 60_000;
const STOP_GRACE_MS = 5_000;

/**
 * Node's compile cache of the suite (package.json's test script sets NODE_COMPILE_CACHE), passed on to a server or CLI
 * the tests start with an environment of their own: each such start compiles the same modules again otherwise.
 */
export function compileCache(): Record<string, string> {
  return process.env.NODE_COMPILE_CACHE ? { NODE_COMPILE_CACHE: process.env.NODE_COMPILE_CACHE } : {};
}

export interface ServerProcess {
  /** `http://127.0.0.1:<port>`, where this process listens (APP_URL may name another instance). */
  readonly url: string;
  readonly pid: number;
  /** Everything written to stdout and stderr so far, interleaved as it came. */
  output(): string;
  /** Whether the process has exited (on its own or through stop). */
  exited(): boolean;
  /** How it exited (`code` 0 for a clean shutdown, `signal` when killed), or null while it runs. */
  exitStatus(): { code: number | null; signal: NodeJS.Signals | null } | null;
  /** SIGTERM, then SIGKILL if it has not exited within five seconds; resolves once it is gone. */
  stop(): Promise<void>;
}

const running = new Set<ChildProcess>();
let exitHookInstalled = false;

const killAll = () => {
  for (const child of running) child.kill('SIGKILL');
};

// A synchronous kill is all an 'exit' listener can do; it is enough, since the children hold nothing to flush. A
// signal skips 'exit', so it kills them too; it is raised again for its default action only when nobody else handles it.
function installExitHook() {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once('exit', killAll);
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.once(signal, () => {
      killAll();
      if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
    });
  }
}

/**
 * How `npm start` runs the server, read from package.json's start script (`[NAME=value …] node <flags> <file>`): the
 * environment it sets and its node flags, so the bench and test/server/bundle.test.ts run the server as it is deployed.
 */
export function startScript(): { env: Record<string, string>; flags: string[] } {
  const packageJson = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { scripts: { start: string } };
  const words = packageJson.scripts.start.trim().split(/\s+/);
  const env: Record<string, string> = {};
  while (/^[A-Z_][A-Z0-9_]*=/.test(words[0] ?? '')) {
    const [name, ...value] = words.shift()!.split('=');
    env[name!] = value.join('=');
  }
  if (words[0] !== 'node') throw new Error(`the start script does not run node: ${packageJson.scripts.start}`);
  return { env, flags: words.slice(1, -1) };
}

/** A port on the loopback interface that was free a moment ago. */
export async function freePort(): Promise<number> {
  // Below the kernel's ephemeral range (32768 and up here): a port it hands out for a bind to 0 or an outgoing
  // connection (another test's server, a database client) cannot take this one between our check and the listen.
  for (let tries = 0; ; tries++) {
    const port = 20_000 + Math.floor(Math.random() * 12_000);
    const server = createServer();
    const bound = await new Promise<boolean>((resolve) => {
      server.once('error', () => resolve(false));
      server.listen(port, '127.0.0.1', () => resolve(true));
    });
    if (bound) {
      await new Promise((resolve) => server.close(resolve));
      return port;
    }
    if (tries > 100) throw new Error('no free port found between 20000 and 32000');
  }
}

/**
 * Starts a server with `env` on top of PATH alone (nothing else of this process's environment leaks in), and waits
 * until GET /api/v1/health answers 200. PORT (`options.port`, else a free one) and HOST are set here; APP_URL defaults
 * to the server's own address. `options.nodeArgs` replaces what entryArgs('main') runs (a bundle built elsewhere, say);
 * `options.readyTimeoutMs` replaces READY_TIMEOUT_MS (a test that starts one server after another on a loaded machine).
 * Rejects with the process's output if it exits or is not ready in time.
 */
export async function startServerProcess(
  env: Record<string, string>,
  options: {
    port?: number;
    nodeArgs?: readonly string[];
    readyTimeoutMs?: number;
    /** This function's own count of its tries, when the port it chose was taken. */
    attempt?: number;
  } = {},
): Promise<ServerProcess> {
  installExitHook();
  const port = options.port ?? (await freePort());
  const url = `http://127.0.0.1:${port}`;
  const child = spawn(process.execPath, options.nodeArgs ?? entryArgs('main'), {
    cwd: ROOT,
    // The simulators keep their state in memory, as in the suite's in-process apps (test-app.ts): saving it after every
    // write is work the tests of other things need not pay. test/platforms/sandbox-state.test.ts turns it on.
    env: {
      ...compileCache(),
      PATH: process.env.PATH ?? '',
      APP_URL: url,
      SANDBOX_PERSIST: 'false',
      ...env,
      PORT: String(port),
      HOST: '127.0.0.1',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.add(child);
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const exit = once(child, 'exit').then(() => void running.delete(child));
  const exited = () => child.exitCode !== null || child.signalCode !== null;

  const server: ServerProcess = {
    url,
    pid: child.pid!,
    output: () => output,
    exited,
    exitStatus: () => (exited() ? { code: child.exitCode, signal: child.signalCode } : null),
    stop: async () => {
      if (exited()) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), STOP_GRACE_MS);
      await exit;
      clearTimeout(timer);
    },
  };
  try {
    await waitUntilHealthy(url, exited, options.readyTimeoutMs ?? READY_TIMEOUT_MS);
  } catch (error) {
    await server.stop();
    // A port chosen here can be taken by another test process between the check and the server's listen: another one.
    if (options.port === undefined && output.includes('EADDRINUSE') && (options.attempt ?? 1) < 5)
      return startServerProcess(env, { ...options, attempt: (options.attempt ?? 1) + 1 });
    throw new Error(`${(error as Error).message}; its output:\n${output}`);
  }
  return server;
}

async function waitUntilHealthy(url: string, exited: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (exited()) throw new Error(`the server for ${url} exited before it was ready`);
    const status = await fetch(`${url}/api/v1/health`).then(
      (r) => r.status,
      () => 0,
    );
    if (status === 200) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`the server for ${url} was not ready within ${timeoutMs} ms`);
}

/**
 * Each server's output under a heading, for a failed test's report; `since` (output lengths taken earlier, by name)
 * leaves out what was already shown.
 */
export function outputsOf(servers: Record<string, ServerProcess | undefined>, since: Record<string, number> = {}): string {
  return Object.entries(servers)
    .filter((entry): entry is [string, ServerProcess] => entry[1] !== undefined)
    .map(([name, server]) => `--- server ${name} (${server.url}, pid ${server.pid}) ---\n${server.output().slice(since[name] ?? 0)}`)
    .join('\n');
}
