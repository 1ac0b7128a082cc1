/** Amazon SP-API website authorization requests, built without I/O (platforms.md §3). The token grants are LWA's (../lwa). */

/**
 * The consent URL: `{SellerCentralURL}/apps/authorize/consent?application_id=…&state=…&redirect_uri=…`, plus
 * `version=beta` only while the app is in Draft (a draft app without it gets MD1000; a published one must not send it).
 * https://developer-docs.amazon.com/sp-api/docs/website-authorization-workflow
 */
export function buildConsentUrl(input: { consentUrl: string; appId: string; state: string; redirectUri: string; draft: boolean }): string {
  const params = new URLSearchParams({ application_id: input.appId, state: input.state, redirect_uri: input.redirectUri });
  if (input.draft) params.set('version', 'beta');
  return `${input.consentUrl}?${params.toString()}`;
}

/**
 * Sellers API `getMarketplaceParticipations`: `GET {region's SP-API host}/sellers/v1/marketplaceParticipations` with the
 * LWA access token in `x-amz-access-token` (selling-partner-api-models, sellers.json; platforms.md §3.3).
 */
export function marketplaceParticipationsRequest(input: { apiUrl: string; accessToken: string }): {
  url: string;
  headers: Record<string, string>;
} {
  return { url: `${input.apiUrl}/sellers/v1/marketplaceParticipations`, headers: { 'x-amz-access-token': input.accessToken } };
}
