/**
 * `npm run bench`: measures Storelink's authenticated GET /api/v1/user against the limit (a bare node:http server)
 * and the baseline a user would write (Express + passport-jwt + pg), the sandbox connect flow, growth to 1,000,000
 * PATs, and memory; prints the report and writes bench/results/latest.{md,json}.
 * Every load figure comes from interleaved rounds: each round starts every server anew, in an order that rotates from
 * round to round, warms each up the same way and measures it; the report gives the medians, throughput beside the
 * server's CPU time per request. The server runs pinned to one CPU and the load generator to the others.
 * `-- --short`: 2 s runs, one round, no warm-up, 10,000-PAT growth: proves the bench works (CI). `-- --duration <s>`:
 * run length. `-- --rounds <n>`: rounds (default 3). `-- --no-pin`: no CPU pinning.
 * `-- --baseline <main.js>`: also this build against another build in rotating rounds; this build runs as the start
 * script runs it (its environment and node flags), the baseline with `--baseline-flags "<flags>"` (default none).
 * `-- --variants <file.json>`: against several builds in the same rounds, each `{ "name", "file", "nodeFlags"?, "env"? }`
 * (the start script's flags and environment where left out; a tuning piece is measured by a build without it).
 * `--starts <n>`: starts of each build its settled memory is read on (default 5); `--after-load`: each round also reads
 * the lowest RSS over 45 s alone after the load; `--databases PostgreSQL|PGlite`: the comparison on that one alone.
 * `--compare-only` runs that comparison alone. `-- --listings-only`: (h) alone, publishing to each sandbox (Etsy, TikTok
 * Shop, Amazon) and changing every price, on PostgreSQL; `-- --platform <etsy|tiktok-shop|amazon-seller>` with it: that one.
 * `-- --orders-only`: (i) alone, on a PostgreSQL database of its own: the oversell window from a sale on each platform
 * to the other two, and 1,000 orders in a burst across the three sandboxes (short: 100); `--platform` with it: sales on
 * that platform only, the other two following. Its figures are also written to bench/results/orders.json. The
 * simulated platforms of (i) run in a server of their own (SANDBOX_URL), pinned with the load generator, as the real
 * ones run elsewhere; `--platforms-in-process` runs them in Storelink's own process, as before 2026-12-04.
 * `-- --no-platforms`: the whole run but (h) and (i), the publishes and orders on the sandboxes (about half the time).
 * `-- --starts-only`: (j) alone, a first and a second start on the embedded database, five rounds (short: two).
 * `-- --catalogue-only`: (g) alone, the imports and then the search on each database beside the bare server; with
 * `--baseline <main.js>` that build answers the same searches in the same rounds (g-*-baseline).
 * Exits 1 on any non-2xx answer, connection error, failed flow or wrong body; a missed target is reported, not failed.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { parseArgs } from 'node:util';
import { SANDBOX_CLIENTS } from '../src/sandbox/context.js';
import { CATALOGUE_PATH, checkCatalogue, type ImportResult, importCatalogue } from './catalogue.js';
import { type Build, compareBuilds, DATABASE_KINDS, renderComparison } from './compare.js';
import { type FlowResult, runConnectFlows } from './connect-flow.js';
import { createPgliteDir, createPostgresDatabase, type FreshPostgres } from './databases.js';
import { benchFamily, type FamilyResult } from './family.js';
import { type BenchPlatform, benchListings, type ListingsResult, platformName } from './listings.js';
import type { LoadShape } from './load.js';
import { cpuPins, type Measurement, measureServer, median, medianOf, settledRss } from './measure.js';
import { benchOrders, ORDERS_SIZES, type OrdersResult } from './orders.js';
import {
  type BenchResults,
  familyLines,
  importLines,
  listingsLines,
  MB,
  ordersChecks,
  ordersLines,
  renderReport,
  searchChecks,
  verdictOf,
  writeReport,
} from './report.js';
import { PATS_PER_USER, seedGrowth } from './seed-growth.js';
import { freePort, pinCpus, type ServerProcess, startScript, startServer, startThroughNpm } from './server-process.js';
import { startLines, startTimes } from './starts.js';
import { type BenchUser, createBenchUser, ownHeaders, readUser } from './storelink-api.js';

const argv = process.argv.slice(2);
const { values: flags } = parseArgs({
  args: argv,
  options: {
    short: { type: 'boolean', default: false },
    duration: { type: 'string' },
    baseline: { type: 'string' },
    'baseline-flags': { type: 'string', default: '' },
    variants: { type: 'string' },
    starts: { type: 'string' },
    'after-load': { type: 'boolean', default: false },
    databases: { type: 'string' },
    'compare-only': { type: 'boolean', default: false },
    'listings-only': { type: 'boolean', default: false },
    'orders-only': { type: 'boolean', default: false },
    'catalogue-only': { type: 'boolean', default: false },
    'starts-only': { type: 'boolean', default: false },
    'no-platforms': { type: 'boolean', default: false },
    platform: { type: 'string' },
    rounds: { type: 'string' },
    'no-pin': { type: 'boolean', default: false },
    'platforms-in-process': { type: 'boolean', default: false },
  },
});
const short = flags.short!;
const ALL_PLATFORMS: readonly BenchPlatform[] = ['etsy', 'tiktok-shop', 'amazon-seller'];
if (flags.platform !== undefined && !ALL_PLATFORMS.includes(flags.platform as BenchPlatform))
  throw new Error(`--platform must be one of ${ALL_PLATFORMS.join(', ')} (got ${flags.platform})`);
const LISTINGS_PLATFORMS = flags.platform === undefined ? ALL_PLATFORMS : [flags.platform as BenchPlatform];
const duration = Number(flags.duration ?? (short ? 2 : 10));
if (!Number.isInteger(duration) || duration < 1) throw new Error(`--duration must be a whole number of seconds (got ${flags.duration})`);
// Even the short run warms each server up a second: cold, a server under 1,000 requests in flight may answer none in 2 s.
const warmup = short ? 1 : 3;
const rounds = Number(flags.rounds ?? (short ? 1 : 3));
// Seconds a fresh Storelink is left alone while its settled idle memory is read (the lowest RSS over them).
const settle = short ? 0 : 45;
if (!Number.isInteger(rounds) || rounds < 1) throw new Error(`--rounds must be a whole number (got ${flags.rounds})`);
const growthUsers = short ? 1_000 : 100_000;
const catalogueRows = short ? 1_000 : 10_000;

const here = (file: string) => new URL(file, import.meta.url).pathname;
// What `npm start` runs: the bundle `npm run build:server` makes (the bench script builds it first), with its node flags.
const STORELINK = here('../dist/server/main.js');
const START = startScript();
const secrets = { APP_SECRET: randomBytes(32).toString('hex'), ENCRYPTION_KEY: randomBytes(32).toString('hex') };
// The sandbox's own saving of its state (SANDBOX_PERSIST) is the simulators' cost, not Storelink's: off in the bench.
const quiet = { LOG_LEVEL: 'warn', HOST: '127.0.0.1', SANDBOX_PERSIST: 'false' };

const measurements: Record<string, Measurement[]> = {};
const flows: Record<string, FlowResult> = {};
/** Per database: RSS right after start, settled, and the highest before and during (b)'s load (clear_refs between). */
const memory: Record<string, { idle: number[]; settled: number; startPeak: number[]; peak: number[] }> = {};
const imports: Record<string, ImportResult> = {};
/** GET /products?q= as each database answered it, for the bare server's copy of the answer. */
const catalogueAnswers: Record<string, { body: string; headers: Record<string, string> }> = {};
const problems: string[] = [];
const cleanups: (() => Promise<void> | void)[] = [];
/** What the first Storelink answered to GET /user, checked for its content: every server must answer exactly this. */
let reference: { contentType: string; body: string; headers: Record<string, string> } | null = null;

