/**
 * What a new password must not be, beyond its length (which the route schemas and the CLI's checks enforce): checked
 * at sign-up (the API and `storelink user:create`), at a change and at an operator's reset. Each broken rule is one
 * message on `password`. docs/decisions.md, "Accounts", says why each.
 */
import type { FieldErrors } from '../../errors.js';
import { COMMON_PASSWORD_MESSAGE, isCommonPassword } from './common-passwords.js';

/** Characters other than white space a password needs: a password of spaces alone (or nearly) is no secret. */
export const PASSWORD_VISIBLE_MIN = 8;
export const BLANK_PASSWORD_MESSAGE = `The password must have at least ${PASSWORD_VISIBLE_MIN} characters other than spaces.`;
export const EMAIL_PASSWORD_MESSAGE = 'The password must not be the e-mail address, or the part of it before the @.';

/** Text as the rules compare it: as it is hashed (NFKC), without regard to case or surrounding white space. */
const folded = (text: string) => text.normalize('NFKC').trim().toLowerCase();

/** Whether the password is a word of the account itself (ASVS 5.0 6.2.11): its e-mail, contained, or the e-mail's name part. */
function isAccountWord(password: string, email: string): boolean {
  const guess = folded(password);
  const address = folded(email);
  const name = address.slice(0, Math.max(0, address.lastIndexOf('@')));
  return (address !== '' && guess.includes(address)) || (name !== '' && guess === name);
}

/** The messages a new password for the account with `email` earns on `password`: `{}` when none. */
export async function newPasswordErrors(password: string, email: string): Promise<FieldErrors> {
  const messages: string[] = [];
  if ([...password.replace(/\s/gu, '')].length < PASSWORD_VISIBLE_MIN) messages.push(BLANK_PASSWORD_MESSAGE);
  if (isAccountWord(password, email)) messages.push(EMAIL_PASSWORD_MESSAGE);
  if (await isCommonPassword(password)) messages.push(COMMON_PASSWORD_MESSAGE);
  return messages.length > 0 ? { password: messages } : {};
}
