/** Start-up steps shared by the server (main.ts) and the operator CLI (cli.ts): each bad setting is one line on stderr and exit code 1. */
import type { Logger } from 'pino';
import { type Config, ConfigError, loadConfig } from './config.js';
import { type Database, type DatabaseTarget, openDatabase } from './db/client.js';
import { DataDirInUseError } from './db/data-dir-lock.js';
import { createLogger, describeError } from './logger.js';
import { type ResolvedConfig, resolveSecrets } from './secrets.js';

export function fail(lines: readonly string[]): never {
  for (const line of lines) process.stderr.write(`${line}\n`);
  process.exit(1);
}

export interface StartupOptions {
  /** Builds the logger once the config is known; the server's default writes JSON to stdout, the CLI's writes to stderr. */
  createLogger?: (config: Config) => Logger;
}

/** Config from the environment, with secrets resolved; exits 1 with one line per bad field. */
export function configOrExit(env: NodeJS.ProcessEnv, options: StartupOptions = {}): { config: ResolvedConfig; logger: Logger } {
  try {
    const config: Config = loadConfig(env);
    const logger = (options.createLogger ?? createLogger)(config);
    return { config: resolveSecrets(config, (message) => logger.warn(message)), logger };
  } catch (error) {
    if (error instanceof ConfigError) fail(['Storelink cannot start: invalid configuration', ...error.problems]);
    throw error;
  }
}

export function databaseTarget(config: Config): DatabaseTarget {
  return config.databaseUrl ? { kind: 'postgres', url: config.databaseUrl } : { kind: 'pglite', dataDir: config.dataDir };
}

/**
 * The database, migrated; exits 1 naming DATABASE_URL (without its password) when it cannot be reached, or naming
 * DATA_DIR when another process holds the embedded database.
 */
export async function migratedDatabaseOrExit(config: Config, logger?: Logger): Promise<Database> {
  let database: Database;
  try {
    database = await openDatabase(databaseTarget(config), {
      timeoutMs: config.databaseTimeoutMs,
      warn: (message, error) => logger?.warn(error === undefined ? {} : { err: describeError(error) }, message),
    });
  } catch (error) {
    if (error instanceof DataDirInUseError) fail([error.message]);
    const reason = (error as { code?: string }).code ?? (error as Error).message;
    fail([
      config.databaseUrl
        ? `DATABASE_URL: cannot connect to ${withoutPassword(config.databaseUrl)} (${reason})`
        : `DATA_DIR: cannot open the embedded database in ${config.dataDir} (${reason})`,
    ]);
  }
  try {
    await database.migrate();
  } catch (error) {
    await database.close().catch(() => {});
    fail([
      `${config.databaseUrl ? 'DATABASE_URL' : 'DATA_DIR'}: the database migrations could not be applied (${(error as Error).message.split('\n')[0]})`,
    ]);
  }
  return database;
}

function withoutPassword(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return 'the configured URL';
  }
}
