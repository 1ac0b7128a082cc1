/**
 * TikTok Shop's orders capability (orders.md §2), read with the Order Information scope, every call signed with the
 * shop's cipher as the product calls are (open-api.ts):
 *
 * - Changed orders: Get Order List (`POST /order/202309/orders/search`) by `update_time_ge`, oldest change first, 100 a
 *   page by `page_token`. A cancellation changes the order's `update_time`, so it is read with the rest.
 * - Orders by id: Get Order Detail (`GET /order/202507/orders?ids=`), up to 50 ids a call, as ORDER_STATUS_CHANGE names
 *   them (a burst of notifications is read 50 at a time).
 * - TikTok has no quantity: each unit sold is a line item of its own (its `id` the line's key), so every line sells 1,
 *   and 0 once TikTok cancelled that item alone (`display_status` CANCELLED in an order that goes on). An order
 *   cancelled in whole (CANCELLED only when every item is) keeps its lines at 1: its status gives them back.
 * - Only ids, skus, prices, states and times are read: the buyer's e-mail, name, phone and address are never parsed.
 */
import Type, { type Static } from 'typebox';
import type { OrderStatus } from '../../domain/index.js';
import { isPassingFailure } from '../../lib/outbound-http.js';
import { PlatformError } from '../contracts/errors.js';
import type { OrdersAdapter, PlatformOrder } from '../contracts/orders.js';
import { parseBody } from '../parse.js';
import type { TikTokShopConfig } from './connect.js';
import { createOpenApi, type TikTokListingsDeps } from './open-api.js';
import { failureOf } from './responses.js';

/** Orders a page of Get Order List holds at most (orders.md §2: `page_size` 1–100). */
export const ORDERS_PAGE_SIZE = 100;
export const ORDER_SEARCH_PATH = '/order/202309/orders/search';
/** Get Order Detail's current documented version (orders.md §2 [T2]). */
export const ORDER_DETAIL_PATH = '/order/202507/orders';
/** Ids one Get Order Detail call takes at most, comma separated (orders.md §2 [T2]). */
export const ORDER_DETAIL_IDS_MAX = 50;

/** TikTok's statuses in Storelink's words (DESIGN §14): UNPAID already holds the units, so it takes stock as pending. */
export const TIKTOK_ORDER_STATUSES: Readonly<Record<string, OrderStatus>> = {
  UNPAID: 'pending',
  ON_HOLD: 'open',
  AWAITING_SHIPMENT: 'open',
  AWAITING_COLLECTION: 'open',
  PARTIALLY_SHIPPING: 'open',
  IN_TRANSIT: 'shipped',
  DELIVERED: 'completed',
  COMPLETED: 'completed',
  CANCELLED: 'cancelled',
};

const Envelope = Type.Object({ code: Type.Number(), message: Type.Optional(Type.String()), data: Type.Optional(Type.Unknown()) });
const LineItem = Type.Object({
  id: Type.String({ minLength: 1 }),
  product_id: Type.Optional(Type.String()),
  seller_sku: Type.Optional(Type.String()),
  sale_price: Type.Optional(Type.String()),
  display_status: Type.Optional(Type.String()),
});
const Order = Type.Object({
  id: Type.String({ minLength: 1 }),
  status: Type.String(),
  create_time: Type.Integer(),
  update_time: Type.Integer(),
  payment: Type.Object({ currency: Type.String(), total_amount: Type.Optional(Type.String()) }),
  line_items: Type.Array(LineItem),
});
const OrderList = Type.Object({
  next_page_token: Type.Optional(Type.String()),
  total_count: Type.Optional(Type.Integer()),
  orders: Type.Optional(Type.Array(Order)),
});
const OrderDetail = Type.Object({ orders: Type.Optional(Type.Array(Order)) });
type TikTokOrder = Static<typeof Order>;

/**
 * The status in Storelink's words. ASSUMPTION: a status TikTok adds later is an order that holds its units (open), the
 * reading that never sells a unit twice; its own word is kept as `platform_status`.
 */
export const tiktokOrderStatus = (status: string): OrderStatus => TIKTOK_ORDER_STATUSES[status] ?? 'open';

export function tiktokOrder(order: TikTokOrder): PlatformOrder {
  const status = tiktokOrderStatus(order.status);
  return {
    externalId: order.id,
    status,
    platformStatus: order.status,
    currency: order.payment.currency,
    total: order.payment.total_amount ?? null,
    placedAt: new Date(order.create_time * 1000),
    updatedAt: new Date(order.update_time * 1000),
    externalUrl: null,
    lines: order.line_items.map((item) => ({
      externalId: item.id,
      sku: item.seller_sku || null,
      quantity: item.display_status === 'CANCELLED' && status !== 'cancelled' ? 0 : 1,
      price: item.sale_price ?? null,
      externalListingId: item.product_id || null,
    })),
  };
}

/** A reader of an Order API answer: its `data` in `schema`'s shape, or the PlatformError its code means. */
const orderData =
  <T extends ReturnType<typeof Type.Object>>(schema: T, what: string) =>
  (status: number, body: unknown): Static<T> => {
    if (isPassingFailure(status)) throw new PlatformError('unavailable', `TikTok Shop could not answer ${what} now`);
    const envelope = parseBody(Envelope, body);
    if (!envelope) throw new PlatformError('unavailable', `TikTok Shop answered ${what} without a result code (HTTP ${status})`);
    if (envelope.code !== 0)
      throw failureOf(envelope.code, envelope.message ?? '', 'TikTok Shop no longer accepts this authorization; connect the shop again.');
    const data = parseBody(schema, envelope.data ?? {});
    if (!data) throw new PlatformError('unavailable', `TikTok Shop answered ${what} in an unknown shape`);
    return data;
  };

const readList = orderData(OrderList, 'the shop’s orders');
const readDetail = orderData(OrderDetail, 'the order');

export function createTikTokShopOrdersAdapter(config: TikTokShopConfig, deps: TikTokListingsDeps): OrdersAdapter {
  const { send } = createOpenApi(config, deps);
  return {
    platform: 'tiktok-shop',
    // 50 requests a second per API and shop (orders.md §2): a search a minute is far inside it, and DESIGN §14 asks for one.
    pollEverySeconds: 60,
    async changed(call, since, cursor) {
      const query: Record<string, string> = {
        page_size: String(ORDERS_PAGE_SIZE),
        sort_field: 'update_time',
        sort_order: 'ASC',
        ...(cursor ? { page_token: cursor } : {}),
      };
      const json = { update_time_ge: Math.floor(since.getTime() / 1000) };
      const page = await send(call, 'POST', ORDER_SEARCH_PATH, readList, { query, json });
      return { orders: (page.orders ?? []).map(tiktokOrder), next: page.next_page_token || null };
    },
    async orders(call, externalIds) {
      const asked = [...new Set(externalIds.filter((id) => /^[0-9]{1,20}$/.test(id)))];
      const found: PlatformOrder[] = [];
      for (let at = 0; at < asked.length; at += ORDER_DETAIL_IDS_MAX) {
        const ids = asked.slice(at, at + ORDER_DETAIL_IDS_MAX);
        const detail = await send(call, 'GET', ORDER_DETAIL_PATH, readDetail, { query: { ids: ids.join(',') } });
        // Only the orders asked for: an answer naming others is not trusted for them.
        const wanted = new Set(ids);
        for (const order of detail.orders ?? []) if (wanted.has(order.id)) found.push(tiktokOrder(order));
      }
      return found;
    },
  };
}