type Kind = 'PGlite' | 'PostgreSQL';

async function storelink(
  kind: Kind,
  database: Record<string, string>,
  env: Record<string, string> = {},
  file = STORELINK,
): Promise<ServerProcess> {
  const port = await freePort();
  const server = await startServer(
    `Storelink (${kind}${file === STORELINK ? '' : `, ${file}`})`,
    file,
    { ...START.env, ...quiet, ...secrets, ...database, ...env, APP_URL: `http://127.0.0.1:${port}` },
    port,
    START.flags,
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
    reference = { contentType: answer.contentType, body: answer.body, headers: answer.headers };
  }
  if (answer.status !== 200 || answer.body !== reference.body || answer.contentType !== reference.contentType) {
    throw new Error(
      `${server.name}: GET /api/v1/user answered ${answer.status} ${answer.contentType} ${answer.body}, not ${reference.contentType} ${reference.body}`,
    );
  }
}

/** A server of the rounds: how to start it, and, for Storelink, which memory figures it adds to. */
interface Contender {
  readonly key: string;
  readonly start: () => Promise<ServerProcess>;
  /** What the load asks for: GET /api/v1/user unless said, and the check of the answer before the load. */
  readonly path?: string;
  readonly check?: (server: ServerProcess, user: BenchUser) => Promise<void>;
  /** Whose PAT the load sends: the user of the contender's database (any user for a bare server). */
  readonly user: BenchUser;
  readonly memoryOf?: Kind;
  /** The load's shape, when not the bench's 100 connections pipelining 10. */
  readonly shape?: LoadShape;
}

