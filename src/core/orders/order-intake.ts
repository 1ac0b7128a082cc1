/**
 * The order intake (DESIGN §14): the platform's views of a site's orders (one a notification named, a burst of them
 * read together, a page of a poll), taken into Storelink in one transaction with every stock movement they cause, their
 * events and their audit entries. A page is as cheap as a few orders: each step is one statement for all of them.
 *
 * - A line takes stock once: when it is first recorded, in a state that takes stock, by an atomic decrement of its
 *   variant's pool (ordersRepo.takeStock). Its key is the platform's line id (unique per site), so the same order read
 *   by a poll, a notification, two instances or a job run again after a crash finds the line recorded and takes nothing.
 * - What a line no longer sells (its order cancelled, or its quantity lowered by a partial cancellation) is given back,
 *   once: `stock_returned` says what was, and never passes `stock_taken`.
 * - An order placed before the site's orders began to count (its first connection) is history: recorded, never moving
 *   stock, and told to nobody.
 * - A view older than the one recorded (notifications come out of order) changes nothing; of two views of one order in
 *   one call, the newer is taken.
 * - Orders are inserted and locked in the platform's id order, then every product and variant they touch is locked in
 *   id order, so two intakes of overlapping orders (a poll and a burst of notifications, two instances) wait for each
 *   other rather than deadlock. The stock is locked last, once every move is known, and locked, moved and counted, and
 *   the listings it moves retargeted, in one statement: another channel's sale waits for this intake from there to its
 *   commit. So what the take's answer decides (each line's stock taken, the orders' events and audit entries) is
 *   written before it, as though each move is made as asked, and the answer is checked against it: an intake it does
 *   not match (a pool short of a sale, a variant gone meanwhile) is rolled back and made again with the stock taken
 *   first. Held from the take to the commit are the check and the queueing of the listings' work alone.
 * - The listings of every variant whose pool moved get the new quantity, except the listings on the site that sold:
 *   its platform set their quantity itself, and writing the pool back there could undo a sale not seen yet. Two
 *   exceptions go everywhere, that site included: a pool that reached 0, and a listing Storelink wrote to after the
 *   sale was placed, or whose write is waiting or in flight (a sale on another platform, seen first, sent it a pool
 *   that did not count this one: the bench found Amazon's listings left above the pool so, since Amazon's sales are
 *   read minutes late and its writes wait for its rate).
 */

import * as auditRepo from '../../db/audit.repo.js';
import type { Db } from '../../db/client.js';
import * as ordersRepo from '../../db/orders.repo.js';
import type { SiteRow } from '../../db/sites.repo.js';
import { type ListingIssue, PLATFORM_NAMES, takesStock, type WebhookEvent } from '../../domain/index.js';
import type { Clock } from '../../lib/clock.js';
import type { PlatformOrder } from '../../platforms/contracts/orders.js';
import type { ListingWork } from '../listings/listing-work.js';
import type { Outbox, OutboxEvent } from '../webhooks/outbox.js';
import { presentLine, presentOrder } from './present.js';

const issue = (code: string, message: string): ListingIssue => ({ severity: 'error', code, message, field: null, source: 'storelink' });

/**
 * An intake written as though each of its moves was made as asked found one that was not (a take short of its units,
 * a variant gone): its transaction is rolled back, and the intake made again with the stock taken first.
 */
class StockNotAsWritten extends Error {}

export interface OrderIntake {
  /** Takes the platform's views of orders of the site; answers what it did, in a sentence for the job's output. */
  record(site: SiteRow, orders: readonly PlatformOrder[]): Promise<string>;
}

/** One order of the call: its view, its record (locked, or just inserted) and what taking it does. */
interface Taken {
  view: PlatformOrder;
  recorded: ordersRepo.OrderRecord;
  inserted: boolean;
  /** Whether its lines take stock: recorded after the site's orders began to count, and in a state that holds units. */
  counts: boolean;
  taken: number;
  returned: number;
  /** Whether it moved a pool (a take that met an empty pool moves it by nothing, and counts). */
  movedStock: boolean;
  linesChanged: boolean;
  /** Lines short of stock: their platform id and the units the pool could not cover. */
  oversold: { externalId: string; short: number }[];
}

/** The newest view of each order, in the platform's id order (the order every intake inserts and locks them in). */
function newestViews(orders: readonly PlatformOrder[]): PlatformOrder[] {
  const newest = new Map<string, PlatformOrder>();
  for (const order of orders) {
    const seen = newest.get(order.externalId);
    if (!seen || seen.updatedAt <= order.updatedAt) newest.set(order.externalId, order);
  }
  return [...newest.values()].sort((a, b) => (a.externalId < b.externalId ? -1 : a.externalId > b.externalId ? 1 : 0));
}

