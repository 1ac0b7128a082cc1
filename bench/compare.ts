/**
 * `npm run bench -- --baseline <main.js>`: this build against another one (an earlier `dist/server/main.js`), on the
 * same load, in rounds that alternate which goes first, so a change is judged by ratios from one run rather than by
 * figures from different days. Each build runs on a fresh database of its own, PostgreSQL then PGlite.
 */
import { createPgliteDir, createPostgresDatabase } from './databases.js';
import { measureServer, median, settledRss } from './measure.js';
import { freePort, startServer } from './server-process.js';
import { createBenchUser } from './storelink-api.js';

export interface BuildFigures {
  rps: number[];
  cpuMicrosPerRequest: number[];
  p99: number[];
  idleRss: number[];
  /** The lowest RSS over `settle` seconds alone after start, once per database (empty when settle is 0). */
  settledRss: number[];
  peakRss: number[];
}

export interface Comparison {
  rounds: number;
  settle: number;
  /** Per database: this build's figures and the baseline's, one entry per round. */
  databases: Record<string, { current: BuildFigures; baseline: BuildFigures }>;
}

const emptyFigures = (): BuildFigures => ({ rps: [], cpuMicrosPerRequest: [], p99: [], idleRss: [], settledRss: [], peakRss: [] });

/** A fresh database of the kind, and how to remove it. */
async function freshDatabase(kind: string): Promise<{ env: Record<string, string>; remove: () => Promise<void> | void }> {
  if (kind === 'PGlite') {
    const dir = createPgliteDir();
    return { env: { DATA_DIR: dir.dir }, remove: dir.remove };
  }
  const database = await createPostgresDatabase();
  return { env: { DATABASE_URL: database.url }, remove: database.drop };
}

/** A build to run: its bundle, and the node flags and environment it is deployed with. */
export interface Build {
  file: string;
  nodeFlags: readonly string[];
  env?: Readonly<Record<string, string>>;
}

async function startSide(name: string, build: Build, env: Record<string, string>) {
  const port = await freePort();
  const server = await startServer(name, build.file, { ...build.env, ...env, APP_URL: `http://127.0.0.1:${port}` }, port, build.nodeFlags);
  // Idle: started, migrated and listening, before any request.
  const idleRss = server.memory().rss;
  const user = await createBenchUser(server.url);
  return { server, user, idleRss };
}

/** Starts a build on a fresh database of the kind, runs `use`, and stops and removes both. */
async function withSide(
  kind: string,
  name: string,
  build: Build,
  env: Record<string, string>,
  use: (side: Awaited<ReturnType<typeof startSide>>) => Promise<void>,
): Promise<void> {
  const database = await freshDatabase(kind);
  try {
    const side = await startSide(name, build, { ...env, ...database.env });
    try {
      await use(side);
    } finally {
      await side.server.stop();
    }
  } finally {
    await database.remove();
  }
}

/**
 * How many starts of each build the settled idle memory is read on. Starts of the same build settle at about 80 or
 * about 85 MB on PostgreSQL with the same V8 heap, the difference native memory outside it (malloc arenas, by
 * /proc/<pid>/smaps; BENCHMARKS.md, 2026-11-27, 09:47 UTC), so a median of three could land on either level.
 */
const SETTLED_READINGS = 5;

/**
 * Every round starts each build anew on a fresh database, alone, in alternating order: on this VM one server process
 * can run a third faster or slower than another for its whole life, whatever its build, so only new processes per
 * round make the medians comparable.
 */
