/**
 * The TikTok Shop simulator's product API (listings.md §2, DESIGN §10 "Sandbox"): categories with their rules and
 * attributes, brands, the seller's responsible persons, manufacturers and size charts (compliance.ts), warehouses, image upload, the listing check, products from create through audit, edits, price
 * and stock, the batch activate/deactivate/delete calls, the sandbox's inspection of what an account's shops hold and
 * its seller's edits made outside Storelink, and the stock of products a consent can give the shops (stock.ts).
 */
import multipart from '@fastify/multipart';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { SandboxContext } from '../context.js';
import { attributesOf, BRANDS, CATEGORIES, categoryOf, rulesOf, warehousesOf } from './categories.js';
import { registerComplianceSearches } from './compliance.js';
import { sendNotification } from './notifications.js';
import type { Grant } from './open-api.js';
import { registerProductBatches, registerProductUpdates } from './product-edits.js';
import { PRODUCT_ERRORS as E } from './product-errors.js';
import { createProductGuard, type ProductGuard } from './product-guard.js';
import { FILE_BYTES_MAX, registerProductImages } from './product-images.js';
import { presentInspected, presentProduct, presentSummary } from './product-present.js';
import { checkProduct, priceProblem, shopFacts } from './product-rules.js';
import {
  createProductStore,
  type PreApprovedReason,
  type ProductStatus,
  type ProductStore,
  type Sku,
  type StoredProduct,
} from './product-store.js';
import { everyShopOf, sandboxShops } from './shops.js';
import { type StockChoice, stockShops } from './stock.js';

const BODY_LIMIT = 1024 * 1024;
const PAGE_SIZE_MAX = 100;
const IDEMPOTENCY_KEY_MAX = 128;
const AUDIT_SWEEP_MS = 1_000;
/** Sandbox accounts from this number on have shops that are not ready to list (no return warehouse). */
const UNREADY_ACCOUNTS_FROM = 900_000;

/**
 * Registers the product API in a scope of its own, where JSON bodies stay text so their signature can be checked; answers
 * how to stock an account's shops with products made outside Storelink (stock.ts), and the product store (the orders'
 * sales take their units from it).
 */
export function registerTikTokShopProductApi(app: FastifyInstance, context: SandboxContext) {
  const store = createProductStore(context);
  // Audits settle when they are due even if Storelink calls nothing meanwhile, so their webhooks reach it unasked.
  const sweep = setInterval(() => store.settleDue(), AUDIT_SWEEP_MS);
  sweep.unref();
  app.addHook('onClose', async () => clearInterval(sweep));
  void app.register(async (scope) => {
    scope.addContentTypeParser('application/json', { parseAs: 'string', bodyLimit: BODY_LIMIT }, (_request, body, done) =>
      done(null, body),
    );
    // Images up to 10 MB, files (Upload Product File's PDFs) up to 20 MB; each route checks its own.
    await scope.register(multipart, { limits: { fileSize: FILE_BYTES_MAX + 1, files: 1, fields: 2, parts: 3 } });
    const guard = createProductGuard(context, store);
    registerReferenceData(scope, guard);
    registerComplianceSearches(scope, guard);
    registerProductImages(scope, context, guard, store);
    registerProducts(scope, guard, store);
    registerProductUpdates(scope, guard, store);
    registerProductBatches(scope, guard, store);
    registerInspection(scope, store);
    registerSellerEdits(scope, store, context);
  });
  return {
    store,
    stock: (grant: Grant, choice: StockChoice) => stockShops(context, store, grant, choice),
    /** The prerequisite the grant's shops lack from now on (null: none). */
    lack: (grant: Grant, reason: PreApprovedReason | null) => {
      for (const shop of sandboxShops(grant.account, grant.shops, grant.market)) store.lack(shop.id, reason);
    },
  };
}

