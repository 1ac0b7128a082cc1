/**
 * What stands before every product API call of the TikTok Shop simulator (listings.md §2.1, platforms.md §2.5–2.7), in
 * the order the connect flow's Get Authorized Shops checks it: a fault a test set, `app_key`, `sign`, the timestamp
 * window, the signature over path, query and body (not a multipart body), the content type, the `x-tts-access-token`,
 * the `shop_cipher` of one of the token's shops, and the shop's per-API rate limit (HTTP 429, listings.md §2.8). The
 * seller's own calls (Search Responsible Persons, Search Manufacturers, Search Size Charts) take no `shop_cipher`: one
 * sent is TikTok's documented "Unexpected identifier", and their rate is kept per seller and API.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { firstValues } from '../../lib/params.js';
import { countCall, isRevoked, SANDBOX_CLIENTS, type SandboxContext } from '../context.js';
import type { FaultAnswers, FaultyEndpoint } from '../faults.js';
import { ERRORS, type TikTokError, unexpectedParameter } from './errors.js';
import { createReplies, type Grant, inspectToken, mediaTypeOf, rawQueryOf, timestampErrorOf } from './open-api.js';
import { PRODUCT_ERRORS } from './product-errors.js';
import type { ProductStore } from './product-store.js';
import { type SandboxShop, sandboxShops } from './shops.js';
import { hasValidSign } from './signature.js';

const CLIENT = SANDBOX_CLIENTS.tiktokShop;
const TRACK = 'tiktok-shop';
/** Where the simulator is mounted: stripped from the URL to get the signed API path. */
const MOUNT = '/sandbox/tiktok-shop';
/** The scope package of the product APIs (Product Basic), which every call here needs unless its Access says another. */
export const PRODUCT_SCOPE = 'seller.product.basic';

export interface Access {
  /** The API's name, counted as `tiktok-shop:<operation>` and the key of its rate budget. */
  operation: string;
  fault?: FaultyEndpoint;
  /** A multipart upload: its body is not signed and its content type is multipart/form-data. */
  multipart?: boolean;
  /** The scope the API needs (TikTok's scope packages, listings.md §2.1); `seller.product.basic` unless said. */
  scope?: string;
}

export interface Admitted {
  shop: SandboxShop;
  query: Record<string, string>;
  /** The JSON body, or {} when there is none. */
  body: Record<string, unknown>;
}

/** A seller's own call (no shop): the token's grant and the shops it covers. */
export interface AdmittedSeller {
  grant: Grant;
  shops: SandboxShop[];
  query: Record<string, string>;
  body: Record<string, unknown>;
}

export type ProductGuard = ReturnType<typeof createProductGuard>;

