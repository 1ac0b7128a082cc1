/**
 * The simulated TikTok Shop's Order API (orders.md §2, DESIGN §14 "Sandbox"), checked as the product API's calls are
 * (product-guard.ts: signature, token, shop cipher, 50 requests a second per shop and API with 429 beyond):
 * - Get Order List, `POST /order/202309/orders/search`: query `page_size` (1–100, required), `page_token`, `sort_field`
 *   (create_time, the default, or update_time), `sort_order` (ASC, or DESC the default); body `order_status`,
 *   `create_time_ge/_lt`, `update_time_ge/_lt` (Unix seconds); answers `{next_page_token, total_count, orders}`.
 * - Get Order Detail, `GET /order/202507/orders?ids=` (1 to 50 ids, comma separated): the shop's orders of those ids.
 * - ORDER_STATUS_CHANGE (type 1) on each change of status, which says `CANCEL` where the API says `CANCELLED`, and
 *   CANCELLATION_STATUS_CHANGE (type 11) on a cancellation, signed as TikTok signs its webhooks (notifications.ts).
 *
 * And a buyer's side for the sandbox (no auth), the shop being the account's first unless `shop_id` names another:
 * - `POST /sandbox/tiktok-shop/accounts/{account}/orders` `{lines: [{sku, quantity}], status?, shop_id?}` places an
 *   order (order-store.ts), AWAITING_SHIPMENT (paid) unless UNPAID or ON_HOLD is asked; 409 when a SKU has too few units.
 * - `…/orders/{id}/pay` pays an UNPAID order, `…/cancel` cancels an unshipped one, `…/ship` ships a paid one (IN_TRANSIT).
 */
import type { FastifyInstance, FastifyReply } from 'fastify';
import { accountOf, readOrderLines } from '../buyer.js';
import type { SandboxContext } from '../context.js';
import { sendNotification } from './notifications.js';
import { createOrderStore, ORDER_STATUSES, type Order, type OrderStatus, SANDBOX_BUYER } from './order-store.js';
import { PRODUCT_ERRORS as E } from './product-errors.js';
import { createProductGuard } from './product-guard.js';
import type { ProductStore } from './product-store.js';
import { everyShopOf, sandboxShops, accountOf as shopAccountOf } from './shops.js';
import { currencyOf } from './stock.js';

const PAGE_SIZE_MAX = 100;
/** Get Order Detail takes at most 50 ids (orders.md §2 [T2]). */
export const ORDER_IDS_MAX = 50;
const BODY_LIMIT = 1024 * 1024;
const TIME_FILTERS = ['create_time_ge', 'create_time_lt', 'update_time_ge', 'update_time_lt'] as const;
const PLACEABLE: readonly OrderStatus[] = ['AWAITING_SHIPMENT', 'UNPAID', 'ON_HOLD'];
const KNOWN_STATUSES: ReadonlySet<string> = new Set(ORDER_STATUSES);

const seconds = (ms: number) => Math.floor(ms / 1000);
const cents = (amount: string) => Math.round(Number(amount) * 100);
const decimal = (total: number) => (total / 100).toFixed(2);

/** An order as Get Order List and Get Order Detail answer it (the fields orders.md §2 lists, and the buyer's). */
function present(order: Order) {
  const total = decimal(order.items.reduce((sum, item) => sum + cents(item.sale_price), 0));
  return {
    id: order.id,
    status: order.status,
    create_time: seconds(order.createTime),
    update_time: seconds(order.updateTime),
    ...(order.paidTime === null ? {} : { paid_time: seconds(order.paidTime) }),
    ...(order.cancelTime === null ? {} : { cancel_time: seconds(order.cancelTime), cancellation_initiator: 'BUYER' }),
    is_on_hold_order: order.status === 'ON_HOLD',
    user_id: '7494560109732334231',
    buyer_email: SANDBOX_BUYER.buyer_email,
    buyer_message: '',
    recipient_address: {
      name: SANDBOX_BUYER.name,
      phone_number: SANDBOX_BUYER.phone_number,
      address_detail: SANDBOX_BUYER.address_detail,
      full_address: SANDBOX_BUYER.full_address,
      postal_code: SANDBOX_BUYER.postal_code,
      // The buyer is in the shop's country.
      region_code: everyShopOf(shopAccountOf({ id: order.shopId })).find((shop) => shop.id === order.shopId)?.region ?? 'US',
    },
    payment: {
      currency: order.currency,
      sub_total: total,
      shipping_fee: '0.00',
      seller_discount: '0.00',
      platform_discount: '0.00',
      tax: '0.00',
      original_total_product_price: total,
      total_amount: total,
    },
    fulfillment_type: 'FULFILLMENT_BY_SELLER',
    line_items: order.items.map((item) => ({
      id: item.id,
      sku_id: item.sku_id,
      product_id: item.product_id,
      product_name: item.product_name,
      sku_name: '',
      seller_sku: item.seller_sku,
      sale_price: item.sale_price,
      original_price: item.sale_price,
      currency: order.currency,
      display_status: order.status,
      is_gift: false,
      ...(order.status === 'CANCELLED' ? { cancel_user: 'BUYER' } : {}),
    })),
  };
}

