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

/**
 * How a track's callback sends the user back to the caller's redirect (seed §4 "Callback redirects to the caller"):
 * the URL unchanged on success and `authorization_error` on failure, unless the track says otherwise.
 */
export interface CallbackTerms {
  /** `platform=marketplace` with the site id on success, and with the failure's code and message instead of `authorization_error`. */
  readonly marketplace: boolean;
  /** The `segment` a success adds after the site id; null for none. */
  readonly segment: string | null;
  /** A failure is not redirected with an error but surfaces as a retry page. */
  readonly retry: boolean;
}

/** What the seed says of each track beyond its platform id (seed §1, §4), where connecting differs from track to track. */
export interface TrackTerms {
  /** The track's name in messages. */
  readonly name: string;
  /**
   * The field of POST /authenticate-site carrying the caller's redirect (seed §1). `custom_field_value` carries
   * tracking pairs after its URL too (`URL;key=value`), which the site keeps.
   */
  readonly redirectField: 'redirect_url' | 'custom_field_value';
  /** The seller platform whose connected site (`site_id`) the track adds its grant to; null for a seller track, which makes sites. */
  readonly attachesTo: SitePlatform | null;
  readonly callback: CallbackTerms;
}

const PLAIN_CALLBACK: CallbackTerms = { marketplace: false, segment: null, retry: false };

/** Each track's terms: the seed's table of platforms and its table of callback redirects. */
export const TRACK_TERMS: Readonly<Record<Track, TrackTerms>> = {
  etsy: { name: 'Etsy', redirectField: 'redirect_url', attachesTo: null, callback: PLAIN_CALLBACK },
  'tiktok-shop': { name: 'TikTok Shop', redirectField: 'custom_field_value', attachesTo: null, callback: PLAIN_CALLBACK },
  'amazon-seller': {
    name: 'Amazon',
    redirectField: 'redirect_url',
    attachesTo: null,
    callback: { marketplace: true, segment: null, retry: false },
  },
  'amazon-ads': {
    name: 'Amazon Ads',
    redirectField: 'redirect_url',
    attachesTo: 'amazon-seller',
    callback: { marketplace: true, segment: 'advertising', retry: true },
  },
};

/** The seller platforms an advertising track attaches to: those whose listings can be advertised (DESIGN §13). */
export const ADVERTISED_PLATFORMS: readonly SitePlatform[] = TRACKS.flatMap((track) => TRACK_TERMS[track].attachesTo ?? []);

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
