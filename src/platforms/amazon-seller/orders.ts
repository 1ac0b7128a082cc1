/**
 * Amazon's orders capability (orders.md §3, DESIGN §14): the Orders API v2026-01-01, which replaces v0 (to be dropped
 * by March 27, 2027) and needs no Restricted Data Token, since no buyer data is asked for.
 *
 * - Changed orders: searchOrders by `lastUpdatedAfter` in the site's marketplaces of its region, 100 a page, paged by
 *   `paginationToken` (the other parameters repeated, as the model asks). The search carries each order's items
 *   (`orderItems` is required in the model's `Order`), so no getOrder is spent on them.
 * - One order: getOrder.
 * - `includedData` is FULFILLMENT (the status and the units left to ship), PROCEEDS (the money) and CANCELLATION, never
 *   BUYER or RECIPIENT; the buyer's fields are not parsed even if they come.
 * - Statuses: PENDING and PENDING_AVAILABILITY are placed, not yet paid (Amazon already holds the units: pending);
 *   UNSHIPPED and PARTIALLY_SHIPPED open; SHIPPED shipped; CANCELLED cancelled. The model has no delivered or closed
 *   status, so nothing reads as completed. UNFULFILLABLE (Amazon-fulfilled orders placed off Amazon) and any status
 *   the model may add read as open: the units stay taken until Amazon says CANCELLED.
 * - Amazon's order notifications go to SQS or EventBridge, not to an HTTP endpoint. Where the operator configured a
 *   queue, each seller is subscribed to ORDER_CHANGE on it (order-notifications.ts) and a notified order is read with
 *   getOrder at once; polling stays the safety net, every three minutes, which the search's 0.0056 a second (one every
 *   179 s) sustains.
 */
import Type, { type Static } from 'typebox';
import type { OrderStatus } from '../../domain/index.js';
import { PlatformError } from '../contracts/errors.js';
import type { ListingsCall } from '../contracts/listings.js';
import {
  type NotifiedReadPlan,
  type OrdersAdapter,
  type OrdersPage,
  type PlatformOrder,
  type PlatformOrderLine,
  readEach,
} from '../contracts/orders.js';
import type { AmazonSellerConfig } from './connect.js';
import { type AmazonMarketplace, marketplaceOf } from './listing-requests.js';
import { reader, readerOrGone } from './listing-responses.js';
import { createOrderSubscriptions } from './order-notifications.js';
import { type AmazonListingsDeps, createSpApi, marketplaceFor, usagePlan } from './sp-api.js';

const ORDERS_PATH = '/orders/2026-01-01/orders';
/** Orders a page of searchOrders holds at most (the model: `maxResultsPerPage` 1–100). */
export const ORDERS_PAGE_SIZE = 100;
/** The datasets read: never BUYER or RECIPIENT. */
export const ORDER_DATASETS = 'FULFILLMENT,PROCEEDS,CANCELLATION';
/** getOrder's and searchOrders' usage plans (orders.md §3), as the SP-API caller paces them. */
export const GET_ORDER_PLAN = usagePlan('getOrder');
export const SEARCH_ORDERS_PLAN = usagePlan('searchOrders');
/** The share of a plan's rate this instance counts on. */
export const REFILL_MARGIN = 0.9;
/** Seconds between two searches of one seller: 1 / 0.0056 is 179 s. */
export const AMAZON_ORDERS_POLL_SECONDS = 180;
/**
 * A search for notified orders starts this long divided by the searches the seller's plan has left after its last
 * search: 0.1 s apart with 19 left, 0.4 s with 5, 2 s before the last. A flash sale's searches then last about 7 s of
 * sales (2 s × the sum of 1/n for n up to 19), then slow, rather than the burst going in the sale's first seconds.
 */
export const SEARCH_SPREAD_MS = 2_000;

const Money = Type.Object({ amount: Type.String({ pattern: '^-?[0-9]+(\\.[0-9]+)?$' }), currencyCode: Type.String() });
const Item = Type.Object({
  orderItemId: Type.String({ minLength: 1 }),
  quantityOrdered: Type.Integer({ minimum: 0 }),
  product: Type.Object({
    sellerSku: Type.Optional(Type.String()),
    price: Type.Optional(Type.Object({ unitPrice: Type.Optional(Money) })),
  }),
  cancellation: Type.Optional(Type.Object({ cancellationExecution: Type.Optional(Type.Object({})) })),
  fulfillment: Type.Optional(Type.Object({ quantityFulfilled: Type.Optional(Type.Integer({ minimum: 0 })) })),
});
const Order = Type.Object({
  orderId: Type.String({ minLength: 1 }),
  createdTime: Type.String({ minLength: 1 }),
  lastUpdatedTime: Type.String({ minLength: 1 }),
  salesChannel: Type.Object({ marketplaceId: Type.Optional(Type.String()) }),
  proceeds: Type.Optional(Type.Object({ grandTotal: Type.Optional(Money) })),
  fulfillment: Type.Object({ fulfillmentStatus: Type.String() }),
  orderItems: Type.Array(Item),
});
const SearchOrders = Type.Object({
  orders: Type.Array(Order),
  pagination: Type.Optional(Type.Object({ nextToken: Type.Optional(Type.String({ minLength: 1 })) })),
});
const GetOrder = Type.Object({ order: Order });
type AmazonOrder = Static<typeof Order>;
type AmazonItem = Static<typeof Item>;

