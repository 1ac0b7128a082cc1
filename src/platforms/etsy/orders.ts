/**
 * Etsy's orders capability (orders.md §1): shop receipts, each with its transactions (the sold lines), read with the
 * `transactions_r` scope.
 *
 * - Changed orders: getShopReceipts with `min_last_modified`, oldest change first, 100 a page by `offset` (Etsy has no
 *   cursor). `min_last_modified` does not return receipts cancelled or refunded in the window (orders.md §1, #604), so a
 *   second pass reads the receipts with `was_canceled=true` created in the last 30 days: a cancellation is seen within
 *   a poll, at the cost of a page of cancellations a poll.
 * - Notified orders (ORDER_PAID names each by its `resource_url`): getShopReceipt, one a call; three or more at once
 *   are looked for first among the newest changed receipts (getShopReceipts by `updated`, newest first, 100 a page),
 *   since a receipt just paid is the newest changed, and only those not found there are read one a call. Etsy's budget
 *   (10 calls a second by default) then reads a burst of sales in a call per 100.
 * - A receipt's `status` says whether it holds stock: `open` and `payment processing` are placed and not yet paid
 *   (pending: Etsy holds the units), `paid` and `partially refunded` are open, a shipped one is shipped, `completed`
 *   is completed, `canceled` is cancelled, and so is `fully refunded` when nothing was shipped.
 * - Only skus, quantities, prices and states are read: the receipt's name, address and e-mail are never parsed.
 */
import Type, { type Static } from 'typebox';
import type { OrderStatus } from '../../domain/index.js';
import { PlatformError } from '../contracts/errors.js';
import type { ListingsCall } from '../contracts/listings.js';
import { type OrdersAdapter, type OrdersPage, type PlatformOrder, readEach } from '../contracts/orders.js';
import { type PlatformHttp, readAnswer } from '../http.js';
import { parseBody } from '../parse.js';
import type { EtsyConfig } from './connect.js';
import { readFailure, readRateLimits } from './listing-responses.js';
import { apiHeaders } from './requests.js';

/** Receipts a page of getShopReceipts holds at most (orders.md §1: `limit` 1–100). */
export const RECEIPTS_PAGE_SIZE = 100;
/** Notified receipts read together from this many: from the newest changed, a page a call; fewer, one a call. */
const NEWEST_FROM = 3;
/** How far back the cancellations pass looks: the receipts of the last 30 days, the ones a seller still ships. */
const CANCELLATIONS_DAYS = 30;

const Money = Type.Object({ amount: Type.Integer(), divisor: Type.Integer(), currency_code: Type.String() });
const Transaction = Type.Object({
  transaction_id: Type.Integer(),
  listing_id: Type.Union([Type.Integer(), Type.Null()]),
  sku: Type.Union([Type.String(), Type.Null()]),
  quantity: Type.Integer({ minimum: 0 }),
  price: Money,
});
const Receipt = Type.Object({
  receipt_id: Type.Integer(),
  status: Type.String(),
  is_shipped: Type.Boolean(),
  created_timestamp: Type.Integer(),
  updated_timestamp: Type.Integer(),
  grandtotal: Money,
  transactions: Type.Array(Transaction),
});
const ReceiptList = Type.Object({ count: Type.Integer(), results: Type.Array(Receipt) });
type EtsyReceipt = Static<typeof Receipt>;

/** Etsy's Money (`{amount, divisor}`) as decimal text to the cent. */
function decimal(money: { amount: number; divisor: number }): string {
  const cents = Math.round((money.amount * 100) / (money.divisor || 1));
  const sign = cents < 0 ? '-' : '';
  const whole = Math.abs(cents);
  return `${sign}${Math.floor(whole / 100)}.${String(whole % 100).padStart(2, '0')}`;
}

/** The receipt's state in Storelink's words (see above). */
export function etsyOrderStatus(receipt: Pick<EtsyReceipt, 'status' | 'is_shipped'>): OrderStatus {
  const status = receipt.status.toLowerCase();
  if (status === 'canceled' || (status === 'fully refunded' && !receipt.is_shipped)) return 'cancelled';
  if (status === 'completed') return 'completed';
  if (receipt.is_shipped || status === 'fully refunded') return 'shipped';
  if (status === 'open' || status === 'payment processing') return 'pending';
  return 'open';
}

export function etsyOrder(receipt: EtsyReceipt): PlatformOrder {
  return {
    externalId: String(receipt.receipt_id),
    status: etsyOrderStatus(receipt),
    platformStatus: receipt.status,
    currency: receipt.grandtotal.currency_code,
    total: decimal(receipt.grandtotal),
    placedAt: new Date(receipt.created_timestamp * 1000),
    updatedAt: new Date(receipt.updated_timestamp * 1000),
    externalUrl: null,
    lines: receipt.transactions.map((line) => ({
      externalId: String(line.transaction_id),
      sku: line.sku || null,
      quantity: line.quantity,
      price: decimal(line.price),
      externalListingId: line.listing_id === null ? null : String(line.listing_id),
    })),
  };
}

