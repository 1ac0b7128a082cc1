/**
 * The order intake (DESIGN §14): the platform's view of one order, taken into Storelink in one transaction with every
 * stock movement it causes, its events and its audit entry.
 *
 * - A line takes stock once: when it is first recorded, in a state that takes stock, by an atomic decrement of its
 *   variant's pool (ordersRepo.takeStock). Its key is the platform's line id (unique per site), so the same order read
 *   by a poll, a notification, two instances or a job run again after a crash finds the line recorded and takes nothing.
 * - What a line no longer sells (its order cancelled, or its quantity lowered by a partial cancellation) is given back,
 *   once: `stock_returned` says what was, and never passes `stock_taken`.
 * - An order placed before the site's orders began to count (its first connection) is history: recorded, never moving
 *   stock, and told to nobody.
 * - A view older than the one recorded (notifications come out of order) changes nothing.
 * - The listings of every variant whose pool moved get the new quantity, except the listings on the site that sold:
 *   its platform set their quantity itself, and writing the pool back there could undo a sale not seen yet. Two
 *   exceptions go everywhere, that site included: a pool that reached 0, and a listing Storelink wrote to after the
 *   sale was placed (a sale on another platform, seen first, sent it a pool that did not count this one: the bench
 *   found Amazon's listings left above the pool so, since Amazon's sales are read minutes late).
 */

import * as auditRepo from '../../db/audit.repo.js';
import type { Db } from '../../db/client.js';
import * as ordersRepo from '../../db/orders.repo.js';
import * as productsRepo from '../../db/products.repo.js';
import type { SiteRow } from '../../db/sites.repo.js';
import { type ListingIssue, PLATFORM_NAMES, takesStock, type WebhookEvent } from '../../domain/index.js';
import type { Clock } from '../../lib/clock.js';
import type { PlatformOrder, PlatformOrderLine } from '../../platforms/contracts/orders.js';
import type { ListingWork } from '../listings/listing-work.js';
import type { Outbox } from '../webhooks/outbox.js';
import { presentLine, presentOrder } from './present.js';

const issue = (code: string, message: string): ListingIssue => ({ severity: 'error', code, message, field: null, source: 'storelink' });

export interface OrderIntake {
  /** Takes the platform's view of one order of the site; answers what it did, in a sentence for the job's output. */
  record(site: SiteRow, order: PlatformOrder): Promise<string>;
}