/** The order's fulfillment status in Storelink's words (see above). */
export function amazonOrderStatus(fulfillmentStatus: string): OrderStatus {
  switch (fulfillmentStatus) {
    case 'PENDING':
    case 'PENDING_AVAILABILITY':
      return 'pending';
    case 'SHIPPED':
      return 'shipped';
    case 'CANCELLED':
      return 'cancelled';
    default:
      return 'open';
  }
}

/** A decimal text to the cent ("12.5" → "12.50"); whole yen stay whole. */
function decimal(amount: string): string {
  const [whole, fraction = ''] = amount.split('.');
  return fraction === '' ? amount : `${whole}.${fraction.padEnd(2, '0')}`;
}

/**
 * The units a line sells now: as ordered, less what a cancellation of the item took off. ASSUMPTION (the model states
 * no cancelled quantity): an item with a `cancellationExecution` in an order not cancelled in whole was cancelled alone,
 * keeping only the units shipped before (`quantityFulfilled`). An order cancelled in whole keeps its quantities.
 */
function unitsOf(item: AmazonItem, orderCancelled: boolean): number {
  if (orderCancelled || !item.cancellation?.cancellationExecution) return item.quantityOrdered;
  return Math.min(item.quantityOrdered, item.fulfillment?.quantityFulfilled ?? 0);
}

/** An ISO 8601 time of the answer; an unreadable one is an answer of an unexpected shape. */
function timeOf(value: string): Date {
  const at = new Date(value);
  if (Number.isNaN(at.getTime())) throw new PlatformError('unavailable', `Amazon answered an order with an unreadable time (${value})`);
  return at;
}

/** The order in Storelink's words: only skus, quantities, money and states are read. */
export function amazonOrder(order: AmazonOrder): PlatformOrder {
  const status = amazonOrderStatus(order.fulfillment.fulfillmentStatus);
  const lines: PlatformOrderLine[] = order.orderItems.map((item) => ({
    externalId: item.orderItemId,
    sku: item.product.sellerSku || null,
    quantity: unitsOf(item, status === 'cancelled'),
    price: item.product.price?.unitPrice ? decimal(item.product.price.unitPrice.amount) : null,
    externalListingId: null,
  }));
  const total = order.proceeds?.grandTotal;
  const itemCurrency = order.orderItems.find((item) => item.product.price?.unitPrice)?.product.price?.unitPrice?.currencyCode;
  return {
    externalId: order.orderId,
    status,
    platformStatus: order.fulfillment.fulfillmentStatus,
    currency: total?.currencyCode ?? itemCurrency ?? marketplaceOf(order.salesChannel.marketplaceId)?.currency ?? '',
    total: total ? decimal(total.amount) : null,
    placedAt: timeOf(order.createdTime),
    updatedAt: timeOf(order.lastUpdatedTime),
    externalUrl: null,
    lines,
  };
}

/**
 * Token buckets as SP-API's usage plans are (a seller's `burst` calls, refilled at `rate` a second), counted by this
 * instance: `take` takes `count` calls if they fit now and says whether they did; `waitMs` is how long until `count`
 * fit. Another instance's calls are not seen, so a 429 stays possible, and is retried after its back-off.
 */
export function tokenBuckets(plan: { rate: number; burst: number }) {
  const buckets = new Map<string, { tokens: number; at: number }>();
  const now = (key: string, at: number) => {
    const held = buckets.get(key) ?? { tokens: plan.burst, at };
    const bucket = { tokens: Math.min(plan.burst, held.tokens + (Math.max(0, at - held.at) / 1000) * plan.rate), at };
    buckets.set(key, bucket);
    return bucket;
  };
  return {
    available: (key: string, at: number) => now(key, at).tokens,
    take(key: string, count: number, at: number): boolean {
      const bucket = now(key, at);
      if (bucket.tokens < count) return false;
      bucket.tokens -= count;
      return true;
    },
    waitMs: (key: string, count: number, at: number) =>
      Math.ceil((Math.max(0, Math.min(count, plan.burst) - now(key, at).tokens) / plan.rate) * 1000),
  };
}

