/**
 * What every background call of a listings capability is made with (the listing work, imports, reads): the site's
 * account and settings, a valid access token, the jobs' stop deadline, and the platform's pacer; and a listing's
 * progress as its record stores it.
 */
import type { SiteRow } from '../../db/sites.repo.js';
import { expiryAfterDeadlines } from '../../lib/jobs.js';
import type { ListingProgress, ListingsCall } from '../../platforms/platform.js';
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
  deps: { refresh: Pick<TokenRefresh, 'accessTokenFor'>; pacer: Pacer; signal: AbortSignal },
  extra: Pick<ListingsCall, 'isClaimed'> = {},
): Promise<ListingsCall> {
  return {
    externalId: site.externalId,
    data: site.platformData,
    settings: settingsOf(site.platform, site.listingSettings),
    accessToken: await deps.refresh.accessTokenFor(site.id),
    signal: deps.signal,
    beforeCall: () => deps.pacer.beforeCall(),
    onLimits: (limits) => deps.pacer.heard(limits),
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
