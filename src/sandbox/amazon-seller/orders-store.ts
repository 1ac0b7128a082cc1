/**
 * The sandbox Amazon's orders, in memory per running sandbox (orders.md §3, DESIGN §14 "Sandbox"), shaped as the Orders
 * API v2026-01-01 model's `Order` (amzn/selling-partner-api-models `models/orders-api-model/orders_2026-01-01.json`).
 * A sale takes its units off the seller's listing in the listings store at once, as Amazon does at checkout ("the
 * quantity available for the listing is subtracted", orders.md §3 "Inventory"); a cancellation puts them back (the
 * sandbox's reason is never "No Inventory"). Orders are merchant-fulfilled (FBM), in one marketplace each.
 *
 * What an order answers depends on `includedData`, as the model's datasets say: without it, the order's ids, times,
 * sales channel and items (`orderItemId`, `quantityOrdered`, `product` with its `sellerSku` and, once the order is no
 * longer PENDING, its unit price); FULFILLMENT adds the statuses and quantities, PROCEEDS the money, CANCELLATION each
 * item's cancellation, BUYER and RECIPIENT the buyer and the delivery address. ASSUMPTION: which fields are outside
 * every dataset (the model does not say field by field). The buyer and address are obviously fake, so a client that
 * stored or logged them would be caught by the tests that look for them.
 */
import { randomInt } from 'node:crypto';
import type { SandboxContext } from '../context.js';
import { refill, registerStatePart } from '../state.js';
import { marketplaceOf } from './product-types.js';

/** The fake buyer every sandbox order names: what a client must never store, log or return. */
export const SANDBOX_AMAZON_BUYER = {
  buyerName: 'Sandbox Buyer Ottoline Brackwater',
  buyerEmail: 'ottoline.brackwater@marketplace.buyer.example',
  addressLine1: '42 Larkspur Row',
  city: 'Brackwater Falls',
  postalCode: '98765-4321',
  phone: '+1 555-0142-777',
} as const;

/** The model's FulfillmentStatus values the sandbox's orders take. */
export type SandboxOrderStatus = 'PENDING' | 'UNSHIPPED' | 'SHIPPED' | 'CANCELLED';

/** The model's `includedData` datasets. */
export const DATASETS = [
  'BUYER',
  'RECIPIENT',
  'PROCEEDS',
  'EXPENSE',
  'PROMOTION',
  'CANCELLATION',
  'FULFILLMENT',
  'PACKAGES',
  'TAX',
  'PAYMENT',
  'FULFILLMENT_ORDERS',
] as const;
export type Dataset = (typeof DATASETS)[number];

export interface StoredOrderItem {
  orderItemId: string;
  sku: string;
  asin: string;
  title: string;
  quantity: number;
  /** The unit price, in the marketplace's currency. */
  unitPrice: number;
}

export interface StoredOrder {
  orderId: string;
  account: number;
  marketplaceId: string;
  status: SandboxOrderStatus;
  createdAt: number;
  updatedAt: number;
  items: StoredOrderItem[];
}

const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
const digits = (n: number) => Array.from({ length: n }, () => randomInt(10)).join('');

/** Money as the model's `Money`: a Decimal string and its currency (whole yen in Japan). */
function money(amount: number, currencyCode: string) {
  return { amount: amount.toFixed(currencyCode === 'JPY' ? 0 : 2), currencyCode };
}