/** The site's marketplaces in the region of its own: a search reads one region's host. */
function marketplaceIdsOf(call: ListingsCall, home: AmazonMarketplace): string {
  const own = Array.isArray(call.data.marketplace_ids) ? call.data.marketplace_ids.map(String) : [];
  const inRegion = own.filter((id) => (marketplaceOf(id)?.region ?? home.region) === home.region);
  return (inRegion.length > 0 ? inRegion : [home.id]).join(',');
}

export function createAmazonSellerOrdersAdapter(config: AmazonSellerConfig, deps: AmazonListingsDeps) {
  const sp = createSpApi(config, deps.http);
  const searchPage = reader(SearchOrders);
  const orderOrGone = readerOrGone(GetOrder);
  const queue = config.orderQueue;
  const subscriptions = queue ? createOrderSubscriptions({ ...config, orderQueue: queue }, deps) : null;
  // Counted as refilling a tenth slower than the plans: a call this instance reckons due the moment a token comes is
  // not sent a moment before Amazon's own bucket has it (the bench met one such 429 in a burst).
  const getOrders = tokenBuckets({ ...GET_ORDER_PLAN, rate: GET_ORDER_PLAN.rate * REFILL_MARGIN });
  const searches = tokenBuckets({ ...SEARCH_ORDERS_PLAN, rate: SEARCH_ORDERS_PLAN.rate * REFILL_MARGIN });
  const sellerOf = (call: ListingsCall) => `${call.externalId}:${marketplaceFor(call).region}`;
  /** Per seller, when this instance last took a search from its plan. */
  const lastSearch = new Map<string, number>();

  return {
    platform: 'amazon-seller',
    pollEverySeconds: AMAZON_ORDERS_POLL_SECONDS,
    /**
     * Notified orders: one getOrder each while its burst of 30 covers them; else, while the search's burst of 20 has
     * room, the site's changed orders (100 a page), spaced from the seller's last search by `SEARCH_SPREAD_MS` divided
     * by the searches left; else as many as getOrder covers now, and the rest once it refills (one every two seconds).
     * Nothing past either plan, as this instance counts them.
     */
    planNotifiedRead(call: ListingsCall, count: number): NotifiedReadPlan {
      const seller = sellerOf(call);
      const at = deps.clock.nowMs();
      if (getOrders.take(seller, count, at)) return { changed: false, each: count, waitMs: 0 };
      const left = Math.floor(searches.available(seller, at));
      const last = lastSearch.get(seller);
      if (left >= 1) return { changed: true, inMs: last === undefined ? 0 : Math.max(0, Math.ceil(last + SEARCH_SPREAD_MS / left - at)) };
      const each = Math.max(0, Math.floor(getOrders.available(seller, at)));
      getOrders.take(seller, each, at);
      return { changed: false, each, waitMs: getOrders.waitMs(seller, count - each, at) };
    },
    async changed(call, since, cursor): Promise<OrdersPage> {
      const home = marketplaceFor(call);
      const query: Record<string, string> = {
        lastUpdatedAfter: since.toISOString(),
        marketplaceIds: marketplaceIdsOf(call, home),
        includedData: ORDER_DATASETS,
        maxResultsPerPage: String(ORDERS_PAGE_SIZE),
        ...(cursor ? { paginationToken: cursor } : {}),
      };
      // Never past the search's plan as this instance counts it: the read stops here, and goes on once it has room.
      const seller = sellerOf(call);
      const at = deps.clock.nowMs();
      if (!searches.take(seller, 1, at))
        throw new PlatformError(
          'unavailable',
          "searchOrders' usage plan has no room now (burst 20, one every 180 s)",
          searches.waitMs(seller, 1, at),
        );
      lastSearch.set(seller, at);
      const page = await sp.send(call, home, 'searchOrders', 'GET', ORDERS_PATH, searchPage, { query });
      return { orders: page.orders.map(amazonOrder), next: page.pagination?.nextToken ?? null };
    },
    // One order a call (getOrder); a search by ids would spend searchOrders' far scarcer rate.
    orders: (call, externalIds) =>
      readEach(externalIds, async (externalId) => {
        if (!/^[0-9A-Za-z-]{1,40}$/.test(externalId)) return null;
        const home = marketplaceFor(call);
        const path = `${ORDERS_PATH}/${encodeURIComponent(externalId)}`;
        const found = await sp.send(call, home, 'getOrder', 'GET', path, orderOrGone, { query: { includedData: ORDER_DATASETS } });
        return found ? amazonOrder(found.order) : null;
      }),
    ...(subscriptions ? { subscribe: (call: ListingsCall) => subscriptions.subscribe(call) } : {}),
  } satisfies OrdersAdapter;
}