const orderFields = (order: PlatformOrder): ordersRepo.OrderFields => ({
  status: order.status,
  platformStatus: order.platformStatus,
  currency: order.currency,
  total: order.total,
  platformUpdatedAt: order.updatedAt,
  externalUrl: order.externalUrl,
});

/** Whether the record holds these fields already. */
const sameFields = (row: ordersRepo.OrderRow, fields: ordersRepo.OrderFields) =>
  row.status === fields.status &&
  row.platformStatus === fields.platformStatus &&
  row.currency === fields.currency &&
  row.total === fields.total &&
  row.platformUpdatedAt.getTime() === fields.platformUpdatedAt.getTime() &&
  row.externalUrl === fields.externalUrl;

type ViewLine = PlatformOrder['lines'][number];

/** What a recorded line gives back to the pool: the units it holds beyond those the view says it still sells. */
const giveBackOf = (row: ordersRepo.OrderLineRow, line: ViewLine, status: PlatformOrder['status']) =>
  Math.max(0, row.stockTaken - row.stockReturned - (takesStock(status) ? line.quantity : 0));

/** Whether a recorded line is as the view says: its units and price, and nothing to give back. */
const sameLine = (row: ordersRepo.OrderLineRow, line: ViewLine, status: PlatformOrder['status']) =>
  giveBackOf(row, line, status) === 0 && line.quantity === row.quantity && line.price === row.price;

/**
 * Whether the view says what the record holds: its fields, and each line as recorded. Such an order (a poll, or
 * Amazon's search after a burst, reading it again) is left before any stock is locked, so reading it again never makes
 * another intake of the same products wait.
 */
function unchanged(recorded: ordersRepo.OrderRecord, view: PlatformOrder): boolean {
  if (!sameFields(recorded, orderFields(view))) return false;
  const known = new Map(recorded.lines.map((line) => [line.externalId, line]));
  return view.lines.every((line) => {
    const row = known.get(line.externalId);
    return row !== undefined && sameLine(row, line, view.status);
  });
}

/**
 * The orders as the intake leaves them, by id, from what it read and wrote (each order is locked, so no other intake
 * changed them meanwhile): each record with its changed fields, its changed lines and its new ones, in their order.
 */
function recordsNow(
  recorded: readonly ordersRepo.OrderRecord[],
  changedOrders: readonly ordersRepo.OrderRow[],
  insertedLines: readonly ordersRepo.OrderLineRow[],
  changedLines: readonly ordersRepo.OrderLineRow[],
): Map<number, ordersRepo.OrderRecord> {
  const orderNow = new Map(changedOrders.map((row) => [row.id, row]));
  const lineNow = new Map(changedLines.map((line) => [line.id, line]));
  const added = new Map<number, ordersRepo.OrderLineRow[]>();
  for (const line of insertedLines) added.set(line.orderId, [...(added.get(line.orderId) ?? []), line]);
  return new Map(
    recorded.map((record) => {
      const lines = [...record.lines.map((line) => lineNow.get(line.id) ?? line), ...(added.get(record.id) ?? [])];
      return [record.id, { ...record, ...orderNow.get(record.id), lines: lines.sort((a, b) => a.position - b.position) }];
    }),
  );
}

