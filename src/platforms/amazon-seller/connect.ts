/**
 * Amazon seller (platform 5): SP-API website authorization in the seller's region, LWA tokens that do not rotate, and
 * the grant checked against the Sellers API, which names the store and its marketplaces.
 */
import { type AmazonRegion, DEFAULT_AMAZON_REGION } from '../../domain/index.js';
import type { Clock } from '../../lib/clock.js';
import type { GrantScope, SellerConnectAdapter } from '../contracts/connect.js';
import { PlatformError } from '../contracts/errors.js';
import { type PlatformHttp, readAnswer } from '../http.js';
import { createLwaClient } from '../lwa/client.js';
import { storeMismatch } from './account-identity.js';
import { buildConsentUrl, marketplaceParticipationsRequest } from './requests.js';
import { parseMarketplaceParticipations, readCallback } from './responses.js';

/** One region's hosts (platforms.md §3.1): its Seller Central, where sellers consent, and its SP-API endpoint. */
export interface AmazonSellerRegion {
  /** `https://sellercentral.amazon.com` for NA, or the sandbox's regional base; consent is at `/apps/authorize/consent`. */
  sellerCentralUrl: string;
  /** `https://sellingpartnerapi-na.amazon.com` for NA, or the sandbox's regional base. */
  apiUrl: string;
}

export interface AmazonSellerConfig {
  /** The SP-API app id (`amzn1.sellerapps.app.…`), not the LWA client id. */
  appId: string;
  lwaClientId: string;
  lwaClientSecret: string;
  /** `https://api.amazon.com/auth/o2/token` (one host for every region, platforms.md §3.3), or the sandbox's. */
  lwaTokenUrl: string;
  /** The app is in Draft: the consent URL carries `version=beta`. */
  draft: boolean;
  regions: Readonly<Record<AmazonRegion, AmazonSellerRegion>>;
  /** The queue Amazon's order notifications are sent to (order-notifications.ts); null or absent: orders are polled only. */
  orderQueue?: AmazonOrderQueue | null;
}

/** The operator's SQS queue that Amazon's order notifications are sent to, and the key Storelink reads it with. */
export interface AmazonOrderQueue {
  /** `arn:aws:sqs:{region}:{account}:{name}`: what the destination names. */
  readonly arn: string;
  /** The queue's URL (`https://sqs.{region}.amazonaws.com/{account}/{name}`), or the sandbox's. */
  readonly url: string;
  /** The AWS region the queue is in (the ARN's), which the signature names. */
  readonly region: string;
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
}

export function createAmazonSellerConnectAdapter(config: AmazonSellerConfig, deps: { http: PlatformHttp; clock: Clock }) {
  const lwa = createLwaClient({ tokenUrl: config.lwaTokenUrl, clientId: config.lwaClientId, clientSecret: config.lwaClientSecret }, deps);
  const regionOf = (grant: GrantScope) => config.regions[grant.region ?? DEFAULT_AMAZON_REGION];

  return {
    kind: 'seller',
    track: 'amazon-seller',
    platform: 'amazon-seller',
    platformId: 5,
    usesPkce: false,
    regional: true,
    // The app's roles, set in the developer profile, decide what it may do; the consent URL carries no scope.
    scopes: null,
    buildAuthorizationUrl: ({ state, redirectUri, grant }) =>
      buildConsentUrl({
        consentUrl: `${regionOf(grant).sellerCentralUrl}/apps/authorize/consent`,
        appId: config.appId,
        state,
        redirectUri,
        draft: config.draft,
      }),
    readCallback,
    exchangeCode: ({ code, redirectUri }) => lwa.exchangeCode(code, redirectUri),
    refreshToken: (refreshToken) => lwa.refreshToken(refreshToken),
    /**
     * The selling partner id comes from the redirect, which the user's browser carries and could change: no SP-API call
     * answers with the id a token belongs to. So the grant is checked where the API can check it: the Sellers API,
     * on the region's host, answers with the grant's marketplaces and store name (a token of another region, or one
     * without access, is refused there), and accountMismatch refuses a callback whose store differs from the site it
     * would update (docs/decisions.md, "Amazon seller identity").
     */
    async fetchAccounts(tokens, params, grant) {
      const sellerId = params.selling_partner_id;
      if (!sellerId) throw new PlatformError('unavailable', 'Amazon sent no selling partner id');
      const { url, headers } = marketplaceParticipationsRequest({ apiUrl: regionOf(grant).apiUrl, accessToken: tokens.accessToken });
      const store = readAnswer(await deps.http.request(url, { method: 'GET', headers }), parseMarketplaceParticipations);
      return [
        {
          externalId: sellerId,
          name: store.storeName || `Amazon seller ${sellerId}`,
          data: { store_name: store.storeName, marketplace_ids: store.marketplaceIds },
          // A seller sells in several marketplaces, each in its own currency: a listing's is its marketplace's.
          currency: null,
        },
      ];
    },
    accountMismatch: storeMismatch,
  } satisfies SellerConnectAdapter;
}
