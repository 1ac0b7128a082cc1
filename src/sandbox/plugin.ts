/** Serves every simulator under /sandbox/{track}, with form bodies accepted there only (the API stays JSON-only). */
import formbody from '@fastify/formbody';
import type { FastifyInstance } from 'fastify';
import { AMAZON_REGIONS, TRACKS, type Track } from '../domain/index.js';
import { createAmazonAdsLwa, registerAmazonAdsSimulator } from './amazon-ads/simulator.js';
import { createAmazonSellerLwa, registerAmazonSellerSimulator } from './amazon-seller/simulator.js';
import { countCall, type SandboxContext } from './context.js';
import { registerEtsySimulator } from './etsy/simulator.js';
import { FAULTS, FAULTY_ENDPOINTS, type Fault, type FaultyEndpoint, GHOSTLY_ENDPOINTS } from './faults.js';
import { createStateSaver, refill, registerStatePart, restoreParts, type SandboxStateStore } from './state.js';
import { registerTikTokShopSimulator } from './tiktok-shop/simulator.js';

// The consent form's POST is answered with a redirect to the callback and on to the caller's own URL, so the page
// must allow form submissions to end anywhere; everything else stays locked down.
const CONSENT_PAGE_CSP = "default-src 'none'; style-src 'unsafe-inline'; form-action *; frame-ancestors 'none'; base-uri 'none'";

const READS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'OPTIONS']);

