/** Etsy (platform 1): authorization code with PKCE, rotating refresh tokens, shop identity from users/me. */
import type { Clock } from '../../lib/clock.js';
import type { SellerConnectAdapter } from '../contracts/connect.js';
import { type PlatformHttp, readAnswer } from '../http.js';
import {
  apiHeaders,
  apiKey,
  buildCodeGrant,
  buildConnectUrl,
  buildRefreshGrant,
  NEEDED_ETSY_SCOPES,
  requestedEtsyScopes,
} from './requests.js';
import { parseMe, parseShop, parseTokenResponse, readCallback } from './responses.js';

export interface EtsyConfig {
  clientId: string;
  sharedSecret: string;
  scopes: readonly string[];
  /** `https://www.etsy.com/oauth/connect`, or the sandbox's authorize page. */
  connectUrl: string;
  /** `https://api.etsy.com`, or the sandbox's base. */
  apiUrl: string;
  /** The signing secret of the app's webhooks (`whsec_…`); null: webhooks are refused, orders are polled. */
  webhookSecret: string | null;
}

export function createEtsyConnectAdapter(config: EtsyConfig, deps: { http: PlatformHttp; clock: Clock }) {
  const tokenUrl = `${config.apiUrl}/v3/public/oauth/token`;
  const scopes = { requested: requestedEtsyScopes(config.scopes), needed: NEEDED_ETSY_SCOPES };
  // Every v3 call carries the key and shared secret, the token endpoint's included (platforms.md §1.4).
  const keyHeader = { 'x-api-key': apiKey(config) };
  const requestToken = async (form: Record<string, string>) => {
    const answer = await deps.http.request(tokenUrl, { method: 'POST', form, headers: keyHeader });
    return readAnswer(answer, (status, body) => parseTokenResponse(status, body, deps.clock.now()));
  };

  return {
    kind: 'seller',
    track: 'etsy',
    platform: 'etsy',
    platformId: 1,
    usesPkce: true,
    regional: false,
    scopes,
    buildAuthorizationUrl: ({ state, redirectUri, codeChallenge }) =>
      buildConnectUrl({
        connectUrl: config.connectUrl,
        clientId: config.clientId,
        redirectUri,
        scopes: scopes.requested,
        state,
        codeChallenge: codeChallenge ?? '',
      }),
    readCallback,
    exchangeCode: ({ code, redirectUri, codeVerifier }) =>
      requestToken(buildCodeGrant({ clientId: config.clientId, redirectUri, code, codeVerifier: codeVerifier ?? '' })),
    refreshToken: (refreshToken) => requestToken(buildRefreshGrant({ clientId: config.clientId, refreshToken })),
    async fetchAccounts(tokens) {
      const headers = apiHeaders({ clientId: config.clientId, sharedSecret: config.sharedSecret, accessToken: tokens.accessToken });
      const me = await deps.http.request(`${config.apiUrl}/v3/application/users/me`, { method: 'GET', headers });
      const { userId, shopId } = readAnswer(me, parseMe);
      const shop = await deps.http.request(`${config.apiUrl}/v3/application/shops/${encodeURIComponent(shopId)}`, {
        method: 'GET',
        headers,
      });
      const { name, currency, country } = readAnswer(shop, parseShop);
      // Where the shop is: an EU shop's listings need no return policy (listings.md §1.4), and a new shop's shipping
      // profile ships from there by default.
      return [{ externalId: shopId, name, currency, data: { user_id: userId, ...(country ? { country } : {}) } }];
    },
  } satisfies SellerConnectAdapter;
}
