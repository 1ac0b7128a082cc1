/** Login with Amazon token requests, built without I/O; both Amazon tracks use them (platforms.md §3.3, §4.3). */

/**
 * Form body of the authorization_code grant. LWA clients are confidential, so the secret goes in the body. The SP-API
 * docs list `redirect_uri` but leave it out of their own example; it is sent to be safe (platforms.md §3.3).
 */
export function buildLwaCodeGrant(input: {
  clientId: string;
  clientSecret: string;
  redirectUri: string;
  code: string;
}): Record<string, string> {
  return {
    grant_type: 'authorization_code',
    code: input.code,
    redirect_uri: input.redirectUri,
    client_id: input.clientId,
    client_secret: input.clientSecret,
  };
}

/** Form body of the refresh_token grant. */
export function buildLwaRefreshGrant(input: { clientId: string; clientSecret: string; refreshToken: string }): Record<string, string> {
  return { grant_type: 'refresh_token', refresh_token: input.refreshToken, client_id: input.clientId, client_secret: input.clientSecret };
}
