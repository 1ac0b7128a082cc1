/** The orders API (DESIGN §14): reading orders and stock movements, and asking for a site's orders to be read now. */
import * as auditRepo from '../../db/audit.repo.js';
import type { Db } from '../../db/client.js';
import * as ordersRepo from '../../db/orders.repo.js';
import type { SiteRow } from '../../db/sites.repo.js';
import { PLATFORM_NAMES } from '../../domain/index.js';
import { AppError, invalidField } from '../../errors.js';
import type { Clock } from '../../lib/clock.js';
import type { OrdersAdapters } from '../../platforms/registry.js';
import type { OrderReads } from './order-reads.js';
import { presentMovement, presentOrder } from './present.js';

type Page = { limit: number; offset: number };

export function createOrdersService(deps: { db: Db; clock: Clock; reads: Pick<OrderReads, 'syncSite'>; adapters: OrdersAdapters }) {
  const { db, clock } = deps;
  return {
    async list(workspaceId: number, filter: ordersRepo.OrderFilter, page: Page) {
      const { rows, total } = await ordersRepo.listOrders(db, workspaceId, filter, page);
      return { rows: rows.map(presentOrder), total };
    },
    async get(workspaceId: number, id: number) {
      const order = await ordersRepo.findOrder(db, workspaceId, id);
      if (!order) throw new AppError('not_found');
      return presentOrder(order);
    },
    async movements(workspaceId: number, filter: ordersRepo.MovementFilter, page: Page) {
      const { rows, total } = await ordersRepo.listStockMovements(db, workspaceId, filter, page);
      return { rows: rows.map((row) => presentMovement(row, row.actor)), total };
    },
    /** Queues a read of the site's new and changed orders; 422 on `site_id` for a site that cannot be read. */
    async sync(site: SiteRow, actor: { userId: number; ipAddress: string }) {
      if (!deps.adapters[site.platform]) throw invalidField('site_id', `Orders on ${PLATFORM_NAMES[site.platform]} are not available.`);
      if (site.status !== 'connected') throw invalidField('site_id', 'The site is not connected: connect it again first.');
      await db.transaction(async (tx) => {
        await deps.reads.syncSite({ workspaceId: site.workspaceId, siteId: site.id }, tx);
        await auditRepo.recordAudit(
          tx,
          [site.workspaceId],
          {
            action: 'orders.sync_requested',
            actorUserId: actor.userId,
            subjectType: 'site',
            subjectId: site.id,
            ipAddress: actor.ipAddress,
            details: { name: site.name },
          },
          clock.now(),
        );
      });
      return { site_id: site.id, orders_read_to: site.ordersReadTo?.toISOString() ?? null };
    },
  };
}

export type OrdersService = ReturnType<typeof createOrdersService>;