const parseReceipts = (status: number, body: unknown) => {
  if (status >= 400) throw readFailure(status, body, 'the shop’s receipts');
  const list = parseBody(ReceiptList, body);
  if (!list) throw new PlatformError('unavailable', 'Etsy answered the shop’s receipts in an unknown shape');
  return list;
};

const parseReceiptOrGone = (status: number, body: unknown): EtsyReceipt | null => {
  if (status === 404) return null;
  if (status >= 400) throw readFailure(status, body, 'the receipt');
  const receipt = parseBody(Receipt, body);
  if (!receipt) throw new PlatformError('unavailable', 'Etsy answered the receipt in an unknown shape');
  return receipt;
};

/** The cursor of a page: `<pass>:<offset>`, `changed` then `canceled`; an unreadable one starts again. */
function readCursor(cursor: string | null): { pass: 'changed' | 'canceled'; offset: number } {
  const [pass, offset] = (cursor ?? '').split(':');
  if ((pass === 'changed' || pass === 'canceled') && /^[0-9]{1,9}$/.test(offset ?? '')) return { pass, offset: Number(offset) };
  return { pass: 'changed', offset: 0 };
}

export function createEtsyOrdersAdapter(config: EtsyConfig, deps: { http: PlatformHttp; clock: { now(): Date } }): OrdersAdapter {
  const base = `${config.apiUrl}/v3/application`;

  async function get<T>(call: ListingsCall, path: string, parse: (status: number, body: unknown) => T): Promise<T> {
    const headers = apiHeaders({ clientId: config.clientId, sharedSecret: config.sharedSecret, accessToken: call.accessToken });
    await call.beforeCall?.();
    const answer = await deps.http.request(`${base}${path}`, { method: 'GET', headers, signal: call.signal });
    const limits = readRateLimits(answer.headers);
    if (limits) call.onLimits?.(limits);
    return readAnswer(answer, parse);
  }
  const shop = (call: ListingsCall) => `/shops/${encodeURIComponent(call.externalId)}`;
  const seconds = (date: Date) => Math.floor(date.getTime() / 1000);

  return {
    platform: 'etsy',
    // Etsy's budget is 10 a second per app: a read a minute per shop is far inside it, and DESIGN §14 asks for a minute.
    pollEverySeconds: 60,
    async changed(call, since, cursor): Promise<OrdersPage> {
      const { pass, offset } = readCursor(cursor);
      const query =
        pass === 'changed'
          ? `min_last_modified=${seconds(since)}&sort_on=updated&sort_order=asc`
          : `was_canceled=true&min_created=${seconds(deps.clock.now()) - CANCELLATIONS_DAYS * 86_400}&sort_on=created&sort_order=asc`;
      const page = await get(call, `${shop(call)}/receipts?${query}&limit=${RECEIPTS_PAGE_SIZE}&offset=${offset}`, parseReceipts);
      const more = page.results.length > 0 && offset + page.results.length < page.count;
      const next = more ? `${pass}:${offset + page.results.length}` : pass === 'changed' ? 'canceled:0' : null;
      return { orders: page.results.map(etsyOrder), next };
    },
    async orders(call, externalIds) {
      const asked = [...new Set(externalIds.filter((id) => /^[0-9]{1,20}$/.test(id)))];
      const found = new Map<string, PlatformOrder>();
      if (asked.length >= NEWEST_FROM) {
        // Etsy has no read of several receipts by id, but ORDER_PAID comes as a receipt is paid, which makes it the
        // newest changed: a burst's receipts are found among the newest changed, a page of 100 a call.
        const wanted = new Set(asked);
        // A page more than they fill: receipts paid while these were read push them down the list.
        for (let offset = 0; offset < asked.length + RECEIPTS_PAGE_SIZE && found.size < asked.length; offset += RECEIPTS_PAGE_SIZE) {
          const query = `sort_on=updated&sort_order=desc&limit=${RECEIPTS_PAGE_SIZE}&offset=${offset}`;
          const page = await get(call, `${shop(call)}/receipts?${query}`, parseReceipts);
          for (const receipt of page.results)
            if (wanted.has(String(receipt.receipt_id))) found.set(String(receipt.receipt_id), etsyOrder(receipt));
          if (page.results.length < RECEIPTS_PAGE_SIZE) break;
        }
      }
      // The rest one receipt a call (getShopReceipt).
      const rest = await readEach(
        asked.filter((id) => !found.has(id)),
        async (externalId) => {
          const receipt = await get(call, `${shop(call)}/receipts/${externalId}`, parseReceiptOrGone);
          return receipt ? etsyOrder(receipt) : null;
        },
      );
      return [...found.values(), ...rest];
    },
  };
}
