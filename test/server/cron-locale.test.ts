/**
 * pg-boss's scheduler reads cron through cron-parser and luxon; the job engine gives luxon its locale and zone, so
 * scheduling (which evaluates the expression) never makes luxon ask ICU for the system's, which pages some 6 MB of
 * ICU's data into the server for good (src/lib/jobs.ts, spareCronIcuLookups).
 *
 * Run as the server runs: bundled by esbuild with the server's options (scripts/server-bundle.ts) and started with
 * plain node. Under tsx, pg-boss's import of cron-parser goes through tsx's loader, which gives cron-parser luxon's ES
 * module build instead of the CommonJS one node gives it, so what the test saw would not be what the server does.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { cp, mkdir, rm, writeFile } from 'node:fs/promises';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { build } from 'esbuild';
import { serverBundleOptions } from '../../scripts/server-bundle.js';

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));

/** Schedules one expression on a PGlite job engine; prints the date formats made, counted from before the engine loads. */
const SCENARIO = `
  const made = [];
  const DateTimeFormat = Intl.DateTimeFormat;
  Intl.DateTimeFormat = new Proxy(DateTimeFormat, {
    construct: (target, args) => (made.push(args), Reflect.construct(target, args)),
    apply: (target, self, args) => (made.push(args), Reflect.apply(target, self, args)),
  });
  const { createJobs } = await import(${JSON.stringify(here('../../src/lib/jobs.ts'))});
  const { createTestDatabase } = await import(${JSON.stringify(here('../helpers/database.ts'))});
  const database = await createTestDatabase('pglite');
  const jobs = createJobs({ connection: database.jobsConnection, soleProcess: database.kind === 'pglite', onError: () => {} });
  jobs.define({ name: 'cron-locale', options: {}, work: {}, handler: async () => 'done', worker: 'test' });
  await jobs.start();
  await jobs.schedule('cron-locale', '17 7 * * *');
  const refused = await jobs.schedule('cron-locale', 'not a cron expression').then(() => false, () => true);
  await jobs.stop(1_000);
  await database.close();
  console.log(JSON.stringify({ made: made.length, refused }));
`;

test('scheduling a recurring job makes no date format, so ICU loads no locale data', async (t) => {
  // Inside the repository, so the bundle's packages resolve from its node_modules.
  const dir = here(`../../node_modules/.cache/cron-locale-${process.pid}`);
  await mkdir(dir, { recursive: true });
  t.after(() => rm(dir, { recursive: true, force: true }));
  await writeFile(`${dir}/entry.mjs`, SCENARIO);
  // Bundled as the server is (pg-boss inside the bundle, cron-parser and luxon from node_modules).
  await build({ ...serverBundleOptions, entryPoints: [`${dir}/entry.mjs`], outdir: `${dir}/out` });
  // Where the bundled database code looks for them, as `npm run build:server` puts them.
  await cp(here('../../src/db/migrations'), `${dir}/out/migrations`, { recursive: true });
  const { stdout } = await promisify(execFile)(process.execPath, [`${dir}/out/entry.js`], { timeout: 60_000 });
  assert.deepEqual(JSON.parse(stdout.trim().split('\n').at(-1)!), { made: 0, refused: true });
});
