/**
 * Orders, their lines and the stock pool (DESIGN §14): what the order intake writes in one transaction, and what the API
 * reads. Transactions are the caller's.
 */
import { and, asc, count, desc, eq, gte, inArray, lt, or, type SQL, sql } from 'drizzle-orm';
import type { OrderStatus, StockReason } from '../domain/index.js';
import type { Db } from './client.js';
import { selectRows } from './json-rows.js';
import { orderLines, orders, productVariants, sites, stockMovements, users } from './schema.js';

export type OrderRow = typeof orders.$inferSelect;
export type OrderLineRow = typeof orderLines.$inferSelect;
export type StockMovementRow = typeof stockMovements.$inferSelect;

/** An order with its lines in their order. */
export interface OrderRecord extends OrderRow {
  lines: OrderLineRow[];
}

/**
 * The site's recorded orders of these platform ids, locked for the caller's transaction in id order (two intakes of the
 * same orders wait for each other rather than deadlock), with their lines; by platform id.
 */
export async function lockOrders(db: Db, siteId: number, externalIds: readonly string[]): Promise<Map<string, OrderRecord>> {
  if (externalIds.length === 0) return new Map();
  const rows = await db
    .select()
    .from(orders)
    .where(and(eq(orders.siteId, siteId), inArray(orders.externalId, [...externalIds])))
    .orderBy(asc(orders.id))
    .for('update');
  return new Map((await withLines(db, rows)).map((order) => [order.externalId, order]));
}

/** Of these platform ids, those the site holds no order of. */
export async function unrecordedOf(db: Db, siteId: number, externalIds: readonly string[]): Promise<string[]> {
  if (externalIds.length === 0) return [];
  const rows = await db
    .select({ externalId: orders.externalId })
    .from(orders)
    .where(and(eq(orders.siteId, siteId), inArray(orders.externalId, [...externalIds])));
  const held = new Set(rows.map((row) => row.externalId));
  return externalIds.filter((id) => !held.has(id));
}

/**
 * When the site's orders began to count: set to `now` by the first caller (its first connection, or the first read of
 * a site connected before orders existed), and read by the rest.
 */
export async function ordersFrom(db: Db, siteId: number, now: Date): Promise<Date> {
  const [site] = await db.select({ from: sites.ordersFrom }).from(sites).where(eq(sites.id, siteId));
  if (site?.from) return site.from;
  // To the second: platforms date orders in whole seconds (Etsy, TikTok Shop), so an order placed in the second of the
  // connection, after it, must not read as placed before it.
  const second = new Date(Math.floor(now.getTime() / 1000) * 1000);
  const [row] = await db
    .update(sites)
    .set({ ordersFrom: sql`coalesce(${sites.ordersFrom}, ${second.toISOString()}::timestamptz)` })
    .where(eq(sites.id, siteId))
    .returning({ from: sites.ordersFrom });
  return row?.from ?? second;
}

/**
 * Inserts the orders the site does not hold yet, in the order given, and answers those it inserted. Two readers of one
 * order (a poll and a notification, two instances) race here: the loser's insert waits for the winner's transaction,
 * then skips the order, and the loser reads the winner's record locked (lockOrders). Callers give the orders in the
 * platform's id order, so two intakes of overlapping pages wait for each other rather than deadlock.
 */
export async function insertOrders(
  db: Db,
  rows: readonly Omit<typeof orders.$inferInsert, 'id' | 'createdAt' | 'updatedAt'>[],
  now: Date,
): Promise<OrderRow[]> {
  if (rows.length === 0) return [];
  return db
    .insert(orders)
    .select(
      selectRows(
        orders,
        rows.map((fields) => ({ ...fields, createdAt: now, updatedAt: now })),
      ),
    )
    .onConflictDoNothing({ target: [orders.siteId, orders.externalId] })
    .returning();
}

