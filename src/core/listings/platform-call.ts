/**
 * What every background call of a listings capability is made with (the listing work, imports, reads): the site's
 * account and settings, a valid access token, the jobs' stop deadline, and the platform's pacer; and a listing's
 * progress as its record stores it.
 */
import type { SiteRow } from '../../db/sites.repo.js';
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
