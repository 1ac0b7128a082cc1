/**
 * What stands before every SP-API call of the sandbox's listings, definitions, reports, orders and notifications
 * (listings.md §3.1, §3.11): a fault a test set (`POST /sandbox/faults {track: 'amazon-seller', endpoint:
 * 'listings'|'listing'}`), the LWA access token in `x-amz-access-token` (of this region, of a grant not revoked), the
 * selling partner's usage plan for the operation (429 `QuotaExceeded`), the `sellerId` of the path (403), and the
 * `marketplaceIds` (400 `InvalidInput`). A grantless operation (`admitGrantless`) takes instead a token of LWA's client
 * credentials grant with the operation's scope. Every answer carries `x-amzn-RequestId`, and from the usage plan on,
 * `x-amzn-RateLimit-Limit`. Errors are SP-API's ErrorList `{errors: [{code, message, details}]}`.
 */
import { randomUUID } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AmazonRegion } from '../../domain/index.js';
import { SANDBOX_MARKETPLACES, type SandboxMarketplace } from '../amazon-marketplaces.js';
import { countCall, isRevoked, type SandboxContext } from '../context.js';
import type { FaultAnswers } from '../faults.js';
import { type LwaSimulator, sandboxSellerId } from '../lwa/simulator.js';
import { amazonLimits, createSpApiBuckets, type SpApiOperation } from './listings-rate-limits.js';
import { marketplaceOf } from './product-types.js';

const TRACK = 'amazon-seller';

/** SP-API's error answer. */
export const spApiErrors = (code: string, message: string, details = '') => ({ errors: [{ code, message, details }] });

/**
 * SP-API's refusal of an access token: 403 `Unauthorized` "Access to requested resource is denied." with the token's
 * fault in `details` (amzn/selling-partner-api-models issues 2333 and 230: a revoked one); the same message with empty
 * details is an app without the role (issues 713, 943). ASSUMPTION: an expired token's details read "The access token
 * you provided has expired." (no primary source quotes it).
 */
export const DENIED = 'Access to requested resource is denied.';
export const tokenRefusal = (expired: boolean) =>
  spApiErrors(
    'Unauthorized',
    DENIED,
    expired ? 'The access token you provided has expired.' : 'The access token you provided is revoked, malformed or invalid.',
  );

const QUOTA_EXCEEDED = spApiErrors('QuotaExceeded', 'You exceeded your quota for the requested resource.');
const INTERNAL_FAILURE = spApiErrors('InternalFailure', 'We encountered an internal error. Please try again.');

/** The error classes a test can ask for, in SP-API's words (as on the Sellers API, simulator.ts). */
const FAULT_ANSWERS: FaultAnswers = {
  error: INTERNAL_FAILURE,
  refused: { status: 403, body: tokenRefusal(false) },
  misconfigured: { status: 403, body: spApiErrors('Unauthorized', DENIED) },
  passing: { status: 503, body: spApiErrors('ServiceUnavailable', 'Service temporarily unavailable.') },
  throttled: { status: 429, body: QUOTA_EXCEEDED },
};

export interface SpApiAccess {
  operation: SpApiOperation;
  /** `listings` for searches, definitions, reports and orders; `listing` for one SKU's read and writes. */
  fault: 'listings' | 'listing';
  /**
   * The 429's message where the operation's model words it otherwise (Orders 2026-01-01: "The frequency of requests
   * was greater than allowed."); else the Listings Items models' "You exceeded your quota for the requested resource."
   */
  throttled?: string;
  /** The `{sellerId}` of the path, which must be the token's selling partner. */
  sellerId?: string;
}

export interface Caller {
  account: number;
  sellerId: string;
  /** The marketplaces of the token's region: the ones the seller participates in through this endpoint. */
  marketplaces: readonly SandboxMarketplace[];
  query: Record<string, string>;
}

export type SpApiGuard = ReturnType<typeof createSpApiGuard>;

/**
 * ASSUMPTION: whose bucket a grantless call spends is not documented (no selling partner is named); the sandbox keeps
 * one per application.
 */
const GRANTLESS_CALLER = 'application';

/** A comma-delimited list of allowed names, or the default when absent; null for a name not allowed. */
export function listOf<T extends string>(raw: string | undefined, allowed: readonly T[], fallback: readonly T[]): T[] | null {
  if (raw === undefined || raw === '') return [...fallback];
  const names = raw.split(',').map((name) => name.trim());
  return names.every((name) => allowed.includes(name as T)) ? (names as T[]) : null;
}

/** A query's values as text; a repeated parameter is read as the comma-delimited list SP-API takes. */
function queryOf(raw: unknown): Record<string, string> {
  const values: Record<string, string> = {};
  for (const [key, value] of Object.entries((raw ?? {}) as Record<string, unknown>))
    values[key] = Array.isArray(value) ? value.map(String).join(',') : String(value);
  return values;
}

