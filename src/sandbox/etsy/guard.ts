/**
 * What stands before every listing-side route of the Etsy simulator, in the order Etsy's answers suggest: a fault a
 * test set, the `x-api-key` (403), the key's rate limits (429, headers on every answer; listings.md §1.10), then for
 * OAuth routes the bearer (401), a revoked grant (401 `invalid_token`), the scope (403 `insufficient_scope`) and the
 * shop of the path (403).
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { countCall, isRevoked, type SandboxContext } from '../context.js';
import type { FaultAnswers, FaultyEndpoint } from '../faults.js';
import { bearerGrant, CLIENT, type Grant, hasApiKey, hasScope, NO_SHARED_SECRET, shopIdOf } from './api-access.js';
import { createRateBudget } from './rate-limits.js';

/** Etsy's words for each fault class on the listing endpoints, as on getMe (simulator.ts). */
const FAULT_ANSWERS: FaultAnswers = {
  error: { error: 'Server Error' },
  refused: { status: 401, body: { error: 'invalid_token', error_description: 'access token is revoked' } },
  misconfigured: { status: 403, body: NO_SHARED_SECRET },
  passing: { status: 503, body: { error: 'Service Unavailable' } },
  throttled: { status: 429, body: { error: 'You have exceeded your quota of requests' } },
};

export interface RouteAccess {
  /** Etsy's operation id, counted as `etsy:<operation>` in the sandbox's calls. */
  operation: string;
  /** The fault endpoint the route answers for; none for shop setup and taxonomy. */
  fault?: FaultyEndpoint;
}

export interface GrantAccess extends RouteAccess {
  scope: string;
  /** The `{shop_id}` of the path, which must be the token's shop. */
  shopId?: string;
}

export type EtsyGuard = ReturnType<typeof createEtsyGuard>;

export function createEtsyGuard(context: SandboxContext) {
  const budget = createRateBudget(context.etsyLimits, context.clock);

  /** Counts the call, answers a fault, checks the key and spends its budget; false once an answer was sent. */
  const admitKey = async (request: FastifyRequest, reply: FastifyReply, access: RouteAccess): Promise<boolean> => {
    countCall(context, 'etsy', access.operation);
    if (access.fault && (await context.faults.apply('etsy', access.fault, reply, FAULT_ANSWERS))) return false;
    if (!hasApiKey(request, reply)) return false;
    const verdict = budget.spend(CLIENT.clientId);
    void reply.headers(verdict.headers);
    if (verdict.allowed) return true;
    // ASSUMPTION: Etsy's older page says a 429 comes without the limit headers; the newer one is silent, so they stay.
    void reply
      .code(429)
      .header('retry-after', String(verdict.retryAfterSeconds))
      .send({ error: 'You have exceeded your quota of requests' });
    return false;
  };

  /** admitKey, then the bearer, its scope and the path's shop; the grant, or null once an answer was sent. */
  const admitGrant = async (request: FastifyRequest, reply: FastifyReply, access: GrantAccess): Promise<Grant | null> => {
    if (!(await admitKey(request, reply, access))) return null;
    const grant = bearerGrant(context, request.headers, reply);
    if (!grant) return null;
    if (isRevoked(context, 'etsy', grant.account)) {
      // A grant the user revoked stops its access tokens too, as a password change does (platforms.md §1.4).
      void reply.code(401).send({ error: 'invalid_token', error_description: 'access token is revoked' });
      return null;
    }
    if (!hasScope(grant, access.scope)) {
      void reply.code(403).send({ error: 'insufficient_scope', error_description: `Insufficient scope: ${access.scope} is required` });
      return null;
    }
    if (access.shopId !== undefined && (grant.noShop || access.shopId !== String(shopIdOf(grant.account)))) {
      void reply.code(403).send({ error: 'The shop_id in the path is not the shop of the access token.' });
      return null;
    }
    return grant;
  };

  /** Sends the route's answer, or Etsy's 500 after the work when the test set `ghost` on its endpoint (listings.md §1.11). */
  const answer = (reply: FastifyReply, fault: FaultyEndpoint, status: number, body?: unknown) => {
    if (context.faults.ghosts('etsy', fault)) return reply.code(500).send(FAULT_ANSWERS.error);
    return body === undefined ? reply.code(status).send() : reply.code(status).send(body);
  };

  return { admitKey, admitGrant, answer };
}
