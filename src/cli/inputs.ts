/**
 * The CLI's values checked by the API's own rules and messages (POST /auth/register, POST /personal-access-tokens),
 * since no route schema runs here. The field schemas are the routes' own.
 */
import type { ErrorObject } from 'ajv';
import Type, { type TSchema } from 'typebox';
import { PAT_EXPIRY_DAYS, type PatExpiryDays } from '../core/auth/tokens.service.js';
import { EmailField, NameField, PasswordField } from '../http/schemas.js';
import { toFieldErrors, validatorCompiler } from '../http/validation.js';
import { CliError } from './args.js';

const UserIdentity = Type.Object({ email: EmailField, name: NameField });
const UserPassword = Type.Object({ password: PasswordField });
const TokenName = Type.Object({ name: NameField });

/** `--email` and `--name` of user:create. */
export function checkUserIdentity(options: Readonly<Record<string, string>>): { email: string; name: string } {
  const input = { email: options.email ?? '', name: options.name ?? '' };
  check('user:create', UserIdentity, input);
  return input;
}

/** The password read from standard input, by the rules of registration (the common-password list is the service's). */
export function checkPassword(password: string, command: 'user:create' | 'user:reset-password' = 'user:create'): string {
  check(command, UserPassword, { password });
  return password;
}

/** `--email` of user:reset-password, trimmed as the look-up trims it. */
export function checkResetEmail(options: Readonly<Record<string, string>>): string {
  const email = (options.email ?? '').trim();
  if (email === '') throw new CliError('storelink user:reset-password: --email needs a value.');
  return email;
}

/** `--email`, `--name` and `--expires-in-days` of token:create; no `--expires-in-days` means the token never expires. */
export function checkTokenRequest(options: Readonly<Record<string, string>>): {
  email: string;
  name: string;
  expiresInDays: PatExpiryDays;
} {
  const name = options.name ?? '';
  check('token:create', TokenName, { name });
  return { email: (options.email ?? '').trim(), name: name.trim(), expiresInDays: parseExpiresInDays(options['expires-in-days']) };
}

function parseExpiresInDays(raw: string | undefined): PatExpiryDays {
  if (raw === undefined) return null;
  const days = PAT_EXPIRY_DAYS.find((allowed) => String(allowed) === raw);
  if (days === undefined) {
    throw new CliError(
      `storelink token:create: --expires-in-days must be one of ${PAT_EXPIRY_DAYS.join(', ')} (got "${raw}"); leave it out for a token that never expires.`,
    );
  }
  return days;
}

/** Throws a CliError with one line per message when `value` breaks `schema`. */
function check(command: string, schema: TSchema, value: object): void {
  const validate = validatorCompiler({ schema, method: 'POST', url: `cli:${command}`, httpPart: 'body' });
  if (validate(value) === true) return;
  // Fastify types the errors loosely; the compiler is Ajv's, so they are Ajv's ErrorObjects.
  const fields = toFieldErrors((validate.errors ?? []) as unknown as ErrorObject[], 'body');
  throw new CliError(
    Object.values(fields)
      .flat()
      .map((message) => `storelink ${command}: ${message}`)
      .join('\n'),
  );
}
