/** Connected sites and their sealed credentials. */
import { and, asc, count, eq, getTableColumns, inArray, isNull, or, sql } from 'drizzle-orm';
import type { AdvertisingProfile, AmazonRegion, GrantKind, SitePlatform } from '../domain/index.js';
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

/** A site by its id alone, for work that starts from the site (its orders' first read). */
export async function findSiteById(db: Db, siteId: number): Promise<SiteRow | null> {
  const [row] = await db.select(siteColumns).from(sites).leftJoin(siteCredentials, sellerCredentials).where(eq(sites.id, siteId));
  return row ?? null;
}

/** The workspace's site for a platform account, as much as connecting needs to know of it. */
export type AccountSite = Pick<typeof sites.$inferSelect, 'id' | 'name' | 'platform' | 'externalId' | 'status' | 'platformData'>;

/**
 * The workspace's site for a platform account (in an Amazon region), found by its external id or, for a site stored
 * under an id the platform used before (TikTok Shop's cipher), by that one; null when there is none yet.
 */
export async function findAccountSite(
  db: Db,
  input: { workspaceId: number; platform: SitePlatform; region: AmazonRegion | null; externalId: string; formerExternalId?: string },
): Promise<AccountSite | null> {
  const ids = input.formerExternalId ? [input.externalId, input.formerExternalId] : [input.externalId];
  const rows = await db
    .select({
      id: sites.id,
      name: sites.name,
      platform: sites.platform,
      externalId: sites.externalId,
      status: sites.status,
      platformData: sites.platformData,
    })
    .from(sites)
    .where(
      and(
        eq(sites.workspaceId, input.workspaceId),
        eq(sites.platform, input.platform),
        inArray(sites.externalId, ids),
        input.region === null ? isNull(sites.region) : eq(sites.region, input.region),
      ),
    );
  return rows.find((row) => row.externalId === input.externalId) ?? rows[0] ?? null;
}

export interface SiteAccount {
  workspaceId: number;
  platformId: number;
  platform: SitePlatform;
  region: AmazonRegion | null;
  name: string;
  externalId: string;
  /** Replaces the site's tracking pairs when given. */
  tracking: Record<string, string> | null;
  grantedScopes: string[] | null;
  platformData: Readonly<Record<string, unknown>>;
  currency: string | null;
  now: Date;
}

/**
 * Creates the site, or brings the workspace's existing site for the account (`siteId`, from findAccountSite) back to
 * `connected` under its old id, with the account's current name, id, scopes and data. A site created meanwhile by a
 * concurrent callback for the same account is updated the same way, never duplicated.
 */
export async function upsertSite(
  db: Db,
  input: SiteAccount & { siteId: number | null },
): Promise<typeof sites.$inferSelect & { inserted: boolean }> {
  const changes = {
    name: input.name,
    externalId: input.externalId,
    status: 'connected' as const,
    statusReason: null,
    grantedScopes: input.grantedScopes,
    platformData: { ...input.platformData },
    currency: input.currency,
    updatedAt: input.now,
    ...(input.tracking ? { tracking: input.tracking } : {}),
  };
  if (input.siteId !== null) {
    const [row] = await db.update(sites).set(changes).where(eq(sites.id, input.siteId)).returning();
    return { ...row!, inserted: false };
  }
  const [row] = await db
    .insert(sites)
    .values({
      workspaceId: input.workspaceId,
      platformId: input.platformId,
      platform: input.platform,
      region: input.region,
      ...changes,
      tracking: input.tracking ?? {},
      createdAt: input.now,
    })
    .onConflictDoUpdate({ target: [sites.workspaceId, sites.platform, sites.externalId, sites.region], set: changes })
    // xmax is 0 on a row this statement inserted, and set on one it updated: PostgreSQL's (and PGlite's) way to tell.
    .returning({ ...getTableColumns(sites), inserted: sql<boolean>`(xmax = 0)` });
  return row!;
}

/** Stores credentials from a new authorization, resetting any back-off; returns the row's new version. */
export async function saveCredentials(db: Db, siteId: number, grant: GrantKind, sealed: SealedCredentials, now: Date): Promise<number> {
  const fresh = { ...sealed, refreshFailures: 0, grantedAt: now, updatedAt: now };
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

/** The site's advertising profiles and the region they were granted in; null for both once advertising is gone. */
export async function setAdvertisingProfiles(
  db: Db,
  siteId: number,
  profiles: AdvertisingProfile[] | null,
  region: AmazonRegion | null,
  now: Date,
): Promise<typeof sites.$inferSelect> {
  const [row] = await db
    .update(sites)
    .set({ advertisingProfiles: profiles, advertisingRegion: profiles === null ? null : region, updatedAt: now })
    .where(eq(sites.id, siteId))
    .returning();
  return row!;
}

/** Deletes every credential of the site and marks it disconnected; advertising goes with it. */
export async function disconnectSite(db: Db, siteId: number, now: Date): Promise<SiteRow> {
  await db.delete(siteCredentials).where(eq(siteCredentials.siteId, siteId));
  const [row] = await db
    .update(sites)
    .set({ status: 'disconnected', statusReason: null, advertisingProfiles: null, advertisingRegion: null, updatedAt: now })
    .where(eq(sites.id, siteId))
    .returning();
  return { ...row!, refreshedAt: null, nextRefreshAt: null };
}

/** Replaces the site's listing settings (DESIGN §10). */
export async function setListingSettings(db: Db, siteId: number, settings: Record<string, unknown>, now: Date): Promise<void> {
  await db.update(sites).set({ listingSettings: settings, updatedAt: now }).where(eq(sites.id, siteId));
}

/** A site, by its id and workspace. */
export interface SiteOfAccount {
  id: number;
  workspaceId: number;
}

/** The sites, in every workspace, of one platform account (a platform's notification names the account, not a site). */
export async function sitesOfAccount(db: Db, platform: SitePlatform, externalId: string): Promise<SiteOfAccount[]> {
  return (await sitesOfAccounts(db, [{ platform, externalId }])).get(accountKey(platform, externalId)) ?? [];
}

/** How `sitesOfAccounts` names an account. */
export const accountKey = (platform: SitePlatform, externalId: string): string => `${platform} ${externalId}`;

/**
 * The sites of several platform accounts in one query (a batch of order notifications: order-reads.ts), by
 * `accountKey`; an account with no site has no entry.
 */
export async function sitesOfAccounts(
  db: Db,
  accounts: readonly { platform: SitePlatform; externalId: string }[],
): Promise<Map<string, SiteOfAccount[]>> {
  const found = new Map<string, SiteOfAccount[]>();
  // A batch of one shop's sales names its account fifty times: it is asked for once.
  const distinct = new Map(accounts.map((account) => [accountKey(account.platform, account.externalId), account]));
  if (distinct.size === 0) return found;
  const rows = await db
    .select({ id: sites.id, workspaceId: sites.workspaceId, platform: sites.platform, externalId: sites.externalId })
    .from(sites)
    .where(
      or(...[...distinct.values()].map((account) => and(eq(sites.platform, account.platform), eq(sites.externalId, account.externalId)))),
    )
    .orderBy(asc(sites.id));
  for (const { platform, externalId, ...site } of rows) {
    const key = accountKey(platform, externalId);
    const of = found.get(key);
    if (of) of.push(site);
    else found.set(key, [site]);
  }
  return found;
}
