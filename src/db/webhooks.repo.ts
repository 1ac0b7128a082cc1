/** Webhook endpoints and the delivery outbox. */
import { and, count, desc, eq, sql } from 'drizzle-orm';
import type { WebhookEvent } from '../domain/index.js';
import type { Db } from './client.js';
import { webhookDeliveries, webhookEndpoints } from './schema.js';

export type EndpointRow = typeof webhookEndpoints.$inferSelect;
export type DeliveryRow = typeof webhookDeliveries.$inferSelect;

export async function insertEndpoint(db: Db, row: typeof webhookEndpoints.$inferInsert): Promise<EndpointRow> {
  const [inserted] = await db.insert(webhookEndpoints).values(row).returning();
  return inserted!;
}

export function listEndpoints(db: Db, workspaceId: number): Promise<EndpointRow[]> {
  return db.select().from(webhookEndpoints).where(eq(webhookEndpoints.workspaceId, workspaceId)).orderBy(webhookEndpoints.id);
}

export async function findEndpoint(db: Db, workspaceId: number, id: number): Promise<EndpointRow | null> {
  const [row] = await db
    .select()
    .from(webhookEndpoints)
    .where(and(eq(webhookEndpoints.workspaceId, workspaceId), eq(webhookEndpoints.id, id)));
  return row ?? null;
}

export async function deleteEndpoint(db: Db, workspaceId: number, id: number): Promise<boolean> {
  const deleted = await db
    .delete(webhookEndpoints)
    .where(and(eq(webhookEndpoints.workspaceId, workspaceId), eq(webhookEndpoints.id, id)))
    .returning({ id: webhookEndpoints.id });
  return deleted.length > 0;
}

/** Queues each event, in order, for every endpoint of the workspace that subscribed to it, in the caller's transaction; the rows made. */
export async function enqueueEvents(
  db: Db,
  input: {
    workspaceId: number;
    messageId: (endpointId: number) => string;
    events: readonly { type: WebhookEvent; payload: Record<string, unknown> }[];
    now: Date;
  },
): Promise<Array<{ id: number; endpointId: number }>> {
  const endpoints = await db
    .select({ id: webhookEndpoints.id, events: webhookEndpoints.events })
    .from(webhookEndpoints)
    .where(eq(webhookEndpoints.workspaceId, input.workspaceId));
  const rows = input.events.flatMap((event) =>
    endpoints
      .filter((e) => e.events.includes(event.type))
      .map((e) => ({
        endpointId: e.id,
        messageId: input.messageId(e.id),
        eventType: event.type,
        payload: event.payload,
        nextAttemptAt: input.now,
        createdAt: input.now,
      })),
  );
  if (rows.length === 0) return [];
  return db.insert(webhookDeliveries).values(rows).returning({ id: webhookDeliveries.id, endpointId: webhookDeliveries.endpointId });
}

export async function listDeliveries(
  db: Db,
  endpointId: number,
  page: { limit: number; offset: number },
): Promise<{ rows: DeliveryRow[]; total: number }> {
  const where = eq(webhookDeliveries.endpointId, endpointId);
  const [rows, [totals]] = await Promise.all([
    db.select().from(webhookDeliveries).where(where).orderBy(desc(webhookDeliveries.id)).limit(page.limit).offset(page.offset),
    db.select({ total: count() }).from(webhookDeliveries).where(where),
  ]);
  return { rows, total: totals?.total ?? 0 };
}

/** A fresh delivery of an earlier one: same message id (receivers deduplicate by it), attempted now. */
export async function redeliver(db: Db, endpointId: number, deliveryId: number, now: Date): Promise<DeliveryRow | null> {
  const [original] = await db
    .select()
    .from(webhookDeliveries)
    .where(and(eq(webhookDeliveries.endpointId, endpointId), eq(webhookDeliveries.id, deliveryId)));
  if (!original) return null;
  const [row] = await db
    .insert(webhookDeliveries)
    .values({
      endpointId,
      messageId: original.messageId,
      eventType: original.eventType,
      payload: original.payload,
      nextAttemptAt: now,
      createdAt: now,
    })
    .returning();
  return row!;
}

/** A delivery with what sending it takes: its endpoint's URL and sealed secret; null once the endpoint is deleted. */
export async function findDeliveryToSend(db: Db, id: number) {
  const [row] = await db
    .select({
      id: webhookDeliveries.id,
      status: webhookDeliveries.status,
      endpointId: webhookDeliveries.endpointId,
      messageId: webhookDeliveries.messageId,
      payload: webhookDeliveries.payload,
      attempts: webhookDeliveries.attempts,
      createdAt: webhookDeliveries.createdAt,
      url: webhookEndpoints.url,
      workspaceId: webhookEndpoints.workspaceId,
      secretKeyId: webhookEndpoints.secretKeyId,
      secretCiphertext: webhookEndpoints.secretCiphertext,
    })
    .from(webhookDeliveries)
    .innerJoin(webhookEndpoints, eq(webhookEndpoints.id, webhookDeliveries.endpointId))
    .where(eq(webhookDeliveries.id, id));
  return row ?? null;
}

export type DeliveryToSend = NonNullable<Awaited<ReturnType<typeof findDeliveryToSend>>>;

export async function finishDelivery(
  db: Db,
  id: number,
  update: Partial<Pick<DeliveryRow, 'status' | 'attempts' | 'nextAttemptAt' | 'lastStatusCode' | 'lastError' | 'deliveredAt'>>,
): Promise<void> {
  await db.update(webhookDeliveries).set(update).where(eq(webhookDeliveries.id, id));
}

/** How many endpoints the workspace has. */
export async function countEndpoints(db: Db, workspaceId: number): Promise<number> {
  const [row] = await db.select({ total: count() }).from(webhookEndpoints).where(eq(webhookEndpoints.workspaceId, workspaceId));
  return row?.total ?? 0;
}

/**
 * The redeliveries of a delivery's message to its endpoint made after `since` (every row of the message but its first),
 * and when the oldest of them was made.
 */
export async function recentRedeliveries(
  db: Db,
  endpointId: number,
  deliveryId: number,
  since: Date,
): Promise<{ count: number; oldest: Date | null }> {
  const result = (await db.execute(sql`
    with message as (
      select d.id, d.created_at from ${webhookDeliveries} d
      where d.endpoint_id = ${endpointId}
        and d.message_id = (select message_id from ${webhookDeliveries} where endpoint_id = ${endpointId} and id = ${deliveryId})
    )
    select count(*)::int as count, (extract(epoch from min(created_at)) * 1000)::float8 as oldest_ms from message
    where created_at > ${since.toISOString()}::timestamptz and id > (select min(id) from message)`)) as unknown as {
    rows: Array<{ count: number; oldest_ms: number | null }>;
  };
  const row = result.rows[0];
  return { count: Number(row?.count ?? 0), oldest: row?.oldest_ms == null ? null : new Date(Number(row.oldest_ms)) };
}
