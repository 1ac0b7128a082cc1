/** Connected sites of a workspace: list, read, disconnect (DESIGN §5). */

import * as auditRepo from '../../db/audit.repo.js';
import type { Db } from '../../db/client.js';
import * as sitesRepo from '../../db/sites.repo.js';
import { AppError } from '../../errors.js';
import type { Clock } from '../../lib/clock.js';
import type { Adapters } from '../../platforms/registry.js';
import { type Outbox, siteEventData } from '../webhooks/outbox.js';

/**
 * A site with its seller credentials' renewal times, as the API presents it, and the scopes Storelink's features need
 * that its connection was not granted (reconnecting asks for them and keeps the site's id).
 */
export type Site = sitesRepo.SiteRow & { missingScopes: string[] };

export type SitesService = ReturnType<typeof createSitesService>;

export function createSitesService(deps: { db: Db; clock: Clock; outbox: Outbox; adapters: Adapters }) {
  const { db, clock } = deps;

  const withScopes = (row: sitesRepo.SiteRow): Site => {
    const needed = deps.adapters[row.platform]?.scopes?.needed ?? [];
    const granted = row.grantedScopes;
    return { ...row, missingScopes: granted === null ? [] : needed.filter((scope) => !granted.includes(scope)) };
  };

  /** The site when it belongs to the workspace; 404 whether it is missing or another workspace's (DESIGN §2). */
  async function get(workspaceId: number, siteId: number): Promise<Site> {
    const site = await sitesRepo.findSite(db, workspaceId, siteId);
    if (!site) throw new AppError('not_found');
    return withScopes(site);
  }

  return {
    async list(workspaceId: number, page: { limit: number; offset: number }) {
      const { rows, total } = await sitesRepo.listSites(db, workspaceId, page);
      return { rows: rows.map(withScopes), total };
    },
    get,
    /** Deletes the site's credentials and marks it disconnected; none of the four platforms offers a revocation call. */
    async disconnect(workspaceId: number, siteId: number, actor: { userId: number; ipAddress: string | null }) {
      const site = await get(workspaceId, siteId);
      const now = clock.now();
      return db.transaction(async (tx) => {
        const disconnected = await sitesRepo.disconnectSite(tx, site.id, now);
        const audit = {
          action: 'site.disconnected' as const,
          actorUserId: actor.userId,
          subjectType: 'site' as const,
          subjectId: site.id,
          ipAddress: actor.ipAddress,
          details: { name: site.name, platform: site.platform },
        };
        await auditRepo.recordAudit(tx, [workspaceId], audit, now);
        await deps.outbox.emit(tx, workspaceId, 'site.disconnected', siteEventData(disconnected), now);
        return withScopes(disconnected);
      });
    },
    listAudit: (workspaceId: number, page: { limit: number; offset: number }, filter: auditRepo.AuditFilter = {}) =>
      auditRepo.listAudit(db, workspaceId, page, filter),
  };
}
