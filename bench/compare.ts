/**
 * `npm run bench -- --baseline <main.js>` or `-- --variants <file.json>`: this build against other builds (an earlier
 * `dist/server/main.js`, or this code with one piece taken out), on the same load, in rounds that rotate which goes
 * first, so a change is judged by ratios from one run rather than by figures from different days. Each build runs on a
 * fresh database of its own, PostgreSQL then PGlite.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { createPgliteDir, createPostgresDatabase } from './databases.js';
import { measureServer, median, settledRss } from './measure.js';
import { freePort, type ServerProcess, startServer } from './server-process.js';
import { type BenchUser, createBenchUser } from './storelink-api.js';

export interface BuildFigures {
  rps: number[];
  cpuMicrosPerRequest: number[];
  p99: number[];
  idleRss: number[];
  /** Milliseconds from spawning node to the first 200 from GET /api/v1/health, every start. */
  startMs: number[];
  /** The lowest RSS over `settle` seconds alone after start, once per start (empty when settle is 0). */
  settledRss: number[];
  /** V8's used heap right after a full collection made at the end of each settled reading. */
  heapAfterGc: number[];
  /** The highest RSS from start to the load (a start's own peak, PGlite's WebAssembly compiled then). */
  startPeakRss: number[];
  /** The highest RSS during the load: warm-up and measured run. */
  peakRss: number[];
  /** The lowest RSS over `settle` seconds alone right after each round's load (empty unless `afterLoad`). */
  afterLoadRss: number[];
}

/** A build to run: its name in the report, its bundle, and the node flags and environment it is deployed with. */
export interface Build {
  name: string;
  file: string;
  nodeFlags: readonly string[];
  env?: Readonly<Record<string, string>>;
}

export interface Comparison {
  rounds: number;
  settle: number;
  /** Starts of each build its settled memory was read on. */
  starts: number;
  afterLoad: boolean;
  /** This build first, then the others, in the order of `databases`' figures. */
  builds: readonly Build[];
  /** Per database: each build's figures, one entry per start or round. */
  databases: Record<string, BuildFigures[]>;
}

const emptyFigures = (): BuildFigures => ({
  rps: [],
  cpuMicrosPerRequest: [],
  p99: [],
  idleRss: [],
  startMs: [],
  settledRss: [],
  heapAfterGc: [],
  startPeakRss: [],
  peakRss: [],
  afterLoadRss: [],
});

/** Loaded into every server compared: a full collection and the heap's size on SIGUSR2 (bench/heap-after-gc.mjs). */
const HEAP_PROBE = fileURLToPath(new URL('heap-after-gc.mjs', import.meta.url));

/** A fresh database of the kind, and how to remove it. */
async function freshDatabase(kind: string): Promise<{ env: Record<string, string>; remove: () => Promise<void> | void }> {
  if (kind === 'PGlite') {
    const dir = createPgliteDir();
    return { env: { DATA_DIR: dir.dir }, remove: dir.remove };
  }
  const database = await createPostgresDatabase();
  return { env: { DATABASE_URL: database.url }, remove: database.drop };
}

interface Side {
  server: ServerProcess;
  user: BenchUser;
  idleRss: number;
  startMs: number;
  /** One full collection in the server, then its used heap in bytes. */
  heapAfterGc(): Promise<number>;
}

let heapFiles = 0;

async function startSide(name: string, build: Build, env: Record<string, string>, heapDir: string): Promise<Side> {
  const port = await freePort();
  const heapFile = join(heapDir, `heap-${++heapFiles}.json`);
  const started = performance.now();
  const server = await startServer(
    name,
    build.file,
    { ...build.env, ...env, APP_URL: `http://127.0.0.1:${port}`, BENCH_HEAP_FILE: heapFile },
    port,
    [...build.nodeFlags, '--import', HEAP_PROBE],
  );
  const startMs = performance.now() - started;
  // Idle: started, migrated and listening, before any request.
  const idleRss = server.memory().rss;
  const user = await createBenchUser(server.url);
  return { server, user, idleRss, startMs, heapAfterGc: () => readHeapAfterGc(server, heapFile) };
}

async function readHeapAfterGc(server: ServerProcess, file: string): Promise<number> {
  rmSync(file, { force: true });
  process.kill(server.pid, 'SIGUSR2');
  const deadline = Date.now() + 10_000;
  while (!existsSync(file)) {
    if (Date.now() > deadline) throw new Error(`${server.name} wrote no heap statistics within 10 s of SIGUSR2`);
    await sleep(50);
  }
  return (JSON.parse(readFileSync(file, 'utf8')) as { used_heap_size: number }).used_heap_size;
}

/**
 * Starts a build on a fresh database of the kind, runs `use`, and stops and removes both. A start or a measurement that
 * fails is added to `problems` (the bench then exits 1) and the run goes on, so one failure does not lose a long run.
 */
