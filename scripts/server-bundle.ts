/**
 * How dist/server, the bundle `npm start` runs, is built (scripts/build-server.ts builds it).
 *
 * Packages stay in node_modules and load from there, except those of BUNDLED. V8 keeps, for the life of the
 * process, each module's source text and its records (about 1 KB a module beside the source), and keeps a source two
 * bytes a character when one character of it is beyond Latin-1. Those packages are many modules for what the server
 * uses of them (typebox: 680 files; drizzle-orm: 122; jose: 63), or large files with such a character in a comment
 * (pg-boss's plans.js, 286 KB on disk, took 559 KB of heap); bundled, they are a few chunks of ASCII without comments
 * (BENCHMARKS.md has the figures).
 *
 * A package may be bundled only when nothing left in node_modules imports it at run time too, or it would load twice:
 * typebox, image-size, jose, csv-parse, csv-stringify and helmet are imported by Storelink alone; pg-boss too;
 * drizzle-orm by Storelink and pg-boss; rrule-temporal, serialize-error, non-error and the OpenTelemetry API by pg-boss
 * alone. cron-parser stays out: it is CommonJS and requires luxon, which the job engine reaches at run time to give it
 * its locale (src/lib/jobs.ts), so both must be the copies in node_modules. test/server/bundle.test.ts runs the bundle.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BuildOptions, Metafile, Plugin } from 'esbuild';

export const BUNDLED = new Set([
  'typebox',
  'image-size',
  'pg-boss',
  'rrule-temporal',
  'serialize-error',
  'non-error',
  '@opentelemetry/api',
  'drizzle-orm',
  'jose',
  'csv-parse',
  'csv-stringify',
  'helmet',
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

/** The esbuild options of the server bundle; test/server/cron-locale.test.ts builds its scenario with them too. */
export const serverBundleOptions: BuildOptions = {
  bundle: true,
  splitting: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  plugins: [bundledPackagesOnly],
  logLevel: 'warning',
};

/**
 * The packages the bundle leaves to node_modules (from esbuild's metafile) that depend, directly or through their own
 * dependencies, on a package of BUNDLED: each would load a second copy of it. Empty when the rule above holds.
 */
export function bundledAlsoLoadedOutside(metafile: Metafile, root = '.'): string[] {
  const external = new Set<string>();
  for (const output of Object.values(metafile.outputs))
    for (const imported of output.imports)
      if (imported.external && !imported.path.startsWith('node:')) external.add(packageOf(imported.path));
  const manifest = (name: string, from: string | null): { dir: string; dependencies: string[] } | null => {
    for (const dir of [...(from ? [join(from, 'node_modules', name)] : []), join(root, 'node_modules', name)]) {
      if (!existsSync(join(dir, 'package.json'))) continue;
      const json = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
      return { dir, dependencies: Object.keys({ ...json.dependencies, ...json.peerDependencies }) };
    }
    return null;
  };
  const problems: string[] = [];
  for (const name of external) {
    const seen = new Set<string>();
    const walk = (pkg: string, from: string | null, path: string[]) => {
      const found = manifest(pkg, from);
      if (!found || seen.has(found.dir)) return;
      seen.add(found.dir);
      for (const dependency of found.dependencies) {
        if (BUNDLED.has(dependency)) problems.push(`${[...path, dependency].join(' -> ')}`);
        else walk(dependency, found.dir, [...path, dependency]);
      }
    };
    walk(name, null, [name]);
  }
  return problems;
}
