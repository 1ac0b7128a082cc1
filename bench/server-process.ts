/**
 * Starts one server of the bench in a child process of its own and measures it. The child is node itself (`node
 * <file>.js`, or `node --import tsx <file>.ts`), never `npm start` or the tsx CLI, which would put the server in a
 * grandchild and the measured pid would be the wrong process.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { readdirSync, readFileSync, readlinkSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';

export { freePort, startScript } from '../test/helpers/server-process.js';

export interface ServerProcess {
  readonly name: string;
  readonly pid: number;
  readonly url: string;
  /** The server of its simulated platforms, when it was started with SANDBOX_URL naming another's; else it has them. */
  readonly platforms?: ServerProcess;
  /** Resident memory now and its high-water mark since start or the last `resetPeak`, in bytes (/proc/<pid>/status). */
  memory(): { rss: number; peak: number };
  /**
   * The high-water mark so far, in bytes, and from now on the mark starts again at the present RSS (Linux's
   * /proc/<pid>/clear_refs, value 5): a peak read after a load is the load's, not the start's.
   */
  resetPeak(): number;
  /** CPU time the process (all its threads) has used since start, user and system, in microseconds (/proc/<pid>/stat). */
  cpuMicros(): number;
  /**
   * Resolves once the process has no child process running node left; after 60 s it throws instead. A first start on
   * the embedded database leaves one remaking the database's image (src/db/pglite-image.ts).
   */
  untilAlone(): Promise<void>;
  /** SIGTERM, then SIGKILL after 10 s; resolves when the process has exited. */
  stop(): Promise<void>;
}

let serverCpus: string | null = null;

/** Where `server`'s simulated platforms are served: its own `/sandbox`, unless it was started with another server's. */
export const sandboxOf = (server: Pick<ServerProcess, 'url' | 'platforms'>) => `${(server.platforms ?? server).url}/sandbox`;

/**
 * Runs every server started from now on the given CPUs (a taskset list such as "1"), or anywhere (null); and this
 * process, the load generator, with all its threads, on `load`. Pinned apart, the two do not take turns on one core,
 * and a server's figures no longer depend on where the scheduler happened to put it.
 */
export function pinCpus(pins: { server: string; load: string } | null): void {
  serverCpus = pins?.server ?? null;
  if (pins) execFileSync('taskset', ['--all-tasks', '--cpu-list', '--pid', pins.load, String(process.pid)], { stdio: 'ignore' });
  else {
    // Unpinned, this process goes back to every CPU, as a server it spawns inherits its affinity (without taskset it
    // was never pinned).
    try {
      // Every CPU the machine has (availableParallelism() counts only this process's, one once pinned).
      const all = `0-${cpus().length - 1}`;
      execFileSync('taskset', ['--all-tasks', '--cpu-list', '--pid', all, String(process.pid)], { stdio: 'ignore' });
    } catch {}
  }
}

/**
 * `npm start` itself, in the project's directory, as a user runs it: its prestart (the build, or the check that skips
 * it) and then the server, a grandchild. Resolved at the first /health 200; its memory and CPU are npm's, not the
 * server's, so it is for timing a start only. Stopped by a SIGTERM to its process group (npm's, set up for that).
 */