export function createSpApiGuard(context: SandboxContext, lwa: LwaSimulator, region: AmazonRegion) {
  const buckets = createSpApiBuckets(amazonLimits(context), context.clock);

  const fail = (reply: FastifyReply, status: number, code: string, message: string) => reply.code(status).send(spApiErrors(code, message));

  /** Counts the call and checks it; the caller, or null once an answer was sent. */
  const admit = async (request: FastifyRequest, reply: FastifyReply, access: SpApiAccess): Promise<Caller | null> => {
    countCall(context, TRACK, access.operation);
    void reply.header('x-amzn-RequestId', randomUUID());
    if (await context.faults.apply(TRACK, access.fault, reply, FAULT_ANSWERS)) return null;
    const token = String(request.headers['x-amz-access-token'] ?? '');
    const grant = lwa.readAccessToken(token);
    // ASSUMPTION: an access token of a grant the seller revoked is refused at once, as a malformed one is.
    if (!grant || grant.region !== region || isRevoked(context, TRACK, grant.account)) {
      void reply.code(403).send(tokenRefusal(lwa.isExpiredAccessToken(token)));
      return null;
    }
    const sellerId = sandboxSellerId(grant.account);
    const verdict = buckets.spend(sellerId, access.operation);
    void reply.header('x-amzn-RateLimit-Limit', verdict.limitHeader);
    if (!verdict.allowed)
      return (void reply.code(429).send(access.throttled ? spApiErrors('QuotaExceeded', access.throttled) : QUOTA_EXCEEDED), null);
    if (access.sellerId !== undefined && access.sellerId !== sellerId) {
      void fail(reply, 403, 'Unauthorized', DENIED);
      return null;
    }
    return { account: grant.account, sellerId, marketplaces: SANDBOX_MARKETPLACES[region], query: queryOf(request.query) };
  };

  /**
   * Counts a grantless call and checks it: the fault, a client credentials token of `scope`, the usage plan. A seller's
   * token is refused with SP-API's "Access to requested resource is denied." (as getDestinations answered one in
   * jrl84/amazon-sp-api#20; ASSUMPTION: empty details, as for an app without the role). Null once an answer was sent.
   */
  const admitGrantless = async (
    request: FastifyRequest,
    reply: FastifyReply,
    access: { operation: SpApiOperation; scope: string },
  ): Promise<{ query: Record<string, string> } | null> => {
    countCall(context, TRACK, access.operation);
    void reply.header('x-amzn-RequestId', randomUUID());
    if (await context.faults.apply(TRACK, 'listings', reply, FAULT_ANSWERS)) return null;
    const token = String(request.headers['x-amz-access-token'] ?? '');
    const grantless = lwa.readGrantlessToken(token);
    if (!grantless || grantless.scope !== access.scope) {
      const body =
        grantless || lwa.readAccessToken(token) ? spApiErrors('Unauthorized', DENIED) : tokenRefusal(lwa.isExpiredGrantlessToken(token));
      void reply.code(403).send(body);
      return null;
    }
    const verdict = buckets.spend(GRANTLESS_CALLER, access.operation);
    void reply.header('x-amzn-RateLimit-Limit', verdict.limitHeader);
    if (!verdict.allowed) return (void reply.code(429).send(QUOTA_EXCEEDED), null);
    return { query: queryOf(request.query) };
  };

  /**
   * The marketplaces of `marketplaceIds`, each one the seller participates in here, at most `max`; null once a 400
   * was answered. ASSUMPTION: the wording of these refusals (the code, InvalidInput, is SP-API's for bad parameters).
   */
  const marketplacesOf = (reply: FastifyReply, caller: Caller, max = Number.POSITIVE_INFINITY): SandboxMarketplace[] | null => {
    const ids = (caller.query.marketplaceIds ?? '').split(',').filter(Boolean);
    if (ids.length === 0) return (void fail(reply, 400, 'InvalidInput', "Missing required 'marketplaceIds'."), null);
    if (ids.length > max)
      return (
        void fail(reply, 400, 'InvalidInput', `Only ${max} marketplaceId${max === 1 ? '' : 's'} can be given for this operation.`), null
      );
    const unknown = ids.find((id) => !caller.marketplaces.some((marketplace) => marketplace.id === id));
    if (unknown !== undefined) {
      const exists = marketplaceOf(unknown) !== undefined;
      const why = exists
        ? 'is not a marketplace the seller participates in through this endpoint'
        : 'is not a valid marketplace identifier';
      return (void fail(reply, 400, 'InvalidInput', `Invalid 'marketplaceIds' provided: ${unknown} ${why}.`), null);
    }
    return ids.map((id) => caller.marketplaces.find((marketplace) => marketplace.id === id)!);
  };

  /** The route's answer, or SP-API's 500 after the work when the test set `ghost` on its endpoint. */
  const answer = (reply: FastifyReply, fault: 'listings' | 'listing', body: unknown, status = 200) => {
    if (context.faults.ghosts(TRACK, fault)) return reply.code(500).send(INTERNAL_FAILURE);
    return reply.code(status).send(body);
  };

  return { admit, admitGrantless, marketplacesOf, answer, fail };
}
