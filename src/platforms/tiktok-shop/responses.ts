/** TikTok Shop answers, parsed without I/O (platforms.md §2.2–2.6). */
import Type from 'typebox';
import { isPassingFailure } from '../../lib/outbound-http.js';
import { parseBody } from '../parse.js';
import { type CallbackResult, type PlatformAccount, PlatformError, type TokenSet } from '../platform.js';

/** Every answer, token calls included: `{code, message, data, request_id}`, with code 0 for success (platforms.md §2.5). */
const Envelope = Type.Object({ code: Type.Number(), message: Type.Optional(Type.String()), data: Type.Optional(Type.Unknown()) });

/** The `data` of a successful answer is an object, whichever call it answers. */
const Data = Type.Object({});

/** Get Access Token and Refresh Access Token's `data`; `open_id`, `seller_name` and the rest are not read (§2.3). */
const TokenData = Type.Object({
  access_token: Type.String({ minLength: 1 }),
  access_token_expire_in: Type.Optional(Type.Number()),
  refresh_token: Type.Optional(Type.String()),
  refresh_token_expire_in: Type.Optional(Type.Number()),
});

/** Get Authorized Shops' `data`. TikTok does not say how it sends no shops: an absent or null list reads as empty. */
const ShopsData = Type.Object({ shops: Type.Optional(Type.Union([Type.Array(Type.Unknown()), Type.Null()])) });

/** One authorized shop; `id`, `region`, `seller_type` and `code` are not read (§2.6). */
const Shop = Type.Object({ cipher: Type.String({ minLength: 1 }), name: Type.String() });

const DENIALS = new Set(['auth_denied', 'access_denied']);
const ACCESS_DENIED: CallbackResult = { kind: 'denied', message: 'Access denied' };

/**
 * `?code=…&state=…`; a refusal comes back as `code=null&error=auth_denied` (the 2024 changelog says `access_denied`),
 * so any `error`, and a `code` that is missing or the literal `null`, is not a grant (platforms.md §2.2).
 */
export function readCallback(query: Readonly<Record<string, string | undefined>>): CallbackResult {
  if (query.error) return DENIALS.has(query.error) ? ACCESS_DENIED : { kind: 'error', message: query.error_description || query.error };
  if (query.code === 'null') return ACCESS_DENIED;
  if (!query.code) return { kind: 'error', message: 'The platform sent no authorization code' };
  return { kind: 'code', code: query.code, params: {} };
}

/**
 * Codes of the token calls that mean the code, refresh token or app credentials were refused. TikTok lists no errors
 * for these calls (UNCONFIRMED, platforms.md §2.5): 36004xxx is the auth-record family seen in practice (36004001
 * "rt has expired", 36004005 "can not find related auth record": EcomPHP/tiktokshop-php#15), 36009004 the common
 * "invalid credentials" error.
 */
function refusesCredentials(code: number): boolean {
  return (code >= 36_004_000 && code < 36_005_000) || code === 36_009_004;
}

/** The `data` of an envelope with code 0; other codes go to `refused`. */
function envelopeData(status: number, body: unknown, refused: (code: number, message: string) => PlatformError): unknown {
  if (isPassingFailure(status)) throw new PlatformError('unavailable', 'TikTok Shop could not complete the request');
  const envelope = parseBody(Envelope, body);
  if (!envelope) throw new PlatformError('unavailable', `TikTok Shop answered without a result code (HTTP ${status})`);
  // 36009002: rate limited (platforms.md §2.5), a passing failure whatever the endpoint.
  if (envelope.code === 36_009_002) throw new PlatformError('unavailable', 'TikTok Shop is rate limiting requests');
  if (envelope.code !== 0) throw refused(envelope.code, envelope.message ?? '');
  if (!parseBody(Data, envelope.data)) throw new PlatformError('unavailable', 'TikTok Shop answered without data');
  return envelope.data;
}

/** An absolute Unix time in seconds, as TikTok sends both expiries despite their `_expire_in` names. */
function fromUnixSeconds(value: number | undefined): Date | null {
  return value !== undefined && value > 0 ? new Date(value * 1000) : null;
}

/**
 * Get Access Token and Refresh Access Token answer alike: both tokens, and `access_token_expire_in` and
 * `refresh_token_expire_in` as absolute Unix timestamps (platforms.md §2.3).
 */
export function parseTokenResponse(status: number, body: unknown): TokenSet {
  const data = envelopeData(
    status,
    body,
    (code, message) =>
      new PlatformError('rejected', refusesCredentials(code) ? 'Invalid credentials' : message || 'TikTok Shop refused the request'),
  );
  const token = parseBody(TokenData, data);
  if (!token) throw new PlatformError('unavailable', 'TikTok Shop answered without an access token');
  return {
    accessToken: token.access_token,
    refreshToken: token.refresh_token ?? null,
    accessExpiresAt: fromUnixSeconds(token.access_token_expire_in),
    refreshExpiresAt: fromUnixSeconds(token.refresh_token_expire_in),
  };
}

/**
 * Get Authorized Shops → the first shop: its `cipher` (what later shop-scoped calls take as `shop_cipher`) and its
 * name (platforms.md §2.6).
 */
export function parseShopsResponse(status: number, body: unknown): PlatformAccount {
  const data = envelopeData(
    status,
    body,
    (_code, message) => new PlatformError('rejected', message || 'TikTok Shop refused the shop lookup'),
  );
  const shops = parseBody(ShopsData, data);
  if (!shops) throw new PlatformError('unavailable', 'TikTok Shop answered the shop lookup without a shop list');
  if (!shops.shops?.length) throw new PlatformError('rejected', 'No TikTok Shop was authorized');
  const first = parseBody(Shop, shops.shops[0]);
  if (!first) throw new PlatformError('unavailable', 'TikTok Shop answered the shop lookup without a shop cipher or name');
  return { externalId: first.cipher, name: first.name };
}
