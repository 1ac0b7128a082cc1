/**
 * SP-API calls as the listings adapter makes them: each to the region of the listing's marketplace, with the LWA access
 * token in `x-amz-access-token`, paced by the engine per operation at the rate Amazon last said (listings.md §3.11).
 */
import { DEFAULT_AMAZON_REGION } from '../../domain/index.js';
import type { Clock } from '../../lib/clock.js';
import { PlatformError } from '../contracts/errors.js';
import type { ListingProgress, ListingsCall, RateLimits } from '../contracts/listings.js';
import { type PlatformHttp, readAnswer } from '../http.js';
import type { AmazonSellerConfig } from './connect.js';
import { type AmazonMarketplace, marketplaceOf } from './listing-requests.js';

/** What the listings adapter's parts are made with: the outbound HTTP and the clock. */
export interface AmazonListingsDeps {
  http: PlatformHttp;
  clock: Clock;
}

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/**
 * SP-API's default usage plans (listings.md §3.11: rate per second, burst), per selling partner and operation. Each
 * operation's calls are paced by the engine to the rate (the burst is not counted on: the pace stays under the plan),
 * or to the one `x-amzn-RateLimit-Limit` says; a 429 from another instance's share is tried again after a back-off.
 * A rate under one a second (the reports') is left to Amazon's 429s.
 */
const PLANS = {
  getListingsItem: [5, 10],
  putListingsItem: [5, 10],
  patchListingsItem: [5, 5],
  deleteListingsItem: [5, 5],
  searchListingsItems: [5, 5],
  searchDefinitionsProductTypes: [5, 10],
  getDefinitionsProductType: [5, 10],
  createReport: [0.0167, 15],
  getReport: [2, 15],
  getReportDocument: [0.0167, 15],
  // Feeds 2021-06-30 (listings.md §3.10): a feed gathers many listings' changes, so one every two minutes serves.
  createFeedDocument: [0.5, 15],
  createFeed: [0.0083, 15],
  getFeed: [2, 15],
  getFeedDocument: [0.0222, 10],
  // Orders 2026-01-01 (orders.md §3): the search's rate is met by polling every three minutes (orders.ts).
  searchOrders: [0.0056, 20],
  getOrder: [0.5, 30],
  // Notifications v1 (order-notifications.ts): one of each a seller, the first time an instance reads its orders.
  getSubscription: [1, 5],
  createSubscription: [1, 5],
} as const;
export type Operation = keyof typeof PLANS;

/** The operation's default usage plan: calls a second and burst. */
export function usagePlan(operation: Operation): { rate: number; burst: number } {
  const [rate, burst] = PLANS[operation];
  return { rate, burst };
}

/** A rate as the engine's pacer hears it: whole calls a second (a rate under one is not paced). */
const limitsOf = (rate: number): RateLimits => ({
  perSecond: Math.floor(rate),
  remainingThisSecond: null,
  perDay: null,
  remainingToday: null,
});

/** The marketplace the listing is in: the one it was first delivered to, else the site's setting, else the site's first. */
export function marketplaceFor(call: ListingsCall, progress?: ListingProgress): AmazonMarketplace {
  const own = Array.isArray(call.data.marketplace_ids) ? call.data.marketplace_ids.map(String) : [];
  const id = progress?.delivered.marketplace ?? call.settings.marketplace_id ?? own[0];
  const found = marketplaceOf(id);
  if (found) return found;
  if (typeof id === 'string' && id !== '') {
    // A marketplace Storelink's table lacks: in the region of the site's own (connecting stored no region).
    const known = own.map(marketplaceOf).find(Boolean);
    return { id, region: known?.region ?? DEFAULT_AMAZON_REGION, country: '', site: '', currency: '', language: 'en_US' };
  }
  throw new PlatformError('misconfigured', 'The Amazon site has no marketplace: connect it again or set its marketplace.');
}

/** One SP-API call's query and JSON body. */
export interface SpApiOptions {
  query?: Record<string, string>;
  json?: unknown;
}

/**
 * The SP-API caller of one adapter: it remembers the rate Amazon last said for each selling partner, region and
 * operation. A usage plan is a selling partner's (listings.md §3.11): one seller's rate, lowered or raised, is never
 * another's, and a seller's rate in one region is not its rate in another.
 */
export function createSpApi(config: AmazonSellerConfig, http: PlatformHttp) {
  /** The rate per second Amazon last said (`x-amzn-RateLimit-Limit`) by `seller:region:operation`, over the plan's. */
  const rates = new Map<string, number>();

  /** One call of `operation`, paced apart from the others, its answer read by `parse`. */
  async function send<T>(
    call: ListingsCall,
    marketplace: AmazonMarketplace,
    operation: Operation,
    method: Method,
    path: string,
    parse: (status: number, body: unknown) => T,
    options: SpApiOptions = {},
  ): Promise<T> {
    // Each operation has its own usage plan per seller: the engine paces it apart, at the rate Amazon last said to it.
    const key = `${call.externalId}:${marketplace.region}:${operation}`;
    // INFERENCE: a region's plan is its own (each region is its own endpoint and its own authorization).
    const budget = `${marketplace.region}:${operation}`;
    call.onLimits?.(limitsOf(rates.get(key) ?? PLANS[operation][0]), budget);
    await call.beforeCall?.(budget);
    const query = new URLSearchParams(options.query ?? {}).toString();
    const base = config.regions[marketplace.region].apiUrl;
    const answer = await http.request(`${base}${path}${query ? `?${query}` : ''}`, {
      method,
      headers: { 'x-amz-access-token': call.accessToken },
      signal: call.signal,
      ...(options.json === undefined ? {} : { json: options.json }),
    });
    const said = Number(answer.headers?.get('x-amzn-RateLimit-Limit'));
    if (Number.isFinite(said) && said > 0) rates.set(key, said);
    return readAnswer(answer, parse);
  }

  return { send };
}

export type SpApi = ReturnType<typeof createSpApi>;