/** A Storelink database of the bench: its environment, and the user made through the API on first start. */
interface BenchDatabase {
  readonly kind: Kind;
  readonly env: Record<string, string>;
  readonly target: Parameters<typeof seedGrowth>[0];
  user?: BenchUser;
}

async function openDatabases(): Promise<{ postgres: FreshPostgres; small: BenchDatabase[]; grown: BenchDatabase[] }> {
  const make = async (): Promise<[FreshPostgres, BenchDatabase, BenchDatabase]> => {
    const postgres = await createPostgresDatabase();
    cleanups.push(() => postgres.drop());
    const pglite = createPgliteDir();
    cleanups.push(() => pglite.remove());
    return [
      postgres,
      { kind: 'PostgreSQL', env: { DATABASE_URL: postgres.url }, target: { kind: 'postgres', url: postgres.url } },
      { kind: 'PGlite', env: { DATA_DIR: pglite.dir }, target: { kind: 'pglite', dataDir: pglite.dir } },
    ];
  };
  const [postgres, ...small] = await make();
  const [, ...grown] = await make();
  return { postgres, small, grown };
}

/**
 * Starts Storelink on the database once, alone: its settled idle memory (small databases only), the bench user, and
 * the reference answer. The grown databases are then seeded while no server holds them.
 */
async function prepare(database: BenchDatabase, readSettled: boolean): Promise<void> {
  const server = await storelink(database.kind, database.env);
  try {
    if (readSettled && settle > 0) memory[database.kind] = { idle: [], startPeak: [], peak: [], settled: await settledRss(server, settle) };
    database.user = await createBenchUser(server.url);
    await checkBody(server, database.user);
    if (readSettled) {
      imports[database.kind] = await importCatalogue(server, database.user, catalogueRows);
      const made = imports[database.kind]!;
      console.log(
        `g ${database.kind}: imported ${catalogueRows} CSV rows in ${made.seconds.toFixed(1)} s; ` +
          `every price and stock changed: previewed in ${made.dryRunSeconds.toFixed(1)} s, merged in ${made.mergeSeconds.toFixed(1)} s`,
      );
      const answer = await fetch(`${server.url}${CATALOGUE_PATH}`, { headers: database.user.headers });
      catalogueAnswers[database.kind] ??= { body: await answer.text(), headers: ownHeaders(answer.headers) };
    }
  } finally {
    await server.stop();
  }
}

