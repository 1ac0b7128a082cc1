/**
 * Orders, their lines and the stock pool (DESIGN §14): what the order intake writes in one transaction, and what the API
 * reads. Transactions are the caller's.
 */
import { and, asc, count, desc, eq, gte, inArray, lt, or, type SQL, sql } from 'drizzle-orm';
import type { OrderStatus } from '../domain/index.js';
import type { Db } from './client.js';
import { orderLines, orders, products, productVariants, sites, stockMovements, users } from './schema.js';

export type OrderRow = typeof orders.$inferSelect;
export type OrderLineRow = typeof orderLines.$inferSelect;
export type StockMovementRow = typeof stockMovements.$inferSelect;

/** An order with its lines in their order. */
export interface OrderRecord extends OrderRow {
  lines: OrderLineRow[];
}

/** The order of the site with the platform's id, locked for the caller's transaction; null when none is recorded. */
export async function lockOrder(db: Db, siteId: number, externalId: string): Promise<OrderRecord | null> {
  const [row] = await db
    .select()
    .from(orders)
    .where(and(eq(orders.siteId, siteId), eq(orders.externalId, externalId)))
    .for('update');
  if (!row) return null;
  return { ...row, lines: await linesOf(db, row.id) };
}

async function linesOf(db: Db, orderId: number): Promise<OrderLineRow[]> {
  return db.select().from(orderLines).where(eq(orderLines.orderId, orderId)).orderBy(asc(orderLines.position));
}

/** The order with its lines as they are now. */
export async function orderWithLines(db: Db, row: OrderRow): Promise<OrderRecord> {
  return { ...row, lines: await linesOf(db, row.id) };
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
 * Inserts the order unless the site holds it already: two readers of one order (a poll and a notification, two
 * instances) race here, and the loser gets null and reads the winner's record locked (lockOrder).
 */
export async function insertOrder(
  db: Db,
  fields: Omit<typeof orders.$inferInsert, 'id' | 'createdAt' | 'updatedAt'>,
  now: Date,
): Promise<OrderRow | null> {
  const [row] = await db
    .insert(orders)
    .values({ ...fields, createdAt: now, updatedAt: now })
    .onConflictDoNothing({ target: [orders.siteId, orders.externalId] })
    .returning();
  return row ?? null;
}

export async function updateOrder(db: Db, id: number, fields: Partial<Omit<OrderRow, 'id' | 'createdAt'>>, now: Date): Promise<OrderRow> {
  const [row] = await db
    .update(orders)
    .set({ ...fields, updatedAt: now })
    .where(eq(orders.id, id))
    .returning();
  return row!;
}

export async function insertLine(db: Db, fields: Omit<typeof orderLines.$inferInsert, 'id'>): Promise<OrderLineRow> {
  const [row] = await db.insert(orderLines).values(fields).returning();
  return row!;
}

export async function updateLine(db: Db, id: number, fields: Partial<Omit<OrderLineRow, 'id' | 'orderId'>>): Promise<OrderLineRow> {
  const [row] = await db.update(orderLines).set(fields).where(eq(orderLines.id, id)).returning();
  return row!;
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
 * Locks the products, then the variants, whose stock the caller's transaction may move, each in id order: the order a
 * seller's edit takes them in (its product, then its variants), so two orders selling the same skus in different
 * orders, or an order and an edit, wait for each other instead of deadlocking.
 */
export async function lockStock(db: Db, productIds: readonly number[], variantIds: readonly number[]): Promise<void> {
  const ids = (list: readonly number[]) => JSON.stringify([...new Set(list)]);
  if (productIds.length > 0)
    await db.execute(sql`
      select id from ${products}
      where id in (select value::int from jsonb_array_elements_text(${ids(productIds)}::jsonb)) order by id for update`);
  if (variantIds.length > 0)
    await db.execute(sql`
      select id from ${productVariants}
      where id in (select value::int from jsonb_array_elements_text(${ids(variantIds)}::jsonb)) order by id for update`);
}

/**
 * Takes up to `units` off the variant's pool in one statement, under the row's lock: what the pool holds after it is
 * what it held less the units, never below 0, whatever a seller's edit or another sale did a moment before. Answers the
 * units taken (fewer than asked when the pool could not cover them) and what is left; null when the variant is gone.
 */
export async function takeStock(db: Db, variantId: number, units: number): Promise<{ taken: number; after: number } | null> {
  const result = await db.execute(sql`
    with before as (select id, quantity from ${productVariants} where id = ${variantId} for update)
    update ${productVariants} as v set quantity = greatest(before.quantity - ${units}, 0)
    from before where v.id = before.id
    returning before.quantity - v.quantity as taken, v.quantity as after`);
  const [row] = (result as unknown as { rows: { taken: number; after: number }[] }).rows;
  return row ? { taken: Number(row.taken), after: Number(row.after) } : null;
}

/** Gives `units` back to the variant's pool in one statement; false when the variant is gone. */
export async function giveStock(db: Db, variantId: number, units: number): Promise<boolean> {
  const rows = await db
    .update(productVariants)
    .set({ quantity: sql`${productVariants.quantity} + ${units}` })
    .where(eq(productVariants.id, variantId))
    .returning({ id: productVariants.id });
  return rows.length > 0;
}

/** Every change of a product counts: `version` + 1 on the products whose stock a sale or a cancellation moved. */
export async function bumpProducts(db: Db, productIds: readonly number[], now: Date): Promise<void> {
  if (productIds.length === 0) return;
  await db
    .update(products)
    .set({ version: sql`${products.version} + 1`, updatedAt: now })
    .where(inArray(products.id, [...productIds]));
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

async function withLines(db: Db, rows: OrderRow[]): Promise<OrderRecord[]> {
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