export function createProductGuard(context: SandboxContext, store: ProductStore) {
  const replies = createReplies(context.clock);
  const faultAnswers: FaultAnswers = {
    error: replies.answer(ERRORS.internal).body,
    refused: replies.answer(ERRORS.expiredAccessToken),
    // What an app that signs its product calls wrong is answered (the app's key itself already passed the token calls).
    misconfigured: replies.answer(ERRORS.invalidSign),
    passing: replies.answer(ERRORS.requestTimeout),
    throttled: replies.answer(ERRORS.rateLimited, 429),
  };

  /** Why the request's credentials are refused, or null. */
  const credentialError = (request: FastifyRequest, query: Record<string, string>, access: Access): TikTokError | null => {
    if (query.app_key !== CLIENT.appKey) return ERRORS.invalidAppKey;
    if (!query.sign) return ERRORS.missingSign;
    const timestampError = timestampErrorOf(query.timestamp, Math.floor(context.clock.nowMs() / 1000));
    if (timestampError) return timestampError;
    const contentType = request.headers['content-type'];
    const path = request.url.split('?')[0]!.slice(MOUNT.length);
    const body = typeof request.body === 'string' ? request.body : '';
    if (!hasValidSign({ path, rawQuery: rawQueryOf(request.url), body, contentType }, CLIENT.appSecret)) return ERRORS.invalidSign;
    const media = mediaTypeOf(contentType);
    if (access.multipart ? media !== 'multipart/form-data' : media !== 'application/json') return ERRORS.contentType;
    return null;
  };

  /** The grant of the request's access token, or the error that refuses it. */
  const grantOf = (request: FastifyRequest): Grant | TikTokError => {
    const header = request.headers['x-tts-access-token'];
    const access = inspectToken(context.tokens, context.clock, 'tiktok-access', typeof header === 'string' ? header : undefined);
    // ASSUMPTION: a token of a revoked authorization is answered as an invalid one.
    if (!access || isRevoked(context, TRACK, access.grant.account)) return ERRORS.invalidAccessToken;
    return access.expired ? ERRORS.expiredAccessToken : access.grant;
  };

  /** The shop the call may act on, or the error that refuses it. */
  const shopOf = (request: FastifyRequest, query: Record<string, string>, access: Access): SandboxShop | TikTokError => {
    const grant = grantOf(request);
    if (!('account' in grant)) return grant;
    if (grant.refused.includes(access.scope ?? PRODUCT_SCOPE)) return ERRORS.scopeNotGranted;
    const shop = sandboxShops(grant.account, grant.shops, grant.market).find((each) => each.cipher === query.shop_cipher);
    return shop ?? PRODUCT_ERRORS.shopCipher;
  };

  /** The request's JSON body, {} when it has none, or null for one that is not a JSON object. */
  const bodyOf = (request: FastifyRequest): Record<string, unknown> | null => {
    if (typeof request.body !== 'string' || request.body.trim() === '') return {};
    try {
      const body: unknown = JSON.parse(request.body);
      return typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as Record<string, unknown>) : null;
    } catch {
      return null;
    }
  };

  /** TikTok's 429 for a spent per-second budget. */
  const throttle = (reply: FastifyReply) => void reply.code(429).header('retry-after', '1').send(faultAnswers.throttled.body);

  /** Counts the call and checks everything above; the shop, query and body, or null once an answer was sent. */
  const admit = async (request: FastifyRequest, reply: FastifyReply, access: Access): Promise<Admitted | null> => {
    countCall(context, TRACK, access.operation);
    if (access.fault && (await context.faults.apply(TRACK, access.fault, reply, faultAnswers))) return null;
    const query = firstValues(request.query);
    const refused = credentialError(request, query, access);
    if (refused) return (void replies.fail(reply, refused), null);
    const shop = shopOf(request, query, access);
    if (!('cipher' in shop)) return (void replies.fail(reply, shop), null);
    if (!store.spend(shop.id, access.operation)) return (throttle(reply), null);
    const body = bodyOf(request);
    if (!body) return (void replies.fail(reply, PRODUCT_ERRORS.requestFormat), null);
    // Lazy audits: any call of the shop settles its due ones, so their webhooks go out.
    store.ofShop(shop.id);
    return { shop, query, body };
  };

  /** A seller's own call, checked as `admit` checks a shop's but refusing a `shop_cipher`; its budget is the seller's. */
  const admitSeller = async (request: FastifyRequest, reply: FastifyReply, access: Access): Promise<AdmittedSeller | null> => {
    countCall(context, TRACK, access.operation);
    if (access.fault && (await context.faults.apply(TRACK, access.fault, reply, faultAnswers))) return null;
    const query = firstValues(request.query);
    if (query.shop_cipher !== undefined) return (void replies.fail(reply, unexpectedParameter('shop_cipher')), null);
    const refused = credentialError(request, query, access);
    if (refused) return (void replies.fail(reply, refused), null);
    const grant = grantOf(request);
    if (!('account' in grant)) return (void replies.fail(reply, grant), null);
    if (grant.refused.includes(access.scope ?? PRODUCT_SCOPE)) return (void replies.fail(reply, ERRORS.scopeNotGranted), null);
    if (!store.spend(`seller-${grant.account}`, access.operation)) return (throttle(reply), null);
    const body = bodyOf(request);
    if (!body) return (void replies.fail(reply, PRODUCT_ERRORS.requestFormat), null);
    return { grant, shops: sandboxShops(grant.account, grant.shops, grant.market), query, body };
  };

  /** Success, or TikTok's 500 after the work when the test set `ghost` on the endpoint. */
  const succeed = (reply: FastifyReply, data: unknown, fault?: FaultyEndpoint) => {
    if (fault && context.faults.ghosts(TRACK, fault)) return reply.code(500).send(faultAnswers.error);
    return reply.send(replies.envelope(data, 'Success'));
  };

  return { admit, admitSeller, succeed, fail: replies.fail };
}
