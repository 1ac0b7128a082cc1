/**
 * The simulated Etsy shop's orders (orders.md §1, DESIGN §14 "Sandbox"): receipts with their transactions, read as
 * Etsy serves them (getShopReceipts with its time, state, sort and offset filters; getShopReceipt), and a buyer's side
 * for the sandbox:
 * - `POST /sandbox/etsy/accounts/{account}/orders` `{lines: [{sku, quantity}], status?}` places an order as a buyer
 *   would. Each sku is sold from the shop's active listing that offers it, whose offering loses the units (the listing
 *   is `sold_out` at 0, as on Etsy); 409 when it has too few. A sku no listing offers is sold as an item listed outside
 *   Storelink. The status is `paid` unless `open` (placed, payment processing) is asked; a paid order sends ORDER_PAID.
 * - `…/orders/{id}/cancel` cancels it (status `canceled`); `…/orders/{id}/ship` ships it (`completed`).
 *
 * Etsy's quirks kept: `min_last_modified` does not return cancelled or fully refunded receipts (#604), and a
 * cancellation leaves `updated_timestamp` as it was (#513): a reader finds cancellations with `was_canceled`.
 * ASSUMPTION (orders.md §1: UNCONFIRMED): a cancellation does not put the units back on the listing.
 * A receipt carries a buyer's name, address and e-mail on Etsy; the sandbox makes up obviously fake ones, so a client
 * that stored or logged them would be caught by the tests that look for them.
 */
import { createHmac, randomBytes } from 'node:crypto';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { accountOf, readOrderLines } from '../buyer.js';
import { SANDBOX_CLIENTS, type SandboxContext } from '../context.js';
import { refill, registerStatePart } from '../state.js';
import { shopIdOf, userIdOf } from './api-access.js';
import type { EtsyGuard } from './guard.js';
import { type ListingStore, settleStock } from './listing-store.js';

/** The fake buyer every sandbox receipt names: what a client must never store, log or return. */
export const SANDBOX_BUYER = {
  name: 'Sandbox Buyer Rosalind Quill',
  first_line: '17 Cherry Tree Lane',
  city: 'Quillborough',
  // ZIP+4: a test that looks for it in a dump of every table and log must not find it inside a number (a time in
  // milliseconds such as 1796309021012 holds 90210).
  zip: '90210-4471',
  buyer_email: 'rosalind.quill@buyer.example',
} as const;

interface Transaction {
  transaction_id: number;
  listing_id: number | null;
  product_id: number | null;
  sku: string;
  title: string;
  quantity: number;
  /** In cents. */
  price: number;
}

interface Receipt {
  receipt_id: number;
  shop_id: number;
  status: 'open' | 'paid' | 'completed' | 'canceled';
  is_shipped: boolean;
  created: number;
  updated: number;
  transactions: Transaction[];
}

const money = (cents: number) => ({ amount: cents, divisor: 100, currency_code: 'USD' });
const seconds = (ms: number) => Math.floor(ms / 1000);

/** A receipt as Etsy's ShopReceipt answers it (the fields orders.md §1 lists, and the buyer's). */
function present(receipt: Receipt) {
  const subtotal = receipt.transactions.reduce((sum, line) => sum + line.price * line.quantity, 0);
  return {
    receipt_id: receipt.receipt_id,
    receipt_type: 0,
    seller_user_id: userIdOf(receipt.shop_id - 80_000_000),
    buyer_user_id: 60_000_001,
    ...SANDBOX_BUYER,
    state: 'CA',
    country_iso: 'US',
    status:
      receipt.status === 'open' ? 'Open' : receipt.status === 'paid' ? 'Paid' : receipt.status === 'completed' ? 'Completed' : 'Canceled',
    payment_method: 'cc',
    is_paid: receipt.status !== 'open' && receipt.status !== 'canceled',
    is_shipped: receipt.is_shipped,
    create_timestamp: seconds(receipt.created),
    created_timestamp: seconds(receipt.created),
    update_timestamp: seconds(receipt.updated),
    updated_timestamp: seconds(receipt.updated),
    grandtotal: money(subtotal),
    subtotal: money(subtotal),
    total_price: money(subtotal),
    transactions: receipt.transactions.map((line) => ({
      transaction_id: line.transaction_id,
      title: line.title,
      seller_user_id: userIdOf(receipt.shop_id - 80_000_000),
      buyer_user_id: 60_000_001,
      create_timestamp: seconds(receipt.created),
      created_timestamp: seconds(receipt.created),
      paid_timestamp: receipt.status === 'open' ? null : seconds(receipt.created),
      shipped_timestamp: receipt.is_shipped ? seconds(receipt.updated) : null,
      quantity: line.quantity,
      receipt_id: receipt.receipt_id,
      listing_id: line.listing_id,
      product_id: line.product_id,
      sku: line.sku,
      price: money(line.price),
      variations: [],
    })),
    refunds: [],
  };
}