/** Every contender in every round, each alone and started anew, in an order that rotates from round to round. */
async function runRounds(contenders: readonly Contender[]): Promise<void> {
  for (let round = 0; round < rounds; round++) {
    const order = contenders.map((_, i) => contenders[(i + round) % contenders.length]!);
    for (const contender of order) {
      const server = await contender.start();
      try {
        const idle = server.memory().rss;
        await (contender.check ?? checkBody)(server, contender.user);
        // The peak read after the load is the load's: a start's own (PGlite's WebAssembly compiled) is kept apart.
        const startPeak = server.resetPeak();
        const result = await measureServer(server, contender.path ?? '/api/v1/user', contender.user.headers, {
          warmup,
          duration,
          shape: contender.shape,
        });
        const peakRss = server.memory().peak;
        (measurements[contender.key] ??= []).push({ ...result, peakRss });
        if (contender.memoryOf) {
          const figures = (memory[contender.memoryOf] ??= { idle: [], startPeak: [], peak: [], settled: Number.NaN });
          figures.idle.push(idle);
          figures.startPeak.push(startPeak);
          figures.peak.push(peakRss);
        }
        if (result.failures > 0) problems.push(`${server.name}: ${result.failures} non-2xx answers or errors under load`);
        if (result.requests === 0) problems.push(`${server.name}: no request completed under load`);
        console.log(
          `round ${round + 1} ${contender.key.padEnd(18)} ${Math.round(result.rps).toString().padStart(7)} req/s  ` +
            `${result.cpuMicrosPerRequest.toFixed(1).padStart(5)} µs CPU/request  p99 ${result.p99} ms  ` +
            `peak RSS ${(peakRss / MB).toFixed(1)} MB  failures ${result.failures}`,
        );
      } finally {
        await server.stop();
      }
    }
  }
}

async function connectFlows(database: BenchDatabase): Promise<void> {
  const server = await storelink(database.kind, database.env);
  try {
    const result = await runConnectFlows(server.url, database.user!, duration);
    flows[database.kind] = result;
    if (result.failures > 0 || result.flows === 0)
      problems.push(`connect flow on ${database.kind}: ${result.failures} failed (${result.firstFailure}), ${result.flows} completed`);
    if (result.sitesStored !== result.flows)
      problems.push(`connect flow on ${database.kind}: ${result.flows} flows but ${result.sitesStored} sites stored`);
    console.log(
      `d ${database.kind.padEnd(16)} ${result.flowsPerSecond.toFixed(1).padStart(7)} flows/s  (${result.flows} flows, ${result.failures} failed)`,
    );
  } finally {
    await server.stop();
  }
}

/**
 * (h): a publish of 1,000 products (short: 50) to each platform's sandbox under its rate limit, then a price change of
 * each; one server for all, so the platforms' figures come from one run.
 */
