/** The audit log of a workspace. */
import { count, desc, eq, inArray } from 'drizzle-orm';
import type { AuditAction } from '../domain/index.js';
import type { Db } from './client.js';
import { auditEvents, memberships, users } from './schema.js';

export interface AuditEntry {
  action: AuditAction;
  actorUserId: number | null;
  subjectType: 'site' | 'token' | 'webhook';
  subjectId: number;
  ipAddress: string | null;
  details?: Record<string, string | number | null>;
}

export async function recordAudit(db: Db, workspaceIds: readonly number[], entry: AuditEntry, at: Date): Promise<void> {
  if (workspaceIds.length === 0) return;
  await db
    .insert(auditEvents)
    .values(workspaceIds.map((workspaceId) => ({ ...entry, details: entry.details ?? {}, workspaceId, createdAt: at })));
}

/** The workspaces a user belongs to: a personal access token reaches all of them, so each logs its creation. */
export async function workspaceIdsOfUser(db: Db, userId: number): Promise<number[]> {
  const rows = await db.select({ id: memberships.workspaceId }).from(memberships).where(eq(memberships.userId, userId));
  return rows.map((r) => r.id);
}

export async function listAudit(db: Db, workspaceId: number, page: { limit: number; offset: number }) {
  const where = eq(auditEvents.workspaceId, workspaceId);
  const [rows, [totals]] = await Promise.all([
    db.select().from(auditEvents).where(where).orderBy(desc(auditEvents.id)).limit(page.limit).offset(page.offset),
    db.select({ total: count() }).from(auditEvents).where(where),
  ]);
  const actorIds = [...new Set(rows.map((r) => r.actorUserId).filter((id): id is number => id !== null))];
  const actors = actorIds.length
    ? await db.select({ id: users.id, email: users.email, name: users.name }).from(users).where(inArray(users.id, actorIds))
    : [];
  return { rows: rows.map((row) => ({ ...row, actor: actors.find((a) => a.id === row.actorUserId) ?? null })), total: totals?.total ?? 0 };
}
