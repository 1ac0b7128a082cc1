/** Connected sites and their sealed credentials. */
import { and, asc, count, eq, getTableColumns, sql } from 'drizzle-orm';
import type { AdvertisingProfile, GrantKind, SitePlatform } from '../domain/index.js';
import type { Db } from './client.js';
import { siteCredentials, sites } from './schema.js';

/** A site with when its seller credentials were last renewed and will next be (null once disconnected). */
export type SiteRow = typeof sites.$inferSelect & { refreshedAt: Date | null; nextRefreshAt: Date | null };

const siteColumns = { ...getTableColumns(sites), refreshedAt: siteCredentials.refreshedAt, nextRefreshAt: siteCredentials.nextRefreshAt };
const sellerCredentials = and(eq(siteCredentials.siteId, sites.id), eq(siteCredentials.grantKind, 'seller'));

export interface SealedCredentials {
  keyId: string;
  ciphertext: string;
  accessExpiresAt: Date | null;
  refreshExpiresAt: Date | null;
  nextRefreshAt: Date;
}

export async function listSites(
  db: Db,
  workspaceId: number,
  page: { limit: number; offset: number },
): Promise<{ rows: SiteRow[]; total: number }> {
  const where = eq(sites.workspaceId, workspaceId);
  const [rows, [totals]] = await Promise.all([
    db
      .select(siteColumns)
      .from(sites)
      .leftJoin(siteCredentials, sellerCredentials)
      .where(where)
      .orderBy(asc(sites.id))
      .limit(page.limit)
      .offset(page.offset),
    db.select({ total: count() }).from(sites).where(where),
  ]);
  return { rows, total: totals?.total ?? 0 };
}

export async function findSite(db: Db, workspaceId: number, siteId: number): Promise<SiteRow | null> {
  const [row] = await db
    .select(siteColumns)
    .from(sites)
    .leftJoin(siteCredentials, sellerCredentials)
    .where(and(eq(sites.workspaceId, workspaceId), eq(sites.id, siteId)));
  return row ?? null;
}

/** The status of the workspace's site for a platform account, or null when there is none yet. */
export async function siteStatusOfAccount(
  db: Db,
  input: { workspaceId: number; platform: SitePlatform; externalId: string },
): Promise<SiteRow['status'] | null> {
  const [row] = await db
    .select({ status: sites.status })
    .from(sites)
    .where(and(eq(sites.workspaceId, input.workspaceId), eq(sites.platform, input.platform), eq(sites.externalId, input.externalId)));
  return row?.status ?? null;
}

/**
 * Creates the site, or, when the same platform account is already a site of the workspace, brings it back to
 * `connected` under its old id; the site's tracking pairs are replaced when new ones are given.
 */
export async function upsertSite(
  db: Db,
  input: {
    workspaceId: number;
    platformId: number;
    platform: SitePlatform;
    name: string;
    externalId: string;
    tracking: Record<string, string> | null;
    now: Date;
  },
): Promise<typeof sites.$inferSelect & { inserted: boolean }> {
  const [row] = await db
    .insert(sites)
    .values({
      workspaceId: input.workspaceId,
      platformId: input.platformId,
      platform: input.platform,
      name: input.name,
      externalId: input.externalId,
      tracking: input.tracking ?? {},
      createdAt: input.now,
      updatedAt: input.now,
    })
    .onConflictDoUpdate({
      target: [sites.workspaceId, sites.platform, sites.externalId],
      set: {
        name: input.name,
        status: 'connected',
        statusReason: null,
        updatedAt: input.now,
        ...(input.tracking ? { tracking: input.tracking } : {}),
      },
    })
    // xmax is 0 on a row this statement inserted, and set on one it updated: PostgreSQL's (and PGlite's) way to tell.
    .returning({ ...getTableColumns(sites), inserted: sql<boolean>`(xmax = 0)` });
  return row!;
}

/** Stores credentials from a new authorization, resetting any back-off; returns the row's new version. */
export async function saveCredentials(db: Db, siteId: number, grant: GrantKind, sealed: SealedCredentials, now: Date): Promise<number> {
  const fresh = { ...sealed, refreshFailures: 0, updatedAt: now };
  const [row] = await db
    .insert(siteCredentials)
    .values({ siteId, grantKind: grant, ...fresh, createdAt: now })
    .onConflictDoUpdate({
      target: [siteCredentials.siteId, siteCredentials.grantKind],
      set: { ...fresh, version: sql`${siteCredentials.version} + 1` },
    })
    .returning({ version: siteCredentials.version });
  return row!.version;
}

/** The site needs its owner to connect it again: the platform refused its grant. */
export async function markReauthorizationRequired(
  db: Db,
  siteId: number,
  reason: string,
  now: Date,
): Promise<typeof sites.$inferSelect | null> {
  const [row] = await db
    .update(sites)
    .set({ status: 'reauthorization_required', statusReason: reason, updatedAt: now })
    .where(eq(sites.id, siteId))
    .returning();
  return row ?? null;
}

export async function setAdvertisingProfiles(
  db: Db,
  siteId: number,
  profiles: AdvertisingProfile[] | null,
  now: Date,
): Promise<typeof sites.$inferSelect> {
  const [row] = await db.update(sites).set({ advertisingProfiles: profiles, updatedAt: now }).where(eq(sites.id, siteId)).returning();
  return row!;
}

/** Deletes every credential of the site and marks it disconnected; advertising goes with it. */
export async function disconnectSite(db: Db, siteId: number, now: Date): Promise<SiteRow> {
  await db.delete(siteCredentials).where(eq(siteCredentials.siteId, siteId));
  const [row] = await db
    .update(sites)
    .set({ status: 'disconnected', statusReason: null, advertisingProfiles: null, updatedAt: now })
    .where(eq(sites.id, siteId))
    .returning();
  return { ...row!, refreshedAt: null, nextRefreshAt: null };
}
