/**
 * The sandbox Amazon Ads' throttling: one token bucket per profile for every Sponsored Products and reporting call,
 * refilled from the sandbox clock (no timers), one token a call. ASSUMPTION: 10 calls a second with a burst of 10;
 * Amazon documents its limits as dynamic and names none (listings.md §4: "429 + Retry-After").
 */
import type { SandboxContext } from '../context.js';

export const ADS_RATE = { perSecond: 10, burst: 10 } as const;

/** What a test or a load sets: the rate and burst times `multiplier` (1 is the sandbox's default). */
export interface AdsLimits {
  multiplier: number;
}

const limitsOf = new WeakMap<SandboxContext, AdsLimits>();

/** The throttling multiplier of a running sandbox, read at each call. */
export function amazonAdsLimits(context: SandboxContext): AdsLimits {
  let limits = limitsOf.get(context);
  if (!limits) limitsOf.set(context, (limits = { multiplier: 1 }));
  return limits;
}

/** Scales the Ads throttling of a running sandbox (tests, load): 1 is the default, 1000000 all but no limit. */
export function setAmazonAdsRateLimit(context: SandboxContext, multiplier: number): void {
  amazonAdsLimits(context).multiplier = multiplier;
}

export type AdsVerdict = { allowed: true } | { allowed: false; retryAfterSeconds: number };

/** The buckets of every profile; a changed multiplier starts each bucket afresh, full. A refused call spends nothing. */
export function createAdsBuckets(context: SandboxContext) {
  const buckets = new Map<string, { tokens: number; at: number; multiplier: number }>();
  return {
    spend(profileId: string): AdsVerdict {
      const { multiplier } = amazonAdsLimits(context);
      const rate = ADS_RATE.perSecond * multiplier;
      const burst = Math.max(1, ADS_RATE.burst * multiplier);
      const now = context.clock.nowMs();
      const found = buckets.get(profileId);
      const bucket = found && found.multiplier === multiplier ? found : { tokens: burst, at: now, multiplier };
      bucket.tokens = Math.min(burst, bucket.tokens + (Math.max(0, now - bucket.at) / 1000) * rate);
      bucket.at = now;
      buckets.set(profileId, bucket);
      if (bucket.tokens < 1) return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil((1 - bucket.tokens) / rate)) };
      bucket.tokens -= 1;
      return { allowed: true };
    },
  };
}
