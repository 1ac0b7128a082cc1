/** Amazon seller (platform 5): SP-API website authorization, LWA tokens that do not rotate, the seller id from the redirect. */
import type { Clock } from '../../lib/clock.js';
import type { PlatformHttp } from '../http.js';
import { createLwaClient } from '../lwa/client.js';
import { PlatformError, type SellerConnectAdapter } from '../platform.js';
import { buildConsentUrl } from './requests.js';
import { readCallback } from './responses.js';

export interface AmazonSellerConfig {
  /** The SP-API app id (`amzn1.sellerapps.app.…`), not the LWA client id. */
  appId: string;
  lwaClientId: string;
  lwaClientSecret: string;
  /** `${sellerCentralUrl}/apps/authorize/consent`, or the sandbox's authorize page. */
  consentUrl: string;
  /** `https://api.amazon.com/auth/o2/token`, or the sandbox's. */
  lwaTokenUrl: string;
  /** The app is in Draft: the consent URL carries `version=beta`. */
  draft: boolean;
}

export function createAmazonSellerConnectAdapter(config: AmazonSellerConfig, deps: { http: PlatformHttp; clock: Clock }) {
  const lwa = createLwaClient({ tokenUrl: config.lwaTokenUrl, clientId: config.lwaClientId, clientSecret: config.lwaClientSecret }, deps);

  return {
    kind: 'seller',
    track: 'amazon-seller',
    platform: 'amazon-seller',
    platformId: 5,
    usesPkce: false,
    buildAuthorizationUrl: ({ state, redirectUri }) =>
      buildConsentUrl({ consentUrl: config.consentUrl, appId: config.appId, state, redirectUri, draft: config.draft }),
    readCallback,
    exchangeCode: ({ code, redirectUri }) => lwa.exchangeCode(code, redirectUri),
    refreshToken: (refreshToken) => lwa.refreshToken(refreshToken),
    /**
     * The seller is named by the redirect's `selling_partner_id`, so no call is made. The store name would need an
     * SP-API call (Sellers API, getMarketplaceParticipations) and the app roles behind it, beyond what connecting needs.
     */
    async fetchAccount(_tokens, params) {
      const sellerId = params.selling_partner_id;
      if (!sellerId) throw new PlatformError('unavailable', 'Amazon sent no selling partner id');
      return { externalId: sellerId, name: `Amazon seller ${sellerId}` };
    },
  } satisfies SellerConnectAdapter;
}