function registerReferenceData(app: FastifyInstance, guard: ProductGuard) {
  app.get('/product/202309/categories', async (request, reply) => {
    if (!(await guard.admit(request, reply, { operation: 'get_categories' }))) return reply;
    return guard.succeed(reply, { categories: CATEGORIES });
  });
  const leafOf = (reply: FastifyReply, id: string) => {
    const category = categoryOf(id);
    if (!category) return (void guard.fail(reply, E.categoryMissing), null);
    return category.is_leaf ? category : (void guard.fail(reply, E.categoryNotLeaf), null);
  };
  app.get('/product/202309/categories/:categoryId/rules', async (request, reply) => {
    const admitted = await guard.admit(request, reply, { operation: 'get_category_rules' });
    if (!admitted) return reply;
    const category = leafOf(reply, (request.params as { categoryId: string }).categoryId);
    return category ? guard.succeed(reply, rulesOf(category.id, admitted.shop)) : reply;
  });
  app.get('/product/202309/categories/:categoryId/attributes', async (request, reply) => {
    if (!(await guard.admit(request, reply, { operation: 'get_attributes' }))) return reply;
    const category = leafOf(reply, (request.params as { categoryId: string }).categoryId);
    return category ? guard.succeed(reply, { attributes: attributesOf(category.id) }) : reply;
  });
  app.get('/product/202309/brands', async (request, reply) => {
    const admitted = await guard.admit(request, reply, { operation: 'get_brands' });
    if (!admitted) return reply;
    if (admitted.query.category_id !== undefined && !categoryOf(admitted.query.category_id)) return guard.fail(reply, E.categoryMissing);
    return guard.succeed(reply, { brands: BRANDS, total_count: BRANDS.length, next_page_token: '' });
  });
  // Check Prerequisites (listings.md §2.3): whether the shop may list products. ASSUMPTION: which items TikTok checks
  // beyond the two listings.md names, and their wording; the sandbox's accounts 900000 and above have no return
  // warehouse, so a shop that is not ready can be tried.
  app.get('/product/202312/prerequisites', async (request, reply) => {
    const admitted = await guard.admit(request, reply, { operation: 'check_prerequisites' });
    if (!admitted) return reply;
    const unready = Number(BigInt(admitted.shop.id) % 1_000_000n) >= UNREADY_ACCOUNTS_FROM;
    const item = (check_item: string, failed: boolean, reason: string) => ({
      check_item,
      is_failed: failed,
      fail_reasons: failed ? [reason] : [],
    });
    return guard.succeed(reply, {
      check_results: [
        item('RETURN_WAREHOUSE', unready, 'The shop has no return warehouse. Add one in Seller Center > Logistics > Warehouses.'),
        item('SHIPPING_TEMPLATE', false, 'The shop has no shipping template.'),
      ],
    });
  });
  app.get('/logistics/202309/warehouses', async (request, reply) => {
    const admitted = await guard.admit(request, reply, { operation: 'get_warehouses' });
    if (!admitted) return reply;
    return guard.succeed(reply, { warehouses: warehousesOf(admitted.shop.id, admitted.shop.region) });
  });
}

/** Check Product Listing's diagnoses: ASSUMPTION on the codes, tiers and wording, which listings.md only names. */
function diagnosesOf(body: Record<string, unknown>) {
  const diagnoses = [];
  if (typeof body.title === 'string' && body.title.length < 25)
    diagnoses.push({
      field: 'title',
      diagnosis_results: [{ code: 'TITLE_TOO_SHORT', how_to_solve: 'Use a title of at least 25 characters.', quality_tier: 'POOR' }],
      suggestions: [],
    });
  if (!Array.isArray(body.main_images) || body.main_images.length < 3)
    diagnoses.push({
      field: 'main_images',
      diagnosis_results: [{ code: 'FEW_MAIN_IMAGES', how_to_solve: 'Add at least 3 main images.', quality_tier: 'POOR' }],
      suggestions: [],
    });
  return diagnoses;
}

