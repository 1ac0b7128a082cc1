/**
 * The TikTok Shop simulator's error codes and messages. Open API calls use TikTok's common errors
 * (https://partner.tiktokshop.com/docv2/page/678e3a45786253031531b942, mirrored in lazykern/ecommerce-api-docs
 * `…/tiktok-shop-api-concepts/common-errors.md`) and Get Authorized Shops' own list, whose only entry is 36009003
 * "Internal error". TikTok documents no codes for the token calls: those are marked where each comes from.
 */

export type TikTokError = readonly [code: number, message: string];

export const ERRORS = {
  // Token calls, OBSERVED and not documented (EcomPHP/tiktokshop-php#15): an unknown, used or revoked auth code or
  // refresh token, and an expired refresh token.
  noAuthRecord: [36_004_005, 'can not find related auth record'],
  refreshTokenExpired: [36_004_001, 'rt has expired'],

  // Wrong app credentials. Documented for Open API calls ("Invalid credentials. Invalid `app_key` query parameter.");
  // the token calls are given the same code, which TikTok does not document for them.
  invalidAppKey: [36_009_004, 'Invalid credentials. Invalid `app_key` query parameter.'],
  // ASSUMPTION: the wording for a wrong `app_secret`, which only the token calls carry.
  invalidAppSecret: [36_009_004, 'Invalid credentials. Invalid `app_secret` query parameter.'],
  // A chosen code: a grant_type other than the one the call takes is a parameter error, and 36009004 is the code TikTok
  // documents for its parameter errors (unexpected or invalid identifier, invalid API version). The wording is an ASSUMPTION.
  invalidGrantType: (expected: string): TikTokError => [
    36_009_004,
    `Invalid parameter. The \`grant_type\` query parameter must be \`${expected}\`.`,
  ],

  // Open API authentication errors, as documented.
  missingSign: [36_009_004, 'Missing credentials. The request does not include a required signature in the query.'],
  invalidSign: [106_001, 'Invalid credentials. The `sign` query parameter is invalid.'],
  invalidAccessToken: [36_009_004, 'Invalid credentials. The `x-tts-access-token` header is invalid.'],
  expiredAccessToken: [105_002, 'Expired credentials. The `access_token` or `x-tts-access-token` header has expired.'],
  // A call outside the scopes the seller granted (platforms.md §2.3, §2.5: "Calls outside these scopes fail with code
  // 105005"). ASSUMPTION: the wording.
  scopeNotGranted: [105_005, 'Access denied. The seller has not granted the scope this API requires.'],
  timestampNegative: [36_009_004, 'Invalid timestamp. The value of the `timestamp` query parameter must not be lesser than 0.'],
  timestampTooOld: [
    36_009_004,
    'Invalid timestamp. The value of the `timestamp` query parameter must not be earlier than 5 minutes before the current time.',
  ],
  timestampTooNew: [
    36_009_004,
    'Invalid timestamp. The value of the `timestamp` query parameter must not exceed the current time by more than 30 seconds.',
  ],
  // ASSUMPTION: what a missing or non-numeric timestamp is answered (the docs list only the out-of-range cases).
  timestampMissing: [36_009_004, 'Invalid timestamp. The `timestamp` query parameter must be a 10-digit Unix timestamp.'],
  // ASSUMPTION: the Get Authorized Shops spec marks `content-type: application/json` required but does not say what its
  // absence is answered; 36009004 as for the other missing request parts. (The common 36009022 "Invalid request format"
  // is about a request body's format, which this GET has none of.)
  contentType: [36_009_004, 'Invalid request header. The `content-type` header is required and must be `application/json`.'],

  // Passing failures, as documented.
  internal: [
    36_009_003,
    'Internal error. Please try again. If the issue persists after multiple attempts, please contact platform support.',
  ],
  requestTimeout: [36_009_007, 'Request timeout. The request to the endpoint timed out.'],
  rateLimited: [36_009_002, "Too many requests. You've made too many requests in a short period of time."],
} as const satisfies Record<string, TikTokError | ((expected: string) => TikTokError)>;

/** Query parameters TikTok documents as unexpected on calls that take no shop (Common errors, "Parameter errors"). */
const DOCUMENTED_UNEXPECTED = new Set(['shop_cipher', 'category_asset_cipher']);

/**
 * A query parameter the call does not take, in the documented wording for `shop_cipher` and `category_asset_cipher`.
 * ASSUMPTION: any other parameter (`access_token` in the query, a stray one) gets the same code and wording; TikTok
 * does not say whether it ignores them.
 */
export function unexpectedParameter(name: string): TikTokError {
  const kind = DOCUMENTED_UNEXPECTED.has(name) ? 'identifier' : 'parameter';
  return [36_009_004, `Unexpected ${kind}. The \`${name}\` query parameter is not required for this request.`];
}