async function listingsRun(database: BenchDatabase): Promise<{ listings: ListingsResult[]; family: FamilyResult | null }> {
  const server = await storelink(database.kind, database.env);
  const results: ListingsResult[] = [];
  let family: FamilyResult | null = null;
  try {
    for (const platform of LISTINGS_PLATFORMS) {
      try {
        const result = await benchListings(server, database.user!, short ? 50 : 1_000, platform);
        console.log(
          `h ${database.kind} ${platformName(platform)}: published ${result.listings} in ${result.publishSeconds.toFixed(1)} s ` +
            `(its POSTs ${result.postSeconds.toFixed(1)} s; floor ${result.floorSeconds.toFixed(1)} s, ` +
            `${result.callsPerListing.toFixed(2)} calls a listing); price change median ${result.priceMedianMs.toFixed(0)} ms, p99 ${result.priceP99Ms.toFixed(0)} ms, calls ${JSON.stringify(result.priceCalls)}`,
        );
        results.push(result);
      } catch (error) {
        problems.push(`listings (h) on ${platformName(platform)}: ${(error as Error).message}`);
      }
    }
    try {
      family = await benchFamily(server, database.user!, LISTINGS_PLATFORMS, short ? 3 : 10);
      console.log(
        `h ${database.kind}: a 6-variant family's price change on every platform: median ${family.everyMedianMs.toFixed(0)} ms, max ${family.everyMaxMs.toFixed(0)} ms`,
      );
    } catch (error) {
      problems.push(`listings (h), the family's price change: ${(error as Error).message}`);
    }
    return { listings: results, family };
  } finally {
    await server.stop();
  }
}

/**
 * (i): orders on a PostgreSQL database of its own, so no site of the other parts is read beside them. Etsy's ORDER_PAID
 * reaches Storelink signed with the sandbox app's secret; the sandbox reviews a listing in 1 s rather than 5 (the
 * setting's publish only: no figure of (i) waits on a review).
 */
async function ordersRun(): Promise<OrdersResult | null> {
  const postgres = await createPostgresDatabase();
  cleanups.push(() => postgres.drop());
  const database: BenchDatabase = {
    kind: 'PostgreSQL',
    env: { DATABASE_URL: postgres.url },
    target: { kind: 'postgres', url: postgres.url },
  };
  await prepare(database, false);
  const env = { ETSY_WEBHOOK_SECRET: SANDBOX_CLIENTS.etsy.webhookSecret, SANDBOX_REVIEW_SECONDS: '1' };
  let server: ServerProcess;
  let platforms: ServerProcess | null = null;
  if (flags['platforms-in-process']) server = await storelink(database.kind, database.env, env);
  else {
    // The simulated platforms in a server of their own (SANDBOX_URL), as the real ones run elsewhere: their work of
    // taking the sales and sending their notifications is not on Storelink's CPU. Theirs is the load generator's.
    const [servicePort, platformsPort] = [await freePort(), await freePort()];
    const dataDir = createPgliteDir();
    cleanups.push(dataDir.remove);
    platforms = await startServer(
      'the simulated platforms',
      STORELINK,
      {
        ...START.env,
        ...quiet,
        ...secrets,
        ...env,
        DATA_DIR: dataDir.dir,
        APP_URL: `http://127.0.0.1:${platformsPort}`,
        SANDBOX_APP_URL: `http://127.0.0.1:${servicePort}`,
      },
      platformsPort,
      START.flags,
      pins?.load ?? null,
    );
    cleanups.push(() => platforms?.stop());
    const service = await startServer(
      `Storelink (${database.kind})`,
      STORELINK,
      {
        ...START.env,
        ...quiet,
        ...secrets,
        ...database.env,
        ...env,
        APP_URL: `http://127.0.0.1:${servicePort}`,
        SANDBOX_URL: `${platforms.url}/sandbox`,
      },
      servicePort,
      START.flags,
    );
    cleanups.push(() => service.stop());
    server = { ...service, platforms };
  }
  try {
    const result = await benchOrders(server, database.user!, ORDERS_SIZES[short ? 'short' : 'full'], LISTINGS_PLATFORMS);
    const b = result.burst;
    const off = Object.entries(b.listingsOff).map(([name, o]) => `${name} ${o.listings} (${o.unitsOver} units over)`);
    console.log(
      `i the listings' last change ${b.listingsSettledSeconds.toFixed(1)} s after the burst's first sale; ` +
        `off the pool after it: ${off.length > 0 ? off.join(', ') : 'none'}`,
    );
    if (b.duplicates + b.missing + b.wrongLines + b.wrongPools > 0)
      problems.push(
        `orders (i): ${b.duplicates} recorded twice, ${b.missing} not recorded, ${b.wrongLines} lines not taken in whole, ${b.wrongPools} pools wrong`,
      );
    const throttled = b.platforms.filter((p) => p.throttled > 0);
    if (throttled.length > 0)
      problems.push(
        `orders (i): 429s during the burst: ${throttled.map((p) => `${platformName(p.platform)} ${p.throttled} (${p.throttledRoutes.join(', ')})`).join(', ')}`,
      );
    return result;
  } catch (error) {
    problems.push(`orders (i): ${(error as Error).message}`);
    return null;
  } finally {
    await server.stop();
    await platforms?.stop();
  }
}