export function createOrderIntake(deps: {
  db: Db;
  clock: Clock;
  outbox: Outbox;
  listings: Pick<ListingWork, 'stockChanged'>;
}): OrderIntake {
  const { db, clock } = deps;

  return {
    record: (site, order) =>
      db.transaction(async (tx) => {
        const now = clock.now();
        const from = await ordersRepo.ordersFrom(tx, site.id, now);
        const history = order.placedAt < from;
        const fields = {
          status: order.status,
          platformStatus: order.platformStatus,
          currency: order.currency,
          total: order.total,
          platformUpdatedAt: order.updatedAt,
          externalUrl: order.externalUrl,
        };
        const inserted = await ordersRepo.insertOrder(
          tx,
          {
            ...fields,
            workspaceId: site.workspaceId,
            siteId: site.id,
            platformId: site.platformId,
            externalId: order.externalId,
            placedAt: order.placedAt,
            history,
          },
          now,
        );
        const recorded = inserted ? { ...inserted, lines: [] } : await ordersRepo.lockOrder(tx, site.id, order.externalId);
        if (!recorded) throw new Error(`order ${order.externalId} of site ${site.id} is neither new nor recorded`);
        if (!inserted && recorded.platformUpdatedAt > order.updatedAt) return `order ${order.externalId}: an older view, left`;

        const counts = !recorded.history && takesStock(order.status);
        const variants = await ordersRepo.variantsOfSkus(
          tx,
          site.workspaceId,
          order.lines.flatMap((line) => (line.sku ? [line.sku] : [])),
        );
        const known = new Map(recorded.lines.map((line) => [line.externalId, line]));
        const touched = [
          ...variants.values(),
          ...recorded.lines.flatMap((l) => (l.variantId ? [{ id: l.variantId, productId: l.productId! }] : [])),
        ];
        await ordersRepo.lockStock(
          tx,
          touched.map((v) => v.productId),
          touched.map((v) => v.id),
        );
        const moved = new Map<number, { productId: number; empty: boolean }>();
        const oversold: { line: ordersRepo.OrderLineRow; short: number }[] = [];
        let taken = 0;
        let returned = 0;
        let linesChanged = false;

        const explain = (reason: 'order' | 'cancellation') =>
          productsRepo.explainStockChange(tx, { reason, orderId: recorded.id, at: now });

        const addLine = async (line: PlatformOrderLine, position: number) => {
          const variant = line.sku ? variants.get(line.sku) : undefined;
          const issues: ListingIssue[] = [];
          let took = 0;
          if (!variant) {
            issues.push(
              issue(
                'unknown_sku',
                line.sku
                  ? `No variant of the catalogue has the sku ${line.sku}; the line took no stock.`
                  : `The item sold on ${PLATFORM_NAMES[site.platform]} has no sku; the line took no stock.`,
              ),
            );
          } else if (counts && line.quantity > 0) {
            await explain('order');
            const result = await ordersRepo.takeStock(tx, variant.id, line.quantity);
            took = result?.taken ?? 0;
            if (result) moved.set(variant.id, { productId: variant.productId, empty: result.after === 0 });
            if (took < line.quantity)
              issues.push(
                issue('oversold', `Sold ${line.quantity} with ${took} in stock: ${line.quantity - took} more than the pool held.`),
              );
          }
          const row = await ordersRepo.insertLine(tx, {
            orderId: recorded.id,
            workspaceId: site.workspaceId,
            siteId: site.id,
            externalId: line.externalId,
            position,
            sku: line.sku,
            productId: variant?.productId ?? null,
            variantId: variant?.id ?? null,
            externalListingId: line.externalListingId,
            quantity: line.quantity,
            price: line.price,
            stockTaken: took,
            issues,
          });
          taken += took;
          if (variant && counts && took < line.quantity) oversold.push({ line: row, short: line.quantity - took });
        };

        const updateLine = async (line: PlatformOrderLine, row: ordersRepo.OrderLineRow) => {
          // The units the line still sells are covered first by what it took; the rest goes back.
          const held = row.stockTaken - row.stockReturned;
          const giveBack = Math.max(0, held - (takesStock(order.status) ? line.quantity : 0));
          if (giveBack > 0 && row.variantId !== null) {
            await explain('cancellation');
            if (await ordersRepo.giveStock(tx, row.variantId, giveBack))
              moved.set(row.variantId, { productId: row.productId!, empty: false });
          }
          if (giveBack === 0 && line.quantity === row.quantity && line.price === row.price) return;
          await ordersRepo.updateLine(tx, row.id, {
            quantity: line.quantity,
            price: line.price ?? row.price,
            stockReturned: row.stockReturned + giveBack,
          });
          returned += giveBack;
          linesChanged = true;
        };

        let position = recorded.lines.length;
        for (const line of order.lines) {
          const row = known.get(line.externalId);
          if (row) await updateLine(line, row);
          else await addLine(line, position++);
        }

        const statusChanged = !inserted && recorded.status !== order.status;
        const row = inserted ?? (await ordersRepo.updateOrder(tx, recorded.id, fields, now));
        const saved = await ordersRepo.orderWithLines(tx, row);

        if (moved.size > 0) {
          const productIds = [...new Set([...moved.values()].map((m) => m.productId))];
          await ordersRepo.bumpProducts(tx, productIds, now);
          const emptied = [...moved.values()].some((m) => m.empty);
          await deps.listings.stockChanged(tx, productIds, emptied ? null : { siteId: site.id, at: order.placedAt });
        }
        if (!recorded.history) {
          const event: WebhookEvent | null = inserted
            ? 'order.created'
            : statusChanged && order.status === 'cancelled'
              ? 'order.cancelled'
              : statusChanged || linesChanged
                ? 'order.updated'
                : null;
          const data = { order: presentOrder(saved) };
          if (event) await deps.outbox.emit(tx, site.workspaceId, event, data, now);
          for (const { line, short } of oversold) {
            await deps.outbox.emit(
              tx,
              site.workspaceId,
              'stock.oversold',
              { ...data, line: presentLine(line), product_id: line.productId, variant_id: line.variantId, sku: line.sku, short },
              now,
            );
          }
          if (event || moved.size > 0) {
            await auditRepo.recordAudit(
              tx,
              [site.workspaceId],
              {
                action: inserted ? 'order.recorded' : 'order.changed',
                actorUserId: null,
                subjectType: 'order',
                subjectId: row.id,
                ipAddress: null,
                details: {
                  site_id: site.id,
                  external_id: order.externalId,
                  status: order.status,
                  stock_taken: taken,
                  stock_returned: returned,
                },
              },
              now,
            );
          }
        }
        const verb = inserted
          ? recorded.history
            ? 'recorded as history'
            : 'recorded'
          : statusChanged || linesChanged
            ? 'updated'
            : 'unchanged';
        return `order ${order.externalId} ${verb}: ${taken} taken, ${returned} given back`;
      }),
  };
}
