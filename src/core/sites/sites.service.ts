/** Connected sites of a workspace: list, read, disconnect (DESIGN §5). */

import * as auditRepo from '../../db/audit.repo.js';
import type { Db } from '../../db/client.js';
import * as sitesRepo from '../../db/sites.repo.js';
import { AppError } from '../../errors.js';
import type { Clock } from '../../lib/clock.js';
import { type Outbox, siteEventData } from '../webhooks/outbox.js';

/** A site with its seller credentials' renewal times, as the API presents it. */
export type Site = sitesRepo.SiteRow;

export type SitesService = ReturnType<typeof createSitesService>;

export function createSitesService(deps: { db: Db; clock: Clock; outbox: Outbox }) {
  const { db, clock } = deps;

  /** The site when it belongs to the workspace; 404 whether it is missing or another workspace's (DESIGN §2). */
  async function get(workspaceId: number, siteId: number) {
    const site = await sitesRepo.findSite(db, workspaceId, siteId);
    if (!site) throw new AppError('not_found');
    return site;
  }

  return {
    list: (workspaceId: number, page: { limit: number; offset: number }) => sitesRepo.listSites(db, workspaceId, page),
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
          details: { platform: site.platform },
        };
        await auditRepo.recordAudit(tx, [workspaceId], audit, now);
        await deps.outbox.emit(tx, workspaceId, 'site.disconnected', siteEventData(disconnected), now);
        return disconnected;
      });
    },
    listAudit: (workspaceId: number, page: { limit: number; offset: number }) => auditRepo.listAudit(db, workspaceId, page),
  };
}
