/** Products with their variants and images, always scoped to a workspace. Transactions are the service's. */
import { and, asc, count, eq, ilike, inArray, notInArray, or, type SQL, sql } from 'drizzle-orm';
import type { Db } from './client.js';
import { productImages, products, productVariants } from './schema.js';

export type ProductRow = typeof products.$inferSelect;
export type VariantRow = typeof productVariants.$inferSelect;
export type ImageRow = typeof productImages.$inferSelect;

/** A product with its variants and images in their order. */
export interface ProductRecord extends ProductRow {
  variants: VariantRow[];
  images: ImageRow[];
}

/** The product columns a write sets. */
export type ProductFields = Pick<
  ProductRow,
  'title' | 'description' | 'brand' | 'tags' | 'attributes' | 'currency' | 'options' | 'package'
>;

export interface VariantFields {
  id?: number;
  sku: string;
  optionValues: Record<string, string>;
  price: string;
  quantity: number;
  barcode: string | null;
}

export interface ImageFields {
  id?: number;
  url: string;
  alt: string | null;
  mediaSha256: string | null;
}

/** `%` and `_` are LIKE's wildcards: a search for them finds them, nothing else. */
const likePattern = (text: string) => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

function matching(workspaceId: number, q: string | undefined): SQL {
  const inWorkspace = eq(products.workspaceId, workspaceId);
  if (!q) return inWorkspace;
  const pattern = likePattern(q);
  const bySku = sql`exists (select 1 from ${productVariants} where ${productVariants.productId} = ${products.id} and ${productVariants.sku} ilike ${pattern})`;
  return and(inWorkspace, or(ilike(products.title, pattern), bySku))!;
}

export async function listProducts(
  db: Db,
  workspaceId: number,
  page: { limit: number; offset: number },
  q?: string,
): Promise<{ rows: ProductRecord[]; total: number }> {
  const where = matching(workspaceId, q);
  const [rows, [totals]] = await Promise.all([
    db.select().from(products).where(where).orderBy(asc(products.id)).limit(page.limit).offset(page.offset),
    db.select({ total: count() }).from(products).where(where),
  ]);
  return { rows: await withParts(db, rows), total: totals?.total ?? 0 };
}

/** Every product of the workspace in id order, a batch at a time (the CSV export). */
export async function* allProducts(db: Db, workspaceId: number, batch = 500): AsyncGenerator<ProductRecord> {
  let after = 0;
  for (;;) {
    const rows = await db
      .select()
      .from(products)
      .where(and(eq(products.workspaceId, workspaceId), sql`${products.id} > ${after}`))
      .orderBy(asc(products.id))
      .limit(batch);
    if (rows.length === 0) return;
    yield* await withParts(db, rows);
    after = rows.at(-1)!.id;
  }
}

/** The variants and images of the rows, each list in its order. */
async function withParts(db: Db, rows: ProductRow[]): Promise<ProductRecord[]> {
  if (rows.length === 0) return [];
  const ids = rows.map((r) => r.id);
  const [variants, images] = await Promise.all([
    db.select().from(productVariants).where(inArray(productVariants.productId, ids)).orderBy(asc(productVariants.position)),
    db.select().from(productImages).where(inArray(productImages.productId, ids)).orderBy(asc(productImages.position)),
  ]);
  return rows.map((row) => ({
    ...row,
    variants: variants.filter((v) => v.productId === row.id),
    images: images.filter((i) => i.productId === row.id),
  }));
}

/** One product of the workspace; `forUpdate` locks its row until the transaction ends. */
export async function findProduct(db: Db, workspaceId: number, id: number, forUpdate = false): Promise<ProductRecord | null> {
  const query = db
    .select()
    .from(products)
    .where(and(eq(products.workspaceId, workspaceId), eq(products.id, id)));
  const [row] = forUpdate ? await query.for('update') : await query;
  return row ? ((await withParts(db, [row]))[0] ?? null) : null;
}

