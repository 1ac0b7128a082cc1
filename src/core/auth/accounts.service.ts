/** Registration, login and workspaces (DESIGN §3). */

import * as accountsRepo from '../../db/accounts.repo.js';
import type { Db } from '../../db/client.js';
import { isUniqueViolation } from '../../db/errors.js';
import { AppError, invalidField } from '../../errors.js';
import { newPasswordErrors } from './password-rules.js';
import type { SecurityEvents } from './security-events.js';
import type { TokensService } from './tokens.service.js';

const EMAIL_TAKEN = 'The email has already been taken.';

export interface PasswordHasher {
  hash(password: string): Promise<string>;
  verify(password: string, stored: string): Promise<boolean>;
}

export type AccountsService = ReturnType<typeof createAccountsService>;

/** What sign-up does beside creating the account: `onTaken` counts an attempt on an e-mail already taken. */
export interface SignUpContext {
  onTaken?: (key: string) => Promise<void>;
}

export function createAccountsService(deps: {
  db: Db;
  passwords: PasswordHasher;
  tokens: TokensService;
  security: Pick<SecurityEvents, 'loginFailed'>;
}) {
  const { db, passwords, tokens, security } = deps;
  // Compared against when the email is unknown, so a login takes as long for a missing account as for a wrong password.
  let decoyHash: Promise<string> | null = null;

  /**
   * When the e-mail is taken, `onTaken` is given the account's login key (as login's `beforeVerify` is) before the
   * answer says so, and may refuse by throwing: a sign-up that finds an account counts against that account's login
   * limit, so it tells no faster than login that the account exists (docs/decisions.md, "Abuse limits").
   */
  async function createUser(input: { email: string; password: string; name: string }, context: SignUpContext = {}) {
    const email = input.email.trim();
    const { key, user: taken } = await accountsRepo.findLoginAccount(db, email);
    if (taken) await context.onTaken?.(key);
    const fields = { ...(taken ? { email: [EMAIL_TAKEN] } : {}), ...(await newPasswordErrors(input.password, email)) };
    if (Object.keys(fields).length > 0) throw new AppError('validation_failed', { fields });
    const passwordHash = await passwords.hash(input.password);
    try {
      return await db.transaction((tx) => accountsRepo.insertUserWithWorkspace(tx, { email, name: input.name.trim(), passwordHash }));
    } catch (error) {
      if (isUniqueViolation(error)) throw invalidField('email', EMAIL_TAKEN);
      throw error;
    }
  }

  return {
    /** A user with a workspace of their own, as its owner. */
    createUser,

    /** createUser, then a session for the new user. */
    async register(input: { email: string; password: string; name: string }, context: SignUpContext = {}) {
      const created = await createUser(input, context);
      const session = await tokens.issueSession(created.user.id);
      return { ...created, session };
    },

    /**
     * A new session for the right email and password; 401 otherwise, alike for an unknown email, and a security event.
     * `beforeVerify` is given the attempt's key (the e-mail as the lookup folds it, so per-e-mail limits count every
     * spelling of one account together) before any password is checked, and may refuse by throwing.
     */
    async login(
      input: { email: string; password: string },
      context: { ipAddress?: string | null; beforeVerify?: (key: string) => Promise<void> } = {},
    ) {
      const { key, user } = await accountsRepo.findLoginAccount(db, input.email.trim());
      await context.beforeVerify?.(key);
      const ipAddress = context.ipAddress ?? null;
      if (!user) {
        decoyHash ??= passwords.hash('decoy password');
        await passwords.verify(input.password, await decoyHash);
        security.loginFailed({ userId: null, ipAddress });
        throw new AppError('unauthenticated');
      }
      if (!(await passwords.verify(input.password, user.passwordHash))) {
        security.loginFailed({ userId: user.id, ipAddress });
        throw new AppError('unauthenticated');
      }
      return tokens.issueSession(user.id);
    },

    findUserByEmail: (email: string) => accountsRepo.findUserByEmail(db, email),

    listWorkspaces: (userId: number, page: { limit: number; offset: number }) => accountsRepo.listWorkspacesOfUser(db, userId, page),
  };
}
