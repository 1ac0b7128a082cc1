/** TikTok Shop answers, parsed without I/O (platforms.md §2.2–2.6). */
import Type from 'typebox';
import { isPassingFailure } from '../../lib/outbound-http.js';
import type { CallbackResult, PlatformAccount, TokenSet } from '../contracts/connect.js';
import { PlatformError } from '../contracts/errors.js';
import { parseBody } from '../parse.js';
import { MARKET_CURRENCIES } from './markets.js';

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

/**
 * One authorized shop (§2.6): `id` identifies the shop (webhooks name it as `shop_id`), `cipher` is what shop-scoped
 * calls take as `shop_cipher`; `region`, `seller_type` and `code` are kept as the site's data.
 */
const Shop = Type.Object({
  id: Type.String({ minLength: 1 }),
  cipher: Type.String({ minLength: 1 }),
  name: Type.String(),
  region: Type.Optional(Type.String()),
  seller_type: Type.Optional(Type.String()),
  code: Type.Optional(Type.String()),
});

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
 * Whose problem a result code is (platforms.md §2.5; common errors: https://partner.tiktokshop.com/docv2/page/678e3a45786253031531b942).
 * The grant is gone for the 36004xxx auth-record family the token calls answer in practice (36004001 "rt has
 * expired", 36004005 "can not find related auth record": EcomPHP/tiktokshop-php#15) and 105002 (expired access token)
 * on API calls; 105005 is a call outside the scopes the seller granted (platforms.md §2.3: a package the seller
 * unticked at consent), which only the seller can fix, by connecting again and granting it. Passing: 36009002 rate
 * limited, 36009003 internal error, 36009007 request timeout. Everything else, 36009004 (invalid app key or
 * credentials) and 106001 (invalid sign: Storelink signed the request wrong, or with the wrong secret) first, is the
 * app's configuration or request: the operator's, never the seller's to retry.
 */
export function failureOf(code: number, message: string, refused: string): PlatformError {
  if (code === 36_009_002) return new PlatformError('unavailable', 'TikTok Shop is rate limiting requests');
  if (code === 36_009_003 || code === 36_009_007) return new PlatformError('unavailable', 'TikTok Shop could not complete the request');
  if ((code >= 36_004_000 && code < 36_005_000) || code === 105_002) return new PlatformError('rejected', refused);
  if (code === 105_005)
    return new PlatformError(
      'rejected',
      `The shop did not grant Storelink a permission this needs (TikTok Shop code 105005${message ? `: ${message}` : ''}). Connect the shop again and grant every permission Storelink asks for.`,
    );
  return new PlatformError('misconfigured', `TikTok Shop refused Storelink's app (code ${code}${message ? `, ${message}` : ''})`);
}

/** The `data` of an envelope with code 0; other codes are read by failureOf, `refused` being the seller-facing message. */
function envelopeData(status: number, body: unknown, refused: string): unknown {
  if (isPassingFailure(status)) throw new PlatformError('unavailable', 'TikTok Shop could not complete the request');
  const envelope = parseBody(Envelope, body);
  if (!envelope) throw new PlatformError('unavailable', `TikTok Shop answered without a result code (HTTP ${status})`);
  if (envelope.code !== 0) throw failureOf(envelope.code, envelope.message ?? '', refused);
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
  const data = envelopeData(status, body, 'Invalid credentials');
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
 * Get Authorized Shops → every shop the seller authorized, one site each as TikTok's "Connecting shops" guide says to
 * store them (one row per shop; platforms.md §2.6): the shop `id` is the site's external id, and the
 * cipher, region, seller type and code are its data. A site stored under its cipher before is found again by it.
 */
export function parseShopsResponse(status: number, body: unknown): PlatformAccount[] {
  const data = envelopeData(status, body, 'TikTok Shop no longer accepts this authorization; connect again.');
  const shops = parseBody(ShopsData, data);
  if (!shops) throw new PlatformError('unavailable', 'TikTok Shop answered the shop lookup without a shop list');
  if (!shops.shops?.length) throw new PlatformError('rejected', 'No TikTok Shop was authorized');
  return shops.shops.map((entry) => {
    const shop = parseBody(Shop, entry);
    if (!shop) throw new PlatformError('unavailable', 'TikTok Shop answered the shop lookup with a shop without an id, cipher or name');
    const data = { cipher: shop.cipher, region: shop.region ?? null, seller_type: shop.seller_type ?? null, code: shop.code ?? null };
    // The shop list names no currency: a shop sells in its market's.
    const currency = (shop.region && MARKET_CURRENCIES[shop.region]) || null;
    return { externalId: shop.id, name: shop.name, data, currency, formerExternalId: shop.cipher };
  });
}
