/** Amazon Ads answers, parsed without I/O (platforms.md §4.2, §4.4). Token answers are LWA's (../lwa/responses.ts). */
import Type from 'typebox';
import type { AdvertisingProfile } from '../../domain/index.js';
import { isPassingFailure } from '../../lib/outbound-http.js';
import type { CallbackResult } from '../contracts/connect.js';
import { PlatformError } from '../contracts/errors.js';
import { parseBody } from '../parse.js';
import { ADS_SCOPE } from './requests.js';

/** A refused Ads API call: `{code, details}`, e.g. `{"code": "UNAUTHORIZED", "details": "Not authorized"}`. */
const AdsError = Type.Object({ details: Type.String() });

/** The answer of `GET /v2/profiles`, its entries checked one by one below so that each failure says what was wrong. */
const ProfileList = Type.Array(Type.Unknown());

/**
 * One profile (platforms.md §4.4). `profileId` is a JSON number in the docs; a string is taken too, as long as it is
 * not empty. Budget, time zone and the other `accountInfo` fields are not read.
 */
const Profile = Type.Object({
  profileId: Type.Union([Type.Number(), Type.String({ minLength: 1 })]),
  countryCode: Type.String({ minLength: 1 }),
  currencyCode: Type.Optional(Type.String({ minLength: 1 })),
  accountInfo: Type.Optional(
    Type.Object({ name: Type.Optional(Type.String()), marketplaceStringId: Type.Optional(Type.String({ minLength: 1 })) }),
  ),
});

/**
 * `?code=…&scope=…&state=…`, or RFC 6749 style `?error=access_denied&error_description=…&state=…` (the full LWA error
 * list is UNCONFIRMED, platforms.md §4.2). A granted scope without campaign management is of no use, so it is a failure.
 */
export function readCallback(query: Readonly<Record<string, string | undefined>>): CallbackResult {
  if (query.error)
    return query.error === 'access_denied'
      ? { kind: 'denied', message: 'Access denied' }
      : { kind: 'error', message: query.error_description || query.error };
  if (!query.code) return { kind: 'error', message: 'Amazon sent no authorization code' };
  if (query.scope !== undefined && !query.scope.split(' ').includes(ADS_SCOPE))
    return { kind: 'error', message: 'Amazon did not grant advertising access' };
  return { kind: 'code', code: query.code, params: query.scope !== undefined ? { scope: query.scope } : {} };
}

/**
 * `GET /v2/profiles` → `[{profileId, countryCode, accountInfo: {name, …}}, …]`, one per marketplace the account
 * advertises in, in the region of the host asked. Profile ids fit a double exactly (about 1.5e15), so JSON numbers are
 * safe to read. The marketplace and currency are kept to pick the profile that advertises a listing (DESIGN §13). An empty list is a refusal: the grant is of no use for advertising in that region.
 * Errors (`{code, details}`): 401 or 403 naming the `Amazon-Advertising-API-ClientId` is the app's configuration, other
 * 401 and 403 the seller's grant, 5xx and 429 passing, other 4xx the app's request.
 */
export function parseProfiles(status: number, body: unknown, region = 'NA'): AdvertisingProfile[] {
  if (isPassingFailure(status)) throw new PlatformError('unavailable', 'Amazon Ads could not complete the profile lookup');
  if (status >= 400) {
    const details = parseBody(AdsError, body)?.details;
    const operators = (status !== 401 && status !== 403) || /clientid/i.test(details ?? '');
    if (operators)
      throw new PlatformError('misconfigured', `Amazon Ads refused Storelink's app (HTTP ${status}${details ? `, ${details}` : ''})`);
    throw new PlatformError('rejected', details ?? 'Amazon Ads refused the profile lookup');
  }
  const entries = parseBody(ProfileList, body);
  if (!entries) throw new PlatformError('unavailable', 'Amazon Ads answered the profile lookup with something other than a list');
  if (entries.length === 0)
    throw new PlatformError(
      'rejected',
      `This Amazon account has no advertising profiles in the ${region} region. Set up Amazon Ads for it, or connect the region where it advertises.`,
    );
  return entries.map(parseProfile);
}

function parseProfile(entry: unknown): AdvertisingProfile {
  const profile = parseBody(Profile, entry);
  if (!profile) throw new PlatformError('unavailable', 'Amazon Ads answered with a profile without an id or country');
  return {
    id: String(profile.profileId),
    country_code: profile.countryCode,
    name: profile.accountInfo?.name ?? '',
    ...(profile.accountInfo?.marketplaceStringId ? { marketplace_id: profile.accountInfo.marketplaceStringId } : {}),
    ...(profile.currencyCode ? { currency: profile.currencyCode } : {}),
  };
}
