/** Login with Amazon token answers, parsed without I/O (platforms.md §3.3, §4.3; RFC 6749 §5.1–5.2). */

import type { TokenSet } from '../contracts/connect.js';
import { PlatformError } from '../contracts/errors.js';
import { OAuthErrorAnswer, OAuthTokenAnswer, tokenRequestFailure } from '../oauth-answers.js';
import { parseBody } from '../parse.js';

/**
 * `{access_token, token_type, expires_in, refresh_token}` → tokens. The access token lives `expires_in` seconds (3600);
 * the refresh token is long-lived with no stated expiry, and a refresh grant answers with "the LWA refresh token that
 * you submitted", so it does not rotate: `submittedRefreshToken` is kept when the answer repeats or omits it.
 * `{error, error_description}` is read by tokenRequestFailure: `invalid_grant` (a bad, used or expired code or refresh
 * token) is the seller's; `invalid_client` (a wrong or expired client secret: LWA secrets must be rotated every 180
 * days, and refresh tokens stay valid across a rotation) and `unauthorized_client` the operator's; `server_error`,
 * `temporarily_unavailable`, 5xx and 429 passing.
 */
export function parseLwaTokenResponse(status: number, body: unknown, now: Date, submittedRefreshToken: string | null = null): TokenSet {
  const failure = parseBody(OAuthErrorAnswer, body);
  if (status >= 400 || failure?.error) throw tokenRequestFailure('Amazon', status, failure);
  const answer = parseBody(OAuthTokenAnswer, body);
  if (!answer) throw new PlatformError('unavailable', 'Amazon answered without an access token');
  return {
    accessToken: answer.access_token,
    refreshToken: answer.refresh_token ?? submittedRefreshToken,
    accessExpiresAt: answer.expires_in === undefined ? null : new Date(now.getTime() + answer.expires_in * 1000),
    refreshExpiresAt: null,
  };
}
