/**
 * What every background call of a listings capability is made with (the listing work, imports, reads): the site's
 * account and settings, a valid access token, the jobs' stop deadline, and the platform's pacer; a listing's progress
 * as its record stores it; and what each of them does when the platform refuses the grant or fails in passing.
 */
import type { SiteRow } from '../../db/sites.repo.js';
import { PLATFORM_NAMES } from '../../domain/index.js';
import { expiryAfterDeadlines } from '../../lib/jobs.js';
import { PlatformError } from '../../platforms/contracts/errors.js';
import type { ListingProgress, ListingsCall } from '../../platforms/contracts/listings.js';
import type { TokenRefresh } from '../sites/token-refresh.js';
import type { Pacer } from './pacing.js';
import { settingsOf } from './settings.js';

/** A listing's progress, with what a record made before a field existed lacks filled in. */
export function progressOf(stored: unknown): ListingProgress {
  return {
    externalId: null,
    externalUrl: null,
    createStartedAt: null,
    images: {},
    delivered: {},
    variantIds: {},
    ...(stored as Partial<ListingProgress>),
  };
}

export async function platformCall(
  site: SiteRow,
  deps: { refresh: Pick<TokenRefresh, 'accessTokenFor'>; pacerOf: (key: string) => Pacer; signal: AbortSignal },
  extra: Pick<ListingsCall, 'isClaimed'> = {},
): Promise<ListingsCall> {
  // The platform's budget for every call of the app, or the account's own budget of one API.
  const pacer = (budget?: string) => deps.pacerOf(budget ? `${site.platform}:${site.externalId}:${budget}` : site.platform);
  return {
    externalId: site.externalId,
    data: site.platformData,
    settings: settingsOf(site.platform, site.listingSettings),
    accessToken: await deps.refresh.accessTokenFor(site.id),
    signal: deps.signal,
    beforeCall: (budget) => pacer(budget).beforeCall(),
    onLimits: (limits, budget) => pacer(budget).heard(limits),
    ...extra,
  };
}

/**
 * The pg-boss options of a queue whose jobs call a platform for one subject (a listing, an import): one running and one
 * waiting job per subject (`stately` on its singleton key), and a job whose instance died run again after three
 * deadlines of the longest call it makes (an image upload), which resumes from what it saved.
 */
export function platformQueueOptions(timeoutMs: number) {
  return {
    policy: 'stately',
    expireInSeconds: expiryAfterDeadlines(timeoutMs) * 3,
    retryLimit: 3,
    retryDelay: 5,
    deleteAfterSeconds: 7 * 24 * 3600,
  } as const;
}

/** Passing failures (time-outs, 429, 5xx) one piece of work meets before it is given up. */
export const ATTEMPTS_MAX = 8;

/**
 * When work that failed in passing for the `attempt`th time (from 0) is tried again: after 2, 4, 8 … seconds, at most
 * ten minutes, and never before the platform's `Retry-After`; null once `ATTEMPTS_MAX` failures are spent.
 */
export function retryAt(now: Date, error: unknown, attempt: number): Date | null {
  if (attempt + 1 >= ATTEMPTS_MAX) return null;
  const backOff = Math.min(600_000, 1_000 * 2 ** (attempt + 1));
  const retryAfter = error instanceof PlatformError ? (error.retryAfterMs ?? 0) : 0;
  return new Date(now.getTime() + Math.max(backOff, retryAfter));
}

/**
 * When `error` is the platform refusing the site's grant: the site is turned `reauthorization_required` (its work held
 * until it is connected again) and true is answered; else false, and nothing is done.
 */
export async function refusedGrant(
  refresh: Pick<TokenRefresh, 'refused'>,
  site: Pick<SiteRow, 'id' | 'platform'>,
  error: unknown,
): Promise<boolean> {
  if (!(error instanceof PlatformError && error.reason === 'rejected')) return false;
  await refresh.refused(site.id, 'seller', `${PLATFORM_NAMES[site.platform]} refused access (${error.message}); reconnect the site.`);
  return true;
}
