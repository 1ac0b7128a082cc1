/**
 * TikTok Shop's Open API as the listings adapter calls it (listings.md §2.1, §2.8): every call signed, with the shop's
 * cipher unless it is the seller's own, the access token in `x-tts-access-token`, and each API of a shop paced apart.
 */
import type { Clock } from '../../lib/clock.js';
import { PlatformError } from '../contracts/errors.js';
import type { ListingsCall, RateLimits } from '../contracts/listings.js';
import { type PlatformHttp, readAnswer } from '../http.js';
import type { TikTokShopConfig } from './connect.js';
import { signedUrl } from './listing-requests.js';

/** What the listings adapter's parts are made with: the outbound HTTP and the clock. */
export interface TikTokListingsDeps {
  http: PlatformHttp;
  clock: Clock;
}

/** The Product API's version every product call goes to. */
export const PRODUCT_API = '/product/202309';
/** 50 requests a second per API, per app and shop, by default (listings.md §2.8): what each shop's API is paced to. */
const LIMITS: RateLimits = { perSecond: 50, remainingThisSecond: null, perDay: null, remainingToday: null };

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

/** One call's query, JSON body or upload; `shopless`: the seller's own call, which refuses a `shop_cipher`. */
export interface OpenApiOptions {
  query?: Record<string, string>;
  json?: unknown;
  multipart?: FormData;
  shopless?: boolean;
}

/** The warehouse the site lists from (its setting). */
export const warehouseOf = (call: ListingsCall) => String(call.settings.warehouse_id ?? '');

/** The Open API caller of one adapter. */
export function createOpenApi(config: TikTokShopConfig, deps: TikTokListingsDeps) {
  /** The call's URL, signed now; with the shop's cipher unless the call is the seller's own. */
  function urlOf(path: string, body: string, cipher: string, options: OpenApiOptions): string {
    return signedUrl({
      apiUrl: config.apiUrl,
      path,
      query: options.query,
      body,
      multipart: options.multipart !== undefined,
      appKey: config.appKey,
      appSecret: config.appSecret,
      // The seller's own calls (its responsible persons, manufacturers, size charts) refuse a shop_cipher.
      cipher: options.shopless ? null : cipher,
      now: deps.clock.now(),
    });
  }

  /** One call, paced with the other calls of its API, its answer read by `parse`. */
  async function send<T>(
    call: ListingsCall,
    method: Method,
    path: string,
    parse: (status: number, body: unknown) => T,
    options: OpenApiOptions = {},
  ): Promise<T> {
    const cipher = call.data.cipher;
    if (typeof cipher !== 'string' || cipher === '')
      throw new PlatformError('rejected', 'The site has no TikTok Shop shop cipher; connect the shop again.');
    // TikTok's limit is per shop and API (listings.md §2.8): each API is paced apart, ids out of its path.
    const budget = `${method} ${path.replace(/\/[0-9]+(?=\/|$)/g, '/{id}')}`;
    call.onLimits?.(LIMITS, budget);
    await call.beforeCall?.(budget);
    const url = urlOf(path, options.json === undefined ? '' : JSON.stringify(options.json), cipher, options);
    const headers: Record<string, string> = { 'x-tts-access-token': call.accessToken };
    // TikTok wants the JSON content type on every call that is not an upload, a GET included (platforms.md §2.6).
    if (!options.multipart) headers['content-type'] = 'application/json';
    const answer = await deps.http.request(url, {
      method,
      headers,
      signal: call.signal,
      ...(options.json === undefined ? {} : { json: options.json }),
      ...(options.multipart ? { multipart: options.multipart } : {}),
    });
    return readAnswer(answer, parse);
  }

  return { send };
}

export type OpenApi = ReturnType<typeof createOpenApi>;
