/**
 * Sends what the outbox holds: signed, with a deadline, never following redirects. 5xx, 429, timeouts and network
 * errors are retried with exponential back-off for 24 hours; any other answer ends the delivery.
 */
import type { Db } from '../../db/client.js';
import * as webhooksRepo from '../../db/webhooks.repo.js';
import type { Fetch } from '../../platforms/http.js';
import { isPassingFailure } from '../../platforms/http.js';
import type { Clock } from '../../lib/clock.js';
import type { CredentialsCipher } from '../../lib/credentials-cipher.js';
import { retryDelayMs } from '../sites/refresh-policy.js';
import { signWebhook } from './signature.js';
import { secretContext } from './webhooks.service.js';

export const RETRY_WINDOW_MS = 24 * 3600_000;

export type DeliveryResult = 'delivered' | 'retry' | 'failed';

export function createWebhookSender(deps: { db: Db; clock: Clock; cipher: CredentialsCipher; fetch: Fetch; timeoutMs: number }) {
  const { db, clock, cipher } = deps;
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<unknown> | null = null;

  async function attempt(row: Awaited<ReturnType<typeof webhooksRepo.claimDueDeliveries>>[number]): Promise<DeliveryResult> {
    const secret = cipher.open({ keyId: row.secret_key_id, ciphertext: row.secret_ciphertext }, secretContext(row.workspace_id));
    const body = JSON.stringify(row.payload);
    const sentAt = clock.now();
    let status: number | null = null;
    let error: string | null = null;
    try {
      const headers = { 'content-type': 'application/json', 'user-agent': 'Storelink-Webhooks', ...signWebhook(secret, row.message_id, Math.floor(sentAt.getTime() / 1000), body) };
      const response = await deps.fetch(row.url, { method: 'POST', headers, body, redirect: 'manual', signal: AbortSignal.timeout(deps.timeoutMs) });
      status = response.status;
      await response.body?.cancel();
    } catch (e) {
      error = e instanceof Error && (e.name === 'TimeoutError' || e.name === 'AbortError') ? 'timed out' : 'could not connect';
    }
    const attempts = row.attempts + 1;
    const now = clock.now();
    if (status !== null && status >= 200 && status < 300) {
      await webhooksRepo.finishDelivery(db, row.id, { status: 'delivered', attempts, lastStatusCode: status, lastError: null, deliveredAt: now, nextAttemptAt: null });
      return 'delivered';
    }
    const retryAt = new Date(now.getTime() + retryDelayMs(attempts));
    const retryable = status === null || isPassingFailure(status);
    if (retryable && retryAt.getTime() <= row.created_at.getTime() + RETRY_WINDOW_MS) {
      await webhooksRepo.finishDelivery(db, row.id, { attempts, lastStatusCode: status, lastError: error, nextAttemptAt: retryAt });
      return 'retry';
    }
    await webhooksRepo.finishDelivery(db, row.id, { status: 'failed', attempts, lastStatusCode: status, lastError: error ?? (retryable ? 'gave up after 24 hours' : `answered ${status}`), nextAttemptAt: null });
    return 'failed';
  }

  async function runOnce(): Promise<Record<DeliveryResult, number>> {
    const counts: Record<DeliveryResult, number> = { delivered: 0, retry: 0, failed: 0 };
    const now = clock.now();
    const rows = await webhooksRepo.claimDueDeliveries(db, { now, leaseUntil: new Date(now.getTime() + 3 * deps.timeoutMs), limit: 20 });
    for (const row of rows) counts[await attempt(row)] += 1;
    return counts;
  }

  return {
    runOnce,
    start(intervalMs: number, onError: (error: unknown) => void) {
      timer = setInterval(() => {
        if (running) return;
        running = runOnce().catch(onError).finally(() => (running = null));
      }, intervalMs);
      timer.unref();
    },
    async stop() {
      if (timer) clearInterval(timer);
      await running;
    },
  };
}