export async function registerSandbox(app: FastifyInstance, context: SandboxContext): Promise<void> {
  await app.register(
    async (sandbox) => {
      await sandbox.register(formbody);
      sandbox.addHook('onRoute', (route) => void (route.schema = { ...route.schema, hide: true }));
      sandbox.addHook('onSend', async (_request, reply, payload) => {
        if (String(reply.getHeader('content-type') ?? '').startsWith('text/html'))
          reply.header('content-security-policy', CONSENT_PAGE_CSP);
        return payload;
      });
      // Every 429 a simulated platform answers (its rate limits, or a `throttled` fault), counted as `{track}:throttled`
      // in GET /calls: a client meant to stay within the limits can be shown to have caused none. Each is counted by its
      // route as well (`{track}:throttled GET /orders/2026-01-01/orders/:orderId`), so a 429 says which call met it.
      sandbox.addHook('onResponse', async (request, reply) => {
        if (reply.statusCode !== 429) return;
        const track = request.url.split('/')[2];
        if (!TRACKS.includes(track as Track)) return;
        countCall(context, track as Track, 'throttled');
        const route = request.routeOptions.url?.replace(`/sandbox/${track}`, '') ?? '';
        countCall(context, track as Track, `throttled ${request.method} ${route}`);
      });
      // The sandbox's stand-in for a user revoking the app on the platform: that account's refresh tokens stop working.
      sandbox.post('/revoke', async (request, reply) => {
        const { track, account } = (request.body ?? {}) as { track?: unknown; account?: unknown };
        if (!TRACKS.includes(track as Track) || !/^[0-9]{1,6}$/.test(String(account))) {
          return reply.code(400).send({ error: 'track must be one of ' + TRACKS.join(', ') + ' and account a sandbox account number' });
        }
        context.revokedGrants.add(`${String(track)}:${Number(account)}`);
        for (const listener of context.revokeListeners) listener(track as Track, Number(account));
        return reply.code(204).send();
      });
      // Faults a tester can set on a running server, as the tests do in process: the next token or identity calls of a
      // track answer 500, time out, reset, answer malformed JSON or answer late (`delay_ms`), or answer with one of the
      // platform's error classes (`refused`, `misconfigured`, `passing`, `throttled` with `retry_after` seconds); Etsy's
      // listing endpoints and Amazon Ads' `advertising` can also `ghost`: write, then answer 500.
      sandbox.post('/faults', async (request, reply) => {
        const { track, endpoint, fault, delay_ms: delay, retry_after: retryAfter } = (request.body ?? {}) as Record<string, unknown>;
        const valid =
          TRACKS.includes(track as Track) &&
          FAULTY_ENDPOINTS.includes(endpoint as FaultyEndpoint) &&
          (fault === 'none' || FAULTS.includes(fault as Fault)) &&
          (fault !== 'ghost' || GHOSTLY_ENDPOINTS.includes(endpoint as FaultyEndpoint));
        const count = (value: unknown) => value === undefined || /^[0-9]{1,7}$/.test(String(value));
        if (!valid || !count(delay) || !count(retryAfter)) {
          return reply.code(400).send({
            error: `track must be one of ${TRACKS.join(', ')}, endpoint ${FAULTY_ENDPOINTS.join(' or ')}, fault ${FAULTS.join(', ')} or none`,
          });
        }
        context.faults.set(String(track), endpoint as FaultyEndpoint, fault === 'none' ? null : (fault as Fault), {
          ...(delay === undefined ? {} : { delayMs: Number(delay) }),
          ...(retryAfter === undefined ? {} : { retryAfterSeconds: Number(retryAfter) }),
        });
        return reply.code(204).send();
      });
      // Etsy's call budget of the app's key (listings.md §1.10: 10 a second and 10,000 a day unless Etsy raised them),
      // for a tester watching pacing, or a load that should not wait on it.
      sandbox.post('/limits', async (request, reply) => {
        const { per_second: perSecond, per_day: perDay } = (request.body ?? {}) as Record<string, unknown>;
        const count = (value: unknown) => /^[1-9][0-9]{0,9}$/.test(String(value));
        if (!count(perSecond) || !count(perDay))
          return reply.code(400).send({ error: 'per_second and per_day must be positive whole numbers' });
        Object.assign(context.etsyLimits, { perSecond: Number(perSecond), perDay: Number(perDay) });
        return reply.code(204).send();
      });
      // What the simulated platforms were asked, per `track:endpoint` (for example `etsy:token`).
      sandbox.get('/calls', async () => Object.fromEntries(context.calls));
      await sandbox.register(async (etsy) => registerEtsySimulator(etsy, context), { prefix: '/etsy' });
      // Amazon's regions: NA at the track's own base, EU and FE under /eu and /fe of it (platforms/registry.ts).
      const sellerLwa = createAmazonSellerLwa(context);
      const adsLwa = createAmazonAdsLwa(context);
      await sandbox.register(async (lwa) => sellerLwa.registerTokenEndpoint(lwa, null), { prefix: '/amazon-seller' });
      for (const region of AMAZON_REGIONS) {
        const suffix = region === 'NA' ? '' : `/${region.toLowerCase()}`;
        await sandbox.register(async (seller) => registerAmazonSellerSimulator(seller, context, region, sellerLwa), {
          prefix: `/amazon-seller${suffix}`,
        });
        await sandbox.register(async (ads) => registerAmazonAdsSimulator(ads, context, region, adsLwa), { prefix: `/amazon-ads${suffix}` });
      }
      await sandbox.register(async (tiktokShop) => registerTikTokShopSimulator(tiktokShop, context), { prefix: '/tiktok-shop' });
      if (context.stateStore) await keepState(sandbox, context, context.stateStore);
    },
    { prefix: '/sandbox' },
  );
}

/**
 * Puts back what the simulators held when the server last stopped, then saves what each request changed (state.ts):
 * shortly after it, and once more when the server closes. The revocations of POST /sandbox/revoke are a part too.
 */
async function keepState(sandbox: FastifyInstance, context: SandboxContext, store: SandboxStateStore): Promise<void> {
  registerStatePart(context.stateParts, 'sandbox:revoked-grants', {
    save: () => context.revokedGrants,
    load: (state) => refill(context.revokedGrants, state as Set<string>),
  });
  const written = await restoreParts(context.stateParts, store, (part, error) =>
    sandbox.log.error({ part, err: error }, 'a saved sandbox state could not be read; that part starts empty'),
  );
  const saver = createStateSaver(context.stateParts, store, written, (error) =>
    sandbox.log.error({ err: error }, 'saving the sandbox state failed; it is tried again after the next request'),
  );
  // A read changes nothing kept that the clock does not settle again after a restart (an audit due, a submission
  // processed): only requests that may write ask for a save.
  sandbox.addHook('onResponse', async (request) => {
    if (!READS.has(request.method)) saver.changed();
  });
  sandbox.addHook('onClose', async () => saver.flush());
}
