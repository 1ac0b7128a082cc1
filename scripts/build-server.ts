/**
 * Builds dist/server (or the directory given): src/main.ts and its imports as ES module chunks with the options of
 * scripts/server-bundle.ts, the database migrations beside them, then the Latin-1 check (scripts/check-server-bundle.ts).
 */
import { execFileSync } from 'node:child_process';
import { cpSync, rmSync } from 'node:fs';
import { build } from 'esbuild';
import { serverBundleOptions } from './server-bundle.js';

const outdir = process.argv[2] ?? 'dist/server';
rmSync(outdir, { recursive: true, force: true });
await build({ ...serverBundleOptions, entryPoints: ['src/main.ts'], outdir });
cpSync('src/db/migrations', `${outdir}/migrations`, { recursive: true });
execFileSync(process.execPath, ['--import', 'tsx', 'scripts/check-server-bundle.ts', outdir], { stdio: 'inherit' });
