/**
 * `npm run bench`: measures Storelink's authenticated GET /api/v1/user against the limit (a bare node:http server)
 * and the baseline a user would write (Express + passport-jwt + pg), the sandbox connect flow, growth to 1,000,000
 * PATs, and memory; prints the report and writes bench/results/latest.{md,json}.
 * `-- --short`: 2 s runs, no warm-up, 10,000-PAT growth: proves the bench works (CI). `-- --duration <s>`: run length.
 * `-- --baseline <main.js>`: also this build against another build in alternating rounds (`--rounds`, default 3); this
 * build runs with the node flags of the start script, the baseline with `--baseline-flags "<flags>"` (default none);
 * `--compare-only` runs that comparison alone.
 * Exits 1 on any non-2xx answer, connection error, failed flow or wrong body; a missed target is reported, not failed.
 */
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import { parseArgs } from 'node:util';
import { compareBuilds, renderComparison } from './compare.js';
import { type FlowResult, runConnectFlows } from './connect-flow.js';
import { createPgliteDir, createPostgresDatabase } from './databases.js';
import { type LoadResult, runLoad } from './load.js';
import { type BenchResults, renderReport, writeReport } from './report.js';
import { PATS_PER_USER, seedGrowth } from './seed-growth.js';
import { freePort, type ServerProcess, startScriptNodeFlags, startServer } from './server-process.js';
import { type BenchUser, createBenchUser, readUser } from './storelink-api.js';

const argv = process.argv.slice(2);
const { values: flags } = parseArgs({
  args: argv,
  options: {
    short: { type: 'boolean', default: false },
    duration: { type: 'string' },
    baseline: { type: 'string' },
    'baseline-flags': { type: 'string', default: '' },
    'compare-only': { type: 'boolean', default: false },
    rounds: { type: 'string' },
  },
});
const short = flags.short!;
const duration = Number(flags.duration ?? (short ? 2 : 10));
if (!Number.isInteger(duration) || duration < 1) throw new Error(`--duration must be a whole number of seconds (got ${flags.duration})`);
const warmup = short ? 0 : 3;
const rounds = Number(flags.rounds ?? (short ? 1 : 3));
if (!Number.isInteger(rounds) || rounds < 1) throw new Error(`--rounds must be a whole number (got ${flags.rounds})`);
const growthUsers = short ? 1_000 : 100_000;

const here = (file: string) => new URL(file, import.meta.url).pathname;
// What `npm start` runs: the bundle `npm run build:server` makes (the bench script builds it first), with its node flags.
const STORELINK = here('../dist/server/main.js');
const START_FLAGS = startScriptNodeFlags();
const secrets = { APP_SECRET: randomBytes(32).toString('hex'), ENCRYPTION_KEY: randomBytes(32).toString('hex') };
const quiet = { LOG_LEVEL: 'warn', HOST: '127.0.0.1' };

const runs: Record<string, LoadResult> = {};
const flows: Record<string, FlowResult> = {};
const memory: Record<string, { idle: number; peak: number }> = {};
const problems: string[] = [];
const cleanups: (() => Promise<void> | void)[] = [];
let reference: { contentType: string; body: string } | null = null;

async function storelink(kind: 'PGlite' | 'PostgreSQL', database: Record<string, string>): Promise<ServerProcess> {
  const port = await freePort();
  const server = await startServer(
    `Storelink (${kind})`,
    STORELINK,
    { ...quiet, ...secrets, ...database, APP_URL: `http://127.0.0.1:${port}` },
    port,
    START_FLAGS,
  );
  cleanups.push(() => server.stop());
  return server;
}

/** Checks the server answers exactly the reference body (the first Storelink answer, checked for its content). */
async function checkBody(server: ServerProcess, user: BenchUser): Promise<void> {
  const answer = await readUser(server.url, user.headers);
  if (reference === null) {
    const data = answer.status === 200 ? JSON.parse(answer.body).data : null;
    if (data?.email !== 'bench@example.com' || data?.workspace?.id !== user.workspaceId)
      throw new Error(`${server.name}: GET /api/v1/user answered ${answer.status} ${answer.body}`);
    reference = { contentType: answer.contentType, body: answer.body };
  }
  if (answer.status !== 200 || answer.body !== reference.body || answer.contentType !== reference.contentType) {
    throw new Error(
      `${server.name}: GET /api/v1/user answered ${answer.status} ${answer.contentType} ${answer.body}, not ${reference.contentType} ${reference.body}`,
    );
  }
}

async function measure(key: string, server: ServerProcess, user: BenchUser): Promise<void> {
  await checkBody(server, user);
  const url = `${server.url}/api/v1/user`;
  const warm = warmup > 0 ? await runLoad(url, user.headers, warmup) : null;
  const result = await runLoad(url, user.headers, duration);
  runs[key] = result;
  const failures = result.failures + (warm?.failures ?? 0);
  if (failures > 0) problems.push(`${server.name}: ${failures} non-2xx answers or errors under load`);
  if (result.requests === 0) problems.push(`${server.name}: no request completed under load`);
  console.log(
    `${key.padEnd(18)} ${Math.round(result.rps).toString().padStart(7)} req/s  p50 ${result.p50} ms  p99 ${result.p99} ms  failures ${failures}`,
  );
}

async function connectFlows(kind: string, server: ServerProcess, user: BenchUser): Promise<void> {
  const result = await runConnectFlows(server.url, user, duration);
  flows[kind] = result;
  if (result.failures > 0 || result.flows === 0)
    problems.push(`connect flow on ${kind}: ${result.failures} failed (${result.firstFailure}), ${result.flows} completed`);
  if (result.sitesStored !== result.flows)
    problems.push(`connect flow on ${kind}: ${result.flows} flows but ${result.sitesStored} sites stored`);
  console.log(
    `d ${kind.padEnd(16)} ${result.flowsPerSecond.toFixed(1).padStart(7)} flows/s  (${result.flows} flows, ${result.failures} failed)`,
  );
}

