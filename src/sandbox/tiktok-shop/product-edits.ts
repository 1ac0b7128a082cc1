/**
 * Changing a product (listings.md §2.7): Edit Product (whole, back to audit; a live product stays live on its current
 * version meanwhile), Partial Edit (the top-level fields sent, the rest kept), Update Price and Update Inventory (per SKU,
 * `ACTIVATE` only, no audit), and the batch calls activate, deactivate and delete, which answer `code: 0` with per-item
 * `errors` for the ids they could not handle.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { TikTokError } from './errors.js';
import { PRODUCT_ERRORS as E } from './product-errors.js';
import type { Admitted, ProductGuard } from './product-guard.js';
import { checkProduct, inventoryProblem, priceProblem, shopFacts } from './product-rules.js';
import type { ProductStatus, ProductStore, ProductVersion, StoredProduct } from './product-store.js';

const BATCH_MAX = 20;
/** ASSUMPTION: the statuses a full or partial edit is refused in (TikTok says frozen and deleted products cannot change). */
const NOT_EDITABLE: readonly ProductStatus[] = ['FREEZE', 'DELETED'];

/** The body of an edit in Create Product's terms, from the version it replaces. */
function bodyOf(version: ProductVersion): Record<string, unknown> {
  return {
    ...version,
    main_images: version.main_images.map(({ uri }) => ({ uri })),
    ...(version.package_dimensions ? {} : { package_dimensions: undefined }),
    ...(version.brand_id ? {} : { brand_id: undefined }),
    ...(version.size_chart ? {} : { size_chart: undefined }),
  };
}

/** The product of the path in the caller's shop, or null once an error was answered. */
function productOf(reply: FastifyReply, guard: ProductGuard, store: ProductStore, admitted: Admitted, id: string) {
  const product = store.get(id);
  if (!product) return (void guard.fail(reply, E.productMissing), null);
  if (product.shopId !== admitted.shop.id) return (void guard.fail(reply, E.otherSellersProduct), null);
  return product;
}

export function registerProductUpdates(app: FastifyInstance, guard: ProductGuard, store: ProductStore) {
  const edit = (partial: boolean) => async (request: FastifyRequest, reply: FastifyReply) => {
    const admitted = await guard.admit(request, reply, { operation: partial ? 'partial_edit_product' : 'edit_product', fault: 'listing' });
    if (!admitted) return reply;
    const product = productOf(reply, guard, store, admitted, (request.params as { productId: string }).productId);
    if (!product) return reply;
    if (NOT_EDITABLE.includes(product.status)) return guard.fail(reply, E.wrongStatus);
    const latest = product.review?.version ?? product.version;
    const body = partial ? { ...bodyOf(latest), ...admitted.body } : admitted.body;
    const checked = checkProduct(body, shopFacts(admitted.shop, store), latest.skus);
    if (checked.problems.length > 0) return guard.fail(reply, checked.problems[0]!);
    if (product.status === 'DRAFT' && admitted.body.save_mode === 'AS_DRAFT') Object.assign(product, { version: checked.version });
    else store.submit(product, checked.version);
    store.touch(product);
    const skus = checked.version.skus.map(({ id, seller_sku, sales_attributes, external_sku_id }) => ({
      id,
      seller_sku,
      sales_attributes,
      external_sku_id,
    }));
    return guard.succeed(reply, { product_id: product.id, skus, warnings: checked.warnings }, 'listing');
  };
  app.put('/product/202309/products/:productId', edit(false));
  app.post('/product/202309/products/:productId/partial_edit', edit(true));

  /** Price and stock: per SKU, on live products only, without audit (listings.md §2.7, [T9]). */
  const skuUpdate = (kind: 'prices' | 'inventory') => async (request: FastifyRequest, reply: FastifyReply) => {
    const admitted = await guard.admit(request, reply, { operation: `update_${kind}`, fault: 'inventory' });
    if (!admitted) return reply;
    const product = productOf(reply, guard, store, admitted, (request.params as { productId: string }).productId);
    if (!product) return reply;
    if (product.status !== 'ACTIVATE') return guard.fail(reply, E.wrongStatus);
    const updates = Array.isArray(admitted.body.skus) ? (admitted.body.skus as Record<string, unknown>[]) : [];
    if (updates.length === 0) return guard.fail(reply, E.fieldInvalid('skus', 'must name at least one SKU.'));
    const versions = [product.version, ...(product.review ? [product.review.version] : [])];
    for (const update of updates) {
      const sku = product.version.skus.find((each) => each.id === update?.id);
      if (!sku) return guard.fail(reply, E.fieldInvalid('skus.id', `${String(update?.id)} is not a SKU of this product.`));
      const problem: TikTokError | null =
        kind === 'prices' ? priceProblem(update.price, admitted.shop.region) : inventoryProblem(update.inventory, admitted.shop.id, 0);
      if (problem) return guard.fail(reply, problem);
      const sent = kind === 'inventory' ? (update.inventory as { warehouse_id: string }[]).map((entry) => entry.warehouse_id) : [];
      if (kind === 'inventory' && sku.inventory.some((entry) => !sent.includes(entry.warehouse_id)))
        return guard.fail(reply, E.allWarehouses);
    }
    for (const update of updates)
      for (const version of versions)
        for (const sku of version.skus.filter((each) => each.id === update.id)) {
          const price = update.price as { amount: string; currency: string };
          if (kind === 'prices') sku.price = { amount: price.amount, currency: price.currency };
          else
            sku.inventory = (update.inventory as { warehouse_id: string; quantity: number }[]).map(({ warehouse_id, quantity }) => ({
              warehouse_id,
              quantity,
            }));
        }
    store.touch(product);
    return guard.succeed(reply, {}, 'inventory');
  };
  app.post('/product/202309/products/:productId/prices/update', skuUpdate('prices'));
  app.post('/product/202309/products/:productId/inventory/update', skuUpdate('inventory'));
}

