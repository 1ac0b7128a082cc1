/** The server: reads the environment, opens and migrates the database, listens, and closes cleanly on SIGINT/SIGTERM. */
import { buildApp } from './app.js';
import { createDeps } from './deps.js';
import { configOrExit, migratedDatabaseOrExit } from './startup.js';

const { config, logger } = configOrExit(process.env);
const database = await migratedDatabaseOrExit(config);
const deps = createDeps(config, { database, logger });
const app = await buildApp(deps);

let closing = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, async () => {
    if (closing) return;
    closing = true;
    logger.info({ signal }, 'shutting down');
    await app.close();
    await deps.close();
    await database.close();
    process.exit(0);
  });
}

await app.listen({ port: config.port, host: config.host });
logger.info(`Storelink API at ${config.appUrl}/api/v1 (database: ${database.kind})`);