export async function startThroughNpm(name: string, env: Record<string, string>, port: number): Promise<ServerProcess> {
  const child = spawn('npm', ['start'], {
    cwd: new URL('..', import.meta.url),
    env: { ...process.env, ...env, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  return supervised(name, child, port, (signal) => {
    try {
      process.kill(-child.pid!, signal);
    } catch {}
  });
}

export async function startServer(
  name: string,
  file: string,
  env: Record<string, string>,
  port: number,
  nodeFlags: readonly string[] = [],
  /** The CPUs it runs on: the servers' (pinCpus) unless said, such as the load generator's for a platform's stand-in. */
  cpuList: string | null = serverCpus,
): Promise<ServerProcess> {
  const nodeArgs = file.endsWith('.ts') ? ['--import', 'tsx', file] : [...nodeFlags, file];
  // taskset execs node in place: the child's pid stays the server's.
  const child = spawn(cpuList ? 'taskset' : process.execPath, cpuList ? ['--cpu-list', cpuList, process.execPath, ...nodeArgs] : nodeArgs, {
    env: { ...process.env, ...env, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return supervised(name, child, port, (signal) => child.kill(signal));
}

/**
 * A started child as a ServerProcess, resolved at its first /health 200: its output kept so a start-up failure can
 * say why (LOG_LEVEL=warn keeps it small during the load), and stopped by `kill` (SIGTERM, then SIGKILL after 10 s).
 */
async function supervised(name: string, child: ChildProcess, port: number, kill: (signal: NodeJS.Signals) => void): Promise<ServerProcess> {
  let output = '';
  const keep = (chunk: Buffer) => void (output = (output + chunk.toString()).slice(-4000));
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = `http://127.0.0.1:${port}`;
  try {
    await waitForHealth(child, url);
  } catch (error) {
    kill('SIGKILL');
    throw new Error(`${name} did not start: ${(error as Error).message}\n${output}`);
  }
  return {
    name,
    pid: child.pid!,
    url,
    memory: () => readMemory(child.pid!),
    resetPeak() {
      const { peak } = readMemory(child.pid!);
      writeFileSync(`/proc/${child.pid}/clear_refs`, '5');
      return peak;
    },
    cpuMicros: () => readCpuMicros(child.pid!),
    untilAlone: () => untilAlone(name, child.pid!),
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      kill('SIGTERM');
      const timer = setTimeout(() => kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/**
 * Polls GET /api/v1/health every 20 ms until it answers 200, for at most 60 s (migrations run before the port opens);
 * often enough for the comparison's start times.
 */
async function waitForHealth(child: ChildProcess, url: string): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`exited with code ${child.exitCode}`);
    const status = await fetch(`${url}/api/v1/health`).then(
      (r) => r.status,
      () => 0,
    );
    if (status === 200) return;
    await sleep(20);
  }
  throw new Error('GET /api/v1/health did not answer 200 within 60 s');
}

function readMemory(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (field: string) => Number(status.match(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm'))?.[1] ?? NaN) * 1024;
  return { rss: kib('VmRSS'), peak: kib('VmHWM') };
}

/**
 * The fields of /proc/<pid>/stat after the command name, which is in parentheses and may hold spaces: [0] is the state
 * (field 3), [1] the parent's pid (4), [11] utime (14), [12] stime (15).
 */
function statFields(pid: number | string): string[] {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
}

/**
 * The processes running node whose parent is `pid` (node is the server's own executable). A server run through tsx
 * has tsx's esbuild service beside it for its whole life, a program of its own: not counted. None once `pid` has
 * exited: the load then reports the server's failure.
 */
function nodeChildrenOf(pid: number): number[] {
  let node: string;
  try {
    node = readlinkSync(`/proc/${pid}/exe`);
  } catch {
    return [];
  }
  const children: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (Number(statFields(entry)[1]) === pid && readlinkSync(`/proc/${entry}/exe`) === node) children.push(Number(entry));
    } catch {
      // Gone between the listing and the read.
    }
  }
  return children;
}

async function untilAlone(name: string, pid: number): Promise<void> {
  const deadline = performance.now() + 60_000;
  while (nodeChildrenOf(pid).length > 0) {
    if (performance.now() > deadline) throw new Error(`${name} still had a child process (${nodeChildrenOf(pid).join(', ')}) after 60 s`);
    await sleep(100);
  }
}

/** Clock ticks per second of /proc's CPU times: USER_HZ, 100 on every Linux architecture Node runs on. */
const USER_HZ = 100;

function readCpuMicros(pid: number): number {
  const fields = statFields(pid);
  return ((Number(fields[11]) + Number(fields[12])) * 1_000_000) / USER_HZ;
}