/** What a batch does to one product it may act on; an error when its status does not allow it. */
type BatchAction = (product: StoredProduct) => TikTokError | null;

export function registerProductBatches(app: FastifyInstance, guard: ProductGuard, store: ProductStore) {
  const batch = (operation: string, action: BatchAction) => async (request: FastifyRequest, reply: FastifyReply) => {
    const admitted = await guard.admit(request, reply, { operation, fault: 'listings' });
    if (!admitted) return reply;
    const ids = admitted.body.product_ids;
    if (!Array.isArray(ids) || ids.length === 0 || ids.length > BATCH_MAX || !ids.every((id) => typeof id === 'string'))
      return guard.fail(reply, E.fieldInvalid('product_ids', `must be 1 to ${BATCH_MAX} product ids.`));
    const errors = [];
    for (const id of ids as string[]) {
      const product = store.get(id);
      const refusal = !product ? E.productMissing : product.shopId !== admitted.shop.id ? E.otherSellersProduct : action(product);
      if (refusal) errors.push({ code: refusal[0], message: refusal[1], detail: { product_id: id, extra_errors: [] } });
      else store.touch(product!);
    }
    return guard.succeed(reply, { errors }, 'listings');
  };
  app.post(
    '/product/202309/products/deactivate',
    batch('deactivate_products', (product) => {
      if (product.status !== 'ACTIVATE') return E.wrongStatus;
      product.status = 'SELLER_DEACTIVATED';
      return null;
    }),
  );
  app.post(
    '/product/202309/products/activate',
    batch('activate_products', (product) => {
      if (product.status !== 'SELLER_DEACTIVATED') return E.wrongStatus;
      // A deactivated product goes back through audit when activated (listings.md §2.7, [T8]).
      product.status = 'PENDING';
      store.submit(product, product.version);
      return null;
    }),
  );
  app.delete(
    '/product/202309/products',
    batch('delete_products', (product) => {
      if (product.status === 'FREEZE' || product.status === 'DELETED') return E.wrongStatus;
      Object.assign(product, { status: 'DELETED', review: null });
      return null;
    }),
  );
}
