/**
 * The sandbox's own routes around the Amazon Ads, at `/sandbox/amazon-ads` without auth (sandbox only), as the seller
 * simulator has its inspection and limits: what a profile holds on the simulated Amazon, and the throttling multiplier.
 */
import type { FastifyInstance } from 'fastify';
import type { SandboxContext } from '../context.js';
import { ADS_RATE, amazonAdsLimits, setAmazonAdsRateLimit } from './rate-limits.js';
import { type AdsStore, heldBy } from './sp-store.js';

export function registerAdsSandboxRoutes(app: FastifyInstance, context: SandboxContext, store: AdsStore) {
  // `GET /sandbox/amazon-ads/state?profile_id=…`: the profile's campaigns, ad groups, product ads and keywords, oldest first.
  app.get('/state', async (request, reply) => {
    const profileId = (request.query as { profile_id?: unknown }).profile_id;
    if (typeof profileId !== 'string' || !/^[0-9]{1,20}$/.test(profileId))
      return reply.code(400).send({ error: 'profile_id must be an advertising profile id' });
    return heldBy(store, profileId);
  });

  app.get('/limits', async () => ({
    multiplier: amazonAdsLimits(context).multiplier,
    per_second: ADS_RATE.perSecond,
    burst: ADS_RATE.burst,
  }));
  app.post('/limits', async (request, reply) => {
    const { multiplier } = (request.body ?? {}) as { multiplier?: unknown };
    if (typeof multiplier !== 'number' || !(multiplier > 0) || multiplier > 1e9)
      return reply
        .code(400)
        .send({ error: 'multiplier must be a number above 0 (1 is the sandbox default of 10 calls a second per profile)' });
    setAmazonAdsRateLimit(context, multiplier);
    return reply.code(204).send();
  });
}
