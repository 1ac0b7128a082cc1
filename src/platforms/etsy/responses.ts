/** Etsy answers, parsed without I/O (platforms.md §1.3–1.5). */
import { isPassingFailure, numberField, stringField } from '../http.js';
import { PlatformError, type CallbackResult, type TokenSet } from '../platform.js';

const REFRESH_TOKEN_LIFETIME_MS = 90 * 24 * 3600 * 1000;

/** `?code=…&state=…`, or `?error=…&error_description=…` (a refusal is `access_denied`, per RFC 6749 §4.1.2.1). */
export function readCallback(query: Readonly<Record<string, string | undefined>>): CallbackResult {
  if (query.error) return query.error === 'access_denied' ? { kind: 'denied', message: 'Access denied' } : { kind: 'error', message: query.error_description || query.error };
  if (!query.code) return { kind: 'error', message: 'The platform sent no authorization code' };
  return { kind: 'code', code: query.code, params: {} };
}

/**
 * The token answer: `expires_in` seconds for the access token; the refresh token lives 90 days and rotates on every
 * refresh. A 4xx `{error, error_description}` means the code or refresh token was refused.
 */
export function parseTokenResponse(status: number, body: unknown, now: Date): TokenSet {
  if (isPassingFailure(status)) throw new PlatformError('unavailable', 'Etsy could not complete the request');
  const error = stringField(body, 'error');
  if (status >= 400 || error) {
    if (status === 401 || error === 'invalid_grant' || error === 'invalid_client') throw new PlatformError('rejected', 'Invalid credentials');
    throw new PlatformError('rejected', stringField(body, 'error_description') ?? error ?? 'Invalid credentials');
  }
  const accessToken = stringField(body, 'access_token');
  const expiresIn = numberField(body, 'expires_in');
  if (!accessToken) throw new PlatformError('unavailable', 'Etsy answered without an access token');
  return {
    accessToken,
    refreshToken: stringField(body, 'refresh_token'),
    accessExpiresAt: expiresIn === null ? null : new Date(now.getTime() + expiresIn * 1000),
    refreshExpiresAt: new Date(now.getTime() + REFRESH_TOKEN_LIFETIME_MS),
  };
}

/** `GET /v3/application/users/me` → `{user_id, shop_id}`. */
export function parseMe(status: number, body: unknown): { userId: string; shopId: string } {
  if (status >= 400) throw new PlatformError(isPassingFailure(status) ? 'unavailable' : 'rejected', stringField(body, 'error') ?? 'Etsy refused the account lookup');
  const userId = numberField(body, 'user_id');
  const shopId = numberField(body, 'shop_id');
  if (userId === null || shopId === null) throw new PlatformError('unavailable', 'Etsy answered the account lookup without a shop');
  return { userId: String(userId), shopId: String(shopId) };
}

/** `GET /v3/application/shops/{shop_id}` → the shop's name. */
export function parseShop(status: number, body: unknown): { name: string } {
  if (status >= 400) throw new PlatformError(isPassingFailure(status) ? 'unavailable' : 'rejected', stringField(body, 'error') ?? 'Etsy refused the shop lookup');
  const name = stringField(body, 'shop_name');
  if (name === null) throw new PlatformError('unavailable', 'Etsy answered the shop lookup without a name');
  return { name };
}
