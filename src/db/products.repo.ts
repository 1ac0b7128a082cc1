/** Products with their variants and images, always scoped to a workspace. Transactions are the service's (but for countMatches). */
import { and, asc, eq, getTableColumns, inArray, like, notInArray, type SQL, sql } from 'drizzle-orm';
import { NodePgDatabase } from 'drizzle-orm/node-postgres';
import type { StockReason } from '../domain/index.js';
import type { Db } from './client.js';
import { productImages, productSearchTotals, products, productVariants } from './schema.js';

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
  'title' | 'handle' | 'description' | 'brand' | 'tags' | 'attributes' | 'currency' | 'options' | 'package' | 'search'
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

/** The workspace's products, or those whose title or a sku holds `q` in any case (see the `search` column). */
function matching(workspaceId: number, q: string | undefined): SQL {
  const inWorkspace = eq(products.workspaceId, workspaceId);
  return q ? and(inWorkspace, like(products.search, likePattern(q.toLowerCase())))! : inWorkspace;
}

/**
 * A page of the workspace's products (of those matching `q`), as the API shows them (`presentProduct`), written by the
 * database as JSON text: `items` is the page's products joined by commas, ready to be put between brackets and sent
 * unparsed. Turning 25 products into rows, objects and back into 10 KB of JSON was most of a search's CPU time in Node;
 * written by the database, Node's share of a search is about 0.6 of what it was (BENCHMARKS.md, "Catalogue search").
 * Text kept as jsonb (tags, attributes, options, a variant's option values) comes as PostgreSQL writes jsonb, with a
 * space after `:` and `,`.
 *
 * One call of storelink_products_page (migration 0035, which says how it plans the page's ids for their `q` and keeps
 * the JSON's plan), in one round trip and one snapshot. And how many match in all: the page tells the total when it is
 * not full (and not empty past the end); otherwise the call reads the total a search of `q` last counted, kept while it
 * holds (productSearchTotals), and only when there is none are the matches counted, once, for the pages after. A
 * window's `count(*) over ()` would count every match on every page, and copies every match aside first: twice the
 * count's time on PGlite.
 */
export async function listProductsJson(
  db: Db,
  workspaceId: number,
  page: { limit: number; offset: number },
  q?: string,
): Promise<{ items: string; total: number }> {
  const key = q?.toLowerCase() ?? '';
  const [row] = await pageStatement(db).execute({ workspaceId, pattern: q ? likePattern(key) : null, key, ...page });
  const { items, count, known } = row!;
  const told = count < page.limit && (count > 0 || page.offset === 0);
  const total = told ? page.offset + count : (known ?? (await countMatches(db, workspaceId, key, matching(workspaceId, q))));
  return { items, total };
}

/**
 * The page's statement, built once per database rather than on every request (Drizzle's building of a select was most
 * of a search's CPU time in the service); named on PostgreSQL, so each connection parses it once (PGlite's driver
 * sends every statement unnamed).
 */
function pageStatement(db: Db) {
  let statement = PAGE_STATEMENTS.get(db);
  if (!statement) {
    statement = preparePage(db, (db as unknown) instanceof NodePgDatabase);
    PAGE_STATEMENTS.set(db, statement);
  }
  return statement;
}

const preparePage = (db: Db, named: boolean) => {
  const p = (name: string) => sql.placeholder(name);
  return db
    .select({ items: sql<string>`page.items`, count: sql<number>`page.count`, known: sql<number | null>`page.known` })
    .from(sql`storelink_products_page(${p('workspaceId')}, ${p('pattern')}, ${p('key')}, ${p('limit')}, ${p('offset')}) as page`)
    .prepare(named ? 'products_page' : '');
};

const PAGE_STATEMENTS = new WeakMap<Db, ReturnType<typeof preparePage>>();

/** The advisory lock (two-key form, this class and the workspace) between counting a search and changing products. */
const SEARCH_TOTALS_LOCK = 0x5ea2_c407;
/** Searches whose totals a workspace keeps: the most recently counted. */
const SEARCH_TOTALS_KEPT = 100;

