/** Users, workspaces and memberships. */
import { and, asc, count, eq, sql } from 'drizzle-orm';
import type { Role } from '../domain/index.js';
import type { Db } from './client.js';
import { memberships, users, workspaces } from './schema.js';

export interface UserRow {
  id: number;
  email: string;
  name: string;
  passwordHash: string;
}

export interface WorkspaceWithRole {
  id: number;
  name: string;
  role: Role;
}

export async function findUserByEmail(db: Db, email: string): Promise<UserRow | null> {
  const [row] = await db
    .select({ id: users.id, email: users.email, name: users.name, passwordHash: users.passwordHash })
    .from(users)
    .where(sql`lower(${users.email}) = lower(${email})`);
  return row ?? null;
}

/**
 * The account an e-mail names for a login, and the key its attempts are counted under: the e-mail as the database's
 * `lower()` folds it, the same fold the lookup (and the unique index) uses, so every spelling that reaches one account
 * shares one key, whether or not the account exists (`kİt@…` and `kit@…` alike on a database whose lower() folds İ).
 */
export async function findLoginAccount(db: Db, email: string): Promise<{ key: string; user: UserRow | null }> {
  const result = (await db.execute(sql`
    select k.key, u.id, u.email, u.name, u.password_hash
    from (select lower(${email}::text) as key) k
    left join ${users} u on lower(u.email) = k.key`)) as unknown as {
    rows: Array<{ key: string; id: number | null; email: string; name: string; password_hash: string }>;
  };
  const row = result.rows[0]!;
  return {
    key: row.key,
    user: row.id === null ? null : { id: row.id, email: row.email, name: row.name, passwordHash: row.password_hash },
  };
}

/** Holds the user's row until the transaction ends, so checks of what they hold and the write after them are not raced. */
export async function lockUser(tx: Db, userId: number): Promise<void> {
  await tx.execute(sql`select 1 from ${users} where ${users.id} = ${userId} for no key update`);
}

/** Holds the workspace's row until the transaction ends (not its key: rows referencing it can still be written). */
export async function lockWorkspace(tx: Db, workspaceId: number): Promise<void> {
  await tx.execute(sql`select 1 from ${workspaces} where ${workspaces.id} = ${workspaceId} for no key update`);
}

/** Creates the user, a workspace named after them, and their owner membership; run it in a transaction. */
export async function insertUserWithWorkspace(
  tx: Db,
  input: { email: string; name: string; passwordHash: string },
): Promise<{ user: Omit<UserRow, 'passwordHash'>; workspace: WorkspaceWithRole }> {
  const [user] = await tx.insert(users).values(input).returning({ id: users.id, email: users.email, name: users.name });
  const [workspace] = await tx
    .insert(workspaces)
    .values({ name: `${input.name}'s workspace` })
    .returning({ id: workspaces.id, name: workspaces.name });
  await tx.insert(memberships).values({ userId: user!.id, workspaceId: workspace!.id, role: 'owner' });
  return { user: user!, workspace: { ...workspace!, role: 'owner' as const } };
}

export async function listWorkspacesOfUser(
  db: Db,
  userId: number,
  page: { limit: number; offset: number },
): Promise<{ rows: WorkspaceWithRole[]; total: number }> {
  const [rows, [totals]] = await Promise.all([
    db
      .select({ id: workspaces.id, name: workspaces.name, role: memberships.role })
      .from(memberships)
      .innerJoin(workspaces, eq(workspaces.id, memberships.workspaceId))
      .where(eq(memberships.userId, userId))
      .orderBy(asc(workspaces.id))
      .limit(page.limit)
      .offset(page.offset),
    db.select({ total: count() }).from(memberships).where(eq(memberships.userId, userId)),
  ]);
  return { rows, total: totals?.total ?? 0 };
}

export async function addMembership(db: Db, input: { userId: number; workspaceId: number; role: Role }): Promise<void> {
  await db.insert(memberships).values(input);
}

export async function removeMembership(db: Db, input: { userId: number; workspaceId: number }): Promise<void> {
  await db.delete(memberships).where(and(eq(memberships.userId, input.userId), eq(memberships.workspaceId, input.workspaceId)));
}

/**
 * The account of a signed-in user for a password check, with the key its login attempts are counted under (the e-mail
 * as `lower()` folds it, as findLoginAccount computes it), so a password change draws on the same bucket as login.
 */
export async function findPasswordAccount(db: Db, userId: number): Promise<{ key: string; user: UserRow } | null> {
  const [row] = await db
    .select({
      key: sql<string>`lower(${users.email})`,
      id: users.id,
      email: users.email,
      name: users.name,
      passwordHash: users.passwordHash,
    })
    .from(users)
    .where(eq(users.id, userId));
  if (!row) return null;
  const { key, ...user } = row;
  return { key, user };
}

/** Renames the user; returns the user and the name they had, or null when there is no such user. */
export async function updateUserName(
  db: Db,
  userId: number,
  name: string,
  at: Date,
): Promise<{ user: Omit<UserRow, 'passwordHash'>; previousName: string } | null> {
  // The joined row is read from the statement's snapshot: the name before this update.
  const result = (await db.execute(sql`
    update ${users} set name = ${name}, updated_at = ${at.toISOString()}::timestamptz from ${users} as previous
    where ${users.id} = ${userId} and previous.id = ${users.id}
    returning ${users.id}, ${users.email}, ${users.name}, previous.name as previous_name`)) as unknown as {
    rows: Array<{ id: number; email: string; name: string; previous_name: string }>;
  };
  const row = result.rows[0];
  return row ? { user: { id: row.id, email: row.email, name: row.name }, previousName: row.previous_name } : null;
}

export async function setPasswordHash(db: Db, userId: number, passwordHash: string, at: Date): Promise<void> {
  await db.update(users).set({ passwordHash, updatedAt: at }).where(eq(users.id, userId));
}