function registerProducts(app: FastifyInstance, guard: ProductGuard, store: ProductStore) {
  app.post('/product/202309/products/listing_check', async (request, reply) => {
    const admitted = await guard.admit(request, reply, { operation: 'check_listing', fault: 'listing' });
    if (!admitted) return reply;
    const { problems } = checkProduct(admitted.body, shopFacts(admitted.shop, { ...store, nextSkuId: () => '0' }));
    const diagnoses = diagnosesOf(admitted.body);
    return guard.succeed(reply, {
      check_result: problems.length === 0 ? 'PASS' : 'FAILED',
      fail_reasons: problems.map(([code, message]) => ({ code, message })),
      listing_quality: { current_tier: diagnoses.length === 0 ? 'GOOD' : 'POOR' },
      diagnoses,
    });
  });

  app.post('/product/202309/products', async (request, reply) => {
    const admitted = await guard.admit(request, reply, { operation: 'create_product', fault: 'listings' });
    if (!admitted) return reply;
    const { shop, body } = admitted;
    const key = body.idempotency_key;
    if (key !== undefined && (typeof key !== 'string' || key.length === 0 || key.length > IDEMPOTENCY_KEY_MAX))
      return guard.fail(reply, E.fieldInvalid('idempotency_key', `must be 1 to ${IDEMPOTENCY_KEY_MAX} characters.`));
    const remembered = typeof key === 'string' ? store.remembered(shop.id, key) : undefined;
    if (remembered) return guard.succeed(reply, remembered, 'listings');
    // The day's allowance of new products (listings.md §2.2): a create past it is refused and counts nothing.
    const uploads = store.uploadsOf(shop.id);
    if (uploads.count >= uploads.limit) return guard.fail(reply, E.dailyUploadsSpent(String(uploads.limit)));
    const checked = checkProduct(body, shopFacts(shop, store));
    if (checked.problems.length > 0) return guard.fail(reply, checked.problems[0]!);
    const product = store.add(shop.id, checked.version, body.save_mode === 'AS_DRAFT');
    store.countUpload(shop.id);
    const answer = {
      product_id: product.id,
      skus: product.version.skus.map(({ id, seller_sku, sales_attributes, external_sku_id }) => ({
        id,
        seller_sku,
        sales_attributes,
        external_sku_id,
      })),
      warnings: checked.warnings,
    };
    if (typeof key === 'string') store.remember(shop.id, key, answer);
    return guard.succeed(reply, answer, 'listings');
  });

  app.get('/product/202309/products/:productId', async (request, reply) => {
    const admitted = await guard.admit(request, reply, { operation: 'get_product', fault: 'listing' });
    if (!admitted) return reply;
    const product = store.get((request.params as { productId: string }).productId);
    if (!product) return guard.fail(reply, E.productMissing);
    if (product.shopId !== admitted.shop.id) return guard.fail(reply, E.otherSellersProduct);
    return guard.succeed(reply, presentProduct(product, admitted.query.return_under_review_version === 'true'));
  });

  app.post('/product/202309/products/search', async (request, reply) => {
    const admitted = await guard.admit(request, reply, { operation: 'search_products', fault: 'listings' });
    if (!admitted) return reply;
    const { query, body, shop } = admitted;
    const size = Number(query.page_size);
    if (!/^[0-9]{1,3}$/.test(query.page_size ?? '') || size < 1 || size > PAGE_SIZE_MAX)
      return guard.fail(reply, E.fieldInvalid('page_size', `must be 1 to ${PAGE_SIZE_MAX}.`));
    const offset = query.page_token ? Number(Buffer.from(query.page_token, 'base64url').toString()) : 0;
    if (!Number.isInteger(offset) || offset < 0) return guard.fail(reply, E.fieldInvalid('page_token', 'is invalid.'));
    // ASSUMPTION: no status or ALL lists every product but the deleted ones.
    const status = typeof body.status === 'string' && body.status !== 'ALL' ? (body.status as ProductStatus) : null;
    const skus = Array.isArray(body.seller_skus) ? (body.seller_skus as unknown[]).map(String) : null;
    // `update_time_ge` / `update_time_le`: unix seconds, both ends included (listings.md §2.4's body filters).
    const times: Record<string, number> = {};
    for (const field of ['update_time_ge', 'update_time_le'] as const) {
      const value = body[field];
      if (value === undefined) continue;
      if (!Number.isInteger(value) || (value as number) < 0) return guard.fail(reply, E.fieldInvalid(field, 'must be unix seconds.'));
      times[field] = value as number;
    }
    const updated = (product: StoredProduct) => Math.floor(product.updateTime / 1000);
    const found = store
      .ofShop(shop.id)
      .filter((product) => (status ? product.status === status : product.status !== 'DELETED'))
      .filter((product) => !skus || product.version.skus.some((sku) => skus.includes(sku.seller_sku)))
      .filter((product) => times.update_time_ge === undefined || updated(product) >= times.update_time_ge)
      .filter((product) => times.update_time_le === undefined || updated(product) <= times.update_time_le);
    const page = found.slice(offset, offset + size);
    const next = offset + size < found.length ? Buffer.from(String(offset + size)).toString('base64url') : '';
    return guard.succeed(reply, { products: page.map(presentSummary), next_page_token: next, total_count: found.length });
  });
}

