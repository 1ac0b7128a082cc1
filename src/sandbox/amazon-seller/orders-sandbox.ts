/**
 * The buyer's side of the sandbox Amazon (DESIGN §14 "Sandbox"), at `/sandbox/amazon-seller` without auth:
 * - `POST /accounts/{account}/orders` `{lines: [{sku, quantity}], status?, marketplace_id?}` places an order as a buyer
 *   would, in the marketplace asked for, else the first line's listed one, else Amazon.com. Each listed sku is sold
 *   from the seller's buyable listing there, whose quantity loses the units at once (Amazon subtracts at checkout);
 *   409 when the listing has too few, or is not buyable. A sku the seller does not list there is sold as an item
 *   listed outside Storelink. The status is UNSHIPPED (paid, ready to ship) unless PENDING is asked.
 * - `…/orders/{id}/cancel` cancels it in whole and puts its units back on the listings; `…/orders/{id}/ship` ships it.
 * Each placement and status change is the seller's ORDER_CHANGE notification, put on the sandbox's SQS queue before
 * the answer (notifications-store.ts): Amazon's order notifications go to SQS or EventBridge, not to an HTTP endpoint
 * (orders.md §3).
 */
import type { FastifyInstance, FastifyReply } from 'fastify';
import { accountOf, readOrderLines } from '../buyer.js';
import type { SandboxContext } from '../context.js';
import { type ListingsStore, priceOf, quantityOf, type StoredListing, textOf } from './listings-store.js';
import { amazonOrdersOf, type StoredOrder } from './orders-store.js';

const DEFAULT_MARKETPLACE = 'ATVPDKIKX0DER';
/** The price of an item listed outside Storelink, in the marketplace's currency. */
const OUTSIDE_PRICE = 10;

/** Sets the quantity the seller fulfils (channel DEFAULT) on the listing, as Amazon does on a sale or a cancellation. */
function setQuantity(listing: StoredListing, quantity: number, at: number): void {
  const entries = Array.isArray(listing.attributes.fulfillment_availability)
    ? (listing.attributes.fulfillment_availability as Record<string, unknown>[])
    : [];
  const others = entries.filter((each) => each.fulfillment_channel_code !== 'DEFAULT');
  const current = entries.find((each) => each.fulfillment_channel_code === 'DEFAULT');
  listing.attributes = {
    ...listing.attributes,
    fulfillment_availability: [...others, { ...current, fulfillment_channel_code: 'DEFAULT', quantity }],
  };
  listing.updatedAt = at;
}

export function registerOrdersSandbox(app: FastifyInstance, context: SandboxContext, listings: ListingsStore) {
  const orders = amazonOrdersOf(context);
  const now = () => context.clock.nowMs();

  app.post('/accounts/:account/orders', async (request, reply) => {
    const account = accountOf(reply, (request.params as { account: string }).account);
    if (account === null) return reply;
    const body = (request.body ?? {}) as { lines?: unknown; status?: unknown; marketplace_id?: unknown };
    const lines = readOrderLines(body.lines, { skuMax: 40, quantityMax: 999 });
    if (!lines) return reply.code(400).send({ error: 'lines must be 1 to 50 of {sku, quantity}, quantity a whole number from 1 to 999' });
    if (body.status !== undefined && body.status !== 'UNSHIPPED' && body.status !== 'PENDING')
      return reply.code(400).send({ error: 'status must be UNSHIPPED or PENDING' });
    if (body.marketplace_id !== undefined && typeof body.marketplace_id !== 'string')
      return reply.code(400).send({ error: 'marketplace_id must be a marketplace id' });
    const held = listings.ofAccount(account);
    const buyable = (listing: StoredListing) => listings.verdictOf(listing).status.includes('BUYABLE');
    const marketplaceId =
      body.marketplace_id ??
      lines.map((line) => held.find((l) => l.sku === line.sku && buyable(l)) ?? held.find((l) => l.sku === line.sku)).find(Boolean)
        ?.marketplaceId ??
      DEFAULT_MARKETPLACE;
    const items = [];
    const takes = new Map<StoredListing, number>();
    for (const line of lines) {
      const listing = listings.get(account, marketplaceId, line.sku);
      if (listing) {
        const wanted = (takes.get(listing) ?? 0) + line.quantity;
        if (!buyable(listing) || quantityOf(listing) < wanted)
          return reply.code(409).send({ error: `Only ${buyable(listing) ? quantityOf(listing) : 0} of ${line.sku} can be bought` });
        takes.set(listing, wanted);
      }
      items.push({
        sku: line.sku,
        asin: listing?.asin ?? 'B0OUTSIDE0',
        title:
          (listing && (textOf(listing.attributes, 'item_name') ?? listings.catalogueItem(listing.asin)?.title)) ??
          `An item listed outside Storelink (${line.sku})`,
        quantity: line.quantity,
        unitPrice: (listing && priceOf(listing)?.amount) ?? OUTSIDE_PRICE,
      });
    }
    const at = now();
    for (const [listing, units] of takes) setQuantity(listing, quantityOf(listing) - units, at);
    const order = orders.place({ account, marketplaceId, status: body.status === 'PENDING' ? 'PENDING' : 'UNSHIPPED', items });
    return reply.code(201).send({ id: order.orderId });
  });

  const orderOf = (reply: FastifyReply, params: { account: string; id: string }): StoredOrder | null => {
    const account = accountOf(reply, params.account);
    if (account === null) return null;
    const order = orders.get(params.id);
    if (order?.account === account) return order;
    void reply.code(404).send({ error: 'No such order in this account' });
    return null;
  };

  app.post('/accounts/:account/orders/:id/cancel', async (request, reply) => {
    const order = orderOf(reply, request.params as { account: string; id: string });
    if (!order) return reply;
    if (order.status === 'SHIPPED' || order.status === 'CANCELLED')
      return reply.code(409).send({ error: `A ${order.status.toLowerCase()} order cannot be cancelled` });
    orders.move(order, 'CANCELLED');
    const at = now();
    for (const item of order.items) {
      const listing = listings.get(order.account, order.marketplaceId, item.sku);
      if (listing) setQuantity(listing, quantityOf(listing) + item.quantity, at);
    }
    return reply.code(204).send();
  });

  app.post('/accounts/:account/orders/:id/ship', async (request, reply) => {
    const order = orderOf(reply, request.params as { account: string; id: string });
    if (!order) return reply;
    if (order.status !== 'UNSHIPPED') return reply.code(409).send({ error: `A ${order.status.toLowerCase()} order cannot ship` });
    orders.move(order, 'SHIPPED');
    return reply.code(204).send();
  });
}
