/**
 * Keeps connections alive on the job engine. Every grant (a site's seller or advertising credentials) has its renewal
 * queued as a `token-refresh` job due a margin before its access token expires, sent in the transaction that stored the
 * token. The queue lets one job per grant be active at a time across every instance (pg-boss's `singleton` policy on
 * the key `<site>:<grant>`), which is what Etsy's rotating refresh tokens need; and every write is fenced by the row's
 * version, so a renewal whose credentials changed meanwhile (a reconnection, an earlier renewal) does nothing.
 * `accessTokenFor` is how any other caller gets a valid token: through the same queue, never around it, and never by
 * running a renewal itself: it asks for one and waits for a worker (any instance's) to make it.
 */
import type { Db } from '../../db/client.js';
import * as refreshRepo from '../../db/refresh.repo.js';
import * as sitesRepo from '../../db/sites.repo.js';
import { type GrantKind, trackOfGrant } from '../../domain/index.js';
import { retryDelayMs } from '../../lib/back-off.js';
import type { Clock } from '../../lib/clock.js';
import type { CredentialsCipher } from '../../lib/credentials-cipher.js';
import type { Jobs, QueueDefinition } from '../../lib/jobs.js';
import { PlatformError } from '../../platforms/contracts/errors.js';
import type { Adapters } from '../../platforms/registry.js';
import { platformQueueOptions } from '../platform-work/retry.js';
import { type Outbox, siteEventData } from '../webhooks/outbox.js';
import { openTokens, sealTokens } from './credentials.js';
import type { PlatformHealth } from './platform-health.js';
import type { RefreshPolicy } from './refresh-policy.js';

export const REFRESH_QUEUE = 'token-refresh';
export const OVERDUE_QUEUE = 'token-refresh-overdue';

export interface RefreshJob {
  siteId: number;
  grant: GrantKind;
  /** The credentials' version when the job was sent: a job for an older version has nothing left to do. */
  version: number;
  /** Renew now, whether or not the renewal is due (a caller needs a fresh token). */
  force?: boolean;
}

export type RefreshResult = 'refreshed' | 'retry' | 'reauthorization_required' | 'skipped';

/** A token with less than this left is renewed before `accessTokenFor` hands it out. */
const FRESH_MARGIN_MS = 60_000;
/** A renewal this late means its job was lost, or no worker ran: the overdue check queues it again. */
const OVERDUE_AFTER_MS = 2 * 60_000;
const WAIT_STEP_MS = 200;
/** How long a caller waits beyond the renewal's own deadline for a worker to take it, before it is told to come back. */
const PICK_UP_MS = 5_000;
/** What a caller whose token could not be renewed in time is told to wait (a request's `Retry-After`, a job's back-off). */
const COME_BACK_MS = 5_000;
/** A platform's `Retry-After` is honoured up to a day: a longer one is more likely a mistake than a plan. */
const MAX_RETRY_AFTER_MS = 24 * 3600_000;

export interface TokenRefresh {
  readonly queues: readonly QueueDefinition<object>[];
  /** Queues the renewal of a grant at `at` (now when omitted), in the caller's transaction. */
  schedule(tx: Db, grant: { siteId: number; grant: GrantKind; version: number }, at?: Date | null): Promise<void>;
  /**
   * A valid access token of the site's grant: the stored one while it has a minute left, else a renewed one. The
   * renewal goes through the queue (so never twice at once) and the caller waits for it for one platform deadline and
   * a few seconds. Throws PlatformError: `rejected` when the site must be reconnected, `unavailable` (with a
   * `retryAfterMs`: an HTTP caller answers 503 with `Retry-After`) when it was not renewed in time.
   */
  accessTokenFor(siteId: number, grant?: GrantKind): Promise<string>;
  /**
   * The platform refused a valid token of the grant on another call (a listing read, a listing write): the seller took
   * the grant back. As a refused renewal does, the site turns `reauthorization_required` (or advertising goes) and its
   * webhooks hear of it; `reason` is shown to the user. With `saidAt` (when the platform said so, to the second: a
   * deauthorization notification's time), a grant authorized after that second is a newer one, and is left as it is:
   * `granted_since`.
   */
  refused(siteId: number, grant: GrantKind, reason: string, saidAt?: Date): Promise<'refused' | 'granted_since'>;
}