/**
 * `GET /sandbox/tiktok-shop/accounts/{account}/listings`: what the simulated shops of a sandbox account hold, without
 * auth (sandbox only), in DESIGN §10's shape plus TikTok's status, the audit's reasons and the last change.
 */
function registerInspection(app: FastifyInstance, store: ProductStore) {
  app.get('/accounts/:account/listings', async (request, reply) => {
    const account = (request.params as { account: string }).account;
    if (!/^[0-9]{1,6}$/.test(account) || Number(account) === 0)
      return reply.code(400).send({ error: 'account must be a sandbox account number' });
    return everyShopOf(Number(account)).flatMap((shop) => store.ofShop(shop.id).map(presentInspected));
  });
  // Each shop's creates today against its daily allowance (the day's count TikTok keeps).
  app.get('/accounts/:account/uploads', async (request, reply) => {
    const account = (request.params as { account: string }).account;
    if (!/^[0-9]{1,6}$/.test(account) || Number(account) === 0)
      return reply.code(400).send({ error: 'account must be a sandbox account number' });
    return everyShopOf(Number(account)).map((shop) => ({ shop_id: shop.id, ...store.uploadsOf(shop.id) }));
  });
  // The seller completed what the account's shops lacked (their KYC, a category's permission): the pre-approved
  // products go on sale, as TikTok releases them, and later audits pass. The answer is what the shops hold.
  app.post('/accounts/:account/prerequisites/complete', async (request, reply) => {
    const account = (request.params as { account: string }).account;
    if (!/^[0-9]{1,6}$/.test(account) || Number(account) === 0)
      return reply.code(400).send({ error: 'account must be a sandbox account number' });
    for (const shop of everyShopOf(Number(account))) store.complete(shop.id);
    return everyShopOf(Number(account)).flatMap((shop) => store.ofShop(shop.id).map(presentInspected));
  });
}

const QUANTITY_MAX = 99_999;
const PRICE = /^[0-9]{1,9}(\.[0-9]{1,2})?$/;

interface SkuEdit {
  price?: string;
  quantity?: number;
  inventory?: { warehouse_id: string; quantity: number }[];
}

/** The problem with a seller's stock by warehouse (`[{warehouse_id, quantity}]`, each a warehouse of the shop once), or null. */
function inventoryEditProblem(inventory: unknown, warehouses: readonly string[]): string | null {
  if (inventory === undefined) return null;
  if (!Array.isArray(inventory) || inventory.length === 0) return 'inventory must be a list of {warehouse_id, quantity}';
  const seen = new Set<string>();
  for (const entry of inventory as { warehouse_id?: unknown; quantity?: unknown }[]) {
    const id = entry?.warehouse_id;
    if (typeof id !== 'string' || !warehouses.includes(id) || seen.has(id))
      return `inventory names each of the shop's warehouses (${warehouses.join(', ')}) at most once`;
    seen.add(id);
    const problem = editProblem({ quantity: entry.quantity });
    if (problem) return problem;
  }
  return null;
}

