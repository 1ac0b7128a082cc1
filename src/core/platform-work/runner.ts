/**
 * The runner of every platform job (DESIGN §11): listing work, reads and imports, advertising, and what comes next.
 * A job declares what is its own (its subject, the platform call, what each outcome writes); the runner owns the
 * skeleton they share: subject → site guard → token → platform call → the failure's class → one retry policy
 * (retry.ts) → outcome.
 *
 * Failures are classed once, here:
 * - `ListingRefused`: the platform refused the subject itself (its issues, in the platform's words);
 * - `AllowanceSpent`: the platform's allowance for the work is spent (a daily quota): the job waits until it opens,
 *   its attempts untouched, after telling its subject why;
 * - `PlatformError` `rejected`: the platform refused the grant: the site (or its advertising) asks for reconnection,
 *   and the job is held until the site is connected again;
 * - anything else is passing: sent again after the back-off, and given up once the attempts are spent.
 */
import type { Db } from '../../db/client.js';
import type { SiteRow } from '../../db/sites.repo.js';
import * as sitesRepo from '../../db/sites.repo.js';
import { type GrantKind, TRACK_TERMS, trackOfGrant } from '../../domain/index.js';
import type { Clock } from '../../lib/clock.js';
import { AllowanceSpent, ListingRefused, PlatformError } from '../../platforms/contracts/errors.js';
import type { PlatformHealth } from '../sites/platform-health.js';
import type { TokenRefresh } from '../sites/token-refresh.js';
import { ATTEMPTS_MAX, retryAt } from './retry.js';

/** What every platform job's data carries: the passing failures met so far (the runner counts them). */
export interface PlatformJobData {
  attempt?: number;
}

/** The subject a job acts on, and the site whose account it acts in. */
export interface Loaded<S> {
  subject: S;
  workspaceId: number;
  siteId: number;
}

/** What one platform job declares; the runner does the rest. */
export interface PlatformJob<J extends PlatformJobData, S> {
  /** Whose token the call needs: the site's seller grant, or its advertising grant. */
  readonly grant: GrantKind;
  /** The job's subject and its site; a sentence when there is nothing to do (the subject is gone or done). */
  load(job: J): Promise<Loaded<S> | string>;
  /** Whether the connected site can take the call (advertising: it has profiles). Default: yes. */
  ready?(site: SiteRow): boolean;
  /**
   * The site cannot take the call (not connected, or not ready). Default: the job is held, and connecting the site
   * again sends the work it held.
   */
  held?(subject: S): Promise<string>;
  /** The platform call, with a valid access token of the grant. Its result is the job's output. */
  call(subject: S, site: SiteRow, accessToken: string, job: J): Promise<string>;
  /** Run after any failure of `call`, before it is classed: what was done before it is kept (a listing's progress). */
  interrupted?(subject: S): Promise<void>;
  /** The platform refused the subject itself. Without it, a refusal counts as a passing failure. */
  refused?(subject: S, error: ListingRefused): Promise<string>;
  /** The platform's allowance is spent until `error.until`: what the subject shows meanwhile (the job is sent again then). */
  deferred?(subject: S, error: AllowanceSpent): Promise<void>;
  /** The platform refused the grant; the site asks for reconnection already. Default: the job is held. */
  grantRefused?(subject: S, site: SiteRow): Promise<string>;
  /** Sends the job again at `at` with its count of failures; null for a job that waits for its next turn instead. */
  readonly retry: ((subject: S, at: Date, attempt: number) => Promise<unknown>) | null;
  /** A passing failure that is not tried again: the attempts are spent, or the job does not retry. */
  givenUp(subject: S, message: string, site: SiteRow): Promise<string>;
}

export interface PlatformJobRunner {
  /** The job's handler, for its queue. */
  handlerOf<J extends PlatformJobData, S>(job: PlatformJob<J, S>): (data: J) => Promise<string>;
}

const HELD: Record<GrantKind, string> = {
  seller: 'held: the site is not connected',
  advertising: 'held: advertising is not connected',
};

/** What the seller reads on the site when the platform refused a grant on a job's call. */
export function refusedReason(site: Pick<SiteRow, 'platform'>, grant: GrantKind, error: PlatformError): string {
  const name = TRACK_TERMS[trackOfGrant(site.platform, grant)].name;
  return `${name} refused access (${error.message}); reconnect ${grant === 'advertising' ? 'advertising' : 'the site'}.`;
}

export function createPlatformJobRunner(deps: {
  db: Db;
  clock: Clock;
  refresh: Pick<TokenRefresh, 'accessTokenFor' | 'refused'>;
  /** Told when a platform refuses Storelink's own app or request: the operator's, logged loudly and shown on GET /health. */
  health?: Pick<PlatformHealth, 'misconfigured'>;
}): PlatformJobRunner {
  const { db, clock } = deps;

  async function failed<J extends PlatformJobData, S>(
    job: PlatformJob<J, S>,
    subject: S,
    site: SiteRow,
    error: unknown,
    attempt: number,
  ): Promise<string> {
    if (error instanceof ListingRefused && job.refused) return job.refused(subject, error);
    if (error instanceof AllowanceSpent && job.retry) {
      await job.deferred?.(subject, error);
      // Not a failure: the attempt count stays, so a wait of days never gives the work up.
      await job.retry(subject, error.until, attempt);
      return `waiting until ${error.until.toISOString()}: ${error.message}`;
    }
    if (error instanceof PlatformError && error.reason === 'rejected') {
      await deps.refresh.refused(site.id, job.grant, refusedReason(site, job.grant, error));
      return job.grantRefused
        ? job.grantRefused(subject, site)
        : `held: the ${job.grant === 'advertising' ? 'advertising ' : ''}grant was refused`;
    }
    const message = error instanceof Error ? error.message : String(error);
    if (error instanceof PlatformError && error.reason === 'misconfigured')
      deps.health?.misconfigured(trackOfGrant(site.platform, job.grant), message);
    const at = job.retry && retryAt(clock.now(), error, attempt);
    if (!job.retry || !at) return job.givenUp(subject, message, site);
    await job.retry(subject, at, attempt + 1);
    return `retry at ${at.toISOString()}: ${message}`;
  }

  return {
    handlerOf(job) {
      return async (data) => {
        const loaded = await job.load(data);
        if (typeof loaded === 'string') return loaded;
        const { subject } = loaded;
        const site = await sitesRepo.findSite(db, loaded.workspaceId, loaded.siteId);
        if (!site || site.status !== 'connected' || !(job.ready?.(site) ?? true)) return job.held ? job.held(subject) : HELD[job.grant];
        try {
          return await job.call(subject, site, await deps.refresh.accessTokenFor(site.id, job.grant), data);
        } catch (error) {
          await job.interrupted?.(subject);
          return failed(job, subject, site, error, data.attempt ?? 0);
        }
      };
    },
  };
}

/** A give-up's words: the attempts spent, and the last failure. */
export const afterAttempts = (what: string, message: string) => `${what} after ${ATTEMPTS_MAX} attempts: ${message}`;
