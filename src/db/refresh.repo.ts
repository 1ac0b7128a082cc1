/**
 * The token refresh's storage: one grant's credentials as a renewal sees them, and writes fenced by the row's
 * `version`, so a renewal whose credentials were replaced meanwhile (a reconnection, another renewal) changes nothing.
 * The service owns the transactions.
 */
import { and, asc, eq, isNotNull, lt, sql } from 'drizzle-orm';
import type { AmazonRegion, GrantKind, SitePlatform, SiteStatus } from '../domain/index.js';
import type { Db } from './client.js';
import { siteCredentials, sites } from './schema.js';
import type { SealedCredentials } from './sites.repo.js';

export interface GrantCredentials {
  siteId: number;
  grant: GrantKind;
  workspaceId: number;
  platform: SitePlatform;
  siteStatus: SiteStatus;
  /** Amazon: the region the grant was made in (the site's for the seller grant, advertising's own for that one). */
  region: AmazonRegion | null;
  keyId: string;
  ciphertext: string;
  accessExpiresAt: Date | null;
  nextRefreshAt: Date | null;
  refreshFailures: number;
  version: number;
  /** When the grant was authorized (a renewal keeps it). */
  grantedAt: Date;
}

const key = (siteId: number, grant: GrantKind) => and(eq(siteCredentials.siteId, siteId), eq(siteCredentials.grantKind, grant));
const atVersion = (siteId: number, grant: GrantKind, version: number) => and(key(siteId, grant), eq(siteCredentials.version, version));

export async function findGrant(db: Db, siteId: number, grant: GrantKind): Promise<GrantCredentials | null> {
  const [row] = await db
    .select({
      siteId: siteCredentials.siteId,
      grant: siteCredentials.grantKind,
      workspaceId: sites.workspaceId,
      platform: sites.platform,
      siteStatus: sites.status,
      region: sql<AmazonRegion | null>`case when ${siteCredentials.grantKind} = 'advertising' then ${sites.advertisingRegion} else ${sites.region} end`,
      keyId: siteCredentials.keyId,
      ciphertext: siteCredentials.ciphertext,
      accessExpiresAt: siteCredentials.accessExpiresAt,
      nextRefreshAt: siteCredentials.nextRefreshAt,
      refreshFailures: siteCredentials.refreshFailures,
      version: siteCredentials.version,
      grantedAt: siteCredentials.grantedAt,
    })
    .from(siteCredentials)
    .innerJoin(sites, eq(sites.id, siteCredentials.siteId))
    .where(key(siteId, grant));
  return row ?? null;
}

/** Stores renewed tokens (access and, where it rotated, refresh token together, in one row write); the new version, or null when fenced off. */
export async function saveRefreshedCredentials(
  db: Db,
  siteId: number,
  grant: GrantKind,
  sealed: SealedCredentials,
  now: Date,
  version: number,
): Promise<number | null> {
  const [row] = await db
    .update(siteCredentials)
    .set({ ...sealed, refreshedAt: now, refreshFailures: 0, version: version + 1, updatedAt: now })
    .where(atVersion(siteId, grant, version))
    .returning({ version: siteCredentials.version });
  return row?.version ?? null;
}

/** A try that failed for a reason that may pass (5xx, 429, timeout): the connection stays as it is, retried at `retryAt`. */
export async function recordRefreshFailure(
  db: Db,
  siteId: number,
  grant: GrantKind,
  failures: number,
  retryAt: Date,
  now: Date,
  version: number,
): Promise<boolean> {
  const updated = await db
    .update(siteCredentials)
    .set({ refreshFailures: failures, nextRefreshAt: retryAt, updatedAt: now })
    .where(atVersion(siteId, grant, version))
    .returning({ version: siteCredentials.version });
  return updated.length > 0;
}

/** The platform refused a seller grant: no more renewals of it until the site is reconnected. False when fenced off. */
export async function stopRefreshing(db: Db, siteId: number, grant: GrantKind, now: Date, version: number): Promise<boolean> {
  const updated = await db
    .update(siteCredentials)
    .set({ nextRefreshAt: null, updatedAt: now })
    .where(atVersion(siteId, grant, version))
    .returning({ version: siteCredentials.version });
  return updated.length > 0;
}

/** Deletes a grant's credentials (a refused advertising grant). False when fenced off. */
export async function deleteGrant(db: Db, siteId: number, grant: GrantKind, version: number): Promise<boolean> {
  const deleted = await db
    .delete(siteCredentials)
    .where(atVersion(siteId, grant, version))
    .returning({ version: siteCredentials.version });
  return deleted.length > 0;
}

/** Grants of connected sites whose renewal is overdue by `before`: their job was lost or no worker ran. */
export async function listOverdueGrants(
  db: Db,
  before: Date,
  limit: number,
): Promise<Array<{ siteId: number; grant: GrantKind; version: number }>> {
  return db
    .select({ siteId: siteCredentials.siteId, grant: siteCredentials.grantKind, version: siteCredentials.version })
    .from(siteCredentials)
    .innerJoin(sites, eq(sites.id, siteCredentials.siteId))
    .where(and(eq(sites.status, 'connected'), isNotNull(siteCredentials.nextRefreshAt), lt(siteCredentials.nextRefreshAt, before)))
    .orderBy(asc(siteCredentials.nextRefreshAt))
    .limit(limit);
}