const SORTS = { created: (r: Receipt) => r.created, updated: (r: Receipt) => r.updated, receipt_id: (r: Receipt) => r.receipt_id };

/** Etsy's boolean query values. */
const flag = (value: unknown): boolean | undefined => (value === 'true' ? true : value === 'false' ? false : undefined);
const epoch = (value: unknown): number | undefined | null =>
  value === undefined ? undefined : /^[0-9]{1,12}$/.test(String(value)) ? Number(value) * 1000 : null;

export function registerOrders(app: FastifyInstance, guard: EtsyGuard, store: ListingStore, context: SandboxContext) {
  const receipts = new Map<number, Receipt>();
  let nextReceipt = 3_000_000_000;
  let nextTransaction = 4_000_000_000;
  registerStatePart(context.stateParts, 'etsy:receipts', {
    save: () => ({ receipts, nextReceipt, nextTransaction }),
    load: (state) => {
      const saved = state as { receipts: typeof receipts; nextReceipt: number; nextTransaction: number };
      refill(receipts, saved.receipts);
      nextReceipt = saved.nextReceipt;
      nextTransaction = saved.nextTransaction;
    },
  });
  const now = () => context.clock.nowMs();
  const cancelled = (r: Receipt) => r.status === 'canceled';

  app.get('/v3/application/shops/:shopId/receipts', async (request, reply) => {
    const { shopId } = request.params as { shopId: string };
    if (!(await guard.admitGrant(request, reply, { operation: 'getShopReceipts', scope: 'transactions_r', shopId }))) return reply;
    const query = request.query as Record<string, string | undefined>;
    const limit = query.limit === undefined ? 25 : Number(query.limit);
    const offset = query.offset === undefined ? 0 : Number(query.offset);
    const times = {
      minCreated: epoch(query.min_created),
      maxCreated: epoch(query.max_created),
      minModified: epoch(query.min_last_modified),
      maxModified: epoch(query.max_last_modified),
    };
    const sortOn = (query.sort_on ?? 'created') as keyof typeof SORTS;
    const order = query.sort_order ?? 'desc';
    if (!Number.isInteger(limit) || limit < 1 || limit > 100) return reply.code(400).send({ error: 'limit must be between 1 and 100' });
    if (!Number.isInteger(offset) || offset < 0) return reply.code(400).send({ error: 'offset must be 0 or more' });
    if (Object.values(times).includes(null)) return reply.code(400).send({ error: 'time filters are epoch seconds' });
    if (!(sortOn in SORTS)) return reply.code(400).send({ error: 'sort_on must be one of created, updated, receipt_id' });
    if (!['asc', 'ascending', 'desc', 'descending', 'up', 'down'].includes(order))
      return reply.code(400).send({ error: 'sort_order must be asc or desc' });
    const states = { paid: flag(query.was_paid), shipped: flag(query.was_shipped), canceled: flag(query.was_canceled) };
    const byModified = times.minModified !== undefined || times.maxModified !== undefined;
    const matching = [...receipts.values()].filter(
      (r) =>
        r.shop_id === Number(shopId) &&
        (times.minCreated === undefined || r.created >= times.minCreated!) &&
        (times.maxCreated === undefined || r.created <= times.maxCreated!) &&
        (times.minModified === undefined || r.updated >= times.minModified!) &&
        (times.maxModified === undefined || r.updated <= times.maxModified!) &&
        // Etsy's #604: a search by modification time leaves cancelled receipts out.
        !(byModified && cancelled(r)) &&
        (states.paid === undefined || (r.status !== 'open' && !cancelled(r)) === states.paid) &&
        (states.shipped === undefined || r.is_shipped === states.shipped) &&
        (states.canceled === undefined || cancelled(r) === states.canceled),
    );
    const key = SORTS[sortOn];
    const sign = ['asc', 'ascending', 'up'].includes(order) ? 1 : -1;
    matching.sort((a, b) => sign * (key(a) - key(b) || a.receipt_id - b.receipt_id));
    return reply.send({ count: matching.length, results: matching.slice(offset, offset + limit).map(present) });
  });

  app.get('/v3/application/shops/:shopId/receipts/:receiptId', async (request, reply) => {
    const { shopId, receiptId } = request.params as { shopId: string; receiptId: string };
    if (!(await guard.admitGrant(request, reply, { operation: 'getShopReceipt', scope: 'transactions_r', shopId }))) return reply;
    const receipt = receipts.get(Number(receiptId));
    if (!receipt || receipt.shop_id !== Number(shopId)) return reply.code(404).send({ error: `Receipt with id ${receiptId} not found` });
    return reply.send(present(receipt));
  });

  // The buyer's side (sandbox only, no auth).
  app.post('/accounts/:account/orders', async (request, reply) => {
    const account = accountOf(reply, (request.params as { account: string }).account);
    if (account === null) return reply;
    const body = (request.body ?? {}) as { lines?: unknown; status?: unknown };
    const lines = readOrderLines(body.lines, { skuMax: 64, quantityMax: 999 });
    if (!lines) return reply.code(400).send({ error: 'lines must be 1 to 50 of {sku, quantity}, quantity a whole number from 1 to 999' });
    if (body.status !== undefined && body.status !== 'paid' && body.status !== 'open')
      return reply.code(400).send({ error: 'status must be paid or open' });
    const shopId = shopIdOf(account);
    const sold: Transaction[] = [];
    const takes: { offering: { quantity: number }; quantity: number }[] = [];
    for (const line of lines) {
      const listing = store
        .ofShop(shopId)
        .find((l) => l.state === 'active' && l.inventory.products.some((p) => p.sku === line.sku && p.offering.is_enabled));
      const product = listing?.inventory.products.find((p) => p.sku === line.sku && p.offering.is_enabled);
      if (listing && product) {
        const wanted = takes.filter((t) => t.offering === product.offering).reduce((sum, t) => sum + t.quantity, 0) + line.quantity;
        if (product.offering.quantity < wanted)
          return reply.code(409).send({ error: `Only ${product.offering.quantity} of ${line.sku} left in the shop` });
        takes.push({ offering: product.offering, quantity: line.quantity });
      }
      sold.push({
        transaction_id: ++nextTransaction,
        listing_id: listing?.listing_id ?? null,
        product_id: product?.product_id ?? null,
        sku: line.sku,
        title: listing?.fields.title ?? `An item listed outside Storelink (${line.sku})`,
        quantity: line.quantity,
        price: product?.offering.price ?? 1000,
      });
    }
    for (const take of takes) take.offering.quantity -= take.quantity;
    for (const line of sold) {
      const listing = line.listing_id === null ? undefined : store.get(line.listing_id);
      if (listing) {
        settleStock(listing);
        listing.updated = now();
      }
    }
    const at = now();
    const receipt: Receipt = {
      receipt_id: ++nextReceipt,
      shop_id: shopId,
      status: body.status === 'open' ? 'open' : 'paid',
      is_shipped: false,
      created: at,
      updated: at,
      transactions: sold,
    };
    receipts.set(receipt.receipt_id, receipt);
    if (receipt.status === 'paid') notifyPaid(context, receipt);
    return reply.code(201).send({ id: String(receipt.receipt_id) });
  });

  const receiptOf = (reply: FastifyReply, params: { account: string; id: string }) => {
    const account = accountOf(reply, params.account);
    if (account === null) return null;
    const receipt = receipts.get(Number(params.id));
    if (receipt?.shop_id === shopIdOf(account)) return receipt;
    void reply.code(404).send({ error: 'No such order in this shop' });
    return null;
  };

  app.post('/accounts/:account/orders/:id/cancel', async (request, reply) => {
    const receipt = receiptOf(reply, request.params as { account: string; id: string });
    if (!receipt) return reply;
    if (receipt.is_shipped) return reply.code(409).send({ error: 'A shipped order cannot be cancelled' });
    // Etsy leaves the receipt's update time as it was (#513).
    receipt.status = 'canceled';
    return reply.code(204).send();
  });

  app.post('/accounts/:account/orders/:id/ship', async (request, reply) => {
    const receipt = receiptOf(reply, request.params as { account: string; id: string });
    if (!receipt) return reply;
    if (receipt.status === 'canceled' || receipt.status === 'open')
      return reply.code(409).send({ error: `A ${receipt.status} order cannot ship` });
    receipt.status = 'completed';
    receipt.is_shipped = true;
    receipt.updated = now();
    return reply.code(204).send();
  });
}

