/**
 * Keeps connections alive: renews each site's access token a margin before it expires, once per site however many
 * instances run a worker, backs off on passing failures and marks the site when the platform refuses the grant.
 */
import { randomBytes } from 'node:crypto';
import type { Db } from '../../db/client.js';
import * as refreshRepo from '../../db/refresh.repo.js';
import { PlatformError } from '../../platforms/platform.js';
import type { Clock } from '../../lib/clock.js';
import type { Adapters } from '../connect/connect.service.js';
import type { CredentialsCipher } from '../../lib/credentials-cipher.js';
import { retryDelayMs, type RefreshPolicy } from './refresh-policy.js';
import { openTokens, sealTokens } from './credentials.js';
import { emitEvent, siteEventData } from '../webhooks/webhooks.service.js';

export type RefreshResult = 'refreshed' | 'retry' | 'reauthorization_required';

export interface RefreshWorker {
  /** One pass over what is due now; returns what happened to each credential it claimed. */
  runOnce(): Promise<Record<RefreshResult, number>>;
  start(intervalMs: number): void;
  stop(): Promise<void>;
}

export function createRefreshWorker(deps: {
  db: Db;
  clock: Clock;
  cipher: CredentialsCipher;
  adapters: Adapters;
  policy: RefreshPolicy;
  /** How long a claim holds: longer than a platform call can take, so a slow call never loses its row to another worker. */
  leaseMs: number;
  batchSize?: number;
  onError: (error: unknown, context: { siteId: number }) => void;
}): RefreshWorker {
  const { db, clock, cipher, adapters } = deps;
  const owner = randomBytes(8).toString('base64url');
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<unknown> | null = null;

  /** Marks the site and tells the workspace's webhooks, in one transaction. */
  const giveUp = (row: refreshRepo.ClaimedCredentials, reason: string) =>
    refreshRepo.giveUpRefreshing(db, row.siteId, row.track, reason, clock.now(), (tx, site) => emitEvent(tx, site.workspaceId, 'site.reauthorization_required', siteEventData(site), clock.now()));

  async function refresh(row: refreshRepo.ClaimedCredentials): Promise<RefreshResult> {
    const adapter = adapters[row.track === 'advertising' ? 'amazon-ads' : row.platform];
    const { refreshToken } = openTokens(cipher, row);
    if (!refreshToken) {
      await giveUp(row, 'The platform gave no refresh token; reconnect the site.');
      return 'reauthorization_required';
    }
    try {
      if (!adapter) throw new PlatformError('unavailable', 'This platform is no longer configured');
      const tokens = await adapter.refreshToken(refreshToken);
      const now = clock.now();
      // A platform that does not rotate may omit the refresh token: the one we hold stays the valid one.
      const sealed = sealTokens(cipher, row.siteId, row.track, { ...tokens, refreshToken: tokens.refreshToken ?? refreshToken }, now, deps.policy);
      await refreshRepo.saveRefreshedCredentials(db, row.siteId, row.track, sealed, now);
      return 'refreshed';
    } catch (error) {
      const now = clock.now();
      if (error instanceof PlatformError && error.reason === 'rejected') {
        await giveUp(row, `The platform refused to renew access (${error.message}); reconnect the site.`);
        return 'reauthorization_required';
      }
      if (!(error instanceof PlatformError)) deps.onError(error, { siteId: row.siteId });
      const failures = row.refreshFailures + 1;
      await refreshRepo.recordRefreshFailure(db, row.siteId, row.track, failures, new Date(now.getTime() + retryDelayMs(failures)), now);
      return 'retry';
    }
  }

  async function runOnce(): Promise<Record<RefreshResult, number>> {
    const counts: Record<RefreshResult, number> = { refreshed: 0, retry: 0, reauthorization_required: 0 };
    const now = clock.now();
    const rows = await refreshRepo.claimDueCredentials(db, { owner, now, leaseUntil: new Date(now.getTime() + deps.leaseMs), limit: deps.batchSize ?? 20 });
    for (const row of rows) counts[await refresh(row)] += 1;
    return counts;
  }

  return {
    runOnce,
    start(intervalMs) {
      timer = setInterval(() => {
        if (running) return;
        running = runOnce()
          .catch((error) => deps.onError(error, { siteId: 0 }))
          .finally(() => (running = null));
      }, intervalMs);
      timer.unref();
    },
    async stop() {
      if (timer) clearInterval(timer);
      await running;
    },
  };
}
