/** The usage text of `storelink --help`. */
export const USAGE = `Usage: storelink <command> [options]

Operator commands for Storelink. They read the same environment as the server (DATABASE_URL, DATA_DIR,
APP_SECRET, ENCRYPTION_KEY, ...) and apply any pending migrations before they run.

Commands:
  migrate
      Apply the database migrations.
  user:create --email <email> --name <name>
      Create a user with a workspace of their own, as its owner. The password is the first line of
      standard input; on a terminal it is prompted for. Rules as for sign-up: a valid email not yet
      taken, a password of 8 to 256 characters not in a list of common passwords, a name of 1 to 100
      characters.
      Prints: Created user id=<id> email=<email> workspace_id=<id>
  user:reset-password --email <email>
      Set a new password for that user, who has forgotten theirs (no e-mail is ever sent). The new
      password is read as for user:create, by the same rules (8 to 256 characters, not in a list of
      common passwords). Every session of the user ends; their personal access tokens are kept.
      Prints: Password reset for user id=<id> email=<email>; sessions ended: <n>
  token:create --email <email> --name <name> [--expires-in-days 7|30|60|90|365]
      Create a personal access token for that user and print it alone on standard output; it is
      shown this once. Without --expires-in-days the token never expires.
  sandbox:reset
      Empty the sandbox: every simulated shop's listings, products, orders and ads, kept across
      restarts (SANDBOX_PERSIST), are forgotten. Stop the server first: a running one keeps them in
      memory and saves them again.
      Prints: Sandbox state emptied (<n> saved parts removed)
  help, --help, -h
      Show this text (so does running storelink with no command).

Examples:
  npx storelink migrate
  printf '%s\\n' "$PASSWORD" | npx storelink user:create --email ops@example.com --name Ops
  npx storelink user:reset-password --email ops@example.com      # prompts for the new password
  TOKEN=$(npx storelink token:create --email ops@example.com --name deploy --expires-in-days 30)
  npx storelink sandbox:reset

Exit status: 0 on success. 1 on any error (unknown command or option, a missing or invalid value,
an unknown or already taken email, a refused password, a bad setting, an unreachable database),
with one line per problem on standard error.

Logs go to standard error, at level warn unless LOG_LEVEL is set. With the embedded database
(no DATABASE_URL), stop the server first: PGlite allows one process at a time.
`;
