/**
 * Sends one webhook delivery, the `webhook-delivery` job: signed, with a deadline, never following redirects, to an
 * address resolved and checked for this attempt (DESIGN §8). 5xx, 429, timeouts and network errors are tried again
 * with exponential back-off for 24 hours (the next attempt is a job of its own, queued with the row's update); any
 * other answer, or a host that is not public while private targets are refused, ends the delivery.
 */
import type { Db } from '../../db/client.js';
import * as webhooksRepo from '../../db/webhooks.repo.js';
import { retryDelayMs } from '../../lib/back-off.js';
import type { Clock } from '../../lib/clock.js';
import type { CredentialsCipher } from '../../lib/credentials-cipher.js';
import { expiryAfterDeadlines, type QueueDefinition, RESUMABLE } from '../../lib/jobs.js';
import { deadlineSignal, isPassingFailure, postPinned } from '../../lib/outbound-http.js';
import { type ResolveHost, resolveTarget } from '../../lib/public-address.js';
import { DELIVERY_QUEUE, type DeliveryJob, type Outbox } from './outbox.js';
import { signWebhook } from './signature.js';
import { secretContext } from './webhooks.service.js';

export const RETRY_WINDOW_MS = 24 * 3600_000;

export type DeliveryResult = 'delivered' | 'retry' | 'failed' | 'skipped' | 'interrupted';

/** Why an attempt was refused before connecting; final, as a redirect is: the endpoint's host must change. */
export const REFUSED_TARGET = 'refused: the host resolves to an address that is not public';

type Attempt = { status: number | null; error: string | null; final?: boolean };

export function createDeliveryQueue(deps: {
  db: Db;
  clock: Clock;
  cipher: CredentialsCipher;
  outbox: Outbox;
  resolveHost: ResolveHost;
  allowPrivateTargets: boolean;
  timeoutMs: number;
  /** Aborted when the job engine stops: an attempt in flight is abandoned and queued again, and none starts after it. */
  stopping: AbortSignal;
}): QueueDefinition<DeliveryJob> {
  const { db, clock, cipher } = deps;

  /**
   * One POST, to the addresses its host resolves to now (an endpoint stored under another configuration is checked
   * too); the status it answered, or why there was none. Resolving and sending share the one deadline.
   */
  async function post(row: webhooksRepo.DeliveryToSend): Promise<Attempt> {
    const secret = cipher.open({ keyId: row.secretKeyId, ciphertext: row.secretCiphertext }, secretContext(row.workspaceId));
    const body = JSON.stringify(row.payload);
    const signature = signWebhook(secret, row.messageId, Math.floor(clock.nowMs() / 1000), body);
    const headers = { 'content-type': 'application/json', 'user-agent': 'Storelink-Webhooks', ...signature };
    const url = new URL(row.url);
    const signal = deadlineSignal(deps.timeoutMs, deps.stopping);
    const target = await resolveTarget(url.hostname, { resolve: deps.resolveHost, allowPrivate: deps.allowPrivateTargets, signal });
    if (!target.ok)
      return target.reason === 'not_public'
        ? { status: null, error: REFUSED_TARGET, final: true }
        : { status: null, error: signal.aborted ? 'timed out' : 'could not resolve the host' };
    try {
      return { status: await postPinned(url, { addresses: target.addresses, headers, body, signal }), error: null };
    } catch (e) {
      return {
        status: null,
        error: e instanceof Error && (e.name === 'TimeoutError' || e.name === 'AbortError') ? 'timed out' : 'could not connect',
      };
    }
  }

  /** Queues the row's attempt again, due now, recording nothing: the shutdown stopped it, not the receiver. */
  async function sendAgain(row: webhooksRepo.DeliveryToSend): Promise<DeliveryResult> {
    await deps.outbox.schedule(db, { id: row.id, endpointId: row.endpointId });
    return 'interrupted';
  }

  async function deliver({ deliveryId }: DeliveryJob): Promise<DeliveryResult> {
    const row = await webhooksRepo.findDeliveryToSend(db, deliveryId);
    // Sent already (a job run again after its instance died mid-way), ended, or its endpoint was deleted.
    if (!row || row.status !== 'pending') return 'skipped';
    // Claimed as the engine stopped (its fetch was in flight): the attempt is left to the next instance.
    if (deps.stopping.aborted) return sendAgain(row);
    const { status, error, final } = await post(row);
    // Cut short by the shutdown, not by the receiver: nothing is held against it.
    if (status === null && deps.stopping.aborted) return sendAgain(row);
    const attempts = row.attempts + 1;
    const now = clock.now();
    if (status !== null && status >= 200 && status < 300) {
      await webhooksRepo.finishDelivery(db, row.id, {
        status: 'delivered',
        attempts,
        lastStatusCode: status,
        lastError: null,
        deliveredAt: now,
        nextAttemptAt: null,
      });
      return 'delivered';
    }
    const retryAt = new Date(now.getTime() + retryDelayMs(attempts));
    const retryable = !final && (status === null || isPassingFailure(status));
    if (retryable && retryAt.getTime() <= row.createdAt.getTime() + RETRY_WINDOW_MS) {
      await db.transaction(async (tx) => {
        await webhooksRepo.finishDelivery(tx, row.id, { attempts, lastStatusCode: status, lastError: error, nextAttemptAt: retryAt });
        await deps.outbox.schedule(tx, { id: row.id, endpointId: row.endpointId }, retryAt);
      });
      return 'retry';
    }
    const lastError = error ?? (retryable ? 'gave up after 24 hours' : `answered ${status}`);
    await webhooksRepo.finishDelivery(db, row.id, { status: 'failed', attempts, lastStatusCode: status, lastError, nextAttemptAt: null });
    return 'failed';
  }

  const expireInSeconds = expiryAfterDeadlines(deps.timeoutMs);
  return {
    name: DELIVERY_QUEUE,
    // A job run again after its instance died sends again with the same webhook-id: receivers deduplicate by it.
    options: { expireInSeconds, retryLimit: 5, ...RESUMABLE, deleteAfterSeconds: 24 * 3600 },
    // Ten at a time per instance, at most two of them to any one endpoint, counted in memory (pg-boss's database-wide
    // group count is read before the claim, so concurrent fetches overshoot it: 4 of 2 seen in a test).
    work: { localConcurrency: 10, localGroupConcurrency: 2, pollingIntervalSeconds: 1 },
    handler: deliver,
    worker: 'webhooks',
  };
}
