/** Amazon Ads (platform 5 with site_id): an LWA grant in the seller's region with the campaign-management scope, then its profiles. */
import { type AmazonRegion, DEFAULT_AMAZON_REGION } from '../../domain/index.js';
import type { Clock } from '../../lib/clock.js';
import type { AdvertisingConnectAdapter, GrantScope } from '../contracts/connect.js';
import { type PlatformHttp, readAnswer } from '../http.js';
import { createLwaClient } from '../lwa/client.js';
import { buildGrantUrl, profilesHeaders } from './requests.js';
import { parseProfiles, readCallback } from './responses.js';

/** One region's hosts (platforms.md §4.1): its LWA grant page, its LWA token URL and its Ads API host. */
export interface AmazonAdsRegion {
  /** `https://www.amazon.com/ap/oa` for NA, or the sandbox's regional authorize page. */
  authorizeUrl: string;
  /** `https://api.amazon.com/auth/o2/token` for NA, or the sandbox's. */
  tokenUrl: string;
  /** `https://advertising-api.amazon.com` for NA, or the sandbox's regional base. */
  apiUrl: string;
}

export interface AmazonAdsConfig {
  /** The LWA security profile's client id and secret. */
  clientId: string;
  clientSecret: string;
  regions: Readonly<Record<AmazonRegion, AmazonAdsRegion>>;
}

export function createAmazonAdsConnectAdapter(config: AmazonAdsConfig, deps: { http: PlatformHttp; clock: Clock }) {
  const regionOf = (grant: GrantScope) => grant.region ?? DEFAULT_AMAZON_REGION;
  // Codes and refresh tokens go to the token URL of the region they were granted in ("the LWA server for your region").
  const lwa = (grant: GrantScope) =>
    createLwaClient(
      { tokenUrl: config.regions[regionOf(grant)].tokenUrl, clientId: config.clientId, clientSecret: config.clientSecret },
      deps,
    );

  return {
    kind: 'advertising',
    track: 'amazon-ads',
    platformId: 5,
    // LWA accepts PKCE but Ads apps are confidential clients and no source says they must use it (platforms.md §4.1).
    usesPkce: false,
    regional: true,
    // The one scope Ads needs is part of every grant URL (requests.ts), not a setting.
    scopes: null,
    buildAuthorizationUrl: ({ state, redirectUri, grant }) =>
      buildGrantUrl({ authorizeUrl: config.regions[regionOf(grant)].authorizeUrl, clientId: config.clientId, state, redirectUri }),
    readCallback,
    exchangeCode: ({ code, redirectUri, grant }) => lwa(grant).exchangeCode(code, redirectUri),
    refreshToken: (refreshToken, grant) => lwa(grant).refreshToken(refreshToken),
    /** The profiles of the grant's region: `/v2/profiles` answers for its own region's host only (platforms.md §4.4). */
    async fetchProfiles(tokens, grant) {
      const region = regionOf(grant);
      const headers = profilesHeaders({ clientId: config.clientId, accessToken: tokens.accessToken });
      const answer = await deps.http.request(`${config.regions[region].apiUrl}/v2/profiles`, { method: 'GET', headers });
      return readAnswer(answer, (status, body) => parseProfiles(status, body, region));
    },
  } satisfies AdvertisingConnectAdapter;
}
