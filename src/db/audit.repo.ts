/** The audit log of a workspace. */
import { and, count, desc, eq, inArray, sql } from 'drizzle-orm';
import type { AuditAction, AuditSubject } from '../domain/index.js';
import type { Db } from './client.js';
import { selectRows } from './json-rows.js';
import { auditEvents, memberships, users, workspaces } from './schema.js';

export interface AuditEntry {
  action: AuditAction;
  actorUserId: number | null;
  subjectType: AuditSubject;
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

/** Many entries of one workspace (a CSV import's), a statement per thousand. */
export async function recordAudits(db: Db, workspaceId: number, entries: readonly AuditEntry[], at: Date): Promise<void> {
  for (let i = 0; i < entries.length; i += 1_000) {
    const batch = entries.slice(i, i + 1_000);
    await db.insert(auditEvents).select(
      selectRows(
        auditEvents,
        batch.map((entry) => ({ ...entry, details: entry.details ?? {}, workspaceId, createdAt: at })),
      ),
    );
  }
}

/**
 * One entry in a workspace named by a caller, written only if that workspace exists: one statement either way, so how
 * long it takes tells nothing of which workspace ids exist.
 */
export async function recordAuditIfWorkspaceExists(db: Db, workspaceId: number, entry: AuditEntry, at: Date): Promise<void> {
  await db.execute(sql`
    insert into ${auditEvents} (workspace_id, actor_user_id, action, subject_type, subject_id, ip_address, details, created_at)
    select ${workspaceId}::integer, ${entry.actorUserId}::integer, ${entry.action}::text, ${entry.subjectType}::text,
      ${entry.subjectId}::integer, ${entry.ipAddress}::text, ${JSON.stringify(entry.details ?? {})}::jsonb, ${at.toISOString()}::timestamptz
    where exists (select 1 from ${workspaces} where ${workspaces.id} = ${workspaceId})`);
}

/** The workspaces a user belongs to: a personal access token reaches all of them, so each logs its creation. */
export async function workspaceIdsOfUser(db: Db, userId: number): Promise<number[]> {
  const rows = await db.select({ id: memberships.workspaceId }).from(memberships).where(eq(memberships.userId, userId));
  return rows.map((r) => r.id);
}

/** What the audit log can be narrowed to: one action, one kind of subject, one actor. */
export interface AuditFilter {
  action?: AuditAction;
  subjectType?: AuditSubject;
  actorUserId?: number;
}

export async function listAudit(db: Db, workspaceId: number, page: { limit: number; offset: number }, filter: AuditFilter = {}) {
  const where = and(
    eq(auditEvents.workspaceId, workspaceId),
    filter.action ? eq(auditEvents.action, filter.action) : undefined,
    filter.subjectType ? eq(auditEvents.subjectType, filter.subjectType) : undefined,
    filter.actorUserId ? eq(auditEvents.actorUserId, filter.actorUserId) : undefined,
  );
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