/**
 * Counts the workspace's products matching `where` and keeps the total under `key` when it may. The lock is held shared
 * by every transaction that has changed the workspace's products (their triggers take it) until it ends; taken here
 * exclusively, it proves none is in flight, so the count sees every change that deleted kept totals, and holds off the
 * next change until this transaction ends, so that change deletes this total: no kept total outlives a change
 * (migration 0023). While a change is in flight the matches are counted and not kept, rather than waiting for it (an
 * import can hold it for seconds).
 */
async function countMatches(db: Db, workspaceId: number, key: string, where: SQL): Promise<number> {
  return db.transaction(async (tx) => {
    const locked = await tx.execute(sql`select pg_try_advisory_xact_lock(${SEARCH_TOTALS_LOCK}, ${workspaceId}::int) as held`);
    if (!rowsOf<{ held: boolean }>(locked)[0]!.held) {
      const counted = await tx.execute(sql`select count(*)::int as total from ${products} where ${where}`);
      return Number(rowsOf<{ total: number }>(counted)[0]!.total);
    }
    const counted = await tx.execute(sql`
      insert into ${productSearchTotals} (workspace_id, q, total)
      select ${workspaceId}::int, ${key}::text, count(*)::int from ${products} where ${where}
      on conflict (workspace_id, q) do update set total = excluded.total, counted_at = now()
      returning total`);
    await tx.execute(sql`delete from ${productSearchTotals} where workspace_id = ${workspaceId} and q in (
      select q from ${productSearchTotals} where workspace_id = ${workspaceId} order by counted_at desc offset ${SEARCH_TOTALS_KEPT})`);
    return Number(rowsOf<{ total: number }>(counted)[0]!.total);
  });
}

/** A variant and an image as `json_build_object` gives them: money as text (never a JSON number), times as ISO text. */
type VariantJson = Omit<VariantRow, 'productId' | 'workspaceId' | 'createdAt' | 'updatedAt'> & { createdAt: string; updatedAt: string };
type ImageJson = Omit<ImageRow, 'productId' | 'createdAt' | 'updatedAt'> & { createdAt: string; updatedAt: string };
const VARIANT_JSON = sql.raw(`'id', v.id, 'position', v.position, 'sku', v.sku, 'optionValues', v.option_values,
  'price', v.price::text, 'quantity', v.quantity, 'barcode', v.barcode, 'createdAt', v.created_at, 'updatedAt', v.updated_at`);
const IMAGE_JSON = sql.raw(`'id', i.id, 'position', i.position, 'url', i.url, 'alt', i.alt, 'mediaSha256', i.media_sha256,
  'createdAt', i.created_at, 'updatedAt', i.updated_at`);

/**
 * A product with its variants and images, read in one statement. Inside the subqueries `${products.id}` would be a bare
 * "id", the variant's or the image's: named with its table.
 */
const WHOLE = {
  ...getTableColumns(products),
  variants: sql<VariantJson[]>`coalesce((select json_agg(json_build_object(${VARIANT_JSON}) order by v.position)
    from ${productVariants} v where v.product_id = ${products}.id), '[]')`,
  images: sql<ImageJson[]>`coalesce((select json_agg(json_build_object(${IMAGE_JSON}) order by i.position)
    from ${productImages} i where i.product_id = ${products}.id), '[]')`,
};

function recordOf({ variants, images, ...product }: ProductRow & { variants: VariantJson[]; images: ImageJson[] }): ProductRecord {
  return {
    ...product,
    variants: variants.map((v) => ({
      ...v,
      productId: product.id,
      workspaceId: product.workspaceId,
      createdAt: new Date(v.createdAt),
      updatedAt: new Date(v.updatedAt),
    })),
    images: images.map((i) => ({ ...i, productId: product.id, createdAt: new Date(i.createdAt), updatedAt: new Date(i.updatedAt) })),
  };
}

