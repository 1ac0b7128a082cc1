/** Caps on a workspace's webhooks (docs/decisions.md, "Abuse limits"), checked in the transaction of the write they guard. */
import { lockWorkspace } from '../../db/accounts.repo.js';
import type { Db } from '../../db/client.js';
import * as webhooksRepo from '../../db/webhooks.repo.js';
import { MAX_REDELIVERIES_PER_MESSAGE, MAX_WEBHOOKS_PER_WORKSPACE, REDELIVERY_WINDOW_MS } from '../../domain/index.js';
import { AppError, invalidField } from '../../errors.js';

/** 422 when the workspace has MAX_WEBHOOKS_PER_WORKSPACE endpoints; its row is held till commit, so none races past. */
export async function checkEndpointRoom(tx: Db, workspaceId: number): Promise<void> {
  await lockWorkspace(tx, workspaceId);
  if ((await webhooksRepo.countEndpoints(tx, workspaceId)) < MAX_WEBHOOKS_PER_WORKSPACE) return;
  throw invalidField(
    'webhooks',
    `This workspace already has ${MAX_WEBHOOKS_PER_WORKSPACE} webhook endpoints, the most allowed: delete one first.`,
  );
}

/**
 * 429 when the delivery's message was redelivered MAX_REDELIVERIES_PER_MESSAGE times within the last
 * REDELIVERY_WINDOW_MS, with Retry-After until the oldest of those leaves the window. A rate, not a lifetime cap: a
 * receiver fixed tomorrow can still be sent yesterday's message.
 */
export async function checkRedeliveryRoom(tx: Db, endpointId: number, deliveryId: number, now: Date): Promise<void> {
  const since = new Date(now.getTime() - REDELIVERY_WINDOW_MS);
  const { count, oldest } = await webhooksRepo.recentRedeliveries(tx, endpointId, deliveryId, since);
  if (count < MAX_REDELIVERIES_PER_MESSAGE) return;
  const wait = Math.max(1, Math.ceil(((oldest ?? now).getTime() + REDELIVERY_WINDOW_MS - now.getTime()) / 1000));
  throw new AppError('rate_limited', {
    message: `This message was redelivered ${MAX_REDELIVERIES_PER_MESSAGE} times within an hour, the most allowed. Try again later.`,
    headers: { 'retry-after': String(wait) },
  });
}