/** An order's fields as its platform's view sets them. */
export type OrderFields = Pick<OrderRow, 'status' | 'platformStatus' | 'currency' | 'total' | 'platformUpdatedAt' | 'externalUrl'>;

/**
 * Sets each order's fields, all in one statement (a page of a poll can change a hundred orders' status, in a
 * transaction that holds the stock of their products); answers the rows as they are now, in no particular order.
 */
export async function updateOrders(db: Db, changes: readonly { id: number; fields: OrderFields }[], now: Date): Promise<OrderRow[]> {
  if (changes.length === 0) return [];
  const json = JSON.stringify(
    changes.map(({ id, fields }) => ({
      id,
      status: fields.status,
      platform_status: fields.platformStatus,
      currency: fields.currency,
      total: fields.total,
      platform_updated_at: fields.platformUpdatedAt.toISOString(),
      external_url: fields.externalUrl,
    })),
  );
  return db
    .update(orders)
    .set({
      status: sql`v.status`,
      platformStatus: sql`v.platform_status`,
      currency: sql`v.currency`,
      total: sql`v.total`,
      platformUpdatedAt: sql`v.platform_updated_at`,
      externalUrl: sql`v.external_url`,
      updatedAt: now,
    })
    .from(
      sql`jsonb_to_recordset(${json}::jsonb) as v(id integer, status text, platform_status text, currency text, total numeric,
        platform_updated_at timestamptz, external_url text)`,
    )
    .where(eq(orders.id, sql`v.id`))
    .returning();
}

export type OrderLineInsert = Omit<typeof orderLines.$inferInsert, 'id'>;

/** Inserts the lines and answers them as stored. */
export async function insertLines(db: Db, rows: readonly OrderLineInsert[]): Promise<OrderLineRow[]> {
  return rows.length > 0 ? db.insert(orderLines).select(selectRows(orderLines, rows)).returning() : [];
}

/** What a line's new view changes: its units, its price, and the units it has given back. */
export type LineChange = Pick<OrderLineRow, 'id' | 'quantity' | 'price' | 'stockReturned'>;

/** Sets each line's units, price and units given back, all in one statement; answers the rows as they are now. */
export async function updateLines(db: Db, changes: readonly LineChange[]): Promise<OrderLineRow[]> {
  if (changes.length === 0) return [];
  const json = JSON.stringify(changes.map((c) => ({ id: c.id, quantity: c.quantity, price: c.price, stock_returned: c.stockReturned })));
  return db
    .update(orderLines)
    .set({ quantity: sql`v.quantity`, price: sql`v.price`, stockReturned: sql`v.stock_returned` })
    .from(sql`jsonb_to_recordset(${json}::jsonb) as v(id integer, quantity integer, price numeric, stock_returned integer)`)
    .where(eq(orderLines.id, sql`v.id`))
    .returning();
}

/** The workspace's variants of these skus, by sku. */
export async function variantsOfSkus(
  db: Db,
  workspaceId: number,
  skus: readonly string[],
): Promise<Map<string, { id: number; productId: number }>> {
  if (skus.length === 0) return new Map();
  const rows = await db
    .select({ id: productVariants.id, productId: productVariants.productId, sku: productVariants.sku })
    .from(productVariants)
    .where(and(eq(productVariants.workspaceId, workspaceId), inArray(productVariants.sku, [...skus])));
  return new Map(rows.map((row) => [row.sku, { id: row.id, productId: row.productId }]));
}

/**
 * One move of a variant's pool: a take (negative) or a give-back (positive), why (the stock movement's reason), and when
 * the order that makes it was placed on its platform (a listing there written to since then did not count the sale).
 */
export interface StockMove {
  variantId: number;
  delta: number;
  why: { reason: StockReason; orderId: number; at: Date };
  soldAt: Date;
}

/** What a stock move did: the change made (a take that met an empty pool changes less than asked). */
export interface StockAnswer {
  change: number;
}