/** Every product of the workspace in id order, a batch at a time (the CSV export). */
export async function* allProducts(db: Db, workspaceId: number, batch = 500): AsyncGenerator<ProductRecord> {
  let after = 0;
  for (;;) {
    const rows = await db
      .select(WHOLE)
      .from(products)
      .where(and(eq(products.workspaceId, workspaceId), sql`${products.id} > ${after}`))
      .orderBy(asc(products.id))
      .limit(batch);
    if (rows.length === 0) return;
    yield* rows.map(recordOf);
    after = rows.at(-1)!.id;
  }
}

/** Rows per statement of the batch reads and writes below (the CSV import's). */
const BATCH = 1_000;

function chunks<T>(items: readonly T[], size = BATCH): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/**
 * Rows as one jsonb parameter, for `jsonb_to_recordset`: a thousand rows cost one parameter rather than thousands
 * (each of which Drizzle would build and the database bind). Text with U+0000 cannot be jsonb: callers refuse it first.
 */
const recordset = (rows: readonly object[]) => sql`jsonb_to_recordset(${JSON.stringify(rows)}::jsonb)`;
const ids = (values: readonly number[]) => sql`(select value::int from jsonb_array_elements_text(${JSON.stringify(values)}::jsonb))`;
const at = (now: Date) => sql`${now.toISOString()}::timestamptz`;

/** Products of the workspace among `ids`, with their parts, in id order; `forUpdate` locks their rows. */
export async function findProducts(db: Db, workspaceId: number, ids: readonly number[], forUpdate = false): Promise<ProductRecord[]> {
  const found: ProductRecord[] = [];
  for (const batch of chunks([...new Set(ids)].sort((a, b) => a - b))) {
    const query = db
      .select(WHOLE)
      .from(products)
      .where(and(eq(products.workspaceId, workspaceId), inArray(products.id, batch)))
      .orderBy(asc(products.id));
    found.push(...(forUpdate ? await query.for('update', { of: products }) : await query).map(recordOf));
  }
  return found;
}

/** Every attribute key the workspace's products use (the CSV export's attribute columns). */
export async function attributeKeys(db: Db, workspaceId: number): Promise<string[]> {
  const rows = await db
    .selectDistinct({ key: sql<string>`jsonb_object_keys(${products.attributes})` })
    .from(products)
    .where(eq(products.workspaceId, workspaceId));
  return rows.map((r) => r.key);
}

/** New products, a statement per thousand; their ids in the order given. */
export async function insertProducts(db: Db, workspaceId: number, fields: readonly ProductFields[], now: Date): Promise<number[]> {
  const made: number[] = [];
  for (const batch of chunks(fields)) {
    const result = await db.execute(sql`
      insert into ${products} (workspace_id, title, handle, description, brand, tags, attributes, currency, options, package, search, created_at, updated_at)
      select ${workspaceId}::int, v.title, v.handle, v.description, v.brand, v.tags, v.attributes, v.currency, v.options,
        nullif(v.package, 'null'::jsonb), v.search, ${at(now)}, ${at(now)}
      from ${recordset(batch.map((f, n) => ({ ...f, n })))}
        as v(n int, title text, handle text, description text, brand text, tags jsonb, attributes jsonb, currency text, options jsonb, package jsonb, search text)
      order by v.n
      returning id`);
    // Ids are drawn in the order rows are inserted, the order of n.
    made.push(
      ...rowsOf<{ id: number }>(result)
        .map((r) => Number(r.id))
        .sort((a, b) => a - b),
    );
  }
  return made;
}

/** Writes every field of each product and bumps its version, a statement per thousand. */
export async function updateProducts(db: Db, changes: readonly { id: number; fields: ProductFields }[], now: Date): Promise<void> {
  for (const batch of chunks(changes)) {
    await db.execute(sql`
      update ${products} as p set title = v.title, handle = v.handle, description = v.description, brand = v.brand, tags = v.tags,
        attributes = v.attributes, currency = v.currency, options = v.options, package = nullif(v.package, 'null'::jsonb),
        search = v.search, version = p.version + 1, updated_at = ${at(now)}
      from ${recordset(batch.map(({ id, fields }) => ({ ...fields, id })))}
        as v(id int, title text, handle text, description text, brand text, tags jsonb, attributes jsonb, currency text, options jsonb, package jsonb, search text)
      where p.id = v.id`);
  }
}

