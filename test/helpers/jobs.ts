/** Background jobs driven by hand in tests: one pass of what is due by the test's clock, counted by outcome. */

import { sealTokens } from '../../src/core/sites/credentials.js';
import { REFRESH_QUEUE } from '../../src/core/sites/token-refresh.js';
import { DELIVERY_QUEUE } from '../../src/core/webhooks/outbox.js';
import { saveCredentials } from '../../src/db/sites.repo.js';
import { runDueJobs, type TestApp } from './test-app.js';
/** One pass of the renewals due by the test's clock, counted as the refresh worker's passes were. */
export async function refreshDue(t: TestApp) {
  const counts = await runDueJobs(t, REFRESH_QUEUE);
  return { refreshed: counts.refreshed ?? 0, retry: counts.retry ?? 0, reauthorization_required: counts.reauthorization_required ?? 0 };
}

/**
 * Awaits `pending` while standing in for the refresh worker a test app without workers lacks: renewals that are ready
 * now (the ones `accessTokenFor` asks for) are run until it settles.
 */
export async function whileRenewing<T>(t: TestApp, pending: Promise<T>): Promise<T> {
  let settled = false;
  const done = pending.finally(() => {
    settled = true;
  });
  while (!settled) {
    await t.deps.jobs.runReady(REFRESH_QUEUE);
    await Promise.race([done.catch(() => undefined), new Promise((resolve) => setTimeout(resolve, 50))]);
  }
  return done;
}

/** Stores credentials the platform will refuse, as if the user revoked the app there, and queues their renewal now. */
export async function storeRevoked(t: TestApp, siteId: number, refreshToken: string) {
  const now = t.clock.now();
  const revoked = sealTokens(
    t.deps.cipher,
    siteId,
    'seller',
    { accessToken: refreshToken, refreshToken, accessExpiresAt: now, refreshExpiresAt: null },
    now,
    t.deps.refreshPolicy,
  );
  // Due now, not 30 s on as a token that arrives expired would be (refresh-policy.ts): the test wants the renewal at once.
  const version = await saveCredentials(t.database.db, siteId, 'seller', { ...revoked, nextRefreshAt: now }, now);
  await t.deps.tokenRefresh.schedule(t.database.db, { siteId, grant: 'seller', version }, now);
}

/** One pass of the webhook deliveries due by the test's clock. */
export async function sendDue(t: TestApp) {
  const counts = await runDueJobs(t, DELIVERY_QUEUE);
  return { delivered: counts.delivered ?? 0, retry: counts.retry ?? 0, failed: counts.failed ?? 0 };
}