export function createOrderIntake(deps: { db: Db; clock: Clock; outbox: Outbox; listings: Pick<ListingWork, 'sendAll'> }): OrderIntake {
  const { db, clock } = deps;

  async function record(tx: Db, site: SiteRow, given: readonly PlatformOrder[], asWritten: boolean): Promise<string> {
    const now = clock.now();
    const views = newestViews(given);
    // Set when the site's orders began to count, and never changed: the site as its job loaded it has it.
    const from = site.ordersFrom ?? (await ordersRepo.ordersFrom(tx, site.id, now));
    const inserted = new Map(
      (
        await ordersRepo.insertOrders(
          tx,
          views.map((view) => ({
            ...orderFields(view),
            workspaceId: site.workspaceId,
            siteId: site.id,
            platformId: site.platformId,
            externalId: view.externalId,
            placedAt: view.placedAt,
            history: view.placedAt < from,
          })),
          now,
        )
      ).map((row) => [row.externalId, row]),
    );
    const locked = await ordersRepo.lockOrders(
      tx,
      site.id,
      views.filter((view) => !inserted.has(view.externalId)).map((view) => view.externalId),
    );
    let older = 0;
    let same = 0;
    const taking: Taken[] = [];
    for (const view of views) {
      const row = inserted.get(view.externalId);
      const recorded = row ? { ...row, lines: [] } : locked.get(view.externalId);
      if (!recorded) throw new Error(`order ${view.externalId} of site ${site.id} is neither new nor recorded`);
      if (!row && recorded.platformUpdatedAt > view.updatedAt) {
        older++;
        continue;
      }
      if (!row && unchanged(recorded, view)) {
        same++;
        continue;
      }
      const counts = !recorded.history && takesStock(view.status);
      taking.push({
        view,
        recorded,
        inserted: Boolean(row),
        counts,
        taken: 0,
        returned: 0,
        movedStock: false,
        linesChanged: false,
        oversold: [],
      });
    }

    const variants = await ordersRepo.variantsOfSkus(
      tx,
      site.workspaceId,
      taking.flatMap(({ view }) => view.lines.flatMap((line) => (line.sku ? [line.sku] : []))),
    );
    const touched = [
      ...variants.values(),
      ...taking.flatMap(({ recorded }) =>
        recorded.lines.flatMap((l) => (l.variantId ? [{ id: l.variantId, productId: l.productId! }] : [])),
      ),
    ];

    // What each line does to the pool, made together in one statement below.
    const moves: ordersRepo.StockMove[] = [];
    /** The order each move is made for. */
    const movers: Taken[] = [];
    const move = (order: Taken, variant: { id: number; productId: number }, delta: number): number => {
      moves.push({
        variantId: variant.id,
        delta,
        why: { reason: delta < 0 ? 'order' : 'cancellation', orderId: order.recorded.id, at: now },
        soldAt: order.view.placedAt,
      });
      movers.push(order);
      return moves.length - 1;
    };
    const newLines: { order: Taken; line: ordersRepo.OrderLineInsert; take: number | null }[] = [];
    const lineChanges: ordersRepo.LineChange[] = [];

    for (const order of taking) {
      const known = new Map(order.recorded.lines.map((line) => [line.externalId, line]));
      let position = order.recorded.lines.length;
      for (const line of order.view.lines) {
        const row = known.get(line.externalId);
        if (row) {
          // The units the line still sells are covered first by what it took; the rest goes back.
          const giveBack = giveBackOf(row, line, order.view.status);
          if (giveBack > 0 && row.variantId !== null) move(order, { id: row.variantId, productId: row.productId! }, giveBack);
          if (sameLine(row, line, order.view.status)) continue;
          // Given back in the record even where the variant is gone: the line no longer holds those units.
          lineChanges.push({
            id: row.id,
            quantity: line.quantity,
            price: line.price ?? row.price,
            stockReturned: row.stockReturned + giveBack,
          });
          order.returned += giveBack;
          order.linesChanged = true;
          continue;
        }
        const variant = line.sku ? variants.get(line.sku) : undefined;
        newLines.push({
          order,
          line: {
            orderId: order.recorded.id,
            workspaceId: site.workspaceId,
            siteId: site.id,
            externalId: line.externalId,
            position: position++,
            sku: line.sku,
            productId: variant?.productId ?? null,
            variantId: variant?.id ?? null,
            externalListingId: line.externalListingId,
            quantity: line.quantity,
            price: line.price,
          },
          take: variant && order.counts && line.quantity > 0 ? move(order, variant, -line.quantity) : null,
        });
      }
    }

    /**
     * Writes what the moves' answers decide (each line's stock taken and its issues, the orders as they are now, their
     * events and audit entries), and answers what the intake did.
     */
    const write = async (results: readonly (ordersRepo.StockAnswer | null)[]): Promise<string> => {
      results.forEach((result, at) => {
        if (result) movers[at]!.movedStock = true;
      });
      const insertedLines = await ordersRepo.insertLines(
        tx,
        newLines.map(({ order, line, take }) => {
          const took = take === null ? 0 : -(results[take]?.change ?? 0);
          order.taken += took;
          const issues: ListingIssue[] = [];
          if (line.variantId === null)
            issues.push(
              issue(
                'unknown_sku',
                line.sku
                  ? `No variant of the catalogue has the sku ${line.sku}; the line took no stock.`
                  : `The item sold on ${PLATFORM_NAMES[site.platform]} has no sku; the line took no stock.`,
              ),
            );
          else if (take !== null && took < line.quantity) {
            issues.push(issue('oversold', `Sold ${line.quantity} with ${took} in stock: ${line.quantity - took} more than the pool held.`));
            order.oversold.push({ externalId: line.externalId, short: line.quantity - took });
          }
          return { ...line, stockTaken: took, issues };
        }),
      );
      const changedLines = await ordersRepo.updateLines(tx, lineChanges);
      // An order seen again as it was recorded is left as it is (a poll reads each order of its window again).
      const changedOrders = await ordersRepo.updateOrders(
        tx,
        taking.flatMap((order) => {
          const fields = orderFields(order.view);
          return !order.inserted && (order.linesChanged || !sameFields(order.recorded, fields)) ? [{ id: order.recorded.id, fields }] : [];
        }),
        now,
      );
      const saved = recordsNow(
        taking.map((order) => order.recorded),
        changedOrders,
        insertedLines,
        changedLines,
      );

      const events: OutboxEvent[] = [];
      const audits: auditRepo.AuditEntry[] = [];
      const verbs = new Map<string, number>();
      let taken = 0;
      let returned = 0;
      for (const order of taking) {
        const row = saved.get(order.recorded.id)!;
        const statusChanged = !order.inserted && order.recorded.status !== order.view.status;
        taken += order.taken;
        returned += order.returned;
        const verb = order.inserted
          ? order.recorded.history
            ? 'recorded as history'
            : 'recorded'
          : statusChanged || order.linesChanged
            ? 'updated'
            : 'unchanged';
        verbs.set(verb, (verbs.get(verb) ?? 0) + 1);
        if (order.recorded.history) continue;
        const event: WebhookEvent | null = order.inserted
          ? 'order.created'
          : statusChanged && order.view.status === 'cancelled'
            ? 'order.cancelled'
            : statusChanged || order.linesChanged
              ? 'order.updated'
              : null;
        const data = { order: presentOrder(row) };
        if (event) events.push({ type: event, data });
        for (const { externalId, short } of order.oversold) {
          const line = row.lines.find((l) => l.externalId === externalId)!;
          events.push({
            type: 'stock.oversold',
            data: { ...data, line: presentLine(line), product_id: line.productId, variant_id: line.variantId, sku: line.sku, short },
          });
        }
        if (event || order.movedStock)
          audits.push({
            action: order.inserted ? 'order.recorded' : 'order.changed',
            actorUserId: null,
            subjectType: 'order',
            subjectId: row.id,
            ipAddress: null,
            details: {
              // The order by its number on the site, and the site by its name.
              site: site.name,
              site_id: site.id,
              external_id: order.view.externalId,
              status: order.view.status,
              stock_taken: order.taken,
              stock_returned: order.returned,
            },
          });
      }
      await deps.outbox.emitMany(tx, site.workspaceId, events, now);
      await auditRepo.recordAudits(tx, site.workspaceId, audits, now);

      if (same > 0) verbs.set('unchanged', (verbs.get('unchanged') ?? 0) + same);
      const what = [...verbs].map(([verb, n]) => `${n} ${verb}`);
      if (older > 0) what.push(`${older} an older view, left`);
      const subject = views.length === 1 ? `order ${views[0]!.externalId}` : `${views.length} orders`;
      return `${subject}: ${what.join(', ')}; ${taken} taken, ${returned} given back`;
    };

    /**
     * Locks, moves and counts the stock, and retargets the listings of every product whose pool moved (see the module's
     * note), in one statement (ordersRepo.takeStock): from here to the commit, the pools wait.
     */
    const take = () =>
      ordersRepo.takeStock(
        tx,
        touched.map((v) => v.productId),
        touched.map((v) => v.id),
        moves,
        now,
        site.id,
      );

    if (!asWritten) {
      const { answers, retargeted } = await take();
      const said = await write(answers);
      await deps.listings.sendAll(tx, retargeted);
      return said;
    }
    // Written first as though each move is made as asked, then checked against the moves made: held to the commit from
    // the take are its answer's check and the queueing of the listings' work alone. A line's product and variant are
    // checked at the commit (migrations 0032 and 0034), so its insert takes no lock on them before the take locks them
    // in id order.
    const said = await write(moves.map((m) => ({ change: m.delta })));
    const { answers, retargeted } = await take();
    if (answers.some((answer, at) => answer?.change !== moves[at]!.delta)) throw new StockNotAsWritten();
    await deps.listings.sendAll(tx, retargeted);
    return said;
  }

  return {
    async record(site, orders) {
      if (orders.length === 0) return 'no order';
      try {
        return await db.transaction((tx) => record(tx, site, orders, true));
      } catch (error) {
        if (!(error instanceof StockNotAsWritten)) throw error;
      }
      // A pool short of a sale (oversold), or a variant gone meanwhile: made again, the stock taken before anything is
      // written.
      return db.transaction((tx) => record(tx, site, orders, false));
    },
  };
}
