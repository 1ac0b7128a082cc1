/** Orders and the stock pool (DESIGN §14): the orders read from every site, why a quantity changed, and a read on demand. */
import Type from 'typebox';
import type { SiteListingsService } from '../core/listings/site-listings.service.js';
import type { OrdersService } from '../core/orders/orders.service.js';
import { ORDER_STATUSES, STOCK_REASONS } from '../domain/index.js';
import { type App, actorOf, workspaceOf } from './access.js';
import { IssueSchema } from './listings.routes.js';
import { Id, Named, NullableTimestamp, Ok, OkPage, OneOf, ok, okPage, PageQuery, pageOf, Timestamp, UserSchema } from './schemas.js';

const Decimal = Type.String({ pattern: '^-?[0-9]+(\\.[0-9]{1,2})?$' });
const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) => Type.Union([schema, Type.Null()]);

const LineSchema = Type.Object({
  external_id: Type.String({ description: "The platform's id of the line (Etsy transaction, TikTok Shop line item, Amazon order item)" }),
  sku: Nullable(Type.String()),
  product_id: Nullable(Id),
  variant_id: Nullable(Id),
  quantity: Type.Integer({ description: 'Units sold; a partial cancellation lowers it. TikTok Shop sells one unit a line' }),
  price: Nullable(Decimal),
  stock_taken: Type.Integer({ description: 'Units this line took off the pool: fewer than `quantity` when it was oversold' }),
  stock_returned: Type.Integer({ description: 'Units a cancellation gave back; never more than `stock_taken`' }),
  // The ListingIssue shape without its name: a named schema may appear once in a response's schema.
  issues: Type.Array(Type.Object(IssueSchema.properties), {
    description: '`unknown_sku`: no variant has the sku, nothing taken; `oversold`: the pool could not cover it',
  }),
});

const OrderSchema = Named('Order', {
  id: Id,
  site_id: Id,
  platform_id: Type.Integer(),
  external_id: Type.String({ description: "The platform's order id" }),
  status: OneOf(ORDER_STATUSES, {
    description: 'pending (placed, unpaid: the platform holds the units), open (paid), shipped, completed, cancelled (stock given back)',
  }),
  platform_status: Type.String({ description: "The platform's own word for the order's state" }),
  currency: Type.String(),
  total: Nullable(Decimal),
  placed_at: Timestamp,
  platform_updated_at: Timestamp,
  external_url: Nullable(Type.String()),
  history: Type.Boolean({ description: 'Placed before the site was connected: read as history, it took no stock' }),
  lines: Type.Array(LineSchema),
  issues: Type.Array(IssueSchema),
  created_at: Timestamp,
  updated_at: Timestamp,
});

const MovementSchema = Named('StockMovement', {
  id: Id,
  at: Timestamp,
  product_id: Id,
  variant_id: Id,
  sku: Type.String(),
  delta: Type.Integer({ description: 'Units added (positive) or taken (negative)' }),
  quantity_after: Type.Integer(),
  reason: OneOf(STOCK_REASONS),
  order_id: Nullable(Id),
  actor: Type.Union([UserSchema, Type.Null()], { description: 'Who changed it (an edit or an import); null for an order' }),
});

const Since = Type.String({ format: 'date-time', description: 'ISO 8601 time' });

export function registerOrderRoutes(app: App, deps: { orders: OrdersService; siteListings: Pick<SiteListingsService, 'siteOf'> }) {
  const { orders } = deps;

  app.get(
    '/orders',
    {
      config: { access: 'workspace' },
      schema: {
        summary: "The workspace's orders from every site, newest first (by when they were placed)",
        tags: ['orders'],
        querystring: Type.Object({
          ...PageQuery.properties,
          site_id: Type.Optional(Id),
          status: Type.Optional(OneOf(ORDER_STATUSES)),
          sku: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'Orders with a line of this sku' })),
          since: Type.Optional({ ...Since, description: 'Orders placed at or after this time (ISO 8601)' }),
        }),
        response: { 200: OkPage(OrderSchema) },
      },
    },
    async (request) => {
      const { site_id: siteId, status, sku, since } = request.query;
      const filter = { siteId, status, sku, ...(since ? { since: new Date(since) } : {}) };
      const { rows, total } = await orders.list(workspaceOf(request).id, filter, pageOf(request.query));
      return okPage(rows, total, request.query);
    },
  );

  app.get(
    '/orders/:order_id',
    {
      config: { access: 'workspace' },
      schema: { summary: 'One order', tags: ['orders'], params: Type.Object({ order_id: Id }), response: { 200: Ok(OrderSchema) } },
    },
    async (request) => ok(await orders.get(workspaceOf(request).id, request.params.order_id)),
  );

  app.post(
    '/sites/:site_id/orders/sync',
    {
      config: { access: 'workspace' },
      schema: {
        summary: "Read the site's new and changed orders now (202)",
        description:
          'Storelink reads every site every minute (Amazon: as its order search rate allows) and at once when the platform notifies; this reads now. 422 on `site_id` for a site that is not connected.',
        tags: ['orders'],
        params: Type.Object({ site_id: Id }),
        response: {
          202: Ok(
            Type.Object({
              site_id: Id,
              orders_read_to: {
                ...NullableTimestamp,
                description: 'Every order changed before this time had been read; null before the first read',
              },
            }),
          ),
        },
      },
    },
    async (request, reply) => {
      const site = await deps.siteListings.siteOf(workspaceOf(request).id, request.params.site_id);
      return reply.code(202).send(ok(await orders.sync(site, actorOf(request))));
    },
  );

  app.get(
    '/products/stock-movements',
    {
      config: { access: 'workspace' },
      schema: {
        summary: 'Every change of a variant’s quantity, newest first: why did my stock change?',
        tags: ['products'],
        querystring: Type.Object({
          ...PageQuery.properties,
          sku: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
          product_id: Type.Optional(Id),
          since: Type.Optional({ ...Since, description: 'Movements at or after this time (ISO 8601)' }),
        }),
        response: { 200: OkPage(MovementSchema) },
      },
    },
    async (request) => {
      const { sku, product_id: productId, since } = request.query;
      const filter = { sku, productId, ...(since ? { since: new Date(since) } : {}) };
      const { rows, total } = await orders.movements(workspaceOf(request).id, filter, pageOf(request.query));
      return okPage(rows, total, request.query);
    },
  );
}