/**
 * Etsy's ORDER_PAID webhook (orders.md §1): the flat payload, signed as Standard Webhooks sign (`webhook-id`,
 * `webhook-timestamp`, `webhook-signature: v1,<base64 HMAC-SHA256 of id.timestamp.body>` keyed with the secret's bytes
 * after `whsec_`). Sent once, not awaited, as the other simulators' notifications are.
 */
function notifyPaid(context: SandboxContext, receipt: Receipt): void {
  const body = JSON.stringify({
    event_type: 'order.paid',
    resource_url: `${context.sandboxUrl}/etsy/v3/application/shops/${receipt.shop_id}/receipts/${receipt.receipt_id}`,
    shop_id: receipt.shop_id,
  });
  const id = `msg_${randomBytes(12).toString('base64url')}`;
  const timestamp = String(Math.floor(context.clock.nowMs() / 1000));
  const key = Buffer.from(SANDBOX_CLIENTS.etsy.webhookSecret.replace(/^whsec_/, ''), 'base64');
  const signature = createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64');
  const headers = {
    'content-type': 'application/json',
    'webhook-id': id,
    'webhook-timestamp': timestamp,
    'webhook-signature': `v1,${signature}`,
  };
  if (context.lostNotifications.has('etsy')) return;
  void fetch(context.notificationUrl('etsy'), { method: 'POST', headers, body }).catch(() => undefined);
}
