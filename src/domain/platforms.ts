/**
 * Platforms and tracks (DESIGN §4). A platform is what the seed numbers (`platform_id`); a track is one OAuth
 * connection to it, with its own callback: Amazon (5) has two, the seller account and its advertising.
 */

export const PLATFORM_IDS = [1, 4, 5] as const;
export type PlatformId = (typeof PLATFORM_IDS)[number];

export const TRACKS = ['etsy', 'tiktok-shop', 'amazon-seller', 'amazon-ads'] as const;
export type Track = (typeof TRACKS)[number];

/** The seller tracks: what a site is on. Amazon Ads attaches to an `amazon-seller` site (DESIGN §5). */
export const SITE_PLATFORMS = ['etsy', 'tiktok-shop', 'amazon-seller'] as const;
export type SitePlatform = (typeof SITE_PLATFORMS)[number];

/** The platform id of each seller track. */
export const PLATFORM_ID_OF: Readonly<Record<SitePlatform, PlatformId>> = { etsy: 1, 'tiktok-shop': 4, 'amazon-seller': 5 };

/** Each seller platform as its sellers name it, in messages. */
export const PLATFORM_NAMES: Readonly<Record<SitePlatform, string>> = {
  etsy: 'Etsy',
  'tiktok-shop': 'TikTok Shop',
  'amazon-seller': 'Amazon',
};

/** The track a POST /authenticate-site asks for: platform 5 with a `site_id` is Amazon's advertising track (DESIGN §4). */
export function trackOf(platformId: PlatformId, withSiteId: boolean): Track {
  if (platformId === 1) return 'etsy';
  if (platformId === 4) return 'tiktok-shop';
  return withSiteId ? 'amazon-ads' : 'amazon-seller';
}

/**
 * What a site's credentials grant: the seller account, or (Amazon only) advertising. Each site has at most one grant
 * of each kind; the refresh of one grant never waits for the other.
 */
export const GRANT_KINDS = ['seller', 'advertising'] as const;
export type GrantKind = (typeof GRANT_KINDS)[number];

/** The track whose adapter renews a grant of this kind on a site of this platform. */
export function trackOfGrant(platform: SitePlatform, grant: GrantKind): Track {
  return grant === 'advertising' ? 'amazon-ads' : platform;
}

/** The path of a track's OAuth callback under the API (DESIGN §4: one per track). */
export function callbackPath(track: Track): string {
  return `/oauth/callback/${track}`;
}

/**
 * Amazon's regions (platforms.md §3.1, §4.1): an authorization is regional, and each region has its own Seller Central
 * consent host, SP-API host and Ads grant, token and API hosts. A connection picks one at POST /authenticate-site.
 */
export const AMAZON_REGIONS = ['NA', 'EU', 'FE'] as const;
export type AmazonRegion = (typeof AMAZON_REGIONS)[number];
export const DEFAULT_AMAZON_REGION: AmazonRegion = 'NA';

/** A value for each Amazon region. */
export function perAmazonRegion<T>(build: (region: AmazonRegion) => T): Record<AmazonRegion, T> {
  return Object.fromEntries(AMAZON_REGIONS.map((region) => [region, build(region)])) as Record<AmazonRegion, T>;
}
