/**
 * Passwords found in a list of common ones are refused at sign-up, at a change and at an operator's reset (ASVS 5.0
 * 6.2.4, NIST SP 800-63B §3.1.1.2; red-team M7). The list is the `passwords-common` dictionary of
 * `@zxcvbn-ts/language-common` (about 49,000 passwords ranked by frequency in leaked-password corpora, lower-case),
 * maintained upstream rather than typed here; docs/decisions.md, "Accounts", says why this one.
 */
import type { FieldErrors } from '../../errors.js';

export const COMMON_PASSWORD_MESSAGE = 'This password is too common: choose another.';

let commonPasswords: Promise<ReadonlySet<string>> | null = null;

/**
 * Loaded on first use, not at start-up (the package unpacks its dictionaries when imported, some 40 ms), then kept as a
 * set, which answers a look-up in constant time.
 */
function list(): Promise<ReadonlySet<string>> {
  commonPasswords ??= import('@zxcvbn-ts/language-common').then(({ dictionary }) => new Set(dictionary['passwords-common']));
  return commonPasswords;
}

/**
 * Whether the password is on the list, compared as it is hashed (NFKC) and without regard to case: `Password1` is
 * as guessable as `password1`.
 */
export async function isCommonPassword(password: string): Promise<boolean> {
  return (await list()).has(password.normalize('NFKC').toLowerCase());
}

/** What a new password breaks beyond its length (which the route schemas and the CLI's checks enforce): `{}` when none. */
export async function newPasswordErrors(password: string): Promise<FieldErrors> {
  return (await isCommonPassword(password)) ? { password: [COMMON_PASSWORD_MESSAGE] } : {};
}
