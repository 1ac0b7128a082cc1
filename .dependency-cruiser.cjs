// Import boundaries of src/ and web/src/ (docs/lint.md has the table and the reasons).
// Run with `npm run lint`; paths are relative to the repository root.
//
// dependency-cruiser reads TypeScript with the TypeScript compiler API (typescript < 7 only) or with @swc/core.
// TypeScript 7 has no compiler API, so without @swc/core every .ts file is skipped and the check would pass on
// nothing ("0 modules cruised"). Refuse to run instead of passing vacuously.
const tsParser = (() => {
  try {
    require.resolve('@swc/core');
    return 'swc';
  } catch {}
  try {
    if (Number(require('typescript/package.json').version.split('.')[0]) < 7) return 'tsc';
  } catch {}
  return null;
})();
if (!tsParser) {
  throw new Error(
    'dependency-cruiser cannot read .ts files here: it needs @swc/core (or typescript < 7) and this project has typescript 7. ' +
      'Install it with `npm install --save-dev @swc/core@^1`; until then the import-boundary check would check nothing.',
  );
}

const server = (folder) => `^src/${folder}/`;

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'Import cycles make load order matter and hide the layering; break the cycle by moving the shared part down.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'not-to-unresolvable',
      severity: 'error',
      comment: 'An import that cannot be resolved is a typo, a missing package, or a file that moved.',
      from: {},
      to: { couldNotResolve: true },
    },
    {
      name: 'domain-is-vocabulary',
      severity: 'error',
      comment: 'src/domain is the shared vocabulary: it imports nothing from src/ but itself.',
      from: { path: server('domain') },
      to: { path: '^src/', pathNot: server('domain') },
    },
    {
      name: 'lib-has-no-domain',
      severity: 'error',
      comment: 'src/lib is infrastructure without domain knowledge: only src/lib and src/errors.ts (and npm packages).',
      from: { path: server('lib') },
      to: { path: '^src/', pathNot: [server('lib'), '^src/errors\\.ts$'] },
    },
    {
      name: 'http-not-to-storage',
      severity: 'error',
      comment: 'Routes reach storage only through services (src/core): src/http imports nothing from src/db.',
      from: { path: server('http') },
      to: { path: server('db') },
    },
    {
      name: 'http-not-to-adapters',
      severity: 'error',
      comment: 'Routes reach platforms and simulators only through services: src/http imports no src/platforms or src/sandbox.',
      from: { path: server('http') },
      to: { path: [server('platforms'), server('sandbox')] },
    },
    {
      name: 'http-not-to-composition-root',
      severity: 'error',
      comment:
        'Routes get the services they use from app.ts, not the whole container: src/http imports neither src/deps.ts nor src/app.ts.',
      from: { path: server('http') },
      to: { path: ['^src/deps\\.ts$', '^src/app\\.ts$'] },
    },
    {
      name: 'core-no-http',
      severity: 'error',
      comment: 'Services and rules know no HTTP: src/core imports no src/http, src/app.ts or src/sandbox.',
      from: { path: server('core') },
      to: { path: [server('http'), server('sandbox'), '^src/app\\.ts$'] },
    },
    {
      name: 'core-no-fastify',
      severity: 'error',
      comment: 'Services and rules know no HTTP framework: src/core imports neither fastify nor @fastify/*.',
      from: { path: server('core') },
      to: { path: '(^|/)node_modules/(fastify|@fastify/[^/]+)/' },
    },
    {
      name: 'core-only-platform-contracts',
      severity: 'error',
      comment:
        "Services reach platforms through the contracts and the registry only, so a platform's quirks stay in its folder: src/core imports nothing from src/platforms/<platform>/ (src/platforms/contracts/ and src/platforms/*.ts are allowed).",
      from: { path: server('core') },
      to: { path: '^src/platforms/[^/]+/', pathNot: '^src/platforms/contracts/' },
    },
    {
      name: 'platforms-only-domain-and-lib',
      severity: 'error',
      comment:
        'Adapters depend on the vocabulary and infrastructure only (they have their own PlatformError): src/platforms imports only src/platforms, src/domain and src/lib.',
      from: { path: server('platforms') },
      to: { path: '^src/', pathNot: [server('platforms'), server('domain'), server('lib')] },
    },
    {
      name: 'sandbox-imports-no-adapter',
      severity: 'error',
      comment:
        'The simulators stand in for the platforms, so they must not share code with the adapters that call them: src/sandbox imports no src/platforms, src/http, src/core or src/db.',
      from: { path: server('sandbox') },
      to: { path: [server('platforms'), server('http'), server('core'), server('db')] },
    },
    {
      name: 'db-is-the-bottom',
      severity: 'error',
      comment: 'Storage is called, it calls nothing above it: src/db imports no src/http, src/core, src/platforms or src/sandbox.',
      from: { path: server('db') },
      to: { path: [server('http'), server('core'), server('platforms'), server('sandbox')] },
    },
    {
      name: 'web-serving-not-to-db',
      severity: 'error',
      comment: 'src/web only serves the built dashboard: it imports nothing from src/db.',
      from: { path: server('web') },
      to: { path: server('db') },
    },
    {
      name: 'dashboard-not-to-server',
      severity: 'error',
      comment:
        'The dashboard (web/) talks to the server through its typed API client (web/src/api) only: it imports no server code from src/.',
      from: { path: '^web/' },
      to: { path: '^src/' },
    },
    {
      name: 'server-not-to-tests',
      severity: 'error',
      comment: 'Production code does not import tests, the bench or scripts.',
      from: { path: '^src/' },
      to: { path: '^(test|bench|scripts)/' },
    },
    {
      name: 'server-not-to-dev-dependencies',
      severity: 'error',
      comment:
        'src/ runs from a production install: it may not import devDependencies (the swc parser does not tell type-only imports apart, so they count too).',
      from: { path: '^src/' },
      to: { dependencyTypes: ['npm-dev'] },
    },
  ],
  options: {
    parser: tsParser,
    // Type-only imports count: a route importing a row type from src/db still depends on storage. (The swc parser
    // always reports them, as plain imports.)
    tsPreCompilationDeps: true,
    moduleSystems: ['es6', 'cjs'],
    doNotFollow: { path: 'node_modules' },
    // dependency-cruiser's swc parser reads TypeScript without JSX, so .tsx files cannot be cruised; the dashboard's
    // "no server code" boundary is also enforced for them by Biome (noRestrictedImports on web/**, see biome.json).
    exclude: { path: ['^src/db/migrations/', '^web/src/api/openapi\\.json$', '\\.tsx$'] },
    // Sources import `./x.js` that is `./x.ts` (NodeNext): dependency-cruiser maps .js to .ts/.tsx/.d.ts itself when the
    // .js file does not exist. tsconfig.json has no `paths`, so no tsConfig option is needed (reading it would need the
    // typescript < 7 compiler API anyway).
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      extensions: ['.ts', '.tsx', '.d.ts', '.js', '.mjs', '.cjs', '.json'],
      conditionNames: ['import', 'require', 'node', 'types', 'default'],
      mainFields: ['module', 'main', 'types', 'typings'],
    },
    reporterOptions: {
      text: { highlightFocused: true },
    },
  },
};
