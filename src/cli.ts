/**
 * The operator CLI (`npx storelink …`, through bin/storelink.js): the server's configuration, database and services,
 * driven from the command line. Results go to stdout; notes, logs and errors to stderr. Usage: cli/usage.ts.
 */
import { CliError, parseCommandLine } from './cli/args.js';
import { USAGE } from './cli/usage.js';

process.exitCode = await main(process.argv.slice(2), process.env).catch(report);

/** 0, or 1 for any problem (bad settings and an unreachable database exit 1 from startup.ts themselves). */
async function main(args: readonly string[], env: NodeJS.ProcessEnv): Promise<number> {
  const commandLine = parseCommandLine(args);
  if (commandLine.command === 'help') {
    process.stdout.write(USAGE);
    return 0;
  }
  // Loaded only now, so that help and usage errors answer without loading the database drivers and the services.
  const { runCommand } = await import('./cli/run.js');
  await runCommand(commandLine.command, commandLine.options, env);
  return 0;
}

function report(error: unknown): number {
  const message =
    error instanceof CliError ? error.message : `storelink: failed: ${error instanceof Error ? error.message : String(error)}`;
  process.stderr.write(`${message}\n`);
  return 1;
}
