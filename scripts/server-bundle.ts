/**
 * How dist/server, the bundle `npm start` runs, is built (scripts/build-server.ts builds it).
 *
 * Packages stay in node_modules and load from there, except the few in BUNDLED. V8 keeps, for the life of the
 * process, each module's source text and its records (about 1 KB a module beside the source), and keeps a source two
 * bytes a character when one character of it is beyond Latin-1. Those packages are many modules for what the server
 * uses of them (typebox: 680 files), or large files with such a character in a comment (pg-boss's plans.js, 286 KB
 * on disk, took 559 KB of heap); bundled, they are a few chunks of ASCII without comments (BENCHMARKS.md, 2026-11-27).
 * A package may be bundled only when nothing left in node_modules imports it too, or it would load twice: typebox and
 * image-size are imported by Storelink alone, pg-boss by Storelink alone, and the others by pg-boss alone.
 * cron-parser stays out: it is CommonJS and requires luxon, which the job engine reaches at run time to give it its
 * locale (src/lib/jobs.ts), so both must be the copies in node_modules.
 */
import type { BuildOptions, Plugin } from 'esbuild';

export const BUNDLED = new Set([
  'typebox',
  'image-size',
  'pg-boss',
  'rrule-temporal',
  'serialize-error',
  'non-error',
  '@opentelemetry/api',
]);

/** The package a bare import names: `typebox/value` → `typebox`, `@opentelemetry/api/x` → `@opentelemetry/api`. */
export function packageOf(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!;
}

/** Leaves every package import to node_modules except those of BUNDLED (and what they import from one another). */
export const bundledPackagesOnly: Plugin = {
  name: 'bundled-packages-only',
  setup(builder) {
    builder.onResolve({ filter: /^[^./]/ }, (args) => {
      if (args.path.startsWith('node:') || BUNDLED.has(packageOf(args.path))) return undefined;
      return { path: args.path, external: true };
    });
  },
};

/** The esbuild options of the server bundle; test/cron-locale.test.ts builds its scenario with them too. */
export const serverBundleOptions: BuildOptions = {
  bundle: true,
  splitting: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  plugins: [bundledPackagesOnly],
  logLevel: 'warning',
};
