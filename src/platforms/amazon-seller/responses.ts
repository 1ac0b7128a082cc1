/** Amazon SP-API's redirect back, read without I/O (platforms.md §3.2). Token answers are LWA's (../lwa/responses.ts). */
import type { CallbackResult } from '../platform.js';

/**
 * `?state=…&selling_partner_id=…&spapi_oauth_code=…` (and `mws_auth_token` for legacy hybrid apps, which is ignored).
 * Amazon does not document what its Cancel button sends back (UNCONFIRMED, platforms.md §3.2); an RFC 6749 §4.1.2.1
 * `error=access_denied`, which is what the simulator sends on Deny, is read as a refusal, and any other `error` as a failure.
 */
export function readCallback(query: Readonly<Record<string, string | undefined>>): CallbackResult {
  if (query.error)
    return query.error === 'access_denied'
      ? { kind: 'denied', message: 'Access denied' }
      : { kind: 'error', message: query.error_description || query.error };
  if (!query.spapi_oauth_code) return { kind: 'error', message: 'Amazon sent no authorization code' };
  if (!query.selling_partner_id) return { kind: 'error', message: 'Amazon sent no selling partner id' };
  return { kind: 'code', code: query.spapi_oauth_code, params: { selling_partner_id: query.selling_partner_id } };
}
