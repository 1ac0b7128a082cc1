/** Records of issued session and personal access tokens, keyed by `jti`. */
import { and, count, desc, eq, gt, isNull, ne, or, sql } from 'drizzle-orm';
import type { Role, TokenKind } from '../domain/index.js';
import type { Db } from './client.js';
import { accessTokens, memberships, users, workspaces } from './schema.js';

export interface TokenRecord {
  id: number;
  name: string | null;
  createdAt: Date;
  expiresAt: Date | null;
  lastUsedAt: Date | null;
}

export async function insertToken(
  db: Db,
  input: { userId: number; kind: TokenKind; name: string | null; jti: string; createdAt: Date; expiresAt: Date | null },
): Promise<TokenRecord> {
  const [row] = await db.insert(accessTokens).values(input).returning(recordColumns);
  return row!;
}

const recordColumns = {
  id: accessTokens.id,
  name: accessTokens.name,
  createdAt: accessTokens.createdAt,
  expiresAt: accessTokens.expiresAt,
  lastUsedAt: accessTokens.lastUsedAt,
};

/** Everything one authenticated request needs, in one round trip: the token record, its user, and the membership of the asked workspace. */
export interface BearerContext {
  tokenId: number;
  kind: TokenKind;
  userId: number;
  expiresAt: Date | null;
  revokedAt: Date | null;
  email: string;
  userName: string;
  workspace: { id: number; name: string; role: Role } | null;
}

export async function findBearerContext(db: Db, jti: string, workspaceId: number | null): Promise<BearerContext | null> {
  const [row] = await db
    .select({
      tokenId: accessTokens.id,
      kind: accessTokens.kind,
      userId: accessTokens.userId,
      expiresAt: accessTokens.expiresAt,
      revokedAt: accessTokens.revokedAt,
      email: users.email,
      userName: users.name,
      workspaceId: workspaces.id,
      workspaceName: workspaces.name,
      role: memberships.role,
    })
    .from(accessTokens)
    .innerJoin(users, eq(users.id, accessTokens.userId))
    .leftJoin(memberships, and(eq(memberships.userId, accessTokens.userId), eq(memberships.workspaceId, workspaceId ?? -1)))
    .leftJoin(workspaces, eq(workspaces.id, memberships.workspaceId))
    .where(eq(accessTokens.jti, jti));
  if (!row) return null;
  const { workspaceId: wsId, workspaceName, role, ...rest } = row;
  return { ...rest, workspace: wsId !== null && workspaceName !== null && role !== null ? { id: wsId, name: workspaceName, role } : null };
}

/** The user's personal access tokens that are not revoked, newest first. */
export async function listPersonalTokens(
  db: Db,
  userId: number,
  page: { limit: number; offset: number },
): Promise<{ rows: TokenRecord[]; total: number }> {
  const where = and(eq(accessTokens.userId, userId), eq(accessTokens.kind, 'pat'), isNull(accessTokens.revokedAt));
  const [rows, [totals]] = await Promise.all([
    db.select(recordColumns).from(accessTokens).where(where).orderBy(desc(accessTokens.id)).limit(page.limit).offset(page.offset),
    db.select({ total: count() }).from(accessTokens).where(where),
  ]);
  return { rows, total: totals?.total ?? 0 };
}

/** How many personal access tokens of the user are neither revoked nor expired at `now`. */
export async function countActivePersonalTokens(db: Db, userId: number, now: Date): Promise<number> {
  const [row] = await db
    .select({ total: count() })
    .from(accessTokens)
    .where(
      and(
        eq(accessTokens.userId, userId),
        eq(accessTokens.kind, 'pat'),
        isNull(accessTokens.revokedAt),
        or(isNull(accessTokens.expiresAt), gt(accessTokens.expiresAt, now)),
      ),
    );
  return row?.total ?? 0;
}

/** Revokes one token of the user's of the given kind (by id, or by jti); false when there is no such live token. */
export async function revokeToken(
  db: Db,
  match: { userId: number; kind: TokenKind } & ({ id: number } | { jti: string }),
  at: Date,
): Promise<boolean> {
  const key = 'id' in match ? eq(accessTokens.id, match.id) : eq(accessTokens.jti, match.jti);
  const revoked = await db
    .update(accessTokens)
    .set({ revokedAt: at })
    .where(and(key, eq(accessTokens.userId, match.userId), eq(accessTokens.kind, match.kind), isNull(accessTokens.revokedAt)))
    .returning({ id: accessTokens.id });
  return revoked.length > 0;
}

/** Writes many last-used times in one statement; never moves a time backwards. */
export async function writeLastUsed(db: Db, entries: ReadonlyMap<number, Date>): Promise<void> {
  if (entries.size === 0) return;
  const values = sql.join(
    [...entries].map(([id, at]) => sql`(${id}::integer, ${at.toISOString()}::timestamptz)`),
    sql`, `,
  );
  await db.execute(sql`
    update ${accessTokens} set last_used_at = v.at
    from (values ${values}) as v(id, at)
    where ${accessTokens.id} = v.id and (${accessTokens.lastUsedAt} is null or ${accessTokens.lastUsedAt} < v.at)`);
}

/** Revokes every live session of the user but the one whose jti is `keepJti` (null: all of them); returns how many. */
export async function revokeSessionsOfUser(db: Db, userId: number, keepJti: string | null, at: Date): Promise<number> {
  const revoked = await db
    .update(accessTokens)
    .set({ revokedAt: at })
    .where(
      and(
        eq(accessTokens.userId, userId),
        eq(accessTokens.kind, 'session'),
        isNull(accessTokens.revokedAt),
        keepJti === null ? undefined : ne(accessTokens.jti, keepJti),
      ),
    )
    .returning({ id: accessTokens.id });
  return revoked.length;
}
