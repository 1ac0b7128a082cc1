/**
 * Passwords found in a list of common ones are refused at sign-up, at a change and at an operator's reset (ASVS 5.0
 * 6.2.4, NIST SP 800-63B §3.1.1.2; red-team M7). The list is the `passwords-common` dictionary of
 * `@zxcvbn-ts/language-common` (about 49,000 passwords ranked by frequency in leaked-password corpora, lower-case),
 * maintained upstream rather than typed here; docs/decisions.md, "Accounts", says why this one.
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';

export const COMMON_PASSWORD_MESSAGE = 'This password is too common: choose another.';

let commonPasswords: Promise<ReadonlySet<string>> | null = null;

/**
 * Read on first use, not at start-up, from the JSON file the package ships (`src/passwords.json`, the source of the
 * dictionary its module unpacks, entry for entry the same), rather than through the package's module, which a server
 * could never unload. A set of its 49,233 strings holds about 2 MB more heap for the life of the server than the sorted
 * string searched by halves it replaced, under what a piece of tuning must save (BENCHMARKS.md, "The tuning, piece by
 * piece").
 */
function list(): Promise<ReadonlySet<string>> {
  commonPasswords ??= (async () => {
    const file = createRequire(import.meta.url).resolve('@zxcvbn-ts/language-common/src/passwords.json');
    return new Set(JSON.parse(await readFile(file, 'utf8')) as string[]);
  })();
  return commonPasswords;
}

/**
 * Whether the password is on the list, compared as it is hashed (NFKC) and without regard to case: `Password1` is
 * as guessable as `password1`.
 */
export async function isCommonPassword(password: string): Promise<boolean> {
  return (await list()).has(password.normalize('NFKC').toLowerCase());
}
