/**
 * `npm run bench -- --baseline <main.js>`: this build against another one (an earlier `dist/server/main.js`), on the
 * same load, in rounds that alternate which goes first, so a change is judged by ratios from one run rather than by
 * figures from different days. Each build runs on a fresh database of its own, PostgreSQL then PGlite.
 */
import { createPgliteDir, createPostgresDatabase } from './databases.js';
import { runLoad } from './load.js';
import { freePort, type ServerProcess, startServer } from './server-process.js';
import { type BenchUser, createBenchUser } from './storelink-api.js';

export interface BuildFigures {
  rps: number[];
  p99: number[];
  idleRss: number;
  peakRss: number;
}

export interface Comparison {
  rounds: number;
  /** Per database: this build's figures and the baseline's. */
  databases: Record<string, { current: BuildFigures; baseline: BuildFigures }>;
}

interface Side {
  server: ServerProcess;
  user: BenchUser;
  figures: BuildFigures;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;

async function startSide(name: string, file: string, env: Record<string, string>): Promise<Side> {
  const port = await freePort();
  const server = await startServer(name, file, { ...env, APP_URL: `http://127.0.0.1:${port}` }, port);
  // Idle: started, migrated and listening, before any request.
  const idleRss = server.memory().rss;
  const user = await createBenchUser(server.url);
  return { server, user, figures: { rps: [], p99: [], idleRss, peakRss: 0 } };
}

export async function compareBuilds(options: {
  current: string;
  baseline: string;
  env: Record<string, string>;
  rounds: number;
  duration: number;
  warmup: number;
  problems: string[];
}): Promise<Comparison> {
  const comparison: Comparison = { rounds: options.rounds, databases: {} };
  const postgres = await createPostgresDatabase();
  const postgresBaseline = await createPostgresDatabase();
  const pglite = createPgliteDir();
  const pgliteBaseline = createPgliteDir();
  const targets = {
    PostgreSQL: [{ DATABASE_URL: postgres.url }, { DATABASE_URL: postgresBaseline.url }],
    PGlite: [{ DATA_DIR: pglite.dir }, { DATA_DIR: pgliteBaseline.dir }],
  } as const;
  try {
    for (const [index, [kind, [currentDb, baselineDb]]] of Object.entries(targets).entries()) {
      // Which build starts first alternates too: on this VM the first of two servers started measured up to a third
      // slower in some runs, whichever build it was.
      const startCurrent = () => startSide(`this build (${kind})`, options.current, { ...options.env, ...currentDb });
      const startBaseline = () => startSide(`baseline (${kind})`, options.baseline, { ...options.env, ...baselineDb });
      const first = index % 2 === 0 ? await startCurrent() : await startBaseline();
      const [current, baseline] = index % 2 === 0 ? [first, await startBaseline()] : [await startCurrent(), first];
      try {
        for (let round = 0; round < options.rounds; round++) {
          // Alternate who goes first, so neither always meets a warmer or a busier machine.
          const order = round % 2 === 0 ? [current, baseline] : [baseline, current];
          for (const side of order) {
            const url = `${side.server.url}/api/v1/user`;
            if (options.warmup > 0) await runLoad(url, side.user.headers, options.warmup);
            const result = await runLoad(url, side.user.headers, options.duration);
            if (result.failures > 0) options.problems.push(`${side.server.name}: ${result.failures} non-2xx answers or errors under load`);
            side.figures.rps.push(result.rps);
            side.figures.p99.push(result.p99);
            console.log(`${side.server.name.padEnd(28)} round ${round + 1}: ${Math.round(result.rps)} req/s, p99 ${result.p99} ms`);
          }
        }
        for (const side of [current, baseline]) side.figures.peakRss = side.server.memory().peak;
        comparison.databases[kind] = { current: current.figures, baseline: baseline.figures };
      } finally {
        await current.server.stop();
        await baseline.server.stop();
      }
    }
  } finally {
    await postgres.drop();
    await postgresBaseline.drop();
    pglite.remove();
    pgliteBaseline.remove();
  }
  return comparison;
}

/** The comparison as a Markdown table: medians of the rounds, and this build's figure over the baseline's. */
export function renderComparison(comparison: Comparison, baselinePath: string): string {
  const mb = (bytes: number) => (bytes / 2 ** 20).toFixed(1);
  const lines = [
    `### This build against \`${baselinePath}\` (${comparison.rounds} rounds each, alternating)`,
    '',
    '| database | req/s this / baseline | ratio | p99 ms this / baseline | idle RSS MB this / baseline | peak RSS MB this / baseline | peak ratio |',
    '|---|---|---|---|---|---|---|',
  ];
  for (const [kind, { current, baseline }] of Object.entries(comparison.databases)) {
    const rps = [median(current.rps), median(baseline.rps)];
    lines.push(
      `| ${kind} | ${Math.round(rps[0]!)} / ${Math.round(rps[1]!)} | ${(rps[0]! / rps[1]!).toFixed(2)} | ${median(current.p99)} / ${median(baseline.p99)} | ` +
        `${mb(current.idleRss)} / ${mb(baseline.idleRss)} | ${mb(current.peakRss)} / ${mb(baseline.peakRss)} | ${(current.peakRss / baseline.peakRss).toFixed(2)} |`,
    );
  }
  return lines.join('\n');
}
