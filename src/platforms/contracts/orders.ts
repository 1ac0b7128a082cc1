/**
 * The orders capability (DESIGN §14): what the engine asks of a platform to read its orders. An adapter reads what the
 * stock pool needs (skus, quantities, states, money) and never a buyer's name, address, e-mail or phone: it does not
 * ask for them where the platform lets it choose, and drops them where it does not.
 */
import type { OrderStatus, SitePlatform } from '../../domain/index.js';
import type { ListingsCall } from './listings.js';

/** One sold line as the platform holds it now. */
export interface PlatformOrderLine {
  /** The platform's id of the line: Etsy's `transaction_id`, TikTok Shop's line item `id`, Amazon's `OrderItemId`. */
  readonly externalId: string;
  /** The seller's sku of what sold; null where the platform holds none (an Etsy listing made without one). */
  readonly sku: string | null;
  /**
   * Units the line sells now: as ordered, less what a partial cancellation took off (0 for a line cancelled alone).
   * An order cancelled in whole keeps its lines' quantities: its status says they are given back. TikTok Shop: 1.
   */
  readonly quantity: number;
  /** The price of one unit as sold, a decimal string; null where the platform does not say yet (Amazon, Pending). */
  readonly price: string | null;
  /** The platform's id of the listing that sold it (Etsy `listing_id`, TikTok Shop `product_id`); null where none (Amazon). */
  readonly externalListingId: string | null;
}

/** An order as the platform holds it now. */
export interface PlatformOrder {
  /** The platform's order id: Etsy's `receipt_id`, TikTok Shop's order `id`, Amazon's `AmazonOrderId`. */
  readonly externalId: string;
  readonly status: OrderStatus;
  /** The platform's own word for the state, verbatim (Etsy `paid`, TikTok Shop `AWAITING_SHIPMENT`, Amazon `Unshipped`). */
  readonly platformStatus: string;
  /** ISO 4217. */
  readonly currency: string;
  /** What the buyer pays in all, a decimal string; null where the platform does not say yet (Amazon, Pending). */
  readonly total: string | null;
  readonly placedAt: Date;
  /** When the platform last changed the order (its own `updated`/`update_time`/`LastUpdateDate`). */
  readonly updatedAt: Date;
  /** The order on the platform's seller pages, or null. */
  readonly externalUrl: string | null;
  readonly lines: readonly PlatformOrderLine[];
}

/** One page of orders; `next` is the cursor of the page after it, null after the last. */
export interface OrdersPage {
  readonly orders: readonly PlatformOrder[];
  readonly next: string | null;
}

/**
 * The orders capability of one platform. Every method may throw PlatformError (`rejected`: the grant is gone;
 * `unavailable`: try again, after `retryAfterMs`), as the listings capability does.
 */
export interface OrdersAdapter {
  readonly platform: SitePlatform;
  /**
   * The fewest seconds between two reads of one account's changed orders that its platform's rate limit sustains
   * (Amazon's search: one every three minutes on v2026-01-01); the engine polls no faster.
   */
  readonly pollEverySeconds: number;
  /**
   * The account's orders placed or changed at or after `since`, a page at a time from `cursor` (null: the first page),
   * cancellations included (Etsy's `min_last_modified` misses them: its adapter reads `was_canceled` too). An order may
   * come twice across pages; the engine takes each once.
   */
  changed(call: ListingsCall, since: Date, cursor: string | null): Promise<OrdersPage>;
  /**
   * The orders of these ids read whole (notifications named them), in as few calls as the platform allows (TikTok Shop:
   * 50 ids a call); an id the platform has no order of is left out.
   */
  orders(call: ListingsCall, externalIds: readonly string[]): Promise<PlatformOrder[]>;
  /**
   * Where `orders` reads one order a call from a small burst (Amazon's getOrder: 30, then one every two seconds), how
   * to read `count` notified orders of the account within its limits now (absent: all of them by `orders`, at once).
   */
  planNotifiedRead?(call: ListingsCall, count: number): NotifiedReadPlan;
  /**
   * Where orders are notified through a subscription the app makes for each account (Amazon's ORDER_CHANGE, sent to the
   * operator's queue): makes the account's subscription where it is missing, and says what it found or did. The engine
   * asks once per instance and site, before the site's orders are read.
   */
  subscribe?(call: ListingsCall): Promise<string>;
}

/**
 * How notified orders are read within a platform's limits: by the account's changed orders (`changed`: a search has
 * room, and reads them all, starting no sooner than `inMs` from now so that a burst of searches lasts), or the first
 * `each` of them one a call now (counted as read by the plan) and the rest asked about again after `waitMs`.
 */
export type NotifiedReadPlan =
  | { readonly changed: true; readonly inMs: number }
  | { readonly changed: false; readonly each: number; readonly waitMs: number };

/** Orders a platform that reads one order a call is asked for at once: its pacer spaces the calls. */
const READS_AT_ONCE = 4;

/**
 * Reads each id with `read`, a few at a time, and answers the orders found in the order of `externalIds`: for a platform
 * whose API reads one order a call. The first failure fails the whole read (its orders are read again by the next).
 */
export async function readEach(
  externalIds: readonly string[],
  read: (externalId: string) => Promise<PlatformOrder | null>,
): Promise<PlatformOrder[]> {
  const found: (PlatformOrder | null)[] = [];
  let next = 0;
  const reader = async () => {
    while (next < externalIds.length) {
      const at = next++;
      found[at] = await read(externalIds[at]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(READS_AT_ONCE, externalIds.length) }, reader));
  return found.filter((order): order is PlatformOrder => order !== null);
}
