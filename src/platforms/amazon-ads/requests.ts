/** Amazon Ads requests, built without I/O (platforms.md §4). The token grants are LWA's (../lwa). */

export const ADS_SCOPE = 'advertising::campaign_management';

/**
 * The LWA grant URL: `{auth_grant_url}?client_id=…&scope=advertising::campaign_management&response_type=code&redirect_uri=…&state=…`
 * (Amazon's Postman environment and https://developer.amazon.com/docs/login-with-amazon/authorization-code-grant.html).
 */
export function buildGrantUrl(input: { authorizeUrl: string; clientId: string; state: string; redirectUri: string }): string {
  const params = new URLSearchParams({
    client_id: input.clientId,
    scope: ADS_SCOPE,
    response_type: 'code',
    redirect_uri: input.redirectUri,
    state: input.state,
  });
  return `${input.authorizeUrl}?${params.toString()}`;
}

/** Headers of `GET /v2/profiles`: the LWA client id and the bearer; no profile scope header on this call (platforms.md §4.4). */
export function profilesHeaders(input: { clientId: string; accessToken: string }): Record<string, string> {
  return { 'Amazon-Advertising-API-ClientId': input.clientId, authorization: `Bearer ${input.accessToken}` };
}
