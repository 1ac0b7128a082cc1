/** Etsy answers, parsed without I/O (platforms.md §1.3–1.5). */
import Type from 'typebox';
import { isPassingFailure } from '../../lib/outbound-http.js';
import type { CallbackResult, TokenSet } from '../contracts/connect.js';
import { PlatformError } from '../contracts/errors.js';
import { OAuthErrorAnswer, OAuthTokenAnswer, tokenRequestFailure } from '../oauth-answers.js';
import { parseBody } from '../parse.js';

const REFRESH_TOKEN_LIFETIME_MS = 90 * 24 * 3600 * 1000;

/** The `{error}` of a refused v3 API call. */
const ApiError = Type.Object({ error: Type.String() });

/** `GET /v3/application/users/me`: both ids are integers in Etsy's OpenAPI document, and neither is required (platforms.md §1.5). */
const Me = Type.Object({ user_id: Type.Integer(), shop_id: Type.Optional(Type.Union([Type.Integer(), Type.Null()])) });

/** `GET /v3/application/shops/{shop_id}`: only the name is read. */
const Shop = Type.Object({
  shop_name: Type.String(),
  currency_code: Type.Optional(Type.String({ pattern: '^[A-Z]{3}$' })),
  shop_location_country_iso: Type.Optional(Type.Union([Type.String(), Type.Null()])),
});

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
 * refresh. A 4xx `{error, error_description}` is read by tokenRequestFailure: `invalid_grant` is the seller's, a refused
 * key (401, 403 `Shared secret is required in x-api-key header.`, `invalid_client`) the operator's.
 */
export function parseTokenResponse(status: number, body: unknown, now: Date): TokenSet {
  const failure = parseBody(OAuthErrorAnswer, body);
  if (status >= 400 || failure?.error) throw tokenRequestFailure('Etsy', status, failure);
  const answer = parseBody(OAuthTokenAnswer, body);
  if (!answer) throw new PlatformError('unavailable', 'Etsy answered without an access token');
  return {
    accessToken: answer.access_token,
    refreshToken: answer.refresh_token ?? null,
    accessExpiresAt: answer.expires_in === undefined ? null : new Date(now.getTime() + answer.expires_in * 1000),
    refreshExpiresAt: new Date(now.getTime() + REFRESH_TOKEN_LIFETIME_MS),
  };
}

/**
 * A refused lookup: passing failures are `unavailable`; 401 (`invalid_token`: the token just issued is refused) is the
 * seller's grant; 403 is Etsy refusing the app's key or its scopes, the operator's; 404 and other 4xx say the account
 * cannot be read, shown as Etsy's `error`.
 */
function lookupFailure(status: number, body: unknown, fallback: string): PlatformError {
  const said = parseBody(ApiError, body)?.error;
  if (isPassingFailure(status)) return new PlatformError('unavailable', 'Etsy could not complete the request');
  if (status === 403) return new PlatformError('misconfigured', `Etsy refused Storelink's app (HTTP 403${said ? `, ${said}` : ''})`);
  return new PlatformError('rejected', said ?? fallback);
}

/** `GET /v3/application/users/me` → `{user_id, shop_id}`; `shop_id` is optional in Etsy's schema: a buyer has none. */
export function parseMe(status: number, body: unknown): { userId: string; shopId: string } {
  if (status >= 400) throw lookupFailure(status, body, 'Etsy refused the account lookup');
  const me = parseBody(Me, body);
  if (!me) throw new PlatformError('unavailable', 'Etsy answered the account lookup without a user id');
  if (me.shop_id === undefined || me.shop_id === null)
    throw new PlatformError('rejected', 'This Etsy account has no shop. Open a shop on Etsy, then connect again.');
  return { userId: String(me.user_id), shopId: String(me.shop_id) };
}

/** `GET /v3/application/shops/{shop_id}` → the shop's name. */
/** The shop's name and its currency (Etsy's `currency_code`, null if it said none). */
export function parseShop(status: number, body: unknown): { name: string; currency: string | null; country: string | null } {
  if (status >= 400) throw lookupFailure(status, body, 'Etsy refused the shop lookup');
  const shop = parseBody(Shop, body);
  if (!shop) throw new PlatformError('unavailable', 'Etsy answered the shop lookup without a name');
  // The shop's country (`shop_location_country_iso`, Etsy's Shop schema); one that is not an ISO code is not kept.
  const country = /^[A-Z]{2}$/.test(shop.shop_location_country_iso ?? '') ? shop.shop_location_country_iso! : null;
  return { name: shop.shop_name, currency: shop.currency_code ?? null, country };
}
