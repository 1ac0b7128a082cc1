/** TikTok Shop Partner / Open API requests, built without I/O (platforms.md §2). */
import { createHmac } from 'node:crypto';

/** Path of Get Authorized Shops, relative to the Open API base; it is also what gets signed. */
export const SHOPS_PATH = '/authorization/202309/shops';

/**
 * The seller's authorization link: the caller's copy from Partner Center when given, else `{authorizeUrl}?service_id=…`.
 * Only `state` is set on it (replacing any there); TikTok takes the redirect and the scopes from the app's own
 * configuration, so neither is sent. https://partner.tiktokshop.com/docv2/page/678e3a3292b0f40314a92d75
 */
export function buildAuthorizeUrl(input: {
  authorizeUrl: string;
  serviceId: string;
  authorizationUrl: string | null;
  state: string;
}): string {
  const url = new URL(input.authorizationUrl ?? input.authorizeUrl);
  // Rewrite the query text by hand so the caller's other parameters keep their exact encoding.
  const ours = input.authorizationUrl === null ? ['service_id', 'state'] : ['state'];
  const kept = url.search
    .slice(1)
    .split('&')
    .filter((pair) => pair !== '' && !ours.includes(paramName(pair)));
  if (input.authorizationUrl === null) kept.unshift(`service_id=${encodeURIComponent(input.serviceId)}`);
  kept.push(`state=${encodeURIComponent(input.state)}`);
  url.search = `?${kept.join('&')}`;
  return url.toString();
}

function paramName(pair: string): string {
  const raw = pair.split('=', 1)[0]!;
  try {
    return decodeURIComponent(raw.replaceAll('+', ' '));
  } catch {
    return raw;
  }
}

/**
 * Get Access Token: a GET with the app secret in the query, neither signed nor timestamped; the grant type is spelled
 * `authorized_code`. https://partner.tiktokshop.com/docv2/page/678e3a3292b0f40314a92d75
 */
export function buildTokenGetUrl(input: { authUrl: string; appKey: string; appSecret: string; authCode: string }): string {
  const query = new URLSearchParams({
    app_key: input.appKey,
    app_secret: input.appSecret,
    auth_code: input.authCode,
    grant_type: 'authorized_code',
  });
  return `${input.authUrl}/api/v2/token/get?${query.toString()}`;
}

/** Refresh Access Token: same shape as Get Access Token, with `grant_type=refresh_token`. */
export function buildTokenRefreshUrl(input: { authUrl: string; appKey: string; appSecret: string; refreshToken: string }): string {
  const query = new URLSearchParams({
    app_key: input.appKey,
    app_secret: input.appSecret,
    refresh_token: input.refreshToken,
    grant_type: 'refresh_token',
  });
  return `${input.authUrl}/api/v2/token/refresh?${query.toString()}`;
}

/**
 * The `sign` of an Open API call (platforms.md §2.7): query parameters other than `sign` and `access_token`, sorted by
 * key and concatenated as `{key}{value}`, prefixed with the API path, followed by the raw body unless the request is
 * multipart, wrapped in the app secret on both sides; HMAC-SHA256 keyed with the app secret, lowercase hex.
 * `path` is the API path (`/authorization/202309/shops`), not including any base-URL prefix.
 * https://partner.tiktokshop.com/docv2/page/678e3a3d4ddec3030b238faf
 */
export function signRequest(input: {
  path: string;
  query: Readonly<Record<string, string>>;
  body?: string;
  contentType?: string;
  appSecret: string;
}): string {
  const params = Object.keys(input.query)
    .filter((key) => key !== 'sign' && key !== 'access_token')
    .sort()
    .map((key) => `${key}${input.query[key]}`)
    .join('');
  const multipart = (input.contentType ?? '').toLowerCase().startsWith('multipart/form-data');
  const text = `${input.appSecret}${input.path}${params}${multipart ? '' : (input.body ?? '')}${input.appSecret}`;
  return createHmac('sha256', input.appSecret).update(text, 'utf8').digest('hex');
}

/**
 * Get Authorized Shops: signed `app_key` and `timestamp` (Unix seconds), the access token in `x-tts-access-token`, and
 * no `shop_cipher` (platforms.md §2.6).
 */
export function buildShopsRequest(input: { apiUrl: string; appKey: string; appSecret: string; accessToken: string; now: Date }): {
  url: string;
  headers: Record<string, string>;
} {
  const query: Record<string, string> = { app_key: input.appKey, timestamp: String(Math.floor(input.now.getTime() / 1000)) };
  const sign = signRequest({ path: SHOPS_PATH, query, body: '', appSecret: input.appSecret });
  return {
    url: `${input.apiUrl}${SHOPS_PATH}?${new URLSearchParams({ ...query, sign }).toString()}`,
    headers: { 'x-tts-access-token': input.accessToken, 'content-type': 'application/json' },
  };
}