export async function compareBuilds(options: {
  current: Build;
  baseline: Build;
  env: Record<string, string>;
  rounds: number;
  duration: number;
  warmup: number;
  /** Seconds each build is left alone, once per database, while its settled idle memory is read; 0: not read. */
  settle: number;
  problems: string[];
}): Promise<Comparison> {
  const comparison: Comparison = { rounds: options.rounds, settle: options.settle, databases: {} };
  for (const kind of ['PostgreSQL', 'PGlite']) {
    const figures = { current: emptyFigures(), baseline: emptyFigures() };
    comparison.databases[kind] = figures;
    const builds = [
      { key: 'current' as const, name: `this build (${kind})`, build: options.current },
      { key: 'baseline' as const, name: `baseline (${kind})`, build: options.baseline },
    ];
    // Settled idle memory: each build SETTLED_READINGS times, alone, on a fresh database, in alternating order, before
    // the rounds (a settled server is one that has given memory back, which is not the state the rounds measure under
    // load). Starts of one build settle on two levels (SETTLED_READINGS); the table shows the median.
    if (options.settle > 0) {
      for (let reading = 0; reading < SETTLED_READINGS; reading++) {
        for (const build of reading % 2 === 1 ? [...builds].reverse() : builds) {
          await withSide(kind, build.name, build.build, options.env, async (side) => {
            const rss = await settledRss(side.server, options.settle);
            figures[build.key].settledRss.push(rss);
            console.log(`${build.name.padEnd(28)} settled (start ${reading + 1}): ${(rss / 2 ** 20).toFixed(1)} MB`);
          });
        }
      }
    }
    for (let round = 0; round < options.rounds; round++) {
      const order = round % 2 === 1 ? [...builds].reverse() : builds;
      for (const build of order) {
        // One server alive at a time, as in the rest of the bench: an idle second server is not idle (its timers and,
        // on PGlite, its in-process database run on the same two CPUs), and skewed pairs by up to a third.
        await withSide(kind, build.name, build.build, options.env, async (side) => {
          const target = figures[build.key];
          const result = await measureServer(side.server, '/api/v1/user', side.user.headers, options);
          if (result.failures > 0) options.problems.push(`${build.name}: ${result.failures} non-2xx answers or errors under load`);
          target.rps.push(result.rps);
          target.cpuMicrosPerRequest.push(result.cpuMicrosPerRequest);
          target.p99.push(result.p99);
          target.idleRss.push(side.idleRss);
          target.peakRss.push(side.server.memory().peak);
          console.log(
            `${build.name.padEnd(28)} round ${round + 1}: ${Math.round(result.rps)} req/s, ${result.cpuMicrosPerRequest.toFixed(1)} µs CPU/request, p99 ${result.p99} ms, peak RSS ${(target.peakRss.at(-1)! / 2 ** 20).toFixed(1)} MB`,
          );
        });
      }
    }
  }
  return comparison;
}

/** The comparison as a Markdown table: medians of the rounds, and this build's figure over the baseline's. */
export function renderComparison(comparison: Comparison, builds: string): string {
  const mb = (bytes: number) => (bytes / 2 ** 20).toFixed(1);
  const pair = (values: [number, number], show: (n: number) => string) => `${show(values[0])} / ${show(values[1])}`;
  const settled = comparison.settle > 0;
  const lines = [
    `### This build against ${builds} (${comparison.rounds} rounds, fresh processes each, medians)`,
    '',
    `| database | req/s this / baseline | ratio | CPU µs/request this / baseline | ratio | p99 ms this / baseline | RSS MB after start this / baseline |${settled ? ` idle MB settled (lowest over ${comparison.settle} s, median of ${SETTLED_READINGS} starts) this / baseline |` : ''} peak RSS MB this / baseline |`,
    `|---|---|---|---|---|---|---|${settled ? '---|' : ''}---|`,
  ];
  for (const [kind, { current, baseline }] of Object.entries(comparison.databases)) {
    const of = (field: keyof BuildFigures): [number, number] => [median(current[field]), median(baseline[field])];
    const rps = of('rps');
    const cpu = of('cpuMicrosPerRequest');
    lines.push(
      `| ${kind} | ${pair(rps, (n) => String(Math.round(n)))} | ${(rps[0] / rps[1]).toFixed(2)} | ${pair(cpu, (n) => n.toFixed(1))} | ${(cpu[0] / cpu[1]).toFixed(2)} | ` +
        `${pair(of('p99'), String)} | ${pair(of('idleRss'), mb)} |${settled ? ` ${pair(of('settledRss'), mb)} |` : ''} ${pair(of('peakRss'), mb)} |`,
    );
  }
  // Settled memory and peak RSS each move between two levels from one process to the next (BENCHMARKS.md, 2026-11-27,
  // 07:19 and 09:47 UTC): every start's and round's figure beside the medians.
  const each = (values: number[], digits: number) => values.map((bytes) => (bytes / 2 ** 20).toFixed(digits)).join(', ');
  lines.push('', '| each start or round, in order | this build | baseline |', '|---|---|---|');
  for (const field of ['settledRss', 'peakRss'] as const) {
    if (field === 'settledRss' && !settled) continue;
    for (const [kind, { current, baseline }] of Object.entries(comparison.databases)) {
      const [name, digits] = field === 'settledRss' ? ['settled', 1] : ['peak RSS', 0];
      lines.push(`| ${name} MB, ${kind} | ${each(current[field], digits)} | ${each(baseline[field], digits)} |`);
    }
  }
  return lines.join('\n');
}
