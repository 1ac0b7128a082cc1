/**
 * What stands before every Sponsored Products and reporting call of the sandbox Amazon Ads (listings.md §4), in the
 * order the checks run: a fault a test set (`POST /sandbox/faults {track: 'amazon-ads', endpoint: 'advertising' |
 * 'reports'}`), `Amazon-Advertising-API-ClientId` (401), `Authorization: Bearer` an access token of this region whose
 * grant was not revoked (401), `Amazon-Advertising-API-Scope` one of the account's profiles in this region (400 when
 * missing, 403 otherwise), the profile's token bucket (429 with `Retry-After`), then the vendor media type of the
 * body (415) and of the answer (406). Refusals are the Ads API's `{code, details}`.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AmazonRegion } from '../../domain/index.js';
import { countCall, isRevoked, SANDBOX_CLIENTS, type SandboxContext } from '../context.js';
import type { LwaSimulator } from '../lwa/simulator.js';
import { type SandboxProfile, sandboxProfiles } from './profiles.js';
import { createAdsBuckets } from './rate-limits.js';
import { ADS_FAULT_ANSWERS, adsError } from './sp-errors.js';

const TRACK = 'amazon-ads';

export interface AdsAccess {
  /** The name the call is counted under (`amazon-ads:<endpoint>` in context.calls). */
  endpoint: string;
  fault: 'advertising' | 'reports';
  /** The media type the body must be sent as; null for a call without a body. */
  contentType: string | null;
  /** The media types the answer can be given as; a request without Accept takes any (RFC 9110 §12.5.1). */
  accept: readonly string[];
}

export interface AdsCaller {
  account: number;
  profile: SandboxProfile;
  /** The profile id as the Scope header named it. */
  profileId: string;
}

export type AdsGuard = ReturnType<typeof createAdsGuard>;

/** A media type without its parameters, in lower case (media types are case-insensitive, RFC 9110 §8.3.1). */
const bareType = (value: string) => value.split(';')[0]!.trim().toLowerCase();

/** True when an Accept header allows one of the types the call answers in. */
function acceptable(header: string | undefined, types: readonly string[]): boolean {
  if (header === undefined || header.trim() === '') return true;
  const wanted = types.map((type) => type.toLowerCase());
  return header.split(',').some((range) => {
    const type = bareType(range);
    return type === '*/*' || wanted.includes(type);
  });
}

export function createAdsGuard(context: SandboxContext, lwa: LwaSimulator, region: AmazonRegion) {
  const buckets = createAdsBuckets(context);
  const refuse = (reply: FastifyReply, status: number, code: string, details: string) =>
    void reply.code(status).send(adsError(code, details));

  /** The grant behind the call's headers, or null once a 401 was answered. */
  const grantOf = (request: FastifyRequest, reply: FastifyReply) => {
    if (request.headers['amazon-advertising-api-clientid'] !== SANDBOX_CLIENTS.amazonAds.clientId)
      return (refuse(reply, 401, 'UNAUTHORIZED', 'Invalid Amazon-Advertising-API-ClientId'), null);
    const bearer = /^Bearer (\S+)$/.exec(String(request.headers.authorization ?? ''));
    const grant = bearer ? lwa.readAccessToken(bearer[1]!) : null;
    // ASSUMPTION: an access token of a grant the seller revoked is refused at once, as a malformed one is.
    if (grant === null || grant.region !== region || isRevoked(context, TRACK, grant.account))
      return (refuse(reply, 401, 'UNAUTHORIZED', 'Not authorized to access this advertiser'), null);
    return grant;
  };

  /**
   * The profile the Scope header names, or null once refused. ASSUMPTION: the wording of both refusals ("Scope header
   * is missing" is what Amazon answered in amzn/amazon-advertising-api-php-sdk#11).
   */
  const profileOf = (request: FastifyRequest, reply: FastifyReply, account: number, withProfiles: boolean) => {
    const scope = request.headers['amazon-advertising-api-scope'];
    if (typeof scope !== 'string' || scope.trim() === '')
      return (refuse(reply, 400, '400', 'Amazon-Advertising-API-Scope header is missing'), null);
    const profile = sandboxProfiles(account, region, withProfiles).find((each) => String(each.profileId) === scope.trim());
    if (!profile) return (refuse(reply, 403, 'UNAUTHORIZED', `Not authorized to access scope ${scope.trim()}`), null);
    return profile;
  };

  /** The media types: the body's (415) and the answer's (406). */
  const mediaRefused = (request: FastifyRequest, reply: FastifyReply, access: AdsAccess): boolean => {
    const sent = request.headers['content-type'];
    if (access.contentType !== null && (sent === undefined || bareType(sent) !== access.contentType.toLowerCase())) {
      refuse(reply, 415, 'UNSUPPORTED_MEDIA_TYPE', `Content-Type must be ${access.contentType}`);
      return true;
    }
    if (!acceptable(request.headers.accept, access.accept)) {
      refuse(reply, 406, 'NOT_ACCEPTABLE', `Accept must allow ${access.accept.join(' or ')}`);
      return true;
    }
    return false;
  };

  /** Counts the call and checks it; the caller, or null once an answer was sent. */
  const admit = async (request: FastifyRequest, reply: FastifyReply, access: AdsAccess): Promise<AdsCaller | null> => {
    countCall(context, TRACK, access.endpoint);
    if (await context.faults.apply(TRACK, access.fault, reply, ADS_FAULT_ANSWERS)) return null;
    const grant = grantOf(request, reply);
    if (!grant) return null;
    const profile = profileOf(request, reply, grant.account, grant.claims.profiles !== false);
    if (!profile) return null;
    const verdict = buckets.spend(String(profile.profileId));
    if (!verdict.allowed) {
      void reply.code(429).header('retry-after', String(verdict.retryAfterSeconds)).send(adsError('429', 'Too Many Requests'));
      return null;
    }
    if (mediaRefused(request, reply, access)) return null;
    return { account: grant.account, profile, profileId: String(profile.profileId) };
  };

  /** The route's answer, or the Ads API's 500 after the work when the test set `ghost` on the endpoint. */
  const answer = (reply: FastifyReply, fault: AdsAccess['fault'], status: number, body: unknown) => {
    if (context.faults.ghosts(TRACK, fault)) return reply.code(500).send(ADS_FAULT_ANSWERS.error);
    return reply.code(status).send(body);
  };

  return { admit, answer, refuse };
}
