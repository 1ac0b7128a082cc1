/** Etsy Open API v3 requests, built without I/O (platforms.md §1). */

/**
 * What Storelink's features need (platforms.md §1.2, listings.md §1): the shop read (`getMe` needs `shops_r`) and
 * written (shipping and return profiles need `shops_w`), listings read, written and deleted (`listings_d`).
 */
export const NEEDED_ETSY_SCOPES: readonly string[] = Object.freeze(['shops_r', 'shops_w', 'listings_r', 'listings_w', 'listings_d']);

/** The scopes asked for unless ETSY_SCOPES says otherwise (src/config.ts), and always of the simulator: the needed ones and orders read. */
export const DEFAULT_ETSY_SCOPES: readonly string[] = Object.freeze([...NEEDED_ETSY_SCOPES, 'transactions_r']);

/** The scopes a connection asks for: the configured ones, always with `shops_r`, without which no shop can be looked up. */
export function requestedEtsyScopes(configured: readonly string[]): readonly string[] {
  return Object.freeze(configured.includes('shops_r') ? [...configured] : ['shops_r', ...configured]);
}

/** The connect URL, with PKCE S256: https://developers.etsy.com/documentation/essentials/authentication */
export function buildConnectUrl(input: {
  connectUrl: string;
  clientId: string;
  redirectUri: string;
  scopes: readonly string[];
  state: string;
  codeChallenge: string;
}): string {
  const params = new URLSearchParams({
    response_type: 'code',
    client_id: input.clientId,
    redirect_uri: input.redirectUri,
    scope: input.scopes.join(' '),
    state: input.state,
    code_challenge: input.codeChallenge,
    code_challenge_method: 'S256',
  });
  return `${input.connectUrl}?${params.toString().replaceAll('+', '%20')}`;
}

/** Form body of the authorization_code grant; Etsy is a public PKCE client, so no secret is sent. */
export function buildCodeGrant(input: {
  clientId: string;
  redirectUri: string;
  code: string;
  codeVerifier: string;
}): Record<string, string> {
  return {
    grant_type: 'authorization_code',
    client_id: input.clientId,
    redirect_uri: input.redirectUri,
    code: input.code,
    code_verifier: input.codeVerifier,
  };
}

export function buildRefreshGrant(input: { clientId: string; refreshToken: string }): Record<string, string> {
  return { grant_type: 'refresh_token', client_id: input.clientId, refresh_token: input.refreshToken };
}

/**
 * The `x-api-key` of every v3 call, the token endpoint's included: `keystring:shared_secret`, enforced since 9 February
 * 2026 (https://developers.etsy.com/documentation/essentials/requests, etsy/open-api discussion 1529).
 */
export function apiKey(input: { clientId: string; sharedSecret: string }): string {
  return `${input.clientId}:${input.sharedSecret}`;
}

/** Headers of every v3 API call: the key and the user's bearer. */
export function apiHeaders(input: { clientId: string; sharedSecret: string; accessToken: string }): Record<string, string> {
  return { 'x-api-key': apiKey(input), authorization: `Bearer ${input.accessToken}` };
}
