/** Registration, login and workspaces (DESIGN §3). */

import * as accountsRepo from '../../db/accounts.repo.js';
import type { Db } from '../../db/client.js';
import { AppError, invalidField } from '../../errors.js';
import type { TokensService } from './tokens.service.js';

export interface PasswordHasher {
  hash(password: string): Promise<string>;
  verify(password: string, stored: string): Promise<boolean>;
}

export type AccountsService = ReturnType<typeof createAccountsService>;

export function createAccountsService(deps: { db: Db; passwords: PasswordHasher; tokens: TokensService }) {
  const { db, passwords, tokens } = deps;
  // Compared against when the email is unknown, so a login takes as long for a missing account as for a wrong password.
  let decoyHash: Promise<string> | null = null;

  async function createUser(input: { email: string; password: string; name: string }) {
    const email = input.email.trim();
    if (await accountsRepo.findUserByEmail(db, email)) throw invalidField('email', 'The email has already been taken.');
    const passwordHash = await passwords.hash(input.password);
    try {
      return await db.transaction((tx) => accountsRepo.insertUserWithWorkspace(tx, { email, name: input.name.trim(), passwordHash }));
    } catch (error) {
      if (accountsRepo.isUniqueViolation(error)) throw invalidField('email', 'The email has already been taken.');
      throw error;
    }
  }

  return {
    /** A user with a workspace of their own, as its owner. */
    createUser,

    /** createUser, then a session for the new user. */
    async register(input: { email: string; password: string; name: string }) {
      const created = await createUser(input);
      const session = await tokens.issueSession(created.user.id);
      return { ...created, session };
    },

    /** A new session for the right email and password; 401 otherwise, alike for an unknown email. */
    async login(input: { email: string; password: string }) {
      const user = await accountsRepo.findUserByEmail(db, input.email.trim());
      if (!user) {
        decoyHash ??= passwords.hash('decoy password');
        await passwords.verify(input.password, await decoyHash);
        throw new AppError('unauthenticated');
      }
      if (!(await passwords.verify(input.password, user.passwordHash))) throw new AppError('unauthenticated');
      return tokens.issueSession(user.id);
    },

    findUserByEmail: (email: string) => accountsRepo.findUserByEmail(db, email),

    listWorkspaces: (userId: number, page: { limit: number; offset: number }) => accountsRepo.listWorkspacesOfUser(db, userId, page),
  };
}