/** The problem with a seller's price or quantity, or null. */
function editProblem(edit: { price?: unknown; quantity?: unknown }): string | null {
  if (edit.price !== undefined && !(typeof edit.price === 'string' && PRICE.test(edit.price)))
    return 'price must be decimal text, as "12.50"';
  if (
    edit.quantity !== undefined &&
    !(Number.isInteger(edit.quantity) && (edit.quantity as number) >= 0 && (edit.quantity as number) <= QUANTITY_MAX)
  )
    return `quantity must be a whole number from 0 to ${QUANTITY_MAX}`;
  return null;
}

/** A SKU's stock set to `quantity`: all of it in its first warehouse, none left in the others. */
const restocked = (sku: Sku, quantity: number) =>
  sku.inventory.length === 0
    ? []
    : sku.inventory.map((entry, i) => ({ warehouse_id: entry.warehouse_id, quantity: i === 0 ? quantity : 0 }));

/**
 * `PATCH /sandbox/tiktok-shop/accounts/{account}/listings/{product_id}`: the seller editing the product in Seller Center,
 * outside Storelink (sandbox only, no auth), so a change made on the platform can be tried: `{title?, price?, quantity?,
 * skus?: [{sku, price?, quantity?}]}`, `price` and `quantity` for every SKU, `skus` for the SKUs of those seller skus.
 * Price and stock change the live product at once, as TikTok's own price and stock changes do (no audit); ASSUMPTION: a
 * title edited in Seller Center goes back to TikTok's audit there, and here it is applied at once, with no audit, to keep
 * the seller's edit simple. A price is kept with two decimals, as Seller Center shows it ("20" is "20.00"); a quantity
 * is the SKU's stock in its first warehouse, none left in the others. A SKU's `inventory: [{warehouse_id, quantity}]`
 * stocks it in those of the shop's warehouses (Get Warehouse List), so a SKU kept in several warehouses can be tried (a
 * stock update must then name each, 12019028). A version under audit takes the edit too.
 * `state: "inactive"` deactivates a live product (SELLER_DEACTIVATED), `"active"` activates a deactivated one, which
 * goes back to audit (PENDING), as the API's own activate does. TikTok tells the app as it would (listings.md §2.9): a
 * product information change (type 15) for a title, price or stock edit, a product status change (type 5) for a state
 * edit; ASSUMPTION: each with `product_id` and `update_time` in `data`, as type 5's sample has them. The answer is the
 * product as the inspection shows it.
 */