/** The builds `--baseline` and `--variants` name, after this one. */
function otherBuilds(): Build[] {
  const builds: Build[] = [];
  if (flags.baseline)
    builds.push({ name: 'baseline', file: flags.baseline, nodeFlags: flags['baseline-flags']!.split(' ').filter(Boolean) });
  if (flags.variants) {
    const listed = JSON.parse(readFileSync(flags.variants, 'utf8')) as Array<Partial<Build> & { name: string; file: string }>;
    for (const variant of listed) builds.push({ nodeFlags: START.flags, env: START.env, ...variant });
  }
  return builds;
}

/** The comparison of this build with the others, in rotating rounds. */
function compare() {
  return compareBuilds({
    builds: [{ name: 'this build', file: STORELINK, nodeFlags: START.flags, env: START.env }, ...otherBuilds()],
    env: { ...quiet, ...secrets },
    rounds,
    duration,
    warmup,
    settle,
    starts: flags.starts === undefined ? undefined : Number(flags.starts),
    afterLoad: flags['after-load'],
    databases: flags.databases === undefined ? undefined : comparedDatabases(flags.databases),
    problems,
  });
}

function comparedDatabases(names: string): (typeof DATABASE_KINDS)[number][] {
  return names.split(',').map((name) => {
    const kind = DATABASE_KINDS.find((k) => k.toLowerCase() === name.trim().toLowerCase());
    if (!kind) throw new Error(`--databases takes ${DATABASE_KINDS.join(', ')} (got ${name})`);
    return kind;
  });
}

