/** TikTok Shop (platform 4): service_id authorization link, GET token calls with absolute expiries, signed shop lookup. */
import type { Clock } from '../../lib/clock.js';
import type { SellerConnectAdapter } from '../contracts/connect.js';
import { type PlatformHttp, readAnswer } from '../http.js';
import { type AuthorizationLinkPolicy, acceptsAuthorizationLink, NO_AUTHORIZATION_LINKS } from './authorization-links.js';
import { buildAuthorizeUrl, buildShopsRequest, buildTokenGetUrl, buildTokenRefreshUrl } from './requests.js';
import { parseShopsResponse, parseTokenResponse, readCallback } from './responses.js';

export interface TikTokShopConfig {
  appKey: string;
  appSecret: string;
  serviceId: string;
  /** `https://services.tiktokshop.com/open/authorize`, or the sandbox's authorize page. */
  authorizeUrl: string;
  /** `https://auth.tiktok-shops.com`, or the sandbox's base. */
  authUrl: string;
  /** `https://open-api.tiktokglobalshop.com`, or the sandbox's base. */
  apiUrl: string;
}

/** `links`: which `authorization_url`s a caller may hand in (the registry builds it from the configuration); none by default. */
export function createTikTokShopConnectAdapter(
  config: TikTokShopConfig,
  deps: { http: PlatformHttp; clock: Clock },
  links: AuthorizationLinkPolicy = NO_AUTHORIZATION_LINKS,
) {
  const requestToken = async (url: string) => readAnswer(await deps.http.request(url, { method: 'GET' }), parseTokenResponse);
  const credentials = { authUrl: config.authUrl, appKey: config.appKey, appSecret: config.appSecret };

  return {
    kind: 'seller',
    track: 'tiktok-shop',
    platform: 'tiktok-shop',
    platformId: 4,
    usesPkce: false,
    regional: false,
    // Scopes are the app's, chosen in Partner Center; the authorization link carries none.
    scopes: null,
    // No redirect_uri: TikTok sends the user back to the Redirect URL configured for the app in Partner Center.
    buildAuthorizationUrl: ({ state, authorizationUrl }) =>
      buildAuthorizeUrl({ authorizeUrl: config.authorizeUrl, serviceId: config.serviceId, authorizationUrl, state }),
    acceptsAuthorizationUrl: (url) => acceptsAuthorizationLink(links, url),
    readCallback,
    exchangeCode: ({ code }) => requestToken(buildTokenGetUrl({ ...credentials, authCode: code })),
    refreshToken: (refreshToken) => requestToken(buildTokenRefreshUrl({ ...credentials, refreshToken })),
    async fetchAccounts(tokens) {
      const { url, headers } = buildShopsRequest({
        apiUrl: config.apiUrl,
        appKey: config.appKey,
        appSecret: config.appSecret,
        accessToken: tokens.accessToken,
        now: deps.clock.now(),
      });
      return readAnswer(await deps.http.request(url, { method: 'GET', headers }), parseShopsResponse);
    },
  } satisfies SellerConnectAdapter;
}