function registerSellerEdits(app: FastifyInstance, store: ProductStore, context: SandboxContext) {
  app.patch('/accounts/:account/listings/:productId', async (request, reply) => {
    const params = request.params as { account: string; productId: string };
    if (!/^[0-9]{1,6}$/.test(params.account) || Number(params.account) === 0)
      return reply.code(400).send({ error: 'account must be a sandbox account number' });
    const product = store.get(params.productId);
    const shop = everyShopOf(Number(params.account)).find((each) => each.id === product?.shopId);
    if (!product || !shop || product.status === 'DELETED')
      return reply.code(404).send({ error: 'No such product in the shops of this account' });
    if (product.status === 'FREEZE') return reply.code(409).send({ error: 'TikTok Shop froze the product: the seller cannot edit it' });
    let body: Record<string, unknown>;
    try {
      body = typeof request.body === 'string' && request.body.trim() !== '' ? JSON.parse(request.body) : {};
    } catch {
      return reply.code(400).send({ error: 'the body must be JSON' });
    }
    if (typeof body !== 'object' || body === null || Array.isArray(body))
      return reply.code(400).send({ error: 'the body must be a JSON object' });
    if (body.title !== undefined && !(typeof body.title === 'string' && body.title.trim() !== '' && body.title.length <= 255))
      return reply.code(400).send({ error: 'title must be 1 to 255 characters' });
    const all = { price: body.price, quantity: body.quantity };
    const problem = editProblem(all);
    if (problem) return reply.code(400).send({ error: problem });
    if (body.skus !== undefined && !Array.isArray(body.skus)) return reply.code(400).send({ error: 'skus must be a list' });
    if (body.state !== undefined && body.state !== 'active' && body.state !== 'inactive')
      return reply.code(400).send({ error: 'state must be active or inactive' });
    if (body.state === 'inactive' && product.status !== 'ACTIVATE' && product.status !== 'SELLER_DEACTIVATED')
      return reply.code(409).send({ error: `a ${product.status} product cannot be deactivated` });
    if (body.state === 'active' && product.status !== 'SELLER_DEACTIVATED' && product.status !== 'ACTIVATE')
      return reply.code(409).send({ error: `a ${product.status} product cannot be activated` });
    const edits = new Map<string, SkuEdit>();
    for (const sku of product.version.skus) edits.set(sku.seller_sku, { ...(all as SkuEdit) });
    const warehouses = warehousesOf(shop.id, shop.region).map((warehouse) => warehouse.id);
    for (const edit of (body.skus ?? []) as { sku?: unknown; price?: unknown; quantity?: unknown; inventory?: unknown }[]) {
      const known = typeof edit?.sku === 'string' ? edits.get(edit.sku) : undefined;
      if (!known) return reply.code(400).send({ error: `No SKU with the seller sku ${String(edit?.sku)}` });
      const skuProblem = editProblem(edit) ?? inventoryEditProblem(edit.inventory, warehouses);
      if (skuProblem) return reply.code(400).send({ error: skuProblem });
      if (edit.quantity !== undefined && edit.inventory !== undefined)
        return reply.code(400).send({ error: 'give a SKU its quantity or its inventory by warehouse, not both' });
      Object.assign(
        known,
        edit.price === undefined ? {} : { price: edit.price },
        edit.quantity === undefined ? {} : { quantity: edit.quantity },
        edit.inventory === undefined
          ? {}
          : {
              quantity: undefined,
              inventory: (edit.inventory as SkuEdit['inventory'])!.map(({ warehouse_id, quantity }) => ({ warehouse_id, quantity })),
            },
      );
    }
    for (const sku of product.version.skus) {
      const price = edits.get(sku.seller_sku)?.price;
      const refused = price === undefined ? null : priceProblem({ amount: price, currency: sku.price.currency }, shop.region);
      if (refused) return reply.code(400).send({ error: refused[1] });
    }
    for (const version of [product.version, ...(product.review ? [product.review.version] : [])]) {
      if (typeof body.title === 'string') version.title = body.title;
      for (const sku of version.skus) {
        const edit = edits.get(sku.seller_sku);
        if (edit?.price !== undefined) sku.price = { amount: Number(edit.price).toFixed(2), currency: sku.price.currency };
        if (edit?.quantity !== undefined) sku.inventory = restocked(sku, edit.quantity);
        if (edit?.inventory !== undefined) sku.inventory = edit.inventory.map((entry) => ({ ...entry }));
      }
    }
    const informationChanged =
      body.title !== undefined ||
      [...edits.values()].some((edit) => edit.price !== undefined || edit.quantity !== undefined || edit.inventory !== undefined);
    let statusChanged = false;
    if (body.state === 'inactive' && product.status === 'ACTIVATE') {
      product.status = 'SELLER_DEACTIVATED';
      statusChanged = true;
    } else if (body.state === 'active' && product.status === 'SELLER_DEACTIVATED') {
      product.status = 'PENDING';
      store.submit(product, product.version);
      statusChanged = true;
    }
    store.touch(product);
    const data = (extra: Record<string, unknown>) => ({
      product_id: product.id,
      ...extra,
      update_time: Math.floor(product.updateTime / 1000),
    });
    if (informationChanged) sendNotification(context, 15, product.shopId, data({}));
    if (statusChanged) sendNotification(context, 5, product.shopId, data({ status: 'PRODUCT_STATUS_CHANGED', suspended_reason: '' }));
    return presentInspected(product);
  });
}