/** TikTok's word in ORDER_STATUS_CHANGE: `CANCEL` where the API says `CANCELLED` (orders.md §2 [T5]). */
const webhookStatus = (status: OrderStatus) => (status === 'CANCELLED' ? 'CANCEL' : status);

function notifyStatus(context: SandboxContext, order: Order): void {
  sendNotification(context, 1, order.shopId, {
    order_id: order.id,
    order_status: webhookStatus(order.status),
    is_on_hold_order: order.status === 'ON_HOLD',
    update_time: seconds(order.updateTime),
  });
}

/** Get Order List's time filter of the body, in ms: undefined when absent, null when not Unix seconds. */
const timeOf = (value: unknown): number | undefined | null =>
  value === undefined ? undefined : Number.isInteger(value) && (value as number) >= 0 ? (value as number) * 1000 : null;

/** Registers the Order API in a scope of its own (JSON bodies kept as text for the signature) and the buyer's side. */
export function registerTikTokShopOrders(app: FastifyInstance, context: SandboxContext, products: ProductStore) {
  const orders = createOrderStore(products, context.stateParts);
  const now = () => context.clock.nowMs();

  void app.register(async (scope) => {
    scope.addContentTypeParser('application/json', { parseAs: 'string', bodyLimit: BODY_LIMIT }, (_request, body, done) =>
      done(null, body),
    );
    const guard = createProductGuard(context, products);

    scope.post('/order/202309/orders/search', async (request, reply) => {
      const admitted = await guard.admit(request, reply, { operation: 'search_orders', scope: 'seller.order.info' });
      if (!admitted) return reply;
      const { query, body, shop } = admitted;
      const size = Number(query.page_size);
      if (!/^[0-9]{1,3}$/.test(query.page_size ?? '') || size < 1 || size > PAGE_SIZE_MAX)
        return guard.fail(reply, E.fieldInvalid('page_size', `must be 1 to ${PAGE_SIZE_MAX}.`));
      const offset = query.page_token ? Number(Buffer.from(query.page_token, 'base64url').toString()) : 0;
      if (!Number.isInteger(offset) || offset < 0) return guard.fail(reply, E.fieldInvalid('page_token', 'is invalid.'));
      const field = query.sort_field ?? 'create_time';
      if (field !== 'create_time' && field !== 'update_time')
        return guard.fail(reply, E.fieldInvalid('sort_field', 'must be create_time or update_time.'));
      const order = (query.sort_order ?? 'DESC').toUpperCase();
      if (order !== 'ASC' && order !== 'DESC') return guard.fail(reply, E.fieldInvalid('sort_order', 'must be ASC or DESC.'));
      const status = body.order_status;
      if (status !== undefined && !(typeof status === 'string' && KNOWN_STATUSES.has(status)))
        return guard.fail(reply, E.fieldInvalid('order_status', 'is not an order status.'));
      const times = Object.fromEntries(TIME_FILTERS.map((name) => [name, timeOf(body[name])]));
      const wrong = TIME_FILTERS.find((name) => times[name] === null);
      if (wrong) return guard.fail(reply, E.fieldInvalid(wrong, 'must be a Unix time in seconds.'));
      const within = (at: number, ge: number | null | undefined, lt: number | null | undefined) =>
        (ge == null || at >= ge) && (lt == null || at < lt);
      const found = orders
        .ofShop(shop.id)
        .filter(
          (each) =>
            (status === undefined || each.status === status) &&
            within(seconds(each.createTime) * 1000, times.create_time_ge, times.create_time_lt) &&
            within(seconds(each.updateTime) * 1000, times.update_time_ge, times.update_time_lt),
        );
      const key = (each: Order) => (field === 'create_time' ? seconds(each.createTime) : seconds(each.updateTime));
      const sign = order === 'ASC' ? 1 : -1;
      found.sort((a, b) => sign * (key(a) - key(b) || (BigInt(a.id) < BigInt(b.id) ? -1 : 1)));
      const page = found.slice(offset, offset + size);
      const next = offset + size < found.length ? Buffer.from(String(offset + size)).toString('base64url') : '';
      return guard.succeed(reply, { next_page_token: next, total_count: found.length, orders: page.map(present) });
    });

    scope.get('/order/202507/orders', async (request, reply) => {
      const admitted = await guard.admit(request, reply, { operation: 'get_order_detail', scope: 'seller.order.info' });
      if (!admitted) return reply;
      const ids = (admitted.query.ids ?? '').split(',').filter((id) => id !== '');
      if (ids.length === 0 || ids.length > ORDER_IDS_MAX)
        return guard.fail(reply, E.fieldInvalid('ids', `must name 1 to ${ORDER_IDS_MAX} orders.`));
      // ASSUMPTION: an id the shop has no order of is left out of the answer rather than refused.
      const found = ids.flatMap((id) => {
        const each = orders.get(id);
        return each && each.shopId === admitted.shop.id ? [present(each)] : [];
      });
      return guard.succeed(reply, { orders: found });
    });
  });

  registerBuyerSide(app, context, orders, products, now);
}

