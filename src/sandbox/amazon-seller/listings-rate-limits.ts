/**
 * SP-API's usage plans for the operations the sandbox serves (listings.md §3.11, the operations' own Usage Plan tables
 * in amzn/selling-partner-api-models): a token bucket per selling partner and operation, `rate` tokens a second up to
 * `burst`, one token a call, refilled from the clock (no timers). `x-amzn-RateLimit-Limit` tells the rate.
 */
import type { Clock } from '../../lib/clock.js';
import type { SandboxContext } from '../context.js';

export type SpApiOperation =
  | 'getListingsItem'
  | 'putListingsItem'
  | 'patchListingsItem'
  | 'deleteListingsItem'
  | 'searchListingsItems'
  | 'searchDefinitionsProductTypes'
  | 'getDefinitionsProductType'
  | 'createReport'
  | 'getReport'
  | 'getReportDocument'
  | 'createFeedDocument'
  | 'createFeed'
  | 'getFeed'
  | 'getFeedDocument'
  | 'searchOrders'
  | 'getOrder'
  | 'createDestination'
  | 'getDestinations'
  | 'getDestination'
  | 'deleteDestination'
  | 'createSubscription'
  | 'getSubscription'
  | 'getSubscriptionById'
  | 'deleteSubscriptionById';

/**
 * The default plans: the Listings Items and Product Type Definitions models, Reports and Feeds 2021-06-30's, Orders
 * 2026-01-01's and the Notifications API v1's (1 a second, burst 5, for every operation).
 */
export const USAGE_PLANS: Readonly<Record<SpApiOperation, { rate: number; burst: number }>> = {
  getListingsItem: { rate: 5, burst: 10 },
  putListingsItem: { rate: 5, burst: 10 },
  patchListingsItem: { rate: 5, burst: 5 },
  deleteListingsItem: { rate: 5, burst: 5 },
  searchListingsItems: { rate: 5, burst: 5 },
  searchDefinitionsProductTypes: { rate: 5, burst: 10 },
  getDefinitionsProductType: { rate: 5, burst: 10 },
  createReport: { rate: 0.0167, burst: 15 },
  getReport: { rate: 2, burst: 15 },
  getReportDocument: { rate: 0.0167, burst: 15 },
  createFeedDocument: { rate: 0.5, burst: 15 },
  createFeed: { rate: 0.0083, burst: 15 },
  getFeed: { rate: 2, burst: 15 },
  getFeedDocument: { rate: 0.0222, burst: 10 },
  searchOrders: { rate: 0.0056, burst: 20 },
  getOrder: { rate: 0.5, burst: 30 },
  createDestination: { rate: 1, burst: 5 },
  getDestinations: { rate: 1, burst: 5 },
  getDestination: { rate: 1, burst: 5 },
  deleteDestination: { rate: 1, burst: 5 },
  createSubscription: { rate: 1, burst: 5 },
  getSubscription: { rate: 1, burst: 5 },
  getSubscriptionById: { rate: 1, burst: 5 },
  deleteSubscriptionById: { rate: 1, burst: 5 },
};

/**
 * What a test or a load sets: every plan's rate and burst times `multiplier` (1 is Amazon's defaults), or times a
 * seller's own (`perSeller`, by selling partner id): Amazon may give one selling partner other rates than the default
 * plan, and says so in `x-amzn-RateLimit-Limit`.
 */
export interface AmazonLimits {
  multiplier: number;
  perSeller: Map<string, number>;
}

// Kept beside the context rather than in it: one state per running sandbox, found from its context.
const limitsOf = new WeakMap<SandboxContext, AmazonLimits>();

/** The Amazon usage plans' multiplier of a running sandbox, read at each call. */
export function amazonLimits(context: SandboxContext): AmazonLimits {
  let limits = limitsOf.get(context);
  if (!limits) limitsOf.set(context, (limits = { multiplier: 1, perSeller: new Map() }));
  return limits;
}

/**
 * Scales every SP-API usage plan of a running sandbox (tests, load): 1 is Amazon's defaults, 1000 all but no limit.
 * With `sellerId`, that selling partner's plans only (every seller's setting is dropped by a setting for all).
 */
export function setAmazonSellerRateLimit(context: SandboxContext, multiplier: number, sellerId?: string): void {
  const limits = amazonLimits(context);
  if (sellerId === undefined) {
    limits.multiplier = multiplier;
    limits.perSeller.clear();
  } else limits.perSeller.set(sellerId, multiplier);
}

export interface RateVerdict {
  allowed: boolean;
  /** The rate applied, as `x-amzn-RateLimit-Limit` says it ("5.0"). */
  limitHeader: string;
}

/**
 * The buckets of every selling partner and operation; a refused call spends nothing. A changed multiplier starts each
 * bucket afresh, full, so a test that raises the limits is not held by a bucket it emptied before.
 */
export function createSpApiBuckets(limits: AmazonLimits, clock: Clock) {
  const buckets = new Map<string, { tokens: number; at: number; multiplier: number }>();
  return {
    spend(sellerId: string, operation: SpApiOperation): RateVerdict {
      const plan = USAGE_PLANS[operation];
      const multiplier = limits.perSeller.get(sellerId) ?? limits.multiplier;
      const rate = plan.rate * multiplier;
      const burst = Math.max(1, plan.burst * multiplier);
      const now = clock.nowMs();
      const key = `${sellerId}:${operation}`;
      const found = buckets.get(key);
      const bucket = found && found.multiplier === multiplier ? found : { tokens: burst, at: now, multiplier };
      bucket.tokens = Math.min(burst, bucket.tokens + (Math.max(0, now - bucket.at) / 1000) * rate);
      bucket.at = now;
      buckets.set(key, bucket);
      const allowed = bucket.tokens >= 1;
      if (allowed) bucket.tokens -= 1;
      return { allowed, limitHeader: Number.isInteger(rate) ? rate.toFixed(1) : String(Number(rate.toPrecision(6))) };
    },
  };
}
