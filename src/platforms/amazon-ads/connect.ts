/** Amazon Ads (platform 5 with site_id): an LWA grant with the campaign-management scope, then the account's profiles. */
import type { Clock } from '../../lib/clock.js';
import type { PlatformHttp } from '../http.js';
import { createLwaClient } from '../lwa/client.js';
import type { AdvertisingConnectAdapter } from '../platform.js';
import { buildGrantUrl, profilesHeaders } from './requests.js';
import { parseProfiles, readCallback } from './responses.js';

export interface AmazonAdsConfig {
  /** The LWA security profile's client id and secret. */
  clientId: string;
  clientSecret: string;
  /** The region's grant URL (`https://www.amazon.com/ap/oa` for NA), or the sandbox's authorize page. */
  authorizeUrl: string;
  /** The region's LWA token URL, or the sandbox's. */
  tokenUrl: string;
  /** The region's Ads API host, or the sandbox's base. */
  apiUrl: string;
}

export function createAmazonAdsConnectAdapter(config: AmazonAdsConfig, deps: { http: PlatformHttp; clock: Clock }) {
  const lwa = createLwaClient({ tokenUrl: config.tokenUrl, clientId: config.clientId, clientSecret: config.clientSecret }, deps);

  return {
    kind: 'advertising',
    track: 'amazon-ads',
    platformId: 5,
    // LWA accepts PKCE but Ads apps are confidential clients and no source says they must use it (platforms.md §4.1).
    usesPkce: false,
    buildAuthorizationUrl: ({ state, redirectUri }) =>
      buildGrantUrl({ authorizeUrl: config.authorizeUrl, clientId: config.clientId, state, redirectUri }),
    readCallback,
    exchangeCode: ({ code, redirectUri }) => lwa.exchangeCode(code, redirectUri),
    refreshToken: (refreshToken) => lwa.refreshToken(refreshToken),
    /**
     * The profiles of the configured region's host only: `/v2/profiles` answers per region (platforms.md §4.4), and one
     * region is configured; covering all three would mean a token URL and API host per region.
     */
    async fetchProfiles(tokens) {
      const headers = profilesHeaders({ clientId: config.clientId, accessToken: tokens.accessToken });
      const { status, body } = await deps.http.request(`${config.apiUrl}/v2/profiles`, { method: 'GET', headers });
      return parseProfiles(status, body);
    },
  } satisfies AdvertisingConnectAdapter;
}