export function createTokenRefresh(deps: {
  db: Db;
  clock: Clock;
  cipher: CredentialsCipher;
  adapters: Adapters;
  policy: RefreshPolicy;
  jobs: Jobs;
  outbox: Outbox;
  health: PlatformHealth;
  /** The platforms' deadline: a job is taken as lost (its instance died) after three of them. */
  timeoutMs: number;
  pollIntervalSeconds: number;
  onError: (error: unknown, context: { siteId: number }) => void;
}): TokenRefresh {
  const { db, clock, cipher, jobs } = deps;

  const schedule = async (tx: Db, grant: { siteId: number; grant: GrantKind; version: number }, at?: Date | null, force = false) => {
    const job: RefreshJob = { siteId: grant.siteId, grant: grant.grant, version: grant.version, ...(force ? { force } : {}) };
    await jobs.send(REFRESH_QUEUE, job, { tx, singletonKey: `${grant.siteId}:${grant.grant}`, ...(at ? { startAfter: at } : {}) });
  };

  /**
   * The platform refused the grant. A seller connection turns `reauthorization_required` with the reason and tells the
   * workspace's webhooks; a refused advertising grant removes advertising from the site and leaves the seller connection.
   */
  function giveUp(row: refreshRepo.GrantCredentials, reason: string, now: Date): Promise<RefreshResult> {
    return db.transaction(async (tx) => {
      if (row.grant === 'advertising') {
        if (!(await refreshRepo.deleteGrant(tx, row.siteId, row.grant, row.version))) return 'skipped';
        await sitesRepo.setAdvertisingProfiles(tx, row.siteId, null, null, now);
        return 'reauthorization_required';
      }
      if (!(await refreshRepo.stopRefreshing(tx, row.siteId, row.grant, now, row.version))) return 'skipped';
      const site = await sitesRepo.markReauthorizationRequired(tx, row.siteId, reason, now);
      if (site) await deps.outbox.emit(tx, site.workspaceId, 'site.reauthorization_required', siteEventData(site), now);
      return 'reauthorization_required';
    });
  }

  /**
   * A failure that is not the seller's (a passing one, or the operator's configuration): the connection stays as it is
   * and the renewal is tried again after a back-off, no sooner than the platform's `Retry-After`.
   */
  async function backOff(row: refreshRepo.GrantCredentials, retryAfterMs: number | null): Promise<RefreshResult> {
    const now = clock.now();
    const failures = row.refreshFailures + 1;
    const retryAt = new Date(now.getTime() + Math.max(retryDelayMs(failures), Math.min(retryAfterMs ?? 0, MAX_RETRY_AFTER_MS)));
    await db.transaction(async (tx) => {
      if (await refreshRepo.recordRefreshFailure(tx, row.siteId, row.grant, failures, retryAt, now, row.version))
        await schedule(tx, row, retryAt);
    });
    return 'retry';
  }

  async function refresh(job: RefreshJob): Promise<RefreshResult> {
    const row = await refreshRepo.findGrant(db, job.siteId, job.grant);
    if (!row || row.siteStatus !== 'connected' || row.version !== job.version || row.nextRefreshAt === null) return 'skipped';
    if (!job.force && row.nextRefreshAt > clock.now()) return 'skipped';
    const { refreshToken } = openTokens(cipher, row);
    if (!refreshToken) return giveUp(row, 'The platform gave no refresh token; reconnect the site.', clock.now());
    const track = trackOfGrant(row.platform, row.grant);
    const adapter = deps.adapters[track];
    try {
      if (!adapter) throw new PlatformError('unavailable', 'This platform is no longer configured');
      const tokens = await adapter.refreshToken(refreshToken, { region: row.region });
      deps.health.succeeded(track);
      const now = clock.now();
      // A platform that does not rotate may omit the refresh token: the one we hold stays the valid one.
      const sealed = sealTokens(
        cipher,
        row.siteId,
        row.grant,
        { ...tokens, refreshToken: tokens.refreshToken ?? refreshToken },
        now,
        deps.policy,
      );
      return await db.transaction(async (tx) => {
        const version = await refreshRepo.saveRefreshedCredentials(tx, row.siteId, row.grant, sealed, now, row.version);
        if (version === null) return 'skipped';
        await schedule(tx, { siteId: row.siteId, grant: row.grant, version }, sealed.nextRefreshAt);
        return 'refreshed';
      });
    } catch (error) {
      if (!(error instanceof PlatformError)) {
        deps.onError(error, { siteId: row.siteId });
        return backOff(row, null);
      }
      if (error.reason === 'rejected')
        return giveUp(row, `The platform refused to renew access (${error.message}); reconnect the site.`, clock.now());
      // The operator's configuration: every site of the platform would fail alike, and none is asked to reconnect.
      if (error.reason === 'misconfigured') deps.health.misconfigured(track, error.message);
      return backOff(row, error.retryAfterMs);
    }
  }

  /** The safety net: grants whose renewal is overdue (their job was lost, or no worker ran for a while) are queued again. */
  async function queueOverdue(): Promise<string> {
    const overdue = await refreshRepo.listOverdueGrants(db, new Date(clock.nowMs() - OVERDUE_AFTER_MS), 500);
    for (const grant of overdue) await schedule(db, grant);
    return `queued ${overdue.length}`;
  }

  async function accessTokenFor(siteId: number, grant: GrantKind = 'seller'): Promise<string> {
    const deadline = performance.now() + deps.timeoutMs + PICK_UP_MS;
    let asked: number | null = null;
    for (;;) {
      const row = await refreshRepo.findGrant(db, siteId, grant);
      if (!row || row.siteStatus !== 'connected' || row.nextRefreshAt === null) {
        throw new PlatformError('rejected', 'The site is not connected to the platform; reconnect it.');
      }
      const fresh = row.accessExpiresAt === null || row.accessExpiresAt.getTime() - clock.nowMs() > FRESH_MARGIN_MS;
      // A renewal that came back (the version moved on) gives the newest token there is, however long it lives.
      if (fresh || (asked !== null && row.version !== asked)) return openTokens(cipher, row).accessToken;
      if (asked === null) {
        asked = row.version;
        await schedule(db, row, null, true);
      }
      if (performance.now() > deadline)
        throw new PlatformError('unavailable', 'The platform did not renew access in time; try again.', COME_BACK_MS);
      await new Promise((resolve) => setTimeout(resolve, WAIT_STEP_MS));
    }
  }

  const refreshQueue: QueueDefinition<RefreshJob> = {
    name: REFRESH_QUEUE,
    // One active job per key: never two renewals of one grant at once. The platform's failures are the back-off's
    // above; pg-boss's retries are only for a run that never finished (its instance died: the version fence makes
    // running it again safe), as on every platform queue.
    options: { ...platformQueueOptions(deps.timeoutMs, { policy: 'singleton', deadlines: 1 }), deleteAfterSeconds: 24 * 3600 },
    work: { localConcurrency: 4, pollingIntervalSeconds: deps.pollIntervalSeconds },
    handler: refresh,
    worker: 'refresh',
  };
  const overdueQueue: QueueDefinition<object> = {
    name: OVERDUE_QUEUE,
    options: { policy: 'singleton', expireInSeconds: 60, retryLimit: 0, deleteAfterSeconds: 3600 },
    work: { pollingIntervalSeconds: 10 },
    handler: queueOverdue,
    worker: 'refresh',
    schedule: '* * * * *',
  };
  async function refused(siteId: number, grant: GrantKind, reason: string, saidAt?: Date): Promise<'refused' | 'granted_since'> {
    const row = await refreshRepo.findGrant(db, siteId, grant);
    // Compared to the second the platform's time has; giveUp is fenced by the row's version, so a grant made meanwhile is kept too.
    if (row && saidAt && saidAt.getTime() < Math.floor(row.grantedAt.getTime() / 1000) * 1000) return 'granted_since';
    if (row && row.siteStatus === 'connected') await giveUp(row, reason, clock.now());
    return 'refused';
  }

  return { queues: [refreshQueue as unknown as QueueDefinition<object>, overdueQueue], schedule, accessTokenFor, refused };
}
