/** Workspaces, their members and invitations (DESIGN §12). Transactions are the service's. */
import { and, asc, count, eq, gt, inArray, isNull, sql } from 'drizzle-orm';
import type { Role } from '../domain/index.js';
import type { WorkspaceWithRole } from './accounts.repo.js';
import type { Db } from './client.js';
import { invitations, memberships, users, workspaces } from './schema.js';

export interface MemberRow {
  userId: number;
  name: string;
  email: string;
  role: Role;
  joinedAt: Date;
}

export type InvitationRow = typeof invitations.$inferSelect;

export async function insertWorkspace(tx: Db, name: string, ownerId: number, now: Date): Promise<WorkspaceWithRole> {
  const [workspace] = await tx
    .insert(workspaces)
    .values({ name, createdAt: now, updatedAt: now })
    .returning({ id: workspaces.id, name: workspaces.name });
  await tx.insert(memberships).values({ userId: ownerId, workspaceId: workspace!.id, role: 'owner', createdAt: now });
  return { ...workspace!, role: 'owner' };
}

export async function renameWorkspace(db: Db, id: number, name: string, now: Date): Promise<void> {
  await db.update(workspaces).set({ name, updatedAt: now }).where(eq(workspaces.id, id));
}

/** The workspace and everything of it (its rows reference it with ON DELETE CASCADE). */
export async function deleteWorkspace(db: Db, id: number): Promise<void> {
  await db.delete(workspaces).where(eq(workspaces.id, id));
}

export async function findWorkspace(db: Db, id: number): Promise<{ id: number; name: string } | null> {
  const [row] = await db.select({ id: workspaces.id, name: workspaces.name }).from(workspaces).where(eq(workspaces.id, id));
  return row ?? null;
}

/** The user's role in the workspace; null when they are not a member (or there is no such workspace). */
export async function roleOf(db: Db, workspaceId: number, userId: number): Promise<Role | null> {
  const [row] = await db
    .select({ role: memberships.role })
    .from(memberships)
    .where(and(eq(memberships.workspaceId, workspaceId), eq(memberships.userId, userId)));
  return row?.role ?? null;
}

export async function listMembers(
  db: Db,
  workspaceId: number,
  page: { limit: number; offset: number },
): Promise<{ rows: MemberRow[]; total: number }> {
  const [rows, [totals]] = await Promise.all([
    db
      .select({ userId: users.id, name: users.name, email: users.email, role: memberships.role, joinedAt: memberships.createdAt })
      .from(memberships)
      .innerJoin(users, eq(users.id, memberships.userId))
      .where(eq(memberships.workspaceId, workspaceId))
      .orderBy(asc(memberships.createdAt), asc(users.id))
      .limit(page.limit)
      .offset(page.offset),
    db.select({ total: count() }).from(memberships).where(eq(memberships.workspaceId, workspaceId)),
  ]);
  return { rows, total: totals?.total ?? 0 };
}

export async function findMember(db: Db, workspaceId: number, userId: number): Promise<MemberRow | null> {
  const [row] = await db
    .select({ userId: users.id, name: users.name, email: users.email, role: memberships.role, joinedAt: memberships.createdAt })
    .from(memberships)
    .innerJoin(users, eq(users.id, memberships.userId))
    .where(and(eq(memberships.workspaceId, workspaceId), eq(memberships.userId, userId)));
  return row ?? null;
}

export async function countOwners(db: Db, workspaceId: number): Promise<number> {
  const [row] = await db
    .select({ total: count() })
    .from(memberships)
    .where(and(eq(memberships.workspaceId, workspaceId), eq(memberships.role, 'owner')));
  return row?.total ?? 0;
}

export async function setRole(db: Db, workspaceId: number, userId: number, role: Role): Promise<void> {
  await db
    .update(memberships)
    .set({ role })
    .where(and(eq(memberships.workspaceId, workspaceId), eq(memberships.userId, userId)));
}

export async function insertInvitation(
  db: Db,
  input: { workspaceId: number; email: string; role: Role; tokenHash: string; invitedBy: number; expiresAt: Date },
  now: Date,
): Promise<InvitationRow> {
  const [row] = await db
    .insert(invitations)
    .values({ ...input, createdAt: now })
    .returning();
  return row!;
}

/** The workspace's invitations not accepted and not expired, newest first. */
export async function listPendingInvitations(
  db: Db,
  workspaceId: number,
  now: Date,
  page: { limit: number; offset: number },
): Promise<{ rows: InvitationRow[]; total: number }> {
  const pending = and(eq(invitations.workspaceId, workspaceId), isNull(invitations.acceptedAt), gt(invitations.expiresAt, now));
  const [rows, [totals]] = await Promise.all([
    db.select().from(invitations).where(pending).orderBy(sql`${invitations.id} desc`).limit(page.limit).offset(page.offset),
    db.select({ total: count() }).from(invitations).where(pending),
  ]);
  return { rows, total: totals?.total ?? 0 };
}

export async function findInvitation(db: Db, workspaceId: number, id: number): Promise<InvitationRow | null> {
  const [row] = await db
    .select()
    .from(invitations)
    .where(and(eq(invitations.workspaceId, workspaceId), eq(invitations.id, id)));
  return row ?? null;
}

/** The invitation of a token's hash; `lock`: held until the transaction ends (an invitation is used once). */
export async function invitationOfToken(db: Db, tokenHash: string, lock = false): Promise<InvitationRow | null> {
  const query = db.select().from(invitations).where(eq(invitations.tokenHash, tokenHash));
  const [row] = lock ? await query.for('update') : await query;
  return row ?? null;
}

/** The e-mail addresses of the workspace's owners and admins, whom its alerts are mailed to (docs/e-mail.md). */
export async function adminEmails(db: Db, workspaceId: number): Promise<string[]> {
  const rows = await db
    .select({ email: users.email })
    .from(memberships)
    .innerJoin(users, eq(users.id, memberships.userId))
    .where(and(eq(memberships.workspaceId, workspaceId), inArray(memberships.role, ['owner', 'admin'])))
    .orderBy(asc(users.id));
  return rows.map((row) => row.email);
}

/** An invitation as its mail tells it: whom for, which workspace, who invited, the role, until when. */
export async function invitationForMail(db: Db, id: number) {
  const [row] = await db
    .select({
      email: invitations.email,
      role: invitations.role,
      expiresAt: invitations.expiresAt,
      acceptedAt: invitations.acceptedAt,
      workspaceName: workspaces.name,
      inviterName: users.name,
    })
    .from(invitations)
    .innerJoin(workspaces, eq(workspaces.id, invitations.workspaceId))
    .leftJoin(users, eq(users.id, invitations.invitedBy))
    .where(eq(invitations.id, id));
  return row ?? null;
}

export async function markAccepted(tx: Db, id: number, userId: number, now: Date): Promise<void> {
  await tx.update(invitations).set({ acceptedAt: now, acceptedBy: userId }).where(eq(invitations.id, id));
}

export async function deleteInvitation(db: Db, id: number): Promise<void> {
  await db.delete(invitations).where(eq(invitations.id, id));
}

export async function addMember(tx: Db, workspaceId: number, userId: number, role: Role, now: Date): Promise<void> {
  await tx.insert(memberships).values({ workspaceId, userId, role, createdAt: now });
}

export async function removeMember(db: Db, workspaceId: number, userId: number): Promise<void> {
  await db.delete(memberships).where(and(eq(memberships.workspaceId, workspaceId), eq(memberships.userId, userId)));
}
