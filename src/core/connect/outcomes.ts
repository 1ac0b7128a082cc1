/**
 * Where the user goes after a platform's redirect back: the seed's redirect table, as pure functions (seed §4, DESIGN §4).
 * What differs from track to track is read from the track's terms (domain's TRACK_TERMS).
 */
import { TRACK_TERMS, type Track } from '../../domain/index.js';
import { toAsciiUrl, withQuery } from './redirects.js';

/** Why a connection failed; the status is also the platform 5 seller track's `code` (DESIGN §4). */
export type FailureReason = 'denied' | 'rejected' | 'unavailable' | 'internal';
export interface Failure {
  reason: FailureReason;
  message: string;
}
const FAILURE_STATUS: Record<FailureReason, number> = { denied: 403, rejected: 400, unavailable: 502, internal: 500 };

/**
 * A redirect (with `Accept: application/json`, a JSON answer of `status` instead), or, for a failed advertising
 * connection, the retry page.
 */
export type CallbackOutcome =
  | { kind: 'redirect'; to: string; status: number; message: string; siteId: number | null }
  | { kind: 'retry'; retryUrl: string | null; backUrl: string; status: number; message: string };

interface StateTarget {
  redirectUrl: string;
  siteId: number | null;
}

const listings = (appUrl: string, siteId: number) => `${appUrl}/site/${siteId}/listings`;
const dashboard = (appUrl: string) => `${appUrl}/dashboard`;

// Every target is ASCII (toAsciiUrl, also inside withQuery): a caller's `https://例え.jp/é` would otherwise make the
// Location header throw after the site was stored, and the JSON answers and the retry page name the same address.

/** Where a connected track sends the user: the caller's URL, with what the track's callback adds, else the site's listings. */
export function successOutcome(track: Track, state: StateTarget, siteId: number, appUrl: string): CallbackOutcome {
  const custom = toAsciiUrl(state.redirectUrl);
  const { marketplace, segment } = TRACK_TERMS[track].callback;
  let to: string;
  if (!custom) to = listings(appUrl, siteId);
  else if (marketplace) to = withQuery(custom, { platform: 'marketplace', site_id: siteId, ...(segment === null ? {} : { segment }) });
  else to = custom;
  return { kind: 'redirect', to, status: 200, message: 'Connected', siteId };
}

/** Where a failed connection sends the user: the caller's URL (else the dashboard) saying why, or the track's retry page. */
export function failureOutcome(
  track: Track,
  state: StateTarget,
  failure: Failure,
  appUrl: string,
  retryUrl: string | null = null,
): CallbackOutcome {
  const status = FAILURE_STATUS[failure.reason];
  const base = state.redirectUrl || dashboard(appUrl);
  const { marketplace, retry } = TRACK_TERMS[track].callback;
  if (retry) {
    return {
      kind: 'retry',
      retryUrl,
      backUrl: toAsciiUrl(state.redirectUrl) || (state.siteId ? listings(appUrl, state.siteId) : dashboard(appUrl)),
      status,
      message: failure.message,
    };
  }
  const to = marketplace
    ? withQuery(base, { platform: 'marketplace', code: status, message: failure.message })
    : withQuery(base, { authorization_error: failure.message });
  return { kind: 'redirect', to, status, message: failure.message, siteId: null };
}

/** A state that fails verification: never a URL read from it (DESIGN §4). */
export function invalidStateOutcome(appUrl: string): CallbackOutcome {
  return {
    kind: 'redirect',
    to: withQuery(dashboard(appUrl), { authorization_error: 'Invalid authorization state' }),
    status: 400,
    message: 'Invalid authorization state. Please try authenticating again.',
    siteId: null,
  };
}

/** A genuine state past its 15 minutes: back to its signed redirect_url, or the dashboard. */
export function expiredStateOutcome(appUrl: string, redirectUrl: string): CallbackOutcome {
  return {
    kind: 'redirect',
    to: withQuery(redirectUrl || dashboard(appUrl), { authorization_error: 'Authorization state has expired' }),
    status: 400,
    message: 'Authorization state has expired. Please try authenticating again.',
    siteId: null,
  };
}
