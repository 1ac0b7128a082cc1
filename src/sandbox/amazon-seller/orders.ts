/**
 * The Orders API v2026-01-01 of the sandbox Amazon (orders.md §3; amzn/selling-partner-api-models
 * `models/orders-api-model/orders_2026-01-01.json`), on each region's SP-API host, behind the listings' guard (LWA
 * access token, the usage plans: searchOrders 0.0056 a second, burst 20; getOrder 0.5, burst 30; 429 "The frequency of
 * requests was greater than allowed." with `x-amzn-RateLimit-Limit`):
 * - searchOrders `GET /orders/2026-01-01/orders`: exactly one of `createdAfter` and `lastUpdatedAfter`, each with its own
 *   `…Before` (at or after the `…After`, and at least two minutes before the request), `fulfillmentStatuses`,
 *   `fulfilledBy`, `marketplaceIds` (at most 50, each of the region; all of them when absent), `maxResultsPerPage`
 *   1–100 (100 by default), `includedData`; `pagination.nextToken` is given back as `paginationToken`, valid 24 hours,
 *   with every other parameter repeated but `maxResultsPerPage` and `includedData` (400 `InvalidInput` otherwise).
 *   ASSUMPTION: orders come oldest first by the time searched on (the model does not say), and a token pages through
 *   the orders the first page matched.
 * - getOrder `GET /orders/2026-01-01/orders/{orderId}`: the order with its items; 404 `NotFound` for an order not the
 *   seller's or not of the region (ASSUMPTION: the code and wording).
 */
import { createHash, randomBytes } from 'node:crypto';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { AmazonRegion } from '../../domain/index.js';
import type { SandboxContext } from '../context.js';
import type { LwaSimulator } from '../lwa/simulator.js';
import { type Caller, createSpApiGuard, listOf } from './listings-guard.js';
import { amazonListingsOf } from './listings-store.js';
import { registerOrdersSandbox } from './orders-sandbox.js';
import { amazonOrdersOf, DATASETS, type Dataset, presentOrder, type StoredOrder } from './orders-store.js';

const THROTTLED = 'The frequency of requests was greater than allowed.';
const STATUSES = ['PENDING_AVAILABILITY', 'PENDING', 'UNSHIPPED', 'PARTIALLY_SHIPPED', 'SHIPPED', 'CANCELLED', 'UNFULFILLABLE'] as const;
const FULFILLERS = ['MERCHANT', 'AMAZON'] as const;
const PAGE_MAX = 100;
const MARKETPLACES_MAX = 50;
/** `…Before` must be at least this long before the request (the model's "at least two minutes before"). */
const BEFORE_MARGIN_MS = 120_000;
const TOKEN_TTL_MS = 24 * 3_600_000;
/** Parameters a next page may change (the model: "with the exception of `maxResultsPerPage` and `includedData`"). */
const FREE_ON_NEXT_PAGE = ['paginationToken', 'maxResultsPerPage', 'includedData'];

interface Search {
  by: 'created' | 'updated';
  after: number;
  before: number | null;
  statuses: readonly string[] | null;
  fulfillers: readonly string[] | null;
  pageSize: number;
}

interface PageToken {
  account: number;
  binding: string;
  orderIds: string[];
  expiresAt: number;
}

/** An ISO 8601 time in milliseconds; undefined when absent, NaN when unreadable. */
const timeOf = (value: string | undefined) => (value === undefined ? undefined : Date.parse(value));

/** The search the query asks for, or the reason it is refused (ASSUMPTION: the wording). */
function readSearch(query: Record<string, string>, now: number): Search | string {
  const created = { after: timeOf(query.createdAfter), before: timeOf(query.createdBefore) };
  const updated = { after: timeOf(query.lastUpdatedAfter), before: timeOf(query.lastUpdatedBefore) };
  const byCreated = created.after !== undefined || created.before !== undefined;
  const byUpdated = updated.after !== undefined || updated.before !== undefined;
  if (byCreated === byUpdated || (byCreated ? created.after : updated.after) === undefined)
    return 'Exactly one of createdAfter and lastUpdatedAfter must be provided, and no …Before of the other.';
  const { after, before } = byCreated ? created : updated;
  const names = byCreated ? ['createdAfter', 'createdBefore'] : ['lastUpdatedAfter', 'lastUpdatedBefore'];
  if (Number.isNaN(after)) return `${names[0]} must be an ISO 8601 date-time.`;
  if (before !== undefined && Number.isNaN(before)) return `${names[1]} must be an ISO 8601 date-time.`;
  if (before !== undefined && before < after!) return `${names[1]} must be equal to or after ${names[0]}.`;
  if (before !== undefined && before > now - BEFORE_MARGIN_MS) return `${names[1]} must be at least two minutes before the request.`;
  const statuses = query.fulfillmentStatuses === undefined ? null : listOf(query.fulfillmentStatuses, STATUSES, []);
  if (query.fulfillmentStatuses !== undefined && (!statuses || statuses.length === 0))
    return `fulfillmentStatuses may only hold ${STATUSES.join(', ')}.`;
  const fulfillers = query.fulfilledBy === undefined ? null : listOf(query.fulfilledBy, FULFILLERS, []);
  if (query.fulfilledBy !== undefined && (!fulfillers || fulfillers.length === 0)) return 'fulfilledBy may only hold MERCHANT, AMAZON.';
  const pageSize = query.maxResultsPerPage === undefined ? PAGE_MAX : Number(query.maxResultsPerPage);
  if (!Number.isInteger(pageSize) || pageSize < 1 || pageSize > PAGE_MAX) return `maxResultsPerPage must be between 1 and ${PAGE_MAX}.`;
  return { by: byCreated ? 'created' : 'updated', after: after!, before: before ?? null, statuses, fulfillers, pageSize };
}

