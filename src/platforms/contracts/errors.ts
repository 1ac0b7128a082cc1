/** How a platform call fails, whatever the capability: who the failure is for, or the platform refusing the listing itself. */
import type { ListingIssue } from '../../domain/index.js';

/**
 * Who a failed platform call is for:
 * - `rejected`: the seller's side. The platform says the code or the grant is gone (`invalid_grant`, TikTok's 36004xxx),
 *   or the account cannot be connected (an Etsy user without a shop); the site must be reconnected, and the message is
 *   shown to the user.
 * - `misconfigured`: the operator's side. The platform refused Storelink's own app: a wrong client id or secret (Amazon
 *   makes operators rotate the LWA secret every 180 days), a missing shared secret, an unauthorized client, TikTok's
 *   36009004, or a request the platform calls malformed. No seller can fix it by reconnecting; sites stay connected and
 *   recover when the configuration is fixed.
 * - `unavailable`: passing. The platform could not be reached, timed out, was throttled or failed on its side
 *   (`server_error`, `temporarily_unavailable`, TikTok's 36009003 and 36009007), or answered with something unreadable;
 *   the call is tried again later, no earlier than `retryAfterMs` when the platform said so.
 */
export type PlatformFailure = 'rejected' | 'misconfigured' | 'unavailable';

export class PlatformError extends Error {
  constructor(
    readonly reason: PlatformFailure,
    message: string,
    /** The platform's `Retry-After`, in milliseconds, on a passing failure that carried one. */
    readonly retryAfterMs: number | null = null,
  ) {
    super(message);
    this.name = 'PlatformError';
  }
}

/** The platform refused the listing itself (not the grant, not a passing failure): its reasons, in its own words. */
export class ListingRefused extends Error {
  constructor(readonly issues: ListingIssue[]) {
    super(issues.map((issue) => issue.message).join(' '));
    this.name = 'ListingRefused';
  }
}

/**
 * The platform's allowance for the work is spent until `until` (TikTok Shop's daily limit of new products, 12052093): not
 * a fault of the listing, nor a passing failure to try again in seconds. The work waits until then without spending an
 * attempt, and the listing says why (`issue`, in the platform's words and Storelink's).
 */
export class AllowanceSpent extends Error {
  constructor(
    readonly issue: ListingIssue,
    readonly until: Date,
  ) {
    super(issue.message);
    this.name = 'AllowanceSpent';
  }
}
