/** Amazon Ads answers, parsed without I/O (platforms.md §4.2, §4.4). Token answers are LWA's (../lwa/responses.ts). */
import type { AdvertisingProfile } from '../../domain/index.js';
import { isPassingFailure, stringField } from '../http.js';
import { PlatformError, type CallbackResult } from '../platform.js';
import { ADS_SCOPE } from './requests.js';

/**
 * `?code=…&scope=…&state=…`, or RFC 6749 style `?error=access_denied&error_description=…&state=…` (the full LWA error
 * list is UNCONFIRMED, platforms.md §4.2). A granted scope without campaign management is of no use, so it is a failure.
 */
export function readCallback(query: Readonly<Record<string, string | undefined>>): CallbackResult {
  if (query.error) return query.error === 'access_denied' ? { kind: 'denied', message: 'Access denied' } : { kind: 'error', message: query.error_description || query.error };
  if (!query.code) return { kind: 'error', message: 'Amazon sent no authorization code' };
  if (query.scope !== undefined && !query.scope.split(' ').includes(ADS_SCOPE)) return { kind: 'error', message: 'Amazon did not grant advertising access' };
  return { kind: 'code', code: query.code, params: query.scope !== undefined ? { scope: query.scope } : {} };
}

/**
 * `GET /v2/profiles` → `[{profileId, countryCode, accountInfo: {name, …}}, …]`, one per marketplace the account
 * advertises in. Profile ids fit a double exactly (about 1.5e15), so JSON numbers are safe to read.
 */
export function parseProfiles(status: number, body: unknown): AdvertisingProfile[] {
  if (isPassingFailure(status)) throw new PlatformError('unavailable', 'Amazon Ads could not complete the profile lookup');
  if (status >= 400) throw new PlatformError('rejected', stringField(body, 'details') ?? 'Amazon Ads refused the profile lookup');
  if (!Array.isArray(body)) throw new PlatformError('unavailable', 'Amazon Ads answered the profile lookup with something other than a list');
  return body.map(parseProfile);
}

function parseProfile(entry: unknown): AdvertisingProfile {
  const record = (entry ?? {}) as Record<string, unknown>;
  const id = record.profileId;
  const countryCode = stringField(entry, 'countryCode');
  if ((typeof id !== 'number' && typeof id !== 'string') || id === '' || !countryCode) {
    throw new PlatformError('unavailable', 'Amazon Ads answered with a profile without an id or country');
  }
  return { id: String(id), country_code: countryCode, name: stringField(record.accountInfo, 'name') ?? '' };
}
