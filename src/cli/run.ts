/** Runs one database command with the server's configuration, database and services; loaded only once the command line is valid. */
import pino from 'pino';
import type { Config } from '../config.js';
import { createDeps, type Deps } from '../deps.js';
import { createLogger } from '../logger.js';
import { configOrExit, migratedDatabaseOrExit } from '../startup.js';
import { CliError, type CommandName } from './args.js';
import { createToken, createUser, type Output, reportMigrated, resetPassword, resetSandbox } from './commands.js';
import { checkPassword, checkResetEmail, checkTokenRequest, checkUserIdentity } from './inputs.js';
import { readPassword } from './password.js';

const output: Output = {
  out: (line) => void process.stdout.write(`${line}\n`),
  note: (line) => void process.stderr.write(`${line}\n`),
};

/** Config (a bad setting exits 1 in startup.ts), the command's inputs, then the migrated database; always closes it. */
export async function runCommand(command: CommandName, options: Readonly<Record<string, string>>, env: NodeJS.ProcessEnv): Promise<void> {
  const { config, logger } = configOrExit(env, { createLogger: stderrLogger(env) });
  const run = await prepare(command, options);
  const database = await migratedDatabaseOrExit(config, logger);
  const deps = createDeps(config, { database, logger });
  try {
    await run(deps);
  } finally {
    await deps.close();
    await database.close();
  }
}

/** Checks the command's inputs, reading the password of user:create and user:reset-password, before the database is opened. */
async function prepare(command: CommandName, options: Readonly<Record<string, string>>): Promise<(deps: Deps) => Promise<void>> {
  switch (command) {
    case 'migrate':
      return async (deps) => reportMigrated(deps, output);
    case 'user:create': {
      const identity = checkUserIdentity(options);
      const password = await readPassword();
      if (password === null)
        throw new CliError(
          'storelink user:create: no password given: pipe it as the first line of standard input, or type it at the prompt.',
        );
      const input = { ...identity, password: checkPassword(password) };
      return (deps) => createUser(deps, output, input);
    }
    case 'user:reset-password': {
      const email = checkResetEmail(options);
      const password = await readPassword();
      if (password === null)
        throw new CliError(
          'storelink user:reset-password: no password given: pipe the new one as the first line of standard input, or type it at the prompt.',
        );
      const input = { email, password: checkPassword(password, 'user:reset-password') };
      return (deps) => resetPassword(deps, output, input);
    }
    case 'token:create': {
      const input = checkTokenRequest(options);
      return (deps) => createToken(deps, output, input);
    }
    case 'sandbox:reset':
      return (deps) => resetSandbox(deps, output);
  }
}

/** Logs never share stdout with results: stderr, at level warn unless LOG_LEVEL asks otherwise. */
function stderrLogger(env: NodeJS.ProcessEnv) {
  return (config: Config) => createLogger({ logLevel: env.LOG_LEVEL ? config.logLevel : 'warn' }, pino.destination({ fd: 2, sync: true }));
}
