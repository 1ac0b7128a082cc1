/** The refresh worker's storage: claim due credentials, save renewed ones, back off, or give up on a site. */
import { and, eq, sql } from 'drizzle-orm';
import type { Db } from './client.js';
import { siteCredentials, sites } from './schema.js';
import { type GrantKind, type SitePlatform } from '../domain/index.js';
import type { SealedCredentials } from './sites.repo.js';

export interface ClaimedCredentials {
  siteId: number;
  track: GrantKind;
  platform: SitePlatform;
  keyId: string;
  ciphertext: string;
  refreshFailures: number;
}

/**
 * Leases up to `limit` due credentials of connected sites to `owner` in one statement. `FOR UPDATE … SKIP LOCKED`
 * keeps concurrent workers (on every instance) off each other's rows, and the lease keeps them off until this worker
 * is done or the lease runs out; what comes back is the row as it is now, re-read under the lock.
 */
export async function claimDueCredentials(db: Db, input: { owner: string; now: Date; leaseUntil: Date; limit: number }): Promise<ClaimedCredentials[]> {
  const now = input.now.toISOString();
  const result = (await db.execute(sql`
    update site_credentials c set lease_owner = ${input.owner}, lease_until = ${input.leaseUntil.toISOString()}::timestamptz
    from sites s
    where s.id = c.site_id and (c.site_id, c.track) in (
      select due.site_id, due.track from site_credentials due join sites ds on ds.id = due.site_id
      where ds.status = 'connected' and due.next_refresh_at <= ${now}::timestamptz
        and (due.lease_until is null or due.lease_until < ${now}::timestamptz)
      order by due.next_refresh_at
      limit ${input.limit}
      for update of due skip locked)
    returning c.site_id, c.track, s.platform, c.key_id, c.ciphertext, c.refresh_failures`)) as unknown as {
    rows: Array<{ site_id: number; track: GrantKind; platform: SitePlatform; key_id: string; ciphertext: string; refresh_failures: number }>;
  };
  return result.rows.map((r) => ({ siteId: r.site_id, track: r.track, platform: r.platform, keyId: r.key_id, ciphertext: r.ciphertext, refreshFailures: r.refresh_failures }));
}

const key = (siteId: number, track: GrantKind) => and(eq(siteCredentials.siteId, siteId), eq(siteCredentials.grantKind, track));

/** Stores renewed tokens (access and, where it rotated, refresh token together, in one row write) and releases the lease. */
export async function saveRefreshedCredentials(db: Db, siteId: number, track: GrantKind, sealed: SealedCredentials, now: Date): Promise<void> {
  await db
    .update(siteCredentials)
    .set({ ...sealed, refreshedAt: now, refreshFailures: 0, updatedAt: now })
    .where(key(siteId, track));
}

/** A try that failed for a reason that may pass (5xx, 429, timeout): the connection stays as it is, retried at `retryAt`. */
export async function recordRefreshFailure(db: Db, siteId: number, track: GrantKind, failures: number, retryAt: Date, now: Date): Promise<void> {
  await db.update(siteCredentials).set({ refreshFailures: failures, nextRefreshAt: retryAt, updatedAt: now }).where(key(siteId, track));
}

/**
 * The platform refused the grant. A seller connection turns `reauthorization_required` with the reason; a refused
 * advertising grant removes advertising from the site, leaving the seller connection as it is.
 */
export async function giveUpRefreshing(db: Db, siteId: number, track: GrantKind, reason: string, now: Date, onReauthorizationRequired?: (tx: Db, site: typeof sites.$inferSelect) => Promise<void>): Promise<void> {
  await db.transaction(async (tx) => {
    if (track === 'advertising') {
      await tx.delete(siteCredentials).where(key(siteId, track));
      await tx.update(sites).set({ advertisingProfiles: null, updatedAt: now }).where(eq(sites.id, siteId));
      return;
    }
    await tx.update(siteCredentials).set({ nextRefreshAt: null, updatedAt: now }).where(key(siteId, track));
    const [site] = await tx.update(sites).set({ status: 'reauthorization_required', statusReason: reason, updatedAt: now }).where(eq(sites.id, siteId)).returning();
    if (site && onReauthorizationRequired) await onReauthorizationRequired(tx, site);
  });
}
