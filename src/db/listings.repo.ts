/** Listings (DESIGN §10), always scoped to a workspace. Transactions are the service's. */
import { and, eq, ne, sql } from 'drizzle-orm';
import type { Db } from './client.js';
import { listings } from './schema.js';

/** Whether the product has a listing on some site that is not `deleted` (its deletion is then refused, 409). */
export async function productIsListed(db: Db, productId: number): Promise<boolean> {
  const rows = await db
    .select({ one: sql<number>`1` })
    .from(listings)
    .where(and(eq(listings.productId, productId), ne(listings.status, 'deleted')))
    .limit(1);
  return rows.length > 0;
}
