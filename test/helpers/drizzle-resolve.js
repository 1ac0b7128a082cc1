/**
 * Loaded by `npm test` beside tsx (`--import`), in each test file's process: resolves the relative imports between
 * drizzle-orm's own ES modules without Node's resolver, which spent about half a second of CPU in every test process
 * on them (0.45 to 0.6 s of the 1.9 to 2.1 s that importing test/helpers/test-app.ts took, Node 24.21).
 *
 * Why: for each `.js` file it resolves, Node 24's ESM resolver reads the package's type through
 * `getPackageScopeConfig`, which spreads the package.json it has cached and so parses the whole `exports` map again
 * (package_json_reader.js; the map is read lazily, by a getter the spread calls). drizzle-orm's package.json is 178 KB,
 * nearly all `exports`, and a test process resolves some 440 imports between the 112 of its files it loads: 0.4 s in
 * JSON.parse and 0.1 s more collecting the copies. No other package here has a package.json over 40 KB.
 *
 * What it answers is what Node would: a relative `.js` specifier inside drizzle-orm, a package of `"type": "module"`
 * with no package.json below its own, names that file as an ES module. Anything else goes on to tsx and Node. The
 * server's bundle (dist/server) compiles drizzle-orm in, so `npm start` never meets this.
 *
 * Plain JavaScript, like the area-times reporter beside it: it needs no loader, so `--import` takes it in any place.
 */
// @ts-check
import { readFileSync } from 'node:fs';
import { registerHooks } from 'node:module';

const root = new URL('./', import.meta.resolve('drizzle-orm')).href;
const { type } = JSON.parse(readFileSync(new URL('package.json', root), 'utf8'));

if (type === 'module') {
  registerHooks({
    resolve(specifier, context, nextResolve) {
      if (context.parentURL?.startsWith(root) && /^\.\.?\/.*\.js$/.test(specifier)) {
        const url = new URL(specifier, context.parentURL).href;
        if (url.startsWith(root)) return { url, format: 'module', shortCircuit: true };
      }
      return nextResolve(specifier, context);
    },
  });
}