/** What a take did: each move's answer, in the order given (null where the variant is gone), and the listings retargeted. */
export interface StockTaken {
  answers: (StockAnswer | null)[];
  retargeted: { id: number; siteId: number }[];
}

/**
 * The intake's stock, in one statement (migrations 0031 and 0033, storelink_take_stock):
 * - locks the products, then the variants, whose stock the caller's transaction may move, each in id order: the order
 *   a seller's edit takes them in (its product, then its variants), so two orders selling the same skus in different
 *   orders, or an order and an edit, wait for each other instead of deadlocking;
 * - makes the moves one after another (migration 0017's storelink_move_stock), each under its variant's lock and with
 *   its own reason: a take leaves what the pool held less its units, never below 0, whatever a seller's edit or
 *   another sale did a moment before;
 * - counts the change on each product whose pool moved: `version` + 1, and `updated_at`;
 * - brings every listing of those products to the new version (listingsRepo.retargetListings' rule), except on the
 *   site that sold (`soldOn`) a listing in sync that nothing was written to since the product's earliest sale here:
 *   its platform set its quantity itself. A product one of whose pools reached 0 goes to that site's listings too.
 *
 * The caller holds the pools it locked until it commits, and a sale on another channel waits that long: one statement,
 * where it was five. Answers each move's change (a take that met too few units changes less than asked) and the
 * listings retargeted, whose work the caller queues. No move, no lock.
 */
export async function takeStock(
  db: Db,
  productIds: readonly number[],
  variantIds: readonly number[],
  moves: readonly StockMove[],
  now: Date,
  soldOn: number,
): Promise<StockTaken> {
  if (moves.length === 0) return { answers: [], retargeted: [] };
  const ids = (list: readonly number[]) => JSON.stringify([...new Set(list)]);
  const json = JSON.stringify(
    moves.map((move) => ({
      variant_id: move.variantId,
      delta: move.delta,
      why: JSON.stringify({ reason: move.why.reason, order_id: move.why.orderId, actor_user_id: null, at: move.why.at.toISOString() }),
      sold_at: move.soldAt.toISOString(),
    })),
  );
  const result = await db.execute(
    sql`select n, change, listing_id, listing_site_id
        from storelink_take_stock(${ids(productIds)}::jsonb, ${ids(variantIds)}::jsonb, ${json}::jsonb, ${now.toISOString()}::timestamptz, ${soldOn}::int)`,
  );
  type Row = { n: number | null; change: number; listing_id: number; listing_site_id: number };
  const taken: StockTaken = { answers: moves.map(() => null), retargeted: [] };
  for (const row of (result as unknown as { rows: Row[] }).rows)
    if (row.n === null) taken.retargeted.push({ id: Number(row.listing_id), siteId: Number(row.listing_site_id) });
    else taken.answers[Number(row.n) - 1] = { change: Number(row.change) };
  return taken;
}

export interface OrderFilter {
  siteId?: number;
  status?: OrderStatus;
  sku?: string;
  since?: Date;
}

/** A page of the workspace's orders, newest first (by `placed_at`, then id), with their lines; and how many match. */
export async function listOrders(
  db: Db,
  workspaceId: number,
  filter: OrderFilter,
  page: { limit: number; offset: number },
): Promise<{ rows: OrderRecord[]; total: number }> {
  const where = and(
    eq(orders.workspaceId, workspaceId),
    filter.siteId ? eq(orders.siteId, filter.siteId) : undefined,
    filter.status ? eq(orders.status, filter.status) : undefined,
    filter.since ? gte(orders.placedAt, filter.since) : undefined,
    filter.sku
      ? inArray(
          orders.id,
          db
            .select({ id: orderLines.orderId })
            .from(orderLines)
            .where(and(eq(orderLines.workspaceId, workspaceId), eq(orderLines.sku, filter.sku))),
        )
      : undefined,
  ) as SQL;
  const [rows, [totals]] = await Promise.all([
    db.select().from(orders).where(where).orderBy(desc(orders.placedAt), desc(orders.id)).limit(page.limit).offset(page.offset),
    db.select({ total: count() }).from(orders).where(where),
  ]);
  return { rows: await withLines(db, rows), total: totals?.total ?? 0 };
}