async function withSide(
  kind: string,
  build: Build,
  env: Record<string, string>,
  heapDir: string,
  problems: string[],
  use: (side: Side) => Promise<void>,
): Promise<void> {
  const database = await freshDatabase(kind);
  try {
    const side = await startSide(`${build.name} (${kind})`, build, { ...env, ...database.env }, heapDir);
    try {
      await use(side);
    } finally {
      await side.server.stop();
    }
  } catch (error) {
    problems.push(`${build.name} (${kind}): ${(error as Error).message}`);
    console.error(`${build.name} (${kind}) failed: ${(error as Error).message}`);
  } finally {
    await database.remove();
  }
}

/**
 * How many starts of each build the settled idle memory is read on, unless told. Starts of the same build settle on
 * two levels about 5 MB apart on PostgreSQL with the same V8 heap, the difference native memory outside it (malloc
 * arenas, by /proc/<pid>/smaps), so a median of three could land on either level.
 */
export const SETTLED_READINGS = 5;

export const DATABASE_KINDS = ['PostgreSQL', 'PGlite'] as const;

/** The builds in the order of the n-th start or round: rotated by n, so each takes each place in turn. */
const rotated = <T>(items: readonly T[], n: number): T[] => {
  const k = n % items.length;
  return [...items.slice(k), ...items.slice(0, k)];
};

/**
 * Every round starts each build anew on a fresh database, alone, in rotating order: on this VM one server process
 * can run a third faster or slower than another for its whole life, whatever its build, so only new processes per
 * round make the medians comparable.
 */
export async function compareBuilds(options: {
  /** This build first: the others' ratios are to it. */
  builds: readonly Build[];
  env: Record<string, string>;
  rounds: number;
  duration: number;
  warmup: number;
  /** Seconds each build is left alone, once per start, while its settled idle memory is read; 0: not read. */
  settle: number;
  /** Starts of each build the settled memory is read on (SETTLED_READINGS unless given). */
  starts?: number;
  /** Whether each round also reads the lowest RSS over `settle` seconds alone after the load. */
  afterLoad?: boolean;
  databases?: readonly (typeof DATABASE_KINDS)[number][];
  problems: string[];
}): Promise<Comparison> {
  const starts = options.settle > 0 ? (options.starts ?? SETTLED_READINGS) : 0;
  const afterLoad = options.settle > 0 && (options.afterLoad ?? false);
  const comparison: Comparison = {
    rounds: options.rounds,
    settle: options.settle,
    starts,
    afterLoad,
    builds: options.builds,
    databases: {},
  };
  const heapDir = mkdtempSync(join(tmpdir(), 'storelink-bench-heap-'));
  const indexed = options.builds.map((build, index) => ({ build, index }));
  const log = (build: Build, kind: string, text: string) => console.log(`${`${build.name} (${kind})`.padEnd(44)} ${text}`);
  try {
    for (const kind of options.databases ?? DATABASE_KINDS) {
      const figures = options.builds.map(emptyFigures);
      comparison.databases[kind] = figures;
      for (let reading = 0; reading < starts; reading++) {
        for (const { build, index } of rotated(indexed, reading)) {
          await withSide(kind, build, options.env, heapDir, options.problems, async (side) => {
            const rss = await settledRss(side.server, options.settle);
            const heap = await side.heapAfterGc();
            figures[index]!.settledRss.push(rss);
            figures[index]!.heapAfterGc.push(heap);
            figures[index]!.startMs.push(side.startMs);
            log(
              build,
              kind,
              `start ${reading + 1}: settled ${mb(rss)} MB, heap after full GC ${mb(heap)} MB, started in ${Math.round(side.startMs)} ms`,
            );
          });
        }
      }
      for (let round = 0; round < options.rounds; round++) {
        for (const { build, index } of rotated(indexed, round)) {
          // One server alive at a time, as in the rest of the bench: an idle second server is not idle (its timers and,
          // on PGlite, its in-process database run on the same two CPUs), and skewed pairs by up to a third.
          await withSide(kind, build, options.env, heapDir, options.problems, async (side) => {
            const target = figures[index]!;
            target.startPeakRss.push(side.server.resetPeak());
            const result = await measureServer(side.server, '/api/v1/user', side.user.headers, options);
            if (result.failures > 0)
              options.problems.push(`${build.name} (${kind}): ${result.failures} non-2xx answers or errors under load`);
            target.rps.push(result.rps);
            target.cpuMicrosPerRequest.push(result.cpuMicrosPerRequest);
            target.p99.push(result.p99);
            target.idleRss.push(side.idleRss);
            target.startMs.push(side.startMs);
            target.peakRss.push(side.server.memory().peak);
            // After a burst of load, what the server gives back once idle (the young generation grown under it, say).
            if (afterLoad) target.afterLoadRss.push(await settledRss(side.server, options.settle));
            log(
              build,
              kind,
              `round ${round + 1}: ${Math.round(result.rps)} req/s, ${result.cpuMicrosPerRequest.toFixed(1)} µs CPU/request, p99 ${result.p99} ms, peak RSS ${mb(target.peakRss.at(-1)!)} MB` +
                (afterLoad ? `, settled after load ${mb(target.afterLoadRss.at(-1)!)} MB` : ''),
            );
          });
        }
      }
    }
  } finally {
    rmSync(heapDir, { recursive: true, force: true });
  }
  return comparison;
}

