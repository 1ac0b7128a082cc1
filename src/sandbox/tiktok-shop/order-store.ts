/**
 * The simulated TikTok Shop's orders in memory (orders.md §2): one line item per unit sold (TikTok has no quantity
 * field), the order's status and each line item's `display_status`, the times TikTok stamps, and the units a sale takes
 * from the shop's products (product-store.ts), as TikTok reserves stock for its orders from "Place Order" on, UNPAID
 * included. A cancellation gives the units back to the SKU they came from; ASSUMPTION (orders.md §2: UNCONFIRMED):
 * TikTok releases an order's committed stock when the order is cancelled.
 *
 * An order answered by the API carries a buyer's name, address, e-mail and phone on TikTok; the sandbox makes up
 * obviously fake ones (SANDBOX_BUYER), so a client that stored or logged them would be caught by the tests that look.
 */
import { refill, registerStatePart, type StateParts } from '../state.js';
import type { ProductStore, Sku } from './product-store.js';

/** The fake buyer every sandbox order names: what a client must never store, log or return. */
export const SANDBOX_BUYER = {
  name: 'Sandbox Buyer Peregrine Thistlewood',
  phone_number: '(+44)7700900123',
  address_detail: '42 Marmalade Row',
  full_address: '42 Marmalade Row, Thistleford, TF1 2QQ, United Kingdom',
  postal_code: 'TF1 2QQ',
  buyer_email: 'peregrine.thistlewood@buyer.example',
} as const;

/** TikTok's order statuses (orders.md §2), in their order of life. */
export const ORDER_STATUSES = [
  'UNPAID',
  'ON_HOLD',
  'AWAITING_SHIPMENT',
  'PARTIALLY_SHIPPING',
  'AWAITING_COLLECTION',
  'IN_TRANSIT',
  'DELIVERED',
  'COMPLETED',
  'CANCELLED',
] as const;
export type OrderStatus = (typeof ORDER_STATUSES)[number];

export interface LineItem {
  id: string;
  sku_id: string;
  product_id: string;
  product_name: string;
  seller_sku: string;
  sale_price: string;
  /** The product's SKU the unit was taken from, or null for an item listed outside Storelink (it took nothing). */
  taken: { productId: string; skuId: string } | null;
}

export interface Order {
  id: string;
  shopId: string;
  status: OrderStatus;
  currency: string;
  /** Milliseconds. */
  createTime: number;
  updateTime: number;
  paidTime: number | null;
  cancelTime: number | null;
  cancelId: string | null;
  items: LineItem[];
}

/** The units of a SKU in all its warehouses. */
export const unitsOf = (sku: Pick<Sku, 'inventory'>) => sku.inventory.reduce((sum, entry) => sum + entry.quantity, 0);

/** Takes `units` off a SKU, from its first warehouse on. */
function takeUnits(sku: Sku, units: number): void {
  let left = units;
  for (const entry of sku.inventory) {
    const taken = Math.min(entry.quantity, left);
    entry.quantity -= taken;
    left -= taken;
  }
}

/** Ids look like TikTok's (numbers past a double's exact range), from fixed starts so each run answers the same ids. */
function createIds() {
  const next = { order: 576_461_413_038_785_000n, item: 577_461_413_038_785_000n, cancel: 4_035_000_000_000_000_000n };
  return {
    next,
    order: () => String(next.order++),
    item: () => String(next.item++),
    cancel: () => String(next.cancel++),
  };
}

export type OrderStore = ReturnType<typeof createOrderStore>;