async function main(): Promise<void> {
  if (flags['compare-only']) {
    if (!flags.baseline && !flags.variants) throw new Error('--compare-only needs --baseline <main.js> or --variants <file.json>');
    const markdown = renderComparison(await compare());
    console.log(`\n${markdown}`);
    return;
  }
  if (flags['orders-only']) {
    const orders = await ordersRun();
    const checks = orders ? ordersChecks(orders) : [];
    console.log(`\n${ordersLines(orders).join('\n')}`);
    for (const c of checks) console.log(`- ${c.name}: ${c.value.toFixed(2)}${c.unit} (target ${c.target}${verdictOf(c)})`);
    // Every figure of the run, for BENCHMARKS.md: bench/results/orders.json.
    const dir = new URL('results/', import.meta.url);
    mkdirSync(dir, { recursive: true });
    const saved = { date: new Date().toISOString(), command: `npm run bench -- ${argv.join(' ')}`, loadAtStart, orders, checks };
    writeFileSync(new URL('orders.json', dir), `${JSON.stringify(saved, null, 2)}\n`);
    return;
  }
  if (flags['starts-only']) {
    // (j) alone: starts on the embedded database, each in a data directory of its own. A start is timed as `npm start`
    // runs it, on all the machine's CPUs: on one (the bench's own, whose affinity a child inherits), V8's background
    // compilation of PGlite's WebAssembly and its GC shared the server's core, and a start took 1.5 s longer.
    pinCpus(null);
    const npmStart = async (env: Record<string, string>) => {
      const port = await freePort();
      const server = await startThroughNpm(
        'npm start (PGlite)',
        { ...quiet, ...secrets, ...env, APP_URL: `http://127.0.0.1:${port}` },
        port,
      );
      cleanups.push(() => server.stop());
      return server;
    };
    const times = await startTimes((env) => storelink('PGlite', env), short ? 2 : 5, npmStart);
    console.log(`\n${startLines(times).join('\n')}`);
    return;
  }
  const { postgres, small, grown } = await openDatabases();
  if (flags['listings-only']) {
    // (h) alone, on PostgreSQL as in the whole bench: the platforms' publish and price-change figures of one run.
    const postgresSmall = small[0]!;
    await prepare(postgresSmall, true);
    const { listings, family } = await listingsRun(postgresSmall);
    console.log(`\n${[...listingsLines(listings), ...familyLines(family)].join('\n')}`);
    return;
  }
  for (const database of small) await prepare(database, true);
  // Every database starts empty, so the bench user has the same ids, and the same answer, on each (checkBody).
  const [postgresSmall, pgliteSmall] = small as [BenchDatabase, BenchDatabase];
  const on = (key: string, database: BenchDatabase): Contender => ({
    key,
    start: () => storelink(database.kind, database.env),
    user: database.user!,
    memoryOf: key.startsWith('b-') ? database.kind : undefined,
  });
  const bare = (key: string, answer: { body: string; headers: Record<string, string> | null }, path?: string): Contender => ({
    key,
    user: postgresSmall.user!,
    path,
    check: async () => {},
    start: async () => {
      const env: Record<string, string> = { BENCH_BODY: answer.body };
      env.BENCH_HEADERS = JSON.stringify(answer.headers ?? { 'content-type': reference!.contentType });
      return startServer(`bare node:http${answer.headers ? ' + headers' : ''}`, here('bare-server.ts'), env, await freePort());
    },
  });
  // A search reads thousands of rows: under 1,000 requests in flight each waits for the others' queries, and none
  // answers within a short run. Searches are loaded by 10 connections without pipelining, the bare server alike.
  const searchShape = { connections: 10, pipelining: 1 };
  const catalogue = (key: string, database: BenchDatabase, file = STORELINK): Contender => ({
    ...on(key, database),
    start: () => storelink(database.kind, database.env, {}, file),
    memoryOf: undefined,
    path: CATALOGUE_PATH,
    check: checkCatalogue,
    shape: searchShape,
  });
  if (flags['catalogue-only']) {
    // (g) alone: the imports on each database (made, previewed and merged), then the search loaded on each beside the
    // bare server sending PostgreSQL's page, in the same rotating rounds as the whole bench.
    await runRounds([
      { ...bare('a-products', catalogueAnswers.PostgreSQL!, CATALOGUE_PATH), shape: searchShape },
      catalogue('g-postgres', postgresSmall),
      catalogue('g-pglite', pgliteSmall),
      // With --baseline: the same searches of the same catalogues answered by another build, in the same rounds.
      ...(flags.baseline
        ? [catalogue('g-postgres-baseline', postgresSmall, flags.baseline), catalogue('g-pglite-baseline', pgliteSmall, flags.baseline)]
        : []),
    ]);
    console.log(`\n${importLines(imports).join('\n')}`);
    const medians = Object.fromEntries(Object.entries(measurements).map(([key, list]) => [key, medianOf(list)]));
    for (const [key, m] of Object.entries(medians))
      console.log(
        `${key.padEnd(12)} median ${Math.round(m.rps)} req/s, ${m.cpuMicrosPerRequest.toFixed(1)} µs CPU/request, peak RSS ${(m.peakRss! / MB).toFixed(1)} MB`,
      );
    for (const check of searchChecks(medians))
      console.log(`${check.name}: ${check.value.toFixed(1)}, target ${check.target}${verdictOf(check)}`);
    return;
  }
  // (e): the same user made through the API on a database of its own, then 1,000,000 PATs around it.
  for (const database of grown) {
    await prepare(database, false);
    const seeding = Date.now();
    await seedGrowth(database.target, growthUsers);
    console.log(
      `e ${database.kind}: seeded ${(growthUsers * PATS_PER_USER).toLocaleString('en-US')} PATs in ${((Date.now() - seeding) / 1000).toFixed(1)} s`,
    );
  }
  const [postgresGrown, pgliteGrown] = grown as [BenchDatabase, BenchDatabase];
  await runRounds([
    bare('a', { body: reference!.body, headers: null }),
    on('b-postgres', postgresSmall),
    bare('a-headers', reference!),
    on('b-pglite', pgliteSmall),
    {
      key: 'c',
      // The Express baseline reads the users table Storelink wrote and verifies Storelink's PATs.
      start: async () =>
        startServer(
          'Express baseline',
          here('baseline-express.ts'),
          { DATABASE_URL: postgres.url, APP_SECRET: secrets.APP_SECRET },
          await freePort(),
        ),
      user: postgresSmall.user!,
    },
    on('e-postgres-grown', postgresGrown),
    on('e-pglite-grown', pgliteGrown),
    // The bare server answers PostgreSQL's page of the search, with its headers, whatever it is asked.
    { ...bare('a-products', catalogueAnswers.PostgreSQL!, CATALOGUE_PATH), shape: searchShape },
    catalogue('g-postgres', postgresSmall),
    catalogue('g-pglite', pgliteSmall),
  ]);
  for (const database of small) await connectFlows(database);
  // --no-platforms: the API's figures alone (a to g, memory, the connect flow), without (h) and (i).
  const { listings, family } = flags['no-platforms'] ? { listings: [], family: null } : await listingsRun(postgresSmall);
  const orders = flags['no-platforms'] ? null : await ordersRun();

  const results: BenchResults = {
    date: new Date().toISOString(),
    command: `npm run bench${argv.length > 0 ? ` -- ${argv.join(' ')}` : ''}`,
    short,
    durationSeconds: duration,
    warmupSeconds: warmup,
    rounds,
    settleSeconds: settle,
    growthPats: growthUsers * PATS_PER_USER,
    machine: {
      cpu: `${os.cpus()[0]?.model ?? 'unknown'} x ${os.cpus().length}`,
      memory: `${Math.round(os.totalmem() / 2 ** 30)} GiB`,
      os: `${os.type()} ${os.release()}`,
      node: process.version,
      postgresql: postgres.version,
      // The server under test and the load generator are pinned apart; PostgreSQL shares the machine with both.
      'CPU pinning': pins ? `server on CPU ${pins.server}, load generator on CPU ${pins.load}` : 'none',
      'load average at start (1, 5, 15 min)': loadAtStart,
    },
    perRound: roundsOf(measurements),
    runs: Object.fromEntries(Object.entries(measurements).map(([key, list]) => [key, medianOf(list)])),
    flows,
    imports,
    listings,
    family,
    orders,
    memory: Object.fromEntries(
      Object.entries(memory).map(([kind, m]) => [
        kind,
        { idle: median(m.idle), settled: m.settled, startPeak: median(m.startPeak), peak: median(m.peak) },
      ]),
    ),
  };
  const comparison = flags.baseline || flags.variants ? await compare() : null;
  const markdown = renderReport(results) + (comparison ? `\n\n${renderComparison(comparison)}\n` : '');
  console.log(`\n${markdown}`);
  writeReport(results, markdown, new URL('results/', import.meta.url));
}

/** Each contender's throughput and CPU time per request, round by round, for the report. */
function roundsOf(all: Record<string, Measurement[]>): BenchResults['perRound'] {
  return Object.fromEntries(
    Object.entries(all).map(([key, list]) => [key, list.map((m) => ({ rps: m.rps, cpuMicrosPerRequest: m.cpuMicrosPerRequest }))]),
  );
}

const pins = flags['no-pin'] ? null : cpuPins();
pinCpus(pins);
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
