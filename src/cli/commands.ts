/** What each CLI command does once the database is open: the same services as the API, results as plain lines. */
import type { PatExpiryDays } from '../core/auth/tokens.service.js';
import type { Deps } from '../deps.js';
import { AppError } from '../errors.js';
import { CliError } from './args.js';

/** Where a command writes: `out` is the result (stdout, for scripts), `note` is for the operator (stderr). */
export interface Output {
  out(line: string): void;
  note(line: string): void;
}

/** migratedDatabaseOrExit has already applied them by the time a command runs: this only reports it. */
export function reportMigrated(deps: Deps, output: Output): void {
  output.out(`Migrations applied (${deps.database.kind})`);
}

/** A user with a workspace of their own, as its owner: the API's createUser, so the same rules hold. */
export async function createUser(deps: Deps, output: Output, input: { email: string; name: string; password: string }): Promise<void> {
  const { user, workspace } = await deps.accounts.createUser(input).catch(rethrowFieldErrors('user:create'));
  output.out(`Created user id=${user.id} email=${user.email} workspace_id=${workspace.id}`);
}

/**
 * A new password for the user with that email, by the rules of sign-up (the common-password list included): the
 * service's resetPassword, which ends all the user's sessions and keeps their personal access tokens.
 */
export async function resetPassword(deps: Deps, output: Output, input: { email: string; password: string }): Promise<void> {
  const reset = await deps.accountSettings.resetPassword(input.email, input.password).catch(rethrowFieldErrors('user:reset-password'));
  if (!reset) throw new CliError(`storelink user:reset-password: no user has the email ${input.email}.`);
  const { user, sessionsEnded } = reset;
  output.out(`Password reset for user id=${user.id} email=${user.email}; sessions ended: ${sessionsEnded}`);
  output.note('Personal access tokens are kept: revoke any that may be known to someone else from the dashboard.');
}

/** A personal access token for the user with that email; the value alone goes to stdout, since it is shown only once. */
export async function createToken(
  deps: Deps,
  output: Output,
  input: { email: string; name: string; expiresInDays: PatExpiryDays },
): Promise<void> {
  const user = await deps.accounts.findUserByEmail(input.email);
  if (!user) throw new CliError(`storelink token:create: no user has the email ${input.email}.`);
  const { token, record } = await deps.tokens.createPersonalToken(user.id, { name: input.name, expiresInDays: input.expiresInDays });
  output.out(token);
  const expiry = record.expiresAt ? `expires ${record.expiresAt.toISOString()}` : 'never expires';
  output.note(`Personal access token "${input.name}" (id ${record.id}) for ${user.email}, ${expiry}. It is shown this once: store it now.`);
}

/**
 * Empties the simulators' saved state (every listing, product, order and ad of every sandbox shop, and the sandbox's
 * revocations): the next server starts with empty sandbox shops. A running server still holds its state in memory
 * and saves it again after its next sandbox request, so stop it first (usage.ts says so).
 */
export async function resetSandbox(deps: Deps, output: Output): Promise<void> {
  const parts = await deps.resetSandboxState();
  output.out(`Sandbox state emptied (${parts} saved part${parts === 1 ? '' : 's'} removed)`);
}

/** The service's 422s (e.g. "The email has already been taken.") become CLI errors, one line per message. */
function rethrowFieldErrors(command: string) {
  return (error: unknown): never => {
    if (error instanceof AppError && error.fields) {
      throw new CliError(
        Object.values(error.fields)
          .flat()
          .map((message) => `storelink ${command}: ${message}`)
          .join('\n'),
      );
    }
    throw error;
  };
}
