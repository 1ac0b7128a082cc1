/**
 * Builds dist/server (or the directory given): src/main.ts and src/cli.ts (main.js, cli.js) and their imports as ES module chunks with the options of
 * scripts/server-bundle.ts, the database migrations beside them, then two checks: no package left to node_modules
 * depends on one compiled in (it would load twice), and the Latin-1 check (scripts/check-server-bundle.ts); last, the
 * embedded database's image in dist/pglite-image (scripts/make-pglite-image.ts); then the hash of the inputs as they
 * were at the start, by which `npm start` skips building a current bundle (scripts/server-bundle-current.ts).
 */
import { execFileSync } from 'node:child_process';
import { cpSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';
import { bundledAlsoLoadedOutside, serverBundleOptions } from './server-bundle.js';
import { bundleInputsHash, INPUTS_HASH_FILE } from './server-bundle-current.js';

const outdir = process.argv[2] ?? 'dist/server';
const inputs = bundleInputsHash(process.cwd());
rmSync(outdir, { recursive: true, force: true });
// The operator CLI beside the server, sharing its chunks: the suite runs it from here when the bundle is current.
const { metafile } = await build({ ...serverBundleOptions, entryPoints: ['src/main.ts', 'src/cli.ts'], outdir, metafile: true });
const twice = bundledAlsoLoadedOutside(metafile);
if (twice.length > 0) {
  console.error(
    `Packages compiled into the server bundle that node_modules would load again (scripts/server-bundle.ts):\n${twice.join('\n')}`,
  );
  process.exit(1);
}
cpSync('src/db/migrations', `${outdir}/migrations`, { recursive: true });
execFileSync(process.execPath, ['--import', 'tsx', 'scripts/check-server-bundle.ts', outdir], { stdio: 'inherit' });
// The embedded database's image for a first start in a second or two (src/db/pglite-image.ts); kept while current.
execFileSync(process.execPath, ['--import', 'tsx', 'scripts/make-pglite-image.ts'], { stdio: 'inherit' });
writeFileSync(join(outdir, INPUTS_HASH_FILE), `${inputs}\n`);