/** The skus of the workspace among `skus`, with the product each belongs to. */
export async function productsOfSkus(db: Db, workspaceId: number, skus: readonly string[]): Promise<Map<string, number>> {
  if (skus.length === 0) return new Map();
  const rows = await db
    .select({ sku: productVariants.sku, productId: productVariants.productId })
    .from(productVariants)
    .where(and(eq(productVariants.workspaceId, workspaceId), inArray(productVariants.sku, [...skus])));
  return new Map(rows.map((r) => [r.sku, r.productId]));
}

export async function insertProduct(db: Db, workspaceId: number, fields: ProductFields, now: Date): Promise<ProductRow> {
  const [row] = await db
    .insert(products)
    .values({ ...fields, workspaceId, createdAt: now, updatedAt: now })
    .returning();
  return row!;
}

/** Writes the fields and bumps the version. */
export async function updateProduct(db: Db, id: number, fields: Partial<ProductFields>, now: Date): Promise<void> {
  await db
    .update(products)
    .set({ ...fields, version: sql`${products.version} + 1`, updatedAt: now })
    .where(eq(products.id, id));
}

export async function deleteProduct(db: Db, id: number): Promise<void> {
  await db.delete(products).where(eq(products.id, id));
}

/**
 * Makes the product's variants exactly `variants`, in their order: those given with an id are updated in place, the
 * others inserted, and the product's variants not given deleted. Skus move between kept variants in two steps (first to
 * a placeholder no sku can equal), so a swap never meets the workspace's unique constraint half done.
 */
export async function replaceVariants(
  db: Db,
  product: { id: number; workspaceId: number },
  variants: readonly VariantFields[],
  now: Date,
): Promise<void> {
  const kept = variants.filter((v) => v.id !== undefined).map((v) => v.id!);
  await db
    .delete(productVariants)
    .where(
      kept.length > 0
        ? and(eq(productVariants.productId, product.id), notInArray(productVariants.id, kept))
        : eq(productVariants.productId, product.id),
    );
  if (kept.length > 0) {
    await db
      .update(productVariants)
      .set({ sku: sql`'~' || ${productVariants.id}` })
      .where(and(eq(productVariants.productId, product.id), inArray(productVariants.id, kept)));
  }
  for (const [position, variant] of variants.entries()) {
    const fields = { ...variant, position, updatedAt: now };
    if (variant.id !== undefined) {
      await db
        .update(productVariants)
        .set(fields)
        .where(and(eq(productVariants.id, variant.id), eq(productVariants.productId, product.id)));
    } else {
      await db.insert(productVariants).values({ ...fields, productId: product.id, workspaceId: product.workspaceId, createdAt: now });
    }
  }
}

/** Makes the product's images exactly `images`, in their order, as replaceVariants does for variants. */
export async function replaceImages(db: Db, productId: number, images: readonly ImageFields[], now: Date): Promise<void> {
  const kept = images.filter((i) => i.id !== undefined).map((i) => i.id!);
  await db
    .delete(productImages)
    .where(
      kept.length > 0
        ? and(eq(productImages.productId, productId), notInArray(productImages.id, kept))
        : eq(productImages.productId, productId),
    );
  for (const [position, image] of images.entries()) {
    const fields = { ...image, position, updatedAt: now };
    if (image.id !== undefined) {
      await db
        .update(productImages)
        .set(fields)
        .where(and(eq(productImages.id, image.id), eq(productImages.productId, productId)));
    } else {
      await db.insert(productImages).values({ ...fields, productId, createdAt: now });
    }
  }
}

/** Adds one image after the product's others; answers it. */
export async function appendImage(db: Db, productId: number, image: ImageFields, now: Date): Promise<ImageRow> {
  const [last] = await db
    .select({ position: sql<number>`coalesce(max(${productImages.position}), -1)` })
    .from(productImages)
    .where(eq(productImages.productId, productId));
  const [row] = await db
    .insert(productImages)
    .values({ ...image, productId, position: Number(last?.position ?? -1) + 1, createdAt: now, updatedAt: now })
    .returning();
  return row!;
}
