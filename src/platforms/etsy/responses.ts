/** Etsy answers, parsed without I/O (platforms.md §1.3–1.5). */
import Type from 'typebox';
import { isPassingFailure } from '../../lib/outbound-http.js';
import { OAuthErrorAnswer, OAuthTokenAnswer } from '../oauth-answers.js';
import { parseBody } from '../parse.js';
import { type CallbackResult, PlatformError, type TokenSet } from '../platform.js';

const REFRESH_TOKEN_LIFETIME_MS = 90 * 24 * 3600 * 1000;

/** The `{error}` of a refused v3 API call. */
const ApiError = Type.Object({ error: Type.String() });

/** `GET /v3/application/users/me`: both ids are integers in Etsy's OpenAPI document (platforms.md §1.5). */
const Me = Type.Object({ user_id: Type.Integer(), shop_id: Type.Integer() });

/** `GET /v3/application/shops/{shop_id}`: only the name is read. */
const Shop = Type.Object({ shop_name: Type.String() });

/** `?code=…&state=…`, or `?error=…&error_description=…` (a refusal is `access_denied`, per RFC 6749 §4.1.2.1). */
export function readCallback(query: Readonly<Record<string, string | undefined>>): CallbackResult {
  if (query.error)
    return query.error === 'access_denied'
      ? { kind: 'denied', message: 'Access denied' }
      : { kind: 'error', message: query.error_description || query.error };
  if (!query.code) return { kind: 'error', message: 'The platform sent no authorization code' };
  return { kind: 'code', code: query.code, params: {} };
}

/**
 * The token answer: `expires_in` seconds for the access token; the refresh token lives 90 days and rotates on every
 * refresh. A 4xx `{error, error_description}` means the code or refresh token was refused.
 */
export function parseTokenResponse(status: number, body: unknown, now: Date): TokenSet {
  if (isPassingFailure(status)) throw new PlatformError('unavailable', 'Etsy could not complete the request');
  const failure = parseBody(OAuthErrorAnswer, body);
  if (status >= 400 || failure?.error) {
    const error = failure?.error;
    if (status === 401 || error === 'invalid_grant' || error === 'invalid_client')
      throw new PlatformError('rejected', 'Invalid credentials');
    throw new PlatformError('rejected', failure?.error_description ?? error ?? 'Invalid credentials');
  }
  const answer = parseBody(OAuthTokenAnswer, body);
  if (!answer) throw new PlatformError('unavailable', 'Etsy answered without an access token');
  return {
    accessToken: answer.access_token,
    refreshToken: answer.refresh_token ?? null,
    accessExpiresAt: answer.expires_in === undefined ? null : new Date(now.getTime() + answer.expires_in * 1000),
    refreshExpiresAt: new Date(now.getTime() + REFRESH_TOKEN_LIFETIME_MS),
  };
}

/** A refused lookup: a passing failure is `unavailable`, any other 4xx `rejected` with Etsy's `error` when it sent one. */
function lookupFailure(status: number, body: unknown, fallback: string): PlatformError {
  return new PlatformError(isPassingFailure(status) ? 'unavailable' : 'rejected', parseBody(ApiError, body)?.error ?? fallback);
}

/** `GET /v3/application/users/me` → `{user_id, shop_id}`. */
export function parseMe(status: number, body: unknown): { userId: string; shopId: string } {
  if (status >= 400) throw lookupFailure(status, body, 'Etsy refused the account lookup');
  const me = parseBody(Me, body);
  if (!me) throw new PlatformError('unavailable', 'Etsy answered the account lookup without a shop');
  return { userId: String(me.user_id), shopId: String(me.shop_id) };
}

/** `GET /v3/application/shops/{shop_id}` → the shop's name. */
export function parseShop(status: number, body: unknown): { name: string } {
  if (status >= 400) throw lookupFailure(status, body, 'Etsy refused the shop lookup');
  const shop = parseBody(Shop, body);
  if (!shop) throw new PlatformError('unavailable', 'Etsy answered the shop lookup without a name');
  return { name: shop.shop_name };
}