type VariantRowFields = Omit<VariantFields, 'id'> & { productId: number; workspaceId: number; position: number };

async function insertVariantRows(db: Db, rows: readonly VariantRowFields[], now: Date): Promise<void> {
  for (const batch of chunks(rows)) {
    await db.execute(sql`
      insert into ${productVariants} (product_id, workspace_id, position, sku, option_values, price, quantity, barcode, created_at, updated_at)
      select v.product_id, v.workspace_id, v.position, v.sku, v.option_values, v.price, v.quantity, v.barcode, ${at(now)}, ${at(now)}
      from ${recordset(batch.map(variantRecord))}
        as v(product_id int, workspace_id int, position int, sku text, option_values jsonb, price numeric, quantity int, barcode text)`);
  }
}

const variantRecord = (v: VariantRowFields & { id?: number }) => ({
  id: v.id,
  product_id: v.productId,
  workspace_id: v.workspaceId,
  position: v.position,
  sku: v.sku,
  option_values: v.optionValues,
  price: v.price,
  quantity: v.quantity,
  barcode: v.barcode,
});

/** The variants of new products, each product's in its order. */
export async function insertVariants(
  db: Db,
  lists: readonly { product: { id: number; workspaceId: number }; variants: readonly VariantFields[] }[],
  now: Date,
): Promise<void> {
  const rows = lists.flatMap(({ product, variants }) =>
    variants.map(({ id: _id, ...variant }, position) => ({
      ...variant,
      position,
      productId: product.id,
      workspaceId: product.workspaceId,
    })),
  );
  await insertVariantRows(db, rows, now);
}

/** replaceVariants for many products at once, a few statements per thousand products whatever their variants. */
export async function replaceVariantsOfProducts(
  db: Db,
  lists: readonly { product: { id: number; workspaceId: number }; variants: readonly VariantFields[] }[],
  now: Date,
): Promise<void> {
  for (const batch of chunks(lists)) {
    const rows = batch.flatMap(({ product, variants }) =>
      variants.map((variant, position) => ({ ...variant, position, productId: product.id, workspaceId: product.workspaceId })),
    );
    const kept = rows.filter((row) => row.id !== undefined);
    await db.execute(sql`
      delete from ${productVariants} where product_id in ${ids(batch.map((l) => l.product.id))}
        and id not in ${ids(kept.map((row) => row.id!))}`);
    // As in replaceVariants: kept variants first take a sku no variant can have, so skus may move between them.
    await db.execute(sql`update ${productVariants} set sku = '~' || id where id in ${ids(kept.map((row) => row.id!))}`);
    await db.execute(sql`
      update ${productVariants} as pv set position = v.position, sku = v.sku, option_values = v.option_values, price = v.price,
        quantity = v.quantity, barcode = v.barcode, updated_at = ${at(now)}
      from ${recordset(kept.map(variantRecord))}
        as v(id int, product_id int, position int, sku text, option_values jsonb, price numeric, quantity int, barcode text)
      where pv.id = v.id and pv.product_id = v.product_id`);
    await insertVariantRows(
      db,
      rows.filter((row) => row.id === undefined),
      now,
    );
  }
}

type ImageRowFields = Omit<ImageFields, 'id'> & { productId: number; position: number };

const imageRecord = (i: ImageRowFields & { id?: number }) => ({
  id: i.id,
  product_id: i.productId,
  position: i.position,
  url: i.url,
  alt: i.alt,
  media_sha256: i.mediaSha256,
});

async function insertImageRows(db: Db, rows: readonly ImageRowFields[], now: Date): Promise<void> {
  for (const batch of chunks(rows)) {
    await db.execute(sql`
      insert into ${productImages} (product_id, position, url, alt, media_sha256, created_at, updated_at)
      select v.product_id, v.position, v.url, v.alt, v.media_sha256, ${at(now)}, ${at(now)}
      from ${recordset(batch.map(imageRecord))} as v(product_id int, position int, url text, alt text, media_sha256 text)`);
  }
}