/** The order as the model's `Order`, with the datasets asked for. */
export function presentOrder(order: StoredOrder, included: ReadonlySet<Dataset>) {
  const marketplace = marketplaceOf(order.marketplaceId);
  const currency = marketplace?.currency ?? 'USD';
  const priced = order.status !== 'PENDING';
  const cancelled = order.status === 'CANCELLED';
  const shipped = order.status === 'SHIPPED';
  const total = order.items.reduce((sum, item) => sum + item.unitPrice * item.quantity, 0);
  return {
    orderId: order.orderId,
    createdTime: iso(order.createdAt),
    lastUpdatedTime: iso(order.updatedAt),
    programs: [],
    salesChannel: { channelName: 'AMAZON', marketplaceId: order.marketplaceId, marketplaceName: marketplace?.name ?? 'Amazon.com' },
    ...(included.has('BUYER') ? { buyer: { buyerName: SANDBOX_AMAZON_BUYER.buyerName, buyerEmail: SANDBOX_AMAZON_BUYER.buyerEmail } } : {}),
    ...(included.has('RECIPIENT')
      ? {
          recipient: {
            deliveryAddress: {
              name: SANDBOX_AMAZON_BUYER.buyerName,
              addressLine1: SANDBOX_AMAZON_BUYER.addressLine1,
              city: SANDBOX_AMAZON_BUYER.city,
              stateOrRegion: 'WA',
              postalCode: SANDBOX_AMAZON_BUYER.postalCode,
              countryCode: marketplace?.countryCode ?? 'US',
              phone: SANDBOX_AMAZON_BUYER.phone,
              addressType: 'RESIDENTIAL',
            },
          },
        }
      : {}),
    ...(included.has('PROCEEDS') && priced
      ? { proceeds: { grandTotal: money(total, currency), breakdowns: [{ type: 'ITEM', subtotal: money(total, currency) }] } }
      : {}),
    ...(included.has('FULFILLMENT')
      ? { fulfillment: { fulfillmentStatus: order.status, fulfilledBy: 'MERCHANT', fulfillmentServiceLevel: 'STANDARD' } }
      : {}),
    orderItems: order.items.map((item) => ({
      orderItemId: item.orderItemId,
      quantityOrdered: item.quantity,
      programs: [],
      product: {
        asin: item.asin,
        title: item.title,
        sellerSku: item.sku,
        condition: { conditionType: 'New', conditionSubtype: 'New' },
        ...(priced ? { price: { unitPrice: money(item.unitPrice, currency) } } : {}),
      },
      ...(included.has('PROCEEDS') && priced ? { proceeds: { proceedsTotal: money(item.unitPrice * item.quantity, currency) } } : {}),
      ...(included.has('CANCELLATION') && cancelled
        ? { cancellation: { cancellationExecution: { cancelledBy: 'MERCHANT', cancelReason: 'SandboxCancellation' } } }
        : {}),
      ...(included.has('FULFILLMENT')
        ? {
            fulfillment: {
              quantityFulfilled: shipped ? item.quantity : 0,
              quantityUnfulfilled: shipped || cancelled ? 0 : item.quantity,
            },
          }
        : {}),
    })),
  };
}

export type OrdersStore = ReturnType<typeof createOrdersStore>;

/** Told of each order placed or moved to another status, before the change's answer is sent (notifications-store.ts). */
export type OrderChangeListener = (order: Readonly<StoredOrder>) => void;

function createOrdersStore(context: SandboxContext) {
  const orders = new Map<string, StoredOrder>();
  const listeners: OrderChangeListener[] = [];
  const now = () => context.clock.nowMs();
  let lastUpdate = 0;
  registerStatePart(context.stateParts, 'amazon-seller:orders', {
    save: () => ({ orders, lastUpdate }),
    load: (state) => {
      const saved = state as { orders: typeof orders; lastUpdate: number };
      refill(orders, saved.orders);
      lastUpdate = saved.lastUpdate;
    },
  });
  /** A time after every earlier change: two changes in one millisecond stay in order. */
  const stamp = () => (lastUpdate = Math.max(now(), lastUpdate + 1));

  const changed = (order: StoredOrder) => {
    for (const listener of listeners) listener(order);
  };

  return {
    /** Adds a listener to every later placement and status change. */
    onChange: (listener: OrderChangeListener) => void listeners.push(listener),
    get: (orderId: string) => orders.get(orderId),
    all: () => [...orders.values()],
    /** A new order, stamped now, with Amazon's id shapes (`123-1234567-1234567`, a 14-digit item id). */
    place(entry: Pick<StoredOrder, 'account' | 'marketplaceId' | 'status'> & { items: Omit<StoredOrderItem, 'orderItemId'>[] }) {
      const at = stamp();
      let orderId: string;
      do orderId = `${digits(3)}-${digits(7)}-${digits(7)}`;
      while (orders.has(orderId));
      const order: StoredOrder = {
        ...entry,
        orderId,
        createdAt: at,
        updatedAt: at,
        items: entry.items.map((item) => ({ ...item, orderItemId: `${1 + randomInt(9)}${digits(13)}` })),
      };
      orders.set(orderId, order);
      changed(order);
      return order;
    },
    /** The order moves to `status`, stamped now. */
    move(order: StoredOrder, status: SandboxOrderStatus) {
      order.status = status;
      order.updatedAt = stamp();
      changed(order);
    },
  };
}

const stores = new WeakMap<SandboxContext, OrdersStore>();

/** The orders of a running sandbox, shared by the three regions' simulators and the sandbox's own routes. */
export function amazonOrdersOf(context: SandboxContext): OrdersStore {
  let store = stores.get(context);
  if (!store) stores.set(context, (store = createOrdersStore(context)));
  return store;
}
