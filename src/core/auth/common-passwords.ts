/**
 * Passwords found in a list of common ones are refused at sign-up, at a change and at an operator's reset (ASVS 5.0
 * 6.2.4, NIST SP 800-63B §3.1.1.2; red-team M7). The list is the `passwords-common` dictionary of
 * `@zxcvbn-ts/language-common` (about 49,000 passwords ranked by frequency in leaked-password corpora, lower-case),
 * maintained upstream rather than typed here; docs/decisions.md, "Accounts", says why this one.
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import type { FieldErrors } from '../../errors.js';

export const COMMON_PASSWORD_MESSAGE = 'This password is too common: choose another.';

/**
 * The list sorted and joined into one string, with where each entry starts (one more than there are entries: the end).
 * About 0.6 MB for the life of the server, where the package's module (which a server could never unload) and a set of
 * its 49,233 strings held 3.7 MB.
 */
interface SortedList {
  readonly text: string;
  readonly starts: Uint32Array;
}

export function sortedList(words: readonly string[]): SortedList {
  const sorted = [...new Set(words)].sort();
  const starts = new Uint32Array(sorted.length + 1);
  let at = 0;
  sorted.forEach((word, i) => {
    starts[i] = at;
    at += word.length + 1;
  });
  starts[sorted.length] = at;
  return { text: sorted.join('\n'), starts };
}

/** Binary search, comparing as `sort()` ordered (by UTF-16 code units). */
export function listIncludes({ text, starts }: SortedList, word: string): boolean {
  let low = 0;
  let high = starts.length - 2;
  while (low <= high) {
    const middle = (low + high) >>> 1;
    const entry = text.slice(starts[middle], starts[middle + 1]! - 1);
    if (entry === word) return true;
    if (entry < word) low = middle + 1;
    else high = middle - 1;
  }
  return false;
}

let commonPasswords: Promise<SortedList> | null = null;

/**
 * Read on first use, not at start-up, from the JSON file the package ships (`src/passwords.json`, the source of the
 * dictionary its module unpacks, entry for entry the same): the parsed array is garbage once the sorted list is made.
 */
function list(): Promise<SortedList> {
  commonPasswords ??= (async () => {
    const file = createRequire(import.meta.url).resolve('@zxcvbn-ts/language-common/src/passwords.json');
    return sortedList(JSON.parse(await readFile(file, 'utf8')) as string[]);
  })();
  return commonPasswords;
}

/**
 * Whether the password is on the list, compared as it is hashed (NFKC) and without regard to case: `Password1` is
 * as guessable as `password1`.
 */
export async function isCommonPassword(password: string): Promise<boolean> {
  return listIncludes(await list(), password.normalize('NFKC').toLowerCase());
}

/** What a new password breaks beyond its length (which the route schemas and the CLI's checks enforce): `{}` when none. */
export async function newPasswordErrors(password: string): Promise<FieldErrors> {
  return (await isCommonPassword(password)) ? { password: [COMMON_PASSWORD_MESSAGE] } : {};
}