const mb = (bytes: number) => (bytes / 2 ** 20).toFixed(1);

/** How a build runs: its bundle, node flags and environment. */
export function describeBuild(build: Build): string {
  const flags = build.nodeFlags.length > 0 ? `node ${build.nodeFlags.join(' ')}` : 'no node flags';
  const env = Object.entries(build.env ?? {}).map(([name, value]) => `${name}=${value}`);
  return `\`${build.file}\` (${flags}${env.length > 0 ? `; ${env.join(' ')}` : ''})`;
}

/**
 * The comparison as Markdown: per database, each build's medians, its throughput and CPU per request over this
 * build's, and its memory less this build's in parentheses; then every start's and round's memory figure.
 */
export function renderComparison(comparison: Comparison): string {
  const [first, ...others] = comparison.builds;
  const settled = comparison.starts > 0;
  const lines = [
    `### ${first!.name} against ${others.map((build) => build.name).join(', ')} (${comparison.rounds} rounds, fresh processes each, medians)`,
    '',
    ...comparison.builds.map((build) => `- ${build.name}: ${describeBuild(build)}`),
    '',
  ];
  const delta = (value: number, reference: number, index: number) => {
    if (index === 0) return mb(value);
    const difference = (value - reference) / 2 ** 20;
    return `${mb(value)} (${difference >= 0 ? '+' : ''}${difference.toFixed(1)})`;
  };
  type Medians = Record<keyof BuildFigures, number>;
  const ratio = (field: keyof BuildFigures) => (m: Medians, reference: Medians) => (m[field] / reference[field]).toFixed(2);
  const memory = (field: keyof BuildFigures) => (m: Medians, reference: Medians, index: number) => delta(m[field], reference[field], index);
  type Column = readonly [string, (m: Medians, reference: Medians, index: number) => string];
  const columns: Column[] = [
    ['req/s', (m) => String(Math.round(m.rps))],
    ['ratio', ratio('rps')],
    ['CPU µs/request', (m) => m.cpuMicrosPerRequest.toFixed(1)],
    ['ratio', ratio('cpuMicrosPerRequest')],
    ['p99 ms', (m) => String(m.p99)],
    ['start ms', (m) => String(Math.round(m.startMs))],
    ['RSS MB after start', memory('idleRss')],
    ...(settled
      ? [
          [`settled MB (lowest over ${comparison.settle} s, median of ${comparison.starts} starts)`, memory('settledRss')] as Column,
          ['heap MB after a full GC', memory('heapAfterGc')] as Column,
        ]
      : []),
    ['peak RSS MB from start to the load', memory('startPeakRss')],
    ['peak RSS MB during the load', memory('peakRss')],
    ...(comparison.afterLoad
      ? ([[`settled MB after the load (lowest over ${comparison.settle} s)`, memory('afterLoadRss')]] as const)
      : []),
  ];
  for (const [kind, figures] of Object.entries(comparison.databases)) {
    const medians = figures.map((f) => Object.fromEntries(Object.entries(f).map(([field, values]) => [field, median(values)])) as Medians);
    const reference = medians[0]!;
    lines.push(
      `**${kind}**`,
      '',
      `| build | ${columns.map(([title]) => title).join(' | ')} |`,
      `|---|${columns.map(() => '---|').join('')}`,
    );
    medians.forEach((m, index) => {
      lines.push(`| ${comparison.builds[index]!.name} | ${columns.map(([, show]) => show(m, reference, index)).join(' | ')} |`);
    });
    lines.push('');
  }
  // Settled memory and peak RSS each move between two levels from one process to the next: every start's and round's
  // figure beside the medians.
  const each = (values: number[], digits: number) => values.map((bytes) => (bytes / 2 ** 20).toFixed(digits)).join(', ');
  const listed = [
    ...(settled ? [['settledRss', 'settled', 1] as const] : []),
    ['startPeakRss', 'peak RSS from start to the load', 0] as const,
    ['peakRss', 'peak RSS during the load', 0] as const,
    ...(comparison.afterLoad ? [['afterLoadRss', 'settled after load', 1] as const] : []),
  ];
  lines.push('| each start or round, in order | build | MB |', '|---|---|---|');
  for (const [field, name, digits] of listed) {
    for (const [kind, figures] of Object.entries(comparison.databases)) {
      figures.forEach((f, index) => lines.push(`| ${name}, ${kind} | ${comparison.builds[index]!.name} | ${each(f[field], digits)} |`));
    }
  }
  return lines.join('\n');
}
