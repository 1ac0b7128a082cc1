/** Products, always scoped to a workspace. */
import { asc, count, eq } from 'drizzle-orm';
import type { Db } from './client.js';
import { products } from './schema.js';

export type ProductRow = typeof products.$inferSelect;
export type NewProduct = typeof products.$inferInsert;

export async function listProducts(
  db: Db,
  workspaceId: number,
  page: { limit: number; offset: number },
): Promise<{ rows: ProductRow[]; total: number }> {
  const where = eq(products.workspaceId, workspaceId);
  const [rows, [totals]] = await Promise.all([
    db.select().from(products).where(where).orderBy(asc(products.id)).limit(page.limit).offset(page.offset),
    db.select({ total: count() }).from(products).where(where),
  ]);
  return { rows, total: totals?.total ?? 0 };
}

export async function insertProducts(db: Db, rows: NewProduct[]): Promise<ProductRow[]> {
  return db.insert(products).values(rows).returning();
}
