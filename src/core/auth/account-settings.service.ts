/**
 * A user's own account (issue 16, item 2): their name and password, and the operator's reset of a forgotten password.
 * A new password ends the user's other sessions; personal access tokens are kept (docs/decisions.md, "Accounts").
 */
import * as accountsRepo from '../../db/accounts.repo.js';
import * as auditRepo from '../../db/audit.repo.js';
import type { Db } from '../../db/client.js';
import * as tokensRepo from '../../db/tokens.repo.js';
import type { AuditAction } from '../../domain/index.js';
import { AppError } from '../../errors.js';
import type { Clock } from '../../lib/clock.js';
import type { PasswordHasher } from './accounts.service.js';
import type { AuthCache } from './auth-cache.js';
import { newPasswordErrors } from './password-rules.js';
import type { Principal } from './principal.js';
import type { SecurityEvents } from './security-events.js';

export const WRONG_CURRENT_PASSWORD_MESSAGE = 'The current password is incorrect.';

export type AccountSettingsService = ReturnType<typeof createAccountSettingsService>;

/** The user as GET /user shows them, without the workspace. */
export interface AccountUser {
  id: number;
  email: string;
  name: string;
}

export function createAccountSettingsService(deps: {
  db: Db;
  passwords: PasswordHasher;
  clock: Clock;
  cache: Pick<AuthCache, 'invalidate'>;
  security: Pick<SecurityEvents, 'loginFailed'>;
}) {
  const { db, passwords, clock, cache, security } = deps;

  /** Sets the password and ends the user's sessions but `keepJti`, audited in each of their workspaces; one transaction. */
  async function replacePassword(
    userId: number,
    password: string,
    keepJti: string | null,
    audit: { actorUserId: number | null; ipAddress: string | null; by: 'user' | 'operator' | 'reset_link' },
    claim?: (tx: Db) => Promise<void>,
  ): Promise<number> {
    const passwordHash = await passwords.hash(password);
    const at = clock.now();
    const ended = await db.transaction(async (tx) => {
      await claim?.(tx);
      await accountsRepo.setPasswordHash(tx, userId, passwordHash, at);
      const sessionsEnded = await tokensRepo.revokeSessionsOfUser(tx, userId, keepJti, at);
      const details = { by: audit.by, sessions_ended: sessionsEnded };
      await recordUserEvent(tx, userId, 'user.password_changed', audit, details, at);
      return sessionsEnded;
    });
    // The revocations notify every instance (migration 0005); this one need not wait for it.
    cache.invalidate({ userId });
    return ended;
  }

  return {
    /** Renames the user (trimmed, as at sign-up); audited in each of their workspaces. */
    async changeName(userId: number, name: string, ipAddress: string | null): Promise<AccountUser> {
      const at = clock.now();
      const user = await db.transaction(async (tx) => {
        const renamed = await accountsRepo.updateUserName(tx, userId, name.trim(), at);
        if (!renamed) throw new AppError('unauthenticated');
        const details = { name: renamed.user.name, previous_name: renamed.previousName };
        await recordUserEvent(tx, userId, 'user.name_changed', { actorUserId: userId, ipAddress }, details, at);
        return renamed.user;
      });
      cache.invalidate({ userId });
      return user;
    },

    /**
     * A new password for the signed-in user, given the current one. `beforeVerify` is given the account's login key
     * before the current password is checked, and may refuse by throwing (the login limit). A wrong current password
     * is a 422 on `current_password` and a failed login for the security log; a common new one a 422 on `password`;
     * both are reported at once and change nothing. Every other session of the user ends; the calling one stays.
     */
    async changePassword(
      principal: Principal,
      input: { currentPassword: string; password: string },
      context: { ipAddress: string | null; beforeVerify: (key: string) => Promise<void> },
    ): Promise<{ user: AccountUser; sessionsEnded: number }> {
      const account = await accountsRepo.findPasswordAccount(db, principal.user.id);
      if (!account) throw new AppError('unauthenticated');
      await context.beforeVerify(account.key);
      const { passwordHash, ...user } = account.user;
      const [matches, fields] = await Promise.all([
        passwords.verify(input.currentPassword, passwordHash),
        newPasswordErrors(input.password, account.user.email),
      ]);
      if (!matches) {
        security.loginFailed({ userId: user.id, ipAddress: context.ipAddress });
        fields.current_password = [WRONG_CURRENT_PASSWORD_MESSAGE];
      }
      if (Object.keys(fields).length > 0) throw new AppError('validation_failed', { fields });
      const audit = { actorUserId: user.id, ipAddress: context.ipAddress, by: 'user' as const };
      const sessionsEnded = await replacePassword(user.id, input.password, principal.jti, audit);
      return { user, sessionsEnded };
    },

    /**
     * A new password set through a reset link (password-reset.service.ts), already checked against the rules: `claim`
     * uses the link in the same transaction, and may refuse by throwing. Every session of the user ends.
     */
    async resetByLink(userId: number, password: string, ipAddress: string | null, claim: (tx: Db) => Promise<void>) {
      const audit = { actorUserId: userId, ipAddress, by: 'reset_link' as const };
      return replacePassword(userId, password, null, audit, claim);
    },

    /**
     * The operator's reset (`storelink user:reset-password`): a new password for the user with this e-mail, checked as
     * at sign-up, ending all their sessions. Null when no user has the e-mail.
     */
    async resetPassword(email: string, password: string): Promise<{ user: AccountUser; sessionsEnded: number } | null> {
      const found = await accountsRepo.findUserByEmail(db, email.trim());
      if (!found) return null;
      const fields = await newPasswordErrors(password, found.email);
      if (Object.keys(fields).length > 0) throw new AppError('validation_failed', { fields });
      const { passwordHash: _, ...user } = found;
      const sessionsEnded = await replacePassword(user.id, password, null, { actorUserId: null, ipAddress: null, by: 'operator' });
      return { user, sessionsEnded };
    },
  };
}

/** A user-level event, written to the audit log of every workspace the user belongs to (as a PAT's creation is). */
async function recordUserEvent(
  tx: Db,
  userId: number,
  action: AuditAction,
  actor: { actorUserId: number | null; ipAddress: string | null },
  details: Record<string, string | number>,
  at: Date,
): Promise<void> {
  const entry = {
    action,
    actorUserId: actor.actorUserId,
    subjectType: 'user' as const,
    subjectId: userId,
    ipAddress: actor.ipAddress,
    details,
  };
  await auditRepo.recordAudit(tx, await auditRepo.workspaceIdsOfUser(tx, userId), entry, at);
}