/** (b) then (d) on one database, (f) around them; then (e): seed, restart, (b) again. `between` runs on the same database before the seeding. */
async function storelinkOn(
  kind: 'PGlite' | 'PostgreSQL',
  key: string,
  database: Record<string, string>,
  target: Parameters<typeof seedGrowth>[0],
  between?: (user: BenchUser) => Promise<void>,
): Promise<void> {
  let server = await storelink(kind, database);
  const idle = server.memory().rss;
  const user = await createBenchUser(server.url);
  await measure(`b-${key}`, server, user);
  memory[kind] = { idle, peak: server.memory().peak };
  await connectFlows(kind, server, user);
  await server.stop();
  await between?.(user);
  const started = Date.now();
  await seedGrowth(target, growthUsers);
  console.log(
    `e ${kind}: seeded ${(growthUsers * PATS_PER_USER).toLocaleString('en-US')} PATs in ${((Date.now() - started) / 1000).toFixed(1)} s`,
  );
  server = await storelink(kind, database);
  await measure(`e-${key}-grown`, server, user);
  await server.stop();
}

/** The comparison of this build with `--baseline`, in alternating rounds. */
function compare() {
  return compareBuilds({
    current: { file: STORELINK, nodeFlags: START_FLAGS },
    baseline: { file: flags.baseline!, nodeFlags: flags['baseline-flags']!.split(' ').filter(Boolean) },
    env: { ...quiet, ...secrets },
    rounds,
    duration,
    warmup,
    problems,
  });
}

async function main(): Promise<void> {
  if (flags['compare-only']) {
    if (!flags.baseline) throw new Error('--compare-only needs --baseline <main.js>');
    const markdown = renderComparison(await compare(), describeBuilds(flags.baseline, flags['baseline-flags']!));
    console.log(`\n${markdown}`);
    return;
  }
  const postgres = await createPostgresDatabase();
  cleanups.push(() => postgres.drop());
  await storelinkOn('PostgreSQL', 'postgres', { DATABASE_URL: postgres.url }, { kind: 'postgres', url: postgres.url }, async (user) => {
    const port = await freePort();
    const bare = await startServer(
      'bare node:http',
      here('bare-server.ts'),
      { BENCH_BODY: reference!.body, BENCH_CONTENT_TYPE: reference!.contentType },
      port,
    );
    cleanups.push(() => bare.stop());
    await measure('a', bare, user);
    await bare.stop();
    const baseline = await startServer(
      'Express baseline',
      here('baseline-express.ts'),
      { DATABASE_URL: postgres.url, APP_SECRET: secrets.APP_SECRET },
      await freePort(),
    );
    cleanups.push(() => baseline.stop());
    await measure('c', baseline, user);
    await baseline.stop();
  });
  const pglite = createPgliteDir();
  cleanups.push(() => pglite.remove());
  await storelinkOn('PGlite', 'pglite', { DATA_DIR: pglite.dir }, { kind: 'pglite', dataDir: pglite.dir });

  const results: BenchResults = {
    date: new Date().toISOString(),
    command: `npm run bench${argv.length > 0 ? ` -- ${argv.join(' ')}` : ''}`,
    short,
    durationSeconds: duration,
    growthPats: growthUsers * PATS_PER_USER,
    machine: {
      cpu: `${os.cpus()[0]?.model ?? 'unknown'} x ${os.availableParallelism()}`,
      memory: `${Math.round(os.totalmem() / 2 ** 30)} GiB`,
      os: `${os.type()} ${os.release()}`,
      node: process.version,
      postgresql: postgres.version,
      // Load generator, servers and PostgreSQL share this machine; other work on it moves every figure.
      'load average at start (1, 5, 15 min)': loadAtStart,
    },
    runs: order(runs, ['a', 'b-pglite', 'b-postgres', 'c', 'e-postgres-grown', 'e-pglite-grown']),
    flows,
    memory,
  };
  const comparison = flags.baseline ? await compare() : null;
  const markdown =
    renderReport(results) +
    (comparison ? `\n\n${renderComparison(comparison, describeBuilds(flags.baseline!, flags['baseline-flags']!))}\n` : '');
  console.log(`\n${markdown}`);
  writeReport(results, markdown, new URL('results/', import.meta.url));
}

/** The comparison's title: which builds ran with which node flags. */
function describeBuilds(baseline: string, baselineFlags: string): string {
  const withFlags = (flagsText: string) => (flagsText.trim() ? ` (node ${flagsText.trim()})` : ' (no node flags)');
  return `\`${baseline}\`${withFlags(baselineFlags)}; this build${withFlags(START_FLAGS.join(' '))}`;
}

function order<T>(record: Record<string, T>, keys: readonly string[]): Record<string, T> {
  return Object.fromEntries(keys.filter((k) => k in record).map((k) => [k, record[k]!]));
}

const started = Date.now();
const loadAtStart = os
  .loadavg()
  .map((n) => n.toFixed(2))
  .join(', ');
try {
  await main();
} catch (error) {
  problems.push((error as Error).message);
} finally {
  for (const cleanup of cleanups.reverse())
    await Promise.resolve(cleanup()).catch((error) => problems.push(`cleanup: ${(error as Error).message}`));
}
console.log(`bench took ${((Date.now() - started) / 1000).toFixed(0)} s`);
if (problems.length > 0) {
  console.error(`BENCH FAILED:\n- ${problems.join('\n- ')}`);
  process.exit(1);
}
