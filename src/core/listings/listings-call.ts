/**
 * What every call of a listings capability is made with (the listing work, reads, imports, the site's category
 * reads): the site's account and settings, a valid access token, the caller's deadline, and the platform's pacer; and
 * a listing's progress as its record stores it.
 */
import type { SiteRow } from '../../db/sites.repo.js';
import type { ListingProgress, ListingsCall } from '../../platforms/contracts/listings.js';
import type { Pacer } from '../platform-work/pacing.js';
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

export function listingsCall(
  site: SiteRow,
  accessToken: string,
  deps: { pacerOf: (key: string) => Pacer; signal?: AbortSignal },
  extra: Pick<ListingsCall, 'isClaimed'> = {},
): ListingsCall {
  // The platform's budget for every call of the app, or the account's own budget of one API.
  const pacer = (budget?: string) => deps.pacerOf(budget ? `${site.platform}:${site.externalId}:${budget}` : site.platform);
  return {
    externalId: site.externalId,
    data: site.platformData,
    settings: settingsOf(site.platform, site.listingSettings),
    accessToken,
    ...(deps.signal ? { signal: deps.signal } : {}),
    beforeCall: (budget) => pacer(budget).beforeCall(),
    onLimits: (limits, budget) => pacer(budget).heard(limits),
    ...extra,
  };
}
