/** The server: reads the environment, opens and migrates the database, listens, and closes cleanly on SIGINT/SIGTERM. */
import { configOrExit, migratedDatabaseOrExit } from './startup.js';

const { config, logger } = configOrExit(process.env);
// Loaded after the configuration is known good, so a bad setting is reported at once.
const [{ buildApp }, { createDeps }] = await Promise.all([import('./app.js'), import('./deps.js')]);
const database = await migratedDatabaseOrExit(config);
const deps = createDeps(config, { database, logger });
const app = await buildApp(deps);
await deps.watchAuthChanges();
await deps.start();

let closing = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, async () => {
    if (closing) return;
    closing = true;
    logger.info({ signal }, 'shutting down');
    // Jobs still running after deps.close()'s wait are left to expire and run again elsewhere: nothing accepted is lost.
    await app.close();
    await deps.close();
    await database.close();
    process.exit(0);
  });
}

await app.listen({ port: config.port, host: config.host });
await deps.startWorkers();
logger.info(`Storelink API at ${config.appUrl}/api/v1 (database: ${database.kind})`);