/** The driver endpoints: a buyer placing, paying and cancelling, the seller shipping (sandbox only, no auth). */
function registerBuyerSide(
  app: FastifyInstance,
  context: SandboxContext,
  orders: ReturnType<typeof createOrderStore>,
  products: ProductStore,
  now: () => number,
) {
  app.post('/accounts/:account/orders', async (request, reply) => {
    const account = accountOf(reply, (request.params as { account: string }).account);
    if (account === null) return reply;
    const body = (request.body ?? {}) as { lines?: unknown; status?: unknown; shop_id?: unknown };
    const lines = readOrderLines(body.lines, { skuMax: 64, quantityMax: 99 });
    if (!lines) return reply.code(400).send({ error: 'lines must be 1 to 50 of {sku, quantity}, quantity a whole number from 1 to 99' });
    const status = body.status ?? 'AWAITING_SHIPMENT';
    if (!PLACEABLE.includes(status as OrderStatus)) return reply.code(400).send({ error: `status must be one of ${PLACEABLE.join(', ')}` });
    // Without a shop_id: the account's shop that lists the first line's sku live, else the first shop of its latest
    // authorization, else its shop in the default market (US).
    const shops = everyShopOf(account);
    const lists = (shop: { id: string }) =>
      products
        .ofShop(shop.id)
        .some((product) => product.status === 'ACTIVATE' && product.version.skus.some((sku) => sku.seller_sku === lines[0]!.sku));
    const home = products.homeOf(account);
    const shop =
      body.shop_id === undefined
        ? (shops.find(lists) ?? shops.find((each) => each.id === home) ?? sandboxShops(account, 1)[0])
        : shops.find((each) => each.id === body.shop_id);
    if (!shop) return reply.code(400).send({ error: 'shop_id must be a shop of this account' });
    const placed = orders.place({ id: shop.id, currency: currencyOf(shop.region) }, lines, status as OrderStatus, now());
    if (typeof placed === 'string') return reply.code(409).send({ error: placed });
    notifyStatus(context, placed);
    return reply.code(201).send({ id: placed.id });
  });

  const orderOf = (reply: FastifyReply, params: { account: string; id: string }) => {
    const account = accountOf(reply, params.account);
    if (account === null) return null;
    const order = orders.get(params.id);
    if (order && everyShopOf(account).some((shop) => shop.id === order.shopId)) return order;
    void reply.code(404).send({ error: 'No such order in the shops of this account' });
    return null;
  };

  app.post('/accounts/:account/orders/:id/pay', async (request, reply) => {
    const order = orderOf(reply, request.params as { account: string; id: string });
    if (!order) return reply;
    if (order.status !== 'UNPAID') return reply.code(409).send({ error: `A ${order.status} order is not waiting for payment` });
    orders.move(order, 'AWAITING_SHIPMENT', now());
    notifyStatus(context, order);
    return reply.code(204).send();
  });

  app.post('/accounts/:account/orders/:id/cancel', async (request, reply) => {
    const order = orderOf(reply, request.params as { account: string; id: string });
    if (!order) return reply;
    if (!['UNPAID', 'ON_HOLD', 'AWAITING_SHIPMENT'].includes(order.status))
      return reply.code(409).send({ error: `A ${order.status} order cannot be cancelled` });
    orders.cancel(order, now());
    notifyStatus(context, order);
    sendNotification(context, 11, order.shopId, {
      order_id: order.id,
      cancellations_role: 'BUYER',
      cancel_status: 'CANCELLATION_REQUEST_COMPLETE',
      cancel_id: order.cancelId,
      create_time: seconds(order.updateTime),
    });
    return reply.code(204).send();
  });

  app.post('/accounts/:account/orders/:id/ship', async (request, reply) => {
    const order = orderOf(reply, request.params as { account: string; id: string });
    if (!order) return reply;
    if (order.status !== 'AWAITING_SHIPMENT' && order.status !== 'ON_HOLD')
      return reply.code(409).send({ error: `A ${order.status} order cannot ship` });
    orders.move(order, 'IN_TRANSIT', now());
    notifyStatus(context, order);
    return reply.code(204).send();
  });
}