export function createOrderStore(products: ProductStore, parts: StateParts) {
  const orders = new Map<string, Order>();
  const ids = createIds();
  registerStatePart(parts, 'tiktok-shop:orders', {
    save: () => ({ orders, next: ids.next }),
    load: (state) => {
      const saved = state as { orders: Map<string, Order>; next: typeof ids.next };
      refill(orders, saved.orders);
      Object.assign(ids.next, saved.next);
    },
  });

  /** The live SKU of the shop with this seller sku: the product and SKU, or null when the shop lists it nowhere. */
  const listed = (shopId: string, sellerSku: string) => {
    for (const product of products.ofShop(shopId)) {
      if (product.status !== 'ACTIVATE') continue;
      const sku = product.version.skus.find((each) => each.seller_sku === sellerSku);
      if (sku) return { product, sku };
    }
    return null;
  };

  /** The same SKU in every version the product holds (a version under audit keeps stock as the live one does). */
  const versionsOf = (productId: string, skuId: string): Sku[] => {
    const product = products.get(productId);
    if (!product) return [];
    return [product.version, ...(product.review ? [product.review.version] : [])].flatMap((version) =>
      version.skus.filter((sku) => sku.id === skuId),
    );
  };

  return {
    get: (id: string) => orders.get(id),
    ofShop: (shopId: string) => [...orders.values()].filter((order) => order.shopId === shopId),
    /**
     * Places an order of `lines` in the shop as a buyer would: each unit a line item, taken from the live SKU of its
     * seller sku; a sku the shop does not list is an item listed outside Storelink. The problem when a listed SKU has
     * too few units (nothing is taken then), else the order.
     */
    place(
      shop: { id: string; currency: string },
      lines: readonly { sku: string; quantity: number }[],
      status: OrderStatus,
      at: number,
    ): Order | string {
      // Units wanted of each listed SKU, by its id: every line checked before any unit is taken.
      const wanted = new Map<string, { productId: string; sku: Sku; units: number }>();
      for (const line of lines) {
        const found = listed(shop.id, line.sku);
        if (!found) continue;
        const units = (wanted.get(found.sku.id)?.units ?? 0) + line.quantity;
        if (unitsOf(found.sku) < units) return `Only ${unitsOf(found.sku)} of ${line.sku} left in the shop`;
        wanted.set(found.sku.id, { productId: found.product.id, sku: found.sku, units });
      }
      const items: LineItem[] = [];
      for (const line of lines) {
        const found = listed(shop.id, line.sku);
        for (let unit = 0; unit < line.quantity; unit++)
          items.push({
            id: ids.item(),
            // An item listed outside Storelink has ids of TikTok's that no product of the simulator holds.
            sku_id: found?.sku.id ?? '1729000000000900001',
            product_id: found?.product.id ?? '1729000000000800001',
            product_name: found?.product.version.title ?? `An item listed outside Storelink (${line.sku})`,
            seller_sku: line.sku,
            sale_price: found?.sku.price.amount ?? '10.00',
            taken: found ? { productId: found.product.id, skuId: found.sku.id } : null,
          });
      }
      for (const { productId, sku, units } of wanted.values()) for (const each of versionsOf(productId, sku.id)) takeUnits(each, units);
      const paid = status !== 'UNPAID';
      const order: Order = {
        id: ids.order(),
        shopId: shop.id,
        status,
        currency: shop.currency,
        createTime: at,
        updateTime: at,
        paidTime: paid ? at : null,
        cancelTime: null,
        cancelId: null,
        items,
      };
      orders.set(order.id, order);
      return order;
    },
    /** The order's status changed at `at`. */
    move(order: Order, status: OrderStatus, at: number): void {
      order.status = status;
      order.updateTime = at;
      if (status !== 'UNPAID' && status !== 'CANCELLED' && order.paidTime === null) order.paidTime = at;
    },
    /** Cancels every line item: the order is CANCELLED, and the units go back to the SKUs they came from. */
    cancel(order: Order, at: number): void {
      order.status = 'CANCELLED';
      order.updateTime = at;
      order.cancelTime = at;
      order.cancelId = ids.cancel();
      for (const item of order.items) {
        if (!item.taken) continue;
        for (const sku of versionsOf(item.taken.productId, item.taken.skuId)) {
          const first = sku.inventory[0];
          if (first) first.quantity += 1;
        }
      }
    },
  };
}
