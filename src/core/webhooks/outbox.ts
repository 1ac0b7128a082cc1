/**
 * The webhook outbox: an event becomes one delivery row per subscribed endpoint and one delivery job per row, written
 * in the transaction of the change that caused it, so an event is sent if and only if its change committed.
 */
import { randomBytes } from 'node:crypto';
import type { Db } from '../../db/client.js';
import type { SiteRow } from '../../db/sites.repo.js';
import * as webhooksRepo from '../../db/webhooks.repo.js';
import type { WebhookEvent } from '../../domain/index.js';
import type { Jobs } from '../../lib/jobs.js';

export const DELIVERY_QUEUE = 'webhook-delivery';

export interface DeliveryJob {
  deliveryId: number;
}

export interface Outbox {
  /** Queues an event for the workspace's subscribed endpoints, in the caller's transaction. */
  emit(tx: Db, workspaceId: number, type: WebhookEvent, data: Record<string, unknown>, now: Date): Promise<void>;
  /** Emits the events in order, as emit does each, with one look-up of the endpoints per event type. */
  emitMany(tx: Db, workspaceId: number, events: readonly OutboxEvent[], now: Date): Promise<void>;
  /** Queues an attempt of a delivery row at `at` (now when omitted), in the caller's transaction. */
  schedule(tx: Db, delivery: { id: number; endpointId: number }, at?: Date): Promise<void>;
}

/** An event to emit: its type and its data. */
export interface OutboxEvent {
  type: WebhookEvent;
  data: Record<string, unknown>;
}

/**
 * `alongside` is given every change's events in its transaction too, whether or not an endpoint subscribes to them:
 * the alerts among them are mailed (core/mail).
 */
export function createOutbox(
  jobs: Jobs,
  alongside?: (tx: Db, workspaceId: number, events: readonly OutboxEvent[]) => Promise<void>,
): Outbox {
  /**
   * One job per delivery, in one statement: a burst of orders emits an event each, in a transaction that holds the
   * stock pools it moved, and every statement more holds them longer.
   */
  const scheduleAll = (tx: Db, deliveries: readonly { id: number; endpointId: number }[], at?: Date) =>
    jobs.sendMany<DeliveryJob>(
      DELIVERY_QUEUE,
      // Grouped by endpoint: the queue's group concurrency keeps one slow receiver from taking every worker.
      deliveries.map((delivery) => ({
        data: { deliveryId: delivery.id },
        group: String(delivery.endpointId),
        ...(at ? { startAfter: at } : {}),
      })),
      { tx },
    );
  const schedule: Outbox['schedule'] = (tx, delivery, at) => scheduleAll(tx, [delivery], at);
  const emitMany: Outbox['emitMany'] = async (tx, workspaceId, events, now) => {
    if (events.length === 0) return;
    await alongside?.(tx, workspaceId, events);
    const rows = await webhooksRepo.enqueueEvents(tx, {
      workspaceId,
      now,
      messageId: () => `msg_${randomBytes(12).toString('base64url')}`,
      events: events.map(({ type, data }) => ({ type, payload: { type, timestamp: now.toISOString(), data } })),
    });
    await scheduleAll(tx, rows);
  };
  return {
    emit: (tx, workspaceId, type, data, now) => emitMany(tx, workspaceId, [{ type, data }], now),
    emitMany,
    schedule,
  };
}

/** A site as events carry it: what a receiver needs, never a credential. */
export function siteEventData(
  site: Pick<SiteRow, 'id' | 'workspaceId' | 'platformId' | 'platform' | 'name' | 'externalId' | 'status' | 'statusReason'>,
) {
  return {
    site: {
      id: site.id,
      workspace_id: site.workspaceId,
      platform_id: site.platformId,
      platform: site.platform,
      name: site.name,
      external_id: site.externalId,
      status: site.status,
      status_reason: site.statusReason,
    },
  };
}
