/**
 * The server: reads the environment, opens and migrates the database, listens, and on SIGINT/SIGTERM closes within
 * SHUTDOWN_TIMEOUT_MS (docs/background-jobs.md, "Shutdown").
 */
import module from 'node:module';
import { processProbe, trimWhenIdle } from './lib/idle-memory.js';
import { createLogger, describeError, serverLogDestination } from './logger.js';
import { configOrExit, migratedDatabaseOrExit } from './startup.js';

// V8's compiled code for the modules loaded from here on (the service, its dependencies) is kept on disk, in the
// system's temporary directory, and used by the next start while the files are unchanged: a start loads them in 0.3 s
// instead of 0.4. Node 22.1 and later; an older Node starts without it.
(module as { enableCompileCache?: () => unknown }).enableCompileCache?.();

// Each step of the start is timed and the times logged once running: what a slow start spent its time on. Each is
// the difference of rounded marks from the start, so the steps add up to the whole (the start to the last mark) exactly.
const startedAt = performance.now();
const steps: string[] = [];
let stepMs = 0;
const step = (name: string) => {
  const now = Math.round(performance.now() - startedAt);
  steps.push(`${name} ${now - stepMs} ms`);
  stepMs = now;
};

const { config, logger } = configOrExit(process.env, {
  createLogger: (config) => createLogger(config, serverLogDestination(config)),
});
// pg-boss 12 and two more dependencies declare Node 22.12 or later, and the suite runs on 24 LTS (README, "Node.js"):
// an older Node is run, as npm installed on it with a warning, but not supported.
const [major = 0, minor = 0] = process.versions.node.split('.').map(Number);
if (major < 22 || (major === 22 && minor < 12))
  logger.warn(
    `Node.js ${process.versions.node} is older than Storelink supports (22.12 or later; 24 LTS recommended): ` +
      'run it with Node 24, for example `npx -y node@24 dist/server/main.js`',
  );
// Loaded after the configuration is known good, so a bad setting is reported at once.
const [{ buildApp }, { createDeps }] = await Promise.all([import('./app.js'), import('./deps.js')]);
step('modules');
const database = await migratedDatabaseOrExit(config, logger);
step('database');
const deps = createDeps(config, { database, logger });
const app = await buildApp(deps);
step('routes');
await deps.watchAuthChanges();
await deps.start();
step('jobs');

/**
 * Stops accepting connections and waits for the requests in flight. Node closes only the connections idle when close()
 * is called: a keep-alive connection whose request was in flight would stay open once answered, holding close() up
 * for KEEP_ALIVE_TIMEOUT_MS, so idle ones are closed again until none is left.
 */
async function closeHttp(): Promise<void> {
  const reaper = setInterval(() => app.server.closeIdleConnections(), 100);
  try {
    await app.close();
  } finally {
    clearInterval(reaper);
  }
}

let closing = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, async () => {
    if (closing) return;
    closing = true;
    logger.info({ signal }, 'shutting down');
    // The bound of last resort: what still runs then is cut off. Jobs not recorded as done are retried, so nothing
    // accepted is lost; an HTTP request still in flight loses its answer.
    const deadline = setTimeout(() => {
      logger.error({ timeoutMs: config.shutdownTimeoutMs }, 'shutdown did not finish in time; exiting');
      process.exit(1);
    }, config.shutdownTimeoutMs);
    deadline.unref();
    try {
      // The workers stop, and abort their calls, at the signal: beside the HTTP drain, not after it.
      await Promise.all([closeHttp(), deps.stopWork()]);
      await deps.close();
      await database.close();
    } catch (error) {
      logger.error({ err: describeError(error) }, 'shutdown failed');
      process.exit(1);
    }
    process.exit(0);
  });
}

await app.listen({ port: config.port, host: config.host });
step('listen');
await deps.startWorkers();
step('workers');
// Gives memory back to the system when the server falls idle after start-up or a burst of load (src/lib/idle-memory.ts).
trimWhenIdle(processProbe());
logger.info(
  `Storelink is running: dashboard at ${config.appUrl}, API at ${config.appUrl}/api/v1 ` +
    `(reference at ${config.appUrl}/api/v1/docs; database: ${database.kind}; ` +
    `started in ${stepMs} ms: ${steps.join(', ')})`,
);