export async function findOrder(db: Db, workspaceId: number, id: number): Promise<OrderRecord | null> {
  const [row] = await db
    .select()
    .from(orders)
    .where(and(eq(orders.id, id), eq(orders.workspaceId, workspaceId)));
  return row ? (await withLines(db, [row]))[0]! : null;
}

/** The orders with their lines as they are now, in the order given. */
export async function withLines(db: Db, rows: readonly OrderRow[]): Promise<OrderRecord[]> {
  if (rows.length === 0) return [];
  const lines = await db
    .select()
    .from(orderLines)
    .where(
      inArray(
        orderLines.orderId,
        rows.map((row) => row.id),
      ),
    )
    .orderBy(asc(orderLines.orderId), asc(orderLines.position));
  const byOrder = new Map<number, OrderLineRow[]>();
  for (const line of lines) byOrder.set(line.orderId, [...(byOrder.get(line.orderId) ?? []), line]);
  return rows.map((row) => ({ ...row, lines: byOrder.get(row.id) ?? [] }));
}

export interface MovementFilter {
  sku?: string;
  productId?: number;
  since?: Date;
}

/** A page of the workspace's stock movements, newest first, and how many match. */
export async function listStockMovements(
  db: Db,
  workspaceId: number,
  filter: MovementFilter,
  page: { limit: number; offset: number },
): Promise<{ rows: (StockMovementRow & { actor: { id: number; email: string; name: string } | null })[]; total: number }> {
  const where = and(
    eq(stockMovements.workspaceId, workspaceId),
    filter.sku ? eq(stockMovements.sku, filter.sku) : undefined,
    filter.productId ? eq(stockMovements.productId, filter.productId) : undefined,
    filter.since ? gte(stockMovements.at, filter.since) : undefined,
  ) as SQL;
  const [rows, [totals]] = await Promise.all([
    db
      .select({ movement: stockMovements, actor: { id: users.id, email: users.email, name: users.name } })
      .from(stockMovements)
      .leftJoin(users, eq(users.id, stockMovements.actorUserId))
      .where(where)
      .orderBy(desc(stockMovements.id))
      .limit(page.limit)
      .offset(page.offset),
    db.select({ total: count() }).from(stockMovements).where(where),
  ]);
  return { rows: rows.map(({ movement, actor }) => ({ ...movement, actor })), total: totals?.total ?? 0 };
}

/**
 * Connected sites whose orders were last read `everySeconds[platform]` or more ago (never read: due now), the longest
 * waiting first, at most `limit`.
 */
export async function sitesDueForOrders(
  db: Db,
  everySeconds: Readonly<Record<string, number>>,
  now: Date,
  limit: number,
): Promise<{ id: number; workspaceId: number }[]> {
  const due = Object.entries(everySeconds).map(([platform, seconds]) =>
    and(
      eq(sites.platform, platform as never),
      or(sql`${sites.ordersReadTo} is null`, lt(sites.ordersReadTo, new Date(now.getTime() - seconds * 1000))),
    ),
  );
  if (due.length === 0) return [];
  return db
    .select({ id: sites.id, workspaceId: sites.workspaceId })
    .from(sites)
    .where(and(eq(sites.status, 'connected'), or(...due)))
    .orderBy(sql`${sites.ordersReadTo} asc nulls first`, asc(sites.id))
    .limit(limit);
}

/** Every order the platform changed before `readTo` has been read from the site. */
export async function markOrdersRead(db: Db, siteId: number, readTo: Date): Promise<void> {
  await db.update(sites).set({ ordersReadTo: readTo }).where(eq(sites.id, siteId));
}