/** The images of new products, each product's in its order. */
export async function insertImages(
  db: Db,
  lists: readonly { productId: number; images: readonly ImageFields[] }[],
  now: Date,
): Promise<void> {
  await insertImageRows(
    db,
    lists.flatMap(({ productId, images }) => images.map(({ id: _id, ...image }, position) => ({ ...image, position, productId }))),
    now,
  );
}

/** replaceImages for many products at once. */
export async function replaceImagesOfProducts(
  db: Db,
  lists: readonly { productId: number; images: readonly ImageFields[] }[],
  now: Date,
): Promise<void> {
  for (const batch of chunks(lists)) {
    const rows = batch.flatMap(({ productId, images }) => images.map((image, position) => ({ ...image, position, productId })));
    const kept = rows.filter((row) => row.id !== undefined);
    await db.execute(sql`
      delete from ${productImages} where product_id in ${ids(batch.map((l) => l.productId))}
        and id not in ${ids(kept.map((row) => row.id!))}`);
    await db.execute(sql`
      update ${productImages} as pi set position = v.position, url = v.url, alt = v.alt, media_sha256 = v.media_sha256,
        updated_at = ${at(now)}
      from ${recordset(kept.map(imageRecord))} as v(id int, product_id int, position int, url text, alt text, media_sha256 text)
      where pi.id = v.id and pi.product_id = v.product_id`);
    await insertImageRows(
      db,
      rows.filter((row) => row.id === undefined),
      now,
    );
  }
}

/** The rows of a raw statement, on either driver (both answer `{ rows }`). */
const rowsOf = <T>(result: unknown) => (result as { rows: T[] }).rows;

/** One product of the workspace; `forUpdate` locks its row until the transaction ends. */
export async function findProduct(db: Db, workspaceId: number, id: number, forUpdate = false): Promise<ProductRecord | null> {
  const query = db
    .select(WHOLE)
    .from(products)
    .where(and(eq(products.workspaceId, workspaceId), eq(products.id, id)));
  const [row] = forUpdate ? await query.for('update', { of: products }) : await query;
  return row ? recordOf(row) : null;
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

/** The workspace's products holding any of `handles`, by handle. */
export async function productsOfHandles(db: Db, workspaceId: number, handles: readonly string[]): Promise<Map<string, number>> {
  if (handles.length === 0) return new Map();
  const rows = await db
    .select({ handle: products.handle, id: products.id })
    .from(products)
    .where(and(eq(products.workspaceId, workspaceId), inArray(products.handle, [...handles])));
  return new Map(rows.map((r) => [r.handle, r.id]));
}

/** The workspace's handles that are `base` or `base-<anything>`: what a handle made from a title must not be. */
export async function handlesLike(db: Db, workspaceId: number, base: string): Promise<Set<string>> {
  // `base` is [a-z0-9-]: no LIKE wildcard in it.
  const rows = await db
    .select({ handle: products.handle })
    .from(products)
    .where(and(eq(products.workspaceId, workspaceId), like(products.handle, `${base}%`)));
  return new Set(rows.map((r) => r.handle));
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

/** Gathers the planner's statistics of the catalogue's tables (ANALYZE: reads a sample, locks out no reader or writer). */
export async function analyzeCatalogue(db: Db): Promise<void> {
  await db.execute(sql`analyze ${products}, ${productVariants}, ${productImages}`);
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

/**
 * Says why the quantities the rest of the caller's transaction changes changed: the stock movement trigger (migration
 * 0016) records it with each change. A later call in the same transaction replaces it.
 */
export async function explainStockChange(
  db: Db,
  why: { reason: StockReason; orderId?: number | null; actorUserId?: number | null; at: Date },
): Promise<void> {
  const value = JSON.stringify({
    reason: why.reason,
    order_id: why.orderId ?? null,
    actor_user_id: why.actorUserId ?? null,
    at: why.at.toISOString(),
  });
  await db.execute(sql`select set_config('storelink.stock_change', ${value}, true)`);
}
