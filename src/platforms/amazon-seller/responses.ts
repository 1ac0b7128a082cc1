/** Amazon SP-API answers, read without I/O (platforms.md §3.2). Token answers are LWA's (../lwa/responses.ts). */
import Type from 'typebox';
import { isPassingFailure } from '../../lib/outbound-http.js';
import type { CallbackResult } from '../contracts/connect.js';
import { PlatformError } from '../contracts/errors.js';
import { parseBody } from '../parse.js';

/**
 * A selling partner id as Amazon writes them (a merchant token such as `A2EUQ1WTGCTBG2`; the sandbox's
 * `ASANDBOX000053`): an upper-case A, then 8 to 19 upper-case letters and digits. ASSUMPTION: the shape is inferred
 * from the ids seen (typically 10 to 14 characters); Amazon documents none. The id comes through the user's browser and
 * becomes the site's external id, so anything else is refused before the code is used.
 */
const SELLING_PARTNER_ID = /^A[0-9A-Z]{8,19}$/;

/**
 * `?state=…&selling_partner_id=…&spapi_oauth_code=…` (and `mws_auth_token` for legacy hybrid apps, which is ignored).
 * Amazon does not document what its Cancel button sends back (UNCONFIRMED, platforms.md §3.2): the simulator's
 * `error=access_denied` on Deny is an ASSUMPTION, read as a refusal, and any other `error` as a failure.
 */
export function readCallback(query: Readonly<Record<string, string | undefined>>): CallbackResult {
  if (query.error)
    return query.error === 'access_denied'
      ? { kind: 'denied', message: 'Access denied' }
      : { kind: 'error', message: query.error_description || query.error };
  if (!query.spapi_oauth_code) return { kind: 'error', message: 'Amazon sent no authorization code' };
  if (!query.selling_partner_id) return { kind: 'error', message: 'Amazon sent no selling partner id' };
  // The message does not repeat the id: it is the browser's text, and goes into a redirect.
  if (!SELLING_PARTNER_ID.test(query.selling_partner_id))
    return { kind: 'error', message: 'Amazon sent a selling partner id that is not of the form Amazon gives them' };
  return { kind: 'code', code: query.spapi_oauth_code, params: { selling_partner_id: query.selling_partner_id } };
}

/** SP-API's error answer: `{errors: [{code, message, details}]}`. */
const SpApiErrors = Type.Object({
  errors: Type.Array(Type.Object({ code: Type.String(), message: Type.Optional(Type.String()), details: Type.Optional(Type.String()) }), {
    minItems: 1,
  }),
});

/** What SP-API said on an error answer: its first error's code, message and details (`Unauthorized: … (…)`). */
export function spApiErrorOf(status: number, body: unknown) {
  const error = parseBody(SpApiErrors, body)?.errors[0];
  const code = error?.code ?? `HTTP ${status}`;
  const message = error?.message ?? '';
  const details = error?.details ?? '';
  return { code, message, details, said: `${code}${message ? `: ${message}` : ''}${details ? ` (${details})` : ''}` };
}

/**
 * Whether Amazon refused the seller's grant: a 401, or a 403 about the access token. SP-API says a revoked or expired
 * token as 403 `Unauthorized` "Access to requested resource is denied." with the token's fault in `details`
 * ("The access token you provided is revoked, malformed or invalid.", amzn/selling-partner-api-models issue 2333); the
 * same message without details is Storelink's app lacking the role (issues 713, 943): the operator's.
 */
export const isGrantRefused = (status: number, error: { message: string; details: string }) =>
  status === 401 || (status === 403 && /access token/i.test(`${error.message} ${error.details}`));

/** `getMarketplaceParticipations`' answer; only the marketplace id, the participation and the store name are read. */
const Participations = Type.Object({
  payload: Type.Array(
    Type.Object({
      marketplace: Type.Object({ id: Type.String({ minLength: 1 }) }),
      participation: Type.Object({ isParticipating: Type.Boolean() }),
      storeName: Type.Optional(Type.String()),
    }),
  ),
});

/**
 * The grant's store: the marketplaces it participates in and its store name. A refused grant (isGrantRefused) is the
 * seller's; any other 403 is the app lacking access, the operator's; 5xx and 429 are passing. A grant with no marketplace at all cannot sell: refused.
 */
export function parseMarketplaceParticipations(status: number, body: unknown): { storeName: string; marketplaceIds: string[] } {
  if (isPassingFailure(status)) throw new PlatformError('unavailable', 'Amazon could not complete the seller lookup');
  if (status >= 400) {
    const error = spApiErrorOf(status, body);
    const said = error.said;
    if (isGrantRefused(status, error)) throw new PlatformError('rejected', `Amazon refused the authorization (${said})`);
    throw new PlatformError('misconfigured', `Amazon refused Storelink's app the seller lookup (HTTP ${status}, ${said})`);
  }
  const answer = parseBody(Participations, body);
  if (!answer) throw new PlatformError('unavailable', 'Amazon answered the seller lookup without marketplaces');
  const participating = answer.payload.filter((entry) => entry.participation.isParticipating);
  if (participating.length === 0)
    throw new PlatformError('rejected', 'This Amazon account sells in no marketplace of the region it was authorized in');
  return {
    storeName: participating.find((entry) => entry.storeName)?.storeName ?? '',
    marketplaceIds: participating.map((entry) => entry.marketplace.id),
  };
}
