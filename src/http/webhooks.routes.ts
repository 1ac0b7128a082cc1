/** Webhook endpoints of a workspace: create (secret shown once), list, delete, delivery log, redeliver; docs/decisions.md (Webhooks) says how they behave. */

import Type from 'typebox';
import type { Delivery, Endpoint, WebhooksService } from '../core/webhooks/webhooks.service.js';
import { WEBHOOK_EVENTS, type WebhookEvent } from '../domain/index.js';
import { type App, principalOf, workspaceOf } from './access.js';
import { Id, iso, Named, NullableTimestamp, Ok, OkPage, ok, okPage, PageQuery, pageOf, Timestamp } from './schemas.js';

const EventName = Type.Unsafe<WebhookEvent>({ type: 'string', enum: [...WEBHOOK_EVENTS] });
const EndpointSchema = Named('WebhookEndpoint', { id: Id, url: Type.String(), events: Type.Array(EventName), created_at: Timestamp });
const DeliverySchema = Named('WebhookDelivery', {
  id: Id,
  message_id: Type.String(),
  event_type: EventName,
  status: Type.Union([Type.Literal('pending'), Type.Literal('delivered'), Type.Literal('failed')]),
  attempts: Type.Integer(),
  last_status_code: Type.Union([Type.Integer(), Type.Null()]),
  last_error: Type.Union([Type.String(), Type.Null()]),
  next_attempt_at: NullableTimestamp,
  created_at: Timestamp,
  delivered_at: NullableTimestamp,
});

const presentEndpoint = (row: Endpoint) => ({ id: row.id, url: row.url, events: row.events, created_at: iso(row.createdAt) });
const presentDelivery = (row: Delivery) => ({
  id: row.id,
  message_id: row.messageId,
  event_type: row.eventType,
  status: row.status,
  attempts: row.attempts,
  last_status_code: row.lastStatusCode,
  last_error: row.lastError,
  next_attempt_at: iso(row.nextAttemptAt),
  created_at: iso(row.createdAt),
  delivered_at: iso(row.deliveredAt),
});

/** The services the routes use. */
export interface WebhookRoutesServices {
  readonly webhooks: WebhooksService;
}

export function registerWebhookRoutes(app: App, deps: WebhookRoutesServices) {
  const { webhooks } = deps;
  const params = Type.Object({ webhook_id: Id });
  const actor = (request: Parameters<typeof principalOf>[0] & { ip: string }) => ({
    actorUserId: principalOf(request).user.id,
    ipAddress: request.ip,
  });

  app.post(
    '/webhooks',
    {
      config: { access: 'workspace', role: 'admin' },
      schema: {
        summary: 'Add a webhook endpoint; its signing secret is in this response only',
        tags: ['webhooks'],
        body: Type.Object({
          url: Type.String({ maxLength: 2048 }),
          events: Type.Array(EventName, { minItems: 1, maxItems: WEBHOOK_EVENTS.length }),
        }),
        response: {
          201: Ok(
            Type.Object({
              ...EndpointSchema.properties,
              secret: Type.String({ description: 'whsec_… Standard Webhooks signing secret; it cannot be shown again' }),
            }),
          ),
        },
      },
    },
    async (request, reply) => {
      const workspace = workspaceOf(request);
      const { row, secret } = await webhooks.create(workspace.id, request.body, actor(request));
      return reply.code(201).send(ok({ ...presentEndpoint(row), secret }));
    },
  );

  app.get(
    '/webhooks',
    {
      config: { access: 'workspace', role: 'admin' },
      schema: {
        summary: "The workspace's webhook endpoints (never their secrets)",
        tags: ['webhooks'],
        response: { 200: Ok(Type.Array(EndpointSchema)) },
      },
    },
    async (request) => ok((await webhooks.list(workspaceOf(request).id)).map(presentEndpoint)),
  );

  app.delete(
    '/webhooks/:webhook_id',
    {
      config: { access: 'workspace', role: 'admin' },
      schema: { summary: 'Remove a webhook endpoint and its deliveries', tags: ['webhooks'], params, response: { 200: Ok(Type.Null()) } },
    },
    async (request) => {
      const workspace = workspaceOf(request);
      await webhooks.remove(workspace.id, request.params.webhook_id, actor(request));
      return ok(null);
    },
  );

  app.get(
    '/webhooks/:webhook_id/deliveries',
    {
      config: { access: 'workspace', role: 'admin' },
      schema: {
        summary: "An endpoint's delivery log, newest first",
        tags: ['webhooks'],
        params,
        querystring: PageQuery,
        response: { 200: OkPage(DeliverySchema) },
      },
    },
    async (request) => {
      const { rows, total } = await webhooks.deliveries(workspaceOf(request).id, request.params.webhook_id, pageOf(request.query));
      return okPage(rows.map(presentDelivery), total, request.query);
    },
  );

  app.post(
    '/webhooks/:webhook_id/deliveries/:delivery_id/redeliver',
    {
      config: { access: 'workspace', role: 'admin' },
      schema: {
        summary: 'Send a delivery again, with the same webhook-id',
        tags: ['webhooks'],
        params: Type.Object({ webhook_id: Id, delivery_id: Id }),
        response: { 202: Ok(DeliverySchema) },
      },
    },
    async (request, reply) =>
      reply
        .code(202)
        .send(
          ok(presentDelivery(await webhooks.redeliver(workspaceOf(request).id, request.params.webhook_id, request.params.delivery_id))),
        ),
  );
}
