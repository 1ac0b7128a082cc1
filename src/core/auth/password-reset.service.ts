/**
 * The password reset by e-mail (docs/e-mail.md): a request names an e-mail and is answered alike whether an account
 * has it; with SMTP_URL set, the account's owner is mailed a link (`/reset-password?token=…`) used once within the
 * hour, of which only the token's SHA-256 is kept. The new password is held to the sign-up rules and ends every
 * session of the account. Without SMTP_URL the operator's `storelink user:reset-password` stays the way.
 */
import { createHash, randomBytes } from 'node:crypto';
import * as accountsRepo from '../../db/accounts.repo.js';
import type { Db } from '../../db/client.js';
import * as resetsRepo from '../../db/password-resets.repo.js';
import { AppError, invalidField } from '../../errors.js';
import type { Clock } from '../../lib/clock.js';
import type { AccountSettingsService } from './account-settings.service.js';
import { newPasswordErrors } from './password-rules.js';

/** How long a reset link can be used. */
export const PASSWORD_RESET_TTL_MS = 3600_000;
export const INVALID_RESET_LINK = 'The reset link is invalid, has been used or has expired: ask for a new one.';

const hashOf = (token: string) => createHash('sha256').update(token).digest('hex');

export type PasswordResetService = ReturnType<typeof createPasswordResetService>;

export function createPasswordResetService(deps: {
  db: Db;
  clock: Clock;
  appUrl: string;
  accountSettings: Pick<AccountSettingsService, 'resetByLink'>;
  /** Mails a link to the account (or, for null, to no one: the request looks the same), or logs that no mail was sent. */
  mailResetLink: (userId: number | null) => Promise<void>;
}) {
  const { db, clock } = deps;
  return {
    /**
     * A reset asked for `email`. `beforeLookup` is given the e-mail as the account lookup folds it, and may refuse by
     * throwing (the per-e-mail limit); whether an account has the e-mail changes nothing the caller sees.
     */
    async request(email: string, beforeLookup: (key: string) => Promise<void>): Promise<void> {
      const { key, user } = await accountsRepo.findLoginAccount(db, email.trim());
      await beforeLookup(key);
      await deps.mailResetLink(user?.id ?? null);
    },

    /** A new link for the user, for their mail; null when the account is gone. */
    async issueLink(userId: number): Promise<{ email: string; url: string } | null> {
      const account = await accountsRepo.findPasswordAccount(db, userId);
      if (!account) return null;
      const token = randomBytes(32).toString('base64url');
      const now = clock.now();
      await resetsRepo.insertPasswordReset(
        db,
        { userId, tokenHash: hashOf(token), expiresAt: new Date(now.getTime() + PASSWORD_RESET_TTL_MS) },
        now,
      );
      return { email: account.user.email, url: `${deps.appUrl}/reset-password?token=${token}` };
    },

    /**
     * Sets the password the link's account gets: 422 on `token` for a link unknown, used or expired, on `password`
     * for one the sign-up rules refuse (the link then stays usable). Uses the link and every other of the account,
     * and ends all its sessions, in the transaction that sets the password.
     */
    async confirm(token: string, password: string, ipAddress: string | null): Promise<void> {
      const tokenHash = hashOf(token);
      const account = await resetsRepo.findResetAccount(db, tokenHash, clock.now());
      if (!account) throw invalidField('token', INVALID_RESET_LINK);
      const fields = await newPasswordErrors(password, account.email);
      if (Object.keys(fields).length > 0) throw new AppError('validation_failed', { fields });
      await deps.accountSettings.resetByLink(account.userId, password, ipAddress, async (tx) => {
        if (!(await resetsRepo.consumePasswordReset(tx, tokenHash, account.userId, clock.now())))
          throw invalidField('token', INVALID_RESET_LINK);
      });
    },
  };
}