/** What a page token is bound to: every parameter but the ones a next page may change. */
function bindingOf(query: Record<string, string>): string {
  const kept = Object.entries(query)
    .filter(([name]) => !FREE_ON_NEXT_PAGE.includes(name))
    .sort(([a], [b]) => a.localeCompare(b));
  return createHash('sha256').update(JSON.stringify(kept)).digest('base64url');
}

const matches = (order: StoredOrder, search: Search, marketplaceIds: ReadonlySet<string>) => {
  const at = search.by === 'created' ? order.createdAt : order.updatedAt;
  return (
    marketplaceIds.has(order.marketplaceId) &&
    at >= search.after &&
    (search.before === null || at <= search.before) &&
    (search.statuses === null || search.statuses.includes(order.status)) &&
    (search.fulfillers === null || search.fulfillers.includes('MERCHANT'))
  );
};

export function registerAmazonOrdersApi(app: FastifyInstance, context: SandboxContext, region: AmazonRegion, lwa: LwaSimulator) {
  const guard = createSpApiGuard(context, lwa, region);
  const orders = amazonOrdersOf(context);
  const tokens = new Map<string, PageToken>();
  const now = () => context.clock.nowMs();

  const includedOf = (reply: FastifyReply, caller: Caller): Set<Dataset> | null => {
    const included = listOf(caller.query.includedData, DATASETS, []);
    if (!included) void guard.fail(reply, 400, 'InvalidInput', `includedData may only hold ${DATASETS.join(', ')}.`);
    return included && new Set(included);
  };

  void app.register(async (spApi) => {
    spApi.get('/orders/2026-01-01/orders', async (request, reply) => {
      const caller = await guard.admit(request, reply, { operation: 'searchOrders', fault: 'listings', throttled: THROTTLED });
      const included = caller && includedOf(reply, caller);
      if (!caller || !included) return reply;
      const marketplaces =
        caller.query.marketplaceIds === undefined ? caller.marketplaces : guard.marketplacesOf(reply, caller, MARKETPLACES_MAX);
      if (!marketplaces) return reply;
      const search = readSearch(caller.query, now());
      if (typeof search === 'string') return guard.fail(reply, 400, 'InvalidInput', search);
      const page = pageOf(reply, caller, search, new Set(marketplaces.map((each) => each.id)));
      if (!page) return reply;
      const found = page.ids.flatMap((id) => orders.get(id) ?? []);
      const echo =
        search.before === null
          ? {}
          : { [search.by === 'created' ? 'createdBefore' : 'lastUpdatedBefore']: new Date(search.before).toISOString() };
      return reply.send({
        orders: found.map((order) => presentOrder(order, included)),
        ...(page.next ? { pagination: { nextToken: page.next } } : {}),
        ...echo,
      });
    });

    spApi.get('/orders/2026-01-01/orders/:orderId', async (request, reply) => {
      const { orderId } = request.params as { orderId: string };
      const caller = await guard.admit(request, reply, { operation: 'getOrder', fault: 'listing', throttled: THROTTLED });
      const included = caller && includedOf(reply, caller);
      if (!caller || !included) return reply;
      const order = orders.get(orderId);
      const ours = order?.account === caller.account && caller.marketplaces.some((each) => each.id === order.marketplaceId);
      if (!order || !ours) return guard.fail(reply, 404, 'NotFound', `The order ${orderId} was not found.`);
      return reply.send({ order: presentOrder(order, included) });
    });
  });

  /** The ids of this page's orders and the next page's token; null once a 400 was answered. */
  function pageOf(reply: FastifyReply, caller: Caller, search: Search, marketplaceIds: ReadonlySet<string>) {
    const binding = bindingOf(caller.query);
    let remaining: string[];
    const given = caller.query.paginationToken;
    if (given !== undefined) {
      const token = tokens.get(given);
      if (!token || token.expiresAt <= now() || token.account !== caller.account || token.binding !== binding) {
        void guard.fail(
          reply,
          400,
          'InvalidInput',
          'The paginationToken is invalid or expired, or the other parameters differ from its search.',
        );
        return null;
      }
      remaining = token.orderIds;
    } else {
      const key = (order: StoredOrder) => (search.by === 'created' ? order.createdAt : order.updatedAt);
      remaining = orders
        .all()
        .filter((order) => order.account === caller.account && matches(order, search, marketplaceIds))
        .sort((a, b) => key(a) - key(b) || a.orderId.localeCompare(b.orderId))
        .map((order) => order.orderId);
    }
    const ids = remaining.slice(0, search.pageSize);
    const rest = remaining.slice(search.pageSize);
    let next: string | null = null;
    if (rest.length > 0) {
      for (const [name, token] of tokens) if (token.expiresAt <= now()) tokens.delete(name);
      next = randomBytes(18).toString('base64url');
      tokens.set(next, { account: caller.account, binding, orderIds: rest, expiresAt: now() + TOKEN_TTL_MS });
    }
    return { ids, next };
  }
}

/** The buyer's side of the orders, once at NA's base (`/sandbox/amazon-seller`), for every region's marketplaces. */
export function registerAmazonOrdersSandbox(app: FastifyInstance, context: SandboxContext) {
  registerOrdersSandbox(app, context, amazonListingsOf(context));
}
