/** The RFC 6749 answers of a token endpoint, as Etsy and Login with Amazon both send them (platforms.md §0). */
import Type from 'typebox';
import { isPassingFailure } from '../lib/outbound-http.js';
import { PlatformError } from './contracts/errors.js';

/**
 * A successful token answer (RFC 6749 §5.1): only the fields read are described, so `token_type`, `scope` and whatever
 * else comes along pass. `expires_in` is only RECOMMENDED and `refresh_token` OPTIONAL in the RFC.
 */
export const OAuthTokenAnswer = Type.Object({
  access_token: Type.String({ minLength: 1 }),
  expires_in: Type.Optional(Type.Number()),
  refresh_token: Type.Optional(Type.String()),
});

/**
 * An error answer (RFC 6749 §5.2). `error` is required by the RFC but optional here: a 4xx is a refusal whatever its
 * body says, and the fields only choose the message shown.
 */
export const OAuthErrorAnswer = Type.Object({
  error: Type.Optional(Type.String()),
  error_description: Type.Optional(Type.String()),
});

/**
 * Whose problem a refused token request is (RFC 6749 §5.2, and Login with Amazon's list in the SP-API SDK's
 * LWAExceptionErrorCode): only `invalid_grant` (and `access_denied`) say the seller's code or grant is gone;
 * `server_error`, `temporarily_unavailable`, 5xx and 429 are passing; everything else (`invalid_client`,
 * `unauthorized_client`, `invalid_request`, `invalid_scope`, `unsupported_grant_type`, a 401 or 403 without a code) is
 * the app's own configuration or request, which no seller can fix.
 */
export function tokenRequestFailure(platform: string, status: number, answer: { error?: string; error_description?: string } | null) {
  const error = answer?.error;
  if (isPassingFailure(status) || error === 'server_error' || error === 'temporarily_unavailable')
    return new PlatformError('unavailable', `${platform} could not complete the request`);
  if (error === 'invalid_grant' || error === 'access_denied') return new PlatformError('rejected', 'Invalid credentials');
  const said = [error, answer?.error_description].filter(Boolean).join(': ');
  return new PlatformError('misconfigured', `${platform} refused Storelink's app (HTTP ${status}${said ? `, ${said}` : ''})`);
}
